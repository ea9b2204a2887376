/*
 * test_common.c - host-only unit tests of common/common.c (and of lesson 06's chunk plan and its
 * staged pipeline's CPU copies, the pieces of a lesson that need no GPU), run under
 * AddressSanitizer and UBSan.
 *
 * Prints one line per test, "PASS name" or "FAIL name: what", which tests/run_tests.sh counts.
 * Exit status: the number of failed tests (0 when all pass).
 */
#include "common.h"
#include "../06_overlap_pipeline/copies.h"
#include "../06_overlap_pipeline/pipeline.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
static char failure[512];

/* Records the first failed expectation of the current test. */
static void fail(const char *format, ...)
{
    if (failure[0])
        return;
    va_list ap;
    va_start(ap, format);
    vsnprintf(failure, sizeof failure, format, ap);
    va_end(ap);
}

static void report(const char *name)
{
    if (failure[0]) {
        printf("FAIL %s: %s\n", name, failure);
        failures++;
    } else {
        printf("PASS %s\n", name);
    }
    failure[0] = '\0';
}

#define RUN(test) (test(), report(#test))

/* ---------------------------------------------------------------- parse_bytes */

static void expect_bytes(const char *text, size_t want)
{
    size_t got = 0;
    const char *why = parse_bytes(text, &got);
    if (why)
        fail("parse_bytes(\"%s\") refused it: %s", text, why);
    else if (got != want)
        fail("parse_bytes(\"%s\") = %zu, want %zu", text, got, want);
}

static void expect_bytes_refused(const char *text)
{
    size_t got = 12345;
    if (!parse_bytes(text, &got))
        fail("parse_bytes(\"%s\") accepted it as %zu", text, got);
    else if (got != 12345)
        fail("parse_bytes(\"%s\") wrote its output although it refused", text);
}

static void sizes_with_binary_suffixes_are_accepted(void)
{
    expect_bytes("4096", 4096);
    expect_bytes("1", 1);
    expect_bytes("64K", 64 * 1024);
    expect_bytes("64k", 64 * 1024);
    expect_bytes("64KiB", 64 * 1024);
    expect_bytes("256M", 256ull << 20);
    expect_bytes("1G", 1ull << 30);
    expect_bytes("3GiB", 3ull << 30);
    expect_bytes("2T", 2ull << 40);
    expect_bytes("007", 7);
}

static void bad_sizes_are_refused(void)
{
    const char *bad[] = {"", "-1", "+1", "0", "0K", "12abc", "99999999999G", "64KB", "64 K",
                         " 64", "64K ", "1.5G", "K", "0x10", "1e6", "18446744073709551616",
                         "99999999999999999999999999999999999", "64Ki", "64KiBs", "1P", "--size"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_bytes_refused(bad[i]);
}

static void size_overflow_is_caught_at_the_edge(void)
{
    char text[64];
    snprintf(text, sizeof text, "%zu", (size_t)SIZE_MAX);
    expect_bytes(text, SIZE_MAX);
    snprintf(text, sizeof text, "%zuK", (size_t)(SIZE_MAX >> 10));
    expect_bytes(text, (SIZE_MAX >> 10) << 10);
    snprintf(text, sizeof text, "%zuK", (size_t)(SIZE_MAX >> 10) + 1);
    expect_bytes_refused(text);
}

static void counts_are_strict(void)
{
    unsigned long long n = 0;
    if (parse_count("42", 100, &n) || n != 42)
        fail("parse_count(\"42\") should give 42");
    if (parse_count("100", 100, &n) || n != 100)
        fail("parse_count(\"100\", max 100) should give 100");
    const char *bad[] = {"", "-3", "101", "4x", "3.0", " 4", "1e3", "184467440737095516160"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!parse_count(bad[i], 100, &n))
            fail("parse_count(\"%s\", max 100) accepted it", bad[i]);
}

/* ------------------------------------------------------------------ cli_parse */

static size_t sweep_max;
static const struct opt extra[] = {
    {"--sweep-max", OPT_BYTES, &sweep_max, 4096, 1ull << 30, "BYTES", "largest sweep size", 4},
};

/* Runs cli_parse on a NULL-terminated argument list with stdout/stderr sent to /dev/null. */
static int parse(struct common_args *args, const char *first, ...)
{
    char *argv[32] = {"test_program"};
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);

    *args = (struct common_args){.size = 1024, .size_multiple = 4, .reps = 5};
    sweep_max = 8192;
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    FILE *null = fopen("/dev/null", "w");
    dup2(fileno(null), 1);
    dup2(fileno(null), 2);
    int rc = cli_parse(argc, argv, "summary", args, extra, 1);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    fclose(null);
    return rc;
}

static void cli_accepts_both_value_forms(void)
{
    struct common_args a;
    int rc = parse(&a, "--size", "64K", "--reps=7", "--csv", "out.csv", "--device", "1",
                   "--sweep-max=1M", NULL);
    if (rc != CLI_CONTINUE)
        fail("valid arguments gave exit code %d", rc);
    if (a.size != 65536 || a.reps != 7 || !a.csv || strcmp(a.csv, "out.csv") || a.device != 1 ||
        sweep_max != (1u << 20))
        fail("values not stored: size %zu reps %d device %d sweep %zu", a.size, a.reps, a.device,
             sweep_max);
}

static void cli_keeps_defaults(void)
{
    struct common_args a;
    if (parse(&a, NULL) != CLI_CONTINUE || a.size != 1024 || a.reps != 5 || a.csv || a.device)
        fail("no arguments should keep the defaults");
}

static void cli_remembers_which_flags_were_given(void)
{
    struct common_args a;
    if (parse(&a, "--size", "2048", NULL) != CLI_CONTINUE || !cli_given("--size") ||
        cli_given("--reps"))
        fail("after --size 2048, only --size should count as given");
    if (parse(&a, NULL) != CLI_CONTINUE || cli_given("--size"))
        fail("a new parse should forget the flags of the last one");
}

static void deep_parts_are_named_or_all(void)
{
    const char *const parts[] = {"alignment", "batching", "zero-copy"};
    if (deep_check(NULL, parts, 3) != CLI_CONTINUE || deep_wants(NULL, "batching"))
        fail("no --deep should ask for no part");
    if (deep_check("all", parts, 3) != CLI_CONTINUE || !deep_wants("all", "zero-copy"))
        fail("--deep all should ask for every part");
    if (deep_check("zero-copy,alignment", parts, 3) != CLI_CONTINUE ||
        !deep_wants("zero-copy,alignment", "alignment") ||
        deep_wants("zero-copy,alignment", "batching"))
        fail("--deep zero-copy,alignment should ask for those two alone");
    if (deep_wants("alignments", "alignment") || deep_wants("align", "alignment"))
        fail("a part is asked for by its whole name only");
    const char *bad[] = {"align", "alignment,", ",batching", "", "all,bogus", "zero"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (deep_check(bad[i], parts, 3) != EXIT_USAGE)
            fail("--deep '%s' should be refused", bad[i]);
}

static void cli_help_exits_zero(void)
{
    struct common_args a;
    if (parse(&a, "--help", NULL) != EXIT_VERIFIED)
        fail("--help should return exit code 0");
    if (parse(&a, "--reps", "3", "-h", NULL) != EXIT_VERIFIED)
        fail("-h should return exit code 0");
}

static void cli_refuses_bad_input(void)
{
    const char *bad[][3] = {
        {"--bogus", NULL},         {"--size", NULL},          {"--size", "12abc"},
        {"--size", "-1"},          {"--size", "0"},           {"--size", "6"},
        {"--size=", NULL},         {"--reps", "0"},           {"--reps", "-5"},
        {"--reps", "1.5"},         {"--reps", "100001"},      {"--device", "x"},
        {"--csv", ""},             {"--sweep-max", "1K"},     {"--sweep-max", "2G"},
        {"positional", NULL},      {"--size", "99999999999G"}, {"-", NULL},
        {"--reps", "99999999999999999999"}, {"--sweep-max", "4098"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct common_args a;
        int rc = parse(&a, bad[i][0], bad[i][1], NULL);
        if (rc != EXIT_USAGE)
            fail("'%s %s' gave exit code %d, want %d", bad[i][0], bad[i][1] ? bad[i][1] : "", rc,
                 EXIT_USAGE);
    }
}

static void cli_refuses_repeated_flags(void)
{
    struct common_args a;
    if (parse(&a, "--reps", "3", "--reps", "4", NULL) != EXIT_USAGE)
        fail("a repeated flag should be refused");
}

/* ---------------------------------------------------------------- statistics */

static void median_of_odd_and_even_counts(void)
{
    double odd[] = {5, 1, 4, 2, 3};
    struct stats s = stats_summarize(odd, 5);
    if (s.median != 3 || s.min != 1 || s.max != 5)
        fail("odd: median %g min %g max %g", s.median, s.min, s.max);
    double even[] = {10, 2, 8, 4};
    s = stats_summarize(even, 4);
    if (s.median != 6 || s.min != 2 || s.max != 10)
        fail("even: median %g min %g max %g", s.median, s.min, s.max);
    double one[] = {7.5};
    s = stats_summarize(one, 1);
    if (s.median != 7.5 || s.min != 7.5 || s.max != 7.5)
        fail("one sample: median %g", s.median);
}

static void bandwidth_uses_decimal_gigabytes(void)
{
    /* 1e9 bytes in 1000 ms is 1 GB/s; 1 GiB in 1 s is 1.073741824 GB/s. */
    if (fabs(gbps(1000000000u, 1000.0) - 1.0) > 1e-12)
        fail("1e9 bytes in 1 s gave %g GB/s", gbps(1000000000u, 1000.0));
    if (fabs(gbps(1u << 30, 1000.0) - 1.073741824) > 1e-12)
        fail("1 GiB in 1 s gave %g GB/s", gbps(1u << 30, 1000.0));
}

static void byte_sizes_print_in_binary_units(void)
{
    char buf[32];
    const struct { size_t bytes; const char *text; } cases[] = {
        {512, "512 B"}, {4096, "4 KiB"}, {64u << 20, "64 MiB"}, {3u << 29, "1.5 GiB"},
        {1ull << 40, "1 TiB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(format_bytes(cases[i].bytes, buf, sizeof buf), cases[i].text) != 0)
            fail("format_bytes(%zu) = \"%s\", want \"%s\"", cases[i].bytes, buf, cases[i].text);
}

static void random_data_is_reproducible_and_not_zero(void)
{
    float a[1000], b[1000];
    fill_random(a, 1000, 42);
    fill_random(b, 1000, 42);
    if (memcmp(a, b, sizeof a) != 0)
        fail("same seed, different data");
    fill_random(b, 1000, 43);
    if (memcmp(a, b, sizeof a) == 0)
        fail("different seeds, same data");
    int zeros = 0;
    for (int i = 0; i < 1000; i++) {
        if (a[i] == 0.0f)
            zeros++;
        if (!(a[i] >= -1.0f && a[i] < 1.0f))
            fail("a[%d] = %g is outside [-1, 1)", i, a[i]);
    }
    if (zeros > 1)
        fail("%d zeros in 1000 random floats", zeros);
}

/* What the code between capture_stderr() and captured_stderr() wrote on stderr. */
static int saved_stderr = -1;
static FILE *capture;

static void capture_stderr(void)
{
    fflush(stderr);
    capture = tmpfile();
    saved_stderr = dup(2);
    dup2(fileno(capture), 2);
}

static const char *captured_stderr(void)
{
    static char text[1024];
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(capture);
    text[fread(text, 1, sizeof text - 1, capture)] = '\0';
    fclose(capture);
    return text;
}

static void vector_add_check_names_the_first_wrong_element(void)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {0.5f, 0.5f, 0.5f, 0.5f}, c[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    capture_stderr();
    bool verified = vector_add_verified(a, b, c, 4, "test");
    const char *message = captured_stderr();
    if (!verified || *message)
        fail("a correct sum was reported wrong: \"%s\"", message);
    c[2] = NAN;
    c[3] = 0;
    capture_stderr();
    verified = vector_add_verified(a, b, c, 4, "test");
    message = captured_stderr();
    if (verified || !strstr(message, "test: element 2 of c = a + b is nan, want 3 + 0.5\n"))
        fail("the wrong element 2 was not named first: \"%s\"", message);
}

static void chunks_cover_every_element_once(void)
{
    const size_t cases[][2] = {{10, 3}, {12, 4}, {1, 1}, {3, 8}, {0, 2}, {1000003, 7},
                               {(size_t)1 << 40, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = cases[c][0], parts = cases[c][1], next = 0, smallest = SIZE_MAX, largest = 0;
        for (size_t i = 0; i < parts; i++) {
            size_t first, count;
            chunk_bounds(n, parts, i, &first, &count);
            if (first != next)
                fail("n=%zu parts=%zu: part %zu starts at %zu, want %zu", n, parts, i, first, next);
            next = first + count;
            smallest = count < smallest ? count : smallest;
            largest = count > largest ? count : largest;
        }
        if (next != n)
            fail("n=%zu parts=%zu: parts end at %zu", n, parts, next);
        if (largest - smallest > 1)
            fail("n=%zu parts=%zu: sizes range from %zu to %zu", n, parts, smallest, largest);
    }
}

static void chunk_plans_clamp_and_size_the_buffers(void)
{
    const struct { size_t n, chunks, buffers, want_chunks, want_buffers, want_max; } cases[] = {
        {1000, 10, 3, 10, 3, 100},  /* even */
        {1003, 10, 3, 10, 3, 101},  /* uneven: the first three chunks hold one more */
        {5, 16, 3, 5, 3, 1},        /* more chunks than elements: one element each */
        {64, 4, 8, 4, 4, 16},       /* more buffers than chunks: the spare ones go */
        {1, 1, 1, 1, 1, 1},
        {0, 4, 4, 0, 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct chunk_plan p = chunk_plan_make(cases[c].n, cases[c].chunks, cases[c].buffers);
        if (p.chunks != cases[c].want_chunks || p.buffers != cases[c].want_buffers ||
            p.max_chunk != cases[c].want_max)
            fail("n=%zu chunks=%zu buffers=%zu gave %zu/%zu/%zu, want %zu/%zu/%zu", cases[c].n,
                 cases[c].chunks, cases[c].buffers, p.chunks, p.buffers, p.max_chunk,
                 cases[c].want_chunks, cases[c].want_buffers, cases[c].want_max);
        /* Every chunk fits its buffer. */
        for (size_t i = 0; i < p.chunks; i++) {
            size_t first, count;
            chunk_bounds(cases[c].n, p.chunks, i, &first, &count);
            if (count > p.max_chunk || count == 0)
                fail("n=%zu: chunk %zu holds %zu, buffers hold %zu", cases[c].n, i, count,
                     p.max_chunk);
        }
    }
}

static void sweep_sizes_grow_by_four_and_end_at_the_maximum(void)
{
    const struct { size_t max; size_t want[12]; } cases[] = {
        {4096, {4096}},
        {1 << 20, {4096, 16384, 65536, 262144, 1 << 20}},
        {100000, {4096, 16384, 65536, 100000}},
        {20000, {4096, 16384, 20000}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t i = 0;
        for (size_t b = SWEEP_MIN_BYTES; b <= cases[c].max; b = sweep_next_size(b, cases[c].max)) {
            if (i >= 12 || b != cases[c].want[i])
                fail("max %zu: size %zu is %zu, want %zu", cases[c].max, i, b,
                     i < 12 ? cases[c].want[i] : 0);
            i++;
        }
        if (i >= 12 || cases[c].want[i] != 0)
            fail("max %zu: the sweep stopped after %zu sizes", cases[c].max, i);
    }
}

/* ----------------------------------------------------------------------- CSV */

static const struct gpu_info test_gpu = {.name = "Test GPU, \"Model\" X", .cc = "9.0",
                                         .driver = "580.1", .runtime = "13.0"};

static char *read_file(const char *path)
{
    static char text[4096];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void csv_writes_header_once_and_quotes_fields(void)
{
    char path[] = "/tmp/test_common_csv_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    struct csv csv;
    struct csv_row row = {"bandwidth", "pageable", "H2D", 4096, 3, {0.5, 0.25, 1.0}, 8.192,
                          "clock=host;note=a,b"};
    for (int round = 0; round < 2; round++) {
        if (csv_open(&csv, path, "01_test", &test_gpu) || csv_write(&csv, &row) ||
            csv_close(&csv))
            fail("round %d: open, write or close failed", round);
    }
    row.gbps = NAN;
    row.params = NULL;
    /* Fields left out of a designated initialiser: no direction ("none"), no rate, no params. */
    struct csv_row time_only = {.experiment = "x", .variant = "y", .reps = 1, .ms = {1, 1, 1}};
    if (csv_open(&csv, path, "01_test", &test_gpu) || csv_write(&csv, &row) ||
        csv_write(&csv, &time_only) || csv_close(&csv))
        fail("third write failed");

    const char *line = "01_test,bandwidth,pageable,H2D,4096,3,0.5,0.25,1,8.192,"
                       "\"Test GPU, \"\"Model\"\" X\",9.0,580.1,13.0,\"clock=host;note=a,b\"\n";
    const char *no_rate = "01_test,bandwidth,pageable,H2D,4096,3,0.5,0.25,1,,"
                          "\"Test GPU, \"\"Model\"\" X\",9.0,580.1,13.0,\n";
    const char *time_line = "01_test,x,y,none,0,1,1,1,1,,"
                            "\"Test GPU, \"\"Model\"\" X\",9.0,580.1,13.0,\n";
    char want[2048];
    snprintf(want, sizeof want, "%s\n%s%s%s%s", CSV_HEADER, line, line, no_rate, time_line);
    const char *got = read_file(path);
    if (!got || strcmp(got, want) != 0)
        fail("file holds:\n%s\nwant:\n%s", got ? got : "(unreadable)", want);
    unlink(path);
}

static void csv_refuses_a_foreign_file(void)
{
    char path[] = "/tmp/test_common_csv_XXXXXX";
    int fd = mkstemp(path);
    if (write(fd, "a,b,c\n1,2,3\n", 12) != 12)
        fail("could not write the fixture");
    close(fd);
    struct csv csv;
    int saved_err = dup(2);
    FILE *null = fopen("/dev/null", "w");
    dup2(fileno(null), 2);
    int rc = csv_open(&csv, path, "01_test", &test_gpu);
    dup2(saved_err, 2);
    close(saved_err);
    fclose(null);
    if (rc == 0) {
        fail("a CSV with other columns was accepted");
        csv_close(&csv);
    }
    const char *got = read_file(path);
    if (!got || strcmp(got, "a,b,c\n1,2,3\n") != 0)
        fail("the foreign file was changed");
    unlink(path);
}

static void csv_without_path_does_nothing(void)
{
    struct csv csv;
    struct csv_row row = {"x", "y", "none", 0, 1, {1, 1, 1}, NAN, NULL};
    if (csv_open(&csv, NULL, "01_test", &test_gpu) || csv_write(&csv, &row) || csv_close(&csv))
        fail("no --csv should mean no file and no error");
}

/* ------------------------------------------------------------ sizes that fit */

static void sizes_halve_what_the_command_line_left_open(void)
{
    size_t size = 64u << 20, sweep = 1u << 30;
    struct sized sizes[] = {{"--size", &size, false, 3, 3}, {"--sweep-max", &sweep, true, 1, 2}};
    /* The given 1 GiB alone holds 1 GiB on the GPU: --size must shrink to fit the rest. */
    double gpu_room = (1u << 30) + 3.0 * (16u << 20);
    int halvings = sizes_halve_to_fit(sizes, 2, gpu_room, 0);
    if (halvings != 2 || size != 16u << 20 || sweep != 1u << 30)
        fail("halved %d times to --size %zu, --sweep-max %zu; want 2, 16 MiB, 1 GiB", halvings,
             size, sweep);
    size = 64u << 20;
    if (sizes_halve_to_fit(sizes, 2, 1e12, 1e12) != 0 || size != 64u << 20)
        fail("sizes that fit should stay");
    double gpu, host;
    sized_holdings(sizes, 2, &gpu, &host);
    if (gpu != 3.0 * (64u << 20) + (1u << 30) || host != 3.0 * (64u << 20) + 2.0 * (1u << 30))
        fail("holdings %.0f on the GPU and %.0f on the host", gpu, host);
}

static void sizes_stop_at_the_least(void)
{
    size_t size = 4u << 20;
    struct sized sizes[] = {{"--size", &size, false, 1, 1}};
    if (sizes_halve_to_fit(sizes, 1, 1000, 0) != 2 || size != SIZED_LEAST_BYTES)
        fail("--size went to %zu, want the least, %zu", size, (size_t)SIZED_LEAST_BYTES);
}

/* Writes `text` into root/dir/file, making the directories on the way. */
static void put(const char *root, const char *dir, const char *file, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", root, dir);
    for (char *slash = path + strlen(root); *slash && (slash = strchr(slash + 1, '/'));) {
        *slash = '\0';
        mkdir(path, 0700);
        *slash = '/';
    }
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s%s/%s", root, dir, file);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0)
        fail("could not write %s", path);
    if (f)
        fclose(f);
}

static void cgroup_limits_are_found_up_the_tree(void)
{
    char root[] = "/tmp/test_common_cgroup_XXXXXX";
    if (!mkdtemp(root)) {
        fail("no temporary directory");
        return;
    }
    /* v2: the job's own cgroup has no limit, its parent has 1 GiB with 256 MiB used. */
    put(root, "/job/step", "memory.max", "max\n");
    put(root, "/job/step", "memory.current", "1000\n");
    put(root, "/job", "memory.max", "1073741824\n");
    put(root, "/job", "memory.current", "402653184\n");
    /* Of the 384 MiB used, 128 MiB is page cache the kernel would reclaim first. */
    put(root, "/job", "memory.stat", "anon 268435456\ninactive_file 134217728\n");
    size_t room = cgroup_room(root, "0::/job/step\n");
    if (room != (768u << 20))
        fail("v2: room %zu, want 768 MiB", room);
    if (cgroup_room(root, "0::/elsewhere\n") != SIZE_MAX)
        fail("v2 without a limit on the path should give SIZE_MAX");
    /* v1: the memory controller's own hierarchy; the other controllers do not count. */
    put(root, "/memory/box", "memory.limit_in_bytes", "2147483648\n");
    put(root, "/memory/box", "memory.usage_in_bytes", "1073741824\n");
    room = cgroup_room(root, "12:cpu,cpuacct:/box\n4:memory:/box\n");
    if (room != (1u << 30))
        fail("v1: room %zu, want 1 GiB", room);
    /* A v1 hierarchy of several controllers is mounted under all their names. */
    put(root, "/cpu,memory/pod", "memory.limit_in_bytes", "1073741824\n");
    put(root, "/cpu,memory/pod", "memory.usage_in_bytes", "0\n");
    if (cgroup_room(root, "3:cpu,memory:/pod\n") != (1u << 30))
        fail("v1 with cpu and memory in one hierarchy: want 1 GiB");
    /* A full cgroup has no room: 0, not "unknown". */
    put(root, "/full", "memory.max", "4096\n");
    put(root, "/full", "memory.current", "8192\n");
    if (cgroup_room(root, "0::/full\n") != 0)
        fail("a full cgroup should leave 0 bytes");
    /* A container sees its own cgroup as the root. */
    put(root, "", "memory.max", "536870912\n");
    put(root, "", "memory.current", "0\n");
    if (cgroup_room(root, "0::/\n") != (512u << 20))
        fail("v2 at the root: want 512 MiB");
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    if (system(command) != 0)
        fail("could not remove %s", root);
}

static void cpu_lists_are_counted(void)
{
    const char *lists[] = {"0-15", "0", "0,2-5,8", "0-3,8,10-11\n", ""};
    int want[] = {16, 1, 6, 7, 0};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (cpus_in_list(lists[i]) != want[i])
            fail("cpus_in_list(\"%s\") = %d, want %d", lists[i], cpus_in_list(lists[i]), want[i]);
    if (host_cpus() < 1)
        fail("host_cpus() = %d", host_cpus());
}

/* ---------------------------------------------------------------- exercises */

static void gpu_names_become_the_folders_run_all_makes(void)
{
    const char *names[][2] = {{"NVIDIA H200", "nvidia-h200"},
                              {"NVIDIA GeForce RTX 4090 Laptop GPU",
                               "nvidia-geforce-rtx-4090-laptop-gpu"},
                              {"  Tesla T4 (PCIe) ", "tesla-t4-pcie"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char slug[64];
        gpu_slug(names[i][0], slug, sizeof slug);
        if (strcmp(slug, names[i][1]))
            fail("gpu_slug(\"%s\") = \"%s\", want \"%s\"", names[i][0], slug, names[i][1]);
    }
}

/* A reference folder in /tmp holding 02_streams_exercises.csv: the header, then `rows`. Fills
 * folder (a mkdtemp template) and path; false when it cannot be made. */
static bool reference_fixture(char *folder, char *path, size_t len, const char *rows)
{
    if (!mkdtemp(folder)) {
        fail("no temporary directory");
        return false;
    }
    snprintf(path, len, "%s/02_streams_exercises.csv", folder);
    FILE *f = fopen(path, "w");
    if (!f) {
        fail("cannot write %s", path);
        return false;
    }
    fprintf(f, "%s\n%s", CSV_HEADER, rows);
    fclose(f);
    return true;
}

static void exercise_figures_are_read_from_the_reference(void)
{
    char folder[] = "/tmp/test_common_reference_XXXXXX", path[128];
    if (!reference_fixture(folder, path, sizeof path,
            "02_streams,exercise,\"speedup, 16 streams\",none,4096,7,1,1,1,,\"NVIDIA H200\",9.0,"
            "580,13.0,clock=gpu_event;exercise=1;value=2.5;contended=1\n"
            "02_streams,exercise,latency,none,0,1,1,1,1,,NVIDIA H200,9.0,580,13.0,"
            "exercise=3;novalue=7\n"
            "02_streams,exercise,empty,none,0,1,1,1,1,,NVIDIA H200,9.0,580,13.0,value=\n"
            "02_streams,bandwidth,lesson,none,0,1,1,1,1,,NVIDIA H200,9.0,580,13.0,value=9\n"))
        return;
    struct exercise_figure got = {0};
    if (exercise_reference(folder, "02_streams", "speedup, 16 streams", &got) || got.value != 2.5 ||
        got.bytes != 4096 || got.reps != 7)
        fail("the quoted key's figure: got %g, %zu bytes, %d reps; want 2.5, 4096, 7", got.value,
             got.bytes, got.reps);
    if (exercise_reference(folder, "02_streams", "latency", &got) != -2)
        fail("'novalue=' taken for 'value='");
    if (exercise_reference(folder, "02_streams", "empty", &got) != -2)
        fail("an empty 'value=' read as a number");
    if (exercise_reference(folder, "02_streams", "lesson", &got) != -2)
        fail("a row of the lesson's, not an exercise's, was read");
    if (exercise_reference(folder, "03_events", "speedup, 16 streams", &got) != -1)
        fail("another lesson's file was read, or a missing file not told apart");
    remove(path);
    rmdir(folder);
}

/* What exercise_answer() printed for one figure against the reference in `folder`. */
static const char *answer_against(const char *folder, const char *key, double value,
                                  struct csv_row measured)
{
    static char text[2048];
    const struct gpu_info gpu = {.name = "NVIDIA H200", .cc = "9.0", .driver = "580",
                                 .runtime = "13.0"};
    struct csv csv = {.lesson = "02_streams", .gpu = &gpu};
    setenv("EXERCISE_REFERENCE", folder, 1);
    fflush(stdout);
    FILE *out = tmpfile();
    int saved = dup(1);
    dup2(fileno(out), 1);
    exercise_answer(&csv, 1, key, "a figure", value, "x", measured);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(out);
    text[fread(text, 1, sizeof text - 1, out)] = '\0';
    fclose(out);
    unsetenv("EXERCISE_REFERENCE");
    return text;
}

static void exercise_answers_are_set_beside_the_reference(void)
{
    char folder[] = "/tmp/test_common_answers_XXXXXX", path[128];
    if (!reference_fixture(folder, path, sizeof path,
            "02_streams,exercise,speedup,none,4096,10,1,1,1,,NVIDIA H200,9.0,580,13.0,"
            "clock=host;exercise=1;value=2\n"
            "02_streams,exercise,wait,none,4096,10,1,1,1,,NVIDIA H200,9.0,580,13.0,"
            "clock=host;exercise=1;value=-0.5\n"))
        return;
    struct csv_row same = {.bytes = 4096, .reps = 10};
    const char *text = answer_against(folder, "speedup", 2.1, same);
    if (!strstr(text, "answer 1, a figure: 2.1 x") || !strstr(text, ": 2 x; yours is 5.0% higher "
                                                               "(within 10% apart)"))
        fail("a close figure: %s", text);
    text = answer_against(folder, "speedup", 3, same);
    if (!strstr(text, "yours is 50.0% higher (over 10% apart: see the README)"))
        fail("a far figure: %s", text);
    text = answer_against(folder, "wait", -0.25, same);
    if (!strstr(text, "yours is 50.0% higher"))
        fail("a negative reference: %s", text);
    text = answer_against(folder, "speedup", 2, (struct csv_row){.bytes = 8192, .reps = 10});
    if (!strstr(text, "(yours: 8192, 10): not compared"))
        fail("other settings compared: %s", text);
    text = answer_against(folder, "other", 2, same);
    if (!strstr(text, "has no figure 'other'"))
        fail("a missing figure: %s", text);
    remove(path);
    text = answer_against(folder, "speedup", 2, same);
    if (!strstr(text, "no reference for the NVIDIA H200"))
        fail("a missing reference: %s", text);
    rmdir(folder);
}

/* ---------------------------------------------------------------- 06's CPU copies */

/* Every length up to 300 bytes, from and to every alignment in a 64-byte line, and one long copy:
 * the bytes arrive, nothing past them is written. */
static void expect_copies_exact(enum copy_method method)
{
    enum { ROOM = 4096 + 512 };
    static unsigned char src[ROOM], dst[ROOM], want[ROOM];
    for (size_t i = 0; i < ROOM; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    for (size_t bytes = 0; bytes <= 4096; bytes = bytes < 300 ? bytes + 1 : bytes * 4 / 3 + 1)
        for (size_t from = 0; from < 64; from += bytes < 300 ? 1 : 13)
            for (size_t to = 0; to < 64; to += bytes < 300 ? 7 : 17) {
                memset(dst, 0xee, ROOM);
                memcpy(want, dst, ROOM);
                memcpy(want + to, src + from, bytes);
                copy_bytes(method, dst + to, src + from, bytes);
                if (memcmp(dst, want, ROOM)) {
                    fail("%s copy of %zu bytes from +%zu to +%zu", method == PLAIN_COPY ?
                         "plain" : "streaming", bytes, from, to);
                    return;
                }
            }
}

static void streaming_copies_move_every_byte_and_no_more(void)
{
    expect_copies_exact(STREAMING_COPY);
    expect_copies_exact(PLAIN_COPY);
}

/* Last of the copies' tests: once turned off, as on a CPU without them, streaming copies are
 * plain ones, and say so. */
static void without_streaming_stores_copies_fall_back_to_memcpy(void)
{
    streaming_stores_off();
    if (streaming_stores())
        fail("turned off, the streaming stores are still %s", streaming_stores());
    expect_copies_exact(STREAMING_COPY);
}

int main(void)
{
    RUN(sizes_with_binary_suffixes_are_accepted);
    RUN(bad_sizes_are_refused);
    RUN(size_overflow_is_caught_at_the_edge);
    RUN(counts_are_strict);
    RUN(cli_accepts_both_value_forms);
    RUN(cli_keeps_defaults);
    RUN(cli_remembers_which_flags_were_given);
    RUN(cli_help_exits_zero);
    RUN(deep_parts_are_named_or_all);
    RUN(cli_refuses_bad_input);
    RUN(cli_refuses_repeated_flags);
    RUN(median_of_odd_and_even_counts);
    RUN(bandwidth_uses_decimal_gigabytes);
    RUN(byte_sizes_print_in_binary_units);
    RUN(random_data_is_reproducible_and_not_zero);
    RUN(vector_add_check_names_the_first_wrong_element);
    RUN(chunks_cover_every_element_once);
    RUN(sweep_sizes_grow_by_four_and_end_at_the_maximum);
    RUN(chunk_plans_clamp_and_size_the_buffers);
    RUN(csv_writes_header_once_and_quotes_fields);
    RUN(csv_refuses_a_foreign_file);
    RUN(csv_without_path_does_nothing);
    RUN(sizes_halve_what_the_command_line_left_open);
    RUN(sizes_stop_at_the_least);
    RUN(cgroup_limits_are_found_up_the_tree);
    RUN(cpu_lists_are_counted);
    RUN(gpu_names_become_the_folders_run_all_makes);
    RUN(exercise_figures_are_read_from_the_reference);
    RUN(exercise_answers_are_set_beside_the_reference);
    RUN(streaming_copies_move_every_byte_and_no_more);
    RUN(without_streaming_stores_copies_fall_back_to_memcpy);
    return failures;
}
