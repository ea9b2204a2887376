# lessons.sh - sourced by the test and sanitizer scripts: how to run each lesson small and fast.
# Small enough for compute-sanitizer (which slows kernels 10-100x), big enough to cross the
# code paths the defaults take.
small_args() {
    case $1 in
        01_sync_copy) echo "--size 1M --reps 3 --sweep-max 1M" ;;
        *) echo "--reps 3" ;;
    esac
}

# Rows the small run must write: every measurement the lesson makes, counted by hand.
expected_rows() {
    case $1 in
        01_sync_copy) echo 19 ;; # 4 phases x 2 clocks + the launch; 5 sweep sizes x 2 directions
        *) echo 1 ;;
    esac
}
