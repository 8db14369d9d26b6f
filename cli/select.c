/* stax select: the library's path queries (select.c) on a stream, with the
 * output forms of docs/select.md: values one a line (or NUL-separated), XML,
 * counts per path, CSV rows. */
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct select_cli {
    FILE *out;
    const stax_cli_select_opts *so;
    stax_select *s;
    uint64_t done;     /* matches written */
    char *row;         /* CSV: the row so far, then the column being read (a field is
                          quoted only if it must be: known once it is whole) */
    size_t rlen, fstart, rcap, rmax;
    unsigned fquote;   /* the column since fstart has a byte that makes it quoted */
    int status;        /* the select's error */
    stax_pos where;    /* the event it happened at */
    int interactive;   /* out is a terminal: each match goes out when it ends */
    size_t olen;       /* output waiting in obuf (one fwrite per buffer, not per value) */
    char obuf[1 << 15];
} select_cli;

static void select_flush(select_cli *c) {
    if (c->olen) fwrite(c->obuf, 1, c->olen, c->out);
    c->olen = 0;
}

static void select_write(select_cli *c, const void *p, size_t n) {
    if (n > sizeof c->obuf - c->olen) {
        select_flush(c);
        if (n >= sizeof c->obuf) {
            fwrite(p, 1, n, c->out);
            return;
        }
    }
    memcpy(c->obuf + c->olen, p, n);
    c->olen += n;
}

/* Room for n more bytes of the row; 1 when it would pass rmax. */
static int select_row_grow(select_cli *c, size_t n) {
    if (n > c->rmax - c->rlen) return 1;
    size_t cap = c->rcap ? c->rcap : 256;
    while (cap - c->rlen < n) cap = cap > c->rmax / 2 ? c->rmax : cap * 2;
    char *p = realloc(c->row, cap);
    if (!p) return 1;
    c->row = p;
    c->rcap = cap;
    return 0;
}

static inline int select_row_room(select_cli *c, size_t n) { return n <= c->rcap - c->rlen ? 0 : select_row_grow(c, n); }

static const unsigned char select_csv_special[256] = {[','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1};

/* The column read since fstart becomes a field of the row. RFC 4180: a field
 * with a comma, a double quote, CR or LF (fquote: seen while it was read)
 * goes between double quotes, each double quote in it doubled. */
static int select_csv_field(select_cli *c) {
    if (!c->fquote) return 0;
    size_t n = c->rlen - c->fstart, quotes = 0;
    for (size_t i = c->fstart; i < c->rlen; i++) quotes += c->row[i] == '"';
    if (select_row_room(c, quotes + 2)) return 1;
    char *f = c->row + c->fstart;
    size_t w = n + quotes + 2; /* fill from the end: each byte moves right once */
    f[--w] = '"';
    for (size_t i = n; i-- > 0;) {
        f[--w] = f[i];
        if (f[i] == '"') f[--w] = '"';
    }
    f[--w] = '"';
    c->rlen += quotes + 2;
    c->fquote = 0;
    return 0;
}

/* Whether an ASCII byte below '-' (0x2d) is among the eight of x: it sets
 * its high bit in x - 0x2d.. (and a byte from 0x80 has its own set in x).
 * The bytes that make a field quoted are all below '-'. */
static inline int select_word_low(uint64_t x) { return ((x - 0x2d2d2d2d2d2d2d2dull) & ~x & 0x8080808080808080ull) != 0; }

/* Whether p[0, n) has a byte that makes a field quoted: eight bytes at a
 * time, the table only for a word with a byte below '-'. */
static unsigned select_csv_special_in(const unsigned char *p, size_t n) {
    unsigned q = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, 8);
        if (!select_word_low(x)) continue;
        for (size_t k = i; k < i + 8; k++) q |= select_csv_special[p[k]];
    }
    for (; i < n; i++) q |= select_csv_special[p[i]];
    return q;
}

static int select_csv_put(select_cli *c, const char *p, size_t n) {
    if (select_row_room(c, n)) return 1;
    unsigned char *d = (unsigned char *)c->row + c->rlen;
    const unsigned char *u = (const unsigned char *)p;
    unsigned q = 0;
    if (n < 8) { /* most values are short: no call */
        for (size_t i = 0; i < n; i++) {
            d[i] = u[i];
            q |= select_csv_special[u[i]];
        }
    } else if (n <= 16) { /* two words, which overlap unless n is 16 */
        uint64_t x0, x1;
        memcpy(&x0, p, 8);
        memcpy(&x1, p + n - 8, 8);
        memcpy(d, &x0, 8);
        memcpy(d + n - 8, &x1, 8);
        if (select_word_low(x0) || select_word_low(x1)) q = select_csv_special_in(u, n);
    } else {
        memcpy(d, p, n);
        q = select_csv_special_in(u, n);
    }
    c->rlen += n;
    c->fquote |= q;
    return 0;
}

/* One byte after the field read: the separator, or the row's end. */
static inline int select_csv_end_field(select_cli *c, char sep) {
    if (select_csv_field(c) || select_row_room(c, 1)) return 1;
    c->row[c->rlen++] = sep;
    c->fstart = c->rlen;
    return 0;
}

/* A match ended: its terminator, and whether --first is reached. */
static int select_ended(select_cli *c) {
    if (c->interactive) select_flush(c);
    c->done++;
    return c->so->first && c->done >= c->so->first;
}

static int select_piece(void *ctx, const stax_select_piece *p) {
    select_cli *c = ctx;
    const stax_cli_select_opts *so = c->so;
    if (p->type == STAX_SELECT_VALUE && !so->count) select_write(c, p->value.ptr, p->value.len);
    if (p->type != STAX_SELECT_END) return 0;
    if (!so->count) select_write(c, so->nul ? "\0" : "\n", 1);
    return select_ended(c);
}

/* --csv: the pieces of each record make a row (VALUE the most: first). */
static int select_csv_piece(void *ctx, const stax_select_piece *p) {
    select_cli *c = ctx;
    if (p->type == STAX_SELECT_VALUE) {
        if (select_csv_put(c, p->value.ptr, p->value.len)) goto too_long;
    } else if (p->type == STAX_SELECT_COLUMN) {
        if (p->column > 0 && select_csv_end_field(c, ',')) goto too_long;
    } else if (p->type == STAX_SELECT_END) {
        if (select_csv_end_field(c, c->so->nul ? '\0' : '\n')) goto too_long;
        select_write(c, c->row, c->rlen);
        c->rlen = c->fstart = 0;
        return select_ended(c);
    }
    return 0;
too_long:
    c->status = STAX_E_LIMIT_HELD; /* the row's bound comes from --max-held */
    return 1;
}

/* --header: the first row, the names of the columns (as written in --csv,
 * or given by commas), quoted as fields are: the pieces of a record, through
 * select_csv_piece (whose END counts a row: not this one). 1 (with the
 * message) when the names given are not one per column. */
static int select_csv_header(select_cli *c) {
    const char *names = c->so->header_names;
    size_t n = stax_select_columns(c->s), given = 1;
    for (const char *p = names; p && *p; p++) given += *p == ',';
    if (names && given != n) {
        fprintf(stderr, "stax: select: --header gives %zu name%s for %zu column%s\n", given, given == 1 ? "" : "s", n,
                n == 1 ? "" : "s");
        return 1;
    }
    stax_select_piece pc;
    memset(&pc, 0, sizeof pc);
    for (size_t k = 0; k < n; k++) {
        pc.value = stax_select_column_text(c->s, k);
        if (names) {
            const char *end = names;
            while (*end && *end != ',') end++;
            pc.value.ptr = names;
            pc.value.len = (size_t)(end - names);
            names = end + (*end != '\0');
        }
        pc.column = (uint32_t)k;
        pc.type = STAX_SELECT_COLUMN;
        select_csv_piece(c, &pc);
        pc.type = STAX_SELECT_VALUE;
        select_csv_piece(c, &pc);
    }
    pc.type = STAX_SELECT_END;
    select_csv_piece(c, &pc);
    c->done--;
    if (c->status == STAX_OK) return 0;
    fprintf(stderr, "stax: select: the header is longer than twice --max-held\n");
    return 1;
}

static int select_batch(void *ctx, stax_reader *r, const stax_batch *b) {
    (void)r;
    select_cli *c = ctx;
    int st = stax_select_batch(c->s, b);
    if (st == STAX_OK) return 0;
    if (st == STAX_END && c->status == STAX_OK) return STAX_CLI_STOP; /* --first N */
    if (c->status == STAX_OK) c->status = st;
    c->where = stax_ev_pos(b, stax_select_event_index(c->s));
    /* a limit of the select, or memory: exit status 2 (the document may be well-formed) */
    return c->status == STAX_E_NOMEM || c->status == STAX_E_LIMIT_HELD || c->status == STAX_E_LIMIT_STATE ||
                   c->status == STAX_E_LIMIT_XML_MEMORY
               ? 2
               : 1;
}

/* -N prefix=URI into pairs of strings. */
static stax_str *select_bindings(const stax_cli_select_opts *so) {
    stax_str *ns = calloc(so->ns_count * 2 + 1, sizeof *ns);
    if (!ns) return NULL;
    for (size_t k = 0; k < so->ns_count; k++) {
        const char *a = so->ns[k], *eq = strchr(a, '=');
        ns[2 * k].ptr = a;
        ns[2 * k].len = (size_t)(eq - a);
        ns[2 * k + 1] = stax_strz(eq + 1);
    }
    return ns;
}

int stax_cmd_select(const stax_cli_opts *o, const stax_cli_select_opts *so, int fd, FILE *out) {
    const char *name = o->name ? o->name : "-";
    if ((so->xml != 0) + (so->count != 0) + (so->csv != NULL) > 1) {
        fprintf(stderr, "stax: select: --xml, --count and --csv exclude each other\n");
        return 2;
    }
    if ((so->header || so->join) && !so->csv) {
        fprintf(stderr, "stax: select: %s goes with --csv\n", so->header ? "--header" : "--join");
        return 2;
    }
    for (size_t k = 0; k < so->ns_count; k++) {
        const char *eq = strchr(so->ns[k], '=');
        if (!eq || eq == so->ns[k] || !eq[1]) {
            fprintf(stderr, "stax: select: -N takes prefix=URI, not '%s'\n", so->ns[k]);
            return 2;
        }
    }
    select_cli c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.interactive = isatty(fileno(out));
    c.so = so;
    stax_select_options opt;
    memset(&opt, 0, sizeof opt);
    opt.max_held = so->max_held;
    if (o->namespaces) opt.flags |= STAX_SELECT_NAMESPACES;
    if (so->xml) opt.flags |= STAX_SELECT_XML;
    if (so->count) opt.flags |= STAX_SELECT_NO_VALUES;
    if (so->join) {
        opt.flags |= STAX_SELECT_ALL_MATCHES;
        opt.join = stax_strz(so->join);
    }
    stax_str *ns = select_bindings(so);
    void *block = o->memory ? malloc(o->memory) : NULL; /* --memory: the select in a fixed block too */
    opt.ns = ns;
    opt.ns_count = so->ns_count;
    opt.memory = block;
    opt.memory_size = o->memory;
    int rc = 2;
    const char *why = NULL;
    stax_select_options eff;
    if (ns && (!o->memory || block) && stax_select_effective_options(&opt, &eff, &why) == STAX_OK)
        c.s = stax_select_new(&opt);
    if (!c.s) {
        fprintf(stderr, "stax: select: cannot create a select: %s\n", why ? why : "out of memory");
        goto done;
    }
    c.rmax = 2 * eff.max_held; /* a held record, quoted */
    int st = stax_select_compile(c.s, stax_strz(so->path), stax_strz(so->csv));
    if (st != STAX_OK) {
        fprintf(stderr, "stax: select: %s%s\n", stax_select_message(c.s),
                st == STAX_E_NAMESPACE ? " (bind it with -N prefix=URI)" : "");
        goto done;
    }
    if (so->header && select_csv_header(&c)) goto done;
    stax_select_set_output(c.s, so->csv ? select_csv_piece : select_piece, &c);
    rc = stax_cli_run(o, fd, select_batch, &c, NULL);
    select_flush(&c);
    if (c.status != STAX_OK && !o->quiet) {
        char row[96];
        snprintf(row, sizeof row, "a CSV row is longer than twice --max-held (%zu bytes)", eff.max_held);
        const char *msg = c.status == STAX_E_LIMIT_HELD && so->csv && stax_select_status(c.s) != STAX_E_LIMIT_HELD
                              ? row
                              : stax_select_message(c.s);
        fprintf(stderr, "%s:%llu:%llu: select: %s (byte %llu)\n", name, (unsigned long long)c.where.line,
                (unsigned long long)c.where.column, msg, (unsigned long long)c.where.offset);
    }
    if (rc == 0 && so->count)
        for (size_t p = 0; p < stax_select_paths(c.s); p++)
            fprintf(out, "%llu\n", (unsigned long long)stax_select_count(c.s, p));
done:
    stax_select_free(c.s);
    free(block);
    free(ns);
    free(c.row);
    return rc;
}
