/* External entities: the caller's resolver is asked for an entity, and its
 * bytes are read whole into the buffer of entity texts, decoded to UTF-8 (by
 * the BOM, the first bytes and the text declaration, XML 1.0 4.3.3 and
 * Appendix F), checked (UTF-8, Char) and their line ends normalized (2.11).
 * The texts of the entities open at once lie in that buffer stack-wise, each
 * after its record and its base (xt_ prefix for file-local names). */
#include "external.h"
#include "encoding.h"

#include <stdarg.h>
#ifndef STAX_NO_EXTERNAL /* else omitted.c stands in */

/* Room past max_external_text: the decoders stop 4 bytes before the end of
 * their window, so the last bytes of a text that fits are always written. */
#define XT_SLACK 16u
/* Records start at multiples of this in the buffer (which is as aligned). */
#define XT_ALIGN 16u

size_t stax__ext_buffer_size(const stax_reader_options *o) {
    if (!o->resolve) return 0;
    if (o->max_external_text > SIZE_MAX - XT_SLACK - o->read_buffer) return SIZE_MAX;
    return o->max_external_text + XT_SLACK + o->read_buffer;
}

void stax__ext_init(stax__ext *x, stax__mem *mem, const stax_reader_options *o) {
    memset(x, 0, sizeof *x);
    x->fn = o->resolve;
    x->ud = o->resolve_ud;
    x->unknown_encoding = o->unknown_encoding;
    x->unknown_ud = o->unknown_encoding_ud;
#ifndef STAX_NO_EXTRA_ENCODINGS
    x->decoder = o->decoder;
    x->decoder_ud = o->decoder_ud;
#endif
    x->mem = mem;
    x->max_text = o->max_external_text;
    x->scratch = o->read_buffer;
    x->max_bytes = o->max_external;
    x->release = SIZE_MAX;
}

int stax__ext_reserve(stax__ext *x) {
    if (!x->fn || x->text.cap) return 0;
    size_t n = x->max_text + XT_SLACK + x->scratch;
    return stax__buf_reserve(x->mem, &x->text, n, n) ? STAX_E_NOMEM : 0;
}

void stax__ext_free(stax__ext *x) { stax__buf_free(x->mem, &x->text); }

void stax__ext_reset(stax__ext *x) {
    x->text.len = 0;
    x->release = SIZE_MAX;
    x->bytes = 0;
}

void stax__ext_close(stax__ext *x, const stax__xtext *t) { x->text.len = t->mark; }

void stax__ext_close_later(stax__ext *x, const stax__xtext *t) {
    if (x->release == SIZE_MAX || t->mark < x->release) x->release = t->mark;
}

/* ================================================================ messages */


/* " (in entity 'name' "sysid", line L, column C)": where = 0 leaves out the
 * line and column. */
static void xt_suffix(const stax__xtext *t, int where, const char *text, size_t off, char *msg, size_t cap) {
    size_t n = strlen(msg);
    if (n >= cap) return;
    if (t->kind == STAX_ENTITY_SUBSET)
        n += stax__fmt(msg + n, cap - n, " (in the external subset \"%.*s\"", stax__clip(t->sysid.len, 96), t->sysid.ptr);
    else
        n += stax__fmt(msg + n, cap - n, " (in %sentity '%.*s' \"%.*s\"", t->kind == STAX_ENTITY_PARAMETER ? "parameter " : "",
                       stax__clip(t->name.len, 64), t->name.ptr, stax__clip(t->sysid.len, 96), t->sysid.ptr);
    if (where) {
        stax_pos p = {0, 1, 1};
        stax__pos_advance(&p, text, off);
        n += stax__fmt(msg + n, cap - n, ", line %llu, column %llu", (unsigned long long)p.line,
                       (unsigned long long)p.column);
    }
    stax__fmt(msg + n, cap - n, ")");
}

void stax__ext_where(const stax__xtext *t, const char *at, char *msg, size_t cap) {
    int in = at && at >= t->text && at <= t->text + t->len;
    xt_suffix(t, in, t->text, in ? (size_t)(at - t->text) : 0, msg, cap);
}

/* ================================================================ reading one entity */

enum { XT_DETECT, XT_DECL, XT_BODY };

typedef struct xt_load {
    stax__ext *x;
    stax__xtext *t;
    stax__err *err;
    char *out;          /* the text */
    size_t w;           /* its bytes so far */
    char *lim, *end;    /* it may not pass lim; the decoders may write up to end */
    int phase;
    unsigned char head[4]; /* XT_DETECT: the first bytes */
    size_t nhead;
    int detected;       /* by the BOM or the first bytes */
    size_t bom;
    int in_decl;        /* XT_DECL: the text starts with "<?xml" and a space */
    size_t decl;        /* the text declaration's length, once read */
    stax__decoder dec;
} xt_load;

static int xt_fail(xt_load *L, int code, int where, size_t off, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static int xt_fail(xt_load *L, int code, int where, size_t off, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    stax__err_vset(L->err, code, NULL, 0, fmt, ap);
    va_end(ap);
    xt_suffix(L->t, where, L->out, off, L->err->msg, L->err->cap);
    if (code == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return code;
}
#ifdef STAX_NO_MESSAGES /* short messages: the sentences are not compiled in */
#define xt_fail(L, code, where, off, ...) (STAX__NO_MESSAGE(__VA_ARGS__), xt_fail((L), (code), (where), (off), "%s", ""))
#endif

static int xt_too_big(xt_load *L) {
    return xt_fail(L, STAX_E_LIMIT_ENTITY, 0, 0,
                   "external entity larger than max_external_text (%zu bytes, shared with the entities it is read in)",
                   L->x->max_text);
}

/* Bytes as they are (the start of a text declaration, or UTF-8). */
static int xt_put(xt_load *L, const char *s, size_t n) {
    stax__out o = stax__out_make(L->out + L->w, (size_t)(L->lim - (L->out + L->w)));
    stax__out_put(&o, s, n);
    if (o.over) return xt_too_big(L);
    L->w += n;
    return 0;
}


/* `name S? = S? "value"` at s[*i] (after whitespace); 1 when name is not there. */
static int xt_decl_attr(xt_load *L, const char *s, size_t n, size_t *i, const char *name, stax_str *val) {
    size_t j = *i, k = strlen(name);
    if (j + k > n || memcmp(s + j, name, k) != 0) return 1;
    j += k;
    while (j < n && stax__is_ws((unsigned char)s[j])) j++;
    if (j >= n || s[j] != '=') return xt_fail(L, STAX_E_SYNTAX, 1, j, "'=' expected after '%s' in the text declaration", name);
    j++;
    while (j < n && stax__is_ws((unsigned char)s[j])) j++;
    if (j >= n || (s[j] != '"' && s[j] != '\''))
        return xt_fail(L, STAX_E_SYNTAX, 1, j, "quoted value expected for '%s' in the text declaration", name);
    const char *e = (const char *)memchr(s + j + 1, s[j], n - j - 1);
    if (!e) return xt_fail(L, STAX_E_SYNTAX, 1, j, "unterminated value of '%s' in the text declaration", name);
    val->ptr = s + j + 1;
    val->len = (size_t)(e - s) - j - 1;
    *i = (size_t)(e - s) + 1;
    return 0;
}

/* The text declaration s[0, n) ("<?xml" ... "?>"): TextDecl ::= '<?xml'
 * VersionInfo? EncodingDecl S? '?>'. The encoding it names, resolved with
 * what the first bytes said, goes to *enc and *table. */
static int xt_text_decl(xt_load *L, const char *s, size_t n, int *enc, const uint32_t **table) {
    size_t end = n - 2, i = 5, ws;
    stax_str ver = {0, 0}, name = {0, 0};
    int rc;
    ws = i;
    while (i < end && stax__is_ws((unsigned char)s[i])) i++;
    if (i > ws && (rc = xt_decl_attr(L, s, end, &i, "version", &ver)) < 0) return rc;
    if (ver.ptr) { /* an XML 1.0 document may not use an entity of another version (4.3.4) */
        if (ver.len != 3 || memcmp(ver.ptr, "1.0", 3) != 0)
            return xt_fail(L, STAX_E_SYNTAX, 1, (size_t)(ver.ptr - s), "an entity of XML version '%.*s' in an XML 1.0 document",
                           stax__clip(ver.len, 32), ver.ptr);
        ws = i;
        while (i < end && stax__is_ws((unsigned char)s[i])) i++;
    }
    if (i == ws || (rc = xt_decl_attr(L, s, end, &i, "encoding", &name)) > 0) {
        if (i + 10 <= end && memcmp(s + i, "standalone", 10) == 0)
            return xt_fail(L, STAX_E_SYNTAX, 1, i, "standalone is not allowed in the text declaration of an external entity");
        return xt_fail(L, STAX_E_SYNTAX, 1, i, "the text declaration of an external entity needs an encoding");
    }
    if (rc < 0) return rc;
    int ok = name.len > 0 && ((name.ptr[0] | 32) >= 'a' && (name.ptr[0] | 32) <= 'z');
    for (size_t k = 1; ok && k < name.len; k++) {
        char c = name.ptr[k];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    }
    if (!ok) return xt_fail(L, STAX_E_SYNTAX, 1, (size_t)(name.ptr - s), "invalid encoding name");
    while (i < end && stax__is_ws((unsigned char)s[i])) i++;
    if (i + 10 <= end && memcmp(s + i, "standalone", 10) == 0)
        return xt_fail(L, STAX_E_SYNTAX, 1, i, "standalone is not allowed in the text declaration of an external entity");
    if (i != end) return xt_fail(L, STAX_E_SYNTAX, 1, i, "unexpected text in the text declaration");
    *table = NULL;
    int declared = stax__encoding_by_name(name.ptr, name.len);
    if (declared < 0 && L->x->unknown_encoding) {
        *table = L->x->unknown_encoding(L->x->unknown_ud, name.ptr, name.len);
        if (*table) declared = STAX__ENC_TABLE;
    }
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (declared < 0 && L->x->decoder) declared = STAX__ENC_HOOK; /* opened once it agrees with the bytes */
#endif
    if (declared < 0)
        return xt_fail(L, STAX_E_UNSUPPORTED, 1, (size_t)(name.ptr - s), "encoding '%.*s' is not supported",
                       stax__clip(name.len, 64), name.ptr);
    *enc = stax__encoding_resolve(L->detected, L->bom, declared);
    if (*enc < 0)
        return xt_fail(L, STAX_E_ENCODING, 1, (size_t)(name.ptr - s),
                       "the declared encoding '%.*s' contradicts the entity's bytes, which are %s%s", stax__clip(name.len, 64),
                       name.ptr, stax__encoding_name(L->detected), L->bom ? " (by its byte order mark)" : "");
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (*enc == STAX__ENC_HOOK && stax__decoder_open(&L->dec, L->x->decoder, L->x->decoder_ud, name.ptr, name.len))
        return xt_fail(L, STAX_E_UNSUPPORTED, 1, (size_t)(name.ptr - s), "encoding '%.*s' is not supported",
                       stax__clip(name.len, 64), name.ptr);
#endif
    return 0;
}

/* XT_DECL: bytes of an ASCII-compatible entity as they are, until it is known
 * whether a text declaration starts it, and if so through its "?>"; then the
 * decoder it names takes the rest. */
static int xt_decl_bytes(xt_load *L, const char **pp, size_t *pn, int at_end) {
    static const char start[] = "<?xml";
    const char *p = *pp;
    size_t n = *pn;
    int rc = 0;
    while (n && L->phase == XT_DECL) {
        if (!L->in_decl) { /* one byte at a time: "<?xml" and a space */
            if ((rc = xt_put(L, p, 1)) != 0) break;
            p++, n--;
            char c = L->out[L->w - 1];
            if (L->w <= 5 ? c != start[L->w - 1] : !stax__is_ws((unsigned char)c)) L->phase = XT_BODY;
            else if (L->w == 6) L->in_decl = 1;
            continue;
        }
        const char *gt = (const char *)memchr(p, '>', n);
        size_t k = gt ? (size_t)(gt - p) + 1 : n;
        for (size_t j = 0; j < k; j++)
            if ((unsigned char)p[j] >= 0x80) { /* the bytes before it are taken first: the position counts them */
                if ((rc = xt_put(L, p, j)) != 0) return rc;
                return xt_fail(L, STAX_E_SYNTAX, 1, L->w, "byte 0x%02X in the text declaration", (unsigned char)p[j]);
            }
        if ((rc = xt_put(L, p, k)) != 0) break;
        p += k, n -= k;
        if (gt && L->out[L->w - 2] == '?') {
            int enc = STAX__ENC_UTF8;
            const uint32_t *table = NULL;
            if ((rc = xt_text_decl(L, L->out, L->w, &enc, &table)) != 0) break;
            L->decl = L->w;
            if (enc != STAX__ENC_HOOK) stax__decoder_init(&L->dec, enc, table); /* (a hook is open already) */
            L->phase = XT_BODY;
        }
    }
    *pp = p;
    *pn = n;
    if (rc || n || !at_end || L->phase != XT_DECL) return rc;
    if (L->in_decl) return xt_fail(L, STAX_E_TRUNCATED, 1, L->w, "the text declaration does not end ('?>' expected)");
    L->phase = XT_BODY; /* a few bytes that only began like "<?xml " */
    return 0;
}

/* The decoder stopped: at an invalid sequence, or (truncated) at the end
 * inside a character, or a caller's decoder failed. */
static int xt_decoder_fail(xt_load *L, int truncated) {
    const stax__decoder *d = &L->dec;
    int code = truncated ? STAX_E_TRUNCATED : STAX_E_ENCODING;
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (d->enc == STAX__ENC_HOOK) code = d->hook.status;
    if (code != STAX_E_TRUNCATED && code != STAX_E_ENCODING) {
        const char *msg = d->hook.msg ? d->hook.msg : stax_strerror(code);
        return xt_fail(L, code, 1, L->w, "the decoder for %s failed: %.*s", d->hook.name, stax__clip(strlen(msg), 160), msg);
    }
#endif
    if (code == STAX_E_TRUNCATED)
        return xt_fail(L, code, 1, L->w, "the entity ends inside a %s character", stax__decoder_name(d));
    return xt_fail(L, code, 1, L->w, "invalid byte sequence for %s", stax__decoder_name(d));
}

#ifndef STAX_NO_EXTRA_ENCODINGS
#define XT_UNREAD "the entity is in EBCDIC or in UCS-4 of byte order 2143 or 3412, which stax does not read"
#else
#define XT_UNREAD "the entity is in UCS-4 or EBCDIC, which stax does not read"
#endif

/* Take the next bytes of the entity (at_end: there are no more). */
static int xt_feed(xt_load *L, const char *p, size_t n, int at_end) {
    int rc;
    if (L->phase == XT_DETECT) {
        while (L->nhead < 4 && n) L->head[L->nhead++] = (unsigned char)*p++, n--;
        if (L->nhead < 4 && !at_end) return 0;
        int enc = stax__encoding_detect(L->head, L->nhead, 1, &L->bom);
        if (enc < 0 || enc == STAX__ENC_EBCDIC) return xt_fail(L, STAX_E_UNSUPPORTED, 0, 0, XT_UNREAD);
        L->detected = enc;
        stax__decoder_init(&L->dec, enc, NULL);
        L->phase = enc == STAX__ENC_UTF8 ? XT_DECL : XT_BODY;
        if ((rc = xt_feed(L, (const char *)L->head + L->bom, L->nhead - L->bom, 0)) != 0) return rc;
    }
    if (L->phase == XT_DECL && (rc = xt_decl_bytes(L, &p, &n, at_end)) != 0) return rc;
    while (n) {
        size_t used = 0, made = 0;
        char *dst = L->out + L->w;
#ifndef STAX_NO_EXTRA_ENCODINGS
        if (L->dec.enc == STAX__ENC_HOOK && (size_t)(L->end - dst) < STAX_DECODE_MIN_OUT) return xt_too_big(L);
#endif
        rc = stax__decode(&L->dec, p, n, &used, dst, (size_t)(L->end - dst), &made);
        L->w += made;
        p += used, n -= used;
        if (L->out + L->w > L->lim || (!used && !made && rc != STAX__DEC_ERROR)) return xt_too_big(L);
        if (rc == STAX__DEC_ERROR) return xt_decoder_fail(L, 0);
    }
#ifdef STAX_NO_EXTRA_ENCODINGS
    if (at_end && stax__decode_finish(&L->dec) == STAX__DEC_ERROR) return xt_decoder_fail(L, 1);
#else
    for (size_t made = 1; at_end && made;) { /* a caller's decoder may still write */
        char *dst = L->out + L->w;
        if (L->dec.enc == STAX__ENC_HOOK && (size_t)(L->end - dst) < STAX_DECODE_MIN_OUT) return xt_too_big(L);
        if (stax__decode_end(&L->dec, dst, (size_t)(L->end - dst), &made) == STAX__DEC_ERROR) return xt_decoder_fail(L, 1);
        L->w += made;
        if (L->out + L->w > L->lim) return xt_too_big(L);
    }
#endif
    return 0;
}

/* Write s[0, n) to dst (dst <= s: in place, or moved back) with its line
 * ends normalized; returns the length written (never more than n). */
static size_t xt_eol(char *dst, const char *s, size_t n) {
    stax__out o = stax__out_make(dst, n);
    size_t run = 0;
    for (const char *cr; (cr = run < n ? (const char *)memchr(s + run, '\r', n - run) : NULL) != NULL;) {
        size_t i = (size_t)(cr - s);
        stax__out_move(&o, s + run, i - run);
        stax__out_byte(&o, '\n');
        run = i + 1 + (i + 1 < n && s[i + 1] == '\n');
    }
    stax__out_move(&o, s + run, n - run);
    return (size_t)(o.p - dst);
}

/* The whole text is read: a UTF-16 entity's declaration, then the checks. */
static int xt_finish(xt_load *L) {
    if (L->detected != STAX__ENC_UTF8 && L->w >= 6 && memcmp(L->out, "<?xml", 5) == 0 && stax__is_ws((unsigned char)L->out[5])) {
        const char *q = L->out + 6, *e = NULL;
        for (; q + 1 < L->out + L->w && !e; q++)
            if (q[0] == '?' && q[1] == '>') e = q + 2;
        if (!e) return xt_fail(L, STAX_E_TRUNCATED, 1, L->w, "the text declaration does not end ('?>' expected)");
        int enc;
        const uint32_t *table;
        int rc = xt_text_decl(L, L->out, (size_t)(e - L->out), &enc, &table);
        if (rc) return rc;
        L->decl = (size_t)(e - L->out);
    }
    int err = 0;
    size_t bad = stax__check_chars(L->out, L->w, &err);
    if (bad != L->w) {
        if (err == STAX_E_CHAR) {
            uint32_t cp = (unsigned char)L->out[bad];
            if (cp >= 0x80) stax__utf8_decode((const unsigned char *)L->out + bad, L->w - bad, &cp);
            return xt_fail(L, STAX_E_CHAR, 1, bad, "character U+%04lX is not allowed in XML", (unsigned long)cp);
        }
        return xt_fail(L, STAX_E_ENCODING, 1, bad, "invalid UTF-8 byte 0x%02X", (unsigned char)L->out[bad]);
    }
    size_t decl = xt_eol(L->out, L->out, L->decl);
    L->w = decl + xt_eol(L->out + decl, L->out + L->decl, L->w - L->decl);
    L->decl = decl;
    return 0;
}

/* Count n more bytes handed over against max_external. */
static int xt_count(xt_load *L, uint64_t n) {
    stax__ext *x = L->x;
    x->bytes += n;
    L->t->raw += n;
    if (x->bytes > x->max_bytes)
        return xt_fail(L, STAX_E_LIMIT_ENTITY, 0, 0, "external entities over max_external (%llu bytes read in all)",
                       (unsigned long long)x->max_bytes);
    return 0;
}

static int xt_read(xt_load *L, const stax_entity_input *in) {
    int rc;
    if (!in->read) {
        if (in->len && !in->data)
            return xt_fail(L, STAX_E_USAGE, 0, 0, "the resolver gave %zu bytes at NULL", in->len);
        if ((rc = xt_count(L, in->len)) != 0 || (rc = xt_feed(L, (const char *)in->data, in->len, 0)) != 0) return rc;
        return xt_feed(L, NULL, 0, 1);
    }
    char *scratch = L->x->text.ptr + L->x->max_text + XT_SLACK;
    for (;;) {
        ptrdiff_t k = in->read(in->read_ctx, scratch, L->x->scratch);
        if (k < 0) return xt_fail(L, STAX_E_IO, 0, 0, "read error");
        if (k == 0) return xt_feed(L, NULL, 0, 1);
        size_t got = (size_t)k > L->x->scratch ? L->x->scratch : (size_t)k;
        if ((rc = xt_count(L, got)) != 0 || (rc = xt_feed(L, scratch, got, 0)) != 0) return rc;
    }
}

int stax__ext_open(stax__ext *x, int kind, stax_str name, stax_str pubid, stax_str sysid, stax_str base,
                   stax__xtext **out, stax__err *err) {
    static const char empty[1] = "";
    stax_entity_request req;
    req.kind = kind;
    req.name = name;
    req.pubid = pubid;
    req.sysid = sysid;
    req.base = base;
    if (!req.pubid.ptr) req.pubid.ptr = empty;
    if (!req.sysid.ptr) req.sysid.ptr = empty;
    if (!req.base.ptr) req.base.ptr = empty;
    stax__xtext probe; /* names the entity in messages until its record exists */
    memset(&probe, 0, sizeof probe);
    probe.kind = kind;
    probe.name = name;
    probe.sysid = req.sysid;
    xt_load L;
    memset(&L, 0, sizeof L);
    L.x = x;
    L.err = err;
    L.t = &probe;
    if (stax__ext_reserve(x)) return xt_fail(&L, STAX_E_NOMEM, 0, 0, "out of memory for the text of external entities");
    stax_entity_input in;
    memset(&in, 0, sizeof in);
    int rc = x->fn(x->ud, &req, &in);
    if (rc == STAX_DECLINE) return STAX_DECLINE;
    if (rc < 0) {
        if (in.message) return xt_fail(&L, rc, 0, 0, "cannot read it: %s", in.message);
        return xt_fail(&L, rc, 0, 0, "the resolver could not give it (%s)", stax_strerror(rc));
    }
    if (rc != STAX_OK) return xt_fail(&L, STAX_E_USAGE, 0, 0, "the resolver returned %d", rc);
    /* the record, then the base, then the text */
    size_t mark = x->text.len, at = (mark + XT_ALIGN - 1) & ~(size_t)(XT_ALIGN - 1);
    char *lim = x->text.ptr + x->max_text;
    stax__out o = stax__out_make(x->text.ptr + at, at <= x->max_text ? x->max_text - at : 0);
    stax__xtext rec = probe;
    stax__out_put(&o, &rec, sizeof rec);
    char *b = o.p;
    stax__out_put(&o, in.base.ptr, in.base.ptr ? in.base.len : 0);
    if (o.over) {
        rc = xt_too_big(&L);
    } else {
        stax__xtext *t = (stax__xtext *)(void *)(x->text.ptr + at);
        t->mark = mark;
        t->base = req.sysid;
        if (in.base.ptr && in.base.len) t->base.ptr = b, t->base.len = in.base.len;
        L.t = t;
        L.out = o.p;
        L.lim = lim;
        L.end = lim + XT_SLACK;
        L.phase = XT_DETECT;
        rc = xt_read(&L, &in);
        stax__decoder_close(&L.dec);
        if (!rc) rc = xt_finish(&L);
        if (!rc) {
            t->text = L.out;
            t->len = L.w;
            t->body = L.decl;
            x->text.len = (size_t)(L.out + L.w - x->text.ptr);
            *out = t;
        }
    }
    if (in.done) in.done(in.done_ctx);
    return rc;
}
#else
typedef int stax__external_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_EXTERNAL */
