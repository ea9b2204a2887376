/*
 * common.c - the host-only half of common.h: timing, statistics, command line, CSV.
 * Nothing here calls the CUDA runtime, so the unit tests run it under AddressSanitizer and UBSan
 * on machines without a GPU. The half that talks to the GPU is gpu.c.
 */
#include "common.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *program_name = "program";

/* ------------------------------------------------------------------ timing */

double host_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec * 1e-6;
}

double thread_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bool stats_unsteady(struct stats s)
{
    return s.max - s.min > UNSTEADY_MARK * s.median;
}

struct stats stats_summarize(double *samples, size_t n)
{
    qsort(samples, n, sizeof *samples, compare_doubles);
    struct stats s = {
        .median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]),
        .min = samples[0],
        .max = samples[n - 1],
    };
    return s;
}

double *samples_alloc(size_t n)
{
    double *samples = malloc(n * sizeof *samples);
    if (!samples)
        fprintf(stderr, "%s: out of host memory for %zu timing samples\n", program_name, n);
    return samples;
}

void *malloc_or_exit(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "%s: out of host memory for %zu bytes\n", program_name, bytes);
        exit(EXIT_ERROR);
    }
    return p;
}

double *samples_or_exit(size_t n)
{
    return malloc_or_exit(n * sizeof(double));
}

double gbps(size_t bytes, double ms)
{
    return (double)bytes / (ms * 1e-3) / 1e9;
}

size_t sweep_next_size(size_t bytes, size_t max_bytes)
{
    return bytes < max_bytes && bytes * 4 > max_bytes ? max_bytes : bytes * 4;
}

char *format_bytes(size_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t unit = 0;
    double value = (double)bytes;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    if (value == floor(value))
        snprintf(buf, len, "%.0f %s", value, units[unit]);
    else
        snprintf(buf, len, "%.1f %s", value, units[unit]);
    return buf;
}

/* The number a cgroup file holds, or false for "max", a missing file or anything else. */
static bool read_cgroup_number(const char *dir, const char *file, size_t *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    unsigned long long n;
    bool ok = fscanf(f, "%llu", &n) == 1;
    fclose(f);
    if (ok)
        *out = (size_t)n;
    return ok;
}

/* A "key value" line's value in a cgroup file (memory.stat), or 0. */
static size_t cgroup_stat(const char *dir, const char *key)
{
    char path[4200], line[256];
    snprintf(path, sizeof path, "%s/memory.stat", dir);
    FILE *f = fopen(path, "r");
    unsigned long long value = 0;
    size_t len = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0 && line[len] == ' ' &&
            sscanf(line + len, "%llu", &value) == 1)
            break;
    if (f)
        fclose(f);
    return (size_t)value;
}

/* The least room under a limit from cgroup `path` (under the hierarchy mounted at `base`) up to
 * the hierarchy's root. Consumes path. */
static size_t room_up_from(const char *base, char *path, const char *limit_file,
                           const char *usage_file, const char *reclaimable)
{
    size_t room = SIZE_MAX;
    for (;;) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s%s", base, strcmp(path, "/") == 0 ? "" : path);
        size_t limit, usage;
        if (read_cgroup_number(dir, limit_file, &limit) &&
            read_cgroup_number(dir, usage_file, &usage)) {
            size_t cache = cgroup_stat(dir, reclaimable);
            usage = usage > cache ? usage - cache : 0;
            size_t left = limit > usage ? limit - usage : 0;
            if (left < room)
                room = left;
        }
        if (strcmp(path, "/") == 0)
            return room;
        char *slash = strrchr(path, '/');
        slash[slash == path] = '\0'; /* the parent; "/" keeps its slash */
    }
}

size_t cgroup_room(const char *root, const char *self)
{
    size_t room = SIZE_MAX;
    char line[4096];
    while (*self) {
        size_t len = strcspn(self, "\n");
        snprintf(line, sizeof line, "%.*s", (int)len, self);
        self += len + (self[len] == '\n');
        /* "hierarchy-ID:controllers:path"; v2 has ID 0 and no controllers. */
        char *controllers = strchr(line, ':'), *path = controllers ? strchr(controllers + 1, ':')
                                                                   : NULL;
        if (!path || path[1] != '/')
            continue;
        *path++ = '\0';
        *controllers++ = '\0';
        char base[4096];
        size_t here = SIZE_MAX;
        if (strcmp(line, "0") == 0 && *controllers == '\0') {
            here = room_up_from(root, path, "memory.max", "memory.current", "inactive_file");
        } else {
            /* v1 mounts a hierarchy under its controllers' names: "memory", or "cpu,memory". */
            snprintf(base, sizeof base, "%s/%s", root, controllers);
            bool memory = false;
            for (char *c = strtok(controllers, ","); c; c = strtok(NULL, ","))
                memory = memory || strcmp(c, "memory") == 0;
            if (!memory)
                continue;
            here = room_up_from(base, path, "memory.limit_in_bytes", "memory.usage_in_bytes",
                                "total_inactive_file");
        }
        if (here < room)
            room = here;
    }
    return room;
}

int cpus_in_list(const char *list)
{
    int count = 0;
    while (*list && *list != '\n') {
        char *end;
        long first = strtol(list, &end, 10), last = first;
        if (end == list)
            return 0;
        if (*end == '-')
            last = strtol(end + 1, &end, 10);
        count += last >= first ? (int)(last - first + 1) : 0;
        list = *end == ',' ? end + 1 : end;
    }
    return count;
}

/* The CPU time a cgroup v2 quota allows on the path from `path` up, in CPUs (rounded up); 0 for
 * none. Consumes path. */
static int cgroup_cpu_quota(char *path)
{
    int least = 0;
    for (;;) {
        char file[4200], line[64];
        snprintf(file, sizeof file, "/sys/fs/cgroup%s/cpu.max", strcmp(path, "/") ? path : "");
        FILE *f = fopen(file, "r");
        unsigned long long quota, period;
        if (f && fgets(line, sizeof line, f) && sscanf(line, "%llu %llu", &quota, &period) == 2 &&
            period > 0) {
            int cpus = (int)((quota + period - 1) / period);
            if (least == 0 || cpus < least)
                least = cpus;
        }
        if (f)
            fclose(f);
        if (strcmp(path, "/") == 0)
            return least;
        char *slash = strrchr(path, '/');
        slash[slash == path] = '\0';
    }
}

int host_cpus(void)
{
    char line[4096];
    int cpus = 0;
    FILE *status = fopen("/proc/self/status", "r");
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
            cpus = cpus_in_list(line + 18 + strspn(line + 18, " \t"));
    if (status)
        fclose(status);
    if (cpus < 1) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        cpus = online < 1 ? 1 : online > 4096 ? 4096 : (int)online;
    }
    FILE *cgroups = fopen("/proc/self/cgroup", "r");
    while (cgroups && fgets(line, sizeof line, cgroups)) {
        if (strncmp(line, "0::/", 4) != 0)
            continue; /* cgroup v2 only: v1's cpu quota is left alone */
        line[strcspn(line, "\n")] = '\0';
        int quota = cgroup_cpu_quota(line + 3);
        if (quota > 0 && quota < cpus)
            cpus = quota;
    }
    if (cgroups)
        fclose(cgroups);
    return cpus;
}

size_t host_available_bytes(void)
{
    FILE *meminfo = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    while (meminfo && fgets(line, sizeof line, meminfo))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (meminfo)
        fclose(meminfo);
    size_t available = kib ? (size_t)kib * 1024 : SIZE_MAX;
    char self[8192] = "";
    FILE *cgroups = fopen("/proc/self/cgroup", "r");
    if (cgroups) {
        size_t got = fread(self, 1, sizeof self - 1, cgroups);
        self[got] = '\0';
        fclose(cgroups);
    }
    size_t room = cgroup_room("/sys/fs/cgroup", self);
    return room < available ? room : available;
}

void sized_holdings(const struct sized *sizes, size_t n, double *gpu, double *host)
{
    *gpu = *host = 0;
    for (size_t i = 0; i < n; i++) {
        *gpu += sizes[i].on_gpu * (double)*sizes[i].value;
        *host += sizes[i].on_host * (double)*sizes[i].value;
    }
}

int sizes_halve_to_fit(struct sized *sizes, size_t n, double gpu_room, double host_room)
{
    int halvings = 0;
    for (;;) {
        double gpu, host;
        sized_holdings(sizes, n, &gpu, &host);
        if (gpu <= gpu_room && (host_room == 0 || host <= host_room))
            return halvings;
        bool halved = false;
        for (size_t i = 0; i < n; i++)
            if (!sizes[i].given && *sizes[i].value / 2 >= SIZED_LEAST_BYTES) {
                *sizes[i].value /= 2;
                halved = true;
            }
        if (!halved)
            return halvings;
        halvings++;
    }
}

/* ------------------------------------------------------- data and checking */

void fill_random(float *x, size_t n, unsigned long long seed)
{
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1; /* xorshift64 must not start at 0 */
    for (size_t i = 0; i < n; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        /* 24 random bits make a float in [0, 1) exactly; shift it to [-1, 1). */
        x[i] = (float)(state >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    }
}

bool vector_add_verified(const float *a, const float *b, const float *c, size_t n,
                         const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) {
            fprintf(stderr, "%s: %s: element %zu of c = a + b is %.9g, want %.9g + %.9g\n",
                    program_name, what, i, c[i], a[i], b[i]);
            return false;
        }
    }
    return true;
}

void chunk_bounds(size_t n, size_t parts, size_t i, size_t *first, size_t *count)
{
    /* The first n % parts parts hold one element more; no multiplication that could overflow. */
    size_t base = n / parts, extra = n % parts;
    *first = i * base + (i < extra ? i : extra);
    *count = base + (i < extra ? 1 : 0);
}

/* -------------------------------------------------------------- command line */

/* "-3" is a whole number, just not one a count can be. */
static bool negative_number(const char *text)
{
    if (*text++ != '-' || !isdigit((unsigned char)*text))
        return false;
    while (isdigit((unsigned char)*text))
        text++;
    return *text == '\0';
}

const char *parse_count(const char *text, unsigned long long max, unsigned long long *out)
{
    if (*text == '\0')
        return "is empty";
    if (negative_number(text))
        return "is negative";
    if (!isdigit((unsigned char)*text))
        return "is not a whole number";
    unsigned long long value = 0;
    const char *p = text;
    for (; isdigit((unsigned char)*p); p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (value > (ULLONG_MAX - digit) / 10)
            return "is too large";
        value = value * 10 + digit;
    }
    if (*p != '\0')
        return "is not a whole number";
    if (value > max)
        return "is too large";
    *out = value;
    return NULL;
}

const char *parse_bytes(const char *text, size_t *out)
{
    if (*text == '\0')
        return "is empty";
    if (negative_number(text))
        return "is negative";
    if (!isdigit((unsigned char)*text))
        return "is not a byte count";
    const char *p = text;
    while (isdigit((unsigned char)*p))
        p++;
    char digits[32];
    if ((size_t)(p - text) >= sizeof digits)
        return "is too large";
    memcpy(digits, text, (size_t)(p - text));
    digits[p - text] = '\0';

    unsigned shift = 0;
    switch (toupper((unsigned char)*p)) {
    case '\0': break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: return "has an unknown unit (use K, M, G or T: binary units)";
    }
    if (shift) {
        p++;
        /* "64K" and "64KiB" both mean 65536; "64KB" is refused, since KB often means 1000. */
        if (p[0] == 'i' && p[1] == 'B')
            p += 2;
        if (*p != '\0')
            return "has an unknown unit (use K, M, G or T: binary units)";
    }

    unsigned long long value;
    const char *why = parse_count(digits, SIZE_MAX >> shift, &value);
    if (why)
        return why;
    if (value == 0)
        return "must be greater than zero";
    *out = (size_t)value << shift;
    return NULL;
}

/* An option's default, "(default 64 MiB)", into buf; "" where the help already says what 0 means,
 * "(0: never)", and 0 is the default: then print_usage() says so once, "(0: never, the default)". */
static void format_default(const struct opt *o, char *buf, size_t len)
{
    size_t help_len = strlen(o->help);
    if (o->kind == OPT_INT && *(int *)o->value == 0 && strstr(o->help, "(0: ") && help_len &&
        o->help[help_len - 1] == ')') {
        buf[0] = '\0';
        return;
    }
    char value[32];
    switch (o->kind) {
    case OPT_BYTES: format_bytes(*(size_t *)o->value, value, sizeof value); break;
    case OPT_INT: snprintf(value, sizeof value, "%d", *(int *)o->value); break;
    case OPT_PATH:
        snprintf(value, sizeof value, "%s", *(const char **)o->value ? *(const char **)o->value
                                                                      : "none");
        break;
    }
    snprintf(buf, len, "(default %s)", value);
}

/* Prints `text` then `tail`, kept whole, from column HELP_COLUMN, wrapped at HELP_WIDTH. */
enum { HELP_COLUMN = 23, HELP_WIDTH = 100 };
static void print_wrapped(const char *text, const char *tail)
{
    int column = HELP_COLUMN;
    while (*text || *tail) {
        bool last = !*text;
        size_t word = last ? strlen(tail) : strcspn(text, " ");
        if (column > HELP_COLUMN && column + 1 + (int)word > HELP_WIDTH) {
            printf("\n%*s", HELP_COLUMN, "");
            column = HELP_COLUMN;
        } else if (column > HELP_COLUMN) {
            putchar(' ');
            column++;
        }
        printf("%.*s", (int)word, last ? tail : text);
        column += (int)word;
        if (last)
            break;
        text += word;
        text += strspn(text, " ");
    }
    putchar('\n');
}

static void print_usage(const char *summary, const struct opt *opts, size_t n_opts)
{
    printf("usage: %s [options]\n\n%s\n\noptions:\n", program_name, summary);
    for (size_t i = 0; i < n_opts; i++) {
        char flag[64], help[512], fallback[64];
        snprintf(flag, sizeof flag, "%s %s", opts[i].name, opts[i].meta);
        format_default(&opts[i], fallback, sizeof fallback);
        size_t len = strlen(opts[i].help);
        if (*fallback) /* the default said after the help */
            snprintf(help, sizeof help, "%s", opts[i].help);
        else           /* its closing parenthesis after ", the default" */
            snprintf(help, sizeof help, "%.*s, the default)", (int)len - 1, opts[i].help);
        printf("  %-20s ", flag);
        print_wrapped(help, fallback);
    }
    printf("  %-20s %s\n", "--help", "print this help and exit");
    printf("\nsizes accept 4096, 64K, 256M, 1G (binary units: 1K = 1024 bytes)\n");
}

static const char *expectation(enum opt_kind kind)
{
    switch (kind) {
    case OPT_BYTES: return "a byte count such as 4096, 64K, 256M or 1G";
    case OPT_INT: return "a whole number";
    case OPT_PATH: return "a file path";
    }
    return "a value";
}

static int usage_error(const char *flag, const char *value, const char *why, const char *expected)
{
    if (value)
        fprintf(stderr, "%s: %s '%s' %s; expected %s (see --help)\n", program_name, flag, value,
                why, expected);
    else
        fprintf(stderr, "%s: %s %s (see --help)\n", program_name, flag, why);
    return EXIT_USAGE;
}

static int set_option(const struct opt *o, const char *value)
{
    const char *why = NULL;
    char range[96];
    switch (o->kind) {
    case OPT_BYTES: {
        size_t bytes = 0;
        why = parse_bytes(value, &bytes);
        if (!why && (bytes < o->min || bytes > o->max))
            why = "is out of range";
        if (!why && o->multiple > 1 && bytes % o->multiple != 0) {
            snprintf(range, sizeof range, "a multiple of %zu bytes", o->multiple);
            return usage_error(o->name, value, "does not hold whole elements", range);
        }
        if (why) {
            char lo[32], hi[32];
            snprintf(range, sizeof range, "a byte count from %s to %s",
                     format_bytes(o->min, lo, sizeof lo), format_bytes(o->max, hi, sizeof hi));
            return usage_error(o->name, value, why, range);
        }
        *(size_t *)o->value = bytes;
        return CLI_CONTINUE;
    }
    case OPT_INT: {
        unsigned long long n = 0;
        why = parse_count(value, o->max, &n);
        if (!why && n < o->min)
            why = n == 0 && o->min == 1 ? "must be greater than zero" : "is too small";
        if (why) {
            snprintf(range, sizeof range, "a whole number from %llu to %llu", o->min, o->max);
            return usage_error(o->name, value, why, range);
        }
        *(int *)o->value = (int)n;
        return CLI_CONTINUE;
    }
    case OPT_PATH:
        if (*value == '\0')
            return usage_error(o->name, value, "is empty", expectation(o->kind));
        *(const char **)o->value = value;
        return CLI_CONTINUE;
    }
    return usage_error(o->name, value, "is not understood", expectation(o->kind));
}

enum { MAX_OPTIONS = 32 };

static const char *given_flags[MAX_OPTIONS]; /* the last cli_parse()'s, NULL after the last */

bool cli_given(const char *flag)
{
    for (size_t i = 0; i < MAX_OPTIONS && given_flags[i]; i++)
        if (strcmp(given_flags[i], flag) == 0)
            return true;
    return false;
}

int cli_parse(int argc, char **argv, const char *summary, struct common_args *args,
              const struct opt *extra, size_t n_extra)
{
    if (argc > 0 && argv[0] && *argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        program_name = slash ? slash + 1 : argv[0];
    }

    struct opt opts[MAX_OPTIONS] = {
        {"--size", OPT_BYTES, &args->size, 1, (size_t)1 << 40, "BYTES",
         args->size_help ? args->size_help : "bytes per buffer", args->size_multiple},
        {"--reps", OPT_INT, &args->reps, 1, 100000, "N", "timed repetitions; the median is reported",
         0},
        {"--csv", OPT_PATH, &args->csv, 0, 0, "PATH", "append results to this CSV file", 0},
        {"--device", OPT_INT, &args->device, 0, 1023, "N", "which GPU to use", 0},
    };
    size_t n_opts = 4;
    for (size_t i = 0; i < n_extra && n_opts < MAX_OPTIONS; i++)
        opts[n_opts++] = extra[i];
    bool seen[MAX_OPTIONS] = {false};
    size_t n_given = 0;
    memset(given_flags, 0, sizeof given_flags);

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(summary, opts, n_opts);
            return EXIT_VERIFIED;
        }
        const char *equals = strchr(arg, '=');
        size_t name_len = equals ? (size_t)(equals - arg) : strlen(arg);
        size_t k = 0;
        while (k < n_opts && !(strlen(opts[k].name) == name_len &&
                               strncmp(opts[k].name, arg, name_len) == 0))
            k++;
        if (k == n_opts) {
            fprintf(stderr, "%s: unknown option '%.*s' (see --help)\n", program_name,
                    (int)name_len, arg);
            return EXIT_USAGE;
        }
        if (seen[k])
            return usage_error(opts[k].name, NULL, "is given more than once", NULL);
        seen[k] = true;
        given_flags[n_given++] = opts[k].name;

        const char *value = equals ? equals + 1 : NULL;
        if (!value) {
            if (i + 1 >= argc)
                return usage_error(opts[k].name, NULL, "needs a value", NULL);
            value = argv[++i];
        }
        int rc = set_option(&opts[k], value);
        if (rc != CLI_CONTINUE)
            return rc;
    }
    return CLI_CONTINUE;
}

/* ------------------------------------------------------------------ the deep layer */

/* Whether the comma-separated `list` holds `name` as one of its items. */
static bool list_holds(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *item = list; item; item = strchr(item, ',') ? strchr(item, ',') + 1 : NULL)
        if (strncmp(item, name, len) == 0 && (item[len] == ',' || item[len] == '\0'))
            return true;
    return false;
}

int deep_check(const char *deep, const char *const *parts, size_t n)
{
    for (const char *item = deep; item; item = strchr(item, ',') ? strchr(item, ',') + 1 : NULL) {
        size_t len = strcspn(item, ",");
        bool known = len == 3 && strncmp(item, "all", 3) == 0;
        for (size_t i = 0; i < n && !known; i++)
            known = strlen(parts[i]) == len && strncmp(item, parts[i], len) == 0;
        if (!known) {
            fprintf(stderr, "%s: --deep has no part '%.*s'; expected all, or some of:",
                    program_name, (int)len, item);
            for (size_t i = 0; i < n; i++)
                fprintf(stderr, "%s%s", i ? "," : " ", parts[i]);
            fprintf(stderr, " (joined by commas; see --help)\n");
            return EXIT_USAGE;
        }
    }
    return CLI_CONTINUE;
}

bool deep_wants(const char *deep, const char *part)
{
    return deep && (list_holds(deep, "all") || list_holds(deep, part));
}

/* ------------------------------------------------------------------ results */

void csv_field(FILE *file, const char *text)
{
    if (!text)
        return;
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, file);
        return;
    }
    fputc('"', file);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', file);
        fputc(*c, file);
    }
    fputc('"', file);
}

int csv_open(struct csv *csv, const char *path, const char *lesson, const struct gpu_info *gpu)
{
    *csv = (struct csv){.path = path, .lesson = lesson, .gpu = gpu};
    if (!path)
        return 0;
    csv->file = fopen(path, "a+");
    if (!csv->file) {
        fprintf(stderr, "%s: cannot open --csv %s: %s\n", program_name, path, strerror(errno));
        return -1;
    }
    /* Appending rows of another shape would corrupt the file for every reader: refuse it. */
    char first_line[512] = "";
    rewind(csv->file);
    if (!fgets(first_line, sizeof first_line, csv->file)) {
        fseek(csv->file, 0, SEEK_END);
        fprintf(csv->file, "%s\n", CSV_HEADER);
        return 0;
    }
    first_line[strcspn(first_line, "\r\n")] = '\0';
    if (strcmp(first_line, CSV_HEADER) != 0) {
        fprintf(stderr, "%s: --csv %s holds other columns than this course's schema; "
                        "choose a new file\n", program_name, path);
        fclose(csv->file);
        csv->file = NULL;
        return -1;
    }
    fseek(csv->file, 0, SEEK_END); /* C requires a seek between reading and writing a stream */
    return 0;
}

int csv_write(struct csv *csv, const struct csv_row *row)
{
    bool contended = watch_seen();
    bool answer = row->experiment && strcmp(row->experiment, "exercise") == 0;
    if (!answer) { /* an answer repeats a measurement the tables counted */
        csv->rows++;
        if (row->reps > 1 && row->ms.median > 0 &&
            row->ms.max - row->ms.min > UNSTEADY_SPREAD * row->ms.median)
            csv->unsteady_rows++;
    }
    if (!csv->file || (csv->answers_only && !answer))
        return 0;
    FILE *f = csv->file;
    const char *cells[] = {csv->lesson, row->experiment, row->variant,
                           row->direction ? row->direction : "none"};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        csv_field(f, cells[i]);
        fputc(',', f);
    }
    fprintf(f, "%zu,%d,%.6g,%.6g,%.6g,", row->bytes, row->reps, row->ms.median, row->ms.min,
            row->ms.max);
    if (row->gbps > 0) /* false for NAN too */
        fprintf(f, "%.3f", row->gbps);
    fputc(',', f);
    const char *identity[] = {csv->gpu->name, csv->gpu->cc, csv->gpu->driver, csv->gpu->runtime};
    for (size_t i = 0; i < sizeof identity / sizeof identity[0]; i++) {
        csv_field(f, identity[i]);
        fputc(',', f);
    }
    char params[1024];
    snprintf(params, sizeof params, "%s%s%s", row->params ? row->params : "",
             contended && row->params && *row->params ? ";" : "", contended ? "contended=1" : "");
    csv_field(f, params);
    fputc('\n', f);
    if (ferror(f)) {
        fprintf(stderr, "%s: writing --csv %s failed\n", program_name, csv->path);
        return -1;
    }
    return 0;
}

void csv_record(struct csv *csv, const struct csv_row *row)
{
    if (csv_write(csv, row))
        exit(EXIT_ERROR);
}

int csv_close(struct csv *csv)
{
    if (!csv->file)
        return 0;
    int rc = fclose(csv->file);
    csv->file = NULL;
    if (rc != 0) {
        fprintf(stderr, "%s: closing --csv %s failed: %s\n", program_name, csv->path,
                strerror(errno));
        return -1;
    }
    return 0;
}
