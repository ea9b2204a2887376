/*
 * common.h - what every lesson shares, and nothing a lesson teaches.
 *
 *   exit codes ............ EXIT_VERIFIED, EXIT_ERROR, EXIT_USAGE, EXIT_NO_GPU
 *   CUDA error checks ..... CUDA_CHECK (abort, lessons 01-04), CUDA_TRY / CUDA_REPORT (return, 05 on)
 *   the GPU ............... gpu_open(), gpu_print_header(), gpu_pcie_link()
 *   timing ................ host_ms(), stats_summarize(), gbps()
 *   data and checking ..... fill_random(), vector_add_verified(), chunk_bounds()
 *   command line .......... cli_parse() with the flags every program has, plus a lesson's own
 *   the deep layer ........ --deep PARTS: deep_check(), deep_wants()
 *   results ............... csv_open() / csv_write() / csv_close(): one schema for every lesson
 *
 * Host code is ISO C11. The CUDA runtime API is a C API, so this header includes it directly.
 */
#ifndef COMMON_H
#define COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

/* ---------------------------------------------------------------- exit codes */

enum {
    EXIT_VERIFIED = 0, /* ran, and every result was checked */
    EXIT_ERROR = 1,    /* a CUDA call or a verification failed; the message says which */
    EXIT_USAGE = 2,    /* bad command line */
    EXIT_NO_GPU = 77,  /* no usable GPU or driver (77 is the "skipped" code of automake tests) */
};

/* ---------------------------------------------------------- CUDA error checks */

/* Prints "<program>: <expr> failed: <error name> (<error text>) at <file>:<line>" when err is not
 * cudaSuccess, and returns err unchanged, so the caller decides what happens next. */
cudaError_t cuda_report(cudaError_t err, const char *expr, const char *file, int line);

/* The expression's error, reported if it is one. For goto-cleanup code:
 *     err = CUDA_REPORT(cudaMalloc(&d, bytes));
 *     if (err != cudaSuccess) goto out_free_host;                                    */
#define CUDA_REPORT(call) cuda_report((call), #call, __FILE__, __LINE__)

/* Lessons 01-04: report and end the program. Fine while the operating system is the only one
 * cleaning up; from lesson 05 on, code that owns resources returns its error instead.
 * malloc_or_exit() and csv_record() below do the same for the host's own failures. */
#define CUDA_CHECK(call)                                                                         \
    do {                                                                                         \
        if (CUDA_REPORT(call) != cudaSuccess)                                                    \
            exit(EXIT_ERROR);                                                                    \
    } while (0)

/* Lesson 05 on: report and return the error to the caller (a function returning cudaError_t). */
#define CUDA_TRY(call)                                                                           \
    do {                                                                                         \
        cudaError_t cuda_try_err_ = CUDA_REPORT(call);                                           \
        if (cuda_try_err_ != cudaSuccess)                                                        \
            return cuda_try_err_;                                                                \
    } while (0)

/* Kernel launches are checked through their launchers: every launcher in a .cu file returns the
 * launch's cudaGetLastError(), so CUDA_CHECK(launch_x(...)) catches a bad launch at once. Errors
 * raised while the kernel runs are sticky and surface at the next synchronisation, which is
 * checked too. */

/* ------------------------------------------------------------------- the GPU */

struct gpu_info {
    int device;
    char name[256];
    char cc[16];      /* compute capability, "9.0" */
    char driver[64];  /* kernel module version when readable ("580.159.03"), else the CUDA version
                         the driver supports ("cuda 13.0") */
    char runtime[16]; /* CUDA runtime the program was built with, "13.0" */
    int copy_engines; /* asyncEngineCount: 1 = copies overlap kernels; 2+ = H2D and D2H overlap too */
    int multiprocessors;
    size_t global_mem_bytes;
    double memory_peak_gbps; /* device memory: 2 transfers per clock x bus width; 0 if unknown */
};

/* The program's name as its messages print it; set by cli_parse() from argv[0]. */
extern const char *program_name;

/* Selects GPU `device`, fills *info and creates the CUDA context, so that context creation stays
 * out of every timed region. Returns EXIT_VERIFIED on success; otherwise the exit code to return
 * from main (EXIT_NO_GPU, EXIT_USAGE for a device index out of range, EXIT_ERROR), having printed
 * one sentence that says why. */
int gpu_open(int device, struct gpu_info *info);

/* "GPU 0: NVIDIA H200 | cc 9.0 | 132 SMs | 140.4 GiB | driver 580.159.03 | runtime 13.0 | 3 copy engines" */
void gpu_print_header(const struct gpu_info *info);

/* The PCIe link between the GPU and host memory, read from sysfs. A Gen5 GPU in a Gen4 slot
 * runs at Gen4, so the link is the smaller of the GPU's maximum speed and width and those of every
 * port above it (its upstream port, a switch's ports). Inside a VM those ports are often hidden;
 * then the link can only be read as it runs (an idle GPU drops to a slower link to save power, so
 * a reading while idle misleads). Not known for an integrated GPU (no link), a GPU that reaches
 * host memory over NVLink-C2C (Grace Hopper), sysfs hidden, or PCIe 6's encoding (not modelled). */
struct pcie_link {
    bool known;
    int generation;
    double gts;       /* transfers per second per lane, in billions */
    int width;        /* lanes */
    double peak_gbps; /* per direction, after the line code */
    bool upstream_seen; /* a port above the GPU was read: the maximum is the usable one */
    double own_link_gbps; /* the GPU's own link alone: the smaller of its and its port's maximum */
    const char *why_unknown;
};
/* The usable link's maximum, from the GPU and the ports above it. When no port above it is
 * visible, it is the GPU's own maximum and upstream_seen is false: a ceiling, not the link. */
struct pcie_link gpu_pcie_link(int device);
/* The link as it runs now: call it while a copy is moving data. */
struct pcie_link gpu_pcie_link_now(int device);

/* Host memory this process can still use: the kernel's MemAvailable, or less where the cgroup
 * the process runs in (a container, a batch job, a systemd slice) has a memory limit. SIZE_MAX
 * when unknown. */
size_t host_available_bytes(void);

/* The CPUs this process may run threads on: those its affinity mask allows (the
 * Cpus_allowed_list of /proc/self/status, which a container or taskset narrows), fewer where a
 * cgroup v2 CPU quota (cpu.max, docker --cpus) on its path gives it less time than that; at least
 * 1. cpus_in_list() counts a list such as "0-3,8,10-11". */
int host_cpus(void);
int cpus_in_list(const char *list);

/* The cgroup part of it: the least room left under any memory limit on the path from the
 * process's cgroup up to the root, cgroup v2 (memory.max, memory.current) or v1 (the memory
 * controller's limit_in_bytes, usage_in_bytes); SIZE_MAX where none applies. `root` is where
 * the cgroup file systems are mounted ("/sys/fs/cgroup"), `self` the text of /proc/self/cgroup.
 * Usage counts the page cache; its inactive part (memory.stat's inactive_file), which the kernel
 * reclaims first, counts as room. */
size_t cgroup_room(const char *root, const char *self);

/* ------------------------------------------------------------- holding a stream */

/* A stream held on the GPU until the host lets it go, as nvbandwidth times copies: work issued
 * behind a closed gate queues up, and when the gate opens the GPU runs it back to back, so events
 * around it time the GPU's work alone, not how fast the CPU issued it. The gate is a one-thread
 * kernel spinning on a flag in mapped host memory. Use:
 *     gate_close(&g, s); cudaEventRecord(start, s); ...work...; cudaEventRecord(stop, s);
 *     gate_open(&g); cudaEventSynchronize(stop); if (!gate_held(&g)) ...
 * Behind a closed gate, issue no more than about GATE_MAX_QUEUED operations (lesson 04 queues
 * that many copies and its events): the queue of work the driver holds for a stream is finite,
 * and a call that finds it full waits for the GPU, which waits for the host. The gate opens by
 * itself after GATE_TIMEOUT_NS, so that such a program fails (gate_held() says so) instead of
 * hanging. */
enum { GATE_MAX_QUEUED = 256 };
#define GATE_TIMEOUT_NS 2000000000ull
struct gate {
    volatile int *flag, *timed_out;     /* mapped host memory */
    volatile int *d_flag, *d_timed_out; /* the same, as the GPU addresses them */
};
cudaError_t gate_create(struct gate *g);
void gate_destroy(struct gate *g); /* accepts a zeroed gate */
cudaError_t gate_close(const struct gate *g, cudaStream_t stream);
void gate_open(const struct gate *g);
/* After the work behind the gate is done: true, or false after saying that the gate opened by
 * itself. */
bool gate_held(const struct gate *g);

/* ------------------------------------------------------------------ timing */

/* CLOCK_MONOTONIC in milliseconds: for how long the *host* was held up by a call. Time device work
 * with CUDA events instead. */
double host_ms(void);
/* The calling thread's CPU time in ms (CLOCK_THREAD_CPUTIME_ID): a thread spinning in a CUDA
 * call burns it; one asleep does not. */
double thread_cpu_ms(void);

struct stats {
    double median, min, max;
};

/* Median, min and max of n samples (n >= 1). Sorts the samples in place. */
struct stats stats_summarize(double *samples, size_t n);

/* Room for n timing samples, or NULL after saying that memory ran out. */
double *samples_alloc(size_t n);

/* Lessons 01-04: malloc, or end the program after saying that host memory ran out; and room for
 * n timing samples the same way. */
void *malloc_or_exit(size_t bytes);
double *samples_or_exit(size_t n);

/* Bandwidth in GB/s, where 1 GB = 1e9 bytes (the unit link speeds are quoted in). */
double gbps(size_t bytes, double ms);

/* The sizes of a bandwidth sweep: from SWEEP_MIN_BYTES up by factors of 4, and the last one is
 * always max_bytes itself. for (b = SWEEP_MIN_BYTES; b <= max; b = sweep_next_size(b, max)) */
#define SWEEP_MIN_BYTES ((size_t)4096)
size_t sweep_next_size(size_t bytes, size_t max_bytes);

/* The --sweep-max flag of a lesson with a bandwidth sweep, for its table of options. */
#define SWEEP_MAX_OPTION(max_bytes, help)                                                        \
    {"--sweep-max", OPT_BYTES, (max_bytes), SWEEP_MIN_BYTES, (size_t)1 << 40, "BYTES", (help),    \
     sizeof(float)}

/* "4 KiB", "64 MiB", "1.5 GiB": sizes are binary. Returns buf. */
char *format_bytes(size_t bytes, char *buf, size_t len);

/* ------------------------------------------------------- data and checking */

/* Fills x with pseudo-random floats in [-1, 1) from `seed`: never zeros, which would hide unwritten
 * outputs. Same seed, same data. */
void fill_random(float *x, size_t n, unsigned long long seed);

/* True when c[i] == a[i] + b[i] for every i < n (compared exactly: one IEEE addition rounds the
 * same on host and device); otherwise prints the first wrong element, prefixed by `what`, and
 * returns false. */
bool vector_add_verified(const float *a, const float *b, const float *c, size_t n,
                         const char *what);

/* Splits n elements into `parts` nearly equal, contiguous parts (sizes differ by at most one);
 * part i is [*first, *first + *count). Parts are empty when parts > n. */
void chunk_bounds(size_t n, size_t parts, size_t i, size_t *first, size_t *count);

/* -------------------------------------------------------------- command line */

/* Parsers behind the flags; they return NULL when the text is valid, else why it is not. */
const char *parse_bytes(const char *text, size_t *out); /* "4096", "64K", "256M", "1G", "1GiB" */
const char *parse_count(const char *text, unsigned long long max, unsigned long long *out);

enum opt_kind {
    OPT_BYTES, /* size_t *: a byte count with an optional K/M/G/T suffix (binary units) */
    OPT_INT,   /* int *: a decimal integer in [min, max] */
    OPT_PATH,  /* const char **: any non-empty text */
};

struct opt {
    const char *name; /* "--sweep-max" */
    enum opt_kind kind;
    void *value;        /* holds the default on entry */
    unsigned long long min, max;
    const char *meta;   /* "BYTES", "N", "PATH" */
    const char *help;
    size_t multiple;    /* OPT_BYTES: the value must be a multiple of this (0: any) */
};

/* The flags every program has. The lesson sets the defaults before calling cli_parse(). */
struct common_args {
    size_t size;           /* --size BYTES */
    const char *size_help; /* what --size sizes, for --help ("bytes per vector") */
    size_t size_multiple;  /* --size must be a multiple of this (the element size); 0 = any */
    int reps;        /* --reps N */
    const char *csv; /* --csv PATH, NULL for none */
    int device;      /* --device N */
};

#define CLI_CONTINUE (-1)

/* Parses argv into *args and the lesson's own flags. Returns CLI_CONTINUE when the program should
 * run; otherwise the exit code to return from main: EXIT_VERIFIED after --help (usage printed to
 * stdout), EXIT_USAGE after one line on stderr naming the flag and what it accepts. Every flag
 * takes a value (--flag VALUE or --flag=VALUE) and may be given once. */
int cli_parse(int argc, char **argv, const char *summary, struct common_args *args,
              const struct opt *extra, size_t n_extra);

/* Whether the last cli_parse() found `flag` ("--size") on the command line. */
bool cli_given(const char *flag);

/* ---------------------------------------------------------- a lesson's start */

struct csv;

/* A size of the run (--size, --sweep-max) and how much memory the run holds for each byte of it
 * at once, on the GPU and on the host (pinned or not). */
struct sized {
    const char *flag;
    size_t *value;
    bool given; /* on the command line: never changed */
    double on_gpu, on_host;
};

/* Fits the sizes the command line did not give into the machine: while the run would hold more
 * than 90% of the GPU's free memory or 80% of the host's available memory, halves each of them
 * (down to SIZED_LEAST_BYTES), and prints in one line what it chose and why. Fails, saying why,
 * when even that does not fit. Returns EXIT_VERIFIED or EXIT_ERROR. */
#define SIZED_LEAST_BYTES ((size_t)1 << 20)
int fit_sizes(struct sized *sizes, size_t n);

/* fit_sizes()'s rule without the GPU, for the tests: halves the sizes not given until the run
 * holds at most gpu_room and host_room bytes (host_room 0: unknown, not checked) or none can be
 * halved; returns how many times it halved them. sized_holdings() says what the run holds. */
int sizes_halve_to_fit(struct sized *sizes, size_t n, double gpu_room, double host_room);
void sized_holdings(const struct sized *sizes, size_t n, double *gpu, double *host);

/* What every lesson does after parsing its command line: choose GPU args->device and print its
 * header line, fit its sizes into the machine before anything is allocated (fit_sizes), and open
 * args->csv. Returns EXIT_VERIFIED, or the exit code to return from main, having said why. */
int lesson_open(const char *lesson, const struct common_args *args, struct sized *sizes,
                size_t n_sizes, struct gpu_info *gpu, struct csv *csv);

/* ------------------------------------------------------------------ a shared GPU */

/* Another process on the GPU during a run (another student's, a service's) slows its copies and
 * kernels, and nothing in the figures would say so. watch_start() begins watching the GPU with
 * this PCI address, from a thread of its own, through NVML loaded at run time; where NVML is
 * missing or cannot list processes, it says once that it cannot tell. */
void watch_start(const char *pci_bus_id);
/* Whether another process has been seen on the GPU since watching started: csv_write() marks
 * every row written from then on contended=1, those written in a batch after measuring too. */
bool watch_seen(void);
/* Stops watching (once; it is also registered with atexit). Returns whether another process was
 * seen, and *pid, one such process's id, or 0 where it could not be told apart from ours. */
bool watch_stop(unsigned *pid);

/* What every lesson does at its end: closes the CSV, warns when another process used the GPU
 * during the run, and says how many measurements were unsteady. Returns 0, or -1 when the CSV
 * could not be written. */
int lesson_close(struct csv *csv);

/* ------------------------------------------------------------------ results */

/* The one CSV schema of the course: one row per measurement. Empty cells mean "not applicable"
 * (gbps of a kernel). `params` holds lesson-specific settings as key=value pairs joined by ';'. */
#define CSV_HEADER                                                                               \
    "lesson,experiment,variant,direction,bytes,reps,median_ms,min_ms,max_ms,gbps,"               \
    "gpu,cc,driver,runtime,params"

struct csv {
    FILE *file; /* NULL when no --csv was given: then every call is a no-op */
    const char *path;
    const char *lesson;
    const struct gpu_info *gpu;
    int rows, unsteady_rows; /* written, and of those spread over UNSTEADY_SPREAD of the median */
    bool answers_only;       /* under --exercise: the lesson's tables count, answers are written */
};

/* A measurement whose repetitions spread, min to max, over this share of their median is not to
 * be trusted as it is: lesson_close() says how many there were. */
#define UNSTEADY_SPREAD 0.10

/* A figure the tables mark `~`: its repetitions spread over this share of its median, enough to
 * read a difference of that size between two figures with care. */
#define UNSTEADY_MARK 0.05
bool stats_unsteady(struct stats s);

/* Written with designated initialisers; a field left out means "not applicable". */
struct csv_row {
    const char *experiment; /* "bandwidth", "phases", ... */
    const char *variant;    /* "pageable", "pinned", "kernel", ... */
    const char *direction;  /* "H2D", "D2H", "both"; NULL: "none" */
    size_t bytes;           /* bytes moved or processed */
    int reps;               /* samples behind the statistics */
    struct stats ms;
    double gbps;            /* 0 or NAN: not a transfer, an empty cell */
    const char *params;     /* NULL or "" for none */
};

/* Opens `path` for appending (path NULL: no CSV). Writes the header when the file is new or empty;
 * refuses a file whose header is not this schema's. Return 0, or -1 after printing why. */
int csv_open(struct csv *csv, const char *path, const char *lesson, const struct gpu_info *gpu);
int csv_write(struct csv *csv, const struct csv_row *row);
int csv_close(struct csv *csv);

/* Lessons 01-04: csv_write, or end the program when the write fails. */
void csv_record(struct csv *csv, const struct csv_row *row);

/* Writes one CSV field, quoted when it holds a comma, quote or line break (RFC 4180). */
void csv_field(FILE *file, const char *text);

/* ------------------------------------------------------------------ the deep layer */

/* A lesson's default run is the lecture's point, short enough for a class to run together. What
 * the lesson measures beyond it is its deep layer: parts that DEEP.md explains, each in a file
 * named for what it measures. `--deep all` runs every part after the lesson, `--deep a,b` the parts
 * named; `make run-all FULL=1` passes `--deep all`. `parts` is the help text's list of them. */
#define DEEP_OPTION(value, parts)                                                                \
    {"--deep", OPT_PATH, (value), 0, 0, "PARTS",                                                 \
     "after the lesson, run these parts of DEEP.md too: all, or some of " parts                  \
     " (joined by commas)", 0}

/* CLI_CONTINUE when every name in `deep` (NULL: none) is "all" or one of the n `parts`; else
 * EXIT_USAGE, after one line naming the part it does not know and the ones it does. */
int deep_check(const char *deep, const char *const *parts, size_t n);
/* Whether `deep` (already checked) asks for `part`. */
bool deep_wants(const char *deep, const char *part);

/* ------------------------------------------------------------------ coding tasks */

/* `--solution 1` makes a task's checker (NN_name/task_check.c, make task-NN) take the lesson's own
 * function in place of the student's task.c: the tests' check that the solution passes. */
#define SOLUTION_OPTION(value)                                                                   \
    {"--solution", OPT_INT, (value), 0, 1, "0|1",                                                \
     "1: check the lesson's own function in place of task.c's (the tests' control)", 0}

/* ------------------------------------------------------------------ exercises */

/* `--exercise N` (or `make run-<lesson> EXERCISE=N`) runs exercise N of the lesson's README in
 * place of the lesson, the code change it asks for included, so a class can watch the wrong
 * version fail without editing anything; the default run stays the correct program. */
#define EXERCISE_OPTION(value, count)                                                            \
    {"--exercise", OPT_INT, (value), 1, (count), "N",                                            \
     "run exercise N of README.md in place of the lesson, and compare its answer with the "     \
     "shipped reference for this GPU (0: the lesson itself)", 0}

/* Prints "exercise N of COUNT: ASKS" (run_all.sh reads COUNT from it). From here on the CSV
 * receives the answers only: the lesson's tables print and count as usual, but their rows are the
 * changed program's, which the plots must not take for the lesson's measurements. */
void exercise_begin(struct csv *csv, int n, int count, const char *asks);

/* One figure of exercise n's answer: prints it, and beside it the same figure (`key`) of the
 * shipped reference run on this GPU model, results/reference/<gpu>/<lesson>_exercises.csv, and
 * how far apart they are; or that there is no reference for this GPU, or that the reference
 * measured it with other settings (bytes or repetitions), which are not compared. Writes it to
 * the CSV as experiment "exercise", variant `key`, params those of `measured` (its clock) and
 * "exercise=N;value=VALUE", with the statistics of the measurement it comes from (`measured`).
 * Returns csv_write()'s result; exercise_record() ends the program instead (lessons 01-04). */
#define EXERCISE_NEAR 0.10 /* closer than this share of the reference: "close" */
int exercise_answer(struct csv *csv, int n, const char *key, const char *what, double value,
                    const char *unit, struct csv_row measured);
void exercise_record(struct csv *csv, int n, const char *key, const char *what, double value,
                     const char *unit, struct csv_row measured);

/* The reference's figure `key` of `lesson` from folder/<lesson>_exercises.csv, and the bytes and
 * repetitions it was measured with: 0; -1 when there is no such file, -2 when it holds no such
 * figure. */
struct exercise_figure {
    double value;
    size_t bytes;
    int reps;
};
int exercise_reference(const char *folder, const char *lesson, const char *key,
                       struct exercise_figure *figure);

/* A GPU's folder name under results/, as run_all.sh makes it: "NVIDIA H200" -> "nvidia-h200". */
void gpu_slug(const char *name, char *slug, size_t len);

#endif /* COMMON_H */
