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

/* The blocks the text kernels compare with (SP, TAB, LF; 64 bytes each, for
 * every width), loaded from memory through a pointer the compiler cannot see
 * into: made from constants, they took three instructions each at every
 * call (a move, an insert, a broadcast), and most texts take one block. */
#ifdef STAX__V16
static const char scan_blocks[192] = {
#define SCAN_8(c) c, c, c, c, c, c, c, c
#define SCAN_64(c) SCAN_8(c), SCAN_8(c), SCAN_8(c), SCAN_8(c), SCAN_8(c), SCAN_8(c), SCAN_8(c), SCAN_8(c)
    SCAN_64(' '), SCAN_64('\t'), SCAN_64('\n')
#undef SCAN_64
#undef SCAN_8
};
static inline void scan_opaque(const char **k) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(*k));
#else
    (void)k;
#endif
}
#endif

/* One text-run kernel for every block (scan.h): the stops are the marks
 * < & ] (stax__vN_marks: a table lookup where the block has one) and the
 * controls but TAB and LF, "below 0x20" as signed bytes without the bytes
 * from 0x80, TAB and LF; then the block's line feeds, the
 * continuation bytes after the last one, its high bytes and (until one is
 * seen) a byte other than SP TAB LF are folded into s, up to the stop
 * (s->nonws in a register: the loads of char may alias s, and it was read
 * again at every block). A line feed is the unlikely case (out of line: a
 * text of ASCII without one, the most common, falls through). V is the
 * block (v16, v32, v64), P what its compares give, M its mask, BYTES its
 * width; TGT its instruction set; NEXT takes the tail. */
#define SCAN_TEXT_KERNEL(NAME, TGT, V, P, M, BYTES, NEXT)                                                        \
    TGT static size_t NAME(const char *p, size_t i, size_t n, stax__tscan *s) {                               \
        const char *k = scan_blocks;                                                                           \
        scan_opaque(&k);                                                                                       \
        const stax__##V sp = stax__##V##_load(k), tab = stax__##V##_load(k + 64), lf = stax__##V##_load(k + 128); \
        const stax__##V marks = stax__##V##_marks_init();                                                      \
        unsigned nonws = s->nonws;                                                                             \
        for (; i + (BYTES) <= n; i += (BYTES)) {                                                               \
            stax__##V v = stax__##V##_load(p + i);                                                             \
            stax__##P is_lf = stax__##V##_eq(v, lf), tl = stax__##V##_or(is_lf, stax__##V##_eq(v, tab));          \
            stax__##M mlf = stax__##V##_mask(is_lf), mtl = stax__##V##_mask(tl), mhi = stax__##V##_high(v);     \
            stax__##M mstop = stax__##V##_mask(stax__##V##_or(stax__##V##_marks(v, marks), stax__##V##_lt(v, sp))) & \
                              (stax__##M)~(mhi | mtl); /* (no mark is high, TAB or LF) */                      \
            stax__##M below = stax__##M##_low(BYTES);                                                          \
            if (mstop) below = (stax__##M)((mstop & (0 - mstop)) - 1), mlf &= below, mhi &= below;              \
            if (!nonws) nonws = (~(mtl | stax__##V##_mask(stax__##V##_eq(v, sp))) & below) != 0;                \
            if (mhi) s->hi = 1;                                                                                \
            if (STAX_UNLIKELY(mlf)) {                                                                          \
                size_t last = stax__##M##_last(mlf);                                                           \
                s->lfs += stax__##M##_count(mlf);                                                              \
                s->line_at = i + last + 1;                                                                     \
                s->cont = 0;                                                                                   \
                if (mhi)                                                                                       \
                    s->cont = stax__##M##_count(mhi & (stax__##M)~stax__##V##_bit6(v) &                         \
                                                 (stax__##M)~stax__##M##_low(last + 1));                       \
            } else if (mhi) {                                                                                  \
                s->cont += stax__##M##_count(mhi & (stax__##M)~stax__##V##_bit6(v));                          \
            }                                                                                                  \
            if (mstop) {                                                                                       \
                s->nonws = nonws;                                                                              \
                return i + stax__##M##_first(mstop);                                                           \
            }                                                                                                  \
        }                                                                                                      \
        s->nonws = nonws;                                                                                      \
        return NEXT(p, i, n, s);                                                                               \
    }

#ifdef STAX__V16
SCAN_TEXT_KERNEL(scan_text_v16, , v16, p16, m16, 16, scan_text_portable)
#endif
#if defined(STAX__X86_DISPATCH)
SCAN_TEXT_KERNEL(scan_text_v32, STAX__T32, v32, p32, m32, 32, scan_text_v16)
SCAN_TEXT_KERNEL(scan_text_v64, STAX__T64, v64, p64, m64, 64, scan_text_v32)
#endif

stax__text_run_fn stax__scan_text_run_at(int level) {
#if defined(STAX__X86_DISPATCH)
    if (level >= 3) return scan_text_v64;
    if (level == 2) return scan_text_v32;
#endif
#ifdef STAX__V16
    if (level >= 1) return scan_text_v16;
#endif
    (void)level;
    return scan_text_portable;
}

size_t stax__scan_text_run(int level, const char *p, size_t i, size_t n, stax__tscan *s) {
    return stax__scan_text_run_at(level)(p, i, n, s);
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

#if defined(STAX__X86_DISPATCH) || defined(STAX__V16_TBL)
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

/* One kernel for every block that has a table lookup (AVX2, and NEON on
 * AArch64; V, BYTES and TGT as for the text runs). NAME_block gives the
 * errors of block cur (prev: the block before it), with the constants of
 * NAME_consts, made once before the loop and kept in registers. NAME checks
 * p[0, n) by blocks; the tail (under BYTES bytes, or none) is checked as one
 * more block: read in place where room allows, its errors taken up to and
 * including p[n] (ASCII: a sequence the end cuts is an error there), else
 * copied into zeros, so that such a sequence reads as too short, as it is.
 * From the block of the first error on, byte by byte, to give the offset of
 * the first bad byte exactly as the portable check does. U+FFFE and U+FFFF
 * (EF BF BE, EF BF BF) are not Chars: after an EF lead both bytes are
 * continuations (80..BF) or the error kinds already say so, and of those
 * only BF, and BE or BF, have every bit of BF set. */
#define SCAN_UTF8_KERNEL(NAME, TGT, V, BYTES)                                                                   \
    typedef struct NAME##_k {                                                                                  \
        stax__##V b1h, b1l, b2h, nib, e0, f0, hi, one, bf, ef;                                                 \
    } NAME##_k;                                                                                                \
    TGT __attribute__((always_inline)) static inline NAME##_k NAME##_consts(void) {                            \
        NAME##_k k;                                                                                            \
        k.b1h = stax__##V##_keep(stax__##V##_table(u8_byte1_high));                                            \
        k.b1l = stax__##V##_keep(stax__##V##_table(u8_byte1_low));                                             \
        k.b2h = stax__##V##_keep(stax__##V##_table(u8_byte2_high));                                            \
        k.nib = stax__##V##_keep(stax__##V##_set(0x0F));                                                       \
        k.e0 = stax__##V##_keep(stax__##V##_set(0xE0 - 0x80));                                                 \
        k.f0 = stax__##V##_keep(stax__##V##_set(0xF0 - 0x80));                                                 \
        k.hi = stax__##V##_keep(stax__##V##_set((char)0x80));                                                  \
        k.one = stax__##V##_keep(stax__##V##_set(1));                                                          \
        k.bf = stax__##V##_keep(stax__##V##_set((char)0xBF));                                                  \
        k.ef = stax__##V##_keep(stax__##V##_set((char)0xEF));                                                  \
        return k;                                                                                              \
    }                                                                                                          \
    TGT __attribute__((always_inline)) static inline stax__##V NAME##_block(stax__##V cur, stax__##V prev,      \
                                                                          const NAME##_k *k) {                 \
        stax__##V prev1 = stax__##V##_prev(cur, prev, 1), prev2 = stax__##V##_prev(cur, prev, 2);               \
        stax__##V prev3 = stax__##V##_prev(cur, prev, 3);                                                      \
        stax__##V sc = stax__##V##_and(stax__##V##_and(stax__##V##_tbl(k->b1h, stax__##V##_shr4n(prev1, k->nib)), \
                                                       stax__##V##_tbl(k->b1l, stax__##V##_and(prev1, k->nib))), \
                                       stax__##V##_tbl(k->b2h, stax__##V##_shr4n(cur, k->nib)));               \
        /* the third and fourth bytes of long sequences: a continuation is expected */                        \
        stax__##V must = stax__##V##_and(stax__##V##_or(stax__##V##_subs(prev2, k->e0), stax__##V##_subs(prev3, k->f0)), \
                                         k->hi);                                                               \
        stax__##V nonchar = stax__##V##_and(stax__##V##_eq(prev2, k->ef),                                      \
                                            stax__##V##_eq(stax__##V##_and(prev1, stax__##V##_or(cur, k->one)), k->bf)); \
        return stax__##V##_or(stax__##V##_xor(must, sc), nonchar);                                             \
    }                                                                                                          \
    TGT static size_t NAME(const char *p, size_t n, size_t room) {                                            \
        const NAME##_k k = NAME##_consts();                                                                    \
        stax__##V prev = stax__##V##_set(0);                                                                   \
        size_t i = 0;                                                                                          \
        for (; i + (BYTES) <= n; i += (BYTES)) {                                                               \
            stax__##V cur = stax__##V##_load(p + i);                                                           \
            if (!stax__##V##_high(cur) && !stax__##V##_high(prev)) { /* ASCII, after ASCII */                   \
                prev = cur;                                                                                    \
                continue;                                                                                      \
            }                                                                                                  \
            if (stax__##V##_any(NAME##_block(cur, prev, &k))) break;                                           \
            prev = cur;                                                                                        \
        }                                                                                                      \
        if (i + (BYTES) > n) { /* the tail */                                                                  \
            if (i + (BYTES) <= room) {                                                                         \
                stax__##V cur = stax__##V##_load(p + i), e = NAME##_block(cur, prev, &k);                         \
                if (!stax__##V##_any(e) ||                                                                     \
                    !(~stax__##V##_mask(stax__##V##_eq(e, stax__##V##_set(0))) & stax__m##BYTES##_low(n - i + 1))) \
                    return n;                                                                                  \
            } else {                                                                                           \
                unsigned char tail[BYTES] = {0};                                                               \
                memcpy(tail, p + i, n - i);                                                                    \
                if (!stax__##V##_any(NAME##_block(stax__##V##_load(tail), prev, &k))) return n;                \
            }                                                                                                  \
        }                                                                                                      \
        return scan_utf8_rest(p, i, n);                                                                        \
    }

#if defined(STAX__X86_DISPATCH)
SCAN_UTF8_KERNEL(scan_utf8_v32, STAX__T32, v32, 32)
#elif defined(STAX__V16_TBL)
SCAN_UTF8_KERNEL(scan_utf8_v16, , v16, 16)
#endif

size_t stax__scan_utf8(int level, const char *p, size_t n, size_t room) {
#if defined(STAX__X86_DISPATCH)
    if (level >= 2) return scan_utf8_v32(p, n, room);
#elif defined(STAX__V16_TBL)
    if (level >= 1) return scan_utf8_v16(p, n, room);
#endif
    (void)level;
    (void)room;
    return scan_utf8_portable(p, n);
}
