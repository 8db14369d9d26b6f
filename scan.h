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
static inline stax__v16 stax__v16_and(stax__v16 a, stax__v16 b) { return _mm_and_si128(a, b); }
/* a < b as signed bytes: bytes from 0x80 are below every ASCII byte. */
static inline stax__v16 stax__v16_lt(stax__v16 a, stax__v16 b) { return _mm_cmpgt_epi8(b, a); }
/* lo <= v <= hi, for ASCII bounds 0 < lo <= hi < 0x7F. */
static inline stax__v16 stax__v16_in(stax__v16 v, char lo, char hi) {
    return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)(lo - 1))), _mm_cmplt_epi8(v, _mm_set1_epi8((char)(hi + 1))));
}
static inline stax__m16 stax__v16_mask(stax__v16 m) { return (unsigned)_mm_movemask_epi8(m); }
/* The mask of the bytes from 0x80. */
static inline stax__m16 stax__v16_high(stax__v16 v) { return (unsigned)_mm_movemask_epi8(v); }
/* The mask of the bytes with bit 6 set (a 16-bit shift moves each byte's bit 6 to its bit 7). */
static inline stax__m16 stax__v16_bit6(stax__v16 v) { return (unsigned)_mm_movemask_epi8(_mm_slli_epi16(v, 1)); }
/* The index of the first set byte of a mask that has one. */
static inline size_t stax__m16_first(stax__m16 m) { return stax__ctz32(m); }
/* The index of the last set byte of a mask that has one. */
static inline size_t stax__m16_last(stax__m16 m) { return 31u - (unsigned)__builtin_clz(m); }
/* Set bytes (SSE2 has no popcount instruction: the bits are added in pairs,
 * nibbles, then bytes). */
static inline size_t stax__m16_count(stax__m16 m) {
    m = m - ((m >> 1) & 0x5555u);
    m = (m & 0x3333u) + ((m >> 2) & 0x3333u);
    m = (m + (m >> 4)) & 0x0F0Fu;
    return (m + (m >> 8)) & 0x1Fu;
}
/* The 16 UTF-16 units at s (32 bytes; be: big-endian) when all are ASCII:
 * their low bytes written to o[0, 16), 1; 0 otherwise (o[0, 16) may have
 * been written: the caller has the room). */
static inline int stax__v16_utf16_ascii(const unsigned char *s, int be, unsigned char *o) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    if (be) {
        a = _mm_or_si128(_mm_slli_epi16(a, 8), _mm_srli_epi16(a, 8));
        b = _mm_or_si128(_mm_slli_epi16(b, 8), _mm_srli_epi16(b, 8));
    }
    __m128i hi = _mm_and_si128(_mm_or_si128(a, b), _mm_set1_epi16((short)0xFF80));
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(hi, _mm_setzero_si128())) != 0xFFFF) return 0;
    _mm_storeu_si128((__m128i *)(void *)o, _mm_packus_epi16(a, b));
    return 1;
}
/* How many of the 16 UTF-16 units at s are ASCII before the first that is
 * not (16: all), their low bytes written to o[0, 16) (after the run, bytes
 * of no meaning). */
static inline size_t stax__v16_utf16_ascii_run(const unsigned char *s, int be, unsigned char *o) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    if (be) {
        a = _mm_or_si128(_mm_slli_epi16(a, 8), _mm_srli_epi16(a, 8));
        b = _mm_or_si128(_mm_slli_epi16(b, 8), _mm_srli_epi16(b, 8));
    }
    const __m128i high = _mm_set1_epi16((short)0xFF80), zero = _mm_setzero_si128();
    __m128i ascii = _mm_packs_epi16(_mm_cmpeq_epi16(_mm_and_si128(a, high), zero),
                                    _mm_cmpeq_epi16(_mm_and_si128(b, high), zero)); /* a byte a unit */
    _mm_storeu_si128((__m128i *)(void *)o, _mm_packus_epi16(a, b));
    return stax__ctz32(~(unsigned)_mm_movemask_epi8(ascii)); /* (bit 16 is clear: 16 when all are) */
}
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
static inline stax__v16 stax__v16_and(stax__v16 a, stax__v16 b) { return vandq_u8(a, b); }
static inline stax__v16 stax__v16_lt(stax__v16 a, stax__v16 b) {
    return vcltq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b));
}
static inline stax__v16 stax__v16_in(stax__v16 v, char lo, char hi) {
    return vcltq_u8(vsubq_u8(v, vdupq_n_u8((uint8_t)lo)), vdupq_n_u8((uint8_t)(hi - lo + 1)));
}
static inline stax__m16 stax__v16_mask(stax__v16 m) { return stax__neon_mask(m); }
static inline stax__m16 stax__v16_high(stax__v16 v) { return stax__neon_mask(vcltq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(0))); }
static inline stax__m16 stax__v16_bit6(stax__v16 v) { return stax__neon_mask(vtstq_u8(v, vdupq_n_u8(0x40))); }
static inline size_t stax__m16_first(stax__m16 m) { return (size_t)__builtin_ctzll(m) >> 2; }
static inline size_t stax__m16_last(stax__m16 m) { return (63u - (unsigned)__builtin_clzll(m)) >> 2; }
static inline size_t stax__m16_count(stax__m16 m) { return (size_t)__builtin_popcountll(m) >> 2; }
static inline size_t stax__v16_utf16_ascii_run(const unsigned char *s, int be, unsigned char *o) {
    uint8x16x2_t u = vld2q_u8(s); /* the even bytes, the odd bytes */
    uint8x16_t lo = be ? u.val[1] : u.val[0], hi = be ? u.val[0] : u.val[1];
    uint64_t other = stax__neon_mask(vtstq_u8(vorrq_u8(hi, vandq_u8(lo, vdupq_n_u8(0x80))), vdupq_n_u8(0xFF)));
    vst1q_u8(o, lo);
    return other ? (size_t)__builtin_ctzll(other) >> 2 : 16;
}
/* (NEON: one load takes the low bytes apart, so the all-ASCII test is the
 * run's, and o is written either way.) */
static inline int stax__v16_utf16_ascii(const unsigned char *s, int be, unsigned char *o) {
    return stax__v16_utf16_ascii_run(s, be, o) == 16;
}
#ifdef __aarch64__
/* What UTF-8 validation by blocks needs (scan.c): a 16-entry table looked
 * up by each byte's value (0..15), a byte shift by 4 (shr4n, which takes
 * the 0x0F block that x86 needs), a saturating subtract, the block shifted
 * by k bytes with the end of the one before it coming in, and whether any
 * byte is set. AArch64 has TBL for the lookup. */
#define STAX__V16_TBL 1
static inline stax__v16 stax__v16_table(const unsigned char *t) { return vld1q_u8(t); }
static inline stax__v16 stax__v16_tbl(stax__v16 t, stax__v16 i) { return vqtbl1q_u8(t, i); }
static inline stax__v16 stax__v16_shr4n(stax__v16 v, stax__v16 nib) { (void)nib; return vshrq_n_u8(v, 4); }
static inline stax__v16 stax__v16_xor(stax__v16 a, stax__v16 b) { return veorq_u8(a, b); }
static inline stax__v16 stax__v16_subs(stax__v16 a, stax__v16 b) { return vqsubq_u8(a, b); }
#define stax__v16_prev(cur, prev, k) vextq_u8((prev), (cur), 16 - (k))
static inline int stax__v16_any(stax__v16 v) { return vmaxvq_u8(v) != 0; }
#endif
#endif
#ifdef STAX__V16
/* Bytes below 0x20 or from 0x80. */
static inline stax__v16 stax__v16_low_or_high(stax__v16 v) { return stax__v16_lt(v, stax__v16_set(0x20)); }
/* v, made in a register before a loop and kept there: GCC makes a constant
 * block again (three instructions) wherever a branch of the loop uses it,
 * rather than keep it live across the branches; an empty asm that may
 * change it makes it a value to keep. */
static inline stax__v16 stax__v16_keep(stax__v16 v) {
#if defined(__GNUC__) || defined(__clang__)
#if defined(STAX__SSE2)
    __asm__("" : "+x"(v));
#else
    __asm__("" : "+w"(v));
#endif
#endif
    return v;
}
/* The text's marks < & ] (scan.c's text runs), by three compares; the
 * wider blocks look them up by their low nibble at once. */
static inline stax__v16 stax__v16_marks_init(void) { return stax__v16_set(0); }
static inline stax__v16 stax__v16_marks(stax__v16 v, stax__v16 unused) {
    (void)unused;
    return stax__v16_or(stax__v16_eq(v, stax__v16_set('<')), stax__v16_or(stax__v16_eq(v, stax__v16_set('&')), stax__v16_eq(v, stax__v16_set(']'))));
}
/* The mask of the first k bytes (k <= 16). */
static inline stax__m16 stax__m16_low(size_t k) {
#if STAX__M16_BITS == 1
    return (stax__m16)(((uint64_t)1 << k) - 1);
#else
    return k * STAX__M16_BITS >= 64 ? ~(stax__m16)0 : (stax__m16)(((stax__m16)1 << (k * STAX__M16_BITS)) - 1);
#endif
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

/* Length of the run of bytes < 0x80 at the start of p[0, n): by blocks, or
 * by 8-byte words without them. */
static inline size_t stax__ascii_run(const unsigned char *p, size_t n) {
    size_t i = 0;
#ifdef STAX__V16
    for (; i + 16 <= n; i += 16) {
        stax__m16 m = stax__v16_high(stax__v16_load(p + i));
        if (m) return i + stax__m16_first(m);
    }
#else
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w & 0x8080808080808080ULL) break;
    }
#endif
    while (i < n && p[i] < 0x80) i++;
    return i;
}

/* Wider loops (scan.c) are chosen at run time on x86-64 with GCC or clang. */
#if defined(STAX__SSE2) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define STAX__X86_DISPATCH 1
#endif

/* ------------------------------------------------------------- wider blocks
 * The same operations on 32 bytes (AVX2) and 64 (AVX-512BW), for the loops
 * that scan.c picks at run time: each function is compiled for its
 * instruction set alone (STAX__T32, STAX__T64), so a caller must be too. A
 * compare gives a stax__p32 (a block of 0x00/0xFF bytes) or a stax__p64 (a
 * mask register); _or and _andnot combine those, _mask gives one bit a byte.
 * With stax__p16 (a stax__v16), the 16-byte block has the same interface, so
 * one kernel (scan.c) is written for all three. */
#ifdef STAX__V16
typedef stax__v16 stax__p16;
#endif
#if defined(STAX__X86_DISPATCH)
#include <immintrin.h>
#define STAX__T32 __attribute__((target("avx2,popcnt,bmi")))
#define STAX__T64 __attribute__((target("avx512f,avx512bw,popcnt,bmi")))
typedef __m256i stax__v32;
typedef __m256i stax__p32;
typedef uint32_t stax__m32;
STAX__T32 static inline stax__v32 stax__v32_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
STAX__T32 static inline stax__v32 stax__v32_set(char c) { return _mm256_set1_epi8(c); }
STAX__T32 static inline stax__v32 stax__v32_keep(stax__v32 v) { __asm__("" : "+x"(v)); return v; } /* as stax__v16_keep */
STAX__T32 static inline stax__p32 stax__v32_eq(stax__v32 a, stax__v32 b) { return _mm256_cmpeq_epi8(a, b); }
STAX__T32 static inline stax__p32 stax__v32_lt(stax__v32 a, stax__v32 b) { return _mm256_cmpgt_epi8(b, a); }
STAX__T32 static inline stax__p32 stax__v32_or(stax__p32 a, stax__p32 b) { return _mm256_or_si256(a, b); }
STAX__T32 static inline stax__p32 stax__v32_andnot(stax__p32 a, stax__p32 b) { return _mm256_andnot_si256(a, b); }
STAX__T32 static inline stax__m32 stax__v32_mask(stax__p32 m) { return (uint32_t)_mm256_movemask_epi8(m); }
STAX__T32 static inline stax__m32 stax__v32_high(stax__v32 v) { return (uint32_t)_mm256_movemask_epi8(v); }
STAX__T32 static inline stax__m32 stax__v32_bit6(stax__v32 v) { return (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(v, 1)); }
STAX__T32 static inline size_t stax__m32_first(stax__m32 m) { return (size_t)__builtin_ctz(m); }
STAX__T32 static inline size_t stax__m32_last(stax__m32 m) { return 31u - (unsigned)__builtin_clz(m); }
STAX__T32 static inline size_t stax__m32_count(stax__m32 m) { return (size_t)__builtin_popcount(m); }
STAX__T32 static inline stax__p32 stax__v32_and(stax__p32 a, stax__p32 b) { return _mm256_and_si256(a, b); }
STAX__T32 static inline stax__v32 stax__v32_table(const unsigned char *t) {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)t));
}
STAX__T32 static inline stax__v32 stax__v32_tbl(stax__v32 t, stax__v32 i) { return _mm256_shuffle_epi8(t, i); }
/* v >> 4 by bytes, with the 0x0F block given (kept in a register by the caller) */
STAX__T32 static inline stax__v32 stax__v32_shr4n(stax__v32 v, stax__v32 nib) { return _mm256_and_si256(_mm256_srli_epi16(v, 4), nib); }
/* The marks < & ]: a byte equal to the entry of its low nibble in a table
 * that holds each of them at its own (6, C, D) and 0xFF elsewhere (a byte
 * from 0x80 looks up 0). */
STAX__T32 static inline stax__v32 stax__v32_marks_init(void) {
    return _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, '&', -1, -1, -1, -1, -1, '<', ']', -1, -1, -1, -1, -1, -1, -1, -1,
                            '&', -1, -1, -1, -1, -1, '<', ']', -1, -1);
}
STAX__T32 static inline stax__p32 stax__v32_marks(stax__v32 v, stax__v32 t) { return _mm256_cmpeq_epi8(_mm256_shuffle_epi8(t, v), v); }
STAX__T32 static inline stax__v32 stax__v32_xor(stax__v32 a, stax__v32 b) { return _mm256_xor_si256(a, b); }
STAX__T32 static inline stax__v32 stax__v32_subs(stax__v32 a, stax__v32 b) { return _mm256_subs_epu8(a, b); }
/* The 32 bytes that end k bytes before the end of cur (k: 1, 2 or 3). */
#define stax__v32_prev(cur, prev, k) _mm256_alignr_epi8((cur), _mm256_permute2x128_si256((prev), (cur), 0x21), 16 - (k))
STAX__T32 static inline int stax__v32_any(stax__v32 v) { return !_mm256_testz_si256(v, v); }
STAX__T32 static inline stax__m32 stax__m32_low(size_t k) { return (stax__m32)(((uint64_t)1 << k) - 1); } /* k <= 32 */

typedef __m512i stax__v64;
typedef __mmask64 stax__p64;
typedef uint64_t stax__m64;
STAX__T64 static inline stax__v64 stax__v64_load(const void *p) { return _mm512_loadu_si512(p); }
STAX__T64 static inline stax__v64 stax__v64_set(char c) { return _mm512_set1_epi8(c); }
STAX__T64 static inline stax__v64 stax__v64_keep(stax__v64 v) { __asm__("" : "+v"(v)); return v; } /* as stax__v16_keep */
STAX__T64 static inline stax__p64 stax__v64_eq(stax__v64 a, stax__v64 b) { return _mm512_cmpeq_epi8_mask(a, b); }
STAX__T64 static inline stax__p64 stax__v64_lt(stax__v64 a, stax__v64 b) { return _mm512_cmplt_epi8_mask(a, b); }
STAX__T64 static inline stax__p64 stax__v64_or(stax__p64 a, stax__p64 b) { return a | b; }
STAX__T64 static inline stax__p64 stax__v64_andnot(stax__p64 a, stax__p64 b) { return b & ~a; }
STAX__T64 static inline stax__m64 stax__v64_mask(stax__p64 m) { return (stax__m64)m; }
STAX__T64 static inline stax__m64 stax__v64_high(stax__v64 v) { return (stax__m64)_mm512_movepi8_mask(v); }
STAX__T64 static inline stax__m64 stax__v64_bit6(stax__v64 v) { return (stax__m64)_mm512_movepi8_mask(_mm512_slli_epi16(v, 1)); }
STAX__T64 static inline size_t stax__m64_first(stax__m64 m) { return (size_t)__builtin_ctzll(m); }
STAX__T64 static inline size_t stax__m64_last(stax__m64 m) { return 63u - (unsigned)__builtin_clzll(m); }
STAX__T64 static inline size_t stax__m64_count(stax__m64 m) { return (size_t)__builtin_popcountll(m); }
STAX__T64 static inline stax__v64 stax__v64_marks_init(void) {
    /* the same 16 bytes in each lane, as four little-endian words (_mm512_broadcast_i32x4 of the 16-byte
     * table makes g++ 12 warn of an uninitialized value inside the intrinsic) */
    return _mm512_set4_epi32((int)0xFFFF5D3Cu, -1, (int)0xFF26FFFFu, -1);
}
STAX__T64 static inline stax__p64 stax__v64_marks(stax__v64 v, stax__v64 t) { return _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(t, v), v); }
STAX__T64 static inline stax__m64 stax__m64_low(size_t k) { return k >= 64 ? ~(stax__m64)0 : ((stax__m64)1 << k) - 1; }
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

/* The same run at one level, chosen once (a reader keeps it in its
 * configuration): the fast path calls it for every text longer than a
 * block, and the choice by level cost 9 instructions a call. */
typedef size_t (*stax__text_run_fn)(const char *p, size_t i, size_t n, stax__tscan *s);
STAXINT stax__text_run_fn stax__scan_text_run_at(int level);

/* p[0, n) is valid UTF-8 of Char code points (controls aside): n, or the
 * offset of the first bad byte. room (>= n) is how many bytes from p may be
 * read; where it is more than n, p[n] must be ASCII (the text's stop), so
 * that the last block can be read in place. */
STAXINT size_t stax__scan_utf8(int level, const char *p, size_t n, size_t room);

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
