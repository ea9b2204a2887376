"""How to run each lesson small and fast: for the tests and for `make sanitize`.

Small enough for compute-sanitizer (which slows kernels 10-100x), big enough to cross the code
paths the defaults take.

usage: python3 tests/lessons.py small_args LESSON | sanitize_args LESSON [TOOL]   prints them
"""
import sys

# Each small run takes the deep layer too (--deep all): every code path of the lesson.
SMALL_ARGS = {
    "01_sync_copy": "--size 1M --reps 3 --sweep-max 1M --deep all",
    "02_streams": "--size 1M --reps 3 --streams 4 --deep all",
    "03_events": "--size 1M --reps 3 --deep all",
    "04_pinned_memory": "--size 1M --reps 3 --sweep-max 1M --deep all",
    "05_raii_style_c": "--size 1M --reps 2 --deep all",
    "06_overlap_pipeline": "--size 4M --chunks 8 --streams 2 --buffers 2 --reps 2 "
                           "--sweep-size 1M --kernel-iters 16 --staged-threads 2 --deep all",
}

# What each student page asks a student to read, in the page's order: the lesson layer.
STUDENT_READS = {
    "01_sync_copy": ("main.c",),
    "02_streams": ("main.c", "default_stream.c"),
    "03_events": ("main.c",),
    "04_pinned_memory": ("main.c",),
    "05_raii_style_c": ("main.c", "resources.c", "transfer_manager.c", "demo_goto.c"),
    "06_overlap_pipeline": ("main.c",),
}

# compute-sanitizer slows every launch and copy down: 06's sweeps (hundreds of runs) are left out
# there, and from its fault injection; the runs they repeat are all in its other parts.
WITHOUT_SWEEPS = {"06_overlap_pipeline": "--sweeps 0"}
# Under initcheck, 04's copies cannot queue behind a gate (common.h): on the H200 a copy call
# issued behind a closed gate did not return until the gate gave up waiting for the host.
FOR_TOOL = {("04_pinned_memory", "initcheck"): "--gated-timing 0"}

# Rows each small run must write: every measurement the lesson makes, counted by hand.
CSV_ROWS = {
    # 4 phases x 2 clocks, the launch, the kernel alone; 5 sweep sizes x 2 directions
    "01_sync_copy": 20,
    # 2 memories x 2 stream counts x 2, which calls wait 2 memories x 2 directions x 3 sizes
    # (4 KiB, 64 KiB and the 256 KiB chunk); 2 + 4 + 2 + 3
    "02_streams": 31,
    "03_events": 16,  # timing 6, cpu_overlap 3 x 2, cross_stream 2, event_cost 2
    # core 59: 5 sizes x (4 kinds x 2 + 3 both ways) + 4 async; deep: per-copy 5 sizes x 2
    # directions x 2 costs, alignment 5 sizes x 6 offsets x 3 (pinned and pageable host
    # addresses, device addresses) x 2 directions and 3 pitches x 2 directions, batching 2 pieces x 2 directions x 4 ways (2 ways where
    # the toolkit has no cudaMemcpyBatchAsync: BATCH_CALL_ROWS fewer), CPU 4, zero-copy 4,
    # pinning 9, async 4
    "04_pinned_memory": 298,
    "05_raii_style_c": 5,  # sync, async, CPU work, final wait; the scoped half's fault walk
    # core 15: 3 regimes x 5; deep: orders 3 regimes x 4, shapes 7 chunk counts x 5 stream counts
    # x 4 and the floor, intensity 5 x 4 (1, 4, 16 = the balance point, 32 = twice it, 64),
    # graph 5, managed 4, by role 2 layouts x 4, staged 4 ways + the copies in weighed 2 + 2
    # copies x 2 thread counts x 6 + the best against memcpy's + the ceiling
    "06_overlap_pipeline": 237,
}
# Rows of the same small runs without --deep: the default run, what the classroom run measures.
CORE_ROWS = {
    "01_sync_copy": 11,       # part 1's 9, the pageable sweep's one size x 2 directions
    "02_streams": 12,         # 8 split over streams, 4 default stream
    "03_events": 7,           # timing 3, cpu_overlap 2, cross_stream 2
    "04_pinned_memory": 59,   # 5 sizes x (4 kinds x 2 + 3 both ways) + 4 async
    "05_raii_style_c": 4,     # sync, async, CPU work, final wait
    "06_overlap_pipeline": 15,  # 3 regimes x 5
}
BATCH_CALL_ROWS = 8  # 04, where the toolkit or the driver lacks cudaMemcpyBatchAsync
ADVISED_PREFETCHED_ROWS = 2  # 06, where the GPU cannot advise or prefetch managed memory

# The runs whose every resource acquisition can be made to fail (--fail-at N): lessons 05 and 06.
FAULT_INJECTED = (("05_raii_style_c", ()), ("06_overlap_pipeline", ()))

# What each exercise's run must print for its outcome to be the one its README answer gives: a
# regex over stdout, per (lesson, exercise number).
EXERCISE_OUTCOMES = {
    # the copies take over 90% of the time at every size: both grow with n
    ("01_sync_copy", 1): r"(?s)\A(?!.*^answer 1, the copies' share [^\n]*: "
                         r"(?:\d|[1-8]\d)(?:\.\d+)? %$)"
                         r"(?=.*^answer 1, the copies' share of the CPU blocked time [^\n]*: "
                         r"9\d(?:\.\d+)? %$)",
    # without the synchronize, the kernel phase holds the CPU less, the D2H call waits for the
    # kernel instead, and c is still right
    ("01_sync_copy", 2): r"(?s)^answer 2, the kernel phase's CPU blocked time, without the "
                         r"synchronize less with it: -0\.\d+ ms$.*^answer 2, without the "
                         r"synchronize, the D2H call's wait for the kernel: "
                         r"(?:0\.0[1-9]|0\.[1-9]|[1-9])[^\n]* ms$.*^verified: every element of c = "
                         r"a \+ b in every repetition, with the synchronize and without it$",
    # one spinning thread pinned to each CPU, the copying thread left well short of a whole CPU,
    # and the largest pageable H2D copy slower for it: the CPU stages it
    ("01_sync_copy", 3): r"(?s)^Busy: (\d+) threads spin, one pinned to each of the \1 CPUs this "
                         r"process may run on\.$.*^answer 3, pageable H2D at [^(\n]*\(largest\), "
                         r"the time with every CPU busy over the time on idle CPUs: "
                         r"(?:1\.[1-9]|[2-9]|\d{2,})[^\n]* x$.*^answer 3, the copy's thread's CPU "
                         r"time over a busy pass's length: [1-7]?\d(?:\.\d+)? %$",
    # a pipeline cannot beat its copies alone
    ("02_streams", 1): r"^answer 1, stream counts whose run beat its copies alone by more than the "
                       r"spread: 0 of \d+",
    # a memset in the legacy stream is a barrier too: B waited every time
    ("02_streams", 2): r"(?s)^answer 2, repetitions in which B waited for A behind the memset: "
                       r"(\d+) of \1.*^verified: [^\n]*every memset zeroed its word",
    # 1 ms filler blocks: the urgent kernel waits for the whole filler at its priority, for the
    # running blocks only at the highest
    ("02_streams", 3): r"(?s)^answer 3, [^\n]*filler's priority: (?:[5-9]|[1-9]\d)(?:\.\d+)? ms\n"
                       r".*^answer 3, [^\n]*highest priority: 0\.\d+ ms",
    # the polling loop notices the GPU's end only between units: late by under one unit
    ("03_events", 1): r"^answer 1, that overrun in ten-pass units: 0\.\d+ units",
    # cudaEventSynchronize spins whatever the device flags say; cudaStreamSynchronize sleeps
    ("03_events", 2): r"^answer 2, rows of experiment 2 whose CPU time changed by over half the "
                      r"wait: 0 of 3 rows",
    # the host's wait fixes the race, and the host waits out the producer's work
    ("03_events", 3): r"(?s)^both fixes: y right in (\d+) of \1 runs each$.*^answer 3, host's "
                      r"enqueue time, cudaStreamSynchronize: (?:[2-9]|\d{2,})(?:\.\d+)? ms",
    # pinned memory is as close to the link's peak at 1 GiB as at 4 GiB
    ("04_pinned_memory", 1): r"^answer 1, pinned H2D, .+ over .+'s: "
                             r"(0\.9[5-9]\d*|1(\.0[0-4]\d*)?) x",
    # one float in 256: reading mapped memory directly beats copying everything
    ("04_pinned_memory", 2): r"^answer 2, 1 float in 256, reading's time over copying's: 0\.\d+ x",
    # hot and cold pieces: the four ratios (pageable and pinned, each way), each a positive
    # number; which way each goes is the host's answer, not asserted
    ("04_pinned_memory", 3): r"(?s)" + "".join(
        rf"(?=.*^answer 3, {memory} {direction}, a cold piece's time over a hot one's: "
        r"(?!0 x)\d[\d.]*(?:e[+-]\d+)? x$)"
        for memory in ("pageable", "pinned") for direction in ("H2D", "D2H")),
    # the lecture's shared event: c read before its copy, every time; one event per stream: never
    ("05_raii_style_c", 1): r"(?s)^answer 1, runs that read stale c, one shared event, c's copy "
                            r"held back 20 ms: (\d+) of \1.*^answer 1, runs that read stale c, one "
                            r"event per stream, c's copy held back 20 ms: 0 of \d+",
    # one label: the lesson's destroys leave nothing held; destroys without the NULL check count
    # releases that never were, and leave CUDA's last error for the next launch to be blamed for
    ("05_raii_style_c", 2): (r"(?s)^answer 2, handles still held after the label, every fault "
                             r"point, the lesson's destroy functions: 0 handles"
                             r".*^answer 2, change in the count of live resources over the walk, "
                             r"destroy functions without the check: -[1-9]\d* resources"
                             r".*^answer 2, CUDA calls refusing a zeroed handle, destroy functions "
                             r"without the check: [1-9]\d* calls"
                             r".*^answer 2, valid launches after the label whose check reported an "
                             r"error, destroy functions without the check: [1-9]\d* of \d+ runs"),
    # without the synchronize, the first cudaFree (d_c's) waited for the copy still in flight,
    # and c arrived whole in every run
    ("05_raii_style_c", 3): r"(?s)^answer 3, without the synchronize, the release call during "
                            r"which c's copy finished, in release_all's order \(0: in none\): "
                            r"4 of 9 calls$.*^answer 3, without the synchronize, runs in which c "
                            r"had arrived whole before h_c's release: (\d+) of \1 runs$",
    # two buffers: at most two engines at once
    ("06_overlap_pipeline", 1): r"(?s)^answer 1, efficiency with 2 buffers: 0\.[0-7]\d* of its "
                                r"bound.*^answer 1, time with 2 buffers over 8's, in turns, rep by "
                                r"rep \([^)]*\): (?:1\.(?:0[5-9]|[1-9])|[2-9])[\d.]* x",
    # without the wait, a longer kernel: caught every time; with it: never
    ("06_overlap_pipeline", 2): r"(?s)^answer 2, runs caught by verification, kernel 4x as long, "
                                r"no wait: [1-9]\d* of \d+ runs.*^answer 2, runs caught by "
                                r"verification, kernel 4x as long, with the wait \(the lesson\): "
                                r"0 of \d+ runs",
    # which chunk count is fastest is this GPU's answer, not asserted: one of the three, each
    # count's time over 64's rep by rep, and no pipeline that beat its own bound
    ("06_overlap_pipeline", 3): r"(?s)\A(?!.*^  !! )(?=.*^answer 3, chunks of the fastest "
                                r"pipeline [^\n]*: (?:16|64|512) chunks$)(?=.*^answer 3, time "
                                r"with 16 chunks over 64's[^\n]*: \d[\d.]* x$)(?=.*^answer 3, "
                                r"time with 512 chunks over 64's[^\n]*: \d[\d.]* x$)",
    # faster or slower on one thread fewer is the host's answer, not asserted: the ratio, and
    # on each thread count the CPU's copies alone over the GPU's work alone; no bound beaten
    ("06_overlap_pipeline", 4): r"(?s)\A(?!.*^  !! )(?=.*^answer 4, time on \d+ threads over "
                                r"\d+'s[^\n]*: \d[\d.]* x$)(?=(?:.*^answer 4, on \d+ threads, "
                                r"the CPU's copies alone over the GPU's work alone[^\n]*: "
                                r"\d[\d.]* x$){2})",
    # 2 staging buffers against 8: the three ratios, each rep by rep; their values not asserted
    ("06_overlap_pipeline", 5): r"(?s)(?=.*^answer 5, time with 2 staging buffers over \d+'s"
                                r"[^\n]*: \d[\d.]* x$)(?=.*^answer 5, the GPU's work alone with "
                                r"2 staging buffers over \d+'s[^\n]*: \d[\d.]* x$)(?=.*^answer "
                                r"5, the CPU's copies alone with 2 staging buffers over \d+'s"
                                r"[^\n]*: \d[\d.]* x$)",
}


# Each lesson's coding task (make task-NN): what its checker's FAIL line says of the blank task.c,
# and of each typical wrong answer in tests/tasks/.
TASKS = {
    "01_sync_copy": {"blank": "not written yet", "wrong": {
        "tests/tasks/01_swapped_events.c": "read the wrong way round",
        "tests/tasks/01_from_first_event.c": "timed from an earlier phase's start"}},
    "02_streams": {"blank": "not written yet", "wrong": {
        "tests/tasks/02_one_stream.c": "no faster than one stream",
        "tests/tasks/02_blocking_streams.c": "is a blocking stream",
        "tests/tasks/02_kernels_apart.c": "same stream as its copies",
        "tests/tasks/02_no_wait.c": "returned before its work was done"}},
    "03_events": {"blank": "not written yet", "wrong": {
        "tests/tasks/03_no_wait.c": "consumer read x before the producer wrote it",
        "tests/tasks/03_host_sync.c": "host waited for the producer",
        "tests/tasks/03_stop_in_producer.c": "stop was complete while a stream still had work"}},
    "04_pinned_memory": {"blank": "not written yet", "wrong": {
        "tests/tasks/04_pageable.c": "pageable memory",
        "tests/tasks/04_sync_copy.c": "not queued in the stream"}},
    "05_raii_style_c": {"blank": "not written yet", "wrong": {
        "tests/tasks/05_not_released.c": "not released",
        "tests/tasks/05_released_twice.c": "released twice"}},
    "06_overlap_pipeline": {"blank": "not written yet", "wrong": {
        "tests/tasks/06_no_buffer_wait.c": "no wait for the buffer's event",
        "tests/tasks/06_default_stream.c": "in the default stream",
        "tests/tasks/06_one_stream.c": "do not overlap"}},
}

def small_args(lesson):
    return SMALL_ARGS[lesson].split()


def sanitize_args(lesson, tool=None):
    return (small_args(lesson) + WITHOUT_SWEEPS.get(lesson, "").split() +
            FOR_TOOL.get((lesson, tool), "").split())


if __name__ == "__main__":
    print(" ".join({"small_args": small_args, "sanitize_args": sanitize_args}[sys.argv[1]](
        *sys.argv[2:])))
