/* copies.c - plain and streaming copies; see copies.h. */
#include "copies.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define X86_STREAMING 1

/* 32-byte streaming stores; the unaligned start and end of dst go through memcpy. The sfence
 * makes the stores visible to whoever is told next that the copy is done (a DMA included). */
__attribute__((target("avx"))) static void stream_avx(char *dst, const char *src, size_t bytes)
{
    size_t head = (32 - (uintptr_t)dst % 32) % 32;
    if (head > bytes)
        head = bytes;
    memcpy(dst, src, head);
    dst += head, src += head, bytes -= head;
    for (; bytes >= 128; dst += 128, src += 128, bytes -= 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)src);
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(src + 64));
        __m256i d = _mm256_loadu_si256((const __m256i *)(src + 96));
        _mm256_stream_si256((__m256i *)dst, a);
        _mm256_stream_si256((__m256i *)(dst + 32), b);
        _mm256_stream_si256((__m256i *)(dst + 64), c);
        _mm256_stream_si256((__m256i *)(dst + 96), d);
    }
    for (; bytes >= 32; dst += 32, src += 32, bytes -= 32)
        _mm256_stream_si256((__m256i *)dst, _mm256_loadu_si256((const __m256i *)src));
    memcpy(dst, src, bytes);
    _mm_sfence();
}
#endif

static bool turned_off;

const char *streaming_stores(void)
{
#ifdef X86_STREAMING
    if (!turned_off && __builtin_cpu_supports("avx"))
        return "AVX";
#endif
    return NULL;
}

void streaming_stores_off(void)
{
    turned_off = true;
}

void copy_bytes(enum copy_method method, void *dst, const void *src, size_t bytes)
{
#ifdef X86_STREAMING
    if (method == STREAMING_COPY && streaming_stores()) {
        stream_avx(dst, src, bytes);
        return;
    }
#endif
    (void)method;
    memcpy(dst, src, bytes);
}
