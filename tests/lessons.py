"""How to run each lesson small and fast: for the tests and for `make sanitize`.

Small enough for compute-sanitizer (which slows kernels 10-100x), big enough to cross the code
paths the defaults take.

usage: python3 tests/lessons.py small_args LESSON | sanitize_args LESSON [TOOL]   prints them
"""
import sys

SMALL_ARGS = {
    "01_sync_copy": "--size 1M --reps 3 --sweep-max 1M",
    "02_streams": "--size 1M --reps 3 --streams 4",
    "03_events": "--size 1M --reps 3",
    "04_pinned_memory": "--size 1M --reps 3 --sweep-max 1M",
    "05_raii_style_c": "--size 1M --reps 2",
    "06_overlap_pipeline": "--size 4M --chunks 8 --streams 2 --buffers 2 --reps 2 "
                           "--sweep-size 1M --kernel-iters 16 --staged-threads 2",
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
    # 2 memories x 2 stream counts x 2, which calls wait 4; 2 + 4 + 2 + 3
    "02_streams": 23,
    "03_events": 16,  # timing 6, cpu_overlap 3 x 2, cross_stream 2, event_cost 2
    # 5 sizes x (4 kinds x 2 + 3 both ways + 2 directions x 2 per-copy costs), alignment 5 sizes x
    # 6 offsets x 2 kinds x 2 directions, batching 2 pieces x 2 directions x 3 ways (2 ways where
    # the toolkit has no cudaMemcpyBatchAsync: BATCH_CALL_ROWS fewer), CPU 4, zero-copy 4,
    # pinning 8, async 4
    "04_pinned_memory": 227,
    "05_raii_style_c": 4,  # sync, async, CPU work, final wait
    # 3 regimes x 6, sweep 7 chunk counts x 5 stream counts x 4, intensity 4 x 4, graph 5,
    # managed 4, by role 2 layouts x 4, staged 4 + 2 thread counts x 3
    "06_overlap_pipeline": 201,
}
BATCH_CALL_ROWS = 4  # 04, where the toolkit or the driver lacks cudaMemcpyBatchAsync
ADVISED_PREFETCHED_ROWS = 2  # 06, where the GPU cannot advise or prefetch managed memory

# The lessons whose every resource acquisition can be made to fail (--fail-at N).
FAULT_INJECTED = ("05_raii_style_c", "06_overlap_pipeline")


def small_args(lesson):
    return SMALL_ARGS[lesson].split()


def sanitize_args(lesson, tool=None):
    return (small_args(lesson) + WITHOUT_SWEEPS.get(lesson, "").split() +
            FOR_TOOL.get((lesson, tool), "").split())


if __name__ == "__main__":
    print(" ".join({"small_args": small_args, "sanitize_args": sanitize_args}[sys.argv[1]](
        *sys.argv[2:])))
