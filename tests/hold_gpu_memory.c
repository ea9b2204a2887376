/*
 * hold_gpu_memory.c - makes a big GPU small: holds all but LEAVE bytes of GPU DEVICE's free memory
 * until its standard input closes, as another student's program would in a classroom. Behind
 * `make test-small-gpu` (scripts/small_gpu.sh).
 *
 * usage: hold_gpu_memory LEAVE [DEVICE]     LEAVE as --size takes it ("2G")
 * Prints "holding ..." once the memory is held. Exit status 0, or 1 when it could not hold it.
 */
#include "common.h"

int main(int argc, char **argv)
{
    program_name = "hold_gpu_memory";
    size_t leave = 0;
    const char *why = argc >= 2 ? parse_bytes(argv[1], &leave) : "is missing";
    if (why || argc > 3) {
        fprintf(stderr, "usage: hold_gpu_memory LEAVE [DEVICE]: LEAVE %s\n", why ? why : "");
        return EXIT_USAGE;
    }
    unsigned long long device = 0;
    if (argc == 3 && parse_count(argv[2], 1023, &device)) {
        fprintf(stderr, "usage: hold_gpu_memory LEAVE [DEVICE]: DEVICE is not a GPU index\n");
        return EXIT_USAGE;
    }
    size_t free_bytes, total_bytes, held_bytes = 0;
    void *held = NULL;
    if (CUDA_REPORT(cudaSetDevice((int)device)) || CUDA_REPORT(cudaFree(0)) ||
        CUDA_REPORT(cudaMemGetInfo(&free_bytes, &total_bytes)))
        return EXIT_ERROR;
    if (free_bytes > leave) {
        held_bytes = free_bytes - leave;
        if (CUDA_REPORT(cudaMalloc(&held, held_bytes)))
            return EXIT_ERROR;
    }
    char a[32], b[32];
    CUDA_REPORT(cudaMemGetInfo(&free_bytes, &total_bytes));
    printf("holding %s of GPU %llu's memory; %s left free\n",
           format_bytes(held_bytes, a, sizeof a), device, format_bytes(free_bytes, b, sizeof b));
    fflush(stdout);
    while (getchar() != EOF) /* until the caller closes our input */
        ;
    CUDA_REPORT(cudaFree(held));
    return EXIT_VERIFIED;
}
