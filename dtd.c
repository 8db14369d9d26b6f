/* The DTD: the internal subset, and through the resolver the external
 * subset and external parameter entities. Every markup declaration is parsed
 * and checked for well-formedness; entities, attribute-list declarations and
 * notations are kept for the reader (dtd_ prefix for file-local names).
 *
 * A subset is parsed whole (the internal one once the DOCTYPE token is
 * complete, the external one once read), so this is a recursive-descent
 * parser over contiguous text. Parameter-entity references switch the parser
 * to the entity's text, one level of d->levels per entity (never C
 * recursion): between declarations (DeclSep), inside declarations of the
 * external subset and external parameter entities, where the text counts
 * with a space before and after it (4.4.8), and inside entity values there
 * (4.4.5). An error inside a parameter entity is reported at the outermost
 * reference in the internal subset (or at the DOCTYPE, for the external
 * subset), and its message says where in the innermost external entity. */
#include "dtd.h"
#include "entities.h"
#include "external.h"
#include "namespaces.h"

#include <stdarg.h>
#ifndef STAX_NO_DTD /* else omitted.c stands in */


/* ================================================================ errors */

/* The kinds of levels of text. */
enum { DL_INTERNAL, /* the internal subset */
       DL_EXTERNAL, /* the external subset */
       DL_DECLSEP,  /* a parameter entity referenced between declarations */
       DL_INDECL,   /* ... inside a declaration ("included as PE") */
       DL_LITERAL   /* ... inside an entity value ("included in literal") */
};

/* One level of text: the subset (level 0), or a parameter entity's text. */
struct stax__dtd_level {
    const char *p, *end; /* where it stands while a level above it is read */
    const char *ref;     /* the '%' that entered it, in the level below */
    stax__entity *ent;   /* its entity, or NULL */
    stax__xtext *xt;     /* its external text, or NULL */
    stax_str base;       /* xt's base, copied into the region once a declaration needs it */
    int kind;            /* DL_* */
    int ext;             /* external context: references inside declarations, conditional sections */
    uint32_t sections;   /* INCLUDE sections open when it was entered */
};

typedef struct dtd_ctx {
    stax__dtd *d;
    const char *p, *end;  /* the text being read: the top level's */
    stax__dtd_level lv0;  /* level 0: the subset; the levels above are d->levels */
    uint32_t top;         /* the top level */
    uint32_t floor;       /* in a declaration: dtd_ws leaves no level at or below it */
    uint32_t sections;    /* INCLUDE sections open */
} dtd_ctx;

/* Where an error at `at` is reported in the document: in the internal
 * subset, at the outermost parameter-entity reference when it lies in an
 * entity; in the external subset, anywhere there (the reader reports the
 * DOCTYPE for a byte outside its token). */
static stax__dtd_level *dtd_lv(dtd_ctx *c, uint32_t k) { return k ? &c->d->levels[k - 1] : &c->lv0; }

static const char *dtd_anchor(dtd_ctx *c, const char *at) {
    return c->top && dtd_lv(c, 0)->kind == DL_INTERNAL ? dtd_lv(c, 1)->ref : at;
}

/* Name the innermost external entity in the message, with the line and
 * column of `at` in it (or of the reference that led out of it). */
static void dtd_where(dtd_ctx *c, const char *at) {
    for (uint32_t k = c->top + 1; k-- > 0;) {
        if (!dtd_lv(c, k)->xt) continue;
        stax__ext_where(dtd_lv(c, k)->xt, k == c->top ? at : dtd_lv(c, k + 1)->ref, c->d->err->msg, c->d->err->cap);
        return;
    }
}

static int dtd_fail(dtd_ctx *c, const char *at, int code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int dtd_fail(dtd_ctx *c, const char *at, int code, const char *fmt, ...) {
    stax__dtd *d = c->d;
    if (d->status) return d->status;
    va_list ap;
    va_start(ap, fmt);
    d->status = stax__err_vset(d->err, code, dtd_anchor(c, at), 0, fmt, ap);
    va_end(ap);
    dtd_where(c, at);
    if (code == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return code;
}
#ifdef STAX_NO_MESSAGES /* short messages: the sentences are not compiled in */
#define dtd_fail(c, at, code, ...) (STAX__NO_MESSAGE(__VA_ARGS__), dtd_fail((c), (at), (code), "%s", ""))
#endif

/* An error already in d->err (from entities.c): anchored like dtd_fail's.
 * where: name the external entity it is in (the loader's own errors already do). */
static int dtd_fail_err(dtd_ctx *c, int where) {
    stax__dtd *d = c->d;
    if (d->status) return d->status;
    const char *at = d->err->at;
    d->status = d->err->code;
    d->err->at = dtd_anchor(c, at);
    if (where) dtd_where(c, at);
    if (d->status == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return d->status;
}

/* The region refused an allocation: the DTD is over max_dtd. */
static int dtd_too_big(dtd_ctx *c, const char *at) {
    return dtd_fail(c, at, STAX_E_LIMIT_DTD, "DTD larger than max_dtd (%zu bytes)", c->d->max);
}


/* Count entity text the DTD parser goes through (parameter entities, and
 * entities in default values), so that nested references cannot make it
 * work without bound even when they expand to nothing. */
static int dtd_expand(dtd_ctx *c, const char *at, size_t n) {
    stax__dtd *d = c->d;
    return stax__meter_add(&d->meter, n, d->threshold, (uint32_t)d->amplification, d->err, at) ? dtd_fail_err(c, 1) : 0;
}

/* ================================================================ lexical helpers */


static int dtd_pe_ref(dtd_ctx *c, int kind, int *entered);
static void dtd_leave(dtd_ctx *c);

/* A parameter-entity reference starts at c->p: '%' and a name start. */
static int dtd_at_pe_ref(dtd_ctx *c) {
    if (*c->p != '%' || c->p + 1 >= c->end) return 0;
    unsigned char ch = (unsigned char)c->p[1];
    return ch >= 0x80 || (stax__class[ch] & STAX__C_NSTART);
}

/* Skip whitespace inside a declaration; returns how much was skipped (> 0
 * when there was any). In the external subset and external parameter
 * entities, parameter-entity references are whitespace too: the parser goes
 * on in the entity's text, with a space before and after it (4.4.8). */
static size_t dtd_ws(dtd_ctx *c) {
    size_t n = 0;
    for (;;) {
        while (c->p < c->end && stax__is_ws((unsigned char)*c->p)) c->p++, n++;
        if (c->d->status) return n;
        if (c->p >= c->end) {
            if (c->top <= c->floor) return n;
            dtd_leave(c);
            n++; /* the space after the entity's text */
            continue;
        }
        if (!dtd_at_pe_ref(c)) return n;
        int entered;
        if (!dtd_lv(c, c->top)->ext) {
            dtd_fail(c, c->p, STAX_E_DTD, "a parameter-entity reference is not allowed inside a declaration of the internal subset");
            return n;
        }
        if (dtd_pe_ref(c, DL_INDECL, &entered)) return n;
        n++; /* the space before it (an entity not read is a space too) */
    }
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
    if (!nmtoken && stax__check_name(s, n)) return dtd_fail(c, s, STAX_E_NAME, "invalid %s '%.*s'", what, stax__clip(n, 64), s);
    out->ptr = s;
    out->len = n;
    return 0;
}

static int dtd_quoted(dtd_ctx *c, stax_str *out, const char *what) {
    size_t i = 0;
    int q = stax__quoted(c->p, (size_t)(c->end - c->p), &i, out);
    if (q == STAX__NOT_QUOTED) return dtd_fail(c, c->p, STAX_E_DTD, "quoted %s expected", what);
    if (q == STAX__UNTERMINATED) return dtd_fail(c, c->p, STAX_E_DTD, "unterminated %s", what);
    c->p += i;
    return 0;
}

static int dtd_pubid_ok(stax_str s) {
    for (size_t i = 0; i < s.len; i++) {
        unsigned char ch = (unsigned char)s.ptr[i];
        if (!stax__is_pubid_char(ch)) return 0;
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
    if (dtd_need_ws(c, "after SYSTEM or PUBLIC")) return c->d->status;
    if (is_pub) {
        const char *at = c->p;
        if (dtd_quoted(c, pub, "public id")) return c->d->status;
        if (!dtd_pubid_ok(*pub)) return dtd_fail(c, at, STAX_E_DTD, "character not allowed in a public id");
        size_t ws = dtd_ws(c);
        if (notation && (c->p >= c->end || (*c->p != '"' && *c->p != '\''))) return 0;
        if (!ws) return dtd_fail(c, c->p, STAX_E_DTD, "whitespace required before the system id");
    }
    if (dtd_quoted(c, sys, "system id")) return c->d->status;
    return 0; /* a fragment id ('#') is an error only for validity: accepted */
}

static int dtd_chars_ok(dtd_ctx *c, const char *s, size_t n) {
    int err = 0;
    size_t bad = stax__check_chars(s, n, &err);
    if (bad != n) return dtd_fail(c, s + bad, err, "character not allowed in the DTD");
    return 0;
}

/* ================================================================ declarations */

/* Replacement text that reads in content as one TEXT of itself: characters
 * only, none that text parsing looks at ('<', '&', CR, ']'). */
/* The replacement text of an entity value from c->p on (4.5): character
 * references expanded, general entity references kept as written, and in
 * external context parameter-entity references included in literal (4.4.5):
 * their text read in place, as if written there. Stops at the end of the
 * level `bottom`. */
static int dtd_value_text(dtd_ctx *c, uint32_t bottom, stax__out *o) {
    for (;;) {
        if (c->p >= c->end) {
            if (c->top == bottom) return 0;
            dtd_leave(c);
            continue;
        }
        char ch = *c->p;
        if (ch == '%') {
            int entered;
            if (!dtd_lv(c, c->top)->ext)
                return dtd_fail(c, c->p, STAX_E_DTD,
                                "a parameter-entity reference is not allowed inside a declaration of the internal subset");
            if (dtd_pe_ref(c, DL_LITERAL, &entered)) return c->d->status;
            continue;
        }
        if (ch == '\r') { /* line ends were not normalized in the DOCTYPE token */
            stax__out_byte(o, '\n');
            c->p += (c->p + 1 < c->end && c->p[1] == '\n') ? 2 : 1;
            continue;
        }
        if (ch != '&') {
            stax__out_byte(o, ch);
            c->p++;
            continue;
        }
        const char *amp = c->p, *semi = (const char *)memchr(amp, ';', (size_t)(c->end - amp));
        if (!semi) return dtd_fail(c, amp, STAX_E_DTD, "reference without ';' in an entity value");
        size_t rl = (size_t)(semi - amp) + 1;
        if (rl > 1 && amp[1] == '#') {
            long v = stax__charref_value(amp, rl);
            if (v < 0) return dtd_fail(c, amp, STAX_E_CHARREF, "invalid character reference in an entity value");
            stax__out_cp(o, (uint32_t)v);
        } else {
            if (stax__check_name(amp + 1, rl - 2))
                return dtd_fail(c, amp, STAX_E_NAME, "invalid entity reference in an entity value");
            stax__out_put(o, amp, rl); /* general entity references are bypassed: kept as written */
        }
        c->p += rl;
        if (o->over) return 0;
    }
}

/* Replacement text of an EntityValue literal, stored in the region. */
static int dtd_entity_value(dtd_ctx *c, stax_str lit, stax_str *out) {
    stax__dtd *d = c->d;
    if (dtd_chars_ok(c, lit.ptr, lit.len)) return d->status;
    if (lit.len == 0) {
        out->ptr = "";
        out->len = 0;
        return 0;
    }
    /* Without parameter entities the value is never longer than the literal
     * (a window of its size checks it); with them, the largest free piece of
     * the region is the window, and the value goes to the chunks after. */
    int pe = dtd_lv(c, c->top)->ext && memchr(lit.ptr, '%', lit.len);
    size_t got = lit.len;
    /* the levels the references may enter first: the window takes the rest */
    if (pe && stax__dtd_grow(d, (void **)&d->levels, &d->cap_levels, sizeof *d->levels, d->max_depth)) return dtd_too_big(c, lit.ptr);
    char *buf = !pe ? stax__dtd_store(d, NULL, lit.len) : d->mem.block ? (char *)stax__mem_alloc_upto(&d->mem, SIZE_MAX, &got) : NULL;
    if (!buf) return dtd_too_big(c, lit.ptr);
    stax__out o = stax__out_make(buf, got);
    const char *p = c->p, *end = c->end;
    uint32_t bottom = c->top;
    c->p = lit.ptr;
    c->end = lit.ptr + lit.len;
    int rc = dtd_value_text(c, bottom, &o);
    while (c->top > bottom) dtd_leave(c);
    c->p = p;
    c->end = end;
    if (!rc && o.over)
        rc = pe ? dtd_too_big(c, lit.ptr) : dtd_fail(c, lit.ptr, STAX_E_INTERNAL, "internal error: an entity value grew when decoded");
    size_t used = rc ? 0 : (size_t)(o.p - buf);
    out->ptr = buf;
    out->len = used;
    if (!pe) stax__dtd_unstore(d, got - used); /* give back what the expansion did not use */
    else out->ptr = stax__dtd_settle(d, buf, got, used);
    return rc;
}

/* The base of the external declarations read now: that of the innermost
 * external entity, copied into the region once (empty: the document's). */
static int dtd_decl_base(dtd_ctx *c, stax_str *base) {
    base->ptr = "";
    base->len = 0;
    for (uint32_t k = c->top + 1; k-- > 0;) {
        stax__dtd_level *l = dtd_lv(c, k);
        if (!l->xt) continue;
        if (!l->base.ptr && !(l->base.ptr = stax__dtd_store(c->d, l->xt->base.ptr, l->xt->base.len))) return -1;
        l->base.len = l->xt->base.len;
        *base = l->base;
        return 0;
    }
    return 0;
}

static int dtd_entity_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax__entity_decl e;
    memset(&e, 0, sizeof e);
    if (dtd_need_ws(c, "after <!ENTITY")) return d->status;
    int pe = c->p < c->end && *c->p == '%';
    if (pe) {
        e.flags |= STAX__ENT_PE;
        c->p++;
        if (dtd_need_ws(c, "after '%'")) return d->status;
    }
    if (dtd_name(c, &e.name, 0, "entity name")) return d->status;
    if (d->no_colons && memchr(e.name.ptr, ':', e.name.len))
        return dtd_fail(c, e.name.ptr, STAX_E_NAMESPACE, "an entity name may not contain a colon with namespaces on");
    if (dtd_need_ws(c, "after the entity name")) return d->status;
    stax_str lit;
    if (c->p < c->end && (*c->p == '"' || *c->p == '\'')) {
        if (dtd_quoted(c, &lit, "entity value")) return d->status;
        if (!d->skip_decls && dtd_entity_value(c, lit, &e.value)) return d->status;
        if (d->skip_decls && dtd_chars_ok(c, lit.ptr, lit.len)) return d->status;
    } else {
        int rc = dtd_external_id(c, &e.pubid, &e.sysid, 0);
        if (rc) return rc > 0 ? dtd_fail(c, c->p, STAX_E_DTD, "entity value or external id expected") : rc;
        e.flags |= STAX__ENT_EXTERNAL;
        size_t ws = dtd_ws(c);
        if (dtd_lit(c, "NDATA")) {
            if (!ws) return dtd_fail(c, c->p - 5, STAX_E_DTD, "whitespace required before NDATA");
            if (pe) return dtd_fail(c, c->p - 5, STAX_E_DTD, "a parameter entity cannot be unparsed (NDATA)");
            if (dtd_need_ws(c, "after NDATA")) return d->status;
            if (dtd_name(c, &e.notation, 0, "notation name")) return d->status;
            e.flags |= STAX__ENT_UNPARSED;
        }
    }
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the entity declaration");
    c->p++;
    if (d->skip_decls) return 0;
    if (stax__dtd_entity(d, e.name.ptr, e.name.len, pe)) { /* the first declaration wins */
        stax__dtd_drop(d, e.value.ptr, e.value.len);
        return 0;
    }
    if (c->floor > 0 || dtd_lv(c, 0)->kind != DL_INTERNAL) e.flags |= STAX__ENT_EXT_DECL;
    int external = (e.flags & STAX__ENT_EXTERNAL) != 0, unparsed = (e.flags & STAX__ENT_UNPARSED) != 0;
    /* keep copies: the subset text lives in the caller's chunk (the name is
     * copied into the record, which finds the value where it was stored) */
    if (external && !unparsed && dtd_decl_base(c, &e.base)) return dtd_too_big(c, c->p);
    if (e.pubid.len) e.pubid.ptr = stax__dtd_store_pubid(d, e.pubid.ptr, e.pubid.len, &e.pubid.len);
    if (e.sysid.len) e.sysid.ptr = stax__dtd_store_id(d, e.sysid.ptr, e.sysid.len, &e.sysid.len);
    if (e.notation.len) e.notation.ptr = stax__dtd_store(d, e.notation.ptr, e.notation.len);
    if ((e.pubid.len && !e.pubid.ptr) || (e.sysid.len && !e.sysid.ptr) || (e.notation.len && !e.notation.ptr))
        return dtd_too_big(c, c->p);
    if (!e.pubid.len) e.pubid.ptr = "";
    if (!e.sysid.len) e.sysid.ptr = "";
    if (!e.notation.len) e.notation.ptr = "";
    if (!e.base.len) e.base.ptr = "";
    if (!e.value.len) e.value.ptr = "";
    stax__entity *rec = stax__dtd_add_entity(d, &e);
    if (!rec || (unparsed && stax__dtd_add_unparsed(d, rec))) return dtd_too_big(c, c->p);
    return 0;
}

/* A content particle list: ( cp ( '|' cp )* ) or ( cp ( ',' cp )* ), nested. */
static int dtd_children(dtd_ctx *c, int depth) {
    if (depth > 64) return dtd_fail(c, c->p, STAX_E_LIMIT_DTD, "content model nested more than 64 groups deep");
    char sep = 0;
    for (;;) {
        dtd_ws(c);
        if (c->p < c->end && *c->p == '(') {
            c->p++;
            if (dtd_children(c, depth + 1)) return c->d->status;
        } else {
            stax_str n;
            if (dtd_name(c, &n, 0, "element name in a content model")) return c->d->status;
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

/* With namespaces on, the names of element types and attributes in the DTD
 * are QNames (Namespaces 1.0, section 5). */
static int dtd_qname(dtd_ctx *c, stax_str name, const char *what) {
#ifndef STAX_NO_NAMESPACES
    stax_str prefix, local;
    if (!c->d->no_colons || stax__qname_split(name, &prefix, &local) == 0) return 0;
    return dtd_fail(c, name.ptr, STAX_E_NAMESPACE, "%s '%.*s' is not a QName (namespaces are on)", what,
                    stax__clip(name.len, 64), name.ptr);
#else
    (void)c, (void)name, (void)what;
    return 0;
#endif
}

static int dtd_element_decl(dtd_ctx *c) {
    stax_str name;
    if (dtd_need_ws(c, "after <!ELEMENT") || dtd_name(c, &name, 0, "element name") ||
        dtd_qname(c, name, "the element type") || dtd_need_ws(c, "after the element name"))
        return c->d->status;
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
                if (dtd_name(c, &n, 0, "element name in mixed content")) return c->d->status;
                names++;
            }
            if (c->p < c->end && *c->p == '*') c->p++;
            else if (names) return dtd_fail(c, c->p, STAX_E_DTD, "mixed content with element names must end with ')*'");
        } else {
            if (dtd_children(c, 0)) return c->d->status;
        }
    } else {
        return dtd_fail(c, c->p, STAX_E_DTD, "EMPTY, ANY or a content model expected");
    }
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the element declaration");
    c->p++;
    return 0;
}

/* Normalize a default value (3.3.3) with the reader's normalizer, in place
 * in the region: the largest free piece of it (at most max_token bytes) is
 * the window, and the value goes to the chunks after. */
static int dtd_attr_default(dtd_ctx *c, stax_str lit, int type, stax_str *out) {
    stax__dtd *d = c->d;
    size_t got = 0;
    /* Without a reference the value is never longer than the literal: it
     * goes to the chunks like any string (finding the largest free piece
     * walks the whole region, which thousands of defaults make quadratic). */
    int plain = !memchr(lit.ptr, '&', lit.len);
    char *buf = plain ? stax__dtd_store(d, NULL, got = lit.len)
                : d->mem.block ? (char *)stax__mem_alloc_upto(&d->mem, d->max_token, &got) : NULL;
    if (!buf) return dtd_too_big(c, lit.ptr);
    stax__attnorm a;
    a.dtd = d;
    a.max_name = d->max_name;
    a.frames = d->frames;
    a.n_frames = d->max_depth;
    a.max_depth = d->max_depth;
    a.meter = &d->meter;
    a.threshold = d->threshold;
    a.amplification = (uint32_t)d->amplification; /* set from a uint32_t option */
    a.max_out = d->max_token;
    a.max_token = d->max_token;
    a.raw = 1;
    a.tokenized = type != STAX__AT_CDATA;
    a.in_dtd = 1;
    stax__out o = stax__out_make(buf, got);
    int rc = stax__attr_normalize(&a, lit.ptr, lit.len, &o, d->err);
    size_t len = rc ? 0 : (size_t)(o.p - buf);
    if (plain) {
        stax__dtd_unstore(d, got - len);
        if (rc == STAX__ROOM) return dtd_fail(c, lit.ptr, STAX_E_INTERNAL, "internal error: a default value grew");
    } else {
        buf = stax__dtd_settle(d, buf, got, len);
    }
    if (rc) return rc == STAX__ROOM ? dtd_too_big(c, lit.ptr) : dtd_fail_err(c, 1);
    out->ptr = len ? buf : "";
    out->len = len;
    return 0;
}

static int dtd_attlist_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax_str elem;
    if (dtd_need_ws(c, "after <!ATTLIST") || dtd_name(c, &elem, 0, "element name") ||
        dtd_qname(c, elem, "the element type"))
        return d->status;
    stax__dtd_elem_def *el = NULL;
    for (;;) {
        size_t ws = dtd_ws(c);
        if (c->p < c->end && *c->p == '>') {
            c->p++;
            return 0;
        }
        if (!ws) return dtd_fail(c, c->p, STAX_E_DTD, "whitespace required before an attribute definition");
        stax__attdef a;
        memset(&a, 0, sizeof a);
        if (dtd_name(c, &a.name, 0, "attribute name") || dtd_qname(c, a.name, "the attribute name") ||
            dtd_need_ws(c, "after the attribute name"))
            return d->status;
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
            if (a.type == STAX__AT_NOTATION && dtd_need_ws(c, "after NOTATION")) return d->status;
            if (c->p >= c->end || *c->p != '(') return dtd_fail(c, c->p, STAX_E_DTD, "attribute type expected");
            c->p++;
            for (;;) {
                dtd_ws(c);
                stax_str tok;
                if (dtd_name(c, &tok, a.type == STAX__AT_ENUM, "enumerated value")) return d->status;
                dtd_ws(c);
                if (c->p < c->end && *c->p == ')') {
                    c->p++;
                    break;
                }
                if (c->p >= c->end || *c->p != '|') return dtd_fail(c, c->p, STAX_E_DTD, "'|' or ')' expected in an enumeration");
                c->p++;
            }
        }
        if (dtd_need_ws(c, "after the attribute type")) return d->status;
        stax_str lit = {0, 0};
        if (dtd_lit(c, "#REQUIRED")) a.deflt = STAX__DEF_REQUIRED;
        else if (dtd_lit(c, "#IMPLIED")) a.deflt = STAX__DEF_IMPLIED;
        else {
            a.deflt = STAX__DEF_VALUE;
            if (dtd_lit(c, "#FIXED")) {
                a.deflt = STAX__DEF_FIXED;
                if (dtd_need_ws(c, "after #FIXED")) return d->status;
            }
            if (dtd_quoted(c, &lit, "default value")) return d->status;
            if (dtd_chars_ok(c, lit.ptr, lit.len)) return d->status;
        }
        if (c->p < c->end && !stax__is_ws((unsigned char)*c->p) && *c->p != '>' && !(dtd_lv(c, c->top)->ext && dtd_at_pe_ref(c)))
            return dtd_fail(c, c->p, STAX_E_DTD, "whitespace or '>' expected after an attribute definition");
        if (d->skip_decls) {
            if (lit.ptr && memchr(lit.ptr, '<', lit.len))
                return dtd_fail(c, (const char *)memchr(lit.ptr, '<', lit.len), STAX_E_SYNTAX, "'<' is not allowed in an attribute value");
            continue;
        }
        if (lit.ptr && dtd_attr_default(c, lit, a.type, &a.value)) return d->status;
        /* the first definition of an attribute wins */
        if (!el) el = (stax__dtd_elem_def *)stax__dtd_elem(d, elem.ptr, elem.len); /* (a record of this DTD's) */
        if (el) {
            if (stax__dtd_attdef(d, el, a.name.ptr, a.name.len)) {
                if (lit.ptr) stax__dtd_drop(d, a.value.ptr, a.value.len); /* the latest thing stored */
                continue;
            }
        } else if (!(el = stax__dtd_add_elem(d, elem))) {
            return dtd_too_big(c, c->p);
        }
        a.name.ptr = stax__dtd_store(d, a.name.ptr, a.name.len);
        if (!a.value.ptr) a.value.ptr = "";
        if (!a.name.ptr || stax__dtd_add_attdef(d, el, &a)) return dtd_too_big(c, c->p);
    }
}

static int dtd_notation_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax_decl n;
    memset(&n, 0, sizeof n);
    if (dtd_need_ws(c, "after <!NOTATION") || dtd_name(c, &n.name, 0, "notation name")) return d->status;
    if (d->no_colons && memchr(n.name.ptr, ':', n.name.len))
        return dtd_fail(c, n.name.ptr, STAX_E_NAMESPACE, "a notation name may not contain a colon with namespaces on");
    if (dtd_need_ws(c, "after the notation name")) return d->status;
    int rc = dtd_external_id(c, &n.pubid, &n.sysid, 1);
    if (rc) return rc > 0 ? dtd_fail(c, c->p, STAX_E_DTD, "SYSTEM or PUBLIC expected in a notation") : rc;
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the notation declaration");
    c->p++;
    /* the first declaration wins */
#ifdef STAX__SMALL
    for (size_t i = 0; i < d->n_not; i++)
        if (d->notations[i].name.len == n.name.len && memcmp(d->notations[i].name.ptr, n.name.ptr, n.name.len) == 0)
            return 0;
#else
    if (stax__dtd_has_notation(d, n.name.ptr, n.name.len)) return 0;
#endif
    n.name.ptr = stax__dtd_store(d, n.name.ptr, n.name.len);
    n.pubid.ptr = n.pubid.len ? stax__dtd_store_pubid(d, n.pubid.ptr, n.pubid.len, &n.pubid.len) : "";
    n.sysid.ptr = n.sysid.len ? stax__dtd_store_id(d, n.sysid.ptr, n.sysid.len, &n.sysid.len) : (n.sysid.ptr ? "" : NULL);
    n.notation.ptr = "";
    if (!n.name.ptr || !n.pubid.ptr || (n.sysid.len && !n.sysid.ptr) || stax__dtd_add_notation(d, &n))
        return dtd_too_big(c, c->p);
    return 0;
}

static int dtd_pi(dtd_ctx *c) {
    const char *start = c->p - 2;
    stax_str target;
    if (dtd_name(c, &target, 0, "processing instruction target")) return c->d->status;
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
    if (c->p < e && !stax__is_ws((unsigned char)*c->p)) return dtd_fail(c, c->p, STAX_E_SYNTAX, "whitespace required after the PI target");
    if (dtd_chars_ok(c, c->p, (size_t)(e - c->p))) return c->d->status;
    /* kept, line ends normalized, for the reader to report */
    stax__dtd *d = c->d;
    while (c->p < e && stax__is_ws((unsigned char)*c->p)) c->p++;
    size_t dl = (size_t)(e - c->p), o = 0;
    char *t = stax__dtd_store(d, target.ptr, target.len), *data = dl ? stax__dtd_store_id(d, c->p, dl, &o) : (char *)"";
    stax_dtd_pi pi;
    pi.target.ptr = t;
    pi.target.len = target.len;
    pi.data.ptr = data;
    pi.data.len = o;
    if (!data || !t || stax__dtd_add_pi(d, &pi)) return dtd_too_big(c, start);
    c->p = e + 2;
    return 0;
}

static int dtd_comment(dtd_ctx *c) {
    const char *start = c->p - 4;
    for (const char *q = c->p; q + 1 < c->end; q++) {
        if (q[0] != '-' || q[1] != '-') continue;
        if (q + 2 < c->end && q[2] == '>') {
            if (dtd_chars_ok(c, c->p, (size_t)(q - c->p))) return c->d->status;
            c->p = q + 3;
            return 0;
        }
        return dtd_fail(c, q, STAX_E_SYNTAX, "'--' is not allowed inside a comment");
    }
    return dtd_fail(c, start, STAX_E_DTD, "unterminated comment");
}

/* ================================================================ levels of text */

/* Go on in the text of parameter entity e, referenced at ref ('%'): its
 * value, or, for an external one, its text read through the resolver.
 * *entered is 0 when it is not read (no resolver, or declined). */
static int dtd_enter(dtd_ctx *c, stax__entity *e, const char *ref, int kind, int *entered) {
    stax__dtd *d = c->d;
    *entered = 0;
    if (stax__ent_is(e, STAX__ENT_BUSY))
        return dtd_fail(c, ref, STAX_E_ENTITY, "parameter entity '%.*s' refers to itself", stax__clip(e->name.len, 64), e->name.ptr);
    if (c->top + 1 > d->max_depth)
        return dtd_fail(c, ref, STAX_E_LIMIT_ENTITY, "parameter entities nested deeper than max_entity_depth (%lu)",
                        (unsigned long)d->max_depth);
    stax__xtext *xt = NULL;
    stax__entity_decl all;
    stax__ent_ids(e, &all);
    const char *text = all.value.ptr;
    size_t len = all.value.len;
    if (stax__ent_is(e, STAX__ENT_EXTERNAL)) {
        if (!d->ext) return 0;
        int rc = stax__ext_open(d->ext, STAX_ENTITY_PARAMETER, all.name, all.pubid, all.sysid, all.base, &xt, d->err);
        if (rc == STAX_DECLINE) return 0;
        if (rc) {
            d->err->at = ref;
            return dtd_fail_err(c, 0);
        }
        d->meter.input += xt->raw;
        text = xt->text + xt->body;
        len = xt->len - xt->body;
    }
    if (dtd_expand(c, ref, len)) {
        if (xt) stax__ext_close(d->ext, xt);
        return d->status;
    }
    if (stax__dtd_grow(d, (void **)&d->levels, &d->cap_levels, sizeof *d->levels, (size_t)c->top + 1)) {
        if (xt) stax__ext_close(d->ext, xt);
        return dtd_too_big(c, ref);
    }
    dtd_lv(c, c->top)->p = c->p;
    dtd_lv(c, c->top)->end = c->end;
    stax__dtd_level *l = dtd_lv(c, ++c->top);
    memset(l, 0, sizeof *l);
    l->ref = ref;
    l->ent = e;
    l->xt = xt;
    l->kind = kind;
    l->ext = xt || dtd_lv(c, c->top - 1)->ext;
    l->sections = c->sections;
    c->p = text;
    c->end = text + len;
    stax__ent_busy(e, 1);
    *entered = 1;
    return 0;
}

/* The top level's text is used up: back to the level below. */
static void dtd_leave(dtd_ctx *c) {
    stax__dtd_level *l = dtd_lv(c, c->top);
    stax__ent_busy(l->ent, 0);
    if (l->xt) stax__ext_close(c->d->ext, l->xt);
    c->top--;
    c->p = dtd_lv(c, c->top)->p;
    c->end = dtd_lv(c, c->top)->end;
}

/* A parameter-entity reference at c->p ('%'), entered as a level of `kind`
 * when it is read. One that is undeclared, or external and not read, makes
 * later entity and attribute-list declarations unprocessed (5.1). */
static int dtd_pe_ref(dtd_ctx *c, int kind, int *entered) {
    stax__dtd *d = c->d;
    const char *at = c->p++;
    stax_str name;
    *entered = 0;
    if (dtd_name(c, &name, 0, "parameter entity name")) return d->status;
    if (c->p >= c->end || *c->p != ';') return dtd_fail(c, c->p, STAX_E_DTD, "';' expected after a parameter-entity reference");
    c->p++;
    d->has_pe_ref = 1;
    stax__entity *e = stax__dtd_entity(d, name.ptr, name.len, 1);
    if (!e) {
        if (d->standalone) return dtd_fail(c, at, STAX_E_ENTITY, "undefined parameter entity '%.*s'", stax__clip(name.len, 64), name.ptr);
        d->skip_decls = 1; /* it may have held declarations */
        return 0;
    }
    if (dtd_enter(c, e, at, kind, entered)) return d->status;
    if (!*entered && !d->standalone) d->skip_decls = 1;
    return 0;
}

/* A conditional section (external context), after "<![": INCLUDE opens a
 * section that "]]>" closes later; IGNORE skips its text, nested sections
 * included, to its "]]>" in the same entity. */
static int dtd_cond(dtd_ctx *c, const char *at) {
    int include;
    dtd_ws(c);
    if (dtd_lit(c, "INCLUDE")) include = 1;
    else if (dtd_lit(c, "IGNORE")) include = 0;
    else return dtd_fail(c, c->p, STAX_E_DTD, "INCLUDE or IGNORE expected in a conditional section");
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '[') return dtd_fail(c, c->p, STAX_E_DTD, "'[' expected after INCLUDE or IGNORE");
    c->p++;
    if (include) {
        c->sections++;
        return 0;
    }
    for (uint32_t nest = 1; c->p < c->end;) {
        if (c->end - c->p >= 3 && c->p[0] == '<' && c->p[1] == '!' && c->p[2] == '[') {
            nest++;
            c->p += 3;
        } else if (c->end - c->p >= 3 && c->p[0] == ']' && c->p[1] == ']' && c->p[2] == '>') {
            c->p += 3;
            if (--nest == 0) return 0;
        } else {
            c->p++;
        }
    }
    return dtd_fail(c, at, STAX_E_DTD, "an IGNORE section does not end");
}

/* extSubsetDecl / intSubset ::= (markupdecl | conditionalSect | DeclSep)*,
 * from c->p to the end of level 0. */
static int dtd_decls(dtd_ctx *c) {
    for (;;) {
        while (c->p < c->end && stax__is_ws((unsigned char)*c->p)) c->p++;
        if (c->p >= c->end) {
            if (c->top == 0)
                return c->sections ? dtd_fail(c, c->p, STAX_E_DTD, "a conditional section does not end") : 0;
            stax__dtd_level *l = dtd_lv(c, c->top);
            if (l->kind == DL_DECLSEP && c->sections != l->sections) {
                stax_str n = stax__ent_name(l->ent);
                return dtd_fail(c, c->p, STAX_E_DTD, "conditional sections are not properly nested in parameter entity '%.*s'",
                                stax__clip(n.len, 64), n.ptr);
            }
            dtd_leave(c);
            continue;
        }
        const char *at = c->p;
        int rc, entered;
        c->floor = c->top;
        if (*c->p == '%') {
            rc = dtd_pe_ref(c, DL_DECLSEP, &entered);
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
            rc = dtd_lv(c, c->top)->ext ? dtd_cond(c, at)
                                   : dtd_fail(c, at, STAX_E_DTD, "conditional sections are not allowed in the internal subset");
        } else if (c->sections && dtd_lit(c, "]]>")) {
            c->sections--;
            rc = 0;
        } else {
            rc = dtd_fail(c, at, STAX_E_DTD, "markup declaration expected in the DTD");
        }
        if (rc) return rc;
    }
}

/* Parse level 0 (set up by the caller) to its end; every level entered is
 * left again, also after an error. */
static int dtd_run(dtd_ctx *c) {
    stax__dtd *d = c->d;
    int rc = dtd_decls(c);
    while (c->top > 0) dtd_leave(c);
    stax__mem_free(&d->mem, d->levels, d->cap_levels * sizeof *d->levels); /* the region's again */
    d->levels = NULL;
    d->cap_levels = 0;
    return rc;
}

static int dtd_start(stax__dtd *d, dtd_ctx *c, int kind, stax__xtext *xt) {
    memset(c, 0, sizeof *c);
    c->d = d;
    dtd_lv(c, 0)->ent = NULL;
    dtd_lv(c, 0)->kind = kind;
    dtd_lv(c, 0)->xt = xt;
    dtd_lv(c, 0)->ext = kind == DL_EXTERNAL;
    if (stax__dtd_reserve(d))
        return dtd_fail(c, NULL, STAX_E_NOMEM, "out of memory (max_dtd: %zu bytes for the DTD)", d->max);
    return 0;
}

int stax__dtd_parse(stax__dtd *d, const char *p, size_t n) {
    dtd_ctx c;
    if (dtd_start(d, &c, DL_INTERNAL, NULL)) return d->status;
    c.p = p;
    c.end = p + n;
    d->meter.input += n;
    return dtd_run(&c);
}

int stax__dtd_parse_external(stax__dtd *d, stax_str name, stax_str pubid, stax_str sysid) {
    static const stax_str doc = {"", 0};
    dtd_ctx c;
    stax__xtext *xt;
    if (!d->ext) return 0;
    if (dtd_start(d, &c, DL_EXTERNAL, NULL)) return d->status;
    int rc = stax__ext_open(d->ext, STAX_ENTITY_SUBSET, name, pubid, sysid, doc, &xt, d->err);
    if (rc == STAX_DECLINE) return 0;
    if (rc) return dtd_fail_err(&c, 0);
    c.lv0.xt = xt;
    c.p = xt->text + xt->body;
    c.end = xt->text + xt->len;
    d->meter.input += xt->raw;
    rc = dtd_run(&c);
    stax__ext_close(d->ext, xt);
    return rc;
}
#else
typedef int stax__dtd_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_DTD */
