#!/usr/bin/env bash
# small_gpu.sh LEAVE - behind `make test-small-gpu`: `make run-all` and `make test` on a GPU with
# only LEAVE of its memory free, as on a student's small GPU or a shared one: a helper process holds
# the rest (tests/hold_gpu_memory.c) until both are done. Results go to build/small-gpu/.
#
# Exit status: 0 when both passed, 77 without a GPU, 1 otherwise.
set -u
cd "$(dirname "$0")/.."
leave=${1:-2G}
nvidia-smi -L >/dev/null 2>&1 || { echo "test-small-gpu: no GPU here, nothing to test" >&2; exit 77; }
log=build/small-gpu/hold.log
mkdir -p build/small-gpu
# The helper holds the memory while its input is open: fd 3, closed at the end.
exec 3> >(exec build/tests/hold_gpu_memory "$leave" "${DEVICE:-0}" >"$log" 2>&1)
for _ in $(seq 100); do grep -q '^holding' "$log" 2>/dev/null && break; sleep 0.1; done
grep '^holding' "$log" || { cat "$log" >&2; exit 1; }
status=0
RESULTS_DIR=build/small-gpu "${MAKE:-make}" --no-print-directory run-all || status=1
GPU_SHARED=1 "${MAKE:-make}" --no-print-directory test || status=1
exec 3>&-
wait
echo "test-small-gpu: $([ $status -eq 0 ] && echo passed || echo FAILED) with $leave of GPU memory free"
exit $status
