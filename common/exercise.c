/*
 * exercise.c - `--exercise N`: a lesson runs exercise N of its README, the changed code included,
 * and ends with each figure of its answer beside the same figure of the shipped reference run for
 * this GPU model (results/reference/<gpu>/<lesson>_exercises.csv, written by `make run-all`).
 * Host-only: the unit tests read a reference from a folder of their own.
 */
#include "common.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* A folder of results: the program's own folder (up to PATH_MAX) and a GPU's name below it. */
#define FOLDER_MAX (PATH_MAX + 320)

void exercise_begin(struct csv *csv, int n, int count, const char *asks)
{
    csv->answers_only = true;
    printf("exercise %d of %d: %s\n", n, count, asks);
}

void gpu_slug(const char *name, char *slug, size_t len)
{
    size_t out = 0;
    bool dash = false;
    for (const char *c = name; *c && out + 1 < len; c++) {
        if (isalnum((unsigned char)*c)) {
            if (dash && out > 0 && out + 2 < len)
                slug[out++] = '-';
            slug[out++] = (char)tolower((unsigned char)*c);
            dash = false;
        } else {
            dash = true;
        }
    }
    slug[out] = '\0';
}

/* Splits one CSV line in place into at most n fields (RFC 4180 quoting, as csv_field writes it);
 * returns how many it found. */
static size_t csv_split(char *line, char **fields, size_t n)
{
    size_t found = 0;
    char *read = line, *write = line;
    while (found < n) {
        fields[found++] = write;
        bool quoted = *read == '"';
        if (quoted)
            read++;
        for (; *read && (quoted || *read != ','); read++) {
            if (quoted && *read == '"') {
                if (read[1] != '"') {
                    quoted = false;
                    continue;
                }
                read++; /* a doubled quote stands for one */
            }
            *write++ = *read;
        }
        bool more = *read == ',';
        *write++ = '\0';
        if (!more)
            break;
        read++;
    }
    return found;
}

/* The number after "name=" in a params field ("a=1;name=2.5;b=3"), if it is a finite number. */
static bool param_value(const char *params, const char *name, double *value)
{
    size_t len = strlen(name);
    for (const char *p = params; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
        if (strncmp(p, name, len) || p[len] != '=')
            continue;
        char *end;
        double v = strtod(p + len + 1, &end);
        if (end == p + len + 1 || (*end && *end != ';') || !isfinite(v))
            return false;
        *value = v;
        return true;
    }
    return false;
}

int exercise_reference(const char *folder, const char *lesson, const char *key,
                       struct exercise_figure *figure)
{
    char path[FOLDER_MAX + 256];
    snprintf(path, sizeof path, "%s/%s_exercises.csv", folder, lesson);
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    int status = -2;
    char line[4096];
    while (status != 0 && fgets(line, sizeof line, file)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *f[15];
        if (csv_split(line, f, 15) != 15 || strcmp(f[0], lesson) || strcmp(f[1], "exercise") ||
            strcmp(f[2], key) || !param_value(f[14], "value", &figure->value))
            continue;
        figure->bytes = (size_t)strtoull(f[4], NULL, 10);
        figure->reps = atoi(f[5]);
        status = 0;
    }
    fclose(file);
    return status;
}

/* results/reference/<slug>/ beside the program's build folder (<root>/build/bin/<lesson>), or
 * under the current directory; $EXERCISE_REFERENCE overrides both (the tests use it). */
static void reference_folder(const char *slug, char *folder, size_t len)
{
    const char *chosen = getenv("EXERCISE_REFERENCE");
    if (chosen) {
        snprintf(folder, len, "%s", chosen);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(folder, len, "results/reference/%s", slug);
    if (n <= 0)
        return;
    exe[n] = '\0';
    for (int up = 0; up < 3; up++) { /* <root>/build/bin/<lesson> -> <root> */
        char *slash = strrchr(exe, '/');
        if (!slash)
            return;
        *slash = '\0';
    }
    char beside[FOLDER_MAX];
    snprintf(beside, sizeof beside, "%s/results/reference/%s", exe, slug);
    if (access(beside, R_OK) == 0)
        snprintf(folder, len, "%s", beside);
}

/* The date the reference was measured on, from its meta.txt ("date: 2026-11-30T..."). */
static void reference_date(const char *folder, char *date, size_t len)
{
    char path[FOLDER_MAX + 16], line[256];
    snprintf(date, len, "date unknown");
    snprintf(path, sizeof path, "%s/meta.txt", folder);
    FILE *meta = fopen(path, "r");
    if (!meta)
        return;
    while (fgets(line, sizeof line, meta))
        if (strncmp(line, "date: ", 6) == 0)
            snprintf(date, len, "%.10s", line + 6);
    fclose(meta);
}

/* The reference's figure beside the student's, and how far apart they are. */
static void compare(const char *gpu, const char *folder, const char *unit, double value,
                    const struct exercise_figure *ref, const struct csv_row *measured)
{
    char date[32];
    reference_date(folder, date, sizeof date);
    printf("  reference, %s (%s): %.4g %s", gpu, date, ref->value, unit);
    if (ref->bytes != measured->bytes || ref->reps != measured->reps) {
        printf(", measured on %zu bytes, %d repetitions (yours: %zu, %d): not compared\n",
               ref->bytes, ref->reps, measured->bytes, measured->reps);
    } else if (ref->value == 0) {
        printf("; yours is %s\n", value == 0 ? "the same" : "not 0 (see the README)");
    } else {
        double apart = (value - ref->value) / fabs(ref->value);
        printf("; yours is %.1f%% %s (%s%.0f%% apart%s)\n", 100 * fabs(apart),
               apart >= 0 ? "higher" : "lower", fabs(apart) <= EXERCISE_NEAR ? "within " : "over ",
               100 * EXERCISE_NEAR, fabs(apart) <= EXERCISE_NEAR ? "" : ": see the README");
    }
}

int exercise_answer(struct csv *csv, int n, const char *key, const char *what, double value,
                    const char *unit, struct csv_row measured)
{
    printf("answer %d, %s: %.4g %s\n", n, what, value, unit);
    const char *gpu = csv->gpu ? csv->gpu->name : "this GPU";
    char slug[256], folder[FOLDER_MAX], shown[FOLDER_MAX];
    gpu_slug(gpu, slug, sizeof slug);
    reference_folder(slug, folder, sizeof folder);
    /* As the README names it, wherever the program found it. */
    snprintf(shown, sizeof shown, "%s", getenv("EXERCISE_REFERENCE") ? folder : "");
    if (!*shown)
        snprintf(shown, sizeof shown, "results/reference/%s", slug);
    struct exercise_figure ref;
    int found = exercise_reference(folder, csv->lesson, key, &ref);
    if (found == -1)
        printf("  no reference for the %s: %s/ holds no %s_exercises.csv; the README's answer "
               "gives the H200's\n", gpu, shown, csv->lesson);
    else if (found == -2)
        printf("  the reference for the %s (%s/) has no figure '%s'\n", gpu, shown, key);
    else
        compare(gpu, folder, unit, value, &ref, &measured);
    char params[256];
    snprintf(params, sizeof params, "%s%sexercise=%d;value=%.6g",
             measured.params ? measured.params : "",
             measured.params && *measured.params ? ";" : "", n, value);
    measured.experiment = "exercise";
    measured.variant = key;
    measured.params = params;
    return csv_write(csv, &measured);
}

void exercise_record(struct csv *csv, int n, const char *key, const char *what, double value,
                     const char *unit, struct csv_row measured)
{
    if (exercise_answer(csv, n, key, what, value, unit, measured))
        exit(EXIT_ERROR);
}
