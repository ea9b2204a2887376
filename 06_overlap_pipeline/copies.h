/*
 * copies.h - the staged pipeline's CPU copies (staging.c): plain memcpy, or streaming stores.
 *
 * A plain store first reads the cache line it is about to overwrite (a read for ownership), so
 * memcpy crosses host memory three times per byte: the source read, that read, the write back.
 * A streaming (non-temporal) store writes around the cache and skips the read: twice per byte.
 * Host code only: no CUDA here.
 */
#ifndef COPIES_H
#define COPIES_H

#include <stddef.h>

enum copy_method { PLAIN_COPY, STREAMING_COPY };

/* The streaming stores this CPU has and copy_bytes() uses ("AVX"), or NULL: then a streaming copy
 * is a plain memcpy. Asked of the CPU at run time, once. */
const char *streaming_stores(void);
/* From now on, as on a CPU without streaming stores (the tests' way to reach the fallback). Call
 * it before any copy. */
void streaming_stores_off(void);
/* Copies `bytes` from src to dst, which do not overlap. */
void copy_bytes(enum copy_method method, void *dst, const void *src, size_t bytes);

#endif /* COPIES_H */
