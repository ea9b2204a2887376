/*
 * spins.c - the spin kernels' length, and the check that each of their blocks ran it: the parts
 * that time launch_spin (common/kernels.cu) know every kernel's length, whatever the clocks.
 */
#include "streams.h"

#include <stdio.h>
#include <stdlib.h>

const unsigned long long spin_ns = 500 * 1000ull; /* one small kernel: 0.5 ms */

void verify_spins(const unsigned long long *d_elapsed, unsigned blocks, unsigned long long ns,
                  const char *what)
{
    unsigned long long *h_elapsed = malloc_or_exit(blocks * sizeof *h_elapsed);
    CUDA_CHECK(cudaMemcpy(h_elapsed, d_elapsed, blocks * sizeof *h_elapsed,
                          cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < blocks; b++) {
        if (h_elapsed[b] < ns) {
            fprintf(stderr, "%s: %s: block %u ran %llu ns, want at least %llu\n", program_name,
                    what, b, h_elapsed[b], ns);
            exit(EXIT_ERROR);
        }
    }
    free(h_elapsed);
}
