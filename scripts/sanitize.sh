#!/usr/bin/env bash
# sanitize.sh LESSON... - behind `make sanitize`: every lesson, run small, under each of
# compute-sanitizer's tools. Prints a table of lesson x tool -> errors; logs go to build/sanitize/.
# Exit status: 0 when every run is clean, 1 when any is not, 77 without a GPU.
set -u
cd "$(dirname "$0")/.."

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "sanitize: compute-sanitizer needs an NVIDIA GPU and there is none here." >&2
    exit 77
fi
sanitizer=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$sanitizer" >/dev/null || sanitizer=${CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer

logs=build/sanitize
mkdir -p "$logs"
tools="memcheck racecheck synccheck initcheck"
status=0
table=$(printf '%-20s' lesson; for t in $tools; do printf ' %10s' "$t"; done)
for lesson in "$@"; do
    row=$(printf '%-20s' "$lesson")
    for tool in $tools; do
        extra=
        [ "$tool" = memcheck ] && extra="--leak-check full"
        log=$logs/$lesson.$tool.log
        # shellcheck disable=SC2046,SC2086
        "$sanitizer" --tool "$tool" $extra --error-exitcode 1 build/bin/"$lesson" $(python3 tests/lessons.py sanitize_args "$lesson" "$tool") >"$log" 2>&1
        rc=$?
        # memcheck, synccheck, initcheck end on "ERROR SUMMARY: N errors"; racecheck on
        # "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)".
        errors=$(grep -oE 'ERROR SUMMARY: [0-9]+|[0-9]+ errors' "$log" | tail -n 1 | grep -oE '[0-9]+' | head -n 1)
        if [ "$rc" -ne 0 ] || [ "${errors:-x}" != 0 ]; then
            status=1
            cell="${errors:-?} (rc $rc)"
        else
            cell=0
        fi
        row+=$(printf ' %10s' "$cell")
    done
    table+=$'\n'"$row"
done
echo "compute-sanitizer errors per lesson and tool (logs in $logs/):"
echo "$table"
exit "$status"
