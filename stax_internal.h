/* The core every module shares (stax.c): memory, checked writes, messages
 * and errors, keyed hashing, UTF-8 and characters, positions. Each module
 * has its own header beside it (dtd.h, entities.h, external.h, namespaces.h,
 * scan.h, encoding.h; reader.h for the reader's stages). Nothing here is
 * public API; every name is stax__ prefixed or static. */
#ifndef STAX_INTERNAL_H
#define STAX_INTERNAL_H

#include "stax.h"
#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* The parallel reader and the writer's background thread use POSIX threads.
 * A target without an OS to give them (bare-metal newlib, a freestanding
 * build) must leave them out, or the build stops at pthread.h's missing
 * types with no hint why; the switch is then defined here so that the
 * #error is the only message. */
#if !defined(STAX_NO_THREADS) && !defined(_POSIX_THREADS) && \
    (__STDC_HOSTED__ == 0 || !(defined(__unix__) || defined(__APPLE__) || defined(_WIN32)))
#error "stax: this target has no POSIX threads: define STAX_NO_THREADS for every file (docs/embedded.md)"
#define STAX_NO_THREADS
#endif

/* Hidden even where the library is built without -fvisibility=hidden (a
 * vendored single file inside someone's shared library). */
#ifndef STAXINT
#ifdef STAX_STATIC
#define STAXINT static
#elif defined(__GNUC__) || defined(__clang__)
#define STAXINT extern __attribute__((visibility("hidden")))
#else
#define STAXINT extern
#endif
#endif

/* Internal data objects: static in the private single-file copy too. C++
 * cannot declare a static object before defining it: there the copy's objects
 * are declared and defined in an unnamed namespace (STAX__CXX_STATIC). */
#if defined(STAX_STATIC) && defined(__cplusplus)
#define STAX__DATADEF
#define STAX__CXX_STATIC 1
#elif defined(STAX_STATIC)
#define STAX__DATADEF static
#else
#define STAX__DATADEF
#endif

#if defined(__GNUC__) || defined(__clang__)
#define STAX_LIKELY(x) __builtin_expect(!!(x), 1)
#define STAX_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define STAX_LIKELY(x) (x)
#define STAX_UNLIKELY(x) (x)
#endif

/* Built for size (STAX_SMALL, on by itself under -Os: docs/embedded.md): the
 * same results from less code. Loops that speed copies per case (a byte
 * order, an encoding) are one loop, and tables the code can compute are
 * computed. */
#if (defined(STAX_SMALL) || defined(__OPTIMIZE_SIZE__)) && !defined(STAX__SMALL)
#define STAX__SMALL 1
#endif

/* ------------------------------------------------------------- memory */

/* One allocator for a reader or writer: either the hook (default realloc/free)
 * or a fixed block managed by a small first-fit allocator. */
typedef struct stax__mem {
    stax_alloc_fn fn;
    void *ud;
    unsigned char *block; /* fixed-block mode when non-NULL */
    size_t block_size;
    size_t skip;          /* bytes skipped at the block's start to align it */
    size_t used, peak;    /* allocator: bytes held and their high-water mark;
                             fixed block: peak = the highest byte of the block ever used, + 1 */
} stax__mem;

/* Set up m. With block != NULL the block is formatted as a heap and fn is ignored.
 * Returns 0, or -1 when the block is too small to hold anything. */
STAXINT int stax__mem_init(stax__mem *m, stax_alloc_fn fn, void *ud, void *block, size_t size);

/* Fixed block only: allocate min(want, the largest free piece) bytes, the
 * size in *got (> 0), or NULL when nothing is free. */
STAXINT void *stax__mem_alloc_upto(stax__mem *m, size_t want, size_t *got);

/* What the fixed-block heap needs to hand out allocations of sizes[0..n) in
 * that order, with nothing freed, whatever the block's alignment: the block
 * size to ask a caller for. SIZE_MAX on overflow. */
STAXINT size_t stax__mem_block_need(const size_t *sizes, size_t n);
/* realloc semantics; old_size must be the size last asked for (or 0 for ptr NULL). */
STAXINT void *stax__mem_realloc(stax__mem *m, void *ptr, size_t old_size, size_t new_size);
static inline void *stax__mem_alloc(stax__mem *m, size_t n) { return stax__mem_realloc(m, NULL, 0, n); }
static inline void stax__mem_free(stax__mem *m, void *p, size_t n) {
    if (p) stax__mem_realloc(m, p, n, 0);
}

/* ------------------------------------------------------------- internal errors
 * STAX_E_INTERNAL reports an invariant that did not hold. Test and fuzz builds
 * define STAX_ABORT_ON_INTERNAL so that such a bug stops the run where it is
 * found instead of passing as an ordinary error. */
#ifdef STAX_ABORT_ON_INTERNAL
#include <stdlib.h>
#define STAX__INTERNAL_HIT() abort()
#else
#define STAX__INTERNAL_HIT() ((void)0)
#endif

/* ------------------------------------------------------------- checked writes
 * Every write into reader and writer memory goes through a stax__out: a
 * window [p, end) over free bytes of a buffer. A write that does not fit
 * writes nothing, marks the window overflowed and closes it (end = p), so that
 * no later write can land either; the caller checks `over` once, after a run
 * of writes. Where a reservation was sized to be enough, an overflow is a bug
 * (STAX_E_INTERNAL), never a write past the buffer. */
typedef struct stax__out {
    char *p, *end;
    int over;
} stax__out;

static inline stax__out stax__out_make(char *p, size_t n) {
    stax__out o;
    o.p = p;
    o.end = p ? p + n : p;
    o.over = 0;
    return o;
}
static inline size_t stax__out_room(const stax__out *o) { return (size_t)(o->end - o->p); }
static inline void stax__out_fail(stax__out *o) {
    o->over = 1;
    o->end = o->p;
}
static inline void stax__out_put(stax__out *o, const void *s, size_t n) {
    if (STAX_UNLIKELY(stax__out_room(o) < n)) {
        stax__out_fail(o);
        return;
    }
    if (n) memcpy(o->p, s, n);
    o->p += n;
}
/* stax__out_put for a source that may overlap the window (moving bytes back in place). */
static inline void stax__out_move(stax__out *o, const void *s, size_t n) {
    if (STAX_UNLIKELY(stax__out_room(o) < n)) {
        stax__out_fail(o);
        return;
    }
    if (n) memmove(o->p, s, n);
    o->p += n;
}
static inline void stax__out_byte(stax__out *o, char c) {
    if (STAX_UNLIKELY(o->p == o->end)) {
        stax__out_fail(o);
        return;
    }
    *o->p++ = c;
}

/* Copy s[0, n) through o with line ends normalized (CR LF and a lone CR
 * become LF: 2.11); never longer than n. */
static inline void stax__out_eol(stax__out *o, const char *s, size_t n) {
    size_t run = 0;
    for (const char *cr; (cr = run < n ? (const char *)memchr(s + run, '\r', n - run) : NULL) != NULL;) {
        size_t i = (size_t)(cr - s);
        stax__out_put(o, s + run, i - run);
        stax__out_byte(o, '\n');
        run = i + 1 + (i + 1 < n && s[i + 1] == '\n');
    }
    stax__out_put(o, s + run, n - run);
}

/* A growable byte buffer. len bytes are in use; cap are allocated. */
typedef struct stax__buf {
    char *ptr;
    size_t len, cap;
} stax__buf;

/* Make cap - len >= n. Grows (doubling, never beyond max bytes in all) when
 * cap is short. Returns 0; 1 when len + n > max (the caller's limit); or
 * STAX_E_NOMEM when the allocator or the fixed block refuses. Growing moves
 * the buffer: only call it when nothing points into it. */
STAXINT int stax__buf_reserve(stax__mem *m, stax__buf *b, size_t n, size_t max);
STAXINT void stax__buf_free(stax__mem *m, stax__buf *b);

/* A window over the free part of b (all of it). */
static inline stax__out stax__buf_out(stax__buf *b) { return stax__out_make(b->ptr ? b->ptr + b->len : NULL, b->cap - b->len); }
/* Take what was written through o (which came from stax__buf_out(b)). */
static inline void stax__buf_commit(stax__buf *b, const stax__out *o) {
    if (o->p) b->len = (size_t)(o->p - b->ptr);
}
/* Append without growing: 0, or -1 (nothing written) when it does not fit. */
static inline int stax__buf_put(stax__buf *b, const void *s, size_t n) {
    if (b->cap - b->len < n) return -1;
    if (n) memcpy(b->ptr + b->len, s, n);
    b->len += n;
    return 0;
}

/* Append n <= 16 bytes by one 16-byte copy, from a source with 16 readable
 * bytes (a short name in one move): 0, or -1 (nothing written) unless 16
 * bytes are free. The bytes past n are scratch for the next append. */
static inline int stax__buf_put16(stax__buf *b, const void *s, size_t n) {
    if (n > 16 || b->cap - b->len < 16) return -1;
    memcpy(b->ptr + b->len, s, 16);
    b->len += n;
    return 0;
}

/* ------------------------------------------------------------- messages
 * vsnprintf for the conversions the library's messages use, so that no build
 * needs the C library's formatter: d i u x X o c s and %%, the flags - 0 +
 * and space, a width and a precision (digits or *), and the length modifiers
 * hh h l ll z j t. Writes at most cap - 1 bytes and a NUL (when cap > 0),
 * never ending inside a UTF-8 sequence it had to cut; returns the length
 * written. Any other conversion ends the output where it stands. */
STAXINT size_t stax__vfmt(char *buf, size_t cap, const char *fmt, va_list ap);
STAXINT size_t stax__fmt(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------------- keyed hashing
 * The reader's lookup tables (DTD entities and ATTLISTs, namespace prefixes)
 * hash names with SipHash-1-3 under a per-table key, so that a document cannot
 * choose names that collide: with an unkeyed hash it could make every lookup
 * walk every entry. The key is derived from addresses (the table's, the
 * stack's, a static object's), which differ from run to run under address
 * space layout randomization; without it the key is predictable and the worst
 * case is the one the limits bound. Results never depend on the key. */
typedef struct stax__hash_key {
    uint64_t k0, k1;
} stax__hash_key;
STAXINT void stax__hash_key_init(stax__hash_key *key, const void *table);
STAXINT uint64_t stax__hash(const stax__hash_key *key, const void *data, size_t n);

/* ------------------------------------------------------------- UTF-8 and characters */

/* Decode one UTF-8 sequence at p (n > 0 bytes available). Returns its length
 * (1..4) and stores the code point, 0 if more bytes are needed (truncated at
 * n), or -1 if the bytes are not valid UTF-8 (overlong, surrogate, > U+10FFFF,
 * bad continuation). */
STAXINT int stax__utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);

/* Encode cp (<= 0x10FFFF, not a surrogate) at out (4 bytes room); returns the length. */
static inline int stax__utf8_encode(uint32_t cp, char *out) {
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* cp (as stax__utf8_encode takes it) written through o in UTF-8. */
static inline void stax__out_cp(stax__out *o, uint32_t cp) {
    if (cp < 0x80) {
        stax__out_byte(o, (char)cp);
        return;
    }
    char u[4];
    stax__out_put(o, u, (size_t)stax__utf8_encode(cp, u));
}

/* The code point of the character reference "&#...;" at p (n bytes through
 * the ';'), or -1 if it is malformed or not a Char. */
STAXINT long stax__charref_value(const char *p, size_t n);

/* The character of one of the five predefined entities (lt gt amp apos quot)
 * whose name and ';' are at q (left bytes readable from q), and *len the
 * name's length with its ';'; or -1. The one list of them: the fast path's
 * references (rd_quick_ref) and stax__ref_parse read them here. */
static inline long stax__predefined_at(const char *q, size_t left, size_t *len) {
    if (left >= 3 && q[0] == 'l' && q[1] == 't' && q[2] == ';') return *len = 3, '<';
    if (left >= 3 && q[0] == 'g' && q[1] == 't' && q[2] == ';') return *len = 3, '>';
    if (left >= 4 && q[0] == 'a' && q[1] == 'm' && q[2] == 'p' && q[3] == ';') return *len = 4, '&';
    if (left >= 5 && q[4] == ';' && memcmp(q, "quot", 4) == 0) return *len = 5, '"';
    if (left >= 5 && q[4] == ';' && memcmp(q, "apos", 4) == 0) return *len = 5, '\'';
    return -1;
}

/* PubidChar ::= #x20 | #xD | #xA | [a-zA-Z0-9] | [-'()+,./:=?;!*#@$_%]
 * (memchr, not strchr: the single file needs no more of libc than
 * docs/embedded.md lists). */
static inline int stax__is_pubid_char(unsigned char c) {
    return c == ' ' || c == '\r' || c == '\n' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || (c && memchr("-'()+,./:=?;!*#@$_%", c, 19) != NULL);
}

/* XML 1.0 (5th edition) productions on code points. */
static inline int stax__is_char(uint32_t c) {
    if (c < 0x20) return c == 0x9 || c == 0xA || c == 0xD;
    if (c <= 0xD7FF) return 1;
    if (c < 0xE000) return 0;
    if (c <= 0xFFFD) return 1;
    return c >= 0x10000 && c <= 0x10FFFF;
}
STAXINT int stax__is_name_start(uint32_t c);
STAXINT int stax__is_name_char(uint32_t c);

/* Check that [p, p+n) is a Name. Returns 0 if it is, else the byte offset of
 * the first offending byte + 1 (so an empty name returns 1). */
STAXINT size_t stax__check_name(const char *p, size_t n);

/* Check that [p, p+n) is valid UTF-8 made only of Char code points. Returns n
 * if it is, else the offset of the first bad byte; *err is set to
 * STAX_E_ENCODING (bad UTF-8) or STAX_E_CHAR (valid UTF-8, not a Char). */
STAXINT size_t stax__check_chars(const char *p, size_t n, int *err);

/* Byte classes for the hot scanning loops (one table, 256 entries). */
enum {
    STAX__C_NAME = 0x01,  /* ASCII NameChar, or any byte >= 0x80 (checked later) */
    STAX__C_NSTART = 0x02,/* ASCII NameStartChar, or any byte >= 0x80 */
    STAX__C_WS = 0x04,    /* #x20 #x9 #xA #xD */
    STAX__C_TEXT_STOP = 0x08, /* a byte the text scanner must look at: < & ] \r, controls, >= 0x80 */
    STAX__C_ANSTART = 0x10, /* ASCII NameStartChar only (no byte >= 0x80) */
    STAX__C_AVAL = 0x20,  /* in an attribute value: < & and every byte < 0x20 or >= 0x80 */
    STAX__C_ANAME = 0x40  /* ASCII NameChar only (no byte >= 0x80) */
};
#ifdef STAX__CXX_STATIC
namespace { extern const unsigned char stax__class[256]; }
#else
STAXINT const unsigned char stax__class[256];
#endif
/* A length for "%.*s" in a message: at most max bytes of a name or value. */
static inline int stax__clip(size_t n, size_t max) { return n > max ? (int)max : (int)n; }
/* XML white space (S): #x20 #x9 #xA #xD. */
static inline int stax__is_ws(unsigned char c) { return (stax__class[c] & STAX__C_WS) != 0; }
/* The quoted value at s[*i], for every literal of the grammar (attribute
 * values, the XML and text declarations' pseudo-attributes, the DOCTYPE's
 * and the DTD's ids, entity values and defaults): its bytes in *out, and *i
 * past its closing quote. STAX__QUOTED, or STAX__NOT_QUOTED (s[*i] is no
 * quote) or STAX__UNTERMINATED (no closing quote before n), for the caller to
 * name. The reader's fast path scans by blocks on the way (rd_quoted_scan). */
enum { STAX__QUOTED, STAX__NOT_QUOTED, STAX__UNTERMINATED };
static inline int stax__quoted(const char *s, size_t n, size_t *i, stax_str *out) {
    size_t j = *i;
    if (j >= n || (s[j] != '"' && s[j] != '\'')) return STAX__NOT_QUOTED;
    const char *e = (const char *)memchr(s + j + 1, s[j], n - j - 1);
    if (!e) return STAX__UNTERMINATED;
    out->ptr = s + j + 1;
    out->len = (size_t)(e - s) - j - 1;
    *i = (size_t)(e - s) + 1;
    return STAX__QUOTED;
}

/* ------------------------------------------------------------- positions
 * Inline: the reader calls it once per token. */
/* Number of bytes with bit 7 set in a mask that has no other bits: one
 * multiply, where a generic popcount would be a library call without -mpopcnt. */
static inline unsigned stax__count_hi(uint64_t m) { return (unsigned)(((m >> 7) * 0x0101010101010101ULL) >> 56); }

/* Bit 7 set in each byte of t that is zero, and no other bit (exact, with
 * no borrow between bytes): XOR a word with a byte repeated, and its bytes
 * equal to that byte are found. */
static inline uint64_t stax__zero_bytes(uint64_t t) {
    const uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL;
    return ~(((t & lo7) + lo7) | t | lo7);
}

/* Bit 7 set in each byte of x that is a UTF-8 continuation byte (10xxxxxx),
 * and no other bit, in either byte order. */
static inline uint64_t stax__cont_bytes(uint64_t x) { return x & ~(x << 1) & 0x8080808080808080ULL; }

/* Bit 7 set in each byte of x from 0xF0 (the lead of a 4-byte sequence),
 * and no other bit, in either byte order. */
static inline uint64_t stax__lead4_bytes(uint64_t x) { return x & (x << 1) & (x << 2) & (x << 3) & 0x8080808080808080ULL; }

/* Advance a position over n bytes of UTF-8 that hold no CR (lines on LF,
 * columns in code points). Eight bytes a step on little-endian machines: a
 * mask of the LF bytes and a mask of the UTF-8 continuation bytes
 * (10xxxxxx), each as bit 7 of its byte. The reader searches a window for
 * CR once, when its general way first needs it, so most text takes this
 * path. */
static inline void stax__pos_advance_nocr(stax_pos *pos, const char *p, size_t n) {
    const unsigned char *u = (const unsigned char *)p;
    uint64_t line = pos->line, col = pos->column;
    size_t i = 0;
    pos->offset += n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (defined(__GNUC__) || defined(__clang__))
    const uint64_t lfs = 0x0A0A0A0A0A0A0A0AULL;
    while (n >= 8 && i < n) {
        uint64_t x, t;
        unsigned k = 8; /* bytes of x that are new */
        if (i + 8 <= n) {
            memcpy(&x, u + i, 8);
        } else { /* the last bytes: one load ending at n, the bytes already counted shifted out */
            k = (unsigned)(n - i);
            memcpy(&x, u + n - 8, 8);
            x >>= 8 * (8 - k);
        }
        i += k;
        t = x ^ lfs; /* bytes shifted in are 0: neither LF nor continuation */
        uint64_t lf = stax__zero_bytes(t);
        uint64_t cont = stax__cont_bytes(x);
        if (!lf) {
            col += k - stax__count_hi(cont);
            continue;
        }
        line += stax__count_hi(lf);
        unsigned last = (unsigned)(63 - __builtin_clzll(lf)) >> 3;
        uint64_t after = last == 7 ? 0 : ~0ULL << ((last + 1) * 8);
        col = 1 + (k - 1 - last) - stax__count_hi(cont & after);
    }
#endif
    for (; i < n; i++) {
        if (u[i] == '\n') {
            line++;
            col = 1;
        } else {
            col += (u[i] & 0xC0) != 0x80;
        }
    }
    pos->line = line;
    pos->column = col;
}

/* The input bytes n bytes of UTF-8 (transcoded from the input) stand for,
 * by the input's unit (wide): STAX__UNITS_CP, one per code point (8-bit
 * encodings); STAX__UNITS_UTF16, two, and two more for a code point above
 * U+FFFF (lead byte F0-F4); STAX__UNITS_UTF32, four; STAX__UNITS_BYTES, the
 * UTF-8 bytes themselves (a caller's decoder: its input is not counted).
 * An ASCII byte stands for 1 << (wide & 3) bytes. Eight bytes a step, with
 * the masks above, in any byte order (but in builds for size). */
enum { STAX__UNITS_CP = 0, STAX__UNITS_UTF16 = 1, STAX__UNITS_UTF32 = 2, STAX__UNITS_BYTES = 4 };
static inline uint64_t stax__units_of(size_t n, size_t cont, size_t astral, int wide) {
    size_t cps = n - cont;
    if (STAX_LIKELY(wide < STAX__UNITS_UTF32)) return wide ? (uint64_t)(cps + astral) << 1 : cps;
    return wide == STAX__UNITS_UTF32 ? (uint64_t)cps << 2 : n;
}
static inline uint64_t stax__utf8_units(const char *p, size_t n, int wide) {
    const unsigned char *u = (const unsigned char *)p;
    size_t cont = 0, astral = 0, i = 0;
#ifndef STAX__SMALL /* (builds for size: the bytes one at a time) */
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, u + i, 8);
        cont += stax__count_hi(stax__cont_bytes(x));
        if (wide == STAX__UNITS_UTF16) astral += stax__count_hi(stax__lead4_bytes(x));
    }
#endif
    for (; i < n; i++) {
        cont += (u[i] & 0xC0) == 0x80;
        astral += u[i] >= 0xF0;
    }
    return stax__units_of(n, cont, astral, wide);
}

/* The same for any text: lines end at LF, CR LF and a lone CR (2.11). The
 * stretches between CRs go through the CR-free counter. A CR LF pair is never
 * split across calls: tokens and text pieces keep it. */
static inline void stax__pos_advance(stax_pos *pos, const char *p, size_t n) {
    while (n) { /* n == 0 may come with p NULL (an empty carry) */
        const char *cr = (const char *)memchr(p, '\r', n);
        if (!cr) {
            stax__pos_advance_nocr(pos, p, n);
            return;
        }
        size_t k = (size_t)(cr - p), l = k + 1 < n && p[k + 1] == '\n' ? 2 : 1;
        stax__pos_advance_nocr(pos, p, k);
        pos->offset += l;
        pos->line++;
        pos->column = 1;
        p += k + l;
        n -= k + l;
    }
}




/* ------------------------------------------------------------- errors
 * An error: status, errno, the byte it is at, and its message (stax.c sets it). */
/* STAX_NO_MESSAGES (short messages): no sentence is formatted, and the
 * format strings are not compiled in: the message is the status's name and
 * where it happened (reader_batch.c writes it). */
#ifdef STAX_NO_MESSAGES
#define STAX__MSG_CAP 96
#define STAX__SHORT_MESSAGES 1
#else
#define STAX__MSG_CAP 256
#define STAX__SHORT_MESSAGES 0
#endif
typedef struct stax__err {
    int code;
    int sys_errno;  /* the errno of the failed system call behind code (the writer's sinks), or 0 */
    const char *at; /* the byte it is at, or NULL */
    char *msg;      /* the message: cap bytes of the object that holds the error (the reader's are
                       STAX__MSG_CAP, the writer's fewer), so that each object sizes its own */
    size_t cap;
} stax__err;
/* The one error setter of the library (the reader, the DTD, external
 * entities, references, select and the writer): code, errno, byte and
 * message, the message formatted by stax__vfmt. stax__err_set is its
 * variadic form, without an errno. With STAX_NO_MESSAGES stax__err_set
 * neither compiles its format strings in nor calls the formatter: the
 * message is empty (each object writes a short one from the status). */
STAXINT int stax__err_vset(stax__err *e, int code, const char *at, int sys_errno, const char *fmt, va_list ap);
#ifndef STAX_NO_MESSAGES
STAXINT int stax__err_set(stax__err *e, int code, const char *at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#endif
/* No error (a reset). */
static inline void stax__err_clear(stax__err *e) {
    e->code = 0;
    e->sys_errno = 0;
    e->at = NULL;
    e->msg[0] = '\0';
}
/* No error yet, its message to be written into msg[0, cap), cap > 0. */
static inline void stax__err_init(stax__err *e, char *msg, size_t cap) {
    e->msg = msg;
    e->cap = cap;
    stax__err_clear(e);
}
#ifdef STAX_NO_MESSAGES
/* The sentence and its arguments only in sizeof: counted as used, never
 * compiled in (stax__no_message is declared, never defined nor called). */
int stax__no_message(const char *fmt, ...);
#define STAX__NO_MESSAGE(...) ((void)sizeof(stax__no_message(__VA_ARGS__)))
/* The setter without the formatter: an empty message. */
STAXINT int stax__err_short(stax__err *e, int code, const char *at);
#define stax__err_set(e, code, at, ...) (STAX__NO_MESSAGE(__VA_ARGS__), stax__err_short((e), (code), (at)))
#endif

/* The expansion meter, one for every place entities expand (the reader's
 * content and attribute values; the DTD's parameter entities and default
 * values): bytes of entity text gone through, each reference one more (an
 * empty entity is work too), may not pass max(threshold, amplification x
 * input), input being the bytes of the document read so far. */
typedef struct stax__meter {
    uint64_t expanded;
    uint64_t input;
} stax__meter;
/* Count n more bytes of entity text against the limits (entity_threshold,
 * entity_amplification): 0, or STAX_E_LIMIT_ENTITY with *err set at `at`. */
STAXINT int stax__meter_add(stax__meter *m, size_t n, uint64_t threshold, uint32_t amplification, stax__err *err,
                            const char *at);

#endif /* STAX_INTERNAL_H */
