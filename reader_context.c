/* Save and resume: the document context of a reader as a byte string, and a
 * new reader restored from one (ctx_ prefix for file-local names). It sits
 * above the batch layer (reader_batch.c): it reads the reader's fields and
 * rebuilds them through the stages' own insertion calls (stax__rd_push, the DTD's
 * stax__dtd_add_*, stax__ns_push), so that a restored reader's tables are
 * made exactly as a reading would have made them.
 *
 * A context is saved only between tokens in content or after the root
 * (docs/api.md, "Save and resume", lists the points): no entity text is
 * open, no token is half parsed, no text run or CDATA section is split at
 * that point. What the reader holds back then (its carry, the rest of the
 * window, bytes still to decode) lies after the saved offset, so a reader fed
 * the bytes from that offset sees everything the original had still to read.
 *
 * Layout (every integer little-endian, every string a u32 length and bytes):
 *   "STAXCTX\0"  u32 version  u64 total length
 *   the body (ctx_body: position, flags, encoding, meters, element stack,
 *   namespace bindings, DTD)
 *   u64 checksum: SipHash-1-3 under a fixed key of every byte before it
 * The key is in this file: the checksum detects damage, not forgery. The
 * restorer trusts none of it: every read is bounded by the length, every
 * count and string by the reader's limits (a name in the DTD by max_dtd, as
 * the parser bounds it: max_name bounds names in content), every name is
 * checked as a Name, every text as UTF-8 Chars; a context that does not end
 * exactly where its last field does is refused. And each field is held to
 * what the parser or the reader leaves there (with the new reader's
 * options) and checked against the others (ctx_check_head: the position, encoding, external
 * bytes, DTD flags and both expansion meters; ctx_get_stack: the bindings
 * and open names as a start tag makes them; ctx_entity_ok, ctx_attdef_ok
 * and ctx_get_decls: the DTD's records as dtd.c makes them; ctx_get_dtd:
 * the meters against what the DTD declares). The one claim no check can
 * refute is the offset: the input before it is what the expansion limit
 * allows for, as in the reading that saved it (docs/security.md).
 *
 * The document state of struct stax_reader (its doc part, and the DTD,
 * namespace and external-entity tables in buf), field by field:
 *   saved:     pos (offset, line, column), part, has_doctype, depth and the
 *              element stack (buf.stack, buf.stack_off: rebuilt by
 *              stax__rd_push), meter.expanded (the content expansion meter),
 *              ext.bytes (external bytes read, part of the meter's input),
 *              enc, detected and bom_len (only the XML declaration reads
 *              these two: kept so that the encoding state is whole), the
 *              namespace bindings in scope (ns), and of the DTD: its
 *              entities, ATTLISTs (elements and attdefs, in declaration
 *              order), notations, unparsed entities (in declaration order),
 *              PIs, has_pe_ref, skip_decls, standalone, has_external,
 *              expanded and input.
 *   required empty at a save point, so not saved: status/err/err_pos (no
 *              error), mode RM_DONE, n_ent/ents/ent_pos (no entity open),
 *              push_ent/push_pos/push_ref (no reference pending), rest/
 *              rest_flags (no text token cut by a reference), in_cdata and
 *              text_cont (no CDATA section or text run split), switch_enc/
 *              switch_table (in content the declaration is long past), a
 *              caller's encoding table or decoder (STAX__ENC_TABLE,
 *              STAX__ENC_HOOK: neither can be written down, and a decoder's
 *              offsets count its UTF-8, not the input).
 *   about bytes after the offset, made again from them: mode (RM_WINDOW:
 *              read what is fed), in/in_len/in_pos, fed, ended, the carry
 *              and carry_off, fr, win_nocr, raw/raw_len/raw_pos (raw_base
 *              becomes the offset), dec (restarted at the offset: a token
 *              starts on a whole unit), dec_err/dec_err_off, head/head_len
 *              (detection is over).
 *   per batch or per call: batch, attr_len, arena, tok_pos (set to pos).
 *   caches, rebuilt empty: last_ge, last_el, tag_stamp (0, with every
 *              attdef's stamp 0: the next start tag counts from 1).
 *   configuration and buffers (the new reader's own): cfg (opt, simd,
 *              forced, the capacities), buf's memory and tables, src, fd,
 *              file, the DTD's limits and region, ext's buffer. The new
 *              reader's options must have the same flags and a resolver when
 *              the original had one (and only then); its limits may differ,
 *              and the context must fit them.
 */
#include "reader.h"

#ifndef STAX_NO_RESUME

#define CTX_MAGIC "STAXCTX"     /* and a NUL: 8 bytes */
#define CTX_HEAD 20u            /* magic, version, total length */
#define CTX_SUM 8u              /* the checksum at the end */
#define CTX_POS_LEN 24u         /* the position after the header: offset, line, column (u64 each) */
#define CTX_FIXED 192u          /* the header, the fixed fields, the counts and the checksum (132), rounded up */
#define CTX_FLAGS (STAX_READ_SKIP_WS | STAX_READ_NAMESPACES | STAX_READ_FRAGMENT | STAX_READ_DOCUMENTS)
/* An entity's flags in a context: 1 a parameter entity, 2 external, 4
 * unparsed, 8 declared in external text; dtd.h numbers STAX__ENT_* so, and
 * they are written as they are. */
#define CTX_E_BITS 15u
typedef char ctx_entity_bits[(int)STAX__ENT_PE == 1 && (int)STAX__ENT_EXTERNAL == 2 && (int)STAX__ENT_UNPARSED == 4 &&
                                     (int)STAX__ENT_EXT_DECL == 8
                                 ? 1
                                 : -1];

static const stax__hash_key ctx_key = {0x73746178636f6e74ULL, 0x6578742076657231ULL};

/* ================================================================ writing */

/* Output: counted, and written through the checked window when there is one. */
typedef struct ctx_w {
    stax__out o;
    size_t len;
    int write;
    int too_long; /* a string longer than a u32 says */
} ctx_w;

static void ctx_bytes(ctx_w *w, const void *s, size_t n) {
    w->len += n;
    if (w->write) stax__out_put(&w->o, s, n);
}

static void ctx_uint(ctx_w *w, uint64_t v, unsigned width) {
    unsigned char b[8];
    for (unsigned i = 0; i < width; i++) b[i] = (unsigned char)(v >> (8 * i));
    ctx_bytes(w, b, width);
}
#define ctx_u8(w, v) ctx_uint((w), (v), 1)
#define ctx_u32(w, v) ctx_uint((w), (v), 4)
#define ctx_u64(w, v) ctx_uint((w), (v), 8)

static void ctx_str(ctx_w *w, stax_str s) {
    if (s.len > UINT32_MAX) w->too_long = 1;
    ctx_u32(w, s.len);
    ctx_bytes(w, s.ptr, s.len);
}

#ifndef STAX_NO_DTD
static void ctx_put_dtd(ctx_w *w, const stax__dtd *d) {
    ctx_u32(w, d->n_ents);
    for (const stax__entity *e = stax__ent_first(d); e; e = stax__ent_next(d, e)) { /* in declaration order */
        stax__entity_decl all;
        stax__ent_ids(e, &all);
        ctx_u8(w, all.flags & CTX_E_BITS);
        ctx_str(w, all.name);
        ctx_str(w, all.value);
        ctx_str(w, all.pubid);
        ctx_str(w, all.sysid);
        ctx_str(w, all.notation);
        ctx_str(w, all.base);
    }
    ctx_u32(w, d->n_unp);
    for (size_t i = 0; i < d->n_unp; i++) ctx_str(w, d->unparsed[i].name);
    ctx_u32(w, d->n_elems);
    for (const stax__dtd_elem_def *el = d->elem_list; el; el = el->next) {
        uint32_t n = 0;
        for (const stax__attdef *a = el->first; a; a = a->next) n++;
        ctx_str(w, el->name);
        ctx_u32(w, n);
        for (const stax__attdef *a = el->first; a; a = a->next) {
            ctx_str(w, a->name);
            ctx_str(w, a->value);
            ctx_u8(w, a->type);
            ctx_u8(w, a->deflt);
        }
    }
    ctx_u32(w, d->n_not);
    for (size_t i = 0; i < d->n_not; i++) {
        ctx_str(w, d->notations[i].name);
        ctx_str(w, d->notations[i].pubid);
        ctx_u8(w, d->notations[i].sysid.ptr != NULL);
        ctx_str(w, d->notations[i].sysid);
    }
    ctx_u32(w, d->n_pis);
    for (size_t i = 0; i < d->n_pis; i++) {
        ctx_str(w, d->pis[i].target);
        ctx_str(w, d->pis[i].data);
    }
}
#endif

/* Everything between the header and the checksum. */
static void ctx_body(ctx_w *w, const stax_reader *r) {
    ctx_u64(w, r->doc.pos.offset);
    ctx_u64(w, r->doc.pos.line);
    ctx_u64(w, r->doc.pos.column);
    ctx_u32(w, r->cfg.opt.flags & CTX_FLAGS);
    ctx_u8(w, r->cfg.opt.resolve != NULL);
    ctx_u8(w, (unsigned)r->doc.part);
    ctx_u8(w, (unsigned)r->doc.has_doctype);
    ctx_u32(w, (unsigned)r->doc.enc);
    ctx_u32(w, (unsigned)r->doc.detected);
    ctx_u8(w, r->doc.bom_len);
    ctx_u64(w, r->doc.meter.expanded);
    ctx_u64(w, r->buf.ext.bytes);
    ctx_u8(w, (unsigned)r->buf.dtd.has_pe_ref);
    ctx_u8(w, (unsigned)r->buf.dtd.skip_decls);
    ctx_u8(w, (unsigned)r->buf.dtd.standalone);
    ctx_u8(w, (unsigned)r->buf.dtd.has_external);
    ctx_u64(w, r->buf.dtd.meter.expanded);
    ctx_u64(w, r->buf.dtd.meter.input);
    ctx_u32(w, r->doc.depth);
    for (uint32_t d = 0; d < r->doc.depth; d++) {
        size_t at = rd_stack_at(r, d), end = d + 1 < r->doc.depth ? rd_stack_at(r, d + 1) : r->buf.stack.len;
        stax_str name = {r->buf.stack.ptr + at, end - at};
        ctx_str(w, name);
    }
    size_t nb = r->buf.ev_ns ? r->buf.ns.n : 0;
    ctx_u32(w, nb);
#ifndef STAX_NO_NAMESPACES
    for (size_t i = 0; i < nb; i++) {
        stax_str prefix, uri;
        uint32_t depth;
        stax__ns_binding(&r->buf.ns, i, &prefix, &uri, &depth);
        ctx_str(w, prefix);
        ctx_str(w, uri);
        ctx_u32(w, depth);
    }
#endif
#ifndef STAX_NO_DTD
    ctx_put_dtd(w, &r->buf.dtd);
#else
    for (int i = 0; i < 5; i++) ctx_u32(w, 0); /* entities, unparsed, elements, notations, PIs */
#endif
}

static void ctx_whole(ctx_w *w, const stax_reader *r, size_t total) {
    ctx_bytes(w, CTX_MAGIC, 8);
    ctx_u32(w, STAX_CONTEXT_VERSION);
    ctx_u64(w, total);
    ctx_body(w, r);
}

/* Whether r stands at a point a context can be saved at. */
static int ctx_saveable(const stax_reader *r) {
    return r->doc.status == 0 && r->doc.mode != RM_DONE && (r->doc.part == DOC_CONTENT || r->doc.part == DOC_EPILOG) && !r->doc.n_ent &&
           !r->doc.push_ent && !r->doc.rest && !r->doc.in_cdata && !r->doc.text_cont && !r->doc.switch_enc && r->doc.enc &&
           r->doc.enc != STAX__ENC_TABLE && r->doc.enc != STAX__ENC_HOOK;
}

int stax_reader_save(stax_reader *r, void *buf, size_t cap, size_t *len) {
    if (!r || !len || (!buf && cap)) return STAX_E_USAGE;
    if (!ctx_saveable(r)) return STAX_E_NOSAVE;
    ctx_w w;
    memset(&w, 0, sizeof w);
    ctx_whole(&w, r, 0);
    if (w.too_long) return STAX_E_NOSAVE;
    size_t total = w.len + CTX_SUM;
    *len = total;
    if (cap < total) return cap ? STAX_E_FULL : STAX_OK;
    memset(&w, 0, sizeof w);
    w.o = stax__out_make((char *)buf, cap);
    w.write = 1;
    ctx_whole(&w, r, total);
    uint64_t sum = stax__hash(&ctx_key, buf, total - CTX_SUM);
    ctx_u64(&w, sum);
    if (w.o.over || w.len != total) return STAX_E_INTERNAL;
    return STAX_OK;
}

void stax__context_seal(void *buf, size_t len) {
    if (len < CTX_HEAD + CTX_SUM) return;
    ctx_w w;
    memset(&w, 0, sizeof w);
    w.o = stax__out_make((char *)buf + len - CTX_SUM, CTX_SUM);
    w.write = 1;
    ctx_u64(&w, stax__hash(&ctx_key, buf, len - CTX_SUM));
}

size_t stax_context_max_size(const stax_reader_options *opt) {
    stax_reader_options o;
    if (stax_reader_effective_options(opt, &o, NULL) != STAX_OK) return 0;
    size_t per = (size_t)o.max_name + 4, n = CTX_FIXED;
    if (per > (SIZE_MAX - n) / (o.max_depth ? o.max_depth : 1)) return 0;
    n += per * o.max_depth;
    size_t ns = o.flags & STAX_READ_NAMESPACES ? o.max_ns_bytes : 0;
#ifdef STAX_NO_DTD
    size_t dtd = 0;
#else
    /* what the region holds, and the names of the unparsed entities once more */
    size_t dtd = o.max_dtd > SIZE_MAX / 2 ? SIZE_MAX : 2 * o.max_dtd;
#endif
    if (ns > SIZE_MAX - n || dtd > SIZE_MAX - n - ns) return 0;
    return n + ns + dtd;
}

/* ================================================================ reading */

typedef struct ctx_r {
    const unsigned char *p;
    size_t n;
    int bad;
} ctx_r;

static uint64_t ctx_get(ctx_r *c, unsigned width) {
    if (c->n < width) {
        c->bad = 1;
        c->n = 0;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++) v |= (uint64_t)c->p[i] << (8 * i);
    c->p += width;
    c->n -= width;
    return v;
}
#define ctx_g8(c) ((unsigned)ctx_get((c), 1))
#define ctx_g32(c) ((uint32_t)ctx_get((c), 4))
#define ctx_g64(c) ctx_get((c), 8)

/* A string of at most max bytes, pointing into the context. */
static stax_str ctx_gstr(ctx_r *c, size_t max) {
    stax_str s = {"", 0};
    uint32_t n = ctx_g32(c);
    if (c->bad || n > c->n || n > max) {
        c->bad = 1;
        c->n = 0;
        return s;
    }
    s.ptr = (const char *)c->p;
    s.len = n;
    c->p += n;
    c->n -= n;
    return s;
}

static int ctx_is_name(stax_str s) { return s.len && stax__check_name(s.ptr, s.len) == 0; }
#if !defined(STAX_NO_DTD) || !defined(STAX_NO_NAMESPACES) /* (what holds text: the DTD, the bindings) */
static int ctx_is_text(stax_str s) {
    int err = 0;
    return stax__check_chars(s.ptr, s.len, &err) == s.len;
}
static int ctx_has_colon(stax_str s) { return memchr(s.ptr, ':', s.len) != NULL; }
#endif
#if !defined(STAX_NO_NAMESPACES)
static int ctx_is(stax_str s, const char *z) { return s.len == strlen(z) && memcmp(s.ptr, z, s.len) == 0; }
/* A QName of Namespaces 1.0 (one colon at most, both parts NCNames), its
 * prefix in *prefix. */
static int ctx_is_qname(stax_str s, stax_str *prefix) {
    stax_str local;
    return ctx_is_name(s) && stax__qname_split(s, prefix, &local) == 0;
}
#endif

static int ctx_known_encoding(unsigned enc) {
    if (enc >= STAX__ENC_UTF8 && enc <= STAX__ENC_CP1252) return 1;
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (enc == STAX__ENC_UTF32LE || enc == STAX__ENC_UTF32BE) return 1;
#endif
    return enc >= STAX__ENC_SBCS && enc <= INT_MAX && memcmp(stax__encoding_name((int)enc), "unknown", 8) != 0;
}

/* The refusal: the reader is as stax_reader_reset leaves it, with the error. */
#define ctx_refuse(r, ...) (stax_reader_reset(r), stax__rd_fail_at((r), STAX_E_CONTEXT, (r)->doc.pos, __VA_ARGS__))

/* Whether an expansion meter at `expanded` is within the limits of r's
 * options for `input` bytes of input: the test stax__meter_add made when it
 * last counted (and input only grows since). */
static int ctx_meter_fits(stax_reader *r, uint64_t expanded, uint64_t input) {
    if (!expanded) return 1;
    stax__meter m;
    m.expanded = expanded - 1;
    m.input = input;
    return stax__meter_add(&m, 0, r->cfg.opt.entity_threshold, r->cfg.opt.entity_amplification, &r->doc.err, NULL) == 0;
}

#ifndef STAX_NO_DTD
/* A string of the DTD, kept in its region ("" stays a static empty string). */
static int ctx_keep(stax__dtd *d, stax_str *s) {
    if (!s->len) {
        s->ptr = "";
        return 0;
    }
    char *k = stax__dtd_store(d, s->ptr, s->len);
    if (!k) return -1;
    s->ptr = k;
    return 0;
}

/* A public id as the DTD keeps it (stax__dtd_store_pubid): PubidChars, its
 * white space one space between others. */
static int ctx_is_pubid(stax_str s) {
    for (size_t i = 0; i < s.len; i++) {
        unsigned char ch = (unsigned char)s.ptr[i];
        if (!stax__is_pubid_char(ch) || ch == '\r' || ch == '\n') return 0;
        if (ch == ' ' && (i == 0 || i + 1 == s.len || s.ptr[i + 1] == ' ')) return 0;
    }
    return 1;
}

/* A system id as the DTD keeps it: text with its line ends normalized, in
 * one kind of quotes. */
static int ctx_is_sysid(stax_str s) {
    return ctx_is_text(s) && !memchr(s.ptr, '\r', s.len) && !(memchr(s.ptr, '"', s.len) && memchr(s.ptr, '\'', s.len));
}

/* A name the DTD declares where namespaces allow no colon (entities,
 * notations, PI targets). */
static int ctx_is_dtd_name(const stax__dtd *d, stax_str s) { return ctx_is_name(s) && !(d->no_colons && ctx_has_colon(s)); }
/* An element type or attribute name of an ATTLIST: a QName with namespaces. */
static int ctx_is_dtd_qname(const stax__dtd *d, stax_str s) {
#ifndef STAX_NO_NAMESPACES
    stax_str prefix;
    if (d->no_colons) return ctx_is_qname(s, &prefix);
#endif
    (void)d;
    return ctx_is_name(s);
}

/* What the entities said about the meters: how many general parsed
 * entities there are, and how many in all. */
typedef struct ctx_ents {
    size_t parsed, all, unparsed;
} ctx_ents;

/* One entity record, as the parser makes them (dtd.c, dtd_entity_decl). */
static int ctx_entity_ok(const stax_reader *r, const stax__dtd *d, unsigned bits, const stax__entity_decl *e) {
    int pe = (e->flags & STAX__ENT_PE) != 0, external = (e->flags & STAX__ENT_EXTERNAL) != 0,
        unparsed = (e->flags & STAX__ENT_UNPARSED) != 0, ext_decl = (e->flags & STAX__ENT_EXT_DECL) != 0;
    if (bits > 15 || !ctx_is_dtd_name(d, e->name) || !ctx_is_text(e->value) || !ctx_is_pubid(e->pubid) || !ctx_is_sysid(e->sysid) ||
        !ctx_is_text(e->base))
        return 0;
    if (unparsed && (!external || pe || !ctx_is_name(e->notation))) return 0;
    if (!unparsed && e->notation.len) return 0;
    if (!external && (e->pubid.len || e->sysid.len)) return 0;
    if (external && e->value.len) return 0;
    /* declared in a parameter entity or the external subset: there was one */
    if (ext_decl && !d->has_pe_ref && !d->has_external) return 0;
    /* a base is that of the external text the declaration was read in */
    if (e->base.len && (!external || unparsed || !ext_decl || !r->cfg.opt.resolve)) return 0;
    return stax__dtd_entity(d, e->name.ptr, e->name.len, pe) == NULL; /* the first declaration is the one kept */
}

/* The bases of the entities restored so far, each kept once: the parse
 * keeps the base of an external text once for all the declarations read in
 * it (dtd.c, dtd_decl_base), so a copy for each entity could need more
 * than max_dtd where the parse did not. The last CTX_BASES distinct ones
 * are remembered (the texts that declare external entities are few): with
 * more, a restore may keep a base twice. */
#define CTX_BASES 16
typedef struct ctx_bases {
    stax_str kept[CTX_BASES];
    unsigned n, next;
} ctx_bases;

static int ctx_keep_base(stax__dtd *d, ctx_bases *b, stax_str *s) {
    for (unsigned i = 0; i < b->n; i++)
        if (b->kept[i].len == s->len && memcmp(b->kept[i].ptr, s->ptr, s->len) == 0) {
            s->ptr = b->kept[i].ptr;
            return 0;
        }
    if (ctx_keep(d, s)) return -1;
    if (s->len) {
        b->kept[b->next] = *s;
        b->next = (b->next + 1) % CTX_BASES;
        if (b->n < CTX_BASES) b->n++;
    }
    return 0;
}

/* 0; 1 when the context is malformed; -1 when the DTD does not fit max_dtd.
 * Names are bounded by the region, as the parser bounds them (max_name is
 * the limit of names in content). */
static int ctx_get_entities(ctx_r *c, stax_reader *r, ctx_ents *n_ents) {
    stax__dtd *d = &r->buf.dtd;
    size_t lim = r->cfg.opt.max_dtd;
    ctx_bases bases;
    bases.n = bases.next = 0;
    for (uint32_t n = ctx_g32(c); n-- > 0 && !c->bad;) {
        stax__entity_decl e;
        memset(&e, 0, sizeof e);
        unsigned bits = ctx_g8(c);
        e.flags = bits & CTX_E_BITS; /* (more is refused below) */
        e.name = ctx_gstr(c, lim);
        e.value = ctx_gstr(c, lim);
        e.pubid = ctx_gstr(c, lim);
        e.sysid = ctx_gstr(c, lim);
        e.notation = ctx_gstr(c, lim);
        e.base = ctx_gstr(c, lim);
        if (c->bad || !ctx_entity_ok(r, d, bits, &e)) return 1;
        /* kept in the order the parse keeps them (dtd.c, dtd_entity_decl: the
         * value, or an external entity's base and ids; the name goes into the
         * record), and the entities in the order they were declared, so that
         * the region's chunks fill alike */
        if (ctx_keep(d, &e.value) || ctx_keep_base(d, &bases, &e.base) || ctx_keep(d, &e.pubid) || ctx_keep(d, &e.sysid) ||
            ctx_keep(d, &e.notation) || !stax__dtd_add_entity(d, &e))
            return -1;
        n_ents->all++;
        n_ents->parsed += !(e.flags & (STAX__ENT_PE | STAX__ENT_UNPARSED));
        n_ents->unparsed += (e.flags & STAX__ENT_UNPARSED) != 0;
    }
    /* the unparsed entities in declaration order: each of them once */
    uint32_t nu = ctx_g32(c);
    if (c->bad || nu != n_ents->unparsed) return 1;
    int rc = 0;
    for (uint32_t i = 0; i < nu && !rc; i++) {
        stax_str name = ctx_gstr(c, lim);
        stax__entity *e = c->bad ? NULL : stax__dtd_entity(d, name.ptr, name.len, 0);
        if (!e || !stax__ent_is(e, STAX__ENT_UNPARSED) || stax__ent_is(e, STAX__ENT_BUSY)) rc = 1; /* (busy: listed already) */
        else if (stax__dtd_add_unparsed(d, e)) rc = -1;
        else stax__ent_busy(e, 1);
    }
    for (size_t i = 0; i < d->n_unp; i++) stax__ent_busy(stax__dtd_entity(d, d->unparsed[i].name.ptr, d->unparsed[i].name.len, 0), 0);
    return rc ? rc : c->bad;
}

/* An attdef as the parser makes them: a default only with #FIXED or a value,
 * within max_token, and normalized as its type says (3.3.3: no space at
 * either end nor two together for a type other than CDATA). */
static int ctx_attdef_ok(const stax_reader *r, const stax__dtd *d, const stax__attdef *a) {
    stax_str v = a->value;
    if (!ctx_is_dtd_qname(d, a->name) || !ctx_is_text(v) || a->type > STAX__AT_ENUM || a->deflt > STAX__DEF_VALUE ||
        v.len > r->cfg.opt.max_token)
        return 0;
    if ((a->deflt == STAX__DEF_REQUIRED || a->deflt == STAX__DEF_IMPLIED) && v.len) return 0;
    if (a->type != STAX__AT_CDATA && v.len && (v.ptr[0] == ' ' || v.ptr[v.len - 1] == ' '))
        return 0;
    for (size_t i = 1; a->type != STAX__AT_CDATA && i < v.len; i++)
        if (v.ptr[i] == ' ' && v.ptr[i - 1] == ' ') return 0;
    return 1;
}

static int ctx_get_attlists(ctx_r *c, stax_reader *r) {
    stax__dtd *d = &r->buf.dtd;
    size_t lim = r->cfg.opt.max_dtd;
    for (uint32_t n = ctx_g32(c); n-- > 0 && !c->bad;) {
        stax_str name = ctx_gstr(c, lim);
        uint32_t k = ctx_g32(c);
        if (c->bad || !k || !ctx_is_dtd_qname(d, name) || stax__dtd_elem(d, name.ptr, name.len)) return 1;
        stax__dtd_elem_def *el = stax__dtd_add_elem(d, name);
        if (!el) return -1;
        while (k-- > 0) {
            stax__attdef a;
            memset(&a, 0, sizeof a);
            a.name = ctx_gstr(c, lim);
            a.value = ctx_gstr(c, lim);
            a.type = (unsigned char)ctx_g8(c);
            a.deflt = (unsigned char)ctx_g8(c);
            if (c->bad || !ctx_attdef_ok(r, d, &a) || stax__dtd_attdef(d, el, a.name.ptr, a.name.len)) return 1;
            if (ctx_keep(d, &a.name) || ctx_keep(d, &a.value) || stax__dtd_add_attdef(d, el, &a)) return -1;
        }
    }
    /* saved latest first, as the list runs, and so added in reverse: the
     * list turned back is the one the parse made */
    stax__dtd_elem_def *back = NULL;
    for (stax__dtd_elem_def *el = d->elem_list, *next; el; el = next) {
        next = el->next;
        el->next = back;
        back = el;
    }
    d->elem_list = back;
    return c->bad;
}

static int ctx_has_notation(const stax__dtd *d, stax_str name) {
#ifdef STAX__SMALL
    for (size_t i = 0; i < d->n_not; i++)
        if (d->notations[i].name.len == name.len && memcmp(d->notations[i].name.ptr, name.ptr, name.len) == 0) return 1;
    return 0;
#else
    return stax__dtd_has_notation(d, name.ptr, name.len);
#endif
}

/* The PI target 'xml' in any case is reserved. */
static int ctx_is_pi_target(const stax__dtd *d, stax_str t) {
    return ctx_is_dtd_name(d, t) && !(t.len == 3 && (t.ptr[0] | 32) == 'x' && (t.ptr[1] | 32) == 'm' && (t.ptr[2] | 32) == 'l');
}

/* A PI's data as the DTD keeps it: from its first non-space, line ends normalized. */
static int ctx_is_pi_data(stax_str s) {
    return ctx_is_text(s) && !memchr(s.ptr, '\r', s.len) && !(s.len && stax__is_ws((unsigned char)s.ptr[0]));
}

static int ctx_get_decls(ctx_r *c, stax_reader *r) {
    stax__dtd *d = &r->buf.dtd;
    size_t lim = r->cfg.opt.max_dtd;
    for (uint32_t n = ctx_g32(c); n-- > 0 && !c->bad;) {
        stax_decl nd;
        nd.name = ctx_gstr(c, lim);
        nd.pubid = ctx_gstr(c, lim);
        unsigned has_sysid = ctx_g8(c);
        nd.sysid = ctx_gstr(c, lim);
        nd.notation.ptr = "";
        nd.notation.len = 0;
        if (c->bad || has_sysid > 1 || (!has_sysid && nd.sysid.len) || !ctx_is_dtd_name(d, nd.name) || !ctx_is_pubid(nd.pubid) ||
            !ctx_is_sysid(nd.sysid) || ctx_has_notation(d, nd.name))
            return 1;
        if (ctx_keep(d, &nd.name) || ctx_keep(d, &nd.pubid) || ctx_keep(d, &nd.sysid)) return -1;
        if (!has_sysid) nd.sysid.ptr = NULL;
        if (stax__dtd_add_notation(d, &nd)) return -1;
    }
    for (uint32_t n = ctx_g32(c); n-- > 0 && !c->bad;) {
        stax_dtd_pi pi;
        pi.target = ctx_gstr(c, lim);
        pi.data = ctx_gstr(c, lim);
        if (c->bad || !ctx_is_pi_target(d, pi.target) || !ctx_is_pi_data(pi.data)) return 1;
        if (ctx_keep(d, &pi.target) || ctx_keep(d, &pi.data) || stax__dtd_add_pi(d, &pi)) return -1;
    }
    return c->bad;
}
#endif /* STAX_NO_DTD */

/* The DTD's part of the body: 0, or the refusal. The meters must agree with
 * what it declares: content expands only general parsed entities, the DTD
 * only entities. */
static int ctx_get_dtd(ctx_r *c, stax_reader *r) {
#ifndef STAX_NO_DTD
    if (r->doc.has_doctype && c->n >= 4 && stax__dtd_reserve(&r->buf.dtd)) return ctx_refuse(r, "resume: out of memory for the DTD");
    int rc = 0;
    ctx_ents n;
    memset(&n, 0, sizeof n);
    if (!r->doc.has_doctype) {
        for (int i = 0; i < 5 && !c->bad; i++)
            if (ctx_g32(c)) rc = 1;
    } else if (!(rc = ctx_get_entities(c, r, &n)) && !(rc = ctx_get_attlists(c, r))) {
        rc = ctx_get_decls(c, r);
    }
    if (rc < 0) return ctx_refuse(r, "resume: the saved DTD does not fit max_dtd (%zu bytes)", r->cfg.opt.max_dtd);
    if (rc || c->bad) return ctx_refuse(r, "resume: the context's DTD is malformed");
    int seq = (rd_shape(r) & STAX_READ_DOCUMENTS) != 0; /* (content's meter counts the documents before too) */
    if ((r->doc.meter.expanded && !n.parsed && !seq) || (r->buf.dtd.meter.expanded && !n.all))
        return ctx_refuse(r, "resume: the context's expansion meter counts entities its DTD does not declare");
    return 0;
#else
    for (int i = 0; i < 5; i++)
        if (ctx_g32(c) || c->bad) return ctx_refuse(r, "resume: the context has a DTD, which this build leaves out (STAX_NO_DTD)");
    if (r->doc.meter.expanded || r->buf.dtd.meter.expanded)
        return ctx_refuse(r, "resume: the context's expansion meter counts entities its DTD does not declare");
    return 0;
#endif
}

#ifndef STAX_NO_NAMESPACES
/* Binding i of the context, as a start tag makes them (reader_tokens.c,
 * rd_ns_start): the default namespace to any name but the two reserved
 * ones, or to none; a prefix, an NCName other than xml and xmlns, to a
 * name, not a reserved one. At most max_ns on one element, no prefix twice
 * there (same: the bindings of its element so far), and no value over
 * max_token (an attribute's). */
static int ctx_binding_ok(const stax_reader *r, stax_str prefix, stax_str uri, uint32_t same) {
    if (!ctx_is_text(prefix) || !ctx_is_text(uri) || uri.len > r->cfg.opt.max_token || same >= r->cfg.opt.max_ns) return 0;
    if (ctx_is(uri, STAX__XML_NS) || ctx_is(uri, STAX__XMLNS_NS)) return 0;
    if (prefix.len && (!ctx_is_name(prefix) || ctx_has_colon(prefix) || ctx_is(prefix, "xml") || ctx_is(prefix, "xmlns") || !uri.len))
        return 0;
    for (uint32_t k = 1; k <= same; k++) {
        stax_str p, u;
        uint32_t at;
        stax__ns_binding(&r->buf.ns, r->buf.ns.n - k, &p, &u, &at);
        if (p.len == prefix.len && memcmp(p.ptr, prefix.ptr, p.len) == 0) return 0;
    }
    return 1;
}

/* Open element d (1: the root) with namespaces: a QName whose prefix is not
 * xmlns and is bound in its scope (the bindings made so far). */
static int ctx_open_name_ok(const stax_reader *r, uint32_t d) {
    size_t at = rd_stack_at(r, d - 1), end = d < r->doc.depth ? rd_stack_at(r, d) : r->buf.stack.len;
    stax_str name = {r->buf.stack.ptr + at, end - at}, prefix, uri;
    return ctx_is_qname(name, &prefix) && !ctx_is(prefix, "xmlns") && stax__ns_lookup(&r->buf.ns, prefix, &uri) == 0;
}
#endif

/* The open elements and the bindings in scope: 0, or the refusal. */
static int ctx_get_stack(ctx_r *c, stax_reader *r) {
    uint32_t depth = ctx_g32(c);
    if (c->bad || depth > r->cfg.opt.max_depth)
        return ctx_refuse(r, "resume: %u open elements, over max_depth (%u)", (unsigned)depth, (unsigned)r->cfg.opt.max_depth);
    /* (a fragment's top level is content: DOC_CONTENT at every depth) */
    if ((depth > 0 || (rd_shape(r) & STAX_READ_FRAGMENT)) != (r->doc.part == DOC_CONTENT))
        return ctx_refuse(r, "resume: the context's element stack is malformed");
    for (uint32_t d = 0; d < depth; d++) {
        stax_str name = ctx_gstr(c, r->cfg.opt.max_name);
        if (c->bad || !ctx_is_name(name)) return ctx_refuse(r, "resume: the context's element stack is malformed (or a name is over max_name)");
        if (stax__rd_push(r, name.ptr, name.len)) return r->doc.status;
    }
    uint32_t nb = ctx_g32(c);
    if (nb && !r->buf.ev_ns) return ctx_refuse(r, "resume: the context has namespace bindings and the reader reads without namespaces");
#ifndef STAX_NO_NAMESPACES
    /* element d's name is checked once the bindings of depth d are made */
    uint32_t d = 1, same = 0;
    for (uint32_t i = 0; i < nb; i++) {
        stax_str prefix = ctx_gstr(c, r->cfg.opt.max_ns_bytes), uri = ctx_gstr(c, r->cfg.opt.max_ns_bytes);
        uint32_t at = ctx_g32(c);
        if (c->bad || at < d || at > depth) return ctx_refuse(r, "resume: the context's namespace bindings are malformed");
        for (; d < at; d++, same = 0)
            if (!ctx_open_name_ok(r, d)) return ctx_refuse(r, "resume: an open element's name is not a QName bound in its scope");
        if (!ctx_binding_ok(r, prefix, uri, same++))
            return ctx_refuse(r, "resume: the context's namespace bindings are malformed");
        int rc = stax__ns_push(&r->buf.ns, prefix, uri, at, 1);
        if (rc == STAX_E_NOMEM) return ctx_refuse(r, "resume: out of memory for the namespace bindings");
        if (rc) return ctx_refuse(r, "resume: the namespace bindings in scope are over max_ns_bytes (%zu)", r->cfg.opt.max_ns_bytes);
    }
    for (; r->buf.ev_ns && d <= depth; d++)
        if (!ctx_open_name_ok(r, d)) return ctx_refuse(r, "resume: an open element's name is not a QName bound in its scope");
#endif
    return 0;
}

/* The header: the body's bytes (after it, before the checksum), or NULL with *why. */
static const unsigned char *ctx_open(const void *buf, size_t len, size_t *body, const char **why) {
    const unsigned char *p = (const unsigned char *)buf;
    if (!p || len < CTX_HEAD + CTX_SUM || memcmp(p, CTX_MAGIC, 8) != 0) return *why = "not a stax context", (const unsigned char *)NULL;
    ctx_r c = {p + 8, len - 8, 0};
    uint32_t version = ctx_g32(&c);
    uint64_t total = ctx_g64(&c);
    if (version != STAX_CONTEXT_VERSION) return *why = "a context of another version", (const unsigned char *)NULL;
    if (total != len) return *why = "the context is truncated or has bytes after it", (const unsigned char *)NULL;
    uint64_t sum = 0;
    for (unsigned i = 0; i < 8; i++) sum |= (uint64_t)p[len - 8 + i] << (8 * i);
    if (sum != stax__hash(&ctx_key, p, len - CTX_SUM)) return *why = "the context is corrupt (its checksum does not match)", (const unsigned char *)NULL;
    *body = len - CTX_HEAD - CTX_SUM;
    return p + CTX_HEAD;
}

int stax_context_position(const void *buf, size_t len, stax_pos *pos) {
    size_t n;
    const char *why;
    const unsigned char *b = ctx_open(buf, len, &n, &why);
    if (!b || !pos) return STAX_E_CONTEXT;
    ctx_r c = {b, n, 0};
    pos->offset = ctx_g64(&c);
    pos->line = ctx_g64(&c);
    pos->column = ctx_g64(&c);
    return c.bad ? STAX_E_CONTEXT : STAX_OK;
}

int stax_context_move(void *buf, size_t len, stax_pos pos) {
    size_t n;
    const char *why;
    if (!ctx_open(buf, len, &n, &why) || n < CTX_POS_LEN) return STAX_E_CONTEXT;
    ctx_w w;
    memset(&w, 0, sizeof w);
    w.o = stax__out_make((char *)buf + CTX_HEAD, CTX_POS_LEN);
    w.write = 1;
    ctx_u64(&w, pos.offset);
    ctx_u64(&w, pos.line);
    ctx_u64(&w, pos.column);
    if (w.o.over) return STAX_E_INTERNAL;
    stax__context_seal(buf, len);
    return STAX_OK;
}

int stax_context_equal(const void *a, size_t alen, const void *b, size_t blen) {
    size_t n, m;
    const char *why;
    if (!ctx_open(a, alen, &n, &why) || !ctx_open(b, blen, &m, &why) || alen != blen || n < CTX_POS_LEN) return 0;
    const size_t after = CTX_HEAD + CTX_POS_LEN;
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    return memcmp(x, y, CTX_HEAD) == 0 && memcmp(x + after, y + after, alen - after - CTX_SUM) == 0;
}

/* The fixed fields after the header (ctx_body's order). */
typedef struct ctx_head {
    stax_pos pos;
    unsigned flags, resolver, part, has_doctype, enc, detected, bom, pe_ref, skip, standalone, has_external;
    uint64_t expanded, ext_bytes, dtd_expanded, dtd_input;
} ctx_head;

static void ctx_get_head(ctx_r *c, ctx_head *h) {
    h->pos.offset = ctx_g64(c);
    h->pos.line = ctx_g64(c);
    h->pos.column = ctx_g64(c);
    h->flags = ctx_g32(c);
    h->resolver = ctx_g8(c);
    h->part = ctx_g8(c);
    h->has_doctype = ctx_g8(c);
    h->enc = ctx_g32(c);
    h->detected = ctx_g32(c);
    h->bom = ctx_g8(c);
    h->expanded = ctx_g64(c);
    h->ext_bytes = ctx_g64(c);
    h->pe_ref = ctx_g8(c);
    h->skip = ctx_g8(c);
    h->standalone = ctx_g8(c);
    h->has_external = ctx_g8(c);
    h->dtd_expanded = ctx_g64(c);
    h->dtd_input = ctx_g64(c);
}

/* The largest offset a context may have: no input has more bytes than a
 * file offset (off_t) counts, and with it offset + external bytes + the
 * meter's arithmetic stay within 64 bits. */
#define CTX_MAX_OFFSET ((uint64_t)INT64_MAX)

static int ctx_is_utf16(unsigned enc) { return enc == STAX__ENC_UTF16LE || enc == STAX__ENC_UTF16BE; }

/* The fixed fields against each other and against r's options: 0, or the
 * refusal. What a reading can leave there, and nothing else:
 *   - the position: line and column count lines and characters, each of
 *     at least one byte of the offset;
 *   - the encoding: a BOM of 3 bytes is UTF-8's, of 2 UTF-16's, and then,
 *     as with UTF-16 either way, the input's encoding is the detected one;
 *   - the external bytes: none without a resolver, at most max_external;
 *   - without a DOCTYPE, no DTD state and nothing expanded (but in a
 *     sequence of documents, whose content meter counts the documents
 *     before); an unread parameter entity was a parameter-entity reference;
 *   - the meters: the DTD's input is the internal subset and external text
 *     read, both before the offset; each meter within the limits of its own
 *     input (stax__meter_add's test when it last counted), content's input
 *     being the offset and the external bytes (rd_input). */
static int ctx_check_head(stax_reader *r, const ctx_head *h) {
    const stax_reader_options *o = &r->cfg.opt;
    const stax_pos *p = &h->pos;
    if ((h->part != DOC_CONTENT && h->part != DOC_EPILOG) || h->has_doctype > 1 || !ctx_known_encoding(h->enc) ||
        !ctx_known_encoding(h->detected) || (h->pe_ref | h->skip | h->standalone | h->has_external) > 1 || h->resolver > 1 ||
        (h->flags & ~(unsigned)CTX_FLAGS))
        return ctx_refuse(r, "resume: the context is malformed");
    if (h->flags != (o->flags & CTX_FLAGS))
        return ctx_refuse(r, "resume: the context was saved with other flags (STAX_READ_*)");
    if (h->resolver != (o->resolve != NULL))
        return ctx_refuse(r, "resume: the context was saved %s a resolver", h->resolver ? "with" : "without");
    if (p->offset > CTX_MAX_OFFSET || p->line < 1 || p->column < 1 || p->line - 1 > p->offset ||
        p->column - 1 > p->offset - (p->line - 1))
        return ctx_refuse(r, "resume: the context's position (line %llu, column %llu, byte %llu) is not one an input has",
                          (unsigned long long)p->line, (unsigned long long)p->column, (unsigned long long)p->offset);
    if (h->bom == 1 || h->bom > 3 || h->bom > p->offset || (h->bom == 3 && h->detected != STAX__ENC_UTF8) ||
        (h->bom == 2 && !ctx_is_utf16(h->detected)) || ((h->bom || ctx_is_utf16(h->detected) || ctx_is_utf16(h->enc)) && h->enc != h->detected))
        return ctx_refuse(r, "resume: the context's encoding state is malformed");
    if (h->ext_bytes && !h->resolver) return ctx_refuse(r, "resume: the context counts external bytes read without a resolver");
    if (h->ext_bytes > o->max_external)
        return ctx_refuse(r, "resume: the context counts %llu external bytes, over max_external (%zu)", (unsigned long long)h->ext_bytes,
                          o->max_external);
    /* (in a sequence of documents, content's meter counts the documents before too) */
    if (!h->has_doctype && (h->pe_ref || h->skip || h->has_external || h->dtd_expanded || h->dtd_input ||
                            (h->expanded && !(rd_shape(r) & STAX_READ_DOCUMENTS))))
        return ctx_refuse(r, "resume: the context has DTD state and no DOCTYPE");
    if (h->skip && !h->pe_ref) return ctx_refuse(r, "resume: the context's DTD state is malformed");
    uint64_t input = p->offset + h->ext_bytes; /* (no overflow: both at most 2^63 - 1) */
    if (h->dtd_input > input || !ctx_meter_fits(r, h->dtd_expanded, h->dtd_input))
        return ctx_refuse(r, "resume: the context's DTD expansion meter (%llu bytes from %llu of input) is not one its input allows "
                             "(entity_threshold %zu, entity_amplification %lu)",
                          (unsigned long long)h->dtd_expanded, (unsigned long long)h->dtd_input, o->entity_threshold,
                          (unsigned long)o->entity_amplification);
    if (!ctx_meter_fits(r, h->expanded, input))
        return ctx_refuse(r, "resume: the context's expansion meter (%llu bytes) is over the limits for its %llu bytes of input "
                             "(entity_threshold %zu, entity_amplification %lu)",
                          (unsigned long long)h->expanded, (unsigned long long)input, o->entity_threshold,
                          (unsigned long)o->entity_amplification);
    return 0;
}

int stax_reader_resume(stax_reader *r, const void *buf, size_t len) {
    if (!r) return STAX_E_USAGE;
    if (r->doc.status < 0) return r->doc.status;
    if (r->doc.fed || r->doc.ended || r->doc.enc || r->doc.head_len || r->doc.part != rd_first_part(r) || r->doc.pos.offset || r->buf.carry.len)
        return stax__rd_fail_at(r, STAX_E_USAGE, r->doc.pos, "stax_reader_resume after input was read");
    const char *why = "";
    size_t n = 0;
    const unsigned char *b = ctx_open(buf, len, &n, &why);
    if (!b) return ctx_refuse(r, "resume: %s", why);
    ctx_r c = {b, n, 0};
    ctx_head h;
    ctx_get_head(&c, &h);
    if (c.bad) return ctx_refuse(r, "resume: the context is malformed");
    if (ctx_check_head(r, &h)) return r->doc.status;
    r->doc.pos = h.pos;
    r->doc.tok_pos = h.pos;
    r->doc.part = (int)h.part;
    r->doc.has_doctype = (int)h.has_doctype;
    r->doc.detected = (int)h.detected;
    r->doc.bom_len = h.bom;
    r->doc.meter.expanded = h.expanded;
    r->buf.ext.bytes = h.ext_bytes;
    r->buf.dtd.has_pe_ref = (int)h.pe_ref;
    r->buf.dtd.skip_decls = (int)h.skip;
    r->buf.dtd.standalone = (int)h.standalone;
    r->buf.dtd.has_external = (unsigned char)h.has_external;
    r->buf.dtd.meter.expanded = h.dtd_expanded;
    r->buf.dtd.meter.input = h.dtd_input;
    if (ctx_get_stack(&c, r) || ctx_get_dtd(&c, r)) return r->doc.status;
    if (c.bad || c.n) return ctx_refuse(r, "resume: the context is malformed");
    if (h.enc == STAX__ENC_UTF8) {
        r->doc.enc = (int)h.enc;
    } else { /* decoding restarts at the offset: the next feed is raw input from there */
        stax__decoder_init(&r->doc.dec, (int)h.enc, NULL);
        r->doc.enc = (int)h.enc;
        r->doc.raw_base = h.pos.offset;
    }
    r->doc.mode = RM_WINDOW; /* (nothing fed yet: then more input) */
    return STAX_OK;
}

#else
typedef int stax__resume_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_RESUME */
