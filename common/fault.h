/*
 * fault.h - proving the cleanup paths: fault injection and a count of live resources.
 *
 * Lessons 05 and 06 acquire every CUDA resource through ACQUIRE(). With --fail-at N, the Nth
 * acquisition fails as if the system had run out of it, so a test can walk every error path in
 * turn (N = 1, 2, ...) and check that each one releases everything acquired before it: the count
 * of live resources printed at exit must be 0.
 */
#ifndef FAULT_H
#define FAULT_H

#include <stdbool.h>

#include <cuda_runtime.h>

/* The --fail-at flag, for a program's table of options (see cli_parse): */
#define FAIL_AT_OPTION(n)                                                                        \
    {"--fail-at", OPT_INT, (n), 0, 1000000, "N",                                                 \
     "make the Nth resource acquisition fail, to test the cleanup paths (0: never)", 0}

/* Make acquisition number n (counting from 1) fail; 0 means never. */
void fault_inject_at(unsigned long n);

/* Counts one acquisition of `what`; true if it is the one chosen to fail (it says so on stderr). */
bool fault_strikes(const char *what);

/* How many acquisitions have been attempted so far (the one --fail-at N counts to). */
unsigned long fault_acquisitions(void);

/* Every successful acquisition and every release, so that the program can report leaks. */
void resource_acquired(void);
void resource_released(void);

/* Prints "resources: N acquired, M still live at exit" and returns rc, or EXIT_ERROR after
 * naming the leak when M is not 0. For the end of main. */
int resources_report(int rc);

/* The call's error (or an injected cudaErrorMemoryAllocation), reported if it is one. */
#define ACQUIRE(what, call)                                                                      \
    cuda_report(fault_strikes(what) ? cudaErrorMemoryAllocation : (call), #call, __FILE__,      \
                __LINE__)

#endif /* FAULT_H */
