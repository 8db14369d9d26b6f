/* `stax canon`: James Clark's canonical XML, the form of the W3C suite's out/
 * files. Streamed: every event is written as it arrives, so memory does not
 * depend on the document; the only scratch is a fixed array for sorting the
 * attributes of one start tag. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Start tags with up to this many attributes are sorted through an index
 * array; longer ones (the reader allows up to max_attrs) fall back to a
 * selection that needs no memory at all. */
#define CANON_SORT_SCRATCH 64u

typedef struct canon_ctx {
    stax_cli_out *out;
    unsigned short order[CANON_SORT_SCRATCH];
} canon_ctx;

/* The replacement for each byte that canonical XML escapes, in text and in
 * attribute values alike; NULL for bytes written as they are. */
static const char *canon_escape(unsigned char c) {
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\t': return "&#9;";
    case '\n': return "&#10;";
    case '\r': return "&#13;";
    default: return NULL;
    }
}

static void canon_put(stax_cli_out *out, stax_str s) { stax_cli_write(out, s.ptr, s.len); }

/* Write s escaped: runs of plain bytes go out in one write. */
static void canon_put_escaped(stax_cli_out *out, stax_str s) {
    const unsigned char *p = (const unsigned char *)s.ptr;
    size_t run = 0;
    for (size_t i = 0; i < s.len; i++) {
        const char *esc = canon_escape(p[i]);
        if (!esc) continue;
        stax_cli_write(out, p + run, i - run);
        stax_cli_puts(out, esc);
        run = i + 1;
    }
    stax_cli_write(out, p + run, s.len - run);
}

/* Byte order of the UTF-8 names, which is code point order; a name sorts
 * before the longer names it is a prefix of. */
static int canon_name_cmp(stax_str a, stax_str b) {
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
    if (c) return c;
    return (a.len > b.len) - (a.len < b.len);
}

static void canon_put_attr(stax_cli_out *out, const stax_batch *b, size_t ev, size_t k) {
    stax_cli_putc(out, ' ');
    canon_put(out, stax_ev_attr_name(b, ev, k));
    stax_cli_puts(out, "=\"");
    canon_put_escaped(out, stax_ev_attr_value(b, ev, k));
    stax_cli_putc(out, '"');
}

/* Attributes in name order, via an insertion sort on the scratch array. */
static void canon_put_attrs_sorted(canon_ctx *c, const stax_batch *b, size_t ev, size_t n) {
    for (size_t k = 0; k < n; k++) {
        stax_str name = stax_ev_attr_name(b, ev, k);
        size_t j = k;
        while (j > 0 && canon_name_cmp(stax_ev_attr_name(b, ev, c->order[j - 1]), name) > 0) {
            c->order[j] = c->order[j - 1];
            j--;
        }
        c->order[j] = (unsigned short)k;
    }
    for (size_t k = 0; k < n; k++) canon_put_attr(c->out, b, ev, c->order[k]);
}

/* Attributes in name order without scratch: each round picks the smallest
 * name above the one written last. Names on one tag are distinct (a duplicate
 * is a well-formedness error), so every attribute is written exactly once. */
static void canon_put_attrs_select(stax_cli_out *out, const stax_batch *b, size_t ev, size_t n) {
    size_t last = n; /* n: nothing written yet */
    for (size_t round = 0; round < n; round++) {
        size_t best = n;
        for (size_t k = 0; k < n; k++) {
            stax_str name = stax_ev_attr_name(b, ev, k);
            if (last < n && canon_name_cmp(name, stax_ev_attr_name(b, ev, last)) <= 0) continue;
            if (best == n || canon_name_cmp(name, stax_ev_attr_name(b, ev, best)) < 0) best = k;
        }
        if (best == n) break;
        canon_put_attr(out, b, ev, best);
        last = best;
    }
}

/* The space is written even when the data is empty: <?pi ?>. */
static void canon_put_pi(stax_cli_out *out, stax_str target, stax_str data) {
    stax_cli_puts(out, "<?");
    canon_put(out, target);
    stax_cli_putc(out, ' ');
    canon_put(out, data);
    stax_cli_puts(out, "?>");
}

/* Second canonical form, as the suite's out/ files have it: when the DTD
 * declares notations, a DOCTYPE listing them (sorted by name) comes where the
 * DOCTYPE stood. */
static void canon_put_notations(stax_cli_out *out, stax_reader *r, stax_str root) {
    const stax_decl *n;
    size_t count = stax_reader_notations(r, &n), last = count;
    if (!count) return;
    stax_cli_puts(out, "<!DOCTYPE ");
    canon_put(out, root);
    stax_cli_puts(out, " [\n");
    for (size_t round = 0; round < count; round++) {
        size_t best = count;
        for (size_t k = 0; k < count; k++) {
            if (last < count && canon_name_cmp(n[k].name, n[last].name) <= 0) continue;
            if (best == count || canon_name_cmp(n[k].name, n[best].name) < 0) best = k;
        }
        stax_cli_puts(out, "<!NOTATION ");
        canon_put(out, n[best].name);
        if (n[best].pubid.len) {
            stax_cli_puts(out, " PUBLIC '");
            canon_put(out, n[best].pubid);
            stax_cli_putc(out, '\'');
            if (n[best].sysid.ptr) stax_cli_puts(out, " '");
        } else {
            stax_cli_puts(out, " SYSTEM '");
        }
        if (n[best].sysid.ptr) {
            canon_put(out, n[best].sysid);
            stax_cli_putc(out, '\'');
        }
        stax_cli_puts(out, ">\n");
        last = best;
    }
    stax_cli_puts(out, "]>\n");
}

static int canon_batch(void *ctx, stax_reader *r, const stax_batch *b) {
    canon_ctx *c = ctx;
    stax_cli_out *out = c->out;
    for (size_t i = 0; i < b->count; i++) {
        switch (stax_ev_type(b, i)) {
        case STAX_EV_START: {
            size_t n = stax_ev_attr_count(b, i);
            stax_cli_putc(out, '<');
            canon_put(out, stax_ev_name(b, i));
            if (n <= CANON_SORT_SCRATCH) canon_put_attrs_sorted(c, b, i, n);
            else canon_put_attrs_select(out, b, i, n);
            stax_cli_putc(out, '>');
            break;
        }
        case STAX_EV_END:
            stax_cli_puts(out, "</");
            canon_put(out, stax_ev_name(b, i));
            stax_cli_putc(out, '>');
            break;
        case STAX_EV_TEXT:
        case STAX_EV_CDATA: canon_put_escaped(out, stax_ev_text(b, i)); break;
        case STAX_EV_PI: canon_put_pi(out, stax_ev_name(b, i), stax_ev_text(b, i)); break;
        case STAX_EV_DOCTYPE: {
            /* a part (-j) has no reader to ask: the PIs and notations of an
             * internal subset need the document read on one thread */
            if (!r) {
                if (stax_ev_flags(b, i) & STAX_EVF_HAS_SUBSET) return STAX_CLI_SERIAL;
                break;
            }
            const stax_dtd_pi *pi;
            size_t npi = stax_reader_dtd_pis(r, &pi);
            for (size_t k = 0; k < npi; k++) canon_put_pi(out, pi[k].target, pi[k].data);
            canon_put_notations(out, r, stax_ev_name(b, i));
            break;
        }
        default: /* XML declaration, comments, unexpanded references */
            break;
        }
    }
    return out->err ? 2 : 0; /* a failed write: stop reading */
}

/* -j: each part's output in a memory stream of its slot, written in order.
 * Canonical form keeps no state from one event to the next, so a part's
 * output is the serial one from wherever it starts. */
typedef struct canon_part {
    canon_ctx c;
    stax_cli_out mem; /* c.out: a memory stream (NULL: none yet) */
    char *buf;
    size_t len;
} canon_part;

typedef struct canon_par {
    stax_cli_out *out;
    canon_part *slots;
    size_t nslots;
} canon_par;

static int canon_par_setup(void *ud, size_t slots) {
    canon_par *P = ud;
    P->slots = calloc(slots, sizeof *P->slots);
    P->nslots = P->slots ? slots : 0;
    return !P->slots;
}

static void canon_part_close(canon_part *q) {
    if (q->mem.f) fclose(q->mem.f);
    free(q->buf);
    q->mem.f = NULL;
    q->buf = NULL;
    q->len = 0;
}

/* A slot's stream is kept from part to part: back at its start, its
 * buffer is written over (its size is the position after a flush). */
static int canon_par_begin(void *ud, size_t part, size_t slot) {
    (void)part;
    canon_part *q = &((canon_par *)ud)->slots[slot];
    if (q->mem.f && (q->mem.err || fseeko(q->mem.f, 0, SEEK_SET) != 0)) canon_part_close(q);
    if (!q->mem.f) stax_cli_out_init(&q->mem, open_memstream(&q->buf, &q->len));
    q->c.out = &q->mem;
    return q->mem.f ? 0 : STAX_CLI_SERIAL;
}

static int canon_par_batch(void *ud, size_t part, size_t slot, const stax_batch *b) {
    (void)part;
    canon_part *q = &((canon_par *)ud)->slots[slot];
    int rc = canon_batch(&q->c, NULL, b);
    return rc == 2 ? STAX_CLI_SERIAL : rc; /* a memory stream that failed: out of memory */
}

static int canon_par_done(void *ud, size_t part, size_t slot) {
    (void)part;
    canon_par *P = ud;
    canon_part *q = &P->slots[slot];
    if (q->mem.err || fflush(q->mem.f) != 0 || ferror(q->mem.f)) return STAX_CLI_SERIAL;
    return stax_cli_write(P->out, q->buf, q->len) ? 2 : 0;
}

int stax_cmd_canon(const stax_cli_opts *o, int fd, FILE *out) {
    stax_cli_out w;
    stax_cli_out_init(&w, out);
    canon_ctx c;
    c.out = &w;
    canon_par P;
    memset(&P, 0, sizeof P);
    P.out = &w;
    stax_cli_parts parts = {&P, canon_par_setup, canon_par_begin, canon_par_batch, canon_par_done};
    stax_cli_opts live = stax_cli_live(o, &w);
    int rc = stax_cli_run_parts(&live, fd, canon_batch, &c, NULL, o->jobs && o->jobs != 1 ? &parts : NULL);
    for (size_t k = 0; k < P.nslots; k++) canon_part_close(&P.slots[k]);
    free(P.slots);
    return stax_cli_out_end(o, &w, rc);
}
