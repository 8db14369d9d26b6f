/* Private declarations shared by stax.c, reader_batch.c and writer.c.
 * Nothing here is public API; every name is stax__ prefixed or static. */
#ifndef STAX_INTERNAL_H
#define STAX_INTERNAL_H

#include "stax.h"
#include <limits.h>
#include <stdarg.h>
#include <string.h>

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

/* The code point of the character reference "&#...;" at p (n bytes through
 * the ';'), or -1 if it is malformed or not a Char. */
STAXINT long stax__charref_value(const char *p, size_t n);

/* The character of one of the five predefined entities (lt gt amp apos quot)
 * named [name, name+n), or -1. */
STAXINT int stax__predefined_entity(const char *name, size_t n);

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

/* ------------------------------------------------------------- DTD (dtd.c)
 * The internal subset, parsed whole when the DOCTYPE token is complete. Names
 * and values live in one region of max_dtd bytes (a fixed block of its own)
 * and never move, so events may point into them. */
typedef struct stax__entity {
    stax_str name, value, pubid, sysid, notation;
    stax_str base;   /* external: where it was declared (stax_entity_request.base) */
    unsigned char pe, external, unparsed, busy;
    unsigned char ext_decl; /* declared in the external subset or in a parameter entity */
    unsigned char plain;    /* internal, and its text is plain: no markup, reference, CR or ']' */
} stax__entity;

enum { STAX__AT_CDATA, STAX__AT_ID, STAX__AT_IDREF, STAX__AT_IDREFS, STAX__AT_ENTITY, STAX__AT_ENTITIES,
       STAX__AT_NMTOKEN, STAX__AT_NMTOKENS, STAX__AT_NOTATION, STAX__AT_ENUM };
enum { STAX__DEF_REQUIRED, STAX__DEF_IMPLIED, STAX__DEF_FIXED, STAX__DEF_VALUE };

typedef struct stax__attdef {
    stax_str name, value; /* value: the default, already normalized */
    unsigned char type, deflt;
    const struct stax__dtd_elem_def *elem; /* its element */
    struct stax__attdef *next;             /* the next attdef of the same element, or NULL */
    uint32_t stamp;       /* the reader's number of the last start tag that gave it */
} stax__attdef;

typedef struct stax__dtd_elem_def {
    stax_str name;
    stax__attdef *first, *last;          /* its attdefs, in declaration order, or NULL */
    struct stax__dtd_elem_def *next;     /* every element with an ATTLIST, latest first */
    uint32_t id;                         /* its number, for the attdefs' hash */
} stax__dtd_elem_def;

typedef struct stax__dtd_chunk stax__dtd_chunk;
typedef struct stax__err stax__err;
typedef struct stax__frame stax__frame;
typedef struct stax__ext stax__ext;
typedef struct stax__dtd_level stax__dtd_level;

typedef struct stax__dtd {
    stax__mem *outer;            /* the reader's memory, where the region comes from */
    stax__mem mem;               /* the region, once reserved */
    void *region;
    size_t max;                  /* max_dtd: the region's size */
    stax__err *err;              /* where errors are written (the reader's) */
    stax__frame *frames;         /* max_depth frames for entity text in default values */
    stax__dtd_level *levels;     /* while parsing: the parameter entities being read, in the region */
    size_t cap_levels;
    stax__ext *ext;              /* external entities, or NULL without a resolver */
    int status;                  /* the error, once one happened */
    stax__dtd_chunk *chunks;
    char *cur;
    size_t cur_left;
    /* Entities, attdefs and elements are records in the chunks, which never
     * move; the hash tables (open addressing, NULL = empty) point at them. */
    size_t n_ents, n_atts, n_elems;
    void **ent_hash;             /* stax__entity * */
    size_t ent_hash_cap;
    void **att_hash;             /* stax__attdef *, by element and name */
    size_t att_hash_cap;
    void **elem_hash;            /* stax__dtd_elem_def *: elements with an ATTLIST */
    size_t elem_hash_cap;
    stax__dtd_elem_def *elem_list;
    uint64_t elem_lens;          /* bit (length & 63) of every element name with an ATTLIST */
    stax__hash_key key;          /* of the tables */
    stax_decl *notations, *unparsed;
    size_t n_not, cap_not, n_unp, cap_unp;
    stax_dtd_pi *pis;
    size_t n_pis, cap_pis;
    int has_pe_ref;   /* a parameter-entity reference occurs in the internal subset */
    int skip_decls;   /* an unread parameter entity was referenced: later ENTITY/ATTLIST are not processed (5.1) */
    int standalone;   /* standalone="yes" */
    int has_external; /* the DOCTYPE names an external subset */
    int no_colons;    /* namespaces on: entity names, notation names and PI targets have no colon */
    uint32_t max_depth;   /* entity nesting limit */
    uint32_t max_name;
    size_t max_token;     /* a default value's length after expansion */
    uint64_t expanded;    /* bytes of entity text the DTD parser went through (+1 a reference) */
    uint64_t expand_budget; /* its limit: set by stax__dtd_parse from the limits below */
    uint64_t input;       /* the subsets' length, and the bytes of the external entities read */
    uint64_t amplification, threshold;
} stax__dtd;

STAXINT void stax__dtd_init(stax__dtd *d, stax__mem *outer, const stax_reader_options *o, stax__frame *frames,
                            stax__err *err);
/* Take the region (max_dtd bytes) from the outer memory now: 0, or STAX_E_NOMEM. */
STAXINT int stax__dtd_reserve(stax__dtd *d);
STAXINT void stax__dtd_free(stax__dtd *d);
/* Forget every declaration, keeping the region (for stax_reader_reset). */
STAXINT void stax__dtd_reset(stax__dtd *d, const stax_reader_options *o);
/* Parse the internal subset [p, p+n). Returns 0 or an error (d->status, in *d->err). */
STAXINT int stax__dtd_parse(stax__dtd *d, const char *p, size_t n);
/* Read and parse the external subset through d->ext (name: the DOCTYPE's).
 * Returns 0 (also when it was declined) or an error. */
STAXINT int stax__dtd_parse_external(stax__dtd *d, stax_str name, stax_str pubid, stax_str sysid);
/* The tables (dtd_store.c). Strings and records live in chunks of the
 * region and never move: n bytes (a copy of s, or uninitialized for NULL),
 * or NULL when the region is full. */
STAXINT char *stax__dtd_store(stax__dtd *d, const char *s, size_t n);
/* A record of n bytes, aligned for any field a record holds. */
STAXINT void *stax__dtd_record(stax__dtd *d, size_t n);
/* Give back the last `unused` bytes of the latest stax__dtd_store. */
STAXINT void stax__dtd_unstore(stax__dtd *d, size_t unused);
/* A public or system id with line ends normalized (2.11), or a public id
 * normalized (4.2.2); *out_len its length. */
STAXINT char *stax__dtd_store_id(stax__dtd *d, const char *s, size_t n, size_t *out_len);
STAXINT char *stax__dtd_store_pubid(stax__dtd *d, const char *s, size_t n, size_t *out_len);
/* Grow the array *arr of *cap elements of elem bytes to hold need: 0 or -1. */
STAXINT int stax__dtd_grow(stax__dtd *d, void **arr, size_t *cap, size_t elem, size_t need);
/* Add a record, its fields set, to its table: 0, or -1 when the region is full. */
STAXINT int stax__dtd_add_entity(stax__dtd *d, stax__entity *e);
STAXINT int stax__dtd_add_elem(stax__dtd *d, stax__dtd_elem_def *el);
STAXINT int stax__dtd_add_attdef(stax__dtd *d, stax__attdef *a);
STAXINT stax__entity *stax__dtd_entity(const stax__dtd *d, const char *name, size_t len, int pe);
/* The element with an ATTLIST named [name, name+len): its index, or -1. */
STAXINT const stax__dtd_elem_def *stax__dtd_elem(const stax__dtd *d, const char *name, size_t len);
/* The definition of attribute `name` of element elem: its index in atts, or UINT32_MAX. */
STAXINT stax__attdef *stax__dtd_attdef(const stax__dtd *d, const stax__dtd_elem_def *elem, const char *name, size_t len);
/* Set every stamp to 0 (when the reader's counter wraps); returns the next stamp, 1. */
STAXINT uint32_t stax__dtd_clear_stamps(stax__dtd *d);
/* Whether WFC: Entity Declared applies to an undeclared reference (else it is
 * only a validity error, and the reference is reported, not expanded). */
static inline int stax__dtd_wfc_declared(const stax__dtd *d) {
#ifdef STAX_NO_DTD
    (void)d;
    return 1; /* no DTD is read: only the predefined entities exist */
#else
    return d->standalone || (!d->has_external && !d->has_pe_ref);
#endif
}

/* ------------------------------------------------------------- references and attribute values (entities.c)
 * Shared by the reader and the DTD: one parser of references, one entity
 * lookup, one attribute-value normalizer, with the same statuses, messages
 * and positions everywhere. */

/* An error: status, the byte it is at, and its message. */
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
struct stax__err {
    int code;
    const char *at;
    char msg[STAX__MSG_CAP];
};
STAXINT int stax__err_set(stax__err *e, int code, const char *at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#ifdef STAX_NO_MESSAGES
STAXINT int stax__err_short(stax__err *e, int code, const char *at);
/* The sentence and its arguments only in sizeof: counted as used, never
 * compiled in (stax__no_message is declared, never defined nor called). */
int stax__no_message(const char *fmt, ...);
#define STAX__NO_MESSAGE(...) ((void)sizeof(stax__no_message(__VA_ARGS__)))
#define stax__err_set(e, code, at, ...) (STAX__NO_MESSAGE(__VA_ARGS__), stax__err_short((e), (code), (at)))
#endif

/* Entity expansion may not pass max(threshold, amplification x input): the
 * budget for a counter of expanded bytes, and the error when it is passed. */
STAXINT uint64_t stax__expand_budget(uint64_t threshold, uint32_t amplification, uint64_t input);
STAXINT int stax__expand_fail(stax__err *err, const char *at, uint64_t expanded, uint64_t input, uint64_t threshold,
                              uint32_t amplification);

/* Validate the character at p[i] (a control, or the first byte of a UTF-8
 * sequence) in p[0, n): its length, or 0 with err set. */
STAXINT size_t stax__char_at(const char *p, size_t n, size_t i, stax__err *err);

/* A reference at p[i] ('&') in p[0, n): a character (cp >= 0, the five
 * predefined entities included) or an entity name (cp < 0). end: the index
 * after ';'. stop: where scanning stopped (also after an error: the caller
 * may report a reference cut by the end of input instead). */
typedef struct stax__ref {
    long cp;
    stax_str name;
    size_t end, stop;
} stax__ref;
/* Parse the reference at p[i] ('&'). STAX__REF_NAME_LATER: an entity name is
 * not checked against the Name production (the caller checks it unless it
 * finds a declared entity of that name, whose name was checked). */
#define STAX__REF_NAME_LATER 0x1u
STAXINT int stax__ref_parse(const char *p, size_t n, size_t i, uint32_t max_name, unsigned flags, stax__ref *ref,
                            stax__err *err);
STAXINT int stax__ref_check_name(const stax__ref *ref, const char *amp, stax__err *err);

enum { STAX__REF_REPORT = 1, /* an external entity in content: read through the resolver, or reported */
       STAX__REF_SKIP = 2,   /* undeclared where that is no error: dropped (attributes) or reported */
       STAX__ROOM = 3 };     /* the output window was too small: retry with more room */

/* Where a general entity reference stands (flags of stax__general_entity). */
#define STAX__GE_ATTR 0x1u /* in an attribute value */
#define STAX__GE_DTD 0x2u  /* in a default value of the DTD (not in the document) */

/* What a reference to general entity `name` (its '&' at amp) means: 0 and
 * *out = an internal entity to expand; STAX__REF_REPORT and *out = the
 * external entity; STAX__REF_SKIP; or an error. d is NULL without a DOCTYPE.
 * known: the entity of that name when the caller has it (a cache), or NULL. */
STAXINT int stax__general_entity(const stax__dtd *d, const char *amp, stax_str name, unsigned where,
                                 stax__entity *known, stax__entity **out, stax__err *err);

/* One level of entity text being read: where the text that referenced it
 * stands. The reader's content expansion and the normalizer share them. */
struct stax__frame {
    const char *p;
    size_t n, i;
    stax__entity *e;
    uint32_t depth;          /* reader: the element depth where the entity started */
    size_t ref;              /* reader: where the reference stands in [p, p+n) */
    struct stax__xtext *xt;  /* reader: the external entity's text (NULL: an internal entity) */
    size_t rest;             /* reader: the interrupted window's stax_reader.rest and rest_flags */
    int rest_flags;
};

typedef struct stax__attnorm {
    const stax__dtd *dtd;     /* NULL without a DOCTYPE */
    uint32_t max_name;
    stax__frame *frames;      /* entity nesting: n_frames levels are left */
    uint32_t n_frames, max_depth;
    uint64_t *expanded, budget;   /* the expansion counter and its budget... */
    uint64_t input, threshold;    /* ...and what it was made from, for the message */
    uint32_t amplification;
    size_t max_out, max_token;    /* the output may be max_out bytes at most (STAX_E_LIMIT_TOKEN) */
    int raw;       /* the text is the document's own: Chars checked, CR LF is one space */
    int tokenized; /* a declared type other than CDATA: spaces collapsed and trimmed */
    int in_dtd;    /* a default value of the DTD (STAX__GE_DTD) */
} stax__attnorm;

/* Normalize the attribute value s[0, n) (3.3.3) into out, advancing out->p.
 * Returns 0; an error in *err (at: the byte in s, or the outermost reference
 * in s for faults inside entity text); or STAX__ROOM when out had less room
 * than max_out and the value did not fit (nothing is committed). */
STAXINT int stax__attr_normalize(const stax__attnorm *a, const char *s, size_t n, stax__out *out, stax__err *err);

/* ------------------------------------------------------------- external entities (external.c)
 * The resolver hook's side of the reader: the caller is asked for an
 * entity, its bytes are read whole (from a buffer or a read function),
 * decoded to UTF-8 by its BOM and text declaration, checked (UTF-8, Char)
 * and their line ends normalized, into one buffer where the texts of the
 * entities open at once lie stack-wise, each after its record and its base. */
typedef struct stax__xtext {
    const char *text;  /* the entity's text: UTF-8, Chars checked, line ends normalized */
    size_t len;
    size_t body;       /* where its content starts: after the text declaration */
    stax_str base;     /* the base the resolver gave (in the buffer), or the system id */
    stax_str name, sysid; /* for messages: the declaration's strings */
    int kind;          /* STAX_ENTITY_* */
    uint64_t raw;      /* bytes handed over */
    size_t mark;       /* the buffer's length before it: its length again once it is closed */
} stax__xtext;

struct stax__ext {
    stax_resolve_fn fn;
    void *ud;
    const uint32_t *(*unknown_encoding)(void *ud, const char *name, size_t len);
    void *unknown_ud;
    stax__mem *mem;
    stax__buf text;     /* [0, max_text + slack): the texts; then `scratch` bytes for a read function */
    size_t max_text;    /* max_external_text */
    size_t scratch;     /* read_buffer */
    size_t release;     /* SIZE_MAX, or the length to cut the buffer to at the next batch */
    uint64_t bytes, max_bytes; /* bytes handed over so far, and max_external */
};

/* Bytes the buffer takes for these options (0 without a resolver; SIZE_MAX on overflow). */
STAXINT size_t stax__ext_buffer_size(const stax_reader_options *o);
STAXINT void stax__ext_init(stax__ext *x, stax__mem *mem, const stax_reader_options *o);
/* Take the buffer now (fixed block): 0, or STAX_E_NOMEM. */
STAXINT int stax__ext_reserve(stax__ext *x);
STAXINT void stax__ext_free(stax__ext *x);
/* Forget every entity and the byte count, keeping the buffer. */
STAXINT void stax__ext_reset(stax__ext *x);
/* Ask the resolver for an entity and read it: 0 and *out (in the buffer);
 * STAX_DECLINE; or an error in *err (the message says where in the entity). */
STAXINT int stax__ext_open(stax__ext *x, int kind, stax_str name, stax_str pubid, stax_str sysid, stax_str base,
                           stax__xtext **out, stax__err *err);
/* Give the entity's text back now (the DTD), or at the next batch (content,
 * whose events may point into it: stax__ext_release then). */
STAXINT void stax__ext_close(stax__ext *x, const stax__xtext *t);
STAXINT void stax__ext_close_later(stax__ext *x, const stax__xtext *t);
static inline void stax__ext_release(stax__ext *x) {
    if (STAX_UNLIKELY(x->release != SIZE_MAX)) {
        x->text.len = x->release;
        x->release = SIZE_MAX;
    }
}
/* Append " (in entity 'x' \"sysid\", line L, column C)" to msg for the byte
 * at `at` of t's text (without line and column when at lies elsewhere). */
STAXINT void stax__ext_where(const stax__xtext *t, const char *at, char *msg, size_t cap);

/* ------------------------------------------------------------- namespaces (namespaces.c)
 * In-scope bindings as a stack in one buffer of at most max_ns_bytes: each
 * costs its prefix, its URI and a record (stax__ns_cost). Bindings are also
 * chained per hash bucket, newest first, so that a prefix is found without
 * walking every binding in scope; a binding is always the head of its bucket
 * when it goes out of scope, since bindings leave in stack order. */
typedef struct stax__ns_rec stax__ns_rec;
typedef struct stax__ns {
    stax__mem *mem;
    char *buf;       /* strings from the start, records from the end */
    size_t cap, max; /* allocated, and max_ns_bytes */
    size_t low;      /* string bytes written (in scope, and out of scope in this batch) */
    size_t live;     /* string bytes of the bindings in scope */
    size_t n;        /* bindings in scope */
    size_t clean;    /* the first `clean` bindings' strings are packed from the start */
    uint32_t *heads; /* nbuckets (a power of two), UINT32_MAX when empty */
    size_t nbuckets;
    stax__hash_key key;
} stax__ns;

/* Bytes one binding takes, and the bucket count for a budget. */
STAXINT size_t stax__ns_cost(size_t prefix_len, size_t uri_len);
STAXINT int stax__qname_split(stax_str name, stax_str *prefix, stax_str *local);
STAXINT size_t stax__ns_buckets(size_t max_bytes);
STAXINT size_t stax__ns_buffer_size(size_t max_bytes);
/* 0, or -1 when the memory cannot be had. In a fixed block the whole buffer is taken now. */
STAXINT int stax__ns_init(stax__ns *ns, stax__mem *mem, size_t max_bytes);
STAXINT void stax__ns_free(stax__ns *ns);
/* No binding in scope any more, the memory kept (for stax_reader_reset). */
STAXINT void stax__ns_reset(stax__ns *ns);
/* Bind prefix to uri at depth. 0; 1 when the bindings would pass max_ns_bytes
 * or, with can_grow 0, the buffer is full (strings that left scope are not
 * reclaimed yet); STAX_E_NOMEM when the allocator refuses. can_grow: nothing
 * points into the strings, so the buffer may move. */
STAXINT int stax__ns_push(stax__ns *ns, stax_str prefix, stax_str uri, uint32_t depth, int can_grow);
STAXINT void stax__ns_pop(stax__ns *ns, uint32_t depth); /* drops the bindings of depth >= depth */
/* Between batches: the strings of bindings that left scope are given back. */
STAXINT void stax__ns_reclaim(stax__ns *ns);
/* Bytes the bindings in scope take. */
STAXINT size_t stax__ns_bytes(const stax__ns *ns);
/* 0 and *uri (the xml prefix is always bound), or -1 if prefix is unbound. */
STAXINT int stax__ns_lookup(const stax__ns *ns, stax_str prefix, stax_str *uri);

#define STAX__XML_NS "http://www.w3.org/XML/1998/namespace"
#define STAX__XMLNS_NS "http://www.w3.org/2000/xmlns/"

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

/* ------------------------------------------------------------- positions
 * Inline: the reader calls it once per token. */
/* Number of bytes with bit 7 set in a mask that has no other bits: one
 * multiply, where a generic popcount would be a library call without -mpopcnt. */
static inline unsigned stax__count_hi(uint64_t m) { return (unsigned)(((m >> 7) * 0x0101010101010101ULL) >> 56); }

/* Advance a position over n bytes of UTF-8 that hold no CR (lines on LF,
 * columns in code points). Eight bytes a step on little-endian machines: a
 * mask of the LF bytes and a mask of the UTF-8 continuation bytes
 * (10xxxxxx), each as bit 7 of its byte. The reader checks each window once
 * for CR, so most text takes this path. */
static inline void stax__pos_advance_nocr(stax_pos *pos, const char *p, size_t n) {
    const unsigned char *u = (const unsigned char *)p;
    uint64_t line = pos->line, col = pos->column;
    size_t i = 0;
    pos->offset += n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (defined(__GNUC__) || defined(__clang__))
    const uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL, hi = 0x8080808080808080ULL, lfs = 0x0A0A0A0A0A0A0A0AULL;
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
        uint64_t lf = ~(((t & lo7) + lo7) | t | lo7);
        uint64_t cont = x & ~(x << 1) & hi;
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




/* ------------------------------------------------------------- input encodings (encoding.c)
 * Transcoding of the input to UTF-8; docs/encodings.md has the rules. */
enum {
    STAX__ENC_UTF8 = 1,
    STAX__ENC_UTF16LE,
    STAX__ENC_UTF16BE,
    STAX__ENC_LATIN1,
    STAX__ENC_ASCII,
    STAX__ENC_CP1252,
    STAX__ENC_TABLE,      /* the caller's 256-entry table */
    STAX__ENC_UTF16 = 100,/* by name only: "UTF-16", endianness from the BOM */
    STAX__ENC_SBCS = 128  /* STAX__ENC_SBCS + k: built-in single-byte table k (encoding_tables.h) */
};
#define STAX__DEC_ERROR (-1)

typedef struct stax__decoder {
    int enc;               /* STAX__ENC_* (resolved: never STAX__ENC_UTF16) */
    const uint32_t *table; /* STAX__ENC_TABLE: code point of each byte; > 0x10FFFF or a
                              surrogate = invalid byte (0xFFFFFFFF by convention) */
    unsigned char pend[4]; /* bytes of a unit split across calls */
    unsigned npend;
    unsigned err_pend;     /* after STAX__DEC_ERROR: bytes of the bad unit that came from
                              earlier calls (it starts that many bytes before src) */
    int table_ascii;       /* set by stax__decoder_init: table maps 0..0x7F to themselves */
} stax__decoder;

/* Zero d and set it up for enc (and table, for STAX__ENC_TABLE). Setting the
 * fields by hand on a zeroed struct works too; init lets a table take the
 * ASCII fast path. */
STAXINT void stax__decoder_init(stax__decoder *d, int enc, const uint32_t *table);

/* Encoding by name (ASCII case-insensitive, with the usual aliases). Returns
 * STAX__ENC_*, STAX__ENC_UTF16 for "UTF-16" without endianness, or -1. */
STAXINT int stax__encoding_by_name(const char *name, size_t len);

/* The canonical name of an encoding ("UTF-16LE", ...), for messages. */
STAXINT const char *stax__encoding_name(int enc);

/* XML 1.0 Appendix F on the first n bytes. Returns the encoding and sets
 * *bom_len (3 for the UTF-8 BOM, 2 for a UTF-16 BOM, else 0); 0 when more
 * bytes are needed (only if n < 4 and !at_end); -1 for UCS-4 and EBCDIC;
 * STAX__ENC_UTF8 (no BOM) by default. */
STAXINT int stax__encoding_detect(const unsigned char *p, size_t n, int at_end, size_t *bom_len);

/* The encoding to decode with, from what detection found (detected, bom_len)
 * and the encoding declaration (declared: from stax__encoding_by_name, or 0
 * when there is none). Returns a resolved STAX__ENC_*, or -1 when the two
 * contradict (a BOM and a declaration naming another encoding; UTF-16 bytes
 * declared as an 8-bit encoding or the other way round). */
STAXINT int stax__encoding_resolve(int detected, size_t bom_len, int declared);

/* Transcode src[0, n) to UTF-8 in dst[0, cap) (cap >= 8). Whole units only: a
 * unit cut by the end of src goes to d->pend and is completed by the next
 * call. Stops early when dst is nearly full. Returns 0 with *consumed (bytes
 * of src used, those moved into pend included) and *produced; or
 * STAX__DEC_ERROR with *consumed = offset of the bad unit in src (0 if it
 * began in pend; d->err_pend says how many bytes before src) and *produced =
 * bytes written before it; the decoder is then spent. The output is valid
 * UTF-8 (except for STAX__ENC_UTF8, copied as is); Char checks are the reader's. */
STAXINT int stax__decode(stax__decoder *d, const char *src, size_t n, size_t *consumed, char *dst, size_t cap,
                         size_t *produced);

/* Input ended: STAX__DEC_ERROR if a partial unit is pending, else 0. */
STAXINT int stax__decode_finish(const stax__decoder *d);

#endif /* STAX_INTERNAL_H */
