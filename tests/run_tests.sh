#!/usr/bin/env bash
# run_tests.sh LESSON... - the test suite behind `make test` (which builds everything first).
#
# One line per test (PASS, FAIL or SKIP), then "tests: N passed, N failed, N skipped".
# What needs a GPU runs when the driver reports one, and is skipped, and counted, when not.
# Set REQUIRE_PLOTS=1 (CI does) to fail rather than skip when matplotlib cannot be had.
set -u
cd "$(dirname "$0")/.."
. tests/lessons.sh

passed=0 failed=0 skipped=0
pass() { printf 'PASS %s\n' "$1"; passed=$((passed + 1)); }
fail() { printf 'FAIL %s: %s\n' "$1" "$2"; failed=$((failed + 1)); }
skip() { printf 'SKIP %s: %s\n' "$1" "$2"; skipped=$((skipped + 1)); }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Whether there is a GPU is asked of the driver, not of the programs under test.
if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then has_gpu=1; else has_gpu=0; fi

# Runs a command, keeping its exit code in $rc and its stdout and stderr in files.
run() {
    "$@" >"$scratch/out" 2>"$scratch/err"
    rc=$?
}
lines() { grep -c '' "$1"; }

# try_bad PROGRAM NAME ARG...: true when PROGRAM ARG... exits 2 within 10 s, printing nothing on
# stdout and exactly one line on stderr, which names NAME.
try_bad() {
    local program=$1 name=$2
    shift 2
    run timeout 10 "$program" "$@"
    [ "$rc" -eq 2 ] && [ ! -s "$scratch/out" ] && [ "$(lines "$scratch/err")" -eq 1 ] &&
        grep -q -- "$name" "$scratch/err"
}

# Values every flag of a kind must refuse: signs, fractions, junk, other bases, units that are
# not binary, overflow, out of range, blanks, and text that looks like a flag.
bad_values() {
    case $1 in
        bytes_bad) printf '%s\n' -1 0 12abc 64KB 1.5M 0x100 " 64" +64 99999999999999999999G 2T "" 1P --reps ;;
        count_bad) printf '%s\n' -1 1.5 12abc 99999999999999999999 4294967296 "" 1e3 0x10 " 3" +3 "3 4" --size ;;
        path_bad) printf '%s\n' "" ;;
    esac
}
good_value() {
    case $1 in bytes_bad) echo 64K ;; count_bad) echo 1 ;; path_bad) echo x.csv ;; esac
}
bad_inputs=0

# --- 1. common/ under AddressSanitizer and UBSan --------------------------------------------
run build/tests/test_common
while read -r verdict name detail; do
    case $verdict in
        PASS) pass "common: $name" ;;
        FAIL) fail "common: ${name%:}" "$detail" ;;
    esac
done <"$scratch/out"
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$scratch/out"; then
    fail "common: test_common" "exit $rc without a FAIL line (crash or sanitizer report): $(tail -n 3 "$scratch/err")"
fi

# --- 1b. the host code under valgrind: the unit tests, and each program's paths that run without
# a GPU (on a GPU machine, the driver's own allocations would drown the report).
if ! command -v valgrind >/dev/null; then
    skip "valgrind: host code" "valgrind is not installed"
else
    vg() { run valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$@"; }
    vg build/tests/test_common_plain
    if [ "$rc" -eq 0 ] && ! grep -q '^FAIL' "$scratch/out"; then
        pass "valgrind: the unit tests of common/ are clean"
    else
        fail "valgrind: the unit tests of common/ are clean" "exit $rc: $(head -n 3 "$scratch/err")"
    fi
    for lesson in "$@"; do
        clean=0 want=2
        vg "build/bin/$lesson" --help && [ "$rc" -eq 0 ] && clean=$((clean + 1))
        vg "build/bin/$lesson" --size 12abc && [ "$rc" -eq 2 ] && clean=$((clean + 1))
        if [ "$has_gpu" -eq 0 ]; then
            want=3
            # shellcheck disable=SC2046
            vg "build/bin/$lesson" $(small_args "$lesson") && [ "$rc" -eq 77 ] && clean=$((clean + 1))
        fi
        if [ "$clean" -eq "$want" ]; then
            pass "valgrind: $lesson's paths without a GPU are clean ($want)"
        else
            fail "valgrind: $lesson's paths without a GPU are clean" "exit $rc: $(head -n 3 "$scratch/err")"
        fi
    done
fi

# --- 2. every program: command line, no-GPU path, and a small verified run ------------------
for lesson in "$@"; do
    bin=build/bin/$lesson

    run "$bin" --help
    if [ "$rc" -eq 0 ] && grep -q "^usage: $lesson" "$scratch/out"; then
        pass "$lesson: --help"
    else
        fail "$lesson: --help" "exit $rc, want 0 and a usage line"
    fi

    # Every flag the program lists in --help, fed the bad values of its kind, with no value, and
    # twice: each must exit 2 with exactly one line on stderr that names it, and nothing on stdout.
    while read -r flag meta; do
        case $meta in
            BYTES) kind=bytes_bad ;;
            PATH | PREFIX) kind=path_bad ;;
            *) kind=count_bad ;;
        esac
        refused=0 wrong=
        while IFS= read -r value; do
            if try_bad "$bin" "$flag" "$flag" "$value"; then refused=$((refused + 1)); else wrong+=" '$value'"; fi
        done < <(bad_values "$kind")
        try_bad "$bin" "$flag" "$flag" && refused=$((refused + 1)) || wrong+=" (no value)"
        try_bad "$bin" "$flag" "$flag" "$(good_value "$kind")" "$flag" "$(good_value "$kind")" &&
            refused=$((refused + 1)) || wrong+=" (given twice)"
        bad_inputs=$((bad_inputs + refused))
        if [ -z "$wrong" ]; then
            pass "$lesson: $flag refuses $refused bad inputs"
        else
            fail "$lesson: $flag refuses bad inputs" "not refused with one line:$wrong"
        fi
    done < <("$bin" --help | sed -n 's/^  \(--[a-z-]*\) \([A-Z0-9|][A-Z0-9|]*\) .*/\1 \2/p')
    for stray in --no-such-flag stray -; do
        if try_bad "$bin" "$stray" "$stray"; then
            bad_inputs=$((bad_inputs + 1))
            pass "$lesson: refuses '$stray'"
        else
            fail "$lesson: refuses '$stray'" "exit $rc, $(lines "$scratch/err") stderr lines"
        fi
    done

    # Without a GPU: exit 77 and one sentence. On a GPU machine, hide the GPUs to get there.
    # shellcheck disable=SC2046
    if [ "$has_gpu" -eq 1 ]; then
        run env CUDA_VISIBLE_DEVICES= "$bin" $(small_args "$lesson")
    else
        run "$bin" $(small_args "$lesson")
    fi
    if [ "$rc" -eq 77 ] && [ "$(lines "$scratch/err")" -eq 1 ] && grep -q 'needs an NVIDIA GPU' "$scratch/err"; then
        pass "$lesson: without a GPU, exit 77 and one sentence"
    else
        fail "$lesson: without a GPU, exit 77 and one sentence" "exit $rc: $(head -c 300 "$scratch/err")"
    fi

    if [ "$has_gpu" -eq 0 ]; then
        skip "$lesson: small run on the GPU verifies" "no GPU here"
        skip "$lesson: CSV rows follow the schema" "no GPU here"
        skip "$lesson: a request larger than the machine fails first" "no GPU here"
        continue
    fi
    csv=$scratch/$lesson.csv
    # shellcheck disable=SC2046
    run "$bin" $(small_args "$lesson") --csv "$csv"
    if [ "$rc" -eq 0 ] && grep -q '^verified' "$scratch/out"; then
        pass "$lesson: small run on the GPU verifies"
    else
        fail "$lesson: small run on the GPU verifies" "exit $rc: $(tail -n 3 "$scratch/err")"
    fi
    if [ -f "$csv" ] && problems=$(python3 tests/check_csv.py "$csv" "$lesson" "$(expected_rows "$lesson")"); then
        pass "$lesson: CSV rows follow the schema"
    else
        fail "$lesson: CSV rows follow the schema" "${problems:-no CSV written}"
    fi

    # 1 TiB per buffer fits no GPU of today: refused before anything is allocated, with the sizes.
    run timeout 60 "$bin" --size 1T
    if [ "$rc" -eq 1 ] && [ "$(lines "$scratch/err")" -eq 1 ] &&
        grep -q 'needs .* but only .*choose a smaller --size' "$scratch/err"; then
        pass "$lesson: a request larger than the machine fails first, with the sizes"
    else
        fail "$lesson: a request larger than the machine fails first" "exit $rc: $(head -c 300 "$scratch/err")"
    fi
done

# --- 3. lesson 05: every resource acquisition made to fail in turn releases everything ----------
case " $* " in *" 05_raii_style_c "*)
    bin=build/bin/05_raii_style_c
    args=$(small_args 05_raii_style_c)
    if [ "$has_gpu" -eq 0 ]; then
        skip "05_raii_style_c: fault injection at every acquisition" "no GPU here"
    else
        # shellcheck disable=SC2086
        run "$bin" $args
        total=$(sed -n 's/^resources: \([0-9]*\) acquired.*/\1/p' "$scratch/out")
        if [ -z "$total" ] || [ "$total" -lt 1 ]; then
            fail "05_raii_style_c: fault injection at every acquisition" "no acquisition count in the output"
            total=0
        fi
        # With compute-sanitizer, its leak check must agree that nothing on the GPU leaked.
        sanitizer=
        if command -v compute-sanitizer >/dev/null; then
            sanitizer="compute-sanitizer --leak-check full --error-exitcode 99"
        fi
        for n in $(seq 1 "$total"); do
            # shellcheck disable=SC2086
            run $sanitizer "$bin" $args --fail-at "$n"
            if [ "$rc" -eq 1 ] && grep -q "making acquisition $n (" "$scratch/err" &&
                grep -q ' 0 still live at exit' "$scratch/out" &&
                { [ -z "$sanitizer" ] || grep -q 'ERROR SUMMARY: 0 errors' "$scratch/out"; }; then
                pass "05_raii_style_c: --fail-at $n of $total releases everything${sanitizer:+ (compute-sanitizer clean)}"
            else
                fail "05_raii_style_c: --fail-at $n of $total releases everything" "exit $rc: $(grep -h -e 'live' -e 'SUMMARY' -e 'acquisition' "$scratch/out" "$scratch/err" | head -n 4 | tr '\n' ' ')"
            fi
        done
    fi
    ;;
esac

# --- 4. lesson 06: the timeline holds one event per copy and kernel -----------------------------
case " $* " in *" 06_overlap_pipeline "*)
    # The shipped reference timeline (64 chunks by default) passes the same checks as a new one.
    reference=results/reference/nvidia-h200/06_overlap_pipeline_trace
    if problems=$(python3 tests/check_trace.py "$reference" 64); then
        pass "06_overlap_pipeline: the reference timeline holds each copy and kernel once"
    else
        fail "06_overlap_pipeline: the reference timeline" "$problems"
    fi
    if [ "$has_gpu" -eq 0 ]; then
        skip "06_overlap_pipeline: timeline JSON and CSV" "no GPU here"
    else
        # shellcheck disable=SC2046
        run build/bin/06_overlap_pipeline $(small_args 06_overlap_pipeline) --trace "$scratch/trace"
        if [ "$rc" -eq 0 ] && problems=$(python3 tests/check_trace.py "$scratch/trace" 8); then
            pass "06_overlap_pipeline: timeline JSON and CSV hold each copy and kernel once"
        else
            fail "06_overlap_pipeline: timeline JSON and CSV" "exit $rc: ${problems:-$(tail -n 2 "$scratch/err")}"
        fi
    fi
    ;;
esac

# --- 5. make run-all without a GPU says so, and points to the reference results --------------
if [ "$has_gpu" -eq 0 ]; then
    run env RESULTS_DIR="$scratch/results" scripts/run_all.sh "$@"
    if [ "$rc" -eq 77 ] && grep -q 'make plots' "$scratch/err"; then
        pass "run-all: without a GPU, exit 77 and a pointer to make plots"
    else
        fail "run-all: without a GPU, exit 77 and a pointer to make plots" "exit $rc: $(head -c 300 "$scratch/err")"
    fi
fi

# --- 6. the plots: the shipped reference, two GPUs side by side, and files that cannot be read --
plots() { run env PLOTS_OUT="$scratch/plots-$1" PLOTS_RESULTS="$2" scripts/plots.sh; }
pngs() { find "$scratch/plots-$1" -name '*.png' -size +1k 2>/dev/null | wc -l; }
plots reference results/reference
if [ "$rc" -eq 3 ] && [ "${REQUIRE_PLOTS:-0}" != 1 ]; then
    skip "plots: every figure" "$(head -n 1 "$scratch/err")"
else
    # bandwidth, phases, timeline, efficiency, intensity, and the two comparisons
    if [ "$rc" -eq 0 ] && [ "$(pngs reference)" -eq 7 ]; then
        pass "plots: the reference results draw all 7 figures"
    else
        fail "plots: the reference results draw all 7 figures" "exit $rc, $(pngs reference) PNGs: $(tail -n 3 "$scratch/err")"
    fi

    # Two GPUs: the reference under two names, so the comparison draws two series of everything.
    for gpu in "GPU A" "GPU B"; do
        dir="$scratch/two/${gpu// /-}"
        mkdir -p "$dir" && cp results/reference/nvidia-h200/* "$dir/"
        sed -i "s/^gpu: .*/gpu: $gpu/" "$dir/meta.txt"
    done
    plots two "$scratch/two"
    if [ "$rc" -eq 0 ] && [ "$(pngs two)" -eq 12 ] && grep -q 'compare/pipeline.png' "$scratch/out"; then
        pass "plots: two GPUs draw 5 figures each and the comparisons"
    else
        fail "plots: two GPUs draw 5 figures each and the comparisons" "exit $rc, $(pngs two) PNGs"
    fi

    # Files that cannot be read: one line naming the file, no traceback.
    for case in header fields number trace missing; do
        dir="$scratch/bad-$case"
        mkdir -p "$dir"
        good=results/reference/nvidia-h200/01_sync_copy.csv
        case $case in
            header) { echo "a,b,c"; tail -n +2 "$good"; } >"$dir/x.csv" ;;
            fields) { head -n 2 "$good"; echo "01_sync_copy,phases,h2d"; } >"$dir/x.csv" ;;
            number) head -n 2 "$good" | sed '2s/,20,[0-9.]*,/,20,fast,/' >"$dir/x.csv" ;;
            trace) { cp "$good" "$dir/"; echo "run,row" >"$dir/06_overlap_pipeline_trace.csv"; } ;;
            missing) rmdir "$dir" ;;
        esac
        plots "bad-$case" "$dir"
        if [ "$rc" -eq 1 ] && [ "$(lines "$scratch/err")" -eq 1 ] && grep -q '^plots: ' "$scratch/err" &&
            ! grep -q Traceback "$scratch/err"; then
            pass "plots: a $case problem gives one line, no traceback"
        else
            fail "plots: a $case problem gives one line, no traceback" "exit $rc: $(head -c 300 "$scratch/err")"
        fi
    done
fi

echo "bad command lines tried: $bad_inputs, each refused with exit 2 and one line"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
