# lessons.sh - sourced by the test and sanitizer scripts: how to run each lesson small and fast.
# Small enough for compute-sanitizer (which slows kernels 10-100x), big enough to cross the
# code paths the defaults take.
small_args() {
    case $1 in
        01_sync_copy) echo "--size 1M --reps 3 --sweep-max 1M" ;;
        02_streams) echo "--size 1M --reps 3 --streams 4" ;;
        03_events) echo "--size 1M --reps 3" ;;
        04_pinned_memory) echo "--size 1M --reps 3 --sweep-max 1M" ;;
        05_raii_style_c) echo "--size 1M --reps 2" ;;
        06_overlap_pipeline) echo "--size 4M --chunks 8 --streams 2 --buffers 2 --reps 2 --sweep-size 1M --kernel-iters 16" ;;
        *) echo "--reps 3" ;;
    esac
}

# compute-sanitizer slows every launch and copy down: 06's sweeps (hundreds of runs) are left out
# there; the runs they repeat are all in its other parts.
sanitize_args() {
    case $1 in
        06_overlap_pipeline) echo "$(small_args "$1") --sweeps 0" ;;
        *) small_args "$1" ;;
    esac
}

# Rows the small run must write: every measurement the lesson makes, counted by hand.
expected_rows() {
    case $1 in
        01_sync_copy) echo 19 ;; # 4 phases x 2 clocks + the launch; 5 sweep sizes x 2 directions
        02_streams) echo 18 ;;   # 2 memories x 2 stream counts x 2 + 2 + 3 + 2 + 3
        03_events) echo 16 ;;    # timing 6, cpu_overlap 3 x 2, cross_stream 2, event_cost 2
        05_raii_style_c) echo 4 ;;    # sync, async, CPU work, final wait
        # 3 regimes x 6, sweep 7 chunk counts x 5 stream counts x 4, intensity 4 x 4, graph 5, managed 5
        06_overlap_pipeline) echo 184 ;;
        04_pinned_memory) echo 73 ;; # 5 sizes x (4 kinds x 2 + 3 both ways), CPU 4, zero-copy 4, pinning 6, async 4
        *) echo 1 ;;
    esac
}
