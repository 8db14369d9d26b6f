/* The internal DTD subset: every markup declaration parsed and checked for
 * well-formedness; entities, attribute-list declarations and notations kept
 * for the reader (dtd_ prefix for file-local names).
 *
 * The subset is parsed whole, once the DOCTYPE token is complete, so this is a
 * plain recursive-descent parser over contiguous text. Parameter-entity
 * references between declarations re-enter the parser on the entity's
 * replacement text; an error inside one is reported at the reference. */
#include "stax_internal.h"

#include <stdarg.h>
#include <stdio.h>

struct stax__dtd_chunk {
    stax__dtd_chunk *next;
    size_t size;
};

#define DTD_CHUNK 4096u

/* ================================================================ errors */

typedef struct dtd_ctx {
    stax__dtd *d;
    const char *p, *end; /* the text being parsed */
    const char *anchor;  /* inside a parameter entity: the reference in the subset */
    uint32_t depth;      /* parameter entities nested */
} dtd_ctx;

static int dtd_fail(dtd_ctx *c, const char *at, int code, const char *fmt, ...) {
    stax__dtd *d = c->d;
    if (d->err) return d->err;
    va_list ap;
    va_start(ap, fmt);
    stax__vfmt(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    d->err = code;
    d->err_at = c->anchor ? c->anchor : at;
    return code;
}

/* Storage could not be had: over max_dtd (STAX_E_LIMIT_DTD), or refused by
 * the allocator or the fixed block (STAX_E_NOMEM), which d->nomem tells. */
static int dtd_too_big(dtd_ctx *c, const char *at) {
    if (c->d->nomem)
        return dtd_fail(c, at, STAX_E_NOMEM, c->d->mem->block ? "the fixed memory block is too small for this DTD"
                                                             : "out of memory");
    return dtd_fail(c, at, STAX_E_LIMIT_DTD, "DTD larger than max_dtd");
}

/* ================================================================ storage */

static int dtd_account(stax__dtd *d, size_t n) {
    if (n > d->max - d->used) return -1;
    d->used += n;
    return 0;
}

static char *dtd_store(stax__dtd *d, const char *s, size_t n) {
    static char empty[1];
    if (n == 0) return empty; /* never NULL, and no arithmetic on a NULL cursor */
    if (n > d->cur_left) {
        size_t size = n > DTD_CHUNK ? n : DTD_CHUNK;
        if (dtd_account(d, size + sizeof(stax__dtd_chunk))) return NULL;
        stax__dtd_chunk *ch = stax__mem_alloc(d->mem, sizeof *ch + size);
        if (!ch) {
            d->nomem = 1;
            return NULL;
        }
        ch->next = d->chunks;
        ch->size = size;
        d->chunks = ch;
        d->cur = (char *)(ch + 1);
        d->cur_left = size;
    }
    char *out = d->cur;
    if (n && s) memcpy(out, s, n);
    d->cur += n;
    d->cur_left -= n;
    return out;
}

/* Store a public or system id with its line ends normalized (2.11): the
 * subset text is raw, and the caller must see LF only. */
static char *dtd_store_id(stax__dtd *d, const char *s, size_t n, size_t *out_len) {
    char *o = dtd_store(d, NULL, n);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r') {
            o[k++] = '\n';
            if (i + 1 < n && s[i + 1] == '\n') i++;
        } else {
            o[k++] = s[i];
        }
    }
    d->cur -= n - k; /* give back what normalizing saved */
    d->cur_left += n - k;
    *out_len = k;
    return o;
}

static int dtd_grow(stax__dtd *d, void **arr, size_t *cap, size_t elem, size_t need) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    if (ncap > SIZE_MAX / elem || dtd_account(d, (ncap - *cap) * elem)) return -1;
    void *p = stax__mem_realloc(d->mem, *arr, *cap * elem, ncap * elem);
    if (!p) {
        d->nomem = 1;
        return -1;
    }
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Names hash under the DTD's key (see stax__hash); salt keeps parameter and
 * general entities of one name apart. */
static uint32_t dtd_hash(const stax__dtd *d, const char *s, size_t n, int salt) {
    uint64_t h = stax__hash(&d->key, s, n);
    return (uint32_t)(h ^ (h >> 32)) ^ (uint32_t)salt * 0x9e3779b9u;
}

/* Insert index+1 into an open-addressing table keyed by names(index). */
static int dtd_hash_insert(stax__dtd *d, uint32_t **tab, size_t *cap, size_t count, uint32_t h, uint32_t idx,
                           uint32_t (*rehash)(const stax__dtd *, uint32_t)) {
    if ((count + 1) * 2 > *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        if (dtd_account(d, ncap * sizeof(uint32_t))) return -1;
        uint32_t *nt = stax__mem_alloc(d->mem, ncap * sizeof(uint32_t));
        if (!nt) {
            d->nomem = 1;
            return -1;
        }
        memset(nt, 0, ncap * sizeof(uint32_t));
        for (size_t i = 0; i < *cap; i++) {
            if (!(*tab)[i]) continue;
            size_t k = rehash(d, (*tab)[i] - 1) & (ncap - 1);
            while (nt[k]) k = (k + 1) & (ncap - 1);
            nt[k] = (*tab)[i];
        }
        stax__mem_free(d->mem, *tab, *cap * sizeof(uint32_t));
        d->used -= *cap * sizeof(uint32_t);
        *tab = nt;
        *cap = ncap;
    }
    size_t k = h & (*cap - 1);
    while ((*tab)[k]) k = (k + 1) & (*cap - 1);
    (*tab)[k] = idx + 1;
    return 0;
}

static uint32_t dtd_ent_rehash(const stax__dtd *d, uint32_t i) {
    return dtd_hash(d, d->ents[i].name.ptr, d->ents[i].name.len, d->ents[i].pe);
}
static uint32_t dtd_elem_rehash(const stax__dtd *d, uint32_t i) {
    return dtd_hash(d, d->elems[i].ptr, d->elems[i].len, 7);
}

void stax__dtd_init(stax__dtd *d, stax__mem *mem, size_t max, uint32_t max_depth, uint64_t amplification,
                    uint64_t threshold) {
    memset(d, 0, sizeof *d);
    d->mem = mem;
    stax__hash_key_init(&d->key, d);
    d->max = max;
    d->max_depth = max_depth;
    d->amplification = amplification;
    d->threshold = threshold;
}

/* Count entity text the DTD parser goes through (parameter entities, and
 * entities in default values), so that nested references cannot make it
 * work without bound even when they expand to nothing. */
static int dtd_expand(dtd_ctx *c, const char *at, size_t n) {
    stax__dtd *d = c->d;
    d->expanded += n + 1;
    if (d->expanded > d->expand_budget)
        return dtd_fail(c, at, STAX_E_LIMIT_ENTITY, "entity expansion in the DTD over its limits (%llu bytes)",
                        (unsigned long long)d->expanded);
    return 0;
}

void stax__dtd_free(stax__dtd *d) {
    stax__mem *m = d->mem;
    if (!m) return;
    for (stax__dtd_chunk *c = d->chunks, *n; c; c = n) {
        n = c->next;
        stax__mem_free(m, c, sizeof *c + c->size);
    }
    stax__mem_free(m, d->ents, d->cap_ents * sizeof *d->ents);
    stax__mem_free(m, d->ent_hash, d->ent_hash_cap * sizeof(uint32_t));
    stax__mem_free(m, d->atts, d->cap_atts * sizeof *d->atts);
    stax__mem_free(m, d->elems, d->cap_elems * sizeof *d->elems);
    stax__mem_free(m, d->elem_first, d->cap_elems * sizeof *d->elem_first);
    stax__mem_free(m, d->elem_hash, d->elem_hash_cap * sizeof(uint32_t));
    stax__mem_free(m, d->notations, d->cap_not * sizeof *d->notations);
    stax__mem_free(m, d->unparsed, d->cap_unp * sizeof *d->unparsed);
    stax__mem_free(m, d->pis, d->cap_pis * sizeof *d->pis);
    memset(d, 0, sizeof *d);
}

stax__entity *stax__dtd_entity(const stax__dtd *d, const char *name, size_t len, int pe) {
    if (!d->ent_hash_cap) return NULL;
    size_t k = dtd_hash(d, name, len, pe) & (d->ent_hash_cap - 1);
    for (uint32_t v; (v = d->ent_hash[k]) != 0; k = (k + 1) & (d->ent_hash_cap - 1)) {
        stax__entity *e = &d->ents[v - 1];
        if (e->pe == pe && e->name.len == len && memcmp(e->name.ptr, name, len) == 0) return e;
    }
    return NULL;
}

static int64_t dtd_elem_index(const stax__dtd *d, const char *name, size_t len) {
    if (!d->elem_hash_cap) return -1;
    size_t k = dtd_hash(d, name, len, 7) & (d->elem_hash_cap - 1);
    for (uint32_t v; (v = d->elem_hash[k]) != 0; k = (k + 1) & (d->elem_hash_cap - 1)) {
        const stax_str *e = &d->elems[v - 1];
        if (e->len == len && memcmp(e->ptr, name, len) == 0) return (int64_t)(v - 1);
    }
    return -1;
}

uint32_t stax__dtd_attlist(const stax__dtd *d, const char *elem, size_t len) {
    int64_t i = dtd_elem_index(d, elem, len);
    return i < 0 ? UINT32_MAX : d->elem_first[i];
}

/* ================================================================ lexical helpers */

static int dtd_is_ws(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* Skip whitespace; returns how many bytes were skipped. */
static size_t dtd_ws(dtd_ctx *c) {
    const char *s = c->p;
    while (c->p < c->end && dtd_is_ws(*c->p)) c->p++;
    return (size_t)(c->p - s);
}

static int dtd_need_ws(dtd_ctx *c, const char *what) {
    if (!dtd_ws(c)) return dtd_fail(c, c->p, STAX_E_DTD, "whitespace required %s", what);
    return 0;
}

static int dtd_lit(dtd_ctx *c, const char *kw) {
    size_t n = strlen(kw);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, kw, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

/* A Name (nmtoken: any NameChar first). Returns 0 and sets *out, or an error. */
static int dtd_name(dtd_ctx *c, stax_str *out, int nmtoken, const char *what) {
    const char *s = c->p;
    while (c->p < c->end) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch < 0x80) {
            if (!(stax__class[ch] & STAX__C_NAME)) break;
            c->p++;
            continue;
        }
        uint32_t cp;
        int l = stax__utf8_decode((const unsigned char *)c->p, (size_t)(c->end - c->p), &cp);
        if (l <= 0 || !stax__is_name_char(cp)) break;
        c->p += l;
    }
    size_t n = (size_t)(c->p - s);
    if (n == 0) return dtd_fail(c, s, STAX_E_DTD, "%s expected", what);
    if (!nmtoken && stax__check_name(s, n)) return dtd_fail(c, s, STAX_E_NAME, "invalid %s '%.*s'", what, (int)(n > 64 ? 64 : n), s);
    out->ptr = s;
    out->len = n;
    return 0;
}

static int dtd_quoted(dtd_ctx *c, stax_str *out, const char *what) {
    if (c->p >= c->end || (*c->p != '"' && *c->p != '\'')) return dtd_fail(c, c->p, STAX_E_DTD, "quoted %s expected", what);
    char q = *c->p++;
    const char *e = memchr(c->p, q, (size_t)(c->end - c->p));
    if (!e) return dtd_fail(c, c->p - 1, STAX_E_DTD, "unterminated %s", what);
    out->ptr = c->p;
    out->len = (size_t)(e - c->p);
    c->p = e + 1;
    return 0;
}

static int dtd_pubid_ok(stax_str s) {
    for (size_t i = 0; i < s.len; i++) {
        unsigned char ch = (unsigned char)s.ptr[i];
        if (!(ch == ' ' || ch == '\r' || ch == '\n' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || (ch && strchr("-'()+,./:=?;!*#@$_%", ch))))
            return 0;
    }
    return 1;
}

/* ExternalID (SYSTEM/PUBLIC), or for notations also a PublicID alone. Returns
 * 1 if none is there, 0 on success, or an error. */
static int dtd_external_id(dtd_ctx *c, stax_str *pub, stax_str *sys, int notation) {
    int is_pub;
    if (dtd_lit(c, "SYSTEM")) is_pub = 0;
    else if (dtd_lit(c, "PUBLIC")) is_pub = 1;
    else return 1;
    if (dtd_need_ws(c, "after SYSTEM or PUBLIC")) return c->d->err;
    if (is_pub) {
        const char *at = c->p;
        if (dtd_quoted(c, pub, "public id")) return c->d->err;
        if (!dtd_pubid_ok(*pub)) return dtd_fail(c, at, STAX_E_DTD, "character not allowed in a public id");
        const char *before = c->p;
        size_t ws = dtd_ws(c);
        if (notation && (c->p >= c->end || (*c->p != '"' && *c->p != '\''))) {
            c->p = before;
            return 0;
        }
        if (!ws) return dtd_fail(c, c->p, STAX_E_DTD, "whitespace required before the system id");
    }
    if (dtd_quoted(c, sys, "system id")) return c->d->err;
    return 0; /* a fragment id ('#') is an error only for validity: accepted */
}

static int dtd_chars_ok(dtd_ctx *c, const char *s, size_t n) {
    int err = 0;
    size_t bad = stax__check_chars(s, n, &err);
    if (bad != n) return dtd_fail(c, s + bad, err, "character not allowed in the DTD");
    return 0;
}

/* ================================================================ declarations */

static int dtd_subset(dtd_ctx *c);

/* Replacement text of an EntityValue: character references expanded,
 * general entity references kept, parameter-entity references refused (they
 * are not allowed inside declarations of the internal subset). */
static int dtd_entity_value(dtd_ctx *c, stax_str lit, stax_str *out) {
    stax__dtd *d = c->d;
    if (dtd_chars_ok(c, lit.ptr, lit.len)) return d->err;
    if (lit.len == 0) {
        out->ptr = "";
        out->len = 0;
        return 0;
    }
    /* the result is never longer than the literal */
    char *buf = dtd_store(d, NULL, lit.len), *o = buf;
    if (!buf && lit.len) return dtd_too_big(c, lit.ptr);
    for (size_t i = 0; i < lit.len;) {
        char ch = lit.ptr[i];
        if (ch == '%') {
            return dtd_fail(c, lit.ptr + i, STAX_E_DTD,
                            "a parameter-entity reference is not allowed inside a declaration of the internal subset");
        }
        if (ch == '\r') { /* line ends were not normalized in the DOCTYPE token */
            *o++ = '\n';
            i += (i + 1 < lit.len && lit.ptr[i + 1] == '\n') ? 2 : 1;
            continue;
        }
        if (ch != '&') {
            *o++ = ch;
            i++;
            continue;
        }
        const char *semi = memchr(lit.ptr + i, ';', lit.len - i);
        if (!semi) return dtd_fail(c, lit.ptr + i, STAX_E_DTD, "reference without ';' in an entity value");
        size_t rl = (size_t)(semi - (lit.ptr + i)) + 1;
        if (i + 1 < lit.len && lit.ptr[i + 1] == '#') {
            long v = stax__charref_value(lit.ptr + i, rl);
            if (v < 0) return dtd_fail(c, lit.ptr + i, STAX_E_CHARREF, "invalid character reference in an entity value");
            o += stax__utf8_encode((uint32_t)v, o);
        } else {
            if (stax__check_name(lit.ptr + i + 1, rl - 2))
                return dtd_fail(c, lit.ptr + i, STAX_E_NAME, "invalid entity reference in an entity value");
            memmove(o, lit.ptr + i, rl); /* general entity references are bypassed: kept as written */
            o += rl;
        }
        i += rl;
    }
    /* give back what the expansion did not use */
    size_t used = (size_t)(o - buf);
    d->cur_left += lit.len - used;
    d->cur -= lit.len - used;
    out->ptr = buf;
    out->len = used;
    return 0;
}

static int dtd_entity_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax__entity e;
    memset(&e, 0, sizeof e);
    if (dtd_need_ws(c, "after <!ENTITY")) return d->err;
    if (c->p < c->end && *c->p == '%') {
        e.pe = 1;
        c->p++;
        if (dtd_need_ws(c, "after '%'")) return d->err;
    }
    if (dtd_name(c, &e.name, 0, "entity name")) return d->err;
    if (d->no_colons && memchr(e.name.ptr, ':', e.name.len))
        return dtd_fail(c, e.name.ptr, STAX_E_NAMESPACE, "an entity name may not contain a colon with namespaces on");
    if (dtd_need_ws(c, "after the entity name")) return d->err;
    stax_str lit;
    if (c->p < c->end && (*c->p == '"' || *c->p == '\'')) {
        if (dtd_quoted(c, &lit, "entity value")) return d->err;
        if (!d->skip_decls && dtd_entity_value(c, lit, &e.value)) return d->err;
        if (d->skip_decls && dtd_chars_ok(c, lit.ptr, lit.len)) return d->err;
    } else {
        int rc = dtd_external_id(c, &e.pubid, &e.sysid, 0);
        if (rc) return rc > 0 ? dtd_fail(c, c->p, STAX_E_DTD, "entity value or external id expected") : rc;
        e.external = 1;
        const char *before = c->p;
        size_t ws = dtd_ws(c);
        if (dtd_lit(c, "NDATA")) {
            if (!ws) return dtd_fail(c, c->p - 5, STAX_E_DTD, "whitespace required before NDATA");
            if (e.pe) return dtd_fail(c, c->p - 5, STAX_E_DTD, "a parameter entity cannot be unparsed (NDATA)");
            if (dtd_need_ws(c, "after NDATA")) return d->err;
            if (dtd_name(c, &e.notation, 0, "notation name")) return d->err;
            e.unparsed = 1;
        } else {
            c->p = before;
        }
    }
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the entity declaration");
    c->p++;
    if (d->skip_decls || stax__dtd_entity(d, e.name.ptr, e.name.len, e.pe)) return 0; /* the first declaration wins */
    /* keep copies: the subset text lives in the caller's chunk */
    e.name.ptr = dtd_store(d, e.name.ptr, e.name.len);
    if (e.pubid.len) e.pubid.ptr = dtd_store_id(d, e.pubid.ptr, e.pubid.len, &e.pubid.len);
    if (e.sysid.len) e.sysid.ptr = dtd_store_id(d, e.sysid.ptr, e.sysid.len, &e.sysid.len);
    if (e.notation.len) e.notation.ptr = dtd_store(d, e.notation.ptr, e.notation.len);
    if (!e.name.ptr || (e.pubid.len && !e.pubid.ptr) || (e.sysid.len && !e.sysid.ptr) ||
        (e.notation.len && !e.notation.ptr))
        return dtd_too_big(c, c->p);
    if (!e.pubid.len) e.pubid.ptr = "";
    if (!e.sysid.len) e.sysid.ptr = "";
    if (!e.value.len) e.value.ptr = "";
    if (dtd_grow(d, (void **)&d->ents, &d->cap_ents, sizeof *d->ents, d->n_ents + 1) ||
        dtd_hash_insert(d, &d->ent_hash, &d->ent_hash_cap, d->n_ents, dtd_hash(d, e.name.ptr, e.name.len, e.pe),
                        (uint32_t)d->n_ents, dtd_ent_rehash))
        return dtd_too_big(c, c->p);
    d->ents[d->n_ents++] = e;
    if (e.unparsed) {
        if (dtd_grow(d, (void **)&d->unparsed, &d->cap_unp, sizeof *d->unparsed, d->n_unp + 1))
            return dtd_too_big(c, c->p);
        stax_decl *u = &d->unparsed[d->n_unp++];
        u->name = e.name;
        u->pubid = e.pubid;
        u->sysid = e.sysid;
        u->notation = e.notation;
    }
    return 0;
}

/* A content particle list: ( cp ( '|' cp )* ) or ( cp ( ',' cp )* ), nested. */
static int dtd_children(dtd_ctx *c, int depth) {
    if (depth > 64) return dtd_fail(c, c->p, STAX_E_LIMIT_DTD, "content model nested too deeply");
    char sep = 0;
    for (;;) {
        dtd_ws(c);
        if (c->p < c->end && *c->p == '(') {
            c->p++;
            if (dtd_children(c, depth + 1)) return c->d->err;
        } else {
            stax_str n;
            if (dtd_name(c, &n, 0, "element name in a content model")) return c->d->err;
        }
        if (c->p < c->end && (*c->p == '?' || *c->p == '*' || *c->p == '+')) c->p++;
        dtd_ws(c);
        if (c->p >= c->end) return dtd_fail(c, c->p, STAX_E_DTD, "unterminated content model");
        char ch = *c->p++;
        if (ch == ')') break;
        if (ch != '|' && ch != ',') return dtd_fail(c, c->p - 1, STAX_E_DTD, "'|', ',' or ')' expected in a content model");
        if (sep && ch != sep) return dtd_fail(c, c->p - 1, STAX_E_DTD, "'|' and ',' mixed in one group");
        sep = ch;
    }
    if (c->p < c->end && (*c->p == '?' || *c->p == '*' || *c->p == '+')) c->p++;
    return 0;
}

static int dtd_element_decl(dtd_ctx *c) {
    stax_str name;
    if (dtd_need_ws(c, "after <!ELEMENT") || dtd_name(c, &name, 0, "element name") ||
        dtd_need_ws(c, "after the element name"))
        return c->d->err;
    if (dtd_lit(c, "EMPTY") || dtd_lit(c, "ANY")) {
    } else if (c->p < c->end && *c->p == '(') {
        c->p++;
        dtd_ws(c);
        if (dtd_lit(c, "#PCDATA")) { /* Mixed */
            int names = 0;
            for (;;) {
                dtd_ws(c);
                if (c->p < c->end && *c->p == ')') {
                    c->p++;
                    break;
                }
                if (c->p >= c->end || *c->p != '|') return dtd_fail(c, c->p, STAX_E_DTD, "'|' or ')' expected in mixed content");
                c->p++;
                dtd_ws(c);
                stax_str n;
                if (dtd_name(c, &n, 0, "element name in mixed content")) return c->d->err;
                names++;
            }
            if (c->p < c->end && *c->p == '*') c->p++;
            else if (names) return dtd_fail(c, c->p, STAX_E_DTD, "mixed content with element names must end with ')*'");
        } else {
            if (dtd_children(c, 0)) return c->d->err;
        }
    } else {
        return dtd_fail(c, c->p, STAX_E_DTD, "EMPTY, ANY or a content model expected");
    }
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the element declaration");
    c->p++;
    return 0;
}

/* Normalize a default value (3.3.3): whitespace to #x20, references expanded. */
static int dtd_attr_default(dtd_ctx *c, stax_str lit, int type, stax_str *out) {
    stax__dtd *d = c->d;
    char tmp[512];
    char *buf = tmp;
    size_t cap = sizeof tmp, len = 0;
    int rc = 0;
    /* a small explicit stack of (text, position) for nested entity text */
    struct {
        stax_str s;
        size_t i;
        stax__entity *e;
    } st[32];
    int sp = 0;
    st[0].s = lit;
    st[0].i = 0;
    st[0].e = NULL;
    while (sp >= 0 && !rc) {
        if (st[sp].i >= st[sp].s.len) {
            if (st[sp].e) st[sp].e->busy = 0;
            sp--;
            continue;
        }
        const char *s = st[sp].s.ptr;
        size_t i = st[sp].i, n = st[sp].s.len;
        char ch = s[i];
        char enc[4];
        size_t add = 0;
        const char *addp = enc;
        if (ch == '<') {
            rc = dtd_fail(c, sp ? st[0].s.ptr + st[0].i : s + i, STAX_E_SYNTAX, "'<' is not allowed in an attribute value");
            break;
        }
        if (ch == '&') {
            const char *semi = memchr(s + i, ';', n - i);
            if (!semi) {
                rc = dtd_fail(c, s + i, STAX_E_DTD, "reference without ';' in a default value");
                break;
            }
            size_t rl = (size_t)(semi - (s + i)) + 1;
            if (i + 1 < n && s[i + 1] == '#') {
                long v = stax__charref_value(s + i, rl);
                if (v < 0) {
                    rc = dtd_fail(c, s + i, STAX_E_CHARREF, "invalid character reference in a default value");
                    break;
                }
                add = (size_t)stax__utf8_encode((uint32_t)v, enc);
                st[sp].i += rl;
            } else {
                const char *nm = s + i + 1;
                size_t nl = rl - 2;
                int pc = stax__predefined_entity(nm, nl);
                st[sp].i += rl;
                if (pc >= 0) {
                    enc[0] = (char)pc;
                    add = 1;
                } else {
                    if (stax__check_name(nm, nl)) {
                        rc = dtd_fail(c, s + i, STAX_E_NAME, "invalid entity reference in a default value");
                        break;
                    }
                    stax__entity *e = stax__dtd_entity(d, nm, nl, 0);
                    if (!e) {
                        if (stax__dtd_wfc_declared(d)) {
                            rc = dtd_fail(c, s + i, STAX_E_ENTITY, "undefined entity '%.*s' in a default value",
                                          (int)(nl > 64 ? 64 : nl), nm);
                            break;
                        }
                        continue; /* declared where the reader does not read: skipped */
                    }
                    if (e->external || e->unparsed) {
                        rc = dtd_fail(c, s + i, STAX_E_ENTITY, "reference to external entity '%.*s' in an attribute value",
                                      (int)(nl > 64 ? 64 : nl), nm);
                        break;
                    }
                    if (e->busy) {
                        rc = dtd_fail(c, s + i, STAX_E_ENTITY, "entity '%.*s' refers to itself", (int)(nl > 64 ? 64 : nl), nm);
                        break;
                    }
                    if (sp + 1 >= 32 || (uint32_t)sp + 1 > d->max_depth) {
                        rc = dtd_fail(c, s + i, STAX_E_LIMIT_ENTITY, "entity references nested too deeply");
                        break;
                    }
                    if (dtd_expand(c, st[0].s.ptr, e->value.len)) {
                        rc = d->err;
                        break;
                    }
                    e->busy = 1;
                    sp++;
                    st[sp].s = e->value;
                    st[sp].i = 0;
                    st[sp].e = e;
                    continue;
                }
            }
        } else if (ch == '\t' || ch == '\n' || ch == '\r') {
            enc[0] = ' ';
            add = 1;
            st[sp].i += (ch == '\r' && sp == 0 && i + 1 < n && s[i + 1] == '\n') ? 2 : 1;
        } else {
            addp = s + i;
            add = 1;
            st[sp].i++;
        }
        if (len + add > cap) {
            if (len + add > d->max - d->used) {
                rc = dtd_fail(c, st[0].s.ptr, STAX_E_LIMIT_DTD, "default value larger than max_dtd allows");
                break;
            }
            size_t ncap = cap * 2 > len + add ? cap * 2 : len + add;
            char *nb = stax__mem_realloc(d->mem, buf == tmp ? NULL : buf, buf == tmp ? 0 : cap, ncap);
            if (!nb) {
                d->nomem = 1;
                rc = dtd_too_big(c, st[0].s.ptr);
                break;
            }
            if (buf == tmp) memcpy(nb, tmp, len);
            buf = nb;
            cap = ncap;
        }
        memcpy(buf + len, addp, add);
        len += add;
    }
    for (; sp >= 0; sp--)
        if (st[sp].e) st[sp].e->busy = 0;
    if (!rc && type != STAX__AT_CDATA) { /* tokenized types: trim and collapse spaces */
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
            if (buf[i] == ' ' && (o == 0 || buf[o - 1] == ' ')) continue;
            buf[o++] = buf[i];
        }
        if (o && buf[o - 1] == ' ') o--;
        len = o;
    }
    if (!rc) {
        out->ptr = dtd_store(d, buf, len);
        out->len = len;
        if (!out->ptr) rc = dtd_too_big(c, st[0].s.ptr);
    }
    if (buf != tmp) stax__mem_free(d->mem, buf, cap);
    return rc;
}

static int dtd_attlist_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax_str elem;
    if (dtd_need_ws(c, "after <!ATTLIST") || dtd_name(c, &elem, 0, "element name")) return d->err;
    int64_t ei = -1;
    for (;;) {
        size_t ws = dtd_ws(c);
        if (c->p < c->end && *c->p == '>') {
            c->p++;
            return 0;
        }
        if (!ws) return dtd_fail(c, c->p, STAX_E_DTD, "whitespace required before an attribute definition");
        stax__attdef a;
        memset(&a, 0, sizeof a);
        if (dtd_name(c, &a.name, 0, "attribute name") || dtd_need_ws(c, "after the attribute name")) return d->err;
        static const char *const types[] = {"CDATA", "IDREFS", "IDREF", "ID", "ENTITY", "ENTITIES", "NMTOKENS", "NMTOKEN", "NOTATION"};
        static const unsigned char tcode[] = {STAX__AT_CDATA, STAX__AT_IDREFS, STAX__AT_IDREF, STAX__AT_ID, STAX__AT_ENTITY,
                                              STAX__AT_ENTITIES, STAX__AT_NMTOKENS, STAX__AT_NMTOKEN, STAX__AT_NOTATION};
        int t = -1;
        for (int k = 0; k < 9 && t < 0; k++) {
            size_t kl = strlen(types[k]);
            if ((size_t)(c->end - c->p) >= kl && memcmp(c->p, types[k], kl) == 0 &&
                (c->p + kl >= c->end || !(stax__class[(unsigned char)c->p[kl]] & STAX__C_NAME))) {
                t = k;
                c->p += kl;
            }
        }
        if (t >= 0) a.type = tcode[t];
        else a.type = STAX__AT_ENUM;
        if (a.type == STAX__AT_NOTATION || a.type == STAX__AT_ENUM) {
            if (a.type == STAX__AT_NOTATION && dtd_need_ws(c, "after NOTATION")) return d->err;
            if (c->p >= c->end || *c->p != '(') return dtd_fail(c, c->p, STAX_E_DTD, "attribute type expected");
            c->p++;
            for (;;) {
                dtd_ws(c);
                stax_str tok;
                if (dtd_name(c, &tok, a.type == STAX__AT_ENUM, "enumerated value")) return d->err;
                dtd_ws(c);
                if (c->p < c->end && *c->p == ')') {
                    c->p++;
                    break;
                }
                if (c->p >= c->end || *c->p != '|') return dtd_fail(c, c->p, STAX_E_DTD, "'|' or ')' expected in an enumeration");
                c->p++;
            }
        }
        if (dtd_need_ws(c, "after the attribute type")) return d->err;
        stax_str lit = {0, 0};
        if (dtd_lit(c, "#REQUIRED")) a.deflt = STAX__DEF_REQUIRED;
        else if (dtd_lit(c, "#IMPLIED")) a.deflt = STAX__DEF_IMPLIED;
        else {
            a.deflt = STAX__DEF_VALUE;
            if (dtd_lit(c, "#FIXED")) {
                a.deflt = STAX__DEF_FIXED;
                if (dtd_need_ws(c, "after #FIXED")) return d->err;
            }
            if (dtd_quoted(c, &lit, "default value")) return d->err;
            if (dtd_chars_ok(c, lit.ptr, lit.len)) return d->err;
        }
        if (c->p < c->end && !dtd_is_ws(*c->p) && *c->p != '>')
            return dtd_fail(c, c->p, STAX_E_DTD, "whitespace or '>' expected after an attribute definition");
        if (d->skip_decls) {
            if (lit.ptr && memchr(lit.ptr, '<', lit.len))
                return dtd_fail(c, memchr(lit.ptr, '<', lit.len), STAX_E_SYNTAX, "'<' is not allowed in an attribute value");
            continue;
        }
        if (lit.ptr && dtd_attr_default(c, lit, a.type, &a.value)) return d->err;
        /* the first definition of an attribute wins */
        if (ei < 0) ei = dtd_elem_index(d, elem.ptr, elem.len);
        if (ei >= 0) {
            int dup = 0;
            for (uint32_t k = d->elem_first[ei]; k != UINT32_MAX && !dup; k = d->atts[k].next)
                dup = d->atts[k].name.len == a.name.len && memcmp(d->atts[k].name.ptr, a.name.ptr, a.name.len) == 0;
            if (dup) continue;
        } else {
            stax_str en = {dtd_store(d, elem.ptr, elem.len), elem.len};
            size_t cap = d->cap_elems;
            if (!en.ptr || dtd_grow(d, (void **)&d->elems, &cap, sizeof *d->elems, d->n_elems + 1))
                return dtd_too_big(c, c->p);
            size_t cap2 = d->cap_elems;
            if (dtd_grow(d, (void **)&d->elem_first, &cap2, sizeof *d->elem_first, d->n_elems + 1))
                return dtd_too_big(c, c->p);
            d->cap_elems = cap;
            ei = (int64_t)d->n_elems;
            d->elems[ei] = en;
            d->elem_first[ei] = UINT32_MAX;
            if (dtd_hash_insert(d, &d->elem_hash, &d->elem_hash_cap, d->n_elems, dtd_hash(d, en.ptr, en.len, 7),
                                (uint32_t)ei, dtd_elem_rehash))
                return dtd_too_big(c, c->p);
            d->n_elems++;
        }
        a.name.ptr = dtd_store(d, a.name.ptr, a.name.len);
        if (!a.name.ptr || dtd_grow(d, (void **)&d->atts, &d->cap_atts, sizeof *d->atts, d->n_atts + 1))
            return dtd_too_big(c, c->p);
        if (!a.value.ptr) a.value.ptr = "";
        /* append at the end of the element's list, keeping declaration order */
        a.next = UINT32_MAX;
        uint32_t idx = (uint32_t)d->n_atts;
        d->atts[d->n_atts++] = a;
        uint32_t *link = &d->elem_first[ei];
        while (*link != UINT32_MAX) link = &d->atts[*link].next;
        *link = idx;
    }
}

static int dtd_notation_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax_decl n;
    memset(&n, 0, sizeof n);
    if (dtd_need_ws(c, "after <!NOTATION") || dtd_name(c, &n.name, 0, "notation name")) return d->err;
    if (d->no_colons && memchr(n.name.ptr, ':', n.name.len))
        return dtd_fail(c, n.name.ptr, STAX_E_NAMESPACE, "a notation name may not contain a colon with namespaces on");
    if (dtd_need_ws(c, "after the notation name")) return d->err;
    int rc = dtd_external_id(c, &n.pubid, &n.sysid, 1);
    if (rc) return rc > 0 ? dtd_fail(c, c->p, STAX_E_DTD, "SYSTEM or PUBLIC expected in a notation") : rc;
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the notation declaration");
    c->p++;
    for (size_t i = 0; i < d->n_not; i++)
        if (d->notations[i].name.len == n.name.len && memcmp(d->notations[i].name.ptr, n.name.ptr, n.name.len) == 0)
            return 0;
    n.name.ptr = dtd_store(d, n.name.ptr, n.name.len);
    n.pubid.ptr = n.pubid.len ? dtd_store_id(d, n.pubid.ptr, n.pubid.len, &n.pubid.len) : "";
    n.sysid.ptr = n.sysid.len ? dtd_store_id(d, n.sysid.ptr, n.sysid.len, &n.sysid.len) : (n.sysid.ptr ? "" : NULL);
    n.notation.ptr = "";
    if (!n.name.ptr || !n.pubid.ptr || dtd_grow(d, (void **)&d->notations, &d->cap_not, sizeof *d->notations, d->n_not + 1))
        return dtd_too_big(c, c->p);
    d->notations[d->n_not++] = n;
    return 0;
}

static int dtd_pi(dtd_ctx *c) {
    const char *start = c->p - 2;
    stax_str target;
    if (dtd_name(c, &target, 0, "processing instruction target")) return c->d->err;
    if (target.len == 3 && (target.ptr[0] | 32) == 'x' && (target.ptr[1] | 32) == 'm' && (target.ptr[2] | 32) == 'l')
        return dtd_fail(c, start, STAX_E_SYNTAX, "the PI target 'xml' is reserved");
    if (c->d->no_colons && memchr(target.ptr, ':', target.len))
        return dtd_fail(c, target.ptr, STAX_E_NAMESPACE, "a PI target may not contain a colon with namespaces on");
    const char *e = NULL;
    for (const char *q = c->p; q + 1 < c->end; q++)
        if (q[0] == '?' && q[1] == '>') {
            e = q;
            break;
        }
    if (!e) return dtd_fail(c, start, STAX_E_DTD, "unterminated processing instruction");
    if (c->p < e && !dtd_is_ws(*c->p)) return dtd_fail(c, c->p, STAX_E_SYNTAX, "whitespace required after the PI target");
    if (dtd_chars_ok(c, c->p, (size_t)(e - c->p))) return c->d->err;
    /* kept, line ends normalized, for the reader to report */
    stax__dtd *d = c->d;
    while (c->p < e && dtd_is_ws(*c->p)) c->p++;
    size_t dl = (size_t)(e - c->p), o = 0;
    char *data = dtd_store(d, NULL, dl), *t = dtd_store(d, target.ptr, target.len);
    if ((!data && dl) || !t || dtd_grow(d, (void **)&d->pis, &d->cap_pis, sizeof *d->pis, d->n_pis + 1))
        return dtd_too_big(c, start);
    for (size_t i = 0; i < dl; i++) {
        if (c->p[i] == '\r') {
            data[o++] = '\n';
            if (i + 1 < dl && c->p[i + 1] == '\n') i++;
        } else {
            data[o++] = c->p[i];
        }
    }
    d->pis[d->n_pis].target.ptr = t;
    d->pis[d->n_pis].target.len = target.len;
    d->pis[d->n_pis].data.ptr = data ? data : "";
    d->pis[d->n_pis].data.len = o;
    d->n_pis++;
    c->p = e + 2;
    return 0;
}

static int dtd_comment(dtd_ctx *c) {
    const char *start = c->p - 4;
    for (const char *q = c->p; q + 1 < c->end; q++) {
        if (q[0] != '-' || q[1] != '-') continue;
        if (q + 2 < c->end && q[2] == '>') {
            if (dtd_chars_ok(c, c->p, (size_t)(q - c->p))) return c->d->err;
            c->p = q + 3;
            return 0;
        }
        return dtd_fail(c, q, STAX_E_SYNTAX, "'--' is not allowed inside a comment");
    }
    return dtd_fail(c, start, STAX_E_DTD, "unterminated comment");
}

static int dtd_pe_ref(dtd_ctx *c) {
    stax__dtd *d = c->d;
    const char *at = c->p - 1;
    stax_str name;
    if (dtd_name(c, &name, 0, "parameter entity name")) return d->err;
    if (c->p >= c->end || *c->p != ';') return dtd_fail(c, c->p, STAX_E_DTD, "';' expected after a parameter-entity reference");
    c->p++;
    d->has_pe_ref = 1;
    stax__entity *e = stax__dtd_entity(d, name.ptr, name.len, 1);
    if (!e) {
        if (d->standalone) return dtd_fail(c, at, STAX_E_ENTITY, "undefined parameter entity '%.*s'", (int)(name.len > 64 ? 64 : name.len), name.ptr);
        d->skip_decls = 1; /* it may have held declarations: process no more ENTITY/ATTLIST (5.1) */
        return 0;
    }
    if (e->external) {
        if (!d->standalone) d->skip_decls = 1;
        return 0;
    }
    if (e->busy) return dtd_fail(c, at, STAX_E_ENTITY, "parameter entity '%.*s' refers to itself", (int)(name.len > 64 ? 64 : name.len), name.ptr);
    if (c->depth + 1 > d->max_depth) return dtd_fail(c, at, STAX_E_LIMIT_ENTITY, "parameter entities nested too deeply");
    if (dtd_expand(c, at, e->value.len)) return d->err;
    dtd_ctx sub = {d, e->value.ptr, e->value.ptr + e->value.len, c->anchor ? c->anchor : at, c->depth + 1};
    e->busy = 1;
    int rc = dtd_subset(&sub);
    e->busy = 0;
    return rc;
}

/* intSubset ::= (markupdecl | DeclSep)*  (or the replacement text of a parameter entity) */
static int dtd_subset(dtd_ctx *c) {
    for (;;) {
        dtd_ws(c);
        if (c->p >= c->end) return 0;
        const char *at = c->p;
        int rc;
        if (*c->p == '%') {
            c->p++;
            rc = dtd_pe_ref(c);
        } else if (dtd_lit(c, "<!ENTITY")) {
            rc = dtd_entity_decl(c);
        } else if (dtd_lit(c, "<!ELEMENT")) {
            rc = dtd_element_decl(c);
        } else if (dtd_lit(c, "<!ATTLIST")) {
            rc = dtd_attlist_decl(c);
        } else if (dtd_lit(c, "<!NOTATION")) {
            rc = dtd_notation_decl(c);
        } else if (dtd_lit(c, "<!--")) {
            rc = dtd_comment(c);
        } else if (dtd_lit(c, "<?")) {
            rc = dtd_pi(c);
        } else if (dtd_lit(c, "<![")) {
            rc = dtd_fail(c, at, STAX_E_DTD, "conditional sections are not allowed in the internal subset");
        } else {
            rc = dtd_fail(c, at, STAX_E_DTD, "markup declaration expected in the DTD");
        }
        if (rc) return rc;
    }
}

int stax__dtd_parse(stax__dtd *d, const char *p, size_t n) {
    dtd_ctx c = {d, p, p + n, NULL, 0};
    /* the same rule as expansion in content: free up to the threshold, then
     * at most amplification bytes per byte of the subset */
    uint64_t amp = d->amplification * (uint64_t)(n + 1);
    d->expand_budget = amp > d->threshold ? amp : d->threshold;
    return dtd_subset(&c);
}
