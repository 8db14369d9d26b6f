/* A saved reader context (reader_context.c, STAX_CONTEXT_VERSION 1) as
 * fields a test can change one by one: parsed from a context's bytes,
 * written back with every length and count made to agree (or, on purpose,
 * not), and sealed with a right checksum (stax__context_seal). Used by
 * tests/test_resume.c, which forges contexts field by field, and by
 * tests/fuzz/fuzz_context.c, which mutates them at random. It follows the
 * layout ctx_body writes; a context it cannot parse is not of that layout.
 *
 * Strings point into the parsed bytes or wherever the caller puts them; the
 * lists are arrays with room for CM_SLACK records more than they were
 * parsed with (cm_insert fills it). */
#ifndef STAX_CTX_MODEL_H
#define STAX_CTX_MODEL_H

#include "reader.h" /* stax__context_seal */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    CM_OFFSET, CM_LINE, CM_COLUMN, CM_FLAGS, CM_RESOLVER, CM_PART, CM_DOCTYPE, CM_ENC, CM_DETECTED, CM_BOM, CM_EXPANDED,
    CM_EXT_BYTES, CM_PE_REF, CM_SKIP, CM_STANDALONE, CM_HAS_EXTERNAL, CM_DTD_EXPANDED, CM_DTD_INPUT, CM_NFIXED
};
static const unsigned char cm_width[CM_NFIXED] = {8, 8, 8, 4, 1, 1, 1, 4, 4, 1, 8, 8, 1, 1, 1, 1, 8, 8};

/* The lists, in the order they are written; CM_ATTDEFS are the attdefs of
 * one element (cm_elem.att). */
enum { CM_STACK, CM_BIND, CM_ENT, CM_UNP, CM_ELEM, CM_NOT, CM_PI, CM_ATTDEFS, CM_NLISTS };
enum { CM_E_NAME, CM_E_VALUE, CM_E_PUBID, CM_E_SYSID, CM_E_NOTATION, CM_E_BASE, CM_E_NSTR };
#define CM_SLACK 8

typedef struct cm_str {
    const char *p;
    uint32_t len;
} cm_str;
typedef struct cm_binding {
    cm_str prefix, uri;
    uint32_t depth;
} cm_binding;
typedef struct cm_entity {
    uint8_t bits; /* 1 parameter, 2 external, 4 unparsed, 8 declared in external text */
    cm_str s[CM_E_NSTR];
} cm_entity;
typedef struct cm_attdef {
    cm_str name, value;
    uint8_t type, deflt;
} cm_attdef;
typedef struct cm_elem {
    cm_str name;
    size_t n;
    cm_attdef *att; /* n + CM_SLACK entries */
} cm_elem;
typedef struct cm_notation {
    cm_str name, pubid;
    uint8_t has_sysid;
    cm_str sysid;
} cm_notation;
typedef struct cm_pi {
    cm_str target, data;
} cm_pi;

typedef struct cm_ctx {
    uint32_t version;
    uint64_t f[CM_NFIXED];
    size_t n_stack, n_bind, n_ent, n_unp, n_elem, n_not, n_pi;
    cm_str *stack;
    cm_binding *bind;
    cm_entity *ent;
    cm_str *unp;
    cm_elem *elem;
    cm_notation *nots;
    cm_pi *pi;
    /* on purpose wrong when written: a list's count (CM_ATTDEFS: of every
     * element), the length of the lie_at-th string written, the total */
    int64_t count_lie[CM_NLISTS];
    long lie_at;
    int64_t len_lie, total_lie;
} cm_ctx;

typedef struct cm_in {
    const unsigned char *p;
    size_t n;
    int bad;
} cm_in;

static inline uint64_t cm_get(cm_in *in, unsigned w) {
    uint64_t v = 0;
    if (in->n < w) {
        in->bad = 1;
        in->n = 0;
        return 0;
    }
    for (unsigned i = 0; i < w; i++) v |= (uint64_t)in->p[i] << (8 * i);
    in->p += w;
    in->n -= w;
    return v;
}

static inline cm_str cm_gstr(cm_in *in) {
    cm_str s = {"", 0};
    uint64_t n = cm_get(in, 4);
    if (in->bad || n > in->n) {
        in->bad = 1;
        in->n = 0;
        return s;
    }
    s.p = (const char *)in->p;
    s.len = (uint32_t)n;
    in->p += n;
    in->n -= n;
    return s;
}

/* A count of records of at least `least` bytes each: what the bytes left can hold. */
static inline size_t cm_count(cm_in *in, size_t least) {
    uint64_t n = cm_get(in, 4);
    if (in->bad || n > in->n / least) {
        in->bad = 1;
        in->n = 0;
        return 0;
    }
    return (size_t)n;
}

static inline void *cm_array(size_t n, size_t size) { return calloc(n + CM_SLACK, size); }

static inline void cm_free(cm_ctx *m) {
    for (size_t i = 0; m->elem && i < m->n_elem; i++) free(m->elem[i].att);
    free(m->stack);
    free(m->bind);
    free(m->ent);
    free(m->unp);
    free(m->elem);
    free(m->nots);
    free(m->pi);
    memset(m, 0, sizeof *m);
}

/* Parse ctx[0, len): 0, or -1 (not of this layout: m is freed). */
static inline int cm_parse(cm_ctx *m, const void *ctx, size_t len) {
    memset(m, 0, sizeof *m);
    m->lie_at = -1;
    if (len < 28 || memcmp(ctx, "STAXCTX", 8) != 0) return -1;
    cm_in in = {(const unsigned char *)ctx + 8, len - 16, 0};
    m->version = (uint32_t)cm_get(&in, 4);
    if (cm_get(&in, 8) != len) return -1;
    for (int i = 0; i < CM_NFIXED; i++) m->f[i] = cm_get(&in, cm_width[i]);
    m->n_stack = cm_count(&in, 4);
    m->stack = (cm_str *)cm_array(m->n_stack, sizeof *m->stack);
    for (size_t i = 0; i < m->n_stack && m->stack; i++) m->stack[i] = cm_gstr(&in);
    m->n_bind = cm_count(&in, 12);
    m->bind = (cm_binding *)cm_array(m->n_bind, sizeof *m->bind);
    for (size_t i = 0; i < m->n_bind && m->bind; i++) {
        m->bind[i].prefix = cm_gstr(&in);
        m->bind[i].uri = cm_gstr(&in);
        m->bind[i].depth = (uint32_t)cm_get(&in, 4);
    }
    m->n_ent = cm_count(&in, 25);
    m->ent = (cm_entity *)cm_array(m->n_ent, sizeof *m->ent);
    for (size_t i = 0; i < m->n_ent && m->ent; i++) {
        m->ent[i].bits = (uint8_t)cm_get(&in, 1);
        for (int k = 0; k < CM_E_NSTR; k++) m->ent[i].s[k] = cm_gstr(&in);
    }
    m->n_unp = cm_count(&in, 4);
    m->unp = (cm_str *)cm_array(m->n_unp, sizeof *m->unp);
    for (size_t i = 0; i < m->n_unp && m->unp; i++) m->unp[i] = cm_gstr(&in);
    m->n_elem = cm_count(&in, 8);
    m->elem = (cm_elem *)cm_array(m->n_elem, sizeof *m->elem);
    for (size_t i = 0; i < m->n_elem && m->elem; i++) {
        cm_elem *e = &m->elem[i];
        e->name = cm_gstr(&in);
        e->n = cm_count(&in, 10);
        e->att = (cm_attdef *)cm_array(e->n, sizeof *e->att);
        for (size_t k = 0; k < e->n && e->att; k++) {
            e->att[k].name = cm_gstr(&in);
            e->att[k].value = cm_gstr(&in);
            e->att[k].type = (uint8_t)cm_get(&in, 1);
            e->att[k].deflt = (uint8_t)cm_get(&in, 1);
        }
        if (!e->att) in.bad = 1;
    }
    m->n_not = cm_count(&in, 13);
    m->nots = (cm_notation *)cm_array(m->n_not, sizeof *m->nots);
    for (size_t i = 0; i < m->n_not && m->nots; i++) {
        m->nots[i].name = cm_gstr(&in);
        m->nots[i].pubid = cm_gstr(&in);
        m->nots[i].has_sysid = (uint8_t)cm_get(&in, 1);
        m->nots[i].sysid = cm_gstr(&in);
    }
    m->n_pi = cm_count(&in, 8);
    m->pi = (cm_pi *)cm_array(m->n_pi, sizeof *m->pi);
    for (size_t i = 0; i < m->n_pi && m->pi; i++) {
        m->pi[i].target = cm_gstr(&in);
        m->pi[i].data = cm_gstr(&in);
    }
    if (in.bad || in.n || !m->stack || !m->bind || !m->ent || !m->unp || !m->elem || !m->nots || !m->pi) {
        cm_free(m);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- writing */

typedef struct cm_out {
    unsigned char *p;
    size_t len, cap;
    long strings; /* strings written so far */
    const cm_ctx *m;
} cm_out;

static inline void cm_bytes(cm_out *o, const void *s, size_t n) {
    if (o->len <= o->cap && n <= o->cap - o->len && n) memcpy(o->p + o->len, s, n);
    o->len += n;
}

static inline void cm_put(cm_out *o, uint64_t v, unsigned w) {
    unsigned char b[8];
    for (unsigned i = 0; i < w; i++) b[i] = (unsigned char)(v >> (8 * i));
    cm_bytes(o, b, w);
}

static inline void cm_pstr(cm_out *o, cm_str s) {
    uint64_t n = s.len;
    if (o->strings++ == o->m->lie_at) n += (uint64_t)o->m->len_lie;
    cm_put(o, n, 4);
    cm_bytes(o, s.p, s.len);
}

static inline void cm_pcount(cm_out *o, size_t n, int list) { cm_put(o, (uint64_t)n + (uint64_t)o->m->count_lie[list], 4); }

/* Write m into out[0, cap), sealed: its length (written only when it fits). */
static inline size_t cm_write(const cm_ctx *m, void *out, size_t cap) {
    cm_out o = {(unsigned char *)out, 0, cap, 0, m};
    cm_bytes(&o, "STAXCTX", 8);
    cm_put(&o, m->version, 4);
    size_t total_at = o.len;
    cm_put(&o, 0, 8);
    for (int i = 0; i < CM_NFIXED; i++) cm_put(&o, m->f[i], cm_width[i]);
    cm_pcount(&o, m->n_stack, CM_STACK);
    for (size_t i = 0; i < m->n_stack; i++) cm_pstr(&o, m->stack[i]);
    cm_pcount(&o, m->n_bind, CM_BIND);
    for (size_t i = 0; i < m->n_bind; i++) {
        cm_pstr(&o, m->bind[i].prefix);
        cm_pstr(&o, m->bind[i].uri);
        cm_put(&o, m->bind[i].depth, 4);
    }
    cm_pcount(&o, m->n_ent, CM_ENT);
    for (size_t i = 0; i < m->n_ent; i++) {
        cm_put(&o, m->ent[i].bits, 1);
        for (int k = 0; k < CM_E_NSTR; k++) cm_pstr(&o, m->ent[i].s[k]);
    }
    cm_pcount(&o, m->n_unp, CM_UNP);
    for (size_t i = 0; i < m->n_unp; i++) cm_pstr(&o, m->unp[i]);
    cm_pcount(&o, m->n_elem, CM_ELEM);
    for (size_t i = 0; i < m->n_elem; i++) {
        cm_pstr(&o, m->elem[i].name);
        cm_pcount(&o, m->elem[i].n, CM_ATTDEFS);
        for (size_t k = 0; k < m->elem[i].n; k++) {
            cm_pstr(&o, m->elem[i].att[k].name);
            cm_pstr(&o, m->elem[i].att[k].value);
            cm_put(&o, m->elem[i].att[k].type, 1);
            cm_put(&o, m->elem[i].att[k].deflt, 1);
        }
    }
    cm_pcount(&o, m->n_not, CM_NOT);
    for (size_t i = 0; i < m->n_not; i++) {
        cm_pstr(&o, m->nots[i].name);
        cm_pstr(&o, m->nots[i].pubid);
        cm_put(&o, m->nots[i].has_sysid, 1);
        cm_pstr(&o, m->nots[i].sysid);
    }
    cm_pcount(&o, m->n_pi, CM_PI);
    for (size_t i = 0; i < m->n_pi; i++) {
        cm_pstr(&o, m->pi[i].target);
        cm_pstr(&o, m->pi[i].data);
    }
    cm_put(&o, 0, 8); /* the checksum's place */
    size_t total = o.len;
    if (total <= cap) {
        o.len = total_at;
        cm_put(&o, (uint64_t)total + (uint64_t)m->total_lie, 8);
        stax__context_seal(out, total);
    }
    return total;
}

/* A copy of m written and sealed into a new buffer (*len its length). */
static inline unsigned char *cm_written(const cm_ctx *m, size_t *len) {
    *len = cm_write(m, NULL, 0);
    unsigned char *b = (unsigned char *)malloc(*len);
    if (b) cm_write(m, b, *len);
    return b;
}

static inline cm_str cm_z(const char *z) {
    cm_str s;
    s.p = z;
    s.len = (uint32_t)strlen(z);
    return s;
}

#endif /* STAX_CTX_MODEL_H */
