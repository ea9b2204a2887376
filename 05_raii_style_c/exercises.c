/*
 * exercises.c - the exercises of README.md, each run by `--exercise N` in place of the lesson:
 *
 *   1  exercises_stale_read.c  the lecture's transfer manager, one event shared by every stream
 *   2  exercises_one_label.c   one cleanup label in place of the ladder, every acquisition made
 *                              to fail in turn, with and without destroy functions that check
 *                              for a zeroed handle
 *   3  exercises_release.c     the one label's release calls made one by one while c's copy
 *                              is still held back, with the synchronize first and without it
 */
#include "exercises.h"

#include "fault.h"

/* demo_goto.c's acquisitions, in its order, undoing nothing on failure: what was acquired stays
 * in *r (zeroed at first) for release_all(), which takes a half-built set as it takes a whole
 * one. Returns whether everything was acquired. */
bool acquire_all(struct async_resources *r, size_t bytes, enum transfer_events events)
{
    return !pinned_buffer_create(&r->h_a, bytes) && !pinned_buffer_create(&r->h_b, bytes) &&
           !pinned_buffer_create(&r->h_c, bytes) && !device_buffer_create(&r->d_a, bytes) &&
           !device_buffer_create(&r->d_b, bytes) && !device_buffer_create(&r->d_c, bytes) &&
           !cuda_stream_create(&r->s1, cudaStreamNonBlocking) &&
           !cuda_stream_create(&r->s2, cudaStreamNonBlocking) &&
           !transfer_manager_create(&r->tm, 2, events);
}

/* vector_add_verified() without its message, for exercises that count a stale c as their
 * finding rather than report it as an error: the elements of c that are not a + b. */
size_t vector_add_wrong(const float *a, const float *b, const float *c, size_t n)
{
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += !(c[i] == a[i] + b[i]);
    return wrong;
}

const char *const release_call_name[RELEASE_CALLS] = {
    [RELEASE_SYNCHRONIZE] = "cudaDeviceSynchronize()",
    [RELEASE_MANAGER] = "transfer_manager_destroy(&tm)",
    [RELEASE_S2] = "cuda_stream_destroy(&s2)",
    [RELEASE_S1] = "cuda_stream_destroy(&s1)",
    [RELEASE_D_C] = "device_buffer_destroy(&d_c)",
    [RELEASE_D_B] = "device_buffer_destroy(&d_b)",
    [RELEASE_D_A] = "device_buffer_destroy(&d_a)",
    [RELEASE_H_C] = "pinned_buffer_destroy(&h_c)",
    [RELEASE_H_B] = "pinned_buffer_destroy(&h_b)",
    [RELEASE_H_A] = "pinned_buffer_destroy(&h_a)",
};

void release_one(struct async_resources *r, enum release_call call)
{
    switch (call) {
    case RELEASE_SYNCHRONIZE:
        /* After an error, copies may still be in flight: let them finish before their buffers
         * go. */
        CUDA_REPORT(cudaDeviceSynchronize());
        break;
    case RELEASE_MANAGER:
        transfer_manager_destroy(&r->tm);
        break;
    case RELEASE_S2:
        cuda_stream_destroy(&r->s2);
        break;
    case RELEASE_S1:
        cuda_stream_destroy(&r->s1);
        break;
    case RELEASE_D_C:
        device_buffer_destroy(&r->d_c);
        break;
    case RELEASE_D_B:
        device_buffer_destroy(&r->d_b);
        break;
    case RELEASE_D_A:
        device_buffer_destroy(&r->d_a);
        break;
    case RELEASE_H_C:
        pinned_buffer_destroy(&r->h_c);
        break;
    case RELEASE_H_B:
        pinned_buffer_destroy(&r->h_b);
        break;
    case RELEASE_H_A:
        pinned_buffer_destroy(&r->h_a);
        break;
    case RELEASE_CALLS: /* a count, not a call */
        break;
    }
}

/* The one cleanup label's work: every destroy function accepts a zeroed handle, so this can
 * destroy everything, whatever was acquired. */
void release_all(struct async_resources *r)
{
    for (int call = 0; call < RELEASE_CALLS; call++)
        release_one(r, (enum release_call)call);
}

bool exercise_flags_usable(int n)
{
    if (n == 2 && cli_given("--fail-at")) {
        fprintf(stderr, "%s: --exercise 2 makes every acquisition fail in turn itself: leave "
                "--fail-at out\n", program_name);
        return false;
    }
    return true;
}

int run_exercise(int n, const struct demo_config *cfg, struct csv *csv)
{
    static const char *const asks[EXERCISE_COUNT] = {
        "give the transfer manager one shared event, as the lecture does; copy c down in s1, "
        "then something up in s2; transfer_wait_all, read c: does verification catch it? every "
        "time?",
        "one label, out_release_all, in place of the goto ladder, every acquisition made to fail "
        "in turn; what if a destroy function did not accept a zeroed handle?",
        "the one label's release calls with c's copy still held back in s1, and no synchronize "
        "first: which call waits for the copy, if any, and does c arrive whole before its buffer "
        "goes?",
    };
    static int (*const exercises[EXERCISE_COUNT])(const struct demo_config *, struct csv *) = {
        exercise_1, exercise_2, exercise_3,
    };
    exercise_begin(csv, n, EXERCISE_COUNT, asks[n - 1]);
    return exercises[n - 1](cfg, csv);
}
