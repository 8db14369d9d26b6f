/* libFuzzer target for forged contexts: a real context, changed field by
 * field and sealed with a right checksum, must be refused or read within
 * the limits.
 *
 * Input: a 4-byte header, M mutations of 4 bytes each, then a document.
 *   byte 0: options: bit 0 namespaces, bit 1 skip whitespace, bit 2 a
 *           resolver (serving a few fixed texts by the system id's first
 *           byte), bits 3-4 the batch size (2, 3, 5, 64), bit 5 the resumed
 *           reader's limits tighter than the saving one's, bit 6 the resumed
 *           reader in a fixed block, bit 7 max_text 16
 *   byte 1: which save point (the k-th the reader could save at, modulo
 *           how many there were)
 *   byte 2: chunk sizes: low nibble the first read's, high nibble the
 *           resumed read's (0: whole, else 1 to 15 bytes)
 *   byte 3: M, the mutations (low nibble: 0 to 15)
 * A mutation is (op, a, b, c) on the context parsed into fields
 * (tests/fuzz/ctx_model.h): a fixed field (offset, line, column, flags,
 * encodings, meters, DTD flags) set to a value of interest or a bit
 * flipped; a string (a name, a binding's prefix or URI, an entity's value,
 * ids, base, a default, a PI) set to one of a dictionary, to another
 * string of the context or to a long or repeated one; a record (an open
 * element, a binding, an entity, an unparsed entity, an ATTLIST element or
 * attdef, a notation, a PI) removed, doubled, swapped with the next or made
 * up; a count, a string's length or the total length written wrong; a
 * binding's depth, an entity's bits, an attdef's type or default kind, a
 * notation's system-id flag set. The context is written again and sealed.
 *
 * The document is read once, saving at every point it can; the chosen
 * context, mutated, is resumed by a new reader. Unmutated, it must be taken
 * (with the same limits). Refused: STAX_E_CONTEXT with a message, sticky.
 * Taken: the reader is fed the document from the context's offset (nothing
 * when that is past its end, as a seek there reads nothing) and after every
 * call the expansion meter must be within what the options allow for the
 * reader's input (offset plus external bytes), and within what they allow
 * for twice the document plus max_external (the work is bounded, whatever
 * the offset claims), the external bytes within max_external, the DTD's
 * meter within the limits for its input; events hold valid UTF-8, depths
 * within max_depth, attributes within max_attrs, QNames that make their
 * names; the status is never STAX_E_INTERNAL. And a context the resumed
 * reader saves on its way must be taken by another reader with its options:
 * every state reached from a context taken is one a context may hold. */
#include "ctx_model.h"
#include "reader.h"
#include "stax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZC_ABORT(...)                                                                                  \
    do {                                                                                                \
        fprintf(stderr, "fuzz_context: " __VA_ARGS__);                                                  \
        fprintf(stderr, "\n");                                                                          \
        abort();                                                                                        \
    } while (0)

/* ---------------------------------------------------------------- options */

static const char *const fzc_texts[] = {"text", "<e a='1'>&amp;</e>", "<!ENTITY z 'zz'><!ATTLIST e b CDATA 'd'>",
                                        "<?xml version='1.0' encoding='UTF-8'?>t"};

static int fzc_resolve(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    (void)ud;
    unsigned k = req->sysid.len ? (unsigned char)req->sysid.ptr[0] % 5 : 4;
    if (k == 4) return STAX_DECLINE;
    in->data = fzc_texts[k];
    in->len = strlen(fzc_texts[k]);
    in->base = req->sysid; /* the base of the declarations it holds */
    return STAX_OK;
}

static stax_reader_options fzc_options(unsigned o) {
    static const uint32_t batches[4] = {2, 3, 5, 64};
    stax_reader_options opt;
    memset(&opt, 0, sizeof opt);
    if (o & 1) opt.flags |= STAX_READ_NAMESPACES;
    if (o & 2) opt.flags |= STAX_READ_SKIP_WS;
    if (o & 4) opt.resolve = fzc_resolve;
    opt.batch_events = batches[(o >> 3) & 3];
    if (o & 128) opt.max_text = 16;
    opt.max_token = 4096;
    opt.max_dtd = 16384;
    opt.entity_threshold = 4096;
    opt.entity_amplification = 4;
    opt.max_external = 4096;
    opt.max_external_text = 8192;
    return opt;
}

/* The resumed reader's: the same, or tighter (bit 5). */
static stax_reader_options fzc_resumed_options(unsigned o) {
    stax_reader_options opt = fzc_options(o);
    if (o & 32) {
        opt.max_depth = 6;
        opt.max_name = 12;
        opt.max_dtd = 2048;
        opt.max_ns = 2;
        opt.max_ns_bytes = 256;
        opt.max_token = 512;
        opt.entity_threshold = 256;
        opt.entity_amplification = 1;
        opt.max_external = 64;
    }
    return opt;
}

/* What the limits allow for `input` bytes: max(threshold, ratio x (input + 2) - 1). */
static uint64_t fzc_allowed(const stax_reader_options *o, uint64_t input) {
    uint64_t a = o->entity_amplification ? o->entity_amplification : 100;
    uint64_t by_ratio = input > UINT64_MAX / a - 2 ? UINT64_MAX : a * (input + 2) - 1;
    return by_ratio > o->entity_threshold ? by_ratio : o->entity_threshold;
}

/* ---------------------------------------------------------------- the save point */

typedef struct fzc_saved {
    unsigned char *ctx;
    size_t len, n, want;
} fzc_saved;

static void fzc_try_save(stax_reader *r, fzc_saved *s) {
    size_t len = 0;
    if (stax_reader_save(r, NULL, 0, &len) != STAX_OK) return;
    if (s->n++ != s->want) return;
    free(s->ctx);
    s->ctx = (unsigned char *)malloc(len);
    if (!s->ctx || stax_reader_save(r, s->ctx, len, &s->len) != STAX_OK) FZC_ABORT("save failed");
}

/* Read doc in chunks (0: whole), saving at point s->want. */
static void fzc_read_saving(stax_reader *r, const uint8_t *doc, size_t len, size_t chunk, fzc_saved *s) {
    size_t off = 0;
    const stax_batch *b;
    if (!chunk) chunk = len ? len : 1;
    for (int last = 0; !last;) {
        size_t n = len - off < chunk ? len - off : chunk;
        last = off == len;
        int st = last ? stax_reader_end(r) : stax_reader_feed(r, doc + off, n);
        off += n;
        while (st >= 0 && (st = stax_reader_next(r, &b)) == STAX_OK) fzc_try_save(r, s);
        if (st != STAX_NEED_INPUT) break;
        fzc_try_save(r, s);
    }
}

/* ---------------------------------------------------------------- mutations */

static const char *const fzc_dict[] = {
    "", "a", "e", "p", "q", "r", "x", "n", "xml", "xmlns", "XmL", "a:b", "a:b:c", ":x", "x:", "p:x", "xml:x", "xmlns:x",
    "http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2000/xmlns/", "urn:x", "1a", "a b", " a", "a ", "a  b", "<",
    "&e;", "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;", "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;", "&#0;", "&#x10FFFF;",
    "\xff", "\xc0\x80", "\xed\xa0\x80", "\xef\xbf\xbf", "\xc3\xa9", "a\rb", "a'b\"c", "-//W3C//DTD X//EN", "http://x/y",
    "\t", "a\001b", "]]>", "%p;", "data", "<r/>", "<e>&e;</e>", "CDATA", "id  ref"};
#define FZC_NDICT (sizeof fzc_dict / sizeof fzc_dict[0])

/* Every string of the context, for mutations that pick one. */
typedef struct fzc_slots {
    cm_str **v;
    size_t n, cap;
} fzc_slots;

static void fzc_slot(fzc_slots *s, cm_str *p) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = (cm_str **)realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) abort();
    }
    s->v[s->n++] = p;
}

static void fzc_collect(cm_ctx *m, fzc_slots *s) {
    s->n = 0;
    for (size_t i = 0; i < m->n_stack; i++) fzc_slot(s, &m->stack[i]);
    for (size_t i = 0; i < m->n_bind; i++) fzc_slot(s, &m->bind[i].prefix), fzc_slot(s, &m->bind[i].uri);
    for (size_t i = 0; i < m->n_ent; i++)
        for (int k = 0; k < CM_E_NSTR; k++) fzc_slot(s, &m->ent[i].s[k]);
    for (size_t i = 0; i < m->n_unp; i++) fzc_slot(s, &m->unp[i]);
    for (size_t i = 0; i < m->n_elem; i++) {
        fzc_slot(s, &m->elem[i].name);
        for (size_t k = 0; k < m->elem[i].n; k++) fzc_slot(s, &m->elem[i].att[k].name), fzc_slot(s, &m->elem[i].att[k].value);
    }
    for (size_t i = 0; i < m->n_not; i++) fzc_slot(s, &m->nots[i].name), fzc_slot(s, &m->nots[i].pubid), fzc_slot(s, &m->nots[i].sysid);
    for (size_t i = 0; i < m->n_pi; i++) fzc_slot(s, &m->pi[i].target), fzc_slot(s, &m->pi[i].data);
}

/* Bytes made for long strings, kept until the context is written. */
typedef struct fzc_pool {
    char *p;
    size_t len, cap;
} fzc_pool;

static cm_str fzc_made(fzc_pool *pool, unsigned kind, unsigned n) {
    static const char *const unit[] = {"n", "&e;", "\xc3\xa9", "a:"};
    const char *u = unit[kind % 4];
    size_t ul = strlen(u), want = (size_t)n * ul;
    cm_str s = {"", 0};
    if (want > pool->cap - pool->len) return s;
    s.p = pool->p + pool->len;
    for (size_t i = 0; i < n; i++) memcpy(pool->p + pool->len + i * ul, u, ul);
    pool->len += want;
    s.len = (uint32_t)want;
    return s;
}

/* A value of interest for a field now at cur (b and c pick it). */
static uint64_t fzc_special(unsigned b, unsigned c, uint64_t cur, const cm_ctx *m, const stax_reader_options *o, size_t doc_len) {
    uint64_t off = m->f[CM_OFFSET], ext = m->f[CM_EXT_BYTES];
    switch (b % 32) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 2;
    case 3: return 3;
    case 4: return 255;
    case 5: return 65536;
    case 6: return 0x7fffffffu;
    case 7: return 0xffffffffu;
    case 8: return (uint64_t)1 << 32;
    case 9: return (uint64_t)1 << 60;
    case 10: return ((uint64_t)1 << 63) - 1;
    case 11: return (uint64_t)1 << 63;
    case 12: return UINT64_MAX;
    case 13: return cur + 1;
    case 14: return cur - 1;
    case 15: return cur * 2;
    case 16: return cur / 2;
    case 17: return doc_len;
    case 18: return doc_len + 1;
    case 19: return off;
    case 20: return off + 1;
    case 21: return fzc_allowed(o, off + ext);
    case 22: return fzc_allowed(o, off + ext) + 1;
    case 23: return o->max_external;
    case 24: return o->max_external + 1;
    case 25: return m->f[CM_DTD_INPUT];
    case 26: return fzc_allowed(o, m->f[CM_DTD_INPUT]);
    case 27: return fzc_allowed(o, m->f[CM_DTD_INPUT]) + 1;
    case 28: return off + ext;
    case 29: return c;
    case 30: return (uint64_t)c << 8 | b;
    default: return m->f[c % CM_NFIXED];
    }
}

/* The list `list` as an array: its records, their size, count and room. */
typedef struct fzc_list {
    void *v;
    size_t *n, size, room;
} fzc_list;

static int fzc_list_of(cm_ctx *m, unsigned list, unsigned at, fzc_list *l) {
    size_t *att_n = NULL;
    void *att_v = NULL;
    if (m->n_elem) {
        cm_elem *e = &m->elem[at % m->n_elem];
        att_n = &e->n;
        att_v = e->att;
    }
    switch (list % CM_NLISTS) {
    case CM_STACK: *l = (fzc_list){m->stack, &m->n_stack, sizeof *m->stack, 0}; break;
    case CM_BIND: *l = (fzc_list){m->bind, &m->n_bind, sizeof *m->bind, 0}; break;
    case CM_ENT: *l = (fzc_list){m->ent, &m->n_ent, sizeof *m->ent, 0}; break;
    case CM_UNP: *l = (fzc_list){m->unp, &m->n_unp, sizeof *m->unp, 0}; break;
    case CM_ELEM: *l = (fzc_list){m->elem, &m->n_elem, sizeof *m->elem, 0}; break;
    case CM_NOT: *l = (fzc_list){m->nots, &m->n_not, sizeof *m->nots, 0}; break;
    case CM_PI: *l = (fzc_list){m->pi, &m->n_pi, sizeof *m->pi, 0}; break;
    default:
        if (!att_n) return -1;
        *l = (fzc_list){att_v, att_n, sizeof(cm_attdef), 0};
    }
    return 0;
}

static unsigned char *fzc_at(const fzc_list *l, size_t i) { return (unsigned char *)l->v + i * l->size; }

static void fzc_structure(cm_ctx *m, unsigned op, unsigned a, unsigned b, size_t *added) {
    fzc_list l;
    unsigned list = a % CM_NLISTS;
    if (fzc_list_of(m, list, b, &l) || !l.v) return;
    size_t n = *l.n;
    if (op == 5 && n) { /* remove record b */
        size_t i = b % n;
        if (list == CM_ELEM) free(m->elem[i].att);
        memmove(fzc_at(&l, i), fzc_at(&l, i + 1), (n - i - 1) * l.size);
        (*l.n)--;
    } else if (op == 6 && n && added[list] < CM_SLACK && list != CM_ELEM) { /* double record b (an element would share its attdefs) */
        size_t i = b % n;
        memmove(fzc_at(&l, i + 1), fzc_at(&l, i), (n - i) * l.size);
        (*l.n)++;
        added[list]++;
    } else if (op == 7 && n > 1) { /* swap records b and b + 1 */
        size_t i = b % (n - 1);
        unsigned char tmp[sizeof(cm_entity) + sizeof(cm_elem) + sizeof(cm_notation)]; /* (any record) */
        memcpy(tmp, fzc_at(&l, i), l.size);
        memcpy(fzc_at(&l, i), fzc_at(&l, i + 1), l.size);
        memcpy(fzc_at(&l, i + 1), tmp, l.size);
    }
}

/* A record made up of dictionary strings, appended to list a. */
static void fzc_insert(cm_ctx *m, unsigned a, unsigned b, unsigned c, size_t *added) {
    unsigned list = a % 7;
    if (added[list] >= CM_SLACK) return;
    cm_str s1 = cm_z(fzc_dict[b % FZC_NDICT]), s2 = cm_z(fzc_dict[c % FZC_NDICT]);
    switch (list) {
    case CM_STACK: m->stack[m->n_stack++] = s1; break;
    case CM_BIND: { /* at a depth up to one past the open elements, after the bindings of that depth */
        uint32_t depth = (uint32_t)(c % (m->n_stack + 2));
        size_t at = 0;
        while (at < m->n_bind && m->bind[at].depth <= depth) at++;
        memmove(&m->bind[at + 1], &m->bind[at], (m->n_bind - at) * sizeof *m->bind);
        m->n_bind++;
        m->bind[at].prefix = s1, m->bind[at].uri = s2, m->bind[at].depth = depth;
        break;
    }
    case CM_ENT: {
        cm_entity *x = &m->ent[m->n_ent++];
        memset(x, 0, sizeof *x);
        x->bits = (uint8_t)(c & 15);
        for (int k = 0; k < CM_E_NSTR; k++) x->s[k] = cm_z("");
        x->s[CM_E_NAME] = s1;
        x->s[(c >> 4) % CM_E_NSTR == CM_E_NAME ? CM_E_VALUE : (c >> 4) % CM_E_NSTR] = s2;
        break;
    }
    case CM_UNP: m->unp[m->n_unp++] = s1; break;
    case CM_ELEM: m->elem[m->n_elem].name = s1, m->elem[m->n_elem].n = 0, m->elem[m->n_elem++].att = NULL; break;
    case CM_NOT: {
        cm_notation *x = &m->nots[m->n_not++];
        x->name = s1, x->pubid = cm_z(""), x->has_sysid = (uint8_t)(c & 1), x->sysid = (c & 1) ? s2 : cm_z("");
        break;
    }
    default: m->pi[m->n_pi].target = s1, m->pi[m->n_pi++].data = s2; break;
    }
    added[list]++;
}

static void fzc_mutate(cm_ctx *m, const uint8_t *mu, fzc_slots *slots, fzc_pool *pool, size_t *added,
                       const stax_reader_options *o, size_t doc_len) {
    unsigned op = mu[0] % 16, a = mu[1], b = mu[2], c = mu[3];
    fzc_collect(m, slots);
    cm_str *slot = slots->n ? slots->v[(a << 8 | b) % slots->n] : NULL;
    switch (op) {
    case 0: m->f[a % CM_NFIXED] = fzc_special(b, c, m->f[a % CM_NFIXED], m, o, doc_len); break;
    case 1: m->f[a % CM_NFIXED] ^= (uint64_t)1 << (b % (8u * cm_width[a % CM_NFIXED])); break;
    case 2: if (slot) *slot = cm_z(fzc_dict[c % FZC_NDICT]); break;
    case 3: if (slot) *slot = *slots->v[c % slots->n]; break;
    case 4: if (slot) *slot = fzc_made(pool, c, 1u + (b * 37u + c) % 5000u); break;
    case 5:
    case 6:
    case 7: fzc_structure(m, op, a, b, added); break;
    case 8: fzc_insert(m, a, b, c, added); break;
    case 9: m->count_lie[a % CM_NLISTS] = c == 255 ? (int64_t)1 << 31 : (int8_t)b; break;
    case 10: m->lie_at = (long)((a << 8 | b) % (slots->n + 1)), m->len_lie = c == 255 ? (int64_t)1 << 31 : (int8_t)c; break;
    case 11: if (m->n_bind) m->bind[a % m->n_bind].depth = (uint32_t)fzc_special(b, c, m->bind[a % m->n_bind].depth, m, o, doc_len); break;
    case 12: if (m->n_ent) m->ent[a % m->n_ent].bits = (uint8_t)b; break;
    case 13:
        if (m->n_elem && m->elem[a % m->n_elem].n) {
            cm_elem *e = &m->elem[a % m->n_elem];
            if (c & 1) e->att[b % e->n].type = (uint8_t)(c >> 1);
            else e->att[b % e->n].deflt = (uint8_t)(c >> 1);
        }
        break;
    case 14: if (m->n_not) m->nots[a % m->n_not].has_sysid = (uint8_t)b; break;
    default:
        if (c & 1) m->total_lie = (int8_t)b;
        else m->version = b;
        break;
    }
}

/* ---------------------------------------------------------------- the resumed read */

static int fzc_utf8(stax_str s) {
    if (s.len && !s.ptr) return 0;
    const unsigned char *p = (const unsigned char *)s.ptr;
    for (size_t i = 0; i < s.len;) {
        unsigned char c = p[i];
        size_t n = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
        if (!n || i + n > s.len) return 0;
        for (size_t k = 1; k < n; k++)
            if ((p[i + k] & 0xC0) != 0x80) return 0;
        i += n;
    }
    return 1;
}

static void fzc_check_batch(const stax_batch *b, const stax_reader_options *o) {
    for (size_t i = 0; i < b->count; i++) {
        const stax_event *e = &b->events[i];
        if (e->depth > o->max_depth || e->attr_count > o->max_attrs)
            FZC_ABORT("event %zu: depth %u, %u attributes", i, (unsigned)e->depth, (unsigned)e->attr_count);
        if (!fzc_utf8(stax_ev_name(b, i)) || !fzc_utf8(stax_ev_text(b, i)) || !fzc_utf8(stax_ev_pubid(b, i)) ||
            !fzc_utf8(stax_ev_sysid(b, i)))
            FZC_ABORT("event %zu (type %u): a string that is not UTF-8", i, (unsigned)e->type);
        for (uint32_t k = 0; k < e->attr_count; k++) {
            const stax_attr *a = &b->attrs[e->attr_first + k];
            if (!fzc_utf8(a->name) || !fzc_utf8(a->value)) FZC_ABORT("event %zu: an attribute that is not UTF-8", i);
        }
        if (b->ev_ns && (e->type == STAX_EV_START || e->type == STAX_EV_END)) {
            const stax_qname *q = &b->ev_ns[i];
            stax_str name = stax_ev_name(b, i);
            size_t want = q->prefix.len ? q->prefix.len + 1 + q->local.len : q->local.len;
            if (!fzc_utf8(q->uri) || want != name.len || !q->local.len || (q->prefix.len && !q->uri.len) ||
                memchr(q->local.ptr, ':', q->local.len) || (q->prefix.len && memchr(q->prefix.ptr, ':', q->prefix.len)))
                FZC_ABORT("event %zu: the QName '%.*s' is not prefix:local with a namespace", i, (int)name.len, name.ptr);
        }
    }
}

/* With namespaces, xml is bound to its name and nothing to xmlns's, whatever
 * the context said. */
static void fzc_check_scope(const stax_reader *r) {
    static const stax_str xml = {"xml", 3}, xmlns = {"xmlns", 5};
    stax_str uri;
    if (!r->buf.ev_ns) return;
    if (stax_reader_ns_lookup(r, xml, &uri) != STAX_OK || uri.len != 36 || memcmp(uri.ptr, "http://www.w3.org/XML/1998/namespace", 36))
        FZC_ABORT("the prefix xml is bound to '%.*s'", (int)uri.len, uri.ptr);
    if (stax_reader_ns_lookup(r, xmlns, &uri) == STAX_OK) FZC_ABORT("the prefix xmlns is bound to '%.*s'", (int)uri.len, uri.ptr);
}

/* The meters of a reader that was taken, after every call (expanded0: its
 * meter when it was taken; o: its effective options). */
static void fzc_check_meters(const stax_reader *r, const stax_reader_options *o, size_t doc_len, uint64_t expanded0) {
    uint64_t input = r->doc.pos.offset + r->buf.ext.bytes;
    if (r->doc.status < 0) return; /* the count that met a limit is in (its batch's events come first) */
    if (r->doc.meter.expanded > fzc_allowed(o, input))
        FZC_ABORT("the expansion meter at %llu, the limits allow %llu for %llu bytes of input", (unsigned long long)r->doc.meter.expanded,
                  (unsigned long long)fzc_allowed(o, input), (unsigned long long)input);
    /* the work: what the bytes fed (at most the document, from an offset within it) allow */
    if (r->doc.meter.expanded - expanded0 > fzc_allowed(o, 2 * (uint64_t)doc_len + o->max_external))
        FZC_ABORT("%llu bytes expanded after the resume, past what a document of %zu bytes allows",
                  (unsigned long long)(r->doc.meter.expanded - expanded0), doc_len);
    if (r->buf.ext.bytes > o->max_external) FZC_ABORT("%llu external bytes, over max_external", (unsigned long long)r->buf.ext.bytes);
    const stax__meter *d = &r->buf.dtd.meter;
    if (d->input > input || d->expanded > fzc_allowed(o, d->input))
        FZC_ABORT("the DTD meter at %llu for %llu bytes of input", (unsigned long long)d->expanded, (unsigned long long)d->input);
}

/* Resume ctx into a reader with options o (in a fixed block with `fixed`):
 * its status, and the reader in *out when taken. */
static int fzc_resume(const stax_reader_options *o, int fixed, const unsigned char *ctx, size_t len, stax_reader **out,
                      void **block) {
    stax_reader_options ro = *o;
    *block = NULL;
    if (fixed) {
        stax_reader_options eff;
        if (stax_reader_effective_options(o, &eff, NULL) != STAX_OK) abort();
        ro = eff;
        ro.memory_size = stax_reader_memory_size(&eff);
        ro.memory = *block = malloc(ro.memory_size);
        if (!ro.memory) abort();
    }
    stax_reader *r = stax_reader_new(&ro);
    if (!r) abort();
    int st = stax_reader_resume(r, ctx, len);
    if (st != STAX_OK) {
        const stax_batch *b;
        if (st != STAX_E_CONTEXT || !stax_reader_message(r)[0]) FZC_ABORT("resume returned %d ('%s')", st, stax_reader_message(r));
        if (stax_reader_feed(r, "<r/>", 4) != STAX_E_CONTEXT || stax_reader_next(r, &b) != STAX_E_CONTEXT)
            FZC_ABORT("a refusal that does not stick");
    }
    *out = r;
    return st;
}

/* A context taken, closed: a reader resumed from it is fed an end tag for
 * each open element (in UTF-8 input), and each END must be a QName whose
 * prefix is bound; the document then ends well. */
static void fzc_close(const stax_reader_options *o, const stax_reader_options *eff, const unsigned char *ctx, size_t len) {
    stax_reader *r;
    void *block;
    if (fzc_resume(o, 0, ctx, len, &r, &block) != STAX_OK) FZC_ABORT("a context taken once, refused again: %s", stax_reader_message(r));
    if (r->doc.enc == STAX__ENC_UTF8) {
        size_t n = 0;
        for (uint32_t d = r->doc.depth; d-- > 0;) n += 3 + (d + 1 < r->doc.depth ? rd_stack_at(r, d + 1) : r->buf.stack.len) - rd_stack_at(r, d);
        char *tags = (char *)malloc(n + 1), *t = tags;
        if (!tags) abort();
        for (uint32_t d = r->doc.depth; d-- > 0;) {
            size_t at = rd_stack_at(r, d), end = d + 1 < r->doc.depth ? rd_stack_at(r, d + 1) : r->buf.stack.len;
            memcpy(t, "</", 2);
            memcpy(t + 2, r->buf.stack.ptr + at, end - at);
            t[2 + end - at] = '>';
            t += 3 + end - at;
        }
        const stax_batch *b;
        int st = n ? stax_reader_feed(r, tags, n) : STAX_NEED_INPUT;
        while (n && st >= 0 && (st = stax_reader_next(r, &b)) == STAX_OK) fzc_check_batch(b, eff);
        if (st == STAX_NEED_INPUT) st = stax_reader_end(r);
        while (st >= 0 && (st = stax_reader_next(r, &b)) == STAX_OK) fzc_check_batch(b, eff);
        if (st != STAX_END) FZC_ABORT("the end tags of its open elements end it with %d: %s", st, stax_reader_message(r));
        free(tags);
    }
    stax_reader_free(r);
    free(block);
}

/* Feed r the document from its offset, checking as described above; keep the
 * last context it could save in *again. */
static void fzc_read_on(stax_reader *r, const stax_reader_options *o, const uint8_t *doc, size_t len, uint64_t offset, size_t chunk,
                        unsigned char **again, size_t *again_len) {
    const uint8_t *rest = offset <= len ? doc + offset : doc + len;
    size_t n = offset <= len ? len - (size_t)offset : 0, off = 0;
    uint64_t e0 = r->doc.meter.expanded;
    fzc_check_meters(r, o, len, e0);
    if (!chunk) chunk = n ? n : 1;
    const stax_batch *b;
    int st = STAX_OK;
    for (int last = 0; !last;) {
        size_t k = n - off < chunk ? n - off : chunk;
        last = off == n;
        st = last ? stax_reader_end(r) : stax_reader_feed(r, rest + off, k);
        off += k;
        if (st >= 0) fzc_check_meters(r, o, len, e0);
        while (st >= 0 && (st = stax_reader_next(r, &b)) == STAX_OK) {
            fzc_check_batch(b, o);
            fzc_check_meters(r, o, len, e0);
        }
        if (st >= 0) fzc_check_meters(r, o, len, e0);
        if (st != STAX_NEED_INPUT) break;
        size_t need = 0;
        if (stax_reader_save(r, NULL, 0, &need) == STAX_OK) {
            free(*again);
            *again = (unsigned char *)malloc(need);
            if (!*again || stax_reader_save(r, *again, need, again_len) != STAX_OK) FZC_ABORT("a save failed");
        }
    }
    if (st == STAX_E_INTERNAL) FZC_ABORT("internal error: %s", stax_reader_message(r));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4 || size > 65536) return 0;
    const uint8_t *h = data;
    size_t nmut = h[3] & 15;
    if (size < 4 + 4 * nmut) return 0;
    const uint8_t *mu = data + 4, *doc = data + 4 + 4 * nmut;
    size_t len = size - 4 - 4 * nmut;

    stax_reader_options opt = fzc_options(h[0]), ropt = fzc_resumed_options(h[0]);
    stax_reader *r = stax_reader_new(&opt);
    if (!r) abort();
    fzc_saved s = {NULL, 0, 0, h[1]};
    fzc_read_saving(r, doc, len, h[2] & 15, &s);
    stax_reader_free(r);
    if (!s.n) return 0;
    if (s.want >= s.n) { /* fewer points: read again, keeping point want % n */
        s.want %= s.n;
        s.n = 0;
        r = stax_reader_new(&opt);
        if (!r) abort();
        fzc_read_saving(r, doc, len, h[2] & 15, &s);
        stax_reader_free(r);
    }
    cm_ctx m;
    if (cm_parse(&m, s.ctx, s.len)) FZC_ABORT("a saved context of another layout (%zu bytes)", s.len);
    fzc_slots slots = {NULL, 0, 0};
    fzc_pool pool = {(char *)malloc(65536), 0, 65536};
    size_t added[CM_NLISTS] = {0};
    if (!pool.p) abort();
    for (size_t i = 0; i < nmut; i++) fzc_mutate(&m, mu + 4 * i, &slots, &pool, added, &ropt, len);
    size_t clen;
    unsigned char *c = cm_written(&m, &clen);
    if (!c) abort();
    stax_reader *q;
    void *block;
    int st = fzc_resume(&ropt, (h[0] & 64) != 0, c, clen, &q, &block);
    if (st != STAX_OK && !nmut && !(h[0] & 32)) FZC_ABORT("its own context refused: %s", stax_reader_message(q));
    if (st == STAX_OK) {
        unsigned char *again = NULL;
        size_t again_len = 0;
        stax_pos at;
        if (stax_context_position(c, clen, &at) != STAX_OK) FZC_ABORT("a context taken has no position");
        stax_reader_options eff;
        if (stax_reader_effective_options(&ropt, &eff, NULL) != STAX_OK) abort();
        fzc_check_scope(q);
        fzc_close(&ropt, &eff, c, clen);
        fzc_read_on(q, &eff, doc, len, at.offset, (size_t)(h[2] >> 4), &again, &again_len);
        if (again) { /* a state reached from a context taken: its context is taken too */
            stax_reader *q2;
            void *block2;
            if (fzc_resume(&ropt, 0, again, again_len, &q2, &block2) != STAX_OK)
                FZC_ABORT("a context saved after a resume refused: %s", stax_reader_message(q2));
            stax_reader_free(q2);
            free(block2);
            free(again);
        }
    }
    stax_reader_free(q);
    free(block);
    free(c);
    free(pool.p);
    free(slots.v);
    cm_free(&m);
    free(s.ctx);
    return 0;
}
