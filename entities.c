/* References and attribute values (XML 1.0 4.1, 4.4, 3.3.3), shared by the
 * reader (text and attributes in tags) and the DTD (default values), so that
 * the same fault gives the same status, message and position wherever it
 * occurs (ent_ prefix for file-local names).
 *
 * Attribute values are normalized in one pass into a checked window: runs of
 * plain bytes are block-copied, references decoded, entities expanded through
 * an explicit stack of frames (never C recursion), and for declared types
 * other than CDATA spaces are collapsed and trimmed as they are written. */
#include "entities.h"
#include "scan.h"

#include <stdarg.h>

/* ================================================================ characters */

size_t stax__char_at(const char *p, size_t n, size_t i, stax__err *err) {
    unsigned char c = (unsigned char)p[i];
    if (c < 0x80) {
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            stax__err_set(err, STAX_E_CHAR, p + i, "character U+%04X is not allowed in XML", c);
            return 0;
        }
        return 1;
    }
    uint32_t cp;
    int l = stax__utf8_decode((const unsigned char *)p + i, n - i, &cp);
    if (l <= 0) {
        stax__err_set(err, STAX_E_ENCODING, p + i, "invalid UTF-8 byte 0x%02X", c);
        return 0;
    }
    if (!stax__is_char(cp)) {
        stax__err_set(err, STAX_E_CHAR, p + i, "character U+%04lX is not allowed in XML", (unsigned long)cp);
        return 0;
    }
    return (size_t)l;
}

/* ================================================================ references */


int stax__ref_check_name(const stax__ref *ref, const char *amp, stax__err *err) {
    (void)amp;
    if (stax__check_name(ref->name.ptr, ref->name.len))
        return stax__err_set(err, STAX_E_NAME, ref->name.ptr, "invalid entity name '%.*s'", stax__clip(ref->name.len, 64),
                             ref->name.ptr);
    return 0;
}

int stax__ref_parse(const char *p, size_t n, size_t i, uint32_t max_name, unsigned flags, stax__ref *ref,
                    stax__err *err) {
    size_t max = (size_t)max_name + 16, j = i + 1;
    while (j < n && p[j] != ';' && j - i <= max && !stax__is_ws((unsigned char)p[j]) && p[j] != '&' && p[j] != '<' &&
           p[j] != '"' && p[j] != '\'')
        j++;
    ref->stop = j;
    if (j >= n || p[j] != ';') {
        unsigned char c1 = i + 1 < n ? (unsigned char)p[i + 1] : 0;
        if (c1 == '#')
            return stax__err_set(err, STAX_E_CHARREF, p + i, "character reference without a terminating ';'");
        if (c1 >= 0x80 || (stax__class[c1] & STAX__C_NSTART))
            return stax__err_set(err, STAX_E_ENTITY, p + i, "entity reference without a terminating ';'");
        return stax__err_set(err, STAX_E_SYNTAX, p + i, "'&' must start a reference (write &amp;)");
    }
    ref->end = j + 1;
    ref->name.ptr = NULL;
    ref->name.len = 0;
    if (p[i + 1] == '#') {
        long v = stax__charref_value(p + i, j + 1 - i);
        if (v < 0)
            return stax__err_set(err, STAX_E_CHARREF, p + i, "invalid character reference '%.*s'",
                                 stax__clip(j + 1 - i, 64), p + i);
        ref->cp = v;
        return 0;
    }
    const char *nm = p + i + 1;
    size_t nl = j - i - 1;
    size_t pl = 0;
    long c = stax__predefined_at(nm, nl + 1, &pl); /* (nm[nl] is the ';') no name to keep: never over max_name */
    if (pl != nl + 1) c = -1;
    if (nl > max_name && c < 0)
        return stax__err_set(err, STAX_E_LIMIT_NAME, nm, "entity name longer than max_name (%lu bytes)",
                             (unsigned long)max_name);
    ref->cp = c;
    if (c < 0) {
        ref->name.ptr = nm;
        ref->name.len = nl;
        if (!(flags & STAX__REF_NAME_LATER)) return stax__ref_check_name(ref, p + i, err);
    }
    return 0;
}

int stax__general_entity(const stax__dtd *d, const char *amp, stax_str name, unsigned where, stax__entity *e,
                         stax__entity **out, stax__err *err) {
    *out = NULL;
    if (!d)
        return stax__err_set(err, STAX_E_ENTITY, amp, "undefined entity '%.*s' (the document has no DTD)",
                             stax__clip(name.len, 64), name.ptr);
    if (!e) {
        if (stax__dtd_wfc_declared(d))
            return stax__err_set(err, STAX_E_ENTITY, amp, "undefined entity '%.*s'", stax__clip(name.len, 64), name.ptr);
        return STAX__REF_SKIP; /* declared, maybe, where a non-validating reader does not look */
    }
    if (stax__ent_is(e, STAX__ENT_UNPARSED))
        return stax__err_set(err, STAX_E_ENTITY, amp, "reference to unparsed entity '%.*s'", stax__clip(name.len, 64),
                             name.ptr);
    /* WFC Entity Declared: a standalone document may not rely on declarations
     * it does not hold itself */
    if (stax__ent_is(e, STAX__ENT_EXT_DECL) && d->standalone && !(where & STAX__GE_DTD))
        return stax__err_set(err, STAX_E_ENTITY, amp,
                             "entity '%.*s' is declared in the external subset or a parameter entity, "
                             "which a standalone document may not use",
                             stax__clip(name.len, 64), name.ptr);
    if (stax__ent_is(e, STAX__ENT_BUSY))
        return stax__err_set(err, STAX_E_ENTITY, amp, "entity '%.*s' refers to itself", stax__clip(name.len, 64), name.ptr);
    if (stax__ent_is(e, STAX__ENT_EXTERNAL)) {
        if (where & STAX__GE_ATTR)
            return stax__err_set(err, STAX_E_ENTITY, amp, "reference to external entity '%.*s' in an attribute value",
                                 stax__clip(name.len, 64), name.ptr);
        *out = e;
        return STAX__REF_REPORT;
    }
    *out = e;
    return 0;
}

/* ================================================================ attribute values */

/* Output of a value: collapsing (tokenized types) happens here, on what is
 * written, so spaces from entity text and &#32; are collapsed too. */
typedef struct ent_val {
    stax__out o;
    char *start;
    int tokenized;
    int space; /* tokenized: a space is due before the next non-space */
} ent_val;

static inline void ent_put(ent_val *v, const char *s, size_t n) {
    if (v->space) {
        v->space = 0;
        stax__out_byte(&v->o, ' ');
    }
    stax__out_put(&v->o, s, n);
}

static inline void ent_space(ent_val *v) {
    if (!v->tokenized) stax__out_byte(&v->o, ' ');
    else if (v->o.p != v->start || v->o.over) v->space = 1; /* leading spaces are dropped */
}

/* Where the plain run from p[i] ends: at < & TAB LF CR, other controls and
 * bytes >= 0x80 (looked at one by one), and for tokenized types at ' '. */
static inline size_t ent_run(const char *p, size_t n, size_t i, int tokenized) {
    if (!tokenized) return i + stax__scan_attr(p + i, n - i);
    while (i < n && p[i] != ' ' && !(stax__class[(unsigned char)p[i]] & STAX__C_AVAL)) i++;
    return i;
}

int stax__attr_normalize(const stax__attnorm *a, const char *s, size_t n, stax__out *out, stax__err *err) {
    size_t room = stax__out_room(out), lim = room < a->max_out ? room : a->max_out;
    ent_val v;
    v.o = stax__out_make(out->p, lim);
    v.start = out->p;
    v.tokenized = a->tokenized;
    v.space = 0;
    const char *p = s, *ref_at = NULL; /* ref_at: the outermost reference, while in entity text */
    size_t len = n, i = 0;
    uint32_t sp = 0; /* frames in use */
    stax__entity *cur = NULL;
    int rc = 0;
    for (;;) {
        if (i >= len) {
            if (!sp) break;
            stax__ent_busy(cur, 0);
            const stax__frame *f = &a->frames[--sp];
            p = f->p;
            len = f->n;
            i = f->i;
            cur = f->e;
            if (!sp) ref_at = NULL;
            continue;
        }
        int raw = a->raw && !sp; /* the literal itself, not entity text */
        size_t k = ent_run(p, len, i, v.tokenized);
        if (k > i) {
            ent_put(&v, p + i, k - i);
            i = k;
            if (i >= len) continue;
        }
        unsigned char c = (unsigned char)p[i];
        const char *at = sp ? ref_at : p + i;
        if (c == ' ') {
            ent_space(&v);
            i++;
        } else if (c == '\t' || c == '\n' || c == '\r') {
            ent_space(&v);
            i += (raw && c == '\r' && i + 1 < len && p[i + 1] == '\n') ? 2 : 1;
        } else if (c == '<') {
            rc = sp ? stax__err_set(err, STAX_E_SYNTAX, at,
                                    "'<' in the replacement text of an entity used in an attribute value")
                    : stax__err_set(err, STAX_E_SYNTAX, at, "'<' is not allowed in an attribute value");
            break;
        } else if (c != '&') {
            size_t l = 1;
            if (raw) {
                l = stax__char_at(p, len, i, err);
                if (!l) {
                    rc = err->code;
                    break;
                }
            } else if (c >= 0x80) {
                while (i + l < len && ((unsigned char)p[i + l] & 0xC0) == 0x80) l++;
            }
            ent_put(&v, p + i, l);
            i += l;
        } else {
            stax__ref ref;
            size_t amp_i = i;
            if ((rc = stax__ref_parse(p, len, i, a->max_name, 0, &ref, err)) != 0) {
                if (sp) err->at = ref_at;
                break;
            }
            i = ref.end;
            if (ref.cp >= 0) {
                char u[4];
                if (ref.cp == ' ') ent_space(&v);
                else ent_put(&v, u, (size_t)stax__utf8_encode((uint32_t)ref.cp, u));
                continue;
            }
            stax__entity *e;
            e = a->dtd ? stax__dtd_entity(a->dtd, ref.name.ptr, ref.name.len, 0) : NULL;
            rc = stax__general_entity(a->dtd, at, ref.name, STAX__GE_ATTR | (a->in_dtd ? STAX__GE_DTD : 0u), e, &e, err);
            if (rc == STAX__REF_SKIP) {
                rc = 0;
                continue;
            }
            if (rc) break;
            if (sp >= a->n_frames) {
                rc = stax__err_set(err, STAX_E_LIMIT_ENTITY, at,
                                   "entity references nested deeper than max_entity_depth (%lu)",
                                   (unsigned long)a->max_depth);
                break;
            }
            stax_str value = stax__ent_value(e);
            if ((rc = stax__meter_add(a->meter, value.len, a->threshold, a->amplification, err, at)) != 0) break;
            stax__frame *f = &a->frames[sp++];
            f->p = p;
            f->n = len;
            f->i = i;
            f->e = cur;
            if (!ref_at) ref_at = p + amp_i;
            stax__ent_busy(e, 1);
            cur = e;
            p = value.ptr;
            len = value.len;
            i = 0;
        }
        if (v.o.over) break;
    }
    /* an error or a full window part-way through entity text: clear the marks */
    if (cur) stax__ent_busy(cur, 0);
    while (sp) {
        stax__frame *f = &a->frames[--sp];
        if (f->e) stax__ent_busy(f->e, 0);
    }
    if (rc) return rc;
    if (v.o.over) {
        if (lim < a->max_out) return STAX__ROOM;
        return stax__err_set(err, STAX_E_LIMIT_TOKEN, s,
                             STAX__MSG_ATTR_EXPANDED, a->max_token);
    }
    out->p = v.o.p;
    return 0;
}
