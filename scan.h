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

/* ------------------------------------------------------------- the 16-byte block
 * One block type with SSE2 and NEON behind it, so that every 16-byte kernel
 * (the scanners below, the fast path's, the writer's escaper) is written
 * once; where neither is there (STAX__V16 undefined) the kernels take their
 * byte loops. A compare gives a block of 0x00/0xFF bytes; stax__v16_mask
 * turns it into a stax__m16 with STAX__M16_BITS bits a byte (1 from SSE2's
 * movemask, 4 from NEON's narrowing shift), lowest byte first. */
#if defined(STAX__SSE2)
#define STAX__V16 1
#define STAX__M16_BITS 1
typedef __m128i stax__v16;
typedef unsigned stax__m16;
static inline stax__v16 stax__v16_load(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void stax__v16_store(void *p, stax__v16 v) { _mm_storeu_si128((__m128i *)p, v); }
static inline stax__v16 stax__v16_set(char c) { return _mm_set1_epi8(c); }
/* a[0, 8) then b[0, 8), from two 64-bit words */
static inline stax__v16 stax__v16_words(uint64_t a, uint64_t b) { return _mm_set_epi64x((long long)b, (long long)a); }
static inline stax__v16 stax__v16_eq(stax__v16 a, stax__v16 b) { return _mm_cmpeq_epi8(a, b); }
static inline stax__v16 stax__v16_or(stax__v16 a, stax__v16 b) { return _mm_or_si128(a, b); }
/* b and not a */
static inline stax__v16 stax__v16_andnot(stax__v16 a, stax__v16 b) { return _mm_andnot_si128(a, b); }
/* Bytes below 0x20 or from 0x80 (a signed compare). */
static inline stax__v16 stax__v16_low_or_high(stax__v16 v) { return _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)); }
static inline stax__m16 stax__v16_mask(stax__v16 m) { return (unsigned)_mm_movemask_epi8(m); }
/* The index of the first set byte of a mask that has one. */
static inline size_t stax__m16_first(stax__m16 m) { return stax__ctz32(m); }
#elif defined(STAX__NEON)
#define STAX__V16 1
#define STAX__M16_BITS 4
typedef uint8x16_t stax__v16;
typedef uint64_t stax__m16;
static inline stax__v16 stax__v16_load(const void *p) { return vld1q_u8((const uint8_t *)p); }
static inline void stax__v16_store(void *p, stax__v16 v) { vst1q_u8((uint8_t *)p, v); }
static inline stax__v16 stax__v16_set(char c) { return vdupq_n_u8((uint8_t)c); }
static inline stax__v16 stax__v16_words(uint64_t a, uint64_t b) {
    return vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(a), vcreate_u64(b)));
}
static inline stax__v16 stax__v16_eq(stax__v16 a, stax__v16 b) { return vceqq_u8(a, b); }
static inline stax__v16 stax__v16_or(stax__v16 a, stax__v16 b) { return vorrq_u8(a, b); }
static inline stax__v16 stax__v16_andnot(stax__v16 a, stax__v16 b) { return vbicq_u8(b, a); }
static inline stax__v16 stax__v16_low_or_high(stax__v16 v) { return stax__neon_low_or_high(v); }
static inline stax__m16 stax__v16_mask(stax__v16 m) { return stax__neon_mask(m); }
static inline size_t stax__m16_first(stax__m16 m) { return stax__neon_first(m); }
#endif
#ifdef STAX__V16
/* The mask of the first k bytes (k <= 16). */
static inline stax__m16 stax__m16_low(size_t k) {
    return k * STAX__M16_BITS >= sizeof(stax__m16) * 8 ? (stax__m16)~(stax__m16)0
                                                       : (stax__m16)(((stax__m16)1 << (k * STAX__M16_BITS)) - 1);
}
/* The first set byte of m1, else 16 + that of m2 (one of them has one). */
static inline size_t stax__m16_first2(stax__m16 m1, stax__m16 m2) {
#if STAX__M16_BITS == 1
    return stax__ctz32(m1 | m2 << 16);
#else
    return m1 ? stax__m16_first(m1) : 16 + stax__m16_first(m2);
#endif
}
/* The mask without its first k bytes: byte k becomes byte 0. */
static inline stax__m16 stax__m16_drop(stax__m16 m, size_t k) { return m >> (k * STAX__M16_BITS); }
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
#ifdef STAX__V16
    const stax__v16 tab = stax__v16_set(9), lf = stax__v16_set(10), amp = stax__v16_set('&'), rb = stax__v16_set(']');
    for (; i + 16 <= n; i += 16) {
        stax__v16 v = stax__v16_load(p + i);
        stax__v16 ok = stax__v16_or(stax__v16_eq(v, tab), stax__v16_eq(v, lf));
        stax__v16 m = stax__v16_andnot(ok, stax__v16_low_or_high(v));
        m = stax__v16_or(m, stax__v16_or(stax__v16_eq(v, amp), stax__v16_eq(v, rb)));
        stax__m16 mask = stax__v16_mask(m);
        if (mask) return i + stax__m16_first(mask);
    }
#endif
    while (i < n && !(stax__class[(unsigned char)p[i]] & STAX__C_TEXT_STOP)) i++;
    return i;
}

/* Attribute values: < & TAB LF CR, other controls, bytes >= 0x80. */
static inline size_t stax__scan_attr(const char *p, size_t n) {
    size_t i = 0;
#ifdef STAX__V16
    const stax__v16 lt = stax__v16_set('<'), amp = stax__v16_set('&');
    for (; i + 16 <= n; i += 16) {
        stax__v16 v = stax__v16_load(p + i);
        stax__v16 m = stax__v16_or(stax__v16_low_or_high(v), stax__v16_or(stax__v16_eq(v, lt), stax__v16_eq(v, amp)));
        stax__m16 mask = stax__v16_mask(m);
        if (mask) return i + stax__m16_first(mask);
    }
#endif
    while (i < n && !(stax__class[(unsigned char)p[i]] & STAX__C_AVAL)) i++;
    return i;
}

/* The first a or b. */
static inline size_t stax__scan2(const char *p, size_t n, char a, char b) {
    size_t i = 0;
#ifdef STAX__V16
    const stax__v16 va = stax__v16_set(a), vb = stax__v16_set(b);
    for (; i + 16 <= n; i += 16) {
        stax__v16 v = stax__v16_load(p + i);
        stax__m16 mask = stax__v16_mask(stax__v16_or(stax__v16_eq(v, va), stax__v16_eq(v, vb)));
        if (mask) return i + stax__m16_first(mask);
    }
#endif
    while (i < n && p[i] != a && p[i] != b) i++;
    return i;
}

/* Inside a tag: > < and both quotes. */
static inline size_t stax__scan_tag(const char *p, size_t n) {
    size_t i = 0;
#ifdef STAX__V16
    const stax__v16 gt = stax__v16_set('>'), lt = stax__v16_set('<'), dq = stax__v16_set('"'), sq = stax__v16_set('\'');
    for (; i + 16 <= n; i += 16) {
        stax__v16 v = stax__v16_load(p + i);
        stax__v16 m = stax__v16_or(stax__v16_or(stax__v16_eq(v, gt), stax__v16_eq(v, lt)),
                                   stax__v16_or(stax__v16_eq(v, dq), stax__v16_eq(v, sq)));
        stax__m16 mask = stax__v16_mask(m);
        if (mask) return i + stax__m16_first(mask);
    }
#endif
    for (; i < n; i++) {
        char c = p[i];
        if (c == '>' || c == '<' || c == '"' || c == '\'') break;
    }
    return i;
}

#endif /* STAX_SCAN_H */
