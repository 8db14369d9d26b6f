/* stax select: the library's path queries (select.c) on a stream, with the
 * output forms of docs/select.md: values one a line (or NUL-separated), XML,
 * counts per path, CSV rows, JSON Lines (strings or objects). */
#include "cli.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct select_cli {
    stax_cli_out *out; /* NULL: a part's select (-j), which keeps its output in part */
    const stax_cli_select_opts *so;
    stax_select *s;
    uint64_t done;     /* matches written */
    char *row;         /* CSV: the row so far, then the column being read (a field is
                          quoted only if it must be: known once it is whole) */
    size_t rlen, fstart, rcap, rmax;
    unsigned fquote;   /* the column since fstart has a byte that makes it quoted */
    unsigned jopen;    /* --json: what is open, SELECT_JSON_* (none: between values) */
    char *keys;        /* --json=COLUMNS: what goes before column k's value, keys[key_at[k],
                          key_at[k + 1]): '{' or ',', the key, ':' (the serial select's, which
                          the parts' share) */
    size_t *key_at;
    int status;        /* the select's error */
    stax_pos where;    /* the event it happened at */
    int interactive;   /* out is a terminal: each match goes out when it ends */
    uint64_t skip;     /* -j, read again on one thread: the bytes written already, not again */
    /* -j: a part's select keeps its output in part (out is NULL), and with
     * --first the length of it after each match (ends) */
    char *part;
    size_t plen, pcap;
    size_t *ends;
    size_t nends, ends_cap;
    int oom;           /* part or ends could not grow */
    int real_start;    /* the part's select started from the real state, not the guess */
    uint64_t *count_base; /* the counts its select had when it took it over */
    size_t olen;       /* output waiting in obuf (one fwrite per buffer, not per value) */
    char obuf[1 << 15];
} select_cli;

/* Room for n more bytes of a part's output: 0, or 1 (oom). */
static int select_part_grow(select_cli *c, size_t n) {
    if (c->pcap - c->plen >= n) return 0;
    size_t cap = c->pcap ? c->pcap : 1 << 16;
    while (cap - c->plen < n) {
        if (cap > SIZE_MAX / 2) return c->oom = 1;
        cap *= 2;
    }
    char *q = realloc(c->part, cap);
    if (!q) return c->oom = 1;
    c->part = q;
    c->pcap = cap;
    return 0;
}

static void select_out(select_cli *c, const void *p, size_t n) {
    if (!n) return;
    if (!c->out) {
        if (!select_part_grow(c, n)) {
            memcpy(c->part + c->plen, p, n);
            c->plen += n;
        }
        return;
    }
    stax_cli_write(c->out, p, n);
}

/* A write failed: the select stops (its output callback returns non-zero). */
static inline int select_failed(const select_cli *c) { return c->out && c->out->err; }

static void select_flush(select_cli *c) {
    if (c->olen) select_out(c, c->obuf, c->olen);
    c->olen = 0;
}

static void select_drain(void *c) { select_flush(c); }

static void select_write(select_cli *c, const void *p, size_t n) {
    if (c->skip) {
        size_t k = c->skip < n ? (size_t)c->skip : n;
        c->skip -= k;
        p = (const char *)p + k;
        n -= k;
    }
    if (n > sizeof c->obuf - c->olen) {
        select_flush(c);
        if (n >= sizeof c->obuf) {
            select_out(c, p, n);
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
    if (!c->out && c->so->first) { /* a part's: where its output after this match ends */
        if (c->nends == c->ends_cap) {
            size_t cap = c->ends_cap ? 2 * c->ends_cap : 64;
            size_t *e = cap < SIZE_MAX / sizeof *e ? realloc(c->ends, cap * sizeof *e) : NULL;
            if (!e) {
                c->oom = 1;
                return 1;
            }
            c->ends = e;
            c->ends_cap = cap;
        }
        c->ends[c->nends++] = c->plen + c->olen;
    }
    c->done++;
    return c->so->first && c->done >= c->so->first;
}

static int select_piece(void *ctx, const stax_select_piece *p) {
    select_cli *c = ctx;
    const stax_cli_select_opts *so = c->so;
    if (p->type == STAX_SELECT_VALUE && !so->count) select_write(c, p->value.ptr, p->value.len);
    if (p->type != STAX_SELECT_END) return select_failed(c);
    if (!so->count) select_write(c, so->nul ? "\0" : "\n", 1);
    return select_ended(c) || select_failed(c);
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
        return select_ended(c) || select_failed(c);
    }
    return select_failed(c);
too_long:
    c->status = STAX_E_LIMIT_HELD; /* the row's bound comes from --max-held */
    return 1;
}

/* --header=NAMES: 0 when they are one per column, else 1 (with the message). */
static int select_header_names_check(const select_cli *c) {
    const char *names = c->so->header_names;
    size_t n = stax_select_columns(c->s), given = 1;
    for (const char *p = names; p && *p; p++) given += *p == ',';
    if (!names || given == n) return 0;
    fprintf(stderr, "stax: select: --header gives %zu name%s for %zu column%s\n", given, given == 1 ? "" : "s", n,
            n == 1 ? "" : "s");
    return 1;
}

/* The name of column k: its path as written in the columns, or the k-th of
 * the --header NAMES (by commas; select_header_names_check passed). */
static stax_str select_column_name(const select_cli *c, size_t k) {
    const char *names = c->so->header_names;
    if (!names) return stax_select_column_text(c->s, k);
    for (; k; k--) names = strchr(names, ',') + 1;
    const char *end = strchr(names, ',');
    stax_str name = {names, end ? (size_t)(end - names) : strlen(names)};
    return name;
}

/* --header: the first row, the names of the columns (as written in --csv,
 * or given by commas), quoted as fields are: the pieces of a record, through
 * select_csv_piece (whose END counts a row: not this one). 1 (with the
 * message) when the names given are not one per column. */
static int select_csv_header(select_cli *c) {
    if (select_header_names_check(c)) return 1;
    size_t n = stax_select_columns(c->s);
    stax_select_piece pc;
    memset(&pc, 0, sizeof pc);
    for (size_t k = 0; k < n; k++) {
        pc.value = select_column_name(c, k);
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

/* ---------------------------------------------------------------- --json
 *
 * JSON Lines (RFC 8259 texts, one a line): a match's value is a string,
 * escaped as it streams; a record is an object, whose values are strings
 * or, with --arrays, arrays of strings. With --arrays the select joins the
 * matches of a column with a NUL byte, which no XML value holds (not even
 * as a character reference): each one ends a string of the array. */

enum { SELECT_JSON_STRING = 1, SELECT_JSON_ARRAY = 2 /* an array, no string open in it */, SELECT_JSON_ARRAY_STRING = 3 };

/* What a byte of a value is in a JSON string: 0 itself, else the character
 * after the backslash ('u': \u00XX). RFC 8259 asks for '"', '\\' and the
 * control characters U+0000..U+001F; the rest is UTF-8 as it is. */
static const unsigned char select_json_escape[256] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
    ['"'] = '"', ['\\'] = '\\'};

/* The escape of byte b (select_json_escape[b] not 0) into out: its length. */
static size_t select_json_escape_of(unsigned char b, char out[6]) {
    static const char hex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = (char)select_json_escape[b];
    if (out[1] != 'u') return 2;
    memcpy(out + 2, "00", 2);
    out[4] = hex[b >> 4];
    out[5] = hex[b & 15];
    return 6;
}

/* Whether one of the eight bytes of x may be escaped: a control character,
 * '"' or '\\' sets its high bit in one of the three differences (a borrow
 * may set that of a byte after it too: the table decides). A byte from 0x80
 * has its own set in x. */
static inline int select_json_word_special(uint64_t x) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t d = (x - ones * 0x20) | ((x ^ ones * '"') - ones) | ((x ^ ones * '\\') - ones);
    return (d & ~x & high) != 0;
}

/* The next bytes of a value, into the string (or array) open: eight bytes
 * at a time, the table only for a word that may hold a byte to escape. */
static void select_json_put(select_cli *c, const char *p, size_t n) {
    const unsigned char *u = (const unsigned char *)p;
    if (n && c->jopen == SELECT_JSON_ARRAY && u[0]) {
        select_write(c, "\"", 1);
        c->jopen = SELECT_JSON_ARRAY_STRING;
    }
    size_t from = 0;
    for (size_t i = 0; i < n;) {
        if (n - i >= 8) {
            uint64_t x;
            memcpy(&x, u + i, 8);
            if (!select_json_word_special(x)) {
                i += 8;
                continue;
            }
        }
        for (size_t end = n - i >= 8 ? i + 8 : n; i < end; i++) {
            if (!select_json_escape[u[i]]) continue;
            if (i > from) select_write(c, p + from, i - from);
            from = i + 1;
            if (!u[i] && c->jopen >= SELECT_JSON_ARRAY) { /* a match of the column ends, the next begins */
                if (c->jopen == SELECT_JSON_ARRAY) select_write(c, "\"\",\"", 4);
                else select_write(c, "\",\"", 3);
                c->jopen = SELECT_JSON_ARRAY_STRING;
                continue;
            }
            char esc[6];
            select_write(c, esc, select_json_escape_of(u[i], esc));
        }
    }
    if (n > from) select_write(c, p + from, n - from);
}

/* The string or array open ends. */
static void select_json_close(select_cli *c) {
    static const char *const end[] = {"", "\"", "]", "\"]"};
    select_write(c, end[c->jopen], strlen(end[c->jopen]));
    c->jopen = 0;
}

/* --json: a line per match, a string or (records) an object. */
static int select_json_piece(void *ctx, const stax_select_piece *p) {
    select_cli *c = ctx;
    if (p->type == STAX_SELECT_VALUE) {
        if (!c->jopen) {
            select_write(c, "\"", 1);
            c->jopen = SELECT_JSON_STRING;
        }
        select_json_put(c, p->value.ptr, p->value.len);
    } else if (p->type == STAX_SELECT_COLUMN) {
        select_json_close(c);
        size_t k = p->column;
        select_write(c, c->keys + c->key_at[k], c->key_at[k + 1] - c->key_at[k]);
        select_write(c, c->so->arrays ? "[" : "\"", 1);
        c->jopen = c->so->arrays ? SELECT_JSON_ARRAY : SELECT_JSON_STRING;
    } else if (p->type == STAX_SELECT_END) {
        if (!c->keys && !c->jopen) select_write(c, "\"\"\n", 3); /* an empty value */
        else {
            select_json_close(c);
            select_write(c, c->keys ? "}\n" : "\n", c->keys ? 2 : 1);
        }
        return select_ended(c) || select_failed(c);
    }
    return select_failed(c);
}

/* Whether p[0, n) is UTF-8 (shortest forms, no surrogate, at most U+10FFFF). */
static int select_utf8_ok(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned b = p[i], len = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
        if (!len || len > n - i) return 0;
        for (unsigned k = 1; k < len; k++)
            if ((p[i + k] & 0xc0) != 0x80) return 0;
        if (len == 3 && ((b == 0xe0 && p[i + 1] < 0xa0) || (b == 0xed && p[i + 1] >= 0xa0))) return 0;
        if (len == 4 && ((b == 0xf0 && p[i + 1] < 0x90) || (b == 0xf4 && p[i + 1] >= 0x90))) return 0;
        i += len;
    }
    return 1;
}

/* --json=COLUMNS: c->keys and c->key_at, for each column '{' (the first) or
 * ',', its name as a JSON string, ':'. 1 (with the message) when the names
 * are not one per column, a name is not UTF-8 or is given twice (an object
 * has each key once), or memory is short. */
static int select_json_keys(select_cli *c) {
    if (select_header_names_check(c)) return 1;
    size_t n = stax_select_columns(c->s), len = 0;
    for (size_t k = 0; k < n; k++) {
        stax_str name = select_column_name(c, k);
        const unsigned char *u = (const unsigned char *)name.ptr;
        const char *given = c->so->header_names ? "the --header name" : "the column";
        if (!select_utf8_ok(u, name.len)) {
            fprintf(stderr, "stax: select: --json: %s '%.*s' is not UTF-8\n", given, (int)name.len, name.ptr);
            return 1;
        }
        for (size_t j = 0; j < k; j++) {
            stax_str other = select_column_name(c, j);
            if (other.len == name.len && !memcmp(other.ptr, name.ptr, name.len)) {
                fprintf(stderr, "stax: select: --json: %s '%.*s' is a key twice%s\n", given, (int)name.len, name.ptr,
                        c->so->header_names ? "" : " (name the columns with --header=NAMES)");
                return 1;
            }
        }
        for (size_t i = 0; i < name.len; i++) len += select_json_escape[u[i]] == 'u' ? 6 : select_json_escape[u[i]] ? 2 : 1;
        len += 4; /* '{' or ',', two quotes, ':' */
    }
    char *keys = malloc(len);
    size_t *at = malloc((n + 1) * sizeof *at);
    if (!keys || !at) {
        free(keys);
        free(at);
        fprintf(stderr, "stax: select: out of memory\n");
        return 1;
    }
    len = 0;
    for (size_t k = 0; k < n; k++) {
        stax_str name = select_column_name(c, k);
        at[k] = len;
        keys[len++] = k ? ',' : '{';
        keys[len++] = '"';
        for (size_t i = 0; i < name.len; i++) {
            unsigned char b = (unsigned char)name.ptr[i];
            if (select_json_escape[b]) len += select_json_escape_of(b, keys + len);
            else keys[len++] = (char)b;
        }
        keys[len++] = '"';
        keys[len++] = ':';
    }
    at[n] = len;
    c->keys = keys;
    c->key_at = at;
    return 0;
}

/* The output callback of so's form. */
static stax_select_fn select_output(const stax_cli_select_opts *so) {
    return so->csv ? select_csv_piece : so->json ? select_json_piece : select_piece;
}

static int select_batch(void *ctx, stax_reader *r, const stax_batch *b) {
    (void)r;
    select_cli *c = ctx;
    int st = stax_select_batch(c->s, b);
    if (st == STAX_OK) return 0;
    if (st == STAX_END && c->status == STAX_OK) return select_failed(c) ? 2 : STAX_CLI_STOP; /* a write failed; --first N */
    if (c->status == STAX_OK) c->status = st;
    c->where = stax_ev_pos(b, stax_select_event_index(c->s));
    return 2; /* an error of the select: a limit, memory */
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

/* ---------------------------------------------------------------- -j
 *
 * Each part has its own select, started from the matching state the select
 * of part 0 ended with (at the first cut), its output kept in memory. In
 * document order (done), a part's output is written and the state its
 * select ended with is compared with that guess: when they differ (a match
 * open across the cut, a [n] or an attribute test of an element open at the
 * cut that came out otherwise, namespace declarations of XML values), the
 * next part's output would not be the serial one, and the document is read
 * again on one thread, skipping the output written. A select error in a part
 * does the same, so every message and limit is the serial one. */

typedef struct select_par {
    select_cli *main;           /* the serial select: the output, the counts */
    const stax_select_options *opt; /* the parts' (a quarter of the held and state limits) */
    stax_str path, columns;
    select_cli *slots;
    size_t nslots;
    pthread_mutex_t mu;
    int mu_ok;
    pthread_t caller;           /* the thread done runs on */
    int guess_state;            /* 0: not taken yet; 1: guess; -1: none could be saved */
    unsigned char *guess, *end; /* end: the state the select of the last part done ended with */
    size_t guess_len, end_len, end_cap;
    int next_right;             /* the part after the last one done starts from the guess */
    size_t real_for;            /* end holds the real start state of this part (0: none yet) */
    size_t takeover_for, taken_by; /* no state could be saved after the part before this one
                                      (a match open across the cut): its select goes on */
    int serial;                 /* the document was read again on one thread */
    uint64_t written, matches;  /* by done: bytes and matches */
    uint64_t *counts;
} select_par;

/* The state of s into *buf (grown): its length, or 0 when it cannot be
 * saved. Its capacities are set to 0 (a new select's): a part's select
 * starts with buffers of its own, and two states compare by what they
 * match alone. */
static size_t select_par_save(const stax_select *s, unsigned char **buf, size_t *cap) {
    size_t n = 0;
    int st = stax_select_save(s, *buf, *cap, &n);
    if (st == STAX_E_FULL || (st == STAX_OK && n > *cap)) {
        unsigned char *q = realloc(*buf, n);
        if (!q) return 0;
        *buf = q;
        *cap = n;
        st = stax_select_save(s, *buf, *cap, &n);
    }
    if (st != STAX_OK || n < STAX_SELECT_STATE_TAIL) return 0;
    memset(*buf + n - STAX_SELECT_STATE_TAIL, 0, STAX_SELECT_STATE_TAIL);
    return n;
}

static int select_par_setup(void *ud, size_t slots) {
    select_par *P = ud;
    P->slots = calloc(slots, sizeof *P->slots);
    P->counts = calloc(stax_select_paths(P->main->s) + 1, sizeof *P->counts);
    if (!P->slots || !P->counts || pthread_mutex_init(&P->mu, NULL) != 0) return 1;
    P->mu_ok = 1;
    P->caller = pthread_self();
    P->nslots = slots;
    for (size_t k = 0; k < slots; k++) {
        select_cli *q = &P->slots[k];
        q->so = P->main->so;
        q->rmax = P->main->rmax;
        q->keys = P->main->keys;
        q->key_at = P->main->key_at;
        q->count_base = calloc(stax_select_paths(P->main->s) + 1, sizeof *q->count_base);
        if (!q->count_base) return 1;
        q->s = stax_select_new(P->opt);
        if (!q->s || stax_select_compile(q->s, P->path, P->columns) != STAX_OK ||
            stax_select_set_output(q->s, select_output(q->so), q) != STAX_OK)
            return 1;
    }
    return 0;
}

static void select_par_free(select_par *P) {
    for (size_t k = 0; P->slots && k < P->nslots; k++) {
        stax_select_free(P->slots[k].s);
        free(P->slots[k].part);
        free(P->slots[k].ends);
        free(P->slots[k].row);
        free(P->slots[k].count_base);
    }
    free(P->slots);
    free(P->counts);
    free(P->guess);
    free(P->end);
    if (P->mu_ok) pthread_mutex_destroy(&P->mu);
}

/* The guess, taken once: the state part 0's select ended with (read by the
 * first part after it, or by part 0's done, whichever comes first; that
 * select takes no event until its slot's next part). 1 when there is one. */
static int select_par_guess(select_par *P) {
    pthread_mutex_lock(&P->mu);
    if (!P->guess_state) {
        size_t cap = 0;
        P->guess_len = select_par_save(P->slots[0].s, &P->guess, &cap);
        P->guess_state = P->guess_len ? 1 : -1;
    }
    int have = P->guess_state > 0;
    pthread_mutex_unlock(&P->mu);
    return have;
}

/* Part k read again after the done of part k - 1, whose select could not
 * save its state: that select goes on in part k's slot (with the CSV row it
 * was building), and part k's goes to slot k - 1 for its next part. */
static void select_par_take_over(select_cli *q, select_cli *f) {
    stax_select *s = q->s;
    q->s = f->s;
    f->s = s;
    stax_select_set_output(q->s, select_output(q->so), q);
    stax_select_set_output(f->s, select_output(f->so), f);
    char *row = q->row;
    size_t rcap = q->rcap;
    q->row = f->row;
    q->rcap = f->rcap;
    q->rlen = f->rlen;
    q->fstart = f->fstart;
    q->fquote = f->fquote;
    q->jopen = f->jopen;
    f->row = row;
    f->rcap = rcap;
    for (size_t k = 0; k < stax_select_paths(q->s); k++) q->count_base[k] = stax_select_count(q->s, k);
}

static int select_par_begin(void *ud, size_t part, size_t slot) {
    select_par *P = ud;
    select_cli *q = &P->slots[slot];
    q->plen = q->olen = q->rlen = q->fstart = q->nends = 0;
    q->fquote = q->jopen = 0;
    q->done = 0;
    q->status = STAX_OK;
    q->oom = 0;
    memset(q->count_base, 0, stax_select_paths(q->s) * sizeof *q->count_base);
    pthread_mutex_lock(&P->mu);
    /* only a read again, which runs on the calling thread: a worker's read
     * of the part, done after it, may be dropped (its reader's guess was
     * wrong), and the select it took would be gone */
    int take = part && P->takeover_for == part && pthread_equal(pthread_self(), P->caller);
    if (take) P->takeover_for = 0; /* once: a second read of the part has no state to start from */
    else if (part && P->taken_by == part) q->status = STAX_E_NOSAVE;
    if (take) {
        P->taken_by = part;
        select_par_take_over(q, &P->slots[(part - 1) % P->nslots]);
    }
    pthread_mutex_unlock(&P->mu);
    if (take || q->status != STAX_OK) {
        q->real_start = take;
        return 0;
    }
    if (part == 0) {
        stax_select_reset(q->s);
        return 0;
    }
    /* Read again (the reader's guess was wrong: after the done of the part
     * before): from the real state. Else from the guess; without one the
     * part selects nothing, and part 0's done gives up. */
    pthread_mutex_lock(&P->mu);
    q->real_start = P->real_for == part;
    int st = q->real_start ? stax_select_resume(q->s, P->end, P->end_len) : STAX_E_NOSAVE;
    pthread_mutex_unlock(&P->mu);
    if (q->real_start) {
        if (st != STAX_OK) q->status = STAX_E_NOSAVE;
        return 0;
    }
    if (!select_par_guess(P) || stax_select_resume(q->s, P->guess, P->guess_len) != STAX_OK) q->status = STAX_E_NOSAVE;
    return 0;
}

static int select_par_batch(void *ud, size_t part, size_t slot, const stax_batch *b) {
    (void)part;
    select_par *P = ud;
    select_cli *q = &P->slots[slot];
    if (q->status != STAX_OK) return 0; /* stopped, or nothing to select from */
    int rc = select_batch(q, NULL, b);
    if (rc == STAX_CLI_STOP) q->status = STAX_END; /* --first: the part has all it can give */
    return rc && rc != STAX_CLI_STOP ? STAX_CLI_SERIAL : 0;
}

static int select_par_done(void *ud, size_t part, size_t slot) {
    select_par *P = ud;
    select_cli *q = &P->slots[slot];
    const stax_cli_select_opts *so = P->main->so;
    select_flush(q);
    if ((part && !P->next_right && !q->real_start) || q->oom || (q->status != STAX_OK && q->status != STAX_END)) return STAX_CLI_SERIAL;
    size_t n = q->plen;
    int stop = so->first && P->matches + q->done >= so->first;
    if (stop) n = q->ends[so->first - P->matches - 1];
    if (n) select_write(P->main, q->part, n);
    if (P->main->interactive) select_flush(P->main);
    if (select_failed(P->main)) return 2;
    P->written += n;
    P->matches += q->done;
    for (size_t k = 0; k < stax_select_paths(q->s); k++) P->counts[k] += stax_select_count(q->s, k) - q->count_base[k];
    if (stop) return STAX_CLI_STOP;
    int have = select_par_guess(P);
    pthread_mutex_lock(&P->mu);
    size_t len = select_par_save(q->s, &P->end, &P->end_cap);
    P->end_len = len;
    P->real_for = len ? part + 1 : 0;
    P->takeover_for = !len && stax_select_status(q->s) == STAX_OK ? part + 1 : 0;
    P->next_right = len && have && len == P->guess_len && memcmp(P->end, P->guess, len) == 0;
    pthread_mutex_unlock(&P->mu);
    /* the next part's select started from a state that was not this one's
     * end: it is read again, from that end (or going on with this select) */
    return P->next_right ? 0 : STAX_CLI_AGAIN;
}

/* The serial read's batches (after -j gave up, the output written skipped). */
static int select_batch_serial(void *ctx, stax_reader *r, const stax_batch *b) {
    select_par *P = ctx;
    if (!P->serial) {
        P->serial = 1;
        P->main->skip = P->written;
    }
    return select_batch(P->main, r, b);
}

int stax_cmd_select(const stax_cli_opts *o, const stax_cli_select_opts *so, int fd, FILE *out) {
    const char *name = o->name ? o->name : "-";
    const char *columns = so->csv ? so->csv : so->json_columns; /* records */
    if ((so->count != 0) + (so->csv != NULL) + (so->json != 0) > 1) {
        fprintf(stderr, "stax: select: --count, --csv and --json exclude each other\n");
        return 2;
    }
    if (so->xml && (so->count || columns)) {
        fprintf(stderr, "stax: select: --xml, --count, --csv and --json=COLUMNS exclude each other\n");
        return 2;
    }
    if (columns && !*columns) {
        fprintf(stderr, "stax: select: %s needs a column at least ('.' for the record itself)\n",
                so->csv ? "--csv" : "--json=");
        return 2;
    }
    if (so->header && !columns) {
        fprintf(stderr, "stax: select: --header goes with --csv or --json=COLUMNS\n");
        return 2;
    }
    if (so->header && so->json && !so->header_names) {
        fprintf(stderr, "stax: select: --json=COLUMNS takes the column paths as keys: --header=NAMES names them\n");
        return 2;
    }
    if (so->join && !so->csv) {
        fprintf(stderr, "stax: select: --join goes with --csv%s\n",
                so->json_columns ? " (with --json=COLUMNS, --arrays gives a column's every match)" : "");
        return 2;
    }
    if (so->arrays && !so->json_columns) {
        fprintf(stderr, "stax: select: --arrays goes with --json=COLUMNS\n");
        return 2;
    }
    if (so->nul && so->json) {
        fprintf(stderr, "stax: select: -0 and --json exclude each other (a JSON line holds no newline)\n");
        return 2;
    }
    for (size_t k = 0; k < so->ns_count; k++) {
        const char *eq = strchr(so->ns[k], '=');
        if (!eq || eq == so->ns[k] || !eq[1]) {
            fprintf(stderr, "stax: select: -N takes prefix=URI, not '%s'\n", so->ns[k]);
            return 2;
        }
    }
    stax_cli_out w;
    stax_cli_out_init(&w, out);
    select_cli c;
    memset(&c, 0, sizeof c);
    c.out = &w;
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
    } else if (so->arrays) { /* the matches joined by NUL (select_json_put) */
        opt.flags |= STAX_SELECT_ALL_MATCHES;
        opt.join.ptr = "";
        opt.join.len = 1;
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
    int st = stax_select_compile(c.s, stax_strz(so->path), stax_strz(columns));
    if (st != STAX_OK) {
        fprintf(stderr, "stax: select: %s%s\n", stax_select_message(c.s),
                st == STAX_E_NAMESPACE ? " (bind it with -N prefix=URI)" : "");
        goto done;
    }
    if (so->csv && so->header && select_csv_header(&c)) goto done;
    if (so->json_columns && select_json_keys(&c)) goto done;
    stax_select_set_output(c.s, select_output(so), &c);
    select_par P;
    memset(&P, 0, sizeof P);
    P.main = &c;
    P.path = stax_strz(so->path);
    P.columns = stax_strz(columns);
    stax_select_options popt = eff; /* a part that needs more than a quarter gives up: the serial read's
                                       buffers, grown over the whole document, stay within the limits */
    popt.max_held = eff.max_held / 4 ? eff.max_held / 4 : 1;
    popt.max_state = eff.max_state / 4 ? eff.max_state / 4 : 1;
    popt.memory = NULL;
    popt.memory_size = 0;
    P.opt = &popt;
    stax_cli_parts parts = {&P, select_par_setup, select_par_begin, select_par_batch, select_par_done};
    w.drain = select_drain;
    w.drain_ud = &c;
    stax_cli_opts live = stax_cli_live(o, &w);
    rc = stax_cli_run_parts(&live, fd, select_batch_serial, &P, NULL, o->jobs && o->jobs != 1 ? &parts : NULL);
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
            stax_cli_printf(&w, "%llu\n", (unsigned long long)(P.nslots && !P.serial ? P.counts[p] : stax_select_count(c.s, p)));
    /* as grep: 0 something selected, 1 nothing, 2 an error (a document
     * that is not well-formed included) */
    if (rc == 1) rc = 2;
    if (rc == 0 && (P.nslots && !P.serial ? P.matches : c.done) == 0) rc = 1;
    select_par_free(&P);
done:
    stax_select_free(c.s);
    free(block);
    free(ns);
    free(c.row);
    free(c.keys);
    free(c.key_at);
    return stax_cli_out_end(o, &w, rc);
}
