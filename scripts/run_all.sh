#!/usr/bin/env bash
# run_all.sh LESSON... - behind `make run-all`: runs every lesson into results/<gpu>/ (LESSON.csv,
# LESSON.log and meta.txt), one summary line per lesson with its seconds, then the plots.
#
# Three modes. The classroom run (the default) runs each lesson as a student meets it: its default
# run, what the student pages and the comparison plots show. FULL=1 runs each lesson's deep layer
# too (--deep all), then each of its exercises (LESSON_exercises.csv and .log): what
# results/reference/ is made of. LAB=1, the lab preset for a class sharing GPUs, runs each lesson
# with its flags of scripts/lab.args into results/lab/<gpu>/, then each coding task (make
# task-NN's program, with the student's task.c) into task-NN.log, and draws no plots: a task's
# FAIL is the student's to fix, not the run's failure.
#
# Environment: FULL (1: the full run), LAB (1: the lab preset), DEVICE (GPU index, default 0),
# RESULTS_DIR (default results), MAKE, and COMMIT (what meta.txt records when the tree is not a
# git checkout).
# Exit status: 0 when every lesson verified (and in the lab preset every task gave its verdict),
# 77 when there is no GPU (after drawing the shipped reference), 1 when a lesson failed.
set -u
cd "$(dirname "$0")/.."
device=${DEVICE:-0}
full=${FULL:-0}
[ "$full" = 1 ] || full=0
lab=${LAB:-0}
[ "$lab" = 1 ] && [ "$full" = 0 ] || lab=0
lab_flags() { sed -n "s/^$1 //p" scripts/lab.args; }
run_start_ns=$(date +%s%N)

no_gpu() {
    echo "run-all: $1, so there is nothing to measure; drawing the shipped reference results (results/reference/) into plots/out/ instead." >&2
    "${MAKE:-make}" --no-print-directory plots >&2
    echo "run-all: the shipped H200 pictures are in plots/out/nvidia-h200-reference/ and plots/out/compare/; start reading at 01_sync_copy/README.md." >&2
    exit 77
}

command -v nvidia-smi >/dev/null || no_gpu "there is no nvidia-smi on this machine (no NVIDIA driver)"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$device" 2>/dev/null | head -n 1)
[ -n "$gpu" ] || no_gpu "no NVIDIA GPU answers (nvidia-smi finds no GPU $device)"
slug=$(printf '%s' "$gpu" | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g')
dir=${RESULTS_DIR:-results}$([ "$lab" = 1 ] && echo /lab)/$slug
mkdir -p "$dir"

query() { nvidia-smi --query-gpu="$1" --format=csv,noheader -i "$device" 2>/dev/null | head -n 1; }
{
    echo "gpu: $gpu"
    echo "driver: $(query driver_version)"
    echo "cuda_toolkit: $(${NVCC:-nvcc} --version 2>/dev/null | grep -o 'release [0-9.]*' | cut -d' ' -f2)"
    echo "pcie_link: gen $(query pcie.link.gen.max) x$(query pcie.link.width.max) (max); gen $(query pcie.link.gen.current) x$(query pcie.link.width.current) (current, idle)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm), $(nproc) CPUs"
    echo "commit: ${COMMIT:-$(git describe --always --dirty 2>/dev/null || echo unknown)}"
    if [ "$full" = 1 ]; then
        echo "mode: full (each lesson with --deep all, then each --exercise N)"
        echo "command: make run-all FULL=1 DEVICE=$device"
    elif [ "$lab" = 1 ]; then
        echo "mode: lab (each lesson and each task with its flags of scripts/lab.args)"
        echo "command: make run-all LAB=1 DEVICE=$device"
    else
        echo "mode: classroom (each lesson's default run)"
        echo "command: make run-all DEVICE=$device"
    fi
} >"$dir/meta.txt"

declare -a summary measured
status=0 ran=0 without_gpu=0
for lesson in "$@"; do
    csv=$dir/$lesson.csv log=$dir/$lesson.log
    rm -f "$csv"
    echo "=== $lesson"
    start_ns=$(date +%s%N)
    extra=()
    [ "$full" = 1 ] && extra=(--deep all)
    [ "$lab" = 1 ] && read -r -a extra <<<"$(lab_flags "$lesson")"
    [ "$lesson" = 06_overlap_pipeline ] && [ "$lab" = 0 ] &&
        extra+=(--trace "$dir/${lesson}_trace") # its timeline
    build/bin/"$lesson" --device "$device" --csv "$csv" "${extra[@]}" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    tenths=$((($(date +%s%N) - start_ns) / 100000000))
    rows=0
    [ -f "$csv" ] && rows=$(($(grep -c '' "$csv") - 1))
    case $rc in
        0) verdict="verified" ran=$((ran + 1)) measured+=("$lesson") ;;
        77) verdict="no GPU" without_gpu=$((without_gpu + 1)) ;;
        *) verdict="FAILED (exit $rc)" status=1 ;;
    esac
    summary+=("$(printf '%-20s %-18s %5d.%d s  %s (%d rows)' "$lesson" "$verdict" $((tenths / 10)) $((tenths % 10)) "$csv" "$rows")")
done
[ "$ran" -eq 0 ] && [ "$without_gpu" -gt 0 ] && no_gpu "the lessons cannot use the GPU that nvidia-smi shows"

verified=("${measured[@]}")

# Every verified lesson's exercises, N = 1 to the count that exercise 1 prints ("exercise 1 of 3: ..."),
# into LESSON_exercises.csv and .log: what the READMEs' answers quote, and what `--exercise N`
# sets a student's figures against.
[ "$full" = 1 ] || measured=()
for lesson in "${measured[@]}"; do
    csv=$dir/${lesson}_exercises.csv log=$dir/${lesson}_exercises.log
    rm -f "$csv" "$log"
    echo "=== $lesson exercises"
    start_ns=$(date +%s%N)
    n=1 count=1 failed=0
    while [ "$n" -le "$count" ]; do
        build/bin/"$lesson" --device "$device" --csv "$csv" --exercise "$n" 2>&1 | tee -a "$log"
        rc=${PIPESTATUS[0]}
        [ "$n" -eq 1 ] &&
            count=$(sed -n 's/^exercise 1 of \([0-9]*\):.*/\1/p' "$log" | head -n 1)
        count=${count:-0}
        [ "$rc" -eq 0 ] || failed=$rc
        n=$((n + 1))
    done
    tenths=$((($(date +%s%N) - start_ns) / 100000000))
    if [ "$failed" -ne 0 ] || [ "$count" -eq 0 ]; then
        verdict="FAILED (exit $failed)" status=1
    else
        verdict="$count exercises"
    fi
    summary+=("$(printf '%-20s %-18s %5d.%d s  %s' "$lesson" "$verdict" $((tenths / 10)) \
        $((tenths % 10)) "$log")")
done
# The lab preset: each verified lesson's coding task, as the student's task.c stands.
[ "$lab" = 1 ] || verified=()
for lesson in "${verified[@]}"; do
    task=task-${lesson%%_*} log=$dir/task-${lesson%%_*}.log
    [ -x "build/bin/$task" ] || continue
    echo "=== $task"
    start_ns=$(date +%s%N)
    read -r -a flags <<<"$(lab_flags "$task")"
    build/bin/"$task" --device "$device" "${flags[@]}" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    tenths=$((($(date +%s%N) - start_ns) / 100000000))
    case $rc in
        0) verdict="PASS" ;;
        1) verdict="FAIL (see its log)" ;;
        *) verdict="FAILED (exit $rc)" status=1 ;;
    esac
    summary+=("$(printf '%-20s %-18s %5d.%d s  %s' "$task" "$verdict" $((tenths / 10)) \
        $((tenths % 10)) "$log")")
done

# Lessons that saw another process on the GPU marked the rows measured meanwhile (contended=1).
contended=$(grep -l 'contended=1' "$dir"/*.csv 2>/dev/null | xargs -r -n 1 basename | sed 's/\.csv$//' | paste -sd, -)
echo "contended: $([ -n "$contended" ] && echo "1 ($contended)" || echo 0)" >>"$dir/meta.txt"

tenths=$((($(date +%s%N) - run_start_ns) / 100000000))
echo "seconds: $((tenths / 10)).$((tenths % 10)) (the lessons$([ "$full" = 1 ] && echo ", their deep layers and exercises")$([ "$lab" = 1 ] && echo " and tasks"), not the build or the plots)" >>"$dir/meta.txt"

if [ "$lab" = 1 ]; then
    echo "=== plots: not drawn in the lab preset (its sizes are not the lessons'); make plots draws the rest"
else
    echo "=== plots"
    "${MAKE:-make}" --no-print-directory plots || status=1
fi

echo
echo "run-all on $gpu, results in $dir/:"
printf '  %s\n' "${summary[@]}"
exit "$status"
