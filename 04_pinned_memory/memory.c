/*
 * memory.c - the four kinds of host memory (lecture 4.2) for the deep parts and the exercises,
 * and how to give each back. main.c allocates the lesson's own with the same calls, in sight.
 */
#include "pinned.h"

const char *const kind_names[N_KINDS] = {"pageable", "pinned", "write_combined", "registered"};
const char *const direction_names[N_DIRECTIONS] = {"H2D", "D2H"};

/* Pins `bytes` of memory you already have where they are: they become REGISTERED memory, which
 * host_free(REGISTERED, p) unpins and frees. */
void *pin_in_place(void *p, size_t bytes)
{
    CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    return p;
}

void *host_alloc(enum memory_kind kind, size_t bytes)
{
    void *p = NULL;
    switch (kind) {
    case PAGEABLE: /* what malloc gives: the driver stages every copy through pinned memory */
        p = malloc_or_exit(bytes);
        break;
    case PINNED: /* page-locked: the copy engines read and write it directly */
        CUDA_CHECK(cudaMallocHost(&p, bytes));
        break;
    case WRITE_COMBINED: /* pinned, and uncached by the CPU: made for the CPU to write and the
                            GPU to read; CPU reads of it are slow */
        CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocWriteCombined));
        break;
    case REGISTERED: /* memory you already have, pinned in place */
        p = pin_in_place(malloc_or_exit(bytes), bytes);
        break;
    case N_KINDS:
        break;
    }
    return p;
}

void host_free(enum memory_kind kind, void *p)
{
    switch (kind) {
    case PAGEABLE: free(p); break;
    case PINNED:
    case WRITE_COMBINED: CUDA_CHECK(cudaFreeHost(p)); break;
    case REGISTERED:
        CUDA_CHECK(cudaHostUnregister(p));
        free(p);
        break;
    case N_KINDS: break;
    }
}
