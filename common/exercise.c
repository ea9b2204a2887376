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

void exercise_begin(int n, int count, const char *asks)
{
    printf("exercise %d of %d: %s\n\n", n, count, asks);
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

int exercise_reference(const char *folder, const char *lesson, const char *key, double *value)
{
    char path[FOLDER_MAX + 256];
    snprintf(path, sizeof path, "%s/%s_exercises.csv", folder, lesson);
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    int status = -1;
    char line[2048];
    while (status != 0 && fgets(line, sizeof line, file)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *f[15];
        if (csv_split(line, f, 15) != 15 || strcmp(f[0], lesson) || strcmp(f[1], "exercise") ||
            strcmp(f[2], key))
            continue;
        const char *at = strstr(f[14], "value=");
        if (at && (at == f[14] || at[-1] == ';')) {
            *value = strtod(at + strlen("value="), NULL);
            status = 0;
        }
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

int exercise_answer(struct csv *csv, int n, const char *key, const char *what, double value,
                    const char *unit, struct csv_row measured)
{
    printf("answer %d, %s: %.4g %s\n", n, what, value, unit);
    const char *gpu = csv->gpu ? csv->gpu->name : "this GPU";
    char slug[256], folder[FOLDER_MAX], date[32];
    gpu_slug(gpu, slug, sizeof slug);
    reference_folder(slug, folder, sizeof folder);
    char slug_folder[300]; /* as the README names it, wherever the program found it */
    snprintf(slug_folder, sizeof slug_folder, "results/reference/%s", slug);
    double reference;
    if (exercise_reference(folder, csv->lesson, key, &reference) != 0) {
        printf("  no reference for the %s: %s/ holds no %s_exercises.csv; the README's answer "
               "gives the H200's\n", gpu, getenv("EXERCISE_REFERENCE") ? folder : slug_folder,
               csv->lesson);
    } else {
        reference_date(folder, date, sizeof date);
        printf("  reference, %s (%s): %.4g %s", gpu, date, reference, unit);
        if (reference != 0) {
            double apart = value / reference - 1;
            printf("; yours is %.1f%% %s (%s)\n", 100 * fabs(apart),
                   apart >= 0 ? "higher" : "lower",
                   fabs(apart) <= EXERCISE_NEAR ? "close" : "over 10% apart: see the README");
        } else {
            printf("; yours is %s\n", value == 0 ? "the same" : "not (see the README)");
        }
    }
    char params[64];
    snprintf(params, sizeof params, "exercise=%d;value=%.6g", n, value);
    measured.experiment = "exercise";
    measured.variant = key;
    measured.params = params;
    return csv_write(csv, &measured);
}
