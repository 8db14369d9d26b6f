/* Shared core: memory (allocator hook and fixed block), UTF-8, character
 * classes, names, positions and error strings. */
#include "stax_internal.h"

/* The default allocator under the hook. A single-file build may replace it by
 * defining both STAX_REALLOC(p, n) and STAX_FREE(p) (realloc and free
 * semantics) before including the implementation. */
#if defined(STAX_REALLOC) != defined(STAX_FREE)
#error "define both STAX_REALLOC and STAX_FREE, or neither"
#endif
#ifndef STAX_REALLOC
#include <stdlib.h>
#define STAX_REALLOC(p, n) realloc(p, n)
#define STAX_FREE(p) free(p)
#endif

/* ================================================================ memory */

static void *stax__default_alloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
    (void)ud;
    (void)old_size;
    if (new_size == 0) {
        STAX_FREE(ptr);
        return NULL;
    }
    return STAX_REALLOC(ptr, new_size);
}

/* Fixed block: a list of chunks laid end to end, each with a header. The
 * handful of buffers a reader or writer owns makes a linear walk cheap, and
 * neighbours are merged so that a growing buffer can often extend in place. */
typedef struct stax__chunk {
    size_t size; /* payload bytes after the header */
    size_t used; /* 1 when allocated */
} stax__chunk;

#define STAX__ALIGN 16u
#define STAX__HDR ((sizeof(stax__chunk) + STAX__ALIGN - 1) & ~(size_t)(STAX__ALIGN - 1))

static size_t stax__round(size_t n) { return (n + STAX__ALIGN - 1) & ~(size_t)(STAX__ALIGN - 1); }

static stax__chunk *stax__chunk_next(const stax__mem *m, stax__chunk *c) {
    unsigned char *p = (unsigned char *)c + STAX__HDR + c->size;
    return p < m->block + m->block_size ? (stax__chunk *)p : NULL;
}

static void stax__chunk_split(const stax__mem *m, stax__chunk *c, size_t need) {
    (void)m;
    if (c->size >= need + STAX__HDR + STAX__ALIGN) {
        stax__chunk *rest = (stax__chunk *)((unsigned char *)c + STAX__HDR + need);
        rest->size = c->size - need - STAX__HDR;
        rest->used = 0;
        c->size = need;
        stax__chunk *n = stax__chunk_next(m, rest);
        if (n && !n->used) rest->size += STAX__HDR + n->size; /* keep free neighbours merged */
    }
}

static void stax__block_coalesce(const stax__mem *m) {
    for (stax__chunk *c = (stax__chunk *)m->block; c; c = stax__chunk_next(m, c)) {
        stax__chunk *n;
        while (!c->used && (n = stax__chunk_next(m, c)) != NULL && !n->used) c->size += STAX__HDR + n->size;
    }
}

/* The block's high-water mark: the end of chunk c (in use). */
static void stax__block_mark(stax__mem *m, const stax__chunk *c) {
    size_t end = (size_t)((const unsigned char *)c - m->block) + STAX__HDR + c->size + m->skip;
    if (end > m->peak) m->peak = end;
}

static void *stax__block_alloc(stax__mem *m, size_t n) {
    size_t need = stax__round(n);
    if (need < n) return NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (stax__chunk *c = (stax__chunk *)m->block; c; c = stax__chunk_next(m, c)) {
            if (c->used || c->size < need) continue;
            stax__chunk_split(m, c, need);
            c->used = 1;
            stax__block_mark(m, c);
            return (unsigned char *)c + STAX__HDR;
        }
        stax__block_coalesce(m);
    }
    return NULL;
}

static void *stax__block_realloc(stax__mem *m, void *ptr, size_t old_size, size_t new_size) {
    if (!ptr) return new_size ? stax__block_alloc(m, new_size) : NULL;
    stax__chunk *c = (stax__chunk *)((unsigned char *)ptr - STAX__HDR);
    if (new_size == 0) {
        c->used = 0;
        stax__chunk *n = stax__chunk_next(m, c);
        if (n && !n->used) c->size += STAX__HDR + n->size;
        return NULL;
    }
    size_t need = stax__round(new_size);
    if (need < new_size) return NULL;
    if (need <= c->size) { /* shrinking (or no change): give the tail back */
        stax__chunk_split(m, c, need);
        return ptr;
    }
    stax__chunk *n;
    while ((n = stax__chunk_next(m, c)) != NULL && !n->used && c->size < need) c->size += STAX__HDR + n->size;
    if (c->size >= need) {
        stax__chunk_split(m, c, need);
        stax__block_mark(m, c);
        return ptr;
    }
    void *q = stax__block_alloc(m, new_size);
    if (!q) return NULL;
    memcpy(q, ptr, old_size < new_size ? old_size : new_size);
    stax__block_realloc(m, ptr, old_size, 0);
    return q;
}

int stax__mem_init(stax__mem *m, stax_alloc_fn fn, void *ud, void *block, size_t size) {
    memset(m, 0, sizeof *m);
    if (block) {
        uintptr_t a = (uintptr_t)block, b = (a + STAX__ALIGN - 1) & ~(uintptr_t)(STAX__ALIGN - 1);
        if (size < (b - a) + STAX__HDR + STAX__ALIGN) return -1;
        size -= (size_t)(b - a);
        size &= ~(size_t)(STAX__ALIGN - 1);
        m->block = (unsigned char *)b;
        m->block_size = size;
        m->skip = (size_t)(b - a);
        stax__chunk *c = (stax__chunk *)m->block;
        c->size = size - STAX__HDR;
        c->used = 0;
        return 0;
    }
    m->fn = fn ? fn : stax__default_alloc;
    m->ud = ud;
    return 0;
}

void *stax__mem_alloc_upto(stax__mem *m, size_t want, size_t *got) {
    if (!m->block) return NULL;
    stax__block_coalesce(m);
    size_t best = 0;
    for (stax__chunk *c = (stax__chunk *)m->block; c; c = stax__chunk_next(m, c))
        if (!c->used && c->size > best) best = c->size;
    if (!best) return NULL;
    *got = want < best ? want : best;
    if (!*got) *got = 1;
    return stax__block_alloc(m, *got);
}

size_t stax__mem_block_need(const size_t *sizes, size_t n) {
    size_t total = STAX__ALIGN - 1; /* the worst misalignment of the block */
    for (size_t i = 0; i < n; i++) {
        size_t r = stax__round(sizes[i]);
        if (r < sizes[i] || r > SIZE_MAX - STAX__HDR - total) return SIZE_MAX;
        total += STAX__HDR + r;
    }
    return total;
}

void *stax__mem_realloc(stax__mem *m, void *ptr, size_t old_size, size_t new_size) {
    if (m->block) return stax__block_realloc(m, ptr, old_size, new_size);
    if (!ptr && new_size == 0) return NULL;
    void *q = m->fn(m->ud, ptr, old_size, new_size);
    if (q || new_size == 0) {
        m->used = m->used - old_size + new_size;
        if (m->used > m->peak) m->peak = m->used;
    }
    return q;
}

/* ================================================================ checked buffers */

int stax__buf_reserve(stax__mem *m, stax__buf *b, size_t n, size_t max) {
    if (b->cap - b->len >= n) return 0;
    if (n > max || b->len > max - n) return 1;
    size_t need = b->len + n, ncap = b->cap ? b->cap : 64;
    while (ncap < need) ncap = ncap > max / 2 ? max : ncap * 2;
    if (ncap > max) ncap = max;
    void *p = stax__mem_realloc(m, b->ptr, b->cap, ncap);
    if (!p) return STAX_E_NOMEM;
    b->ptr = (char *)p;
    b->cap = ncap;
    return 0;
}

void stax__buf_free(stax__mem *m, stax__buf *b) {
    stax__mem_free(m, b->ptr, b->cap);
    b->ptr = NULL;
    b->len = b->cap = 0;
}

/* ================================================================ UTF-8 */

int stax__utf8_decode(const unsigned char *p, size_t n, uint32_t *cp) {
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len;
    uint32_t v, min;
    if (c < 0xC2) return -1; /* continuation byte, or overlong 2-byte lead */
    if (c < 0xE0) len = 2, v = c & 0x1F, min = 0x80;
    else if (c < 0xF0) len = 3, v = c & 0x0F, min = 0x800;
    else if (c < 0xF5) len = 4, v = c & 0x07, min = 0x10000;
    else return -1;
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n) return 0;
        if ((p[i] & 0xC0) != 0x80) return -1;
        v = (v << 6) | (p[i] & 0x3F);
        /* reject overlongs and surrogates as early as the 2nd byte allows,
         * so a truncated bad sequence is reported as bad, not as "need more" */
        if (i == 1) {
            if (len == 3 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F))) return -1;
            if (len == 4 && ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F))) return -1;
        }
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return -1;
    *cp = v;
    return len;
}

/* A character reference "&#...;" at p, n bytes through the ';'. */
long stax__charref_value(const char *p, size_t n) {
    size_t i = 2, end = n - 1;
    unsigned long v = 0;
    if (n < 4 || p[0] != '&' || p[1] != '#' || p[end] != ';') return -1;
    if (p[i] == 'x') {
        if (++i == end) return -1;
        for (; i < end; i++) {
            unsigned c = (unsigned char)p[i], d = c - '0';
            if (d > 9) {
                d = (c | 0x20) - 'a';
                if (d > 5) return -1;
                d += 10;
            }
            v = v << 4 | d;
            if (v > 0x10FFFF) return -1;
        }
    } else {
        for (; i < end; i++) {
            unsigned d = (unsigned char)p[i] - (unsigned)'0';
            if (d > 9) return -1;
            v = v * 10 + d;
            if (v > 0x10FFFF) return -1;
        }
    }
    return stax__is_char((uint32_t)v) ? (long)v : -1;
}

/* ================================================================ names (XML 1.0 5th ed. [4], [4a]) */

int stax__is_name_start(uint32_t c) {
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    return (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) ||
           (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) || (c >= 0x200C && c <= 0x200D) ||
           (c >= 0x2070 && c <= 0x218F) || (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF) ||
           (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0xEFFFF);
}

int stax__is_name_char(uint32_t c) {
    if (stax__is_name_start(c)) return 1;
    if (c < 0x80) return c == '-' || c == '.' || (c >= '0' && c <= '9');
    return c == 0xB7 || (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
}

size_t stax__check_name(const char *p, size_t n) {
    const unsigned char *u = (const unsigned char *)p;
    size_t i = 0;
    if (n == 0) return 1;
    while (i < n) {
        uint32_t c;
        if (u[i] < 0x80) {
            unsigned cls = stax__class[u[i]];
            if (!(cls & (i == 0 ? STAX__C_NSTART : STAX__C_NAME))) return i + 1;
            i++;
            continue;
        }
        int l = stax__utf8_decode(u + i, n - i, &c);
        if (l <= 0) return i + 1;
        if (!(i == 0 ? stax__is_name_start(c) : stax__is_name_char(c))) return i + 1;
        i += (size_t)l;
    }
    return 0;
}

size_t stax__check_chars(const char *p, size_t n, int *err) {
    const unsigned char *u = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        /* 8 bytes a step while all are in 0x20..0x7F: a byte < 0x20 borrows
         * into its top bit, one >= 0x80 has it (a borrow can only add stops) */
        while (n - i >= 8) {
            uint64_t v;
            memcpy(&v, u + i, 8);
            if ((v | (v - 0x2020202020202020u)) & 0x8080808080808080u) break;
            i += 8;
        }
        if (i >= n) break;
        unsigned c0 = u[i];
        if (c0 >= 0x20 && c0 < 0x80) {
            i++;
            continue;
        }
        uint32_t c;
        int l = stax__utf8_decode(u + i, n - i, &c);
        if (l <= 0) {
            *err = STAX_E_ENCODING;
            return i;
        }
        if (!stax__is_char(c)) {
            *err = STAX_E_CHAR;
            return i;
        }
        i += (size_t)l;
    }
    return n;
}

/* ================================================================ keyed hashing */

static uint64_t hash_mix(uint64_t x) { /* a 64-bit finalizer: every input bit moves every output bit */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

void stax__hash_key_init(stax__hash_key *key, const void *table) {
    static const char anchor = 0; /* where the program's data was loaded */
    uint64_t a = (uint64_t)(uintptr_t)table, b = (uint64_t)(uintptr_t)&a, c = (uint64_t)(uintptr_t)&anchor;
    key->k0 = hash_mix(a ^ hash_mix(c));
    key->k1 = hash_mix(b ^ hash_mix(c + 0x9e3779b97f4a7c15u));
}

#define HASH_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define HASH_ROUND(v0, v1, v2, v3)                                                                               \
    do {                                                                                                        \
        v0 += v1, v1 = HASH_ROTL(v1, 13), v1 ^= v0, v0 = HASH_ROTL(v0, 32);                                      \
        v2 += v3, v3 = HASH_ROTL(v3, 16), v3 ^= v2;                                                              \
        v0 += v3, v3 = HASH_ROTL(v3, 21), v3 ^= v0;                                                              \
        v2 += v1, v1 = HASH_ROTL(v1, 17), v1 ^= v2, v2 = HASH_ROTL(v2, 32);                                      \
    } while (0)

/* SipHash-1-3: one compression round per 8-byte word, three to finish. */
uint64_t stax__hash(const stax__hash_key *key, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t v0 = key->k0 ^ 0x736f6d6570736575u, v1 = key->k1 ^ 0x646f72616e646f6du;
    uint64_t v2 = key->k0 ^ 0x6c7967656e657261u, v3 = key->k1 ^ 0x7465646279746573u;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t m = 0;
        for (int k = 7; k >= 0; k--) m = m << 8 | p[i + (size_t)k]; /* little-endian on every machine */
        v3 ^= m;
        HASH_ROUND(v0, v1, v2, v3);
        v0 ^= m;
    }
    uint64_t last = (uint64_t)n << 56;
    for (size_t k = 0; i + k < n; k++) last |= (uint64_t)p[i + k] << (8 * k);
    v3 ^= last;
    HASH_ROUND(v0, v1, v2, v3);
    v0 ^= last;
    v2 ^= 0xff;
    HASH_ROUND(v0, v1, v2, v3);
    HASH_ROUND(v0, v1, v2, v3);
    HASH_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

/* ================================================================ byte classes */

#define N_ (STAX__C_NAME | STAX__C_ANAME)
#define S_ (STAX__C_NAME | STAX__C_NSTART | STAX__C_ANAME | STAX__C_ANSTART)
#define W_ STAX__C_WS
#define T_ STAX__C_TEXT_STOP
#define V_ STAX__C_AVAL
/* bytes >= 0x80: any may start a multibyte name char; checked when decoded */
#define H_ (STAX__C_NAME | STAX__C_NSTART | T_ | V_)
#ifdef STAX__CXX_STATIC
namespace { /* as declared in stax_internal.h */
#endif
STAX__DATADEF const unsigned char stax__class[256] = {
    /* 0x00 */ T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_,
    /* 0x08 */ T_ | V_, W_ | V_, W_ | V_, T_ | V_, T_ | V_, W_ | T_ | V_, T_ | V_, T_ | V_,
    /* 0x10 */ T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_,
    /* 0x18 */ T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_, T_ | V_,
    /* 0x20 */ W_, 0, 0, 0, 0, 0, T_ | V_, 0, /* sp ! " # $ % & ' */
    /* 0x28 */ 0, 0, 0, 0, 0, N_, N_, 0,        /* ( ) * + , - . / */
    /* 0x30 */ N_, N_, N_, N_, N_, N_, N_, N_,
    /* 0x38 */ N_, N_, S_, 0, T_ | V_, 0, 0, 0, /* 8 9 : ; < = > ? */
    /* 0x40 */ 0, S_, S_, S_, S_, S_, S_, S_,
    /* 0x48 */ S_, S_, S_, S_, S_, S_, S_, S_,
    /* 0x50 */ S_, S_, S_, S_, S_, S_, S_, S_,
    /* 0x58 */ S_, S_, S_, 0, 0, T_, 0, S_,     /* X Y Z [ \ ] ^ _ */
    /* 0x60 */ 0, S_, S_, S_, S_, S_, S_, S_,
    /* 0x68 */ S_, S_, S_, S_, S_, S_, S_, S_,
    /* 0x70 */ S_, S_, S_, S_, S_, S_, S_, S_,
    /* 0x78 */ S_, S_, S_, 0, 0, 0, 0, 0,
    /* 0x80 */ H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
    /* 0x90 */ H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
    /* 0xA0 */ H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
    /* 0xB0 */ H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
    /* 0xC0 */ H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
    /* 0xD0 */ H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
    /* 0xE0 */ H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
    /* 0xF0 */ H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
};
#ifdef STAX__CXX_STATIC
}
#endif
#undef N_
#undef S_
#undef W_
#undef T_
#undef H_
#undef V_

/* ================================================================ positions */

/* ================================================================ messages */

/* Output of stax__vfmt: padding, and numbers in a base. */
static void fmt_pad(stax__out *o, char c, size_t n) {
    while (n-- && o->p < o->end) stax__out_byte(o, c);
}

static void fmt_num(stax__out *o, uintmax_t v, char sign, unsigned base, int upper, long prec, size_t width,
                    int left, int zero) {
    const char *digit = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char d[sizeof(uintmax_t) * 3];
    size_t nd = 0;
    for (; v; v /= base) d[nd++] = digit[v % base];
    if (prec < 0 && nd == 0) d[nd++] = '0'; /* with a precision, 0 has as many digits as it asks */
    size_t zeros = prec > 0 && (size_t)prec > nd ? (size_t)prec - nd : 0;
    size_t len = nd + zeros + (sign != 0);
    size_t pad = width > len ? width - len : 0;
    if (zero && !left && prec < 0) zeros += pad, pad = 0;
    if (!left) fmt_pad(o, ' ', pad);
    if (sign) stax__out_byte(o, sign);
    fmt_pad(o, '0', zeros);
    while (nd) stax__out_byte(o, d[--nd]);
    if (left) fmt_pad(o, ' ', pad);
}

/* Length modifiers. */
enum { FMT_INT, FMT_HH, FMT_H, FMT_L, FMT_LL, FMT_Z, FMT_J, FMT_T };

size_t stax__vfmt(char *buf, size_t cap, const char *fmt, va_list ap) {
    if (cap == 0) return 0;
    stax__out o = stax__out_make(buf, cap - 1); /* the last byte is the NUL's */
    for (const char *f = fmt; *f;) {
        if (*f != '%') {
            stax__out_byte(&o, *f++);
            continue;
        }
        f++;
        int left = 0, zero = 0, lenmod = FMT_INT;
        char plus = 0;
        for (;; f++) {
            if (*f == '-') left = 1;
            else if (*f == '0') zero = 1;
            else if (*f == '+') plus = '+';
            else if (*f == ' ') plus = plus ? plus : ' ';
            else break;
        }
        size_t width = 0;
        if (*f == '*') {
            int w = va_arg(ap, int);
            if (w < 0) left = 1, w = w == INT_MIN ? INT_MAX : -w;
            width = (size_t)w;
            f++;
        } else {
            for (; *f >= '0' && *f <= '9'; f++) width = width < 100000 ? width * 10 + (size_t)(*f - '0') : width;
        }
        long prec = -1;
        if (*f == '.') {
            f++;
            if (*f == '*') {
                int p = va_arg(ap, int);
                prec = p < 0 ? -1 : p;
                f++;
            } else {
                for (prec = 0; *f >= '0' && *f <= '9'; f++) prec = prec < 100000 ? prec * 10 + (*f - '0') : prec;
            }
        }
        switch (*f) {
        case 'h': lenmod = f[1] == 'h' ? FMT_HH : FMT_H; break;
        case 'l': lenmod = f[1] == 'l' ? FMT_LL : FMT_L; break;
        case 'z': lenmod = FMT_Z; break;
        case 'j': lenmod = FMT_J; break;
        case 't': lenmod = FMT_T; break;
        default: break;
        }
        f += lenmod == FMT_INT ? 0 : lenmod == FMT_HH || lenmod == FMT_LL ? 2 : 1;
        char c = *f++;
        switch (c) {
        case 'd':
        case 'i': {
            intmax_t v;
            switch (lenmod) {
            case FMT_HH: v = (signed char)va_arg(ap, int); break;
            case FMT_H: v = (short)va_arg(ap, int); break;
            case FMT_L: v = va_arg(ap, long); break;
            case FMT_LL: v = va_arg(ap, long long); break;
            case FMT_J: v = va_arg(ap, intmax_t); break;
            case FMT_Z:
            case FMT_T: v = va_arg(ap, ptrdiff_t); break;
            default: v = va_arg(ap, int); break;
            }
            uintmax_t u = v < 0 ? (uintmax_t)0 - (uintmax_t)v : (uintmax_t)v;
            fmt_num(&o, u, v < 0 ? '-' : plus, 10, 0, prec, width, left, zero);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            uintmax_t v;
            switch (lenmod) {
            case FMT_HH: v = (unsigned char)va_arg(ap, unsigned); break;
            case FMT_H: v = (unsigned short)va_arg(ap, unsigned); break;
            case FMT_L: v = va_arg(ap, unsigned long); break;
            case FMT_LL: v = va_arg(ap, unsigned long long); break;
            case FMT_J: v = va_arg(ap, uintmax_t); break;
            case FMT_Z:
            case FMT_T: v = va_arg(ap, size_t); break;
            default: v = va_arg(ap, unsigned); break;
            }
            fmt_num(&o, v, 0, c == 'u' ? 10u : c == 'o' ? 8u : 16u, c == 'X', prec, width, left, zero);
            break;
        }
        case 'c': {
            size_t pad = width > 1 ? width - 1 : 0;
            if (!left) fmt_pad(&o, ' ', pad);
            stax__out_byte(&o, (char)va_arg(ap, int));
            if (left) fmt_pad(&o, ' ', pad);
            break;
        }
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            size_t n = 0;
            while ((prec < 0 || n < (size_t)prec) && s[n]) n++;
            size_t pad = width > n ? width - n : 0;
            if (!left) fmt_pad(&o, ' ', pad);
            size_t fit = n < stax__out_room(&o) ? n : stax__out_room(&o);
            stax__out_put(&o, s, fit);
            if (fit < n) stax__out_fail(&o);
            if (left) fmt_pad(&o, ' ', pad);
            break;
        }
        case '%': stax__out_byte(&o, '%'); break;
        default: /* not one of ours: the arguments cannot be followed past it */
            stax__out_fail(&o);
            break;
        }
        if (o.over) break;
    }
    size_t len = (size_t)(o.p - buf);
    if (o.over) { /* cut: drop a UTF-8 sequence the cut left incomplete */
        size_t k = len, cont = 0;
        while (k > 0 && cont < 3 && ((unsigned char)buf[k - 1] & 0xC0) == 0x80) k--, cont++;
        if (k > 0) {
            unsigned lead = (unsigned char)buf[k - 1];
            size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
            if (need > cont + 1) len = k - 1;
        }
    }
    buf[len] = '\0'; /* len <= cap - 1: the window left that byte out */
    return len;
}

size_t stax__fmt(char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t n = stax__vfmt(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

/* ================================================================ errors */

const char *stax_version(void) { return STAX_VERSION; }

/* The one error setter (stax_internal.h). */
int stax__err_vset(stax__err *e, int code, const char *at, int sys_errno, const char *fmt, va_list ap) {
    stax__vfmt(e->msg, e->cap, fmt, ap);
    e->code = code;
    e->sys_errno = sys_errno;
    e->at = at;
    return code;
}

#ifndef STAX_NO_MESSAGES
int stax__err_set(stax__err *e, int code, const char *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = stax__err_vset(e, code, at, 0, fmt, ap);
    va_end(ap);
    return rc;
}
#else
int stax__err_short(stax__err *e, int code, const char *at) {
    stax__err_clear(e);
    e->code = code;
    e->at = at;
    return code;
}
#endif

/* ================================================================ the expansion meter */

int stax__meter_add(stax__meter *m, size_t n, uint64_t threshold, uint32_t amplification, stax__err *err,
                    const char *at) {
    m->expanded += (uint64_t)n + 1;
    if (m->expanded <= threshold) return 0;
    /* over the budget exactly when expanded > threshold and expanded / amplification > input + 1 */
    uint64_t amp = amplification ? amplification : 1, input = m->input;
#if defined(__GNUC__) || defined(__clang__) /* no 64-bit division: a library call on 32-bit targets */
    uint64_t room;
    if (input > UINT64_MAX - 2 || __builtin_mul_overflow(amp, input + 2, &room)) room = UINT64_MAX;
    else room -= 1;
#else
    uint64_t room = input > UINT64_MAX / amp - 2 ? UINT64_MAX : amp * (input + 2) - 1;
#endif
    if (m->expanded <= room) return 0;
    return stax__err_set(err, STAX_E_LIMIT_ENTITY, at,
                         "entity expansion over its limits: %llu bytes expanded from %llu bytes of input "
                         "(entity_threshold %llu, entity_amplification %lu)",
                         (unsigned long long)m->expanded, (unsigned long long)input,
                         (unsigned long long)threshold, (unsigned long)amplification);
}

const char *stax_strerror(int status) {
    switch (status) {
    case STAX_OK: return "ok";
    case STAX_NEED_INPUT: return "more input needed";
    case STAX_END: return "end of document";
    case STAX_WOULD_BLOCK: return "sink would block";
    case STAX_E_NOMEM: return "out of memory";
    case STAX_E_USAGE: return "API misuse";
    case STAX_E_IO: return "I/O error";
    case STAX_E_INTERNAL: return "internal error (a bug in stax)";
    case STAX_E_SYNTAX: return "not well-formed";
    case STAX_E_ENCODING: return "invalid byte sequence for the encoding";
    case STAX_E_CHAR: return "character not allowed in XML";
    case STAX_E_NAME: return "invalid name";
    case STAX_E_TAG_MISMATCH: return "mismatched end tag";
    case STAX_E_DUP_ATTR: return "duplicate attribute";
    case STAX_E_ENTITY: return "undeclared or invalid entity reference";
    case STAX_E_CHARREF: return "invalid character reference";
    case STAX_E_STRUCTURE: return "invalid document structure";
    case STAX_E_TRUNCATED: return "unexpected end of input";
    case STAX_E_UNSUPPORTED: return "unsupported feature";
    case STAX_E_LIMIT_DEPTH: return "element nesting exceeds max_depth";
    case STAX_E_LIMIT_NAME: return "name exceeds max_name";
    case STAX_E_LIMIT_ATTRS: return "attribute count exceeds max_attrs";
    case STAX_E_LIMIT_TOKEN: return "token exceeds max_token";
    case STAX_E_LIMIT_ENTITY: return "entity expansion exceeds its limits";
    case STAX_E_LIMIT_DTD: return "DTD exceeds max_dtd";
    case STAX_E_LIMIT_NS: return "namespace declarations exceed max_ns";
    case STAX_E_LIMIT_STACK: return "element stack exceeds stack_size";
    case STAX_E_NAMESPACE: return "namespace error";
    case STAX_E_DTD: return "malformed DTD declaration";
    case STAX_E_LIMIT_HELD: return "held output exceeds max_held";
    case STAX_E_LIMIT_STATE: return "matching state exceeds max_state";
    case STAX_E_LIMIT_XML_MEMORY: return "XML value nested deeper than xml_memory holds";
    case STAX_E_STATE: return "call out of order";
    case STAX_E_INVALID: return "content refused";
    case STAX_E_FULL: return "output buffer full";
    case STAX_E_NOSAVE: return "the reader cannot save its context here";
    case STAX_E_CONTEXT: return "saved context refused";
    default: return "unknown status";
    }
}
