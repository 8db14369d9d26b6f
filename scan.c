/* Block scanning: the reader's wide loops over its input (scan_ prefix for
 * file-local names).
 *
 * A text run is classified in blocks of 16, 32 or 64 bytes at once (SSE2, the
 * x86-64 baseline; AVX2 and AVX-512BW when the CPU has them, chosen when a
 * reader is created): a bitmask per class of byte, and the answers come from
 * the masks (the first stop from a trailing-zero count, lines and UTF-8
 * continuation bytes from population counts). UTF-8 is validated by blocks
 * too, with the nibble-lookup method of Keiser and Lemire on AVX2. Every
 * routine has a portable version that gives the same answers, used without
 * SIMD (STAX_NO_SIMD, other CPUs) and tested in `make test-clang`. */
#include "scan.h"

#if defined(STAX__X86_DISPATCH)
#include <immintrin.h>
#endif

/* ================================================================ CPU */

int stax__simd_level(void) {
#if defined(STAX__X86_DISPATCH)
    int level = 1;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi"))
        level = 2;
    if (level == 2 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f")) level = 3;
#ifdef STAX_SIMD_MAX
    if (level > STAX_SIMD_MAX) level = STAX_SIMD_MAX;
#endif
    return level;
#elif defined(STAX__SSE2) || defined(STAX__NEON)
    return 1;
#else
    return 0;
#endif
}

/* ================================================================ text runs */

/* The portable scan, byte by byte: the reference the others must agree with. */
static size_t scan_text_portable(const char *p, size_t i, size_t n, stax__tscan *s) {
    for (; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x80 && (stax__class[c] & STAX__C_TEXT_STOP) && c != '<') return i; /* & ] CR, controls */
        if (c == '<') return i;
        if (c == '\n') {
            s->lfs++;
            s->line_at = i + 1;
            s->cont = 0;
        } else if (c >= 0x80) {
            s->hi = 1;
            s->cont += (c & 0xC0) == 0x80;
        }
        s->nonws |= !(c == ' ' || c == '\t' || c == '\n');
    }
    return n;
}

#if defined(STAX__X86_DISPATCH) || defined(STAX__NEON)

/* Fold one block's masks (W bits a byte: bit W*k for byte at + k) into s, up
 * to the stop: line feeds, continuation bytes after the last one, high bytes,
 * and (until one is seen) bytes other than SP TAB LF. */
#define SCAN_FOLD(POP, W, mstop, mlf, mws_fn, mhi, mcont_fn, at)                                                 \
    do {                                                                                                        \
        uint64_t below_ = (mstop) ? ((mstop) & (0 - (mstop))) - 1 : ~(uint64_t)0;                                \
        uint64_t lf_ = (mlf) & below_, hi_ = (mhi) & below_;                                                    \
        if (!s->nonws) s->nonws = (~(mws_fn) & below_) != 0;                                                     \
        if (hi_) s->hi = 1;                                                                                     \
        if (lf_) {                                                                                              \
            unsigned last_ = (63u - (unsigned)__builtin_clzll(lf_)) / (W);                                      \
            s->lfs += POP(lf_) / (W);                                                                            \
            s->line_at = (at) + last_ + 1;                                                                       \
            s->cont = 0;                                                                                        \
            if (hi_ && (W) * (last_ + 1) < 64)                                                                  \
                s->cont = POP((mcont_fn) & below_ & (~(uint64_t)0 << ((W) * (last_ + 1)))) / (W);                \
        } else if (hi_) {                                                                                       \
            s->cont += POP((mcont_fn) & below_) / (W);                                                          \
        }                                                                                                       \
    } while (0)

#endif

#if defined(STAX__X86_DISPATCH)

static unsigned scan_pop_sse2(uint64_t m) { /* without a popcount instruction */
    m = m - ((m >> 1) & 0x5555555555555555u);
    m = (m & 0x3333333333333333u) + ((m >> 2) & 0x3333333333333333u);
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0Fu;
    return (unsigned)((m * 0x0101010101010101u) >> 56);
}

/* The masks of one block, from byte compares: the stops (< & ] and controls
 * but TAB and LF) come from "below 0x20" with the sign bits (bytes >= 0x80)
 * and TAB and LF taken out; the sign bits come free with movemask. */
static size_t scan_text_sse2(const char *p, size_t i, size_t n, stax__tscan *s) {
    const __m128i sp = _mm_set1_epi8(0x20), tab = _mm_set1_epi8(9), lf = _mm_set1_epi8(10);
    const __m128i amp = _mm_set1_epi8('&'), rb = _mm_set1_epi8(']'), lt = _mm_set1_epi8('<');
    const __m128i c0 = _mm_set1_epi8((char)0xC0);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        uint64_t mlf = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, lf));
        uint64_t mtab = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, tab));
        uint64_t mhi = (unsigned)_mm_movemask_epi8(v);
        uint64_t mlow = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, sp));
        uint64_t mmark = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, lt), _mm_cmpeq_epi8(v, amp)),
                                                                  _mm_cmpeq_epi8(v, rb)));
        uint64_t mstop = mmark | (mlow & ~(mhi | mtab | mlf));
        SCAN_FOLD(scan_pop_sse2, 1, mstop, mlf, ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, sp)) | mtab | mlf | ~0xFFFFull),
                  mhi, (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, c0)), i);
        if (mstop) return i + (size_t)__builtin_ctzll(mstop);
    }
    return scan_text_portable(p, i, n, s);
}

__attribute__((target("avx2,popcnt,bmi"))) static size_t scan_text_avx2(const char *p, size_t i, size_t n,
                                                                           stax__tscan *s) {
    const __m256i sp = _mm256_set1_epi8(0x20), tab = _mm256_set1_epi8(9), lf = _mm256_set1_epi8(10);
    const __m256i amp = _mm256_set1_epi8('&'), rb = _mm256_set1_epi8(']'), lt = _mm256_set1_epi8('<');
    const __m256i c0 = _mm256_set1_epi8((char)0xC0);
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
        uint64_t mlf = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, lf));
        uint64_t mtab = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, tab));
        uint64_t mhi = (uint32_t)_mm256_movemask_epi8(v);
        uint64_t mlow = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(sp, v));
        uint64_t mmark = (uint32_t)_mm256_movemask_epi8(
            _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, lt), _mm256_cmpeq_epi8(v, amp)), _mm256_cmpeq_epi8(v, rb)));
        uint64_t mstop = mmark | (mlow & ~(mhi | mtab | mlf));
        SCAN_FOLD(__builtin_popcountll, 1, mstop, mlf,
                  ((uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, sp)) | mtab | mlf | ~0xFFFFFFFFull), mhi,
                  (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(c0, v)), i);
        if (mstop) return i + (size_t)__builtin_ctzll(mstop);
    }
    return scan_text_sse2(p, i, n, s);
}

__attribute__((target("avx512f,avx512bw,popcnt,bmi"))) static size_t scan_text_avx512(const char *p, size_t i,
                                                                                        size_t n, stax__tscan *s) {
    const __m512i sp = _mm512_set1_epi8(0x20), tab = _mm512_set1_epi8(9), lf = _mm512_set1_epi8(10);
    const __m512i amp = _mm512_set1_epi8('&'), rb = _mm512_set1_epi8(']'), lt = _mm512_set1_epi8('<');
    const __m512i c0 = _mm512_set1_epi8((char)0xC0);
    for (; i + 64 <= n; i += 64) {
        __m512i v = _mm512_loadu_si512((const void *)(p + i));
        uint64_t mlf = _mm512_cmpeq_epi8_mask(v, lf), mtab = _mm512_cmpeq_epi8_mask(v, tab);
        uint64_t mhi = _mm512_movepi8_mask(v), mlow = _mm512_cmplt_epi8_mask(v, sp);
        uint64_t mstop = _mm512_cmpeq_epi8_mask(v, lt) | _mm512_cmpeq_epi8_mask(v, amp) |
                         _mm512_cmpeq_epi8_mask(v, rb) | (mlow & ~(mhi | mtab | mlf));
        SCAN_FOLD(__builtin_popcountll, 1, mstop, mlf, (_mm512_cmpeq_epi8_mask(v, sp) | mtab | mlf), mhi,
                  _mm512_cmplt_epi8_mask(v, c0), i);
        if (mstop) return i + (size_t)__builtin_ctzll(mstop);
    }
    return scan_text_avx2(p, i, n, s);
}

#endif /* STAX__X86_DISPATCH */

#if defined(STAX__NEON)

/* The SSE2 loop's masks, 4 bits a byte (stax__neon_mask). */
static size_t scan_text_neon(const char *p, size_t i, size_t n, stax__tscan *s) {
    const uint8x16_t sp = vdupq_n_u8(0x20), tab = vdupq_n_u8(9), lf = vdupq_n_u8(10);
    const uint8x16_t amp = vdupq_n_u8('&'), rb = vdupq_n_u8(']'), lt = vdupq_n_u8('<');
    for (; i + 16 <= n; i += 16) {
        uint8x16_t v = vld1q_u8((const uint8_t *)p + i);
        uint8x16_t is_lf = vceqq_u8(v, lf), is_tab = vceqq_u8(v, tab);
        uint8x16_t ctl = vbicq_u8(vcltq_u8(v, sp), vorrq_u8(is_lf, is_tab)); /* controls but TAB LF */
        uint64_t mstop =
            stax__neon_mask(vorrq_u8(ctl, vorrq_u8(vceqq_u8(v, lt), vorrq_u8(vceqq_u8(v, amp), vceqq_u8(v, rb)))));
        uint64_t mlf = stax__neon_mask(is_lf);
        uint64_t mhi = stax__neon_mask(vcltq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(0)));
        SCAN_FOLD(__builtin_popcountll, 4, mstop, mlf, stax__neon_mask(vorrq_u8(vorrq_u8(vceqq_u8(v, sp), is_tab), is_lf)),
                  mhi, stax__neon_mask(vceqq_u8(vandq_u8(v, vdupq_n_u8(0xC0)), vdupq_n_u8(0x80))), i);
        if (mstop) return i + stax__neon_first(mstop);
    }
    return scan_text_portable(p, i, n, s);
}

#endif /* STAX__NEON */

size_t stax__scan_text_run(int level, const char *p, size_t i, size_t n, stax__tscan *s) {
#if defined(STAX__X86_DISPATCH)
    if (level >= 3) return scan_text_avx512(p, i, n, s);
    if (level == 2) return scan_text_avx2(p, i, n, s);
    if (level == 1) return scan_text_sse2(p, i, n, s);
#elif defined(STAX__NEON)
    if (level >= 1) return scan_text_neon(p, i, n, s);
#endif
    (void)level;
    return scan_text_portable(p, i, n, s);
}

/* ================================================================ UTF-8 and Char */

/* The portable check: valid UTF-8 of Char code points (controls aside: the
 * text scan stops at them). Returns n, or the offset of the first bad byte. */
static size_t scan_utf8_portable(const char *p, size_t n) {
    const unsigned char *u = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        int l = stax__utf8_decode(u + i, n - i, &cp);
        if (l <= 0 || !stax__is_char(cp)) return i;
        i += (size_t)l;
    }
    return n;
}

#if defined(STAX__X86_DISPATCH) || (defined(STAX__NEON) && defined(__aarch64__))
#define SCAN_U8_TABLES 1

/* Keiser and Lemire, "Validating UTF-8 In Less Than One Instruction Per
 * Byte" (2021): each pair of adjacent bytes is looked up by three nibbles
 * (high and low of the first, high of the second) in tables of the error
 * kinds it can start; the kinds the three agree on are errors, except that a
 * continuation is expected as the third or fourth byte of a long sequence.
 * Here: the error kinds, one bit each. */
enum {
    U8_TOO_SHORT = 1 << 0,  /* a lead byte not followed by a continuation */
    U8_TOO_LONG = 1 << 1,   /* ASCII followed by a continuation */
    U8_OVERLONG_3 = 1 << 2, /* E0 80..9F */
    U8_TOO_LARGE = 1 << 3,  /* above U+10FFFF */
    U8_SURROGATE = 1 << 4,  /* ED A0..BF */
    U8_OVERLONG_2 = 1 << 5, /* C0, C1 */
    U8_TOO_LARGE_1000 = 1 << 6,
    U8_OVERLONG_4 = 1 << 6, /* F0 80..8F */
    U8_TWO_CONTS = 1 << 7   /* two continuations in a row */
};
#define U8_CARRY (U8_TOO_SHORT | U8_TOO_LONG | U8_TWO_CONTS)

#endif

#if defined(STAX__X86_DISPATCH)
__attribute__((target("avx2"), always_inline)) static inline __m256i scan_u8_prev(__m256i cur, __m256i prev, int k) {
    __m256i t = _mm256_permute2x128_si256(prev, cur, 0x21);
    switch (k) {
    case 1: return _mm256_alignr_epi8(cur, t, 15);
    case 2: return _mm256_alignr_epi8(cur, t, 14);
    default: return _mm256_alignr_epi8(cur, t, 13);
    }
}

#endif

#if defined(SCAN_U8_TABLES)
/* The three tables, by nibble. */
static const unsigned char u8_byte1_high[16] = {
    U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG,
    U8_TWO_CONTS, U8_TWO_CONTS, U8_TWO_CONTS, U8_TWO_CONTS, U8_TOO_SHORT | U8_OVERLONG_2, U8_TOO_SHORT,
    U8_TOO_SHORT | U8_OVERLONG_3 | U8_SURROGATE, U8_TOO_SHORT | U8_TOO_LARGE | U8_TOO_LARGE_1000 | U8_OVERLONG_4};
#define U8_LARGE (U8_CARRY | U8_TOO_LARGE | U8_TOO_LARGE_1000)
static const unsigned char u8_byte1_low[16] = {
    U8_CARRY | U8_OVERLONG_3 | U8_OVERLONG_2 | U8_OVERLONG_4, U8_CARRY | U8_OVERLONG_2, U8_CARRY, U8_CARRY,
    U8_CARRY | U8_TOO_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE,
    U8_LARGE | U8_SURROGATE, U8_LARGE, U8_LARGE};
static const unsigned char u8_byte2_high[16] = {
    U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT,
    U8_TOO_LONG | U8_OVERLONG_2 | U8_TWO_CONTS | U8_OVERLONG_3 | U8_TOO_LARGE_1000 | U8_OVERLONG_4,
    U8_TOO_LONG | U8_OVERLONG_2 | U8_TWO_CONTS | U8_OVERLONG_3 | U8_TOO_LARGE,
    U8_TOO_LONG | U8_OVERLONG_2 | U8_TWO_CONTS | U8_SURROGATE | U8_TOO_LARGE,
    U8_TOO_LONG | U8_OVERLONG_2 | U8_TWO_CONTS | U8_SURROGATE | U8_TOO_LARGE,
    U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT};

#endif

#if defined(SCAN_U8_TABLES)
static size_t scan_utf8_rest(const char *p, size_t i, size_t n);
#endif

#if defined(STAX__X86_DISPATCH)
__attribute__((target("avx2"), always_inline)) static inline __m256i scan_u8_table(const unsigned char *t) {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)t));
}

/* The errors of block cur (prev: the block before it). */
__attribute__((target("avx2"), always_inline)) static inline __m256i scan_u8_block(__m256i cur, __m256i prev) {
    const __m256i b1h = scan_u8_table(u8_byte1_high), b1l = scan_u8_table(u8_byte1_low);
    const __m256i b2h = scan_u8_table(u8_byte2_high);
    const __m256i nib = _mm256_set1_epi8(0x0F);
    __m256i prev1 = scan_u8_prev(cur, prev, 1);
    __m256i hi1 = _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nib);
    __m256i lo1 = _mm256_and_si256(prev1, nib);
    __m256i hi2 = _mm256_and_si256(_mm256_srli_epi16(cur, 4), nib);
    __m256i sc = _mm256_and_si256(_mm256_and_si256(_mm256_shuffle_epi8(b1h, hi1), _mm256_shuffle_epi8(b1l, lo1)),
                                  _mm256_shuffle_epi8(b2h, hi2));
    /* the third and fourth bytes of long sequences: a continuation is expected */
    __m256i prev2 = scan_u8_prev(cur, prev, 2), prev3 = scan_u8_prev(cur, prev, 3);
    __m256i third = _mm256_subs_epu8(prev2, _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    __m256i err = _mm256_xor_si256(must, sc);
    /* U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not Chars. After an EF
     * lead both bytes are continuations (80..BF) or err already says so, and
     * of those only BF, and BE or BF, have every bit of BF set. */
    __m256i nonchar = _mm256_and_si256(
        _mm256_cmpeq_epi8(prev2, _mm256_set1_epi8((char)0xEF)),
        _mm256_cmpeq_epi8(_mm256_and_si256(prev1, _mm256_or_si256(cur, _mm256_set1_epi8(1))), _mm256_set1_epi8((char)0xBF)));
    return _mm256_or_si256(err, nonchar);
}

/* Blocks of 32 with AVX2. The tail (under 32 bytes, or none) is checked as
 * one more block, copied into zeros: a sequence the end cuts then reads as
 * too short, as it is. From the block of the first error on, byte by byte,
 * to give the offset of the first bad byte exactly as the portable check
 * does. */
__attribute__((target("avx2"))) static size_t scan_utf8_avx2(const char *p, size_t n) {
    __m256i prev = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i cur = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
        if (!_mm256_movemask_epi8(cur) && !_mm256_movemask_epi8(prev)) { /* ASCII, after ASCII */
            prev = cur;
            continue;
        }
        __m256i err = scan_u8_block(cur, prev);
        if (!_mm256_testz_si256(err, err)) break;
        prev = cur;
    }
    if (i + 32 > n) { /* the tail */
        unsigned char tail[32] = {0};
        memcpy(tail, p + i, n - i);
        __m256i cur = _mm256_loadu_si256((const __m256i *)(const void *)tail);
        __m256i err = scan_u8_block(cur, prev);
        if (_mm256_testz_si256(err, err)) return n;
    }
    return scan_utf8_rest(p, i, n);
}

#endif /* STAX__X86_DISPATCH */

/* From the block of the first error on (or the tail), byte by byte, from the
 * start of a sequence that i may cut (a lead in the 3 bytes before it), to
 * give the offset of the first bad byte exactly as the portable check does. */
#if defined(SCAN_U8_TABLES)
static size_t scan_utf8_rest(const char *p, size_t i, size_t n) {
    size_t back = i;
    for (size_t k = i; k > 0 && i - k < 3;) {
        unsigned char c = (unsigned char)p[--k];
        if (c >= 0xC0) {
            back = k;
            break;
        }
        if (c < 0x80) break;
    }
    return back + scan_utf8_portable(p + back, n - back);
}
#endif

#if defined(STAX__NEON) && defined(__aarch64__)

/* The AVX2 method on 16 bytes: the table lookups are TBL instructions. */
static inline uint8x16_t scan_u8_block_neon(uint8x16_t cur, uint8x16_t prev) {
    const uint8x16_t b1h = vld1q_u8(u8_byte1_high), b1l = vld1q_u8(u8_byte1_low), b2h = vld1q_u8(u8_byte2_high);
    uint8x16_t prev1 = vextq_u8(prev, cur, 15), prev2 = vextq_u8(prev, cur, 14), prev3 = vextq_u8(prev, cur, 13);
    uint8x16_t sc = vandq_u8(vandq_u8(vqtbl1q_u8(b1h, vshrq_n_u8(prev1, 4)), vqtbl1q_u8(b1l, vandq_u8(prev1, vdupq_n_u8(0x0F)))),
                             vqtbl1q_u8(b2h, vshrq_n_u8(cur, 4)));
    uint8x16_t third = vqsubq_u8(prev2, vdupq_n_u8(0xE0 - 0x80)), fourth = vqsubq_u8(prev3, vdupq_n_u8(0xF0 - 0x80));
    uint8x16_t must = vandq_u8(vorrq_u8(third, fourth), vdupq_n_u8(0x80));
    uint8x16_t err = veorq_u8(must, sc);
    uint8x16_t nonchar = vandq_u8(vceqq_u8(prev2, vdupq_n_u8(0xEF)),
                                  vceqq_u8(vandq_u8(prev1, vorrq_u8(cur, vdupq_n_u8(1))), vdupq_n_u8(0xBF)));
    return vorrq_u8(err, nonchar);
}

static size_t scan_utf8_neon(const char *p, size_t n) {
    uint8x16_t prev = vdupq_n_u8(0);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        uint8x16_t cur = vld1q_u8((const uint8_t *)p + i);
        if (vmaxvq_u8(vorrq_u8(cur, prev)) < 0x80) { /* ASCII, after ASCII */
            prev = cur;
            continue;
        }
        if (vmaxvq_u8(scan_u8_block_neon(cur, prev))) break;
        prev = cur;
    }
    if (i + 16 > n) { /* the tail, copied into zeros */
        uint8_t tail[16] = {0};
        memcpy(tail, p + i, n - i);
        if (!vmaxvq_u8(scan_u8_block_neon(vld1q_u8(tail), prev))) return n;
    }
    return scan_utf8_rest(p, i, n);
}

#endif

size_t stax__scan_utf8(int level, const char *p, size_t n) {
#if defined(STAX__X86_DISPATCH)
    if (level >= 2) return scan_utf8_avx2(p, n);
#elif defined(STAX__NEON) && defined(__aarch64__)
    if (level >= 1) return scan_utf8_neon(p, n);
#endif
    (void)level;
    return scan_utf8_portable(p, n);
}
