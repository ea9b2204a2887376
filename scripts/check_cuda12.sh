#!/usr/bin/env bash
# check_cuda12.sh - behind `make check-cuda12`: compiles every host file against CUDA 12.9's
# headers, fetched once from PyPI into build/cuda12/ (the runtime, CUPTI and NVTX wheels carry
# them; CUDA 12's nvcc is not on PyPI, so the kernels are left out). The code's CUDA 12.x branches
# (CUPTI's record types, the signatures of cudaMemPrefetchAsync and cudaMemcpyBatchAsync) compile
# on every change.
set -eu
cd "$(dirname "$0")/.."
dir=build/cuda12
wheels=("nvidia-cuda-runtime-cu12==12.9.*" "nvidia-cuda-cupti-cu12==12.9.*" "nvidia-nvtx-cu12==12.9.*")
if [ ! -f "$dir/nvidia/cuda_runtime/include/cuda_runtime.h" ]; then
    echo "check-cuda12: fetching the CUDA 12.9 headers from PyPI into $dir/"
    python3 -m pip download --quiet --no-deps --dest "$dir/wheels" "${wheels[@]}"
    for wheel in "$dir"/wheels/*.whl; do python3 -m zipfile -e "$wheel" "$dir"; done
fi
version=$(awk '/#define CUDART_VERSION/ {print $3; exit}' "$dir/nvidia/cuda_runtime/include/cuda_runtime_api.h")
"${MAKE:-make}" --no-print-directory OBJ="$dir/obj" CUPTI_INC="$dir/nvidia/cuda_cupti/include" \
    CUDA_INCLUDES="-isystem $dir/nvidia/cuda_runtime/include -isystem $dir/nvidia/nvtx/include" \
    host-objects
echo "check-cuda12: every host file compiled against CUDA $((version / 1000)).$((version % 1000 / 10))'s headers"
