/* `stax canon`: James Clark's canonical XML, the form of the W3C suite's out/
 * files. Streamed: every event is written as it arrives, so memory does not
 * depend on the document; the only scratch is a fixed array for sorting the
 * attributes of one start tag. */
#include "cli.h"

#include <string.h>

/* Start tags with up to this many attributes are sorted through an index
 * array; longer ones (the reader allows up to max_attrs) fall back to a
 * selection that needs no memory at all. */
#define CANON_SORT_SCRATCH 64u

typedef struct canon_ctx {
    FILE *out;
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

static void canon_put(FILE *out, stax_str s) {
    if (s.len) fwrite(s.ptr, 1, s.len, out);
}

/* Write s escaped: runs of plain bytes go out in one fwrite. */
static void canon_put_escaped(FILE *out, stax_str s) {
    const unsigned char *p = (const unsigned char *)s.ptr;
    size_t run = 0;
    for (size_t i = 0; i < s.len; i++) {
        const char *esc = canon_escape(p[i]);
        if (!esc) continue;
        if (i > run) fwrite(p + run, 1, i - run, out);
        fputs(esc, out);
        run = i + 1;
    }
    if (s.len > run) fwrite(p + run, 1, s.len - run, out);
}

/* Byte order of the UTF-8 names, which is code point order; a name sorts
 * before the longer names it is a prefix of. */
static int canon_name_cmp(stax_str a, stax_str b) {
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
    if (c) return c;
    return (a.len > b.len) - (a.len < b.len);
}

static void canon_put_attr(FILE *out, const stax_batch *b, size_t ev, size_t k) {
    fputc(' ', out);
    canon_put(out, stax_ev_attr_name(b, ev, k));
    fputs("=\"", out);
    canon_put_escaped(out, stax_ev_attr_value(b, ev, k));
    fputc('"', out);
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
static void canon_put_attrs_select(FILE *out, const stax_batch *b, size_t ev, size_t n) {
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
static void canon_put_pi(FILE *out, stax_str target, stax_str data) {
    fputs("<?", out);
    canon_put(out, target);
    fputc(' ', out);
    canon_put(out, data);
    fputs("?>", out);
}

/* Second canonical form, as the suite's out/ files have it: when the DTD
 * declares notations, a DOCTYPE listing them (sorted by name) comes where the
 * DOCTYPE stood. */
static void canon_put_notations(FILE *out, stax_reader *r, stax_str root) {
    const stax_decl *n;
    size_t count = stax_reader_notations(r, &n), last = count;
    if (!count) return;
    fputs("<!DOCTYPE ", out);
    canon_put(out, root);
    fputs(" [\n", out);
    for (size_t round = 0; round < count; round++) {
        size_t best = count;
        for (size_t k = 0; k < count; k++) {
            if (last < count && canon_name_cmp(n[k].name, n[last].name) <= 0) continue;
            if (best == count || canon_name_cmp(n[k].name, n[best].name) < 0) best = k;
        }
        fputs("<!NOTATION ", out);
        canon_put(out, n[best].name);
        if (n[best].pubid.len) {
            fputs(" PUBLIC '", out);
            canon_put(out, n[best].pubid);
            fputc('\'', out);
            if (n[best].sysid.ptr) fputs(" '", out);
        } else {
            fputs(" SYSTEM '", out);
        }
        if (n[best].sysid.ptr) {
            canon_put(out, n[best].sysid);
            fputc('\'', out);
        }
        fputs(">\n", out);
        last = best;
    }
    fputs("]>\n", out);
}

static int canon_batch(void *ctx, stax_reader *r, const stax_batch *b) {
    canon_ctx *c = ctx;
    FILE *out = c->out;
    for (size_t i = 0; i < b->count; i++) {
        switch (stax_ev_type(b, i)) {
        case STAX_EV_START: {
            size_t n = stax_ev_attr_count(b, i);
            fputc('<', out);
            canon_put(out, stax_ev_name(b, i));
            if (n <= CANON_SORT_SCRATCH) canon_put_attrs_sorted(c, b, i, n);
            else canon_put_attrs_select(out, b, i, n);
            fputc('>', out);
            break;
        }
        case STAX_EV_END:
            fputs("</", out);
            canon_put(out, stax_ev_name(b, i));
            fputc('>', out);
            break;
        case STAX_EV_TEXT:
        case STAX_EV_CDATA: canon_put_escaped(out, stax_ev_text(b, i)); break;
        case STAX_EV_PI: canon_put_pi(out, stax_ev_name(b, i), stax_ev_text(b, i)); break;
        case STAX_EV_DOCTYPE: {
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
    return ferror(out) ? 2 : 0;
}

int stax_cmd_canon(const stax_cli_opts *o, int fd, FILE *out) {
    canon_ctx c;
    c.out = out;
    int rc = stax_cli_run(o, fd, canon_batch, &c, NULL);
    if (rc == 2 && ferror(out) && !o->quiet) fprintf(stderr, "stax: canon: write error\n");
    return rc;
}
