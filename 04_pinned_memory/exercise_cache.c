/*
 * exercise_cache.c - lesson 04's exercise 3 (README.md): one piece of host memory copied again and
 * again, as the lesson copies its buffers, against pieces taken in turn from a ring several times
 * the size of the host CPU's last-level cache; from pageable and from pinned memory, both ways.
 */
#include "exercises.h"

#include <string.h>
#include <unistd.h>

enum { HOT, COLD, N_TEMPS };
static const char *const temp_names[N_TEMPS] = {"hot", "cold"};
enum { N_MEMORIES = PINNED + 1 };              /* memory.c's first two kinds: pageable, pinned */
enum { N_GROUPS = N_MEMORIES * N_DIRECTIONS }; /* a memory and a direction: in turns */
static const size_t LLC_UNKNOWN = (size_t)256 << 20, PIECE_MOST = (size_t)16 << 20,
                    RING_LEAST = (size_t)1 << 30;

/* The first line of a small file, without its newline; false where it cannot be read. */
static bool read_line(const char *path, char *line, int len)
{
    FILE *file = fopen(path, "r");
    line[0] = '\0';
    if (!file)
        return false;
    bool read = fgets(line, len, file) != NULL;
    fclose(file);
    line[strcspn(line, "\n")] = '\0';
    return read;
}

static bool cache_file(int index, const char *name, char *text, int len)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, name);
    return read_line(path, text, len);
}

/* sysfs's highest level of data or unified cache of CPU 0: its bytes (0: none found), level and
 * index. The kernel writes sizes as "32768K". */
static size_t sysfs_last_level(int *level, int *index)
{
    enum { MAX_INDEX = 16 };
    size_t bytes = 0;
    *level = 0;
    for (int i = 0; i < MAX_INDEX; i++) {
        char type[32], text[32], *end;
        if (!cache_file(i, "type", type, sizeof type) || strcmp(type, "Instruction") == 0 ||
            !cache_file(i, "level", text, sizeof text))
            continue;
        int at = atoi(text);
        if (at <= *level || !cache_file(i, "size", text, sizeof text))
            continue;
        unsigned long long size = strtoull(text, &end, 10);
        size <<= *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        if (size) {
            bytes = (size_t)size;
            *level = at;
            *index = i;
        }
    }
    return bytes;
}

struct host_cache host_last_level_cache(void)
{
    struct host_cache c = {.bytes = 0};
#ifdef _SC_LEVEL3_CACHE_SIZE /* glibc's */
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) {
        c.bytes = (size_t)l3;
        snprintf(c.source, sizeof c.source, "L3, from sysconf(_SC_LEVEL3_CACHE_SIZE)");
        return c;
    }
#endif
    int level, index;
    c.bytes = sysfs_last_level(&level, &index);
    if (c.bytes) {
        snprintf(c.source, sizeof c.source, "L%d, from /sys/devices/system/cpu/cpu0/cache/index%d",
                 level, index);
    } else {
        char text[32];
        c.bytes = LLC_UNKNOWN;
        snprintf(c.source, sizeof c.source, "neither sysconf nor sysfs says: taking %s",
                 format_bytes(LLC_UNKNOWN, text, sizeof text));
    }
    return c;
}

int hot_cold_sizes(const struct host_cache *llc, size_t *piece, size_t *ring,
                   struct sized sized[2])
{
    bool piece_given = cli_given("--size"), ring_given = cli_given("--sweep-max");
    /* A hot piece that fits in the cache with room beside it for the driver's staging buffers,
     * and a ring large enough that a cold piece has long left the cache when the walk comes back
     * to it. */
    if (!piece_given) {
        *piece = PIECE_MOST;
        while (*piece > llc->bytes / 2 && *piece > SWEEP_MIN_BYTES)
            *piece /= 2;
    }
    if (!ring_given) {
        *ring = RING_LEAST;
        while (*ring / 4 < llc->bytes)
            *ring *= 2;
    }
    if (*ring / *piece < 2) {
        fprintf(stderr, "%s: --exercise 3 takes pieces of --size from a ring of --sweep-max, "
                "which must hold two of them at least\n", program_name);
        return EXIT_USAGE;
    }
    /* What the run holds of each, per byte: on the GPU a piece each way; on the host two pieces
     * to check copies with, and a ring of each memory. */
    sized[0] = (struct sized){"--size", piece, piece_given, 2, 2};
    sized[1] = (struct sized){"--sweep-max", ring, ring_given, 0, 2};
    return CLI_CONTINUE;
}

struct hot_cold {
    void *ring[N_MEMORIES];   /* piece 0 is the hot piece; the cold walk takes the others */
    size_t piece, pieces, next[N_MEMORIES]; /* bytes of a piece, pieces, the walk's next */
    void *d_piece, *d_source; /* H2D copies land in d_piece, D2H copies read d_source */
    float *expected;          /* d_source's bytes */
    void *check;              /* a host piece to bring d_piece back into */
};

static struct hot_cold hot_cold_create(size_t piece, size_t pieces)
{
    struct hot_cold hc = {.piece = piece, .pieces = pieces, .next = {1, 1}};
    size_t bytes = piece * pieces;
    for (int m = 0; m < N_MEMORIES; m++)
        hc.ring[m] = host_alloc((enum memory_kind)m, bytes);
    fill_random(hc.ring[PAGEABLE], bytes / sizeof(float), 11);
    memcpy(hc.ring[PINNED], hc.ring[PAGEABLE], bytes);
    hc.expected = host_alloc(PAGEABLE, piece);
    hc.check = host_alloc(PAGEABLE, piece);
    fill_random(hc.expected, piece / sizeof(float), 13);
    CUDA_CHECK(cudaMalloc(&hc.d_piece, piece));
    CUDA_CHECK(cudaMalloc(&hc.d_source, piece));
    CUDA_CHECK(cudaMemcpy(hc.d_source, hc.expected, piece, cudaMemcpyHostToDevice));
    return hc;
}

static void hot_cold_destroy(struct hot_cold *hc)
{
    CUDA_CHECK(cudaFree(hc->d_source));
    CUDA_CHECK(cudaFree(hc->d_piece));
    host_free(PAGEABLE, hc->check);
    host_free(PAGEABLE, hc->expected);
    for (int m = 0; m < N_MEMORIES; m++)
        host_free((enum memory_kind)m, hc->ring[m]);
}

/* The cold walk's next piece of memory m: pieces 1 to pieces - 1 in turn, wrapping, so that each
 * is copied again only after the rest of the ring has been. */
static void *cold_piece(struct hot_cold *hc, int m)
{
    void *p = (char *)hc->ring[m] + hc->next[m] * hc->piece;
    hc->next[m] = hc->next[m] + 1 < hc->pieces ? hc->next[m] + 1 : 1;
    return p;
}

/* One copy of a piece between `host` and the GPU, on the host clock. Copies from and to pageable
 * memory cannot queue behind a gate (their calls wait for the copy), so every copy here is timed
 * alike, from a blocking cudaMemcpy to the synchronize after it: from pageable memory the call
 * may return before its last DMA has ended (lesson 01), and the synchronize waits for that. From
 * pinned memory the blocking call lasts as long as the copy, and a few microseconds more. */
static double copy_ms(const struct hot_cold *hc, int dir, void *host)
{
    double t0 = host_ms();
    if (dir == UP)
        CUDA_CHECK(cudaMemcpy(hc->d_piece, host, hc->piece, cudaMemcpyHostToDevice));
    else
        CUDA_CHECK(cudaMemcpy(host, hc->d_source, hc->piece, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaDeviceSynchronize());
    return host_ms() - t0;
}

/* Memory m's hot and cold copies in direction dir, the one `first` names first: ms[HOT] and
 * ms[COLD]. The hot piece is copied once more just before, untimed, as the lesson's repetitions
 * copy one buffer back to back. */
static void sample_pair(struct hot_cold *hc, int m, int dir, int first, double ms[N_TEMPS])
{
    for (int k = 0; k < N_TEMPS; k++) {
        int temp = (first + k) % N_TEMPS;
        void *host = temp == HOT ? hc->ring[m] : cold_piece(hc, m);
        if (temp == HOT)
            copy_ms(hc, dir, host);
        ms[temp] = copy_ms(hc, dir, host);
    }
}

struct hot_cold_result {
    struct stats ms[N_MEMORIES][N_DIRECTIONS][N_TEMPS];
    struct stats ratio[N_MEMORIES][N_DIRECTIONS]; /* cold's time over hot's, rep by rep */
    int warm_rounds;
};

/* Where sample `rep` of group g's hot or cold copies lies in measure()'s samples. */
static size_t slot(int g, int temp, size_t reps, size_t rep)
{
    return ((size_t)g * N_TEMPS + (size_t)temp) * reps + rep;
}

/* Untimed rounds until the cold walk has taken every piece once (each round takes two of each
 * memory, one each way), then `reps` timed ones; each round starts one group later, and hot and
 * cold change places from one round to the next. */
static struct hot_cold_result measure(struct hot_cold *hc, int reps)
{
    size_t n = (size_t)reps;
    double *ms = samples_or_exit(N_GROUPS * N_TEMPS * n), *ratio = samples_or_exit(n);
    int warm = (int)(hc->pieces / N_DIRECTIONS);
    for (int round = 0; round < warm + reps; round++) {
        for (int k = 0; k < N_GROUPS; k++) {
            int g = (k + round) % N_GROUPS;
            double once[N_TEMPS];
            sample_pair(hc, g / N_DIRECTIONS, g % N_DIRECTIONS, round % N_TEMPS, once);
            if (round < warm)
                continue;
            for (int temp = 0; temp < N_TEMPS; temp++)
                ms[slot(g, temp, n, (size_t)(round - warm))] = once[temp];
        }
    }
    struct hot_cold_result r = {.warm_rounds = warm};
    for (int g = 0; g < N_GROUPS; g++) {
        for (size_t rep = 0; rep < n; rep++) /* before stats_summarize() sorts them */
            ratio[rep] = ms[slot(g, COLD, n, rep)] / ms[slot(g, HOT, n, rep)];
        r.ratio[g / N_DIRECTIONS][g % N_DIRECTIONS] = stats_summarize(ratio, n);
        for (int temp = 0; temp < N_TEMPS; temp++)
            r.ms[g / N_DIRECTIONS][g % N_DIRECTIONS][temp] =
                stats_summarize(ms + slot(g, temp, n, 0), n);
    }
    free(ms);
    free(ratio);
    return r;
}

static void expect_same(const void *got, const void *want, size_t bytes, const char *what)
{
    if (memcmp(got, want, bytes) == 0)
        return;
    const unsigned char *g = got, *w = want;
    size_t i = 0;
    while (g[i] == w[i])
        i++;
    fprintf(stderr, "%s: %s of %zu bytes: byte %zu differs\n", program_name, what, bytes, i);
    exit(EXIT_ERROR);
}

/* After the timed rounds, so that the checks' own reads of host memory warm nothing they time:
 * for each memory, a D2H copy of new bytes into the hot piece and into the walk's next piece,
 * then an H2D copy of each into the poisoned device piece, each compared with what it must hold. */
static void verify(struct hot_cold *hc)
{
    fill_random(hc->expected, hc->piece / sizeof(float), 17);
    CUDA_CHECK(cudaMemcpy(hc->d_source, hc->expected, hc->piece, cudaMemcpyHostToDevice));
    for (int m = 0; m < N_MEMORIES; m++) {
        void *host[N_TEMPS] = {hc->ring[m], cold_piece(hc, m)};
        for (int temp = 0; temp < N_TEMPS; temp++) {
            char what[64];
            copy_ms(hc, DOWN, host[temp]);
            snprintf(what, sizeof what, "%s D2H copy into the %s piece", kind_names[m],
                     temp_names[temp]);
            expect_same(host[temp], hc->expected, hc->piece, what);
            CUDA_CHECK(cudaMemset(hc->d_piece, 0xff, hc->piece));
            copy_ms(hc, UP, host[temp]);
            CUDA_CHECK(cudaMemcpy(hc->check, hc->d_piece, hc->piece, cudaMemcpyDeviceToHost));
            snprintf(what, sizeof what, "%s H2D copy from the %s piece", kind_names[m],
                     temp_names[temp]);
            expect_same(hc->check, host[temp], hc->piece, what);
        }
    }
}

/* A median's GB/s, marked "~" where its repetitions spread over 5% of it. */
static void print_rate(size_t bytes, struct stats ms)
{
    printf(" %8.2f GB/s%s", gbps(bytes, ms.median), stats_unsteady(ms) ? "~" : " ");
}

static void print_hot_cold(const struct hot_cold_result *r, size_t piece, int reps)
{
    char text[32];
    printf("\n3. pieces of %s (--size), from pageable and from pinned memory: hot, the ring's "
           "first\n   piece, just copied the same way, untimed; cold, the ring's next piece in "
           "turn. Host clock,\n   from a blocking cudaMemcpy to the cudaDeviceSynchronize after "
           "it; hot and cold in turns,\n   the order alternating each repetition, after %d "
           "untimed rounds that took every piece;\n   median of %d, ~ where the repetitions "
           "spread over 5%% of it. Last column: cold's time\n   over hot's, rep by rep: median "
           "(range)\n", format_bytes(piece, text, sizeof text), r->warm_rounds, reps);
    printf("  %-9s %-4s %14s %15s    %s\n", "memory", "dir", "hot", "cold", "cold over hot");
    for (int m = 0; m < N_MEMORIES; m++) {
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            printf("  %-9s %-4s", kind_names[m], direction_names[dir]);
            for (int temp = 0; temp < N_TEMPS; temp++)
                print_rate(piece, r->ms[m][dir][temp]);
            printf("   ");
            print_ratio(r->ratio[m][dir]);
        }
    }
    printf("  after the timed rounds, a D2H and an H2D copy of the hot piece and of a cold one "
           "verified,\n  for each memory\n\n");
}

static void answer_hot_cold(const struct hot_cold_result *r, size_t piece, const struct timing *t)
{
    for (int m = 0; m < N_MEMORIES; m++) {
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            char key[64], what[96];
            snprintf(key, sizeof key, "%s_%s_cold_over_hot", kind_names[m], direction_keys[dir]);
            snprintf(what, sizeof what, "%s %s, a cold piece's time over a hot one's",
                     kind_names[m], direction_names[dir]);
            struct stats cold = r->ms[m][dir][COLD];
            exercise_record(t->csv, 3, key, what, r->ratio[m][dir].median, "x",
                            (struct csv_row){.direction = direction_names[dir], .bytes = piece,
                                             .reps = t->reps, .ms = cold,
                                             .gbps = gbps(piece, cold.median),
                                             .params = "clock=host"});
        }
    }
}

void exercise_hot_cold(size_t piece, size_t ring, const struct host_cache *llc,
                       const struct timing *t)
{
    size_t pieces = ring / piece;
    char text[2][32];
    if (pieces < 2) { /* only where fitting halved --sweep-max below two pieces of a given --size */
        fprintf(stderr, "%s: --sweep-max %s holds fewer than two pieces of --size %s: give a "
                "smaller --size\n", program_name, format_bytes(ring, text[0], sizeof text[0]),
                format_bytes(piece, text[1], sizeof text[1]));
        exit(EXIT_ERROR);
    }
    printf("host: last-level cache %s (%s)\n", format_bytes(llc->bytes, text[0], sizeof text[0]),
           llc->source);
    printf("ring: %s (--sweep-max) of each memory, %.3g times the last-level cache, in %zu pieces "
           "of %s\n", format_bytes(pieces * piece, text[0], sizeof text[0]),
           (double)(pieces * piece) / (double)llc->bytes, pieces,
           format_bytes(piece, text[1], sizeof text[1]));
    struct hot_cold hc = hot_cold_create(piece, pieces);
    struct hot_cold_result r = measure(&hc, t->reps);
    verify(&hc);
    hot_cold_destroy(&hc);
    print_hot_cold(&r, piece, t->reps);
    answer_hot_cold(&r, piece, t);
}
