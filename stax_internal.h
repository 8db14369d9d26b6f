/* Private declarations shared by stax.c, reader_batch.c and writer.c.
 * Nothing here is public API; every name is stax__ prefixed or static. */
#ifndef STAX_INTERNAL_H
#define STAX_INTERNAL_H

#include "stax.h"
#include <string.h>

#ifndef STAXINT
#ifdef STAX_STATIC
#define STAXINT static
#else
#define STAXINT extern
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#define STAX_LIKELY(x) __builtin_expect(!!(x), 1)
#define STAX_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define STAX_LIKELY(x) (x)
#define STAX_UNLIKELY(x) (x)
#endif

/* ------------------------------------------------------------- memory */

/* One allocator for a reader or writer: either the hook (default realloc/free)
 * or a fixed block managed by a small first-fit allocator. */
typedef struct stax__mem {
    stax_alloc_fn fn;
    void *ud;
    unsigned char *block; /* fixed-block mode when non-NULL */
    size_t block_size;
} stax__mem;

/* Set up m. With block != NULL the block is formatted as a heap and fn is ignored.
 * Returns 0, or -1 when the block is too small to hold anything. */
STAXINT int stax__mem_init(stax__mem *m, stax_alloc_fn fn, void *ud, void *block, size_t size);
/* realloc semantics; old_size must be the size last asked for (or 0 for ptr NULL). */
STAXINT void *stax__mem_realloc(stax__mem *m, void *ptr, size_t old_size, size_t new_size);
static inline void *stax__mem_alloc(stax__mem *m, size_t n) { return stax__mem_realloc(m, NULL, 0, n); }
static inline void stax__mem_free(stax__mem *m, void *p, size_t n) {
    if (p) stax__mem_realloc(m, p, n, 0);
}

/* ------------------------------------------------------------- UTF-8 and characters */

/* Decode one UTF-8 sequence at p (n > 0 bytes available). Returns its length
 * (1..4) and stores the code point, 0 if more bytes are needed (truncated at
 * n), or -1 if the bytes are not valid UTF-8 (overlong, surrogate, > U+10FFFF,
 * bad continuation). */
STAXINT int stax__utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);

/* Encode cp (<= 0x10FFFF) at out (4 bytes room); returns the length. */
STAXINT int stax__utf8_encode(uint32_t cp, char *out);

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
    STAX__C_ATTR_STOP = 0x10  /* a byte the attribute scanner must look at: < & quotes, ws, controls, >= 0x80 */
};
STAXINT const unsigned char stax__class[256];

/* Advance a position over n bytes of UTF-8 (lines on \n; columns in code points). */
STAXINT void stax__pos_advance(stax_pos *pos, const char *p, size_t n);

#endif /* STAX_INTERNAL_H */
