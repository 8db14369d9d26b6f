/* Block scanning (scan.c): the SIMD switches and the bulk scanners. */
#ifndef STAX_SCAN_H
#define STAX_SCAN_H

#include "stax_internal.h"

/* ------------------------------------------------------------- bulk scanners
 * Each returns the index of the first byte in p[0, n) that the caller must look
 * at, or n. SSE2 (baseline on x86-64) does 16 bytes a step; elsewhere the
 * byte-class table is used. Both give the same answer. */
#if defined(__SSE2__) && !defined(STAX_NO_SIMD)
#include <emmintrin.h>
#define STAX__SSE2 1
static inline unsigned stax__ctz32(unsigned m) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctz(m);
#else
    unsigned k = 0;
    while (!(m & 1u)) m >>= 1, k++;
    return k;
#endif
}
#endif

/* NEON: on every AArch64 CPU, and on 32-bit ARM when the compiler targets
 * it (-mfpu=neon: __ARM_NEON); little-endian only. A compare gives 0 or 0xFF
 * a byte; stax__neon_mask narrows it to 4 bits a byte (one instruction, where
 * x86's movemask gives 1), so the first set byte is at ctz / 4. */
#if !defined(STAX_NO_SIMD) && !defined(STAX__SSE2) && defined(__ARM_NEON) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <arm_neon.h>
#define STAX__NEON 1
static inline uint64_t stax__neon_mask(uint8x16_t m) {
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(m), 4)), 0);
}
/* The index of the first set byte of a mask that has one. */
static inline size_t stax__neon_first(uint64_t m) { return (size_t)__builtin_ctzll(m) >> 2; }
/* Bytes below 0x20 or from 0x80 (a signed compare). */
static inline uint8x16_t stax__neon_low_or_high(uint8x16_t v) {
    return vcltq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(0x20));
}
#endif

/* Wider loops (scan.c) are chosen at run time on x86-64 with GCC or clang. */
#if defined(STAX__SSE2) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define STAX__X86_DISPATCH 1
#endif

/* What the CPU offers: 0 no SIMD, 1 SSE2 (NEON on ARM), 2 AVX2, 3 AVX-512BW
 * (at most STAX_SIMD_MAX when it is defined: the tests build each level). */
STAXINT int stax__simd_level(void);

/* A text run, as stax__scan_text_run folds it in: line feeds, the index
 * after the last one, UTF-8 continuation bytes since it (or since the
 * start), and whether a byte other than SP TAB LF, or one >= 0x80, was seen. */
typedef struct stax__tscan {
    size_t lfs, line_at, cont;
    unsigned nonws, hi;
} stax__tscan;

/* From p[i] to n: the index of the first '<' '&' ']' or control other than
 * TAB and LF (CR included), or n; the bytes before it folded into *s. */
STAXINT size_t stax__scan_text_run(int level, const char *p, size_t i, size_t n, stax__tscan *s);

/* p[0, n) is valid UTF-8 of Char code points (controls aside): n, or the
 * offset of the first bad byte. */
STAXINT size_t stax__scan_utf8(int level, const char *p, size_t n);

/* Text: & ] CR, controls other than TAB and LF, and every byte >= 0x80. */
static inline size_t stax__scan_text(const char *p, size_t n) {
    size_t i = 0;
#ifdef STAX__SSE2
    const __m128i sp = _mm_set1_epi8(0x20), tab = _mm_set1_epi8(9), lf = _mm_set1_epi8(10);
    const __m128i amp = _mm_set1_epi8('&'), rb = _mm_set1_epi8(']');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i ok = _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lf));
        __m128i m = _mm_andnot_si128(ok, _mm_cmplt_epi8(v, sp)); /* signed: also >= 0x80 */
        m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, amp), _mm_cmpeq_epi8(v, rb)));
        unsigned mask = (unsigned)_mm_movemask_epi8(m);
        if (mask) return i + stax__ctz32(mask);
    }
#elif defined(STAX__NEON)
    for (; i + 16 <= n; i += 16) {
        uint8x16_t v = vld1q_u8((const uint8_t *)p + i);
        uint8x16_t ok = vorrq_u8(vceqq_u8(v, vdupq_n_u8(9)), vceqq_u8(v, vdupq_n_u8(10)));
        uint8x16_t m = vbicq_u8(stax__neon_low_or_high(v), ok);
        m = vorrq_u8(m, vorrq_u8(vceqq_u8(v, vdupq_n_u8('&')), vceqq_u8(v, vdupq_n_u8(']'))));
        uint64_t mask = stax__neon_mask(m);
        if (mask) return i + stax__neon_first(mask);
    }
#endif
    while (i < n && !(stax__class[(unsigned char)p[i]] & STAX__C_TEXT_STOP)) i++;
    return i;
}

/* Attribute values: < & TAB LF CR, other controls, bytes >= 0x80. */
static inline size_t stax__scan_attr(const char *p, size_t n) {
    size_t i = 0;
#ifdef STAX__SSE2
    const __m128i sp = _mm_set1_epi8(0x20), lt = _mm_set1_epi8('<'), amp = _mm_set1_epi8('&');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i m = _mm_or_si128(_mm_cmplt_epi8(v, sp), _mm_or_si128(_mm_cmpeq_epi8(v, lt), _mm_cmpeq_epi8(v, amp)));
        unsigned mask = (unsigned)_mm_movemask_epi8(m);
        if (mask) return i + stax__ctz32(mask);
    }
#elif defined(STAX__NEON)
    for (; i + 16 <= n; i += 16) {
        uint8x16_t v = vld1q_u8((const uint8_t *)p + i);
        uint8x16_t m = vorrq_u8(stax__neon_low_or_high(v),
                                vorrq_u8(vceqq_u8(v, vdupq_n_u8('<')), vceqq_u8(v, vdupq_n_u8('&'))));
        uint64_t mask = stax__neon_mask(m);
        if (mask) return i + stax__neon_first(mask);
    }
#endif
    while (i < n && !(stax__class[(unsigned char)p[i]] & STAX__C_AVAL)) i++;
    return i;
}

/* The first a or b. */
static inline size_t stax__scan2(const char *p, size_t n, char a, char b) {
    size_t i = 0;
#ifdef STAX__SSE2
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)));
        if (mask) return i + stax__ctz32(mask);
    }
#elif defined(STAX__NEON)
    const uint8x16_t va = vdupq_n_u8((uint8_t)a), vb = vdupq_n_u8((uint8_t)b);
    for (; i + 16 <= n; i += 16) {
        uint8x16_t v = vld1q_u8((const uint8_t *)p + i);
        uint64_t mask = stax__neon_mask(vorrq_u8(vceqq_u8(v, va), vceqq_u8(v, vb)));
        if (mask) return i + stax__neon_first(mask);
    }
#endif
    while (i < n && p[i] != a && p[i] != b) i++;
    return i;
}

/* Inside a tag: > < and both quotes. */
static inline size_t stax__scan_tag(const char *p, size_t n) {
    size_t i = 0;
#ifdef STAX__SSE2
    const __m128i gt = _mm_set1_epi8('>'), lt = _mm_set1_epi8('<');
    const __m128i dq = _mm_set1_epi8('"'), sq = _mm_set1_epi8('\'');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, gt), _mm_cmpeq_epi8(v, lt)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, dq), _mm_cmpeq_epi8(v, sq)));
        unsigned mask = (unsigned)_mm_movemask_epi8(m);
        if (mask) return i + stax__ctz32(mask);
    }
#elif defined(STAX__NEON)
    for (; i + 16 <= n; i += 16) {
        uint8x16_t v = vld1q_u8((const uint8_t *)p + i);
        uint8x16_t m = vorrq_u8(vorrq_u8(vceqq_u8(v, vdupq_n_u8('>')), vceqq_u8(v, vdupq_n_u8('<'))),
                                vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')), vceqq_u8(v, vdupq_n_u8('\''))));
        uint64_t mask = stax__neon_mask(m);
        if (mask) return i + stax__neon_first(mask);
    }
#endif
    for (; i < n; i++) {
        char c = p[i];
        if (c == '>' || c == '<' || c == '"' || c == '\'') break;
    }
    return i;
}

#endif /* STAX_SCAN_H */
