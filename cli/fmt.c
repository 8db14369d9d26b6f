/* stax fmt: reader events straight into the writer, streaming.
 *
 * Text is copied exactly, so the canonical form never changes with --indent 0.
 * With indentation, whitespace-only text, comments and PIs in an element that
 * has had no other text yet are held back (up to FMT_MAX_HOLD bytes) until the
 * next event shows what the element is: before a tag, the whitespace is
 * dropped and the writer indents instead; before real text, everything held
 * is written exactly as it came and the element is kept as it is from there
 * on (mixed content). So only whitespace between tags changes. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define FMT_MAX_HOLD 65536u
#define FMT_BUFFER 65536u

typedef struct fmt_ctx {
    stax_writer *w;
    const stax_cli_opts *o;
    stax_cli_out out;      /* the writer's sink */
    int status;            /* first writer error */
    uint32_t depth;        /* open elements */
    uint32_t mixed_depth;  /* depth of the outermost element holding text (0: none) */
    char *hold;            /* held-back events: kind byte, two lengths, the bytes */
    size_t hold_len;
    stax_writer_options wo; /* each document's writer's (--documents: one writer a document) */
    int wrote;             /* the writer has had an event */
} fmt_ctx;

typedef struct fmt_rec {
    char kind; /* 'T' whitespace text, 'C' comment, 'P' processing instruction */
    size_t a, b;
} fmt_rec;

static int fmt_check(fmt_ctx *f, int st) {
    if (st != STAX_OK && f->status == STAX_OK) f->status = st;
    return f->status;
}

static void fmt_mark_mixed(fmt_ctx *f) {
    if (f->mixed_depth == 0 && f->depth > 0) f->mixed_depth = f->depth;
}

/* Whether events are held back here: indenting, inside an element with no text. */
static int fmt_holding(const fmt_ctx *f) { return f->o->indent > 0 && f->depth > 0 && f->mixed_depth == 0; }

/* Hold an event back; 0 when it does not fit. */
static int fmt_hold(fmt_ctx *f, char kind, stax_str a, stax_str b) {
    fmt_rec r = {kind, a.len, b.len};
    if (a.len > FMT_MAX_HOLD || b.len > FMT_MAX_HOLD - a.len ||
        sizeof r + a.len + b.len > FMT_MAX_HOLD - f->hold_len)
        return 0;
    memcpy(f->hold + f->hold_len, &r, sizeof r);
    f->hold_len += sizeof r;
    if (a.len) memcpy(f->hold + f->hold_len, a.ptr, a.len);
    if (b.len) memcpy(f->hold + f->hold_len + a.len, b.ptr, b.len);
    f->hold_len += a.len + b.len;
    return 1;
}

/* Write what was held: exactly (as_text: the element turned out to hold text),
 * or as markup in element-only content (whitespace dropped, the writer indents). */
static void fmt_release(fmt_ctx *f, int as_text) {
    if (f->hold_len == 0) return;
    if (as_text) {
        /* an empty text tells the writer not to indent inside this element */
        fmt_check(f, stax_writer_text(f->w, stax_strz("")));
        fmt_mark_mixed(f);
    }
    for (size_t i = 0; i < f->hold_len;) {
        fmt_rec r;
        memcpy(&r, f->hold + i, sizeof r);
        stax_str a = {f->hold + i + sizeof r, r.a}, b = {f->hold + i + sizeof r + r.a, r.b};
        if (r.kind == 'C') fmt_check(f, stax_writer_comment(f->w, a));
        else if (r.kind == 'P') fmt_check(f, stax_writer_pi(f->w, a, b));
        else if (as_text) fmt_check(f, stax_writer_text(f->w, a));
        i += sizeof r + r.a + r.b;
    }
    f->hold_len = 0;
}

/* Before text, CDATA or a reference: the element holds text from here on. */
static void fmt_before_text(fmt_ctx *f) {
    fmt_release(f, 1);
    fmt_mark_mixed(f);
}

static void fmt_text(fmt_ctx *f, const stax_batch *b, size_t i) {
    stax_str t = stax_ev_text(b, i), none = {NULL, 0};
    if (fmt_holding(f) && (stax_ev_flags(b, i) & STAX_EVF_WHITESPACE) && fmt_hold(f, 'T', t, none)) return;
    fmt_before_text(f);
    fmt_check(f, stax_writer_text(f->w, t));
}

/* A comment or PI: held back where whitespace is, else written now. */
static void fmt_markup(fmt_ctx *f, char kind, stax_str a, stax_str b) {
    if (fmt_holding(f) && fmt_hold(f, kind, a, b)) return;
    if (fmt_holding(f)) fmt_before_text(f); /* too much to hold: keep it all exactly */
    if (kind == 'C') fmt_check(f, stax_writer_comment(f->w, a));
    else fmt_check(f, stax_writer_pi(f->w, a, b));
}

/* A writer error; a failed write is the output's to report (stax_cli_out_end). */
static void fmt_report(const fmt_ctx *f) {
    if (f->out.err || f->o->quiet) return;
    fprintf(stderr, "%s: fmt: %s\n", f->o->name ? f->o->name : "-", stax_strerror(f->status));
}

/* The writer's sink: everything through the command's output. */
static ptrdiff_t fmt_sink(void *ctx, const void *data, size_t len) {
    fmt_ctx *f = ctx;
    return stax_cli_write(&f->out, data, len) ? STAX_E_IO : (ptrdiff_t)len;
}

/* A document's writer (f->w): STAX_OK, or STAX_E_NOMEM. */
static int fmt_writer(fmt_ctx *f) {
    f->w = stax_writer_new(&f->wo);
    f->wrote = 0;
    return f->w && stax_writer_set_sink(f->w, fmt_sink, f) == STAX_OK ? STAX_OK : STAX_E_NOMEM;
}

/* The document ends: a final newline, outside the root where it changes
 * nothing, and everything written. */
static void fmt_finish(fmt_ctx *f) {
    fmt_check(f, stax_writer_text(f->w, stax_strz("\n")));
    fmt_check(f, stax_writer_finish(f->w));
}

/* --documents: a document ended, and the next has a writer of its own (a
 * writer writes one document). */
static void fmt_next_document(fmt_ctx *f) {
    fmt_finish(f);
    stax_writer_free(f->w);
    fmt_check(f, fmt_writer(f));
}

static int fmt_batch(void *ctx, stax_reader *r, const stax_batch *b) {
    (void)r;
    fmt_ctx *f = ctx;
    for (size_t i = 0; i < b->count && f->status == STAX_OK; i++) {
        stax_writer *w = f->w;
        f->wrote = 1;
        switch (stax_ev_type(b, i)) {
        case STAX_EV_DOCUMENT_END:
            fmt_next_document(f);
            break;
        case STAX_EV_XMLDECL: {
            stax_str enc = stax_ev_text(b, i);
            /* the output is UTF-8 whatever the input was */
            if (enc.len) enc = stax_strz("UTF-8");
            unsigned sa = stax_ev_flags(b, i) & (STAX_EVF_STANDALONE_YES | STAX_EVF_STANDALONE_NO);
            fmt_check(f, stax_writer_xml_decl(w, stax_ev_name(b, i), enc, sa));
            break;
        }
        case STAX_EV_DOCTYPE: {
            stax_str subset = {NULL, 0};
            if (stax_ev_flags(b, i) & STAX_EVF_HAS_SUBSET) subset = stax_ev_text(b, i);
            fmt_check(f, stax_writer_doctype(w, stax_ev_name(b, i), stax_ev_pubid(b, i), stax_ev_sysid(b, i), subset));
            break;
        }
        case STAX_EV_START:
            fmt_release(f, 0);
            fmt_check(f, stax_writer_start(w, stax_ev_name(b, i)));
            for (size_t k = 0; k < stax_ev_attr_count(b, i) && f->status == STAX_OK; k++)
                fmt_check(f, stax_writer_attr(w, stax_ev_attr_name(b, i, k), stax_ev_attr_value(b, i, k)));
            f->depth++;
            break;
        case STAX_EV_END:
            fmt_release(f, 0);
            fmt_check(f, stax_writer_end(w));
            if (f->mixed_depth == f->depth) f->mixed_depth = 0;
            f->depth--;
            break;
        case STAX_EV_TEXT:
            fmt_text(f, b, i);
            break;
        case STAX_EV_CDATA:
            fmt_before_text(f);
            fmt_check(f, stax_writer_cdata(w, stax_ev_text(b, i)));
            break;
        case STAX_EV_ENTITY_REF: {
            /* an external entity the reader did not expand: keep the reference
             * (the DOCTYPE that declares it is written back too) */
            stax_str name = stax_ev_name(b, i);
            fmt_before_text(f);
            fmt_check(f, stax_writer_raw(w, stax_strz("&")));
            fmt_check(f, stax_writer_raw(w, name));
            fmt_check(f, stax_writer_raw(w, stax_strz(";")));
            break;
        }
        case STAX_EV_COMMENT: {
            stax_str none = {NULL, 0};
            fmt_markup(f, 'C', stax_ev_text(b, i), none);
            break;
        }
        case STAX_EV_PI:
            fmt_markup(f, 'P', stax_ev_name(b, i), stax_ev_text(b, i));
            break;
        default:
            break;
        }
    }
    if (f->status != STAX_OK) {
        fmt_report(f);
        return 2;
    }
    return 0;
}

/* The writer's buffer into the output (before a read that may wait). */
static void fmt_drain(void *ctx) {
    fmt_ctx *f = ctx;
    stax_writer_flush(f->w);
}

int stax_cmd_fmt(const stax_cli_opts *o, int fd, FILE *out) {
    fmt_ctx f;
    memset(&f, 0, sizeof f);
    f.wo.buffer_size = FMT_BUFFER;
    f.wo.indent_width = o->indent > 0 ? (unsigned)o->indent : 0;
    f.wo.flags = STAX_WRITE_SELF_CLOSE;
    if (o->shape == STAX_READ_FRAGMENT) f.wo.flags |= STAX_WRITE_FRAGMENT; /* a fragment written as one */
    f.o = o;
    f.hold = malloc(FMT_MAX_HOLD);
    stax_cli_out_init(&f.out, out);
    if (fmt_writer(&f) != STAX_OK || !f.hold) {
        if (!o->quiet) fprintf(stderr, "stax: fmt: out of memory\n");
        stax_writer_free(f.w);
        free(f.hold);
        return 2;
    }
    f.out.drain = fmt_drain;
    f.out.drain_ud = &f;
    stax_cli_opts live = stax_cli_live(o, &f.out);
    int rc = stax_cli_run(&live, fd, fmt_batch, &f, NULL);
    if (rc == 0) {
        if (f.wrote) fmt_finish(&f); /* (--documents: the last one has ended) */
        if (f.status != STAX_OK) {
            fmt_report(&f);
            rc = 2;
        }
    } else {
        /* what was written of a bad document is still handed over */
        stax_writer_flush(f.w);
    }
    stax_writer_free(f.w);
    free(f.hold);
    return stax_cli_out_end(o, &f.out, rc);
}
