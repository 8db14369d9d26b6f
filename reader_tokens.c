/* The reader's token parsers: framing (where a token ends, resumable across
 * chunks), then text, tags, comments, PIs, CDATA, the XML declaration and
 * the DOCTYPE on a token seen whole; the element stack, namespaces, and the
 * expansion of entities in content (rd_ prefix; reader.h has the state). */
#include "reader_tag.h"

/* ================================================================ batch output */

/* Copy [s, s+n) to the arena (a token in the carry, whose bytes are about
 * to change). stax__rd_room made room for the whole token. */
int stax__rd_arena_copy(stax_reader *r, stax_str *s) {
    if (!s->len) return 0;
    char *d = r->buf.arena.ptr + r->buf.arena.len;
    if (stax__buf_put(&r->buf.arena, s->ptr, s->len)) return rd_internal(r, "arena smaller than the token");
    s->ptr = d;
    return 0;
}

/* ================================================================ a sequence of documents */

/* STAX_READ_DOCUMENTS: an XML declaration, a DOCTYPE or a start tag in the
 * epilog starts the next document (comments, PIs and white space there are
 * the epilog of the one before); the parsers of those tokens call this
 * where they would refuse them. On an empty batch, STAX_EV_DOCUMENT_END at
 * the token, alone in its batch, and the document state made new (the
 * DTD, whose strings the events before it in a batch may point into, is
 * emptied only there). The position, the encoding, the expansion meter
 * and the external bytes read go on across the documents: the limits hold
 * for the stream. Returns STAX__ROOM (the token is parsed again, the first
 * of the next document), or an error. */
static int rd_next_document(stax_reader *r) {
    if (r->buf.batch.count) return STAX__ROOM;
    if (!rd_emit(r, STAX_EV_DOCUMENT_END, r->doc.tok_pos)) return r->doc.status;
    stax__dtd_reset(&r->buf.dtd, &r->cfg.opt);
    r->doc.has_doctype = 0;
    r->doc.last_ge = NULL;
    r->doc.last_el = NULL;
    r->doc.part = DOC_NEXT;
    return STAX__ROOM;
}

/* Whether the token in the epilog starts the next document of a sequence. */
static inline int rd_sequence_goes_on(const stax_reader *r) {
    return r->doc.part == DOC_EPILOG && (rd_shape(r) & STAX_READ_DOCUMENTS);
}

/* Whether an XML declaration may stand at the token (at_start: in the
 * prolog, before any other token): at the start of the input (in a
 * fragment, its text declaration), or of a document of a sequence after
 * the first (whose first token it then is). */
static inline int rd_decl_ok(const stax_reader *r, int at_start) {
    if (RD_SHAPES && r->doc.part == DOC_NEXT) return 1;
    return (at_start || (rd_shape(r) & STAX_READ_FRAGMENT)) && r->doc.tok_pos.column == 1 && r->doc.tok_pos.line == 1;
}

/* ================================================================ references */

static int rd_str_same(stax_str a, stax_str b) { return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0; }

/* Parse the reference at tok[i] ('&'). On success sets *end (index after ';'),
 * and either *cp (>= 0: a character to insert) or *cp = -1 with the entity
 * name in *name and the entity of that name in *found (NULL when none is
 * declared). Returns 0 or an error. */
static int rd_reference(stax_reader *r, const char *tok, size_t n, int at_eof, size_t i, size_t *end, long *cp,
                        stax_str *name, stax__entity **found) {
    stax__ref ref;
    *found = NULL;
    if (stax__ref_parse(tok, n, i, r->cfg.opt.max_name, STAX__REF_NAME_LATER, &ref, &r->doc.err)) {
        if (ref.stop >= n && at_eof)
            return rd_fail(r, STAX_E_TRUNCATED, tok, n, "the input ends inside a reference");
        return stax__rd_fail_err(r, tok, n);
    }
    *end = ref.end;
    *cp = ref.cp;
    *name = ref.name;
    if (ref.cp >= 0) return 0;
    /* text that refers to entities mostly refers to one again and again; a
     * declared entity's name was checked when it was declared */
    stax__entity *e = r->doc.last_ge;
    if (!e || !rd_str_same(stax__ent_name(e), ref.name)) /* (without a DOCTYPE the table is empty) */
        e = stax__dtd_entity(&r->buf.dtd, ref.name.ptr, ref.name.len, 0);
    if (!e && stax__ref_check_name(&ref, tok + i, &r->doc.err)) return stax__rd_fail_err(r, tok, n);
    *found = e;
    return 0;
}

/* What a reference to general entity `name` at tok[i] means (in content).
 * Returns the entity to expand (internal), or NULL with *report set when it
 * is reported as an ENTITY_REF event (external), or with *undeclared set
 * (undeclared where that is no error: reported too), or NULL after an error. */
static stax__entity *rd_general_entity(stax_reader *r, const char *tok, size_t n, size_t i, stax_str name,
                                       stax__entity *known, stax__entity **report, int *undeclared) {
    stax__entity *e;
    *report = NULL;
    *undeclared = 0;
    int rc = stax__general_entity(r->doc.has_doctype ? &r->buf.dtd : NULL, tok + i, name, 0, known, &e, &r->doc.err);
    if (rc == STAX__REF_SKIP) {
        *undeclared = 1;
        return NULL;
    }
    if (rc == STAX__REF_REPORT) {
        *report = e;
        return NULL;
    }
    if (rc) return stax__rd_fail_err(r, tok, n), (stax__entity *)NULL;
    return e;
}

/* ================================================================ text */

static int rd_text_event(stax_reader *r, const char *s, size_t len, stax_pos pos, unsigned flags);

/* A reference to an internal entity whose text is plain (STAX__ENT_PLAIN)
 * and at most max_text bytes: entering it would give one TEXT of its text at
 * the reference's position, so that event is given here, with the same
 * checks and accounting as stax__rd_push_entity makes. */
static int rd_plain_entity(stax_reader *r, stax_str v, const char *tok, size_t i) {
    stax_pos pos = rd_pos_in(r, tok, i);
    r->doc.tok_pos = pos;
    if (r->doc.n_ent >= r->cfg.opt.max_entity_depth)
        return stax__rd_fail_near(r, STAX_E_LIMIT_ENTITY, pos, tok + i,
                          "entity references nested deeper than max_entity_depth (%u)",
                          (unsigned)r->cfg.opt.max_entity_depth);
    if (stax__rd_expand_account(r, v.len, v.ptr, 0)) return r->doc.status;
    return rd_text_event(r, v.ptr, v.len, pos, 0);
}

/* Validate one non-ASCII or control byte sequence at tok[i]; returns its length or 0 after failing. */
size_t stax__rd_char_at(stax_reader *r, const char *tok, size_t n, size_t i) {
    size_t l = stax__char_at(tok, n, i, &r->doc.err);
    if (!l) stax__rd_fail_err(r, tok, n);
    return l;
}

/* Emit a TEXT event for [s, s+len). Returns 0 or an error. */
static int rd_text_event(stax_reader *r, const char *s, size_t len, stax_pos pos, unsigned flags) {
    size_t j = 0;
    /* Nothing to report: a text continued before this stays continued (the
     * empty rest of a piece cut before a reference: the entity's text goes on). */
    if (len == 0) {
        r->doc.text_cont |= (flags & STAX_EVF_CONTINUED) != 0;
        return 0;
    }
    int piece = r->doc.text_cont || (flags & STAX_EVF_CONTINUED); /* part of a text cut for length */
    r->doc.text_cont = (flags & STAX_EVF_CONTINUED) != 0;
    while (j < len && stax__is_ws((unsigned char)s[j])) j++;
    if (j == len) {
        if ((r->cfg.opt.flags & STAX_READ_SKIP_WS) && !piece) return 0; /* only whole texts are skipped */
        flags |= STAX_EVF_WHITESPACE;
    }
    stax_event *e = rd_emit(r, STAX_EV_TEXT, pos);
    if (!e) return r->doc.status;
    e->flags = (uint8_t)flags;
    e->text.ptr = s;
    e->text.len = len;
    return 0;
}

/* Text outside the root element: whitespace only, and no event. */
static int rd_text_outside(stax_reader *r, const char *tok, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (!stax__is_ws((unsigned char)tok[i])) {
            if ((unsigned char)tok[i] >= 0x80 || (unsigned char)tok[i] < 0x20)
                if (!stax__rd_char_at(r, tok, n, i)) return r->doc.status;
            return rd_fail(r, STAX_E_STRUCTURE, tok, i,
                           r->doc.part == DOC_EPILOG ? "text after the root element"
                                                : "text before the root element");
        }
    }
    return 0;
}

/* An ENTITY_REF event for external entity e, not read. */
static int rd_entity_ref(stax_reader *r, const stax__entity *e, stax_pos pos) {
    stax_event *ev = rd_emit(r, STAX_EV_ENTITY_REF, pos);
    stax_attr *ids = ev ? rd_emit_ids(r, ev) : NULL;
    if (!ids) return r->doc.status;
    stax__entity_decl all;
    stax__ent_ids(e, &all);
    ev->name = all.name;
    ids->name = all.pubid;
    ids->value = all.sysid;
    return 0;
}

/* Parse a complete text token (or piece), framed as f (cut: a piece of a
 * longer text; at_eof: it ends with the input). Decodes references and line
 * ends into the arena when needed (always when copy is set, since the token
 * then lives in the carry); the decoded text is never longer than the token,
 * and stax__rd_room made that much room. Returns the number of bytes consumed
 * (< n when an entity reference ends the token early), or 0 after an error. */
#ifdef STAX__SMALL
size_t stax__rd_text_marks(stax_reader *r, const char *p, size_t end, size_t lim, stax__tscan *t, rd_tdec *d, int mode) {
#ifdef STAX_NO_FAST_PATH
    (void)mode;
    return rd_text_marks_in(r, p, end, lim, t, d, RD_TAG_FULL); /* (the general parser's alone) */
#else
    return rd_text_marks_in(r, p, end, lim, t, d, mode);
#endif
}
#endif

/* The UTF-8 of tok[from, to), which the text scan passed over: 0, or an
 * error at its first bad sequence (found one sequence at a time where the
 * check by blocks fails; builds for size check that way alone). */
static int rd_text_utf8(stax_reader *r, const char *tok, size_t n, size_t from, size_t to) {
#ifndef STAX__SMALL
    if (stax__scan_utf8(r->cfg.simd, tok + from, to - from, n - from) == to - from) return 0;
#endif
    for (size_t i = from; i < to;) {
        size_t l = 1;
        if ((unsigned char)tok[i] >= 0x80 && !(l = stax__rd_char_at(r, tok, n, i))) return r->doc.status;
        i += l;
    }
    return 0;
}

size_t stax__rd_text(stax_reader *r, const rd_frame *f, const char *tok, size_t n, int copy) {
    if (r->doc.part != DOC_CONTENT) return rd_text_outside(r, tok, n) ? 0 : n;
    /* The text's grammar is rd_text_marks' (reader_tag.h), run from each
     * stop of the block scan; what it does not take is taken here: an
     * entity reference (or a reference to report), a control (CR in entity
     * text is a Char), "]]>". The bytes >= 0x80 the scan passed are checked
     * at each stop, before it is looked at, so the first error is the
     * first in the text. The text goes to the arena when a byte is decoded,
     * and always when copy is set (the token lives in the carry). */
    rd_tdec d = {{NULL, NULL, 0}, NULL, 0};
    if (copy) {
        d.o = stax__buf_out(&r->buf.arena);
        d.d0 = d.o.p;
    }
    stax__tscan t = {0, 0, 0, 0, 0};
    size_t i = 0, checked = 0;
    for (;;) {
        i = r->cfg.text_run(tok, i, n, &t);
        if (i < n) i = rd_text_marks(r, tok, i, n, &t, &d, RD_TAG_FULL);
        if (t.hi) {
            if (rd_text_utf8(r, tok, n, checked, i)) return 0;
            t.hi = 0;
        }
        checked = i;
        if (i >= n) break;
        unsigned char c = (unsigned char)tok[i];
        if (c == ']') return rd_fail(r, STAX_E_SYNTAX, tok, i, "']]>' is not allowed in text"), 0;
        if (c != '&') {
            size_t l = stax__rd_char_at(r, tok, n, i);
            if (!l) return 0;
            i += l;
            continue;
        }
        if (!d.d0) {
            d.o = stax__buf_out(&r->buf.arena);
            d.d0 = d.o.p;
        }
        stax__out_put(&d.o, tok + d.run, i - d.run);
        size_t end = 0;
        long cp = 0;
        stax_str name = {NULL, 0};
        stax__entity *found;
        if (rd_reference(r, tok, n, f->at_eof, i, &end, &cp, &name, &found)) return 0;
        if (cp >= 0) {
            stax__out_cp(&d.o, (uint32_t)cp);
            i = d.run = end;
            continue;
        }
        /* an entity: TEXT (what came before) ends here; then the entity is
         * expanded (once this token is consumed) or reported as ENTITY_REF */
        stax__entity *rep, *ent;
        int undeclared;
        ent = rd_general_entity(r, tok, n, i, name, found, &rep, &undeclared);
        if (!ent && !rep && !undeclared) return 0;
        r->doc.last_ge = found;
        if (copy) stax__out_put(&d.o, name.ptr, name.len); /* the name lives in the carry, about to change */
        if (d.o.over) return rd_internal(r, "decoded text longer than its token"), 0;
        size_t tl = (size_t)(d.o.p - d.d0) - (copy ? name.len : 0);
        stax__buf_commit(&r->buf.arena, &d.o);
        if (rd_text_event(r, d.d0, tl, r->doc.tok_pos, 0)) return 0;
        if (ent && stax__ent_is(ent, STAX__ENT_PLAIN)) {
            stax_str v = stax__ent_value(ent);
            if (v.len <= r->cfg.opt.max_text) return rd_plain_entity(r, v, tok, i) ? 0 : end; /* its one TEXT, without entering it */
        }
        if (ent || (rep && r->buf.ext.fn)) { /* expanded, or read through the resolver */
            r->doc.push_ent = ent ? ent : rep;
            r->doc.push_pos = rd_pos_in(r, tok, i);
            r->doc.push_ref = tok + i;
            return end;
        }
        if (rep) return rd_entity_ref(r, rep, rd_pos_in(r, tok, i)) ? 0 : end;
        stax_event *e = rd_emit(r, STAX_EV_ENTITY_REF, rd_pos_in(r, tok, i));
        if (!e || !rd_emit_ids(r, e)) return 0;
        e->name = name;
        if (copy) e->name.ptr = d.d0 + tl;
        return end;
    }
    unsigned flags = f->cut ? STAX_EVF_CONTINUED : 0;
    if (!d.d0) return rd_text_event(r, tok, n, r->doc.tok_pos, flags) ? 0 : n;
    stax__out_put(&d.o, tok + d.run, n - d.run);
    if (d.o.over) return rd_internal(r, "decoded text longer than its token"), 0;
    stax__buf_commit(&r->buf.arena, &d.o);
    return rd_text_event(r, d.d0, (size_t)(d.o.p - d.d0), r->doc.tok_pos, flags) ? 0 : n;
}

/* [s, s+n) with line ends normalized, in the arena when they need it (for
 * comments, PIs, CDATA when they contain CR, or when they live in the carry).
 * Returns 0 or an error. */
static int rd_normalize_eol(stax_reader *r, const char *s, size_t n, int copy, stax_str *out) {
    out->ptr = s;
    out->len = n;
    /* in entity text a CR came from a character reference: it stays */
    const char *cr = r->doc.n_ent ? NULL : (const char *)memchr(s, '\r', n);
    if (!cr && !copy) return 0;
    stax__out o = stax__buf_out(&r->buf.arena);
    char *d0 = o.p;
    if (!cr) stax__out_put(&o, s, n);
    else stax__out_eol(&o, s, n);
    if (o.over) return rd_internal(r, "normalized text longer than its token");
    stax__buf_commit(&r->buf.arena, &o);
    out->ptr = d0;
    out->len = (size_t)(o.p - d0);
    return 0;
}

/* Check [tok+from, tok+to) holds only Char code points in valid UTF-8. */
static int rd_check_chars(stax_reader *r, const char *tok, size_t from, size_t to) {
    int err = 0;
    size_t bad = stax__check_chars(tok + from, to - from, &err);
    if (bad == to - from) return 0;
    size_t at = from + bad;
    if (err == STAX_E_CHAR) {
        uint32_t cp = (unsigned char)tok[at];
        if (cp >= 0x80) stax__utf8_decode((const unsigned char *)tok + at, to - at, &cp);
        return rd_fail(r, STAX_E_CHAR, tok, at, "character U+%04lX is not allowed in XML", (unsigned long)cp);
    }
    return rd_fail(r, STAX_E_ENCODING, tok, at, "invalid UTF-8 byte 0x%02X", (unsigned char)tok[at]);
}

/* ================================================================ names */

/* The part of rd_name (reader_tag.h) that is not inline: non-ASCII names, and every error. */
size_t stax__rd_name_slow(stax_reader *r, const char *tok, size_t n, size_t i, const char *what) {
    size_t j = i;
    while (j < n && (stax__class[(unsigned char)tok[j]] & STAX__C_NAME)) j++;
    size_t len = j - i;
    /* non-ASCII bytes are classed as name bytes; verify them properly */
    if (len == 0) {
        if (i < n && ((unsigned char)tok[i] < 0x20 || (unsigned char)tok[i] >= 0x80) && !stax__rd_char_at(r, tok, n, i))
            return 0;
        return rd_fail(r, STAX_E_NAME, tok, i, "%s: a name was expected", what), 0;
    }
    if (len > r->cfg.opt.max_name)
        return rd_fail(r, STAX_E_LIMIT_NAME, tok, 0, "%s name longer than max_name (%lu bytes)", what,
                       (unsigned long)r->cfg.opt.max_name), 0;
    size_t bad = stax__check_name(tok + i, len);
    if (bad) {
        size_t at = i + bad - 1;
        if ((unsigned char)tok[at] >= 0x80 && !stax__rd_char_at(r, tok, n, at)) return 0;
        return rd_fail(r, STAX_E_NAME, tok, at, "invalid %s name '%.*s'", what, stax__clip(len, 64), tok + i), 0;
    }
    return len;
}

/* ================================================================ element stack */


/* Push an open element. max_depth was checked by the caller; the stack's
 * size rule (max_depth names of at most max_name bytes) makes room certain
 * in a fixed block. */
int stax__rd_push(stax_reader *r, const char *name, size_t len) {
    if (r->doc.depth >= r->buf.stack_off_cap) {
        size_t cap = r->buf.stack_off_cap ? (size_t)r->buf.stack_off_cap * 2 : 16;
        if (cap > r->cfg.opt.max_depth) cap = r->cfg.opt.max_depth;
        if (r->doc.depth >= cap || r->buf.mem.block) return rd_internal(r, "element stack deeper than max_depth");
        size_t *p = (size_t *)stax__mem_realloc(&r->buf.mem, r->buf.stack_off, (size_t)r->buf.stack_off_cap * sizeof *p, cap * sizeof *p);
        if (!p) return stax__rd_nomem(r);
        r->buf.stack_off = p;
        r->buf.stack_off_cap = (uint32_t)cap;
    }
    if (stax__rd_reserve(r, &r->buf.stack, len + RD_STACK_SLACK, r->cfg.stack_max)) return r->doc.status;
    size_t hi = 0;
    for (size_t k = 0; k < len; k++) hi |= (unsigned char)name[k] >> 7;
    r->buf.stack_off[r->doc.depth++] = r->buf.stack.len << 1 | hi;
    if (stax__buf_put(&r->buf.stack, name, len)) return rd_internal(r, "element stack full after reserving");
    return 0;
}

/* ================================================================ attributes */

/* The context for stax__attr_normalize at this point of the document. */
static void rd_attnorm(stax_reader *r, stax__attnorm *a, size_t max_out, int tokenized) {
    a->dtd = r->doc.has_doctype ? &r->buf.dtd : NULL;
    a->max_name = r->cfg.opt.max_name;
    a->frames = r->buf.ents + r->doc.n_ent;
    a->n_frames = r->cfg.opt.max_entity_depth - r->doc.n_ent;
    a->max_depth = r->cfg.opt.max_entity_depth;
    r->doc.meter.input = rd_input(r);
    a->meter = &r->doc.meter;
    a->threshold = r->cfg.opt.entity_threshold;
    a->amplification = r->cfg.opt.entity_amplification;
    a->max_out = max_out;
    a->max_token = r->cfg.opt.max_token;
    a->raw = 1;
    a->tokenized = tokenized;
    a->in_dtd = 0;
}

/* Normalize the attribute value tok[vs, ve) (3.3.3; spaces collapsed for
 * declared types other than CDATA). Zero copy when the value needs no change
 * and the tag is not in the carry; else into the arena. A tag's names and
 * values, normalized, hold max_token bytes in all (used: those before this
 * value, this attribute's name included), counted the same whether the tag
 * is in the window or in the carry (where names and values are copied too,
 * so that the arena, max_token + RD_ARENA_SLACK bytes, always holds them).
 * Returns 0, an error, or STAX__ROOM when the arena is short (the caller
 * rolls back). */
int stax__rd_attr_value(stax_reader *r, const char *tok, size_t n, size_t vs, size_t ve, int copy, int tokenized,
                         size_t used, stax_str *out) {
    /* the value as it is, up to its first byte other than a Char that
     * stays (a reference, TAB LF CR, '<', a control, a bad sequence): the
     * rest, errors and all, is stax__attr_normalize's */
    size_t i = vs;
    for (;;) {
        i += stax__scan_attr(tok + i, ve - i);
        if (i >= ve || (unsigned char)tok[i] < 0x80) break;
        size_t k = rd_utf8_run(tok, ve, i);
        if (k == i) break;
        i = k;
    }
    int collapse = 0; /* a tokenized value with spaces to trim or collapse */
    if (tokenized && i >= ve && ve > vs) {
        collapse = tok[vs] == ' ' || tok[ve - 1] == ' ';
        for (size_t k = vs + 1; !collapse && k < ve; k++) collapse = tok[k] == ' ' && tok[k - 1] == ' ';
    }
    size_t max_out = r->cfg.opt.max_token > used ? r->cfg.opt.max_token - used : 0;
    if (i >= ve && !copy && !collapse && ve - vs <= max_out) {
        out->ptr = tok + vs;
        out->len = ve - vs;
        return 0;
    }
    stax__out o = stax__buf_out(&r->buf.arena);
    char *d0 = o.p;
    size_t from = vs;
    if (!tokenized) { /* the checked prefix as it is */
        size_t k = i - vs < max_out ? i - vs : max_out;
        stax__out_put(&o, tok + vs, k);
        if (o.over) return STAX__ROOM;
        max_out -= k;
        from += k;
    }
    stax__attnorm a;
    rd_attnorm(r, &a, max_out, tokenized);
    int rc = stax__attr_normalize(&a, tok + from, ve - from, &o, &r->doc.err);
    if (rc == STAX__ROOM) return rc;
    if (rc == STAX_E_LIMIT_TOKEN) r->doc.err.at = tok; /* at the tag's '<', like every token limit */
    if (rc) return stax__rd_fail_err(r, tok, n);
    stax__buf_commit(&r->buf.arena, &o);
    out->ptr = d0;
    out->len = (size_t)(o.p - d0);
    return 0;
}

/* ================================================================ namespaces */

#ifndef STAX_NO_NAMESPACES
/* Declare the element's namespaces, then resolve its name and attributes.
 * depth: the element's depth (its bindings are dropped when it ends). */
static int rd_ns_start(stax_reader *r, const char *tok, size_t first, stax_str name, uint32_t depth, stax_qname *q) {
    static const stax_str xmlns_uri = {STAX__XMLNS_NS, sizeof STAX__XMLNS_NS - 1};
    uint32_t decls = 0;
    for (size_t j = first; j < r->doc.attr_len; j++) {
        stax_attr *a = &r->buf.attrs[j];
        stax_str p = {"", 0}, v = a->value;
        int dflt = stax_str_eq(a->name, "xmlns");
        if (!dflt && !(a->name.len > 6 && memcmp(a->name.ptr, "xmlns:", 6) == 0)) continue;
        size_t at = r->buf.attr_at[j];
        if (++decls > r->cfg.opt.max_ns)
            return rd_fail(r, STAX_E_LIMIT_NS, tok, at, "more than max_ns (%u) namespace declarations", (unsigned)r->cfg.opt.max_ns);
        int is_xml_uri = stax_str_eq(v, STAX__XML_NS), is_xmlns_uri = stax_str_eq(v, STAX__XMLNS_NS);
        if (!dflt) {
            stax_str pre, loc;
            if (stax__qname_split(a->name, &pre, &loc)) return rd_fail(r, STAX_E_NAMESPACE, tok, at, "invalid namespace prefix");
            p = loc;
            if (stax_str_eq(p, "xmlns")) return rd_fail(r, STAX_E_NAMESPACE, tok, at, "the prefix xmlns must not be declared");
            if (stax_str_eq(p, "xml")) {
                if (!is_xml_uri) return rd_fail(r, STAX_E_NAMESPACE, tok, at, "the prefix xml must be bound to " STAX__XML_NS);
                continue;
            }
            if (v.len == 0)
                return rd_fail(r, STAX_E_NAMESPACE, tok, at, "prefix '%.*s' bound to an empty name (not allowed in Namespaces 1.0)",
                               stax__clip(p.len, 64), p.ptr);
        }
        if (is_xml_uri || is_xmlns_uri)
            return rd_fail(r, STAX_E_NAMESPACE, tok, at, "%s may not be bound to %s",
                           is_xml_uri ? STAX__XML_NS : STAX__XMLNS_NS,
                           dflt ? "the default namespace" : "any other prefix");
        int rc = stax__ns_push(&r->buf.ns, p, v, depth, r->buf.batch.count == 0);
        if (rc == STAX_E_NOMEM) return stax__rd_nomem(r);
        if (rc) {
            if (r->buf.batch.count) return STAX__ROOM; /* bindings that left scope are reclaimed between batches */
            return rd_fail(r, STAX_E_LIMIT_NS, tok, at, "namespace bindings in scope over max_ns_bytes (%zu bytes)",
                           r->cfg.opt.max_ns_bytes);
        }
    }
    /* the element */
    if (stax__qname_split(name, &q->prefix, &q->local))
        return rd_fail(r, STAX_E_NAMESPACE, tok, 1, "element name '%.*s' is not a QName", stax__clip(name.len, 64), name.ptr);
    if (stax_str_eq(q->prefix, "xmlns")) return rd_fail(r, STAX_E_NAMESPACE, tok, 1, "the prefix xmlns is reserved for declarations");
    if (stax__ns_lookup(&r->buf.ns, q->prefix, &q->uri))
        return rd_fail(r, STAX_E_NAMESPACE, tok, 1, "unbound prefix '%.*s'", stax__clip(q->prefix.len, 64), q->prefix.ptr);
    /* the attributes */
    for (size_t j = first; j < r->doc.attr_len; j++) {
        stax_attr *a = &r->buf.attrs[j];
        stax_qname *aq = &r->buf.attr_ns[j];
        size_t at = r->buf.attr_at[j];
        if (stax__qname_split(a->name, &aq->prefix, &aq->local))
            return rd_fail(r, STAX_E_NAMESPACE, tok, at, "attribute name '%.*s' is not a QName", stax__clip(a->name.len, 64), a->name.ptr);
        if (stax_str_eq(a->name, "xmlns") || stax_str_eq(aq->prefix, "xmlns")) {
            aq->uri = xmlns_uri;
        } else if (aq->prefix.len == 0) {
            aq->uri.ptr = "";
            aq->uri.len = 0;
        } else if (stax__ns_lookup(&r->buf.ns, aq->prefix, &aq->uri)) {
            return rd_fail(r, STAX_E_NAMESPACE, tok, at, "unbound prefix '%.*s'", stax__clip(aq->prefix.len, 64), aq->prefix.ptr);
        }
        if (aq->prefix.len == 0) continue;
        for (size_t k = first; k < j; k++) {
            const stax_qname *bq = &r->buf.attr_ns[k];
            if (bq->prefix.len && rd_str_same(bq->local, aq->local) && rd_str_same(bq->uri, aq->uri))
                return rd_fail(r, STAX_E_NAMESPACE, tok, at, "attributes '%.*s' and '%.*s' have the same expanded name",
                               stax__clip(r->buf.attrs[k].name.len, 64), r->buf.attrs[k].name.ptr, stax__clip(a->name.len, 64), a->name.ptr);
        }
    }
    return 0;
}
#else /* the option is refused (reader_batch.c): never called, no namespace */
static int rd_ns_start(stax_reader *r, const char *tok, size_t first, stax_str name, uint32_t depth, stax_qname *q) {
    (void)tok, (void)first, (void)name, (void)depth;
    (void)r;
    memset(q, 0, sizeof *q);
    return 0;
}
#endif

/* ================================================================ tags */

/* Defaults of the element's ATTLIST for the attributes the tag did not give. */
static int rd_add_defaults(stax_reader *r, const char *tok, size_t first, const stax__dtd_elem_def *el) {
    for (const stax__attdef *ad = el->first; ad; ad = ad->next) {
        if (ad->stamp == r->doc.tag_stamp) continue;
        if (ad->deflt != STAX__DEF_VALUE && ad->deflt != STAX__DEF_FIXED) continue;
        if (r->doc.attr_len - first >= r->cfg.opt.max_attrs)
            return rd_fail(r, STAX_E_LIMIT_ATTRS, tok, 0, "more than max_attrs (%u) attributes with the defaults",
                           (unsigned)r->cfg.opt.max_attrs);
        if (r->doc.attr_len >= r->cfg.attr_cap) return rd_internal(r, "attribute table full");
        stax_attr *a = &r->buf.attrs[r->doc.attr_len++];
        a->name = ad->name;
        a->value = ad->value;
        a->flags = STAX_ATTRF_DEFAULTED;
        if (r->buf.attr_at) r->buf.attr_at[r->doc.attr_len - 1] = 0;
    }
    return 0;
}

/* A start tag: the grammar (rd_stag, reader_tag.h) in mode RD_TAG_FULL or
 * RD_TAG_LIMIT, then what the tag does. Returns 0, an error, or STAX__ROOM:
 * the arena or the namespace bindings were short with events in the batch,
 * and the tag was rolled back (attributes, arena, expansion count, bindings)
 * to be parsed again. Limit mode (stax__rd_over_limit) reads the tag as far
 * as its first max_token bytes go, without a side effect (no attribute
 * stored, no arena, no entity, no event), for the limit it meets first: a
 * name that runs into the cut may go on past it (the tag ran out there); a
 * value is checked for its characters, and one with a reference is where the
 * tag runs out too (what the reference means is the expansion's to say).
 * It returns the error it meets, or 0 where it runs out. */
RD_FOR_EACH_MODE int rd_start_tag_in(stax_reader *r, const char *tok, size_t n, int copy, int mode) {
    if (r->doc.part == DOC_EPILOG) {
        if (!rd_sequence_goes_on(r)) return rd_fail(r, STAX_E_STRUCTURE, tok, 0, "a second root element");
        if (mode != RD_TAG_LIMIT) return rd_next_document(r); /* (a tag over the limit is one however it starts) */
    }
    size_t first = r->doc.attr_len, arena0 = r->buf.arena.len;
    uint64_t expanded0 = r->doc.meter.expanded;
    rd_tag t;
    int rc = rd_stag(r, tok, n, &t, mode, copy, first, 0);
    if (rc == STAX__ROOM) goto roll_back;
    if (rc || mode == RD_TAG_LIMIT) return rc;
    if (t.el && rd_add_defaults(r, tok, first, t.el)) return r->doc.status;
    if (r->doc.depth >= r->cfg.opt.max_depth)
        return rd_fail(r, STAX_E_LIMIT_DEPTH, tok, 0, "elements nested deeper than max_depth (%u)", (unsigned)r->cfg.opt.max_depth);
    unsigned flags; /* these set apart: the gotos below jump past them (C++ allows only that) */
    flags = t.flags;
    size_t nl;
    nl = t.nl;
    stax_str name;
    name.ptr = tok + 1, name.len = nl;
    if (copy && (rc = rd_tag_copy(r, &name)) != 0) {
        if (rc == STAX__ROOM) goto roll_back;
        return rc;
    }
    /* namespaces before the push: an error leaves the depth as it was */
    stax_qname q;
    uint32_t ns_depth;
    ns_depth = r->doc.depth + 1;
    if (r->buf.ev_ns && (rc = rd_ns_start(r, tok, first, name, ns_depth, &q)) != 0) {
        stax__ns_pop(&r->buf.ns, ns_depth); /* a refused tag leaves no binding in scope */
        if (rc == STAX__ROOM) goto roll_back;
        return r->doc.status;
    }
    if (!flags && stax__rd_push(r, tok + 1, nl)) return r->doc.status; /* the depth was checked above */
    stax_event *e; /* set apart: the gotos above jump past it (C++ allows only that) */
    e = rd_emit(r, STAX_EV_START, r->doc.tok_pos);
    if (!e) return r->doc.status;
    if (r->buf.ev_ns) r->buf.ev_ns[r->buf.batch.count - 1] = q;
    e->flags = (uint8_t)flags;
    e->name = name;
    e->attr_first = (uint32_t)first;
    e->attr_count = (uint32_t)(r->doc.attr_len - first);
    if (flags) {
        e->depth = r->doc.depth + 1; /* <a/> was not pushed */
        e = rd_emit(r, STAX_EV_END, r->doc.tok_pos);
        if (!e) return r->doc.status;
        e->depth = r->doc.depth + 1;
        e->name = name;
        if (r->buf.ev_ns) {
            r->buf.ev_ns[r->buf.batch.count - 1] = q;
            stax__ns_pop(&r->buf.ns, ns_depth);
        }
        r->doc.part = r->doc.depth ? DOC_CONTENT : rd_after_root(r);
    } else {
        r->doc.part = DOC_CONTENT;
    }
    return 0;
roll_back:
    r->doc.attr_len = first;
    r->buf.arena.len = arena0;
    r->doc.meter.expanded = expanded0;
    return STAX__ROOM;
}

static int rd_start_tag(stax_reader *r, const char *tok, size_t n, int copy) { return rd_start_tag_in(r, tok, n, copy, RD_TAG_FULL); }

/* The first error of an end tag the grammar refused (rd_etag). */
size_t stax__rd_etag_error(stax_reader *r, const char *tok, size_t n) {
    size_t nl = rd_name(r, tok, n, 2, "end tag");
    if (!nl) return 0;
    size_t i = rd_skip_ws(tok, n, 2 + nl);
    if (i != n - 1) return rd_fail(r, STAX_E_SYNTAX, tok, i, "end tag '%.*s' has more than a name", stax__clip(nl, 64), tok + 2), 0;
    if (r->doc.depth == 0) return rd_fail(r, STAX_E_STRUCTURE, tok, 0, "end tag '%.*s' with no open element", stax__clip(nl, 64), tok + 2), 0;
    if (r->doc.n_ent && r->doc.depth <= r->buf.ents[r->doc.n_ent - 1].depth)
        return rd_fail(r, STAX_E_SYNTAX, tok, 0, "end tag '%.*s' in the replacement text of an entity closes an element opened outside it",
                       stax__clip(nl, 64), tok + 2), 0;
    /* a name, then white space and '>', inside an element: rd_etag refused
     * it for its name alone */
    size_t off = rd_stack_at(r, r->doc.depth - 1), ol = r->buf.stack.len - off;
    const char *open = r->buf.stack.ptr + off;
    return rd_fail(r, STAX_E_TAG_MISMATCH, tok, 0, "end tag '%.*s' does not match start tag '%.*s'", stax__clip(nl, 64),
                   tok + 2, stax__clip(ol, 64), open), 0;
}

static int rd_end_tag(stax_reader *r, const char *tok, size_t n, int copy) {
    size_t top = 0;
    if (!rd_etag(r, tok, n, RD_TAG_FULL, &top)) return r->doc.status;
    stax_event *e = rd_emit(r, STAX_EV_END, r->doc.tok_pos);
    if (!e) return r->doc.status;
    e->name.ptr = tok + 2;
    e->name.len = r->buf.stack.len - (top >> 1);
    if (copy && stax__rd_arena_copy(r, &e->name)) return r->doc.status;
    rd_etag_end(r, top, e->name.len, r->buf.ev_ns ? &r->buf.ev_ns[r->buf.batch.count - 1] : NULL, e->name.ptr, 0);
    return 0;
}

/* ================================================================ comments, PIs, XML declaration, CDATA */

static int rd_comment(stax_reader *r, const char *tok, size_t n, int copy) {
    size_t cs = 4, ce = n - 3;
    for (const char *p = tok + cs; (p = (const char *)memchr(p, '-', (size_t)(tok + ce - p))) != NULL; p++) {
        if (p + 1 < tok + ce && p[1] == '-')
            return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(p - tok), "'--' is not allowed inside a comment");
        if (p + 1 == tok + ce)
            return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(p - tok), "a comment may not end with '-'");
    }
    if (rd_check_chars(r, tok, cs, ce)) return r->doc.status;
    stax_event *e = rd_emit(r, STAX_EV_COMMENT, r->doc.tok_pos);
    if (!e) return r->doc.status;
    return rd_normalize_eol(r, tok + cs, ce - cs, copy, &e->text);
}

/* Match `S? name S? = S? quote value quote` at tok[*i]; the value is returned. */
static int rd_decl_attr(stax_reader *r, const char *tok, size_t n, size_t *i, const char *name, stax_str *val) {
    size_t j = *i, k = strlen(name);
    if (j + k > n || memcmp(tok + j, name, k) != 0) return 1;
    j = rd_skip_ws(tok, n, j + k);
    if (j >= n || tok[j] != '=') return rd_fail(r, STAX_E_SYNTAX, tok, j, "'=' expected after '%s'", name);
    j = rd_skip_ws(tok, n, j + 1);
    size_t q = j;
    int qr = rd_quoted(tok, n, &j, val);
    if (qr == STAX__NOT_QUOTED) return rd_fail(r, STAX_E_SYNTAX, tok, q, "quoted value expected for '%s'", name);
    if (qr) return rd_fail(r, STAX_E_SYNTAX, tok, q, "unterminated value of '%s'", name);
    *i = j;
    return 0;
}

/* The encoding declaration: known (or given a table by the hook), and
 * consistent with what the first bytes said; 8-bit encodings other than
 * UTF-8 switch to a decoder right after the declaration. */
static int rd_declared_encoding(stax_reader *r, const char *tok, stax_str name) {
    size_t at = (size_t)(name.ptr - tok);
    const uint32_t *table = NULL;
    int declared = stax__encoding_by_name(name.ptr, name.len);
    if (declared < 0 && r->cfg.opt.unknown_encoding) {
        table = r->cfg.opt.unknown_encoding(r->cfg.opt.unknown_encoding_ud, name.ptr, name.len);
        if (table) declared = STAX__ENC_TABLE;
    }
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (declared < 0 && r->cfg.opt.decoder) declared = STAX__ENC_HOOK; /* opened once it agrees with the bytes */
#endif
    if (declared < 0)
        return rd_fail(r, STAX_E_UNSUPPORTED, tok, at, "encoding '%.*s' is not supported", stax__clip(name.len, 64), name.ptr);
    int res = stax__encoding_resolve(r->doc.detected, r->doc.bom_len, declared);
    if (res < 0)
        return rd_fail(r, STAX_E_ENCODING, tok, at, "the declared encoding '%.*s' contradicts the input, which is %s%s",
                       stax__clip(name.len, 64), name.ptr, stax__encoding_name(r->doc.detected),
                       r->doc.bom_len ? " (by its byte order mark)" : "");
    if (RD_SHAPES && STAX_UNLIKELY(r->doc.part == DOC_NEXT) && res != r->doc.enc)
        return rd_fail(r, STAX_E_UNSUPPORTED, tok, at,
                       "the declared encoding '%.*s' is not the stream's (%s): the documents of a sequence share the "
                       "encoding of the first", stax__clip(name.len, 64), name.ptr, stax__encoding_name(r->doc.enc));
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (res == STAX__ENC_HOOK && r->doc.enc == STAX__ENC_HOOK) /* EBCDIC: open already, by this name as it read it */
        return stax__encoding_same(name.ptr, name.len < sizeof r->doc.dec.hook.name ? name.len : sizeof r->doc.dec.hook.name - 1,
                                   stax__decoder_name(&r->doc.dec)) ? 0 /* (the name kept is clipped) */
               : rd_fail(r, STAX_E_ENCODING, tok, at, "the declared encoding '%.*s' reads as '%s' by EBCDIC's characters",
                         stax__clip(name.len, 64), name.ptr, stax__decoder_name(&r->doc.dec));
    if (res == STAX__ENC_HOOK && stax__decoder_open(&r->doc.dec, r->cfg.opt.decoder, r->cfg.opt.decoder_ud, name.ptr, name.len))
        return rd_fail(r, STAX_E_UNSUPPORTED, tok, at, "encoding '%.*s' is not supported", stax__clip(name.len, 64), name.ptr);
#endif
    if (r->doc.enc == STAX__ENC_UTF8 && res != STAX__ENC_UTF8) {
        r->doc.switch_enc = res;
        r->doc.switch_table = table;
    }
    return 0;
}

/* XML 1.0 4.3.3: an entity without a byte order mark and without an
 * encoding declaration is UTF-8; UTF-16 or UTF-32 recognized by its first
 * bytes alone ("<?" or "<" with zero bytes) must declare its encoding (or
 * be forced to it). */
static int rd_utf16_needs_declaration(stax_reader *r, const char *tok, size_t at) {
    int d = r->doc.detected;
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (d == STAX__ENC_UTF32LE || d == STAX__ENC_UTF32BE) d = STAX__ENC_UTF16LE;
#endif
    if (r->cfg.forced || r->doc.bom_len || (d != STAX__ENC_UTF16LE && d != STAX__ENC_UTF16BE)) return 0;
    return rd_fail(r, STAX_E_ENCODING, tok, at,
                   "the input is %s without a byte order mark: it must begin with one or declare its encoding",
                   stax__encoding_name(r->doc.detected));
}

/* The XML declaration, or in a fragment the text declaration (4.3.1: the
 * version optional, the encoding required, no standalone). */
static int rd_xmldecl(stax_reader *r, const char *tok, size_t n, int copy) {
    size_t end = n - 2, i = 5, ws;
    stax_str ver = {0, 0}, enc = {0, 0}, sa = {0, 0};
    unsigned flags = 0;
    int text_decl = (rd_shape(r) & STAX_READ_FRAGMENT) != 0;
    ws = i;
    i = rd_skip_ws(tok, end, i);
    int rc = i > ws ? rd_decl_attr(r, tok, end, &i, "version", &ver) : 1;
    if (rc < 0) return rc;
    if (rc && !text_decl) return rd_fail(r, STAX_E_SYNTAX, tok, i, "the XML declaration must start with version");
    if (!rc) {
        if (ver.len < 3 || memcmp(ver.ptr, "1.", 2) != 0)
            return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(ver.ptr - tok), "unsupported XML version '%.*s'",
                           stax__clip(ver.len, 64), ver.ptr);
        for (size_t k = 2; k < ver.len; k++)
            if (ver.ptr[k] < '0' || ver.ptr[k] > '9')
                return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(ver.ptr - tok), "invalid version number");
        ws = i;
    }
    i = rd_skip_ws(tok, end, i);
    if (i > ws && (rc = rd_decl_attr(r, tok, end, &i, "encoding", &enc)) < 0) return rc;
    if (enc.ptr) {
        int ok = enc.len > 0 && ((enc.ptr[0] | 32) >= 'a' && (enc.ptr[0] | 32) <= 'z');
        for (size_t k = 1; ok && k < enc.len; k++) {
            char c = enc.ptr[k];
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '_' || c == '-';
        }
        if (!ok) return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(enc.ptr - tok), "invalid encoding name");
        if (!r->cfg.forced && rd_declared_encoding(r, tok, enc)) return r->doc.status;
        ws = i;
        i = rd_skip_ws(tok, end, i);
    } else if (text_decl) {
        return rd_fail(r, STAX_E_SYNTAX, tok, i, "the text declaration of a fragment must declare the encoding");
    } else if (rd_utf16_needs_declaration(r, tok, 0)) {
        return r->doc.status;
    }
    if (i > ws && (rc = rd_decl_attr(r, tok, end, &i, "standalone", &sa)) < 0) return rc;
    if (sa.ptr && text_decl)
        return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(sa.ptr - tok), "a text declaration has no standalone");
    if (sa.ptr) {
        if (sa.len == 3 && memcmp(sa.ptr, "yes", 3) == 0) flags = STAX_EVF_STANDALONE_YES, r->buf.dtd.standalone = 1;
        else if (sa.len == 2 && memcmp(sa.ptr, "no", 2) == 0) flags = STAX_EVF_STANDALONE_NO;
        else return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(sa.ptr - tok), "standalone must be 'yes' or 'no'");
    }
    i = rd_skip_ws(tok, end, i);
    if (i != end) return rd_fail(r, STAX_E_SYNTAX, tok, i, "unexpected text in the XML declaration");
    stax_event *e = rd_emit(r, STAX_EV_XMLDECL, r->doc.tok_pos);
    if (!e) return r->doc.status;
    e->flags = (uint8_t)flags;
    e->name = ver;
    e->text = enc;
    if (copy) {
        if (stax__rd_arena_copy(r, &e->name)) return r->doc.status;
        if (enc.ptr && stax__rd_arena_copy(r, &e->text)) return r->doc.status;
    }
    return 0;
}

static int rd_pi(stax_reader *r, const char *tok, size_t n, int copy, int at_start) {
    size_t tl = rd_name(r, tok, n, 2, "processing instruction target");
    if (!tl) return r->doc.status;
    const char *t = tok + 2;
    if (tl == 3 && (t[0] | 32) == 'x' && (t[1] | 32) == 'm' && (t[2] | 32) == 'l') {
        if (at_start && t[0] == 'x' && t[1] == 'm' && t[2] == 'l') {
            int rc = rd_xmldecl(r, tok, n, copy);
            if (RD_SHAPES && !rc && r->doc.part == DOC_NEXT) r->doc.part = DOC_PROLOG; /* (DOC_START: stax__rd_token) */
            return rc;
        }
        if (rd_sequence_goes_on(r) && t[0] == 'x' && t[1] == 'm' && t[2] == 'l') return rd_next_document(r);
        return rd_fail(r, STAX_E_SYNTAX, tok, 0,
                       at_start ? "the XML declaration must be written in lower case"
                                : "the XML declaration is only allowed at the very start of the document");
    }
    if (at_start && rd_utf16_needs_declaration(r, tok, 0)) return r->doc.status;
    if (r->buf.ev_ns && memchr(t, ':', tl))
        return rd_fail(r, STAX_E_NAMESPACE, tok, 2, "a PI target may not contain a colon with namespaces on");
    size_t i = 2 + tl, ds;
    if (i == n - 2) ds = i;
    else if (stax__is_ws((unsigned char)tok[i])) ds = rd_skip_ws(tok, n - 2, i);
    else return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace is required after the PI target");
    if (rd_check_chars(r, tok, ds, n - 2)) return r->doc.status;
    stax_event *e = rd_emit(r, STAX_EV_PI, r->doc.tok_pos);
    if (!e) return r->doc.status;
    e->name.ptr = t;
    e->name.len = tl;
    if (rd_normalize_eol(r, tok + ds, n - 2 - ds, copy, &e->text)) return r->doc.status;
    return copy ? stax__rd_arena_copy(r, &e->name) : 0;
}

/* A CDATA section, or a piece of one: content is [cs, ce). */
static int rd_cdata(stax_reader *r, const char *tok, size_t cs, size_t ce, int copy, int cut) {
    if (r->doc.part != DOC_CONTENT) return rd_fail(r, STAX_E_STRUCTURE, tok, 0, "CDATA section outside the root element");
    if (rd_check_chars(r, tok, cs, ce)) return r->doc.status;
    stax_event *e = rd_emit(r, STAX_EV_CDATA, r->doc.tok_pos);
    if (!e) return r->doc.status;
    e->flags = cut ? STAX_EVF_CONTINUED : 0;
    return rd_normalize_eol(r, tok + cs, ce - cs, copy, &e->text);
}

/* ================================================================ DOCTYPE */

/* The DOCTYPE's public or system id (what) at tok[*i]. */
static int rd_doctype_id(stax_reader *r, const char *tok, size_t n, size_t *i, stax_str *out, const char *what) {
    size_t q = *i;
    int qr = rd_quoted(tok, n, i, out);
    if (qr == STAX__NOT_QUOTED) return rd_fail(r, STAX_E_SYNTAX, tok, q < n ? q : n - 1, "quoted %s expected", what);
    if (qr) return rd_fail(r, STAX_E_SYNTAX, tok, q, "unterminated %s", what);
    return 0;
}

static int rd_pubid_char(unsigned char c) {
    return stax__is_pubid_char(c);
}

/* The DOCTYPE's name, from *i on (after "<!DOCTYPE"): its length, or 0 after failing. */
/* limit: for stax__rd_over_limit (a DOCTYPE that starts a document of a
 * sequence is over the limit as any other). 0 also when a document of a
 * sequence began (r->doc.status is then 0: rd_doctype parses it again). */
static size_t rd_doctype_name(stax_reader *r, const char *tok, size_t n, size_t *i, int limit) {
    if (r->doc.part == DOC_CONTENT || r->doc.part == DOC_EPILOG || r->doc.has_doctype) {
        if (rd_shape(r) & STAX_READ_FRAGMENT)
            return rd_fail(r, STAX_E_STRUCTURE, tok, 0, "a DOCTYPE is not allowed in a fragment (STAX_READ_FRAGMENT)"), 0;
        if (!rd_sequence_goes_on(r))
            return rd_fail(r, STAX_E_STRUCTURE, tok, 0,
                           r->doc.has_doctype ? "a second DOCTYPE" : "DOCTYPE after the root element"), 0;
        if (!limit) return 0;
    }
    if (*i >= n || !stax__is_ws((unsigned char)tok[*i]))
        return rd_fail(r, STAX_E_SYNTAX, tok, *i, "whitespace expected after DOCTYPE"), 0;
    *i = rd_skip_ws(tok, n, *i);
    return rd_name(r, tok, n, *i, "DOCTYPE");
}

static int rd_doctype(stax_reader *r, const char *tok, size_t n, int copy) {
    size_t i = 9, nl = rd_doctype_name(r, tok, n, &i, 0);
    if (!nl) return RD_SHAPES && !r->doc.status ? rd_next_document(r) : r->doc.status;
    stax_str name = {tok + i, nl}, pub = {0, 0}, sys = {0, 0}, subset = {0, 0};
#ifndef STAX_NO_NAMESPACES
    stax_str np, nlocal;
    if (r->buf.ev_ns && stax__qname_split(name, &np, &nlocal))
        return rd_fail(r, STAX_E_NAMESPACE, tok, i, "the DOCTYPE name '%.*s' is not a QName (namespaces are on)",
                       stax__clip(nl, 64), name.ptr);
#endif
    unsigned flags = 0;
    size_t ws = i + nl;
    i = rd_skip_ws(tok, n, ws);
    if (i + 6 <= n && (memcmp(tok + i, "SYSTEM", 6) == 0 || memcmp(tok + i, "PUBLIC", 6) == 0)) {
        int is_pub = tok[i] == 'P';
        if (i == ws) return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace expected before the external id");
        size_t k = i + 6;
        i = rd_skip_ws(tok, n, k);
        if (i == k) return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace expected after %s", is_pub ? "PUBLIC" : "SYSTEM");
        if (is_pub) {
            if (rd_doctype_id(r, tok, n, &i, &pub, "public id")) return r->doc.status;
            for (size_t q = 0; q < pub.len; q++)
                if (!rd_pubid_char((unsigned char)pub.ptr[q]))
                    return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(pub.ptr - tok) + q, "character not allowed in a public id");
            k = i;
            i = rd_skip_ws(tok, n, k);
            if (i == k) return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace expected before the system id");
        }
        if (rd_doctype_id(r, tok, n, &i, &sys, "system id")) return r->doc.status;
        if (rd_check_chars(r, tok, (size_t)(sys.ptr - tok), (size_t)(sys.ptr - tok) + sys.len)) return r->doc.status;
        i = rd_skip_ws(tok, n, i);
    }
    if (i < n && tok[i] == '[') {
        /* the framing already matched the brackets, quotes, comments and PIs;
         * the subset ends at the ']' the framing stopped at: the last one */
        size_t j = n - 1;
        while (j > i && tok[j] != ']') j--;
        if (j == i) return rd_fail(r, STAX_E_SYNTAX, tok, i, "unterminated internal subset");
        if (rd_check_chars(r, tok, i + 1, j)) return r->doc.status;
        subset.ptr = tok + i + 1;
        subset.len = j - i - 1;
        flags = STAX_EVF_HAS_SUBSET;
        i = rd_skip_ws(tok, n, j + 1);
    }
    if (i != n - 1) return rd_fail(r, STAX_E_SYNTAX, tok, i, "unexpected text in DOCTYPE");
    r->buf.dtd.has_external = sys.ptr != NULL;
    if (subset.ptr && stax__dtd_parse(&r->buf.dtd, subset.ptr, subset.len)) return stax__rd_fail_err(r, tok, n);
    r->doc.has_doctype = 1;
    r->doc.part = DOC_PROLOG;
    stax_event *e = rd_emit(r, STAX_EV_DOCTYPE, r->doc.tok_pos);
    stax_attr *ids = e ? rd_emit_ids(r, e) : NULL;
    if (!ids) return r->doc.status;
    e->flags = (uint8_t)flags;
    e->name = name;
    if (copy || memchr(tok, '\r', n)) {
        copy = 1;
        if (stax__rd_arena_copy(r, &e->name)) return r->doc.status;
    }
    if (rd_normalize_eol(r, pub.ptr ? pub.ptr : "", pub.len, copy, &ids->name) ||
        rd_normalize_eol(r, sys.ptr ? sys.ptr : "", sys.len, copy, &ids->value) ||
        rd_normalize_eol(r, subset.ptr ? subset.ptr : "", subset.len, copy, &e->text))
        return r->doc.status;
    /* the external subset comes after the internal one (its declarations
     * give way to those of the internal subset) */
    if (sys.ptr && r->buf.dtd.ext && stax__dtd_parse_external(&r->buf.dtd, e->name, ids->name, ids->value)) {
        r->buf.batch.count--; /* no DOCTYPE event for a DTD in error, as for the internal subset */
        return stax__rd_fail_err(r, tok, n);
    }
    return 0;
}

/* ================================================================ token dispatch */

/* Parse the complete token [tok, tok+n) framed as f. Returns bytes consumed
 * (n, or less for a text ended early by an entity reference), 0 on error, or
 * RD_RETRY: a start tag needed more room than the batch had left. */
size_t stax__rd_token(stax_reader *r, const rd_frame *f, const char *tok, size_t n, int copy) {
    int at_start = r->doc.part == DOC_START;
    int rc = 0;
    size_t used = n;
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (STAX_UNLIKELY(at_start) && f->kind != K_PI && rd_utf16_needs_declaration(r, tok, 0)) return 0; /* (UTF-32 "<a") */
#endif
    switch (f->kind) {
    case K_TEXT:
        used = stax__rd_text(r, f, tok, n, copy);
        if (!used) return 0;
        break;
    case K_STAG:
        rc = rd_start_tag(r, tok, n, copy);
        if (rc == STAX__ROOM) return RD_RETRY;
        break;
    case K_ETAG: rc = rd_end_tag(r, tok, n, copy); break;
    case K_COMMENT: rc = rd_comment(r, tok, n, copy); break;
    case K_PI: rc = rd_pi(r, tok, n, copy, rd_decl_ok(r, at_start)); break;
    case K_CDATA:
    case K_CDATA_CONT: {
        size_t cs = f->kind == K_CDATA ? 9 : 0;
        rc = rd_cdata(r, tok, cs, f->cut ? n : n - 3, copy, f->cut);
        r->doc.in_cdata = f->cut;
        break;
    }
    case K_DOCTYPE: rc = rd_doctype(r, tok, n, copy); break;
    default: rc = rd_internal(r, "no such token kind");
    }
    if (rc) return RD_SHAPES && rc == STAX__ROOM ? RD_RETRY : 0; /* (a document of a sequence began: rd_next_document) */
    /* (white space before a sequence's first document leaves it unstarted:
     * an input of nothing else holds no document) */
    if (r->doc.part == DOC_START && !(f->kind == K_TEXT && (rd_shape(r) & STAX_READ_DOCUMENTS))) r->doc.part = DOC_PROLOG;
    return used;
}

/* A token that framing found longer than max_token (n >= max_token bytes of
 * it at tok): the same status, position and message whether it was seen
 * whole or in pieces. The token's own parser reads its first max_token bytes
 * in limit mode, and a name over max_name or one attribute too many that it
 * meets there is the error; anything else it meets (another error, or the
 * end of those bytes) makes the token's size the error. Returns the error. */
int stax__rd_over_limit(stax_reader *r, const rd_frame *f, const char *tok, size_t n) {
    size_t lim = n < r->cfg.opt.max_token ? n : r->cfg.opt.max_token, at = 9;
    int rc = 0;
    if (f->kind == K_STAG) rc = rd_start_tag_in(r, tok, lim, 0, RD_TAG_LIMIT);
    else if (f->kind == K_ETAG || f->kind == K_PI)
        rc = rd_name(r, tok, lim, 2, f->kind == K_ETAG ? "end tag" : "processing instruction target") ? 0 : r->doc.status;
    else if (f->kind == K_DOCTYPE) rc = rd_doctype_name(r, tok, lim, &at, 1) ? 0 : r->doc.status;
    if (rc == STAX_E_LIMIT_NAME || rc == STAX_E_LIMIT_ATTRS) return rc;
    r->doc.status = 0; /* what else it met is not the error: the token's size is */
    return rd_fail(r, STAX_E_LIMIT_TOKEN, tok, 0, "%s longer than max_token (%zu bytes)",
                   f->kind == K_COMMENT ? "comment" : f->kind == K_PI ? "processing instruction"
                   : f->kind == K_DOCTYPE ? "DOCTYPE" : "tag", r->cfg.opt.max_token);
}

/* stax__rd_token, and on RD_RETRY with an empty batch once more with the whole
 * arena (max_token + 16 bytes, room for any tag). RD_RETRY is returned only
 * when the batch holds events: it must end before the token. */
size_t stax__rd_parse(stax_reader *r, const rd_frame *f, const char *tok, size_t n, int copy) {
    size_t used = stax__rd_token(r, f, tok, n, copy);
    if (used != RD_RETRY || r->buf.batch.count) return used;
    r->buf.arena.len = 0;
    if (stax__rd_reserve(r, &r->buf.arena, r->cfg.arena_max, r->cfg.arena_max)) return 0;
    used = stax__rd_token(r, f, tok, n, copy);
    if (used == RD_RETRY) return rd_internal(r, "a tag did not fit the whole arena"), 0;
    return used;
}

/* ================================================================ entities in content */

#ifndef STAX_NO_DTD
/* Start expanding the entity referenced by the token just consumed: an
 * internal entity's value, or an external entity's text read through the
 * resolver. An external one is read on an empty batch (rd_fill waits for
 * one): the texts of external entities that ended in this batch stay until
 * the next, since its events may point into them. */
int stax__rd_push_entity(stax_reader *r) {
    stax__entity *e = r->doc.push_ent;
    int external = stax__ent_is(e, STAX__ENT_EXTERNAL);
    if (external && r->buf.batch.count) return 0;
    r->doc.push_ent = NULL;
    r->doc.tok_pos = r->doc.push_pos;
    if (r->doc.n_ent >= r->cfg.opt.max_entity_depth)
        return stax__rd_fail_near(r, STAX_E_LIMIT_ENTITY, r->doc.push_pos, r->doc.push_ref,
                          "entity references nested deeper than max_entity_depth (%u)",
                          (unsigned)r->cfg.opt.max_entity_depth);
    stax_str value = stax__ent_value(e);
    const char *text = value.ptr;
    size_t len = value.len;
    stax__xtext *xt = NULL;
    if (external) {
        stax__entity_decl all;
        stax__ent_ids(e, &all);
        stax__ext_release(&r->buf.ext); /* entities that ended with nothing after them in the batch */
        int rc = stax__ext_open(&r->buf.ext, STAX_ENTITY_GENERAL, all.name, all.pubid, all.sysid, all.base, &xt, &r->doc.err);
        if (rc == STAX_DECLINE) return rd_entity_ref(r, e, r->doc.push_pos);
        if (rc) return stax__rd_fail_loaded(r, r->doc.push_pos);
        text = xt->text + xt->body;
        len = xt->len - xt->body;
    }
    if (stax__rd_expand_account(r, len, text, 0)) return r->doc.status;
    if (r->doc.n_ent == 0) r->doc.ent_pos = r->doc.push_pos;
    stax__frame *f = &r->buf.ents[r->doc.n_ent++];
    f->rest = r->doc.rest; /* the entity's text is a window of its own */
    f->rest_flags = r->doc.rest_flags;
    r->doc.rest = 0;
    r->doc.rest_flags = 0;
    f->p = r->doc.in;
    f->n = r->doc.in_len;
    f->i = r->doc.in_pos;
    const char *ref = r->doc.push_ref, *in = r->doc.in;
    f->ref = in && ref >= in && ref < in + r->doc.in_len ? (size_t)(ref - in) : r->doc.in_pos;
    f->e = e;
    f->xt = xt;
    f->depth = r->doc.depth;
    stax__ent_busy(e, 1);
    r->doc.in = text;
    r->doc.in_len = len;
    r->doc.in_pos = 0;
    return 0;
}

/* The entity's text is used up: back to the window it interrupted. */
int stax__rd_pop_entity(stax_reader *r) {
    stax__frame *f = &r->buf.ents[r->doc.n_ent - 1];
    r->doc.tok_pos = r->doc.ent_pos;
    if (r->doc.depth != f->depth || r->doc.in_cdata)
        return stax__rd_fail_at(r, STAX_E_SYNTAX, r->doc.ent_pos, "the replacement text of entity '%.*s' is not well-balanced: %s",
                          stax__clip(f->e->name.len, 64), f->e->name.ptr,
                          r->doc.in_cdata ? "a CDATA section does not end in it" : "an element starts or ends in it but not both");
    stax__ent_busy(f->e, 0);
    if (f->xt) stax__ext_close_later(&r->buf.ext, f->xt);
    r->doc.in = f->p;
    r->doc.in_len = f->n;
    r->doc.in_pos = f->i;
    r->doc.rest = f->rest;
    r->doc.rest_flags = f->rest_flags;
    r->doc.n_ent--;
    /* the entity's tokens used the framing state: start the pending carry's
     * framing again (it holds the rest of the text the reference was in) */
    if (!r->doc.n_ent && r->buf.carry.len) stax__rd_frame_start(r, &r->doc.fr, (unsigned char)*rd_carry_ptr(r));
    return 0;
}
#else /* no entity but the predefined ones: nothing is ever expanded */
int stax__rd_push_entity(stax_reader *r) { return rd_internal(r, "an entity to expand without a DTD"); }
int stax__rd_pop_entity(stax_reader *r) { return rd_internal(r, "an entity to end without a DTD"); }
#endif
