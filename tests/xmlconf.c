/* The shared part of the W3C XML Conformance Test Suite runners (xmlconf.h):
 * the test list (read with the stax reader), the verdict rules, the report.
 * Each runner #includes this file, so that it links as one object. */
#include "xmlconf.h"

#include "stax.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LIST_PATH "/cleaned/xmlconf-flattened.xml"
/* The xml:base values of the flattened list are relative to the folder of the
 * original xmlconf/xmlconf.xml it was flattened from, not to cleaned/. */
#define TESTS_ROOT "/xmlconf/"

const char *const xc_type_names[XC_TYPE_COUNT] = {"valid", "invalid", "not-wf", "error"};
const char *const xc_skip_names[XC_SKIP_COUNT] = {"", "needs an external entity (not loaded)",
                                                  "an encoding this parser does not support"};

/* ------------------------------------------------------------------ helpers */

void *xc_malloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "conformance: out of memory\n");
        exit(2);
    }
    return p;
}

static void *xc_realloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "conformance: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xc_strndup(const char *s, size_t n) {
    char *p = xc_malloc(n + 1);
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xc_strdup(const char *s) { return xc_strndup(s, strlen(s)); }

static char *str_dup(stax_str s) { return xc_strndup(s.ptr, s.len); }

char *xc_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    char *p = xc_malloc((size_t)n + 1);
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
    char *out = xc_malloc(strlen(s) + 1), *o = out;
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

/* Resolve the relative reference rel against base (both paths relative to
 * the suite's xmlconf/ folder): RFC 3986 merge, then dot-segment removal. */
static char *resolve_path(const char *base, const char *rel) {
    if (rel[0] == '/' || strstr(rel, "://")) return xc_strdup(rel);
    const char *slash = strrchr(base, '/');
    size_t dl = slash ? (size_t)(slash - base) + 1 : 0;
    char *joined = xc_printf("%.*s%s", (int)dl, base, rel);
    /* Remove "." and "x/.." segments in place. */
    char *out = xc_malloc(strlen(joined) + 1);
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
    char *buf = xc_malloc(cap);
    for (;;) {
        if (n == cap) buf = xc_realloc(buf, cap *= 2);
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
            *found = 1;
            return stax_ev_attr_value(b, ev, k);
        }
    *found = 0;
    stax_str none = {NULL, 0};
    return none;
}

static char *attr_dup(const stax_batch *b, size_t ev, const char *name, const char *dflt) {
    int found;
    stax_str v = attr_of(b, ev, name, &found);
    if (!found) return dflt ? xc_strdup(dflt) : NULL;
    return str_dup(v);
}

typedef struct list_state {
    xc_suite *s;
    char **bases; /* xml:base in effect at each element depth */
    size_t depth, capdepth;
    size_t cur_set; /* the open top-level TESTCASES, or (size_t)-1 */
} list_state;

static void list_test(list_state *ls, const stax_batch *b, size_t i, const char *base) {
    xc_suite *s = ls->s;
    if (s->ntests == s->captests) {
        s->captests = s->captests ? s->captests * 2 : 1024;
        s->tests = xc_realloc(s->tests, s->captests * sizeof *s->tests);
    }
    xc_test *t = &s->tests[s->ntests++];
    memset(t, 0, sizeof *t);
    t->beside.verdict = -1;
    t->ext.verdict = -1;
    t->id = attr_dup(b, i, "ID", "(no ID)");
    t->uri = attr_dup(b, i, "URI", "");
    /* Defaults are those of the suite's testcases.dtd. */
    t->entities = attr_dup(b, i, "ENTITIES", "none");
    t->edition = attr_dup(b, i, "EDITION", NULL);
    t->version = attr_dup(b, i, "VERSION", NULL);
    t->recommendation = attr_dup(b, i, "RECOMMENDATION", "XML1.0");
    char *type = attr_dup(b, i, "TYPE", "");
    t->type = -1;
    for (int k = 0; k < XC_TYPE_COUNT; k++)
        if (!strcmp(type, xc_type_names[k])) t->type = k;
    free(type);
    t->path = resolve_path(base, t->uri); /* joined with the suite folder by the caller */
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
        base = xc_strdup(parent);
    }
    if (ls->depth == ls->capdepth) {
        ls->capdepth = ls->capdepth ? ls->capdepth * 2 : 16;
        ls->bases = xc_realloc(ls->bases, ls->capdepth * sizeof *ls->bases);
    }
    ls->bases[ls->depth++] = base;

    xc_suite *s = ls->s;
    if (stax_str_eq(name, "TESTCASES")) {
        char *profile = attr_dup(b, i, "PROFILE", NULL);
        if (ls->depth == 2) { /* directly under TESTSUITE: a test set */
            if (s->nsets == s->capsets) {
                s->capsets = s->capsets ? s->capsets * 2 : 16;
                s->sets = xc_realloc(s->sets, s->capsets * sizeof *s->sets);
            }
            s->sets[s->nsets].base = xc_strdup(base);
            s->sets[s->nsets].profile = profile ? collapse_ws(profile) : NULL;
            ls->cur_set = s->nsets++;
        } else if (ls->cur_set != (size_t)-1 && !s->sets[ls->cur_set].profile && profile) {
            s->sets[ls->cur_set].profile = collapse_ws(profile);
        }
        free(profile);
    } else if (stax_str_eq(name, "TEST")) {
        list_test(ls, b, i, base);
    }
}

static void list_end(list_state *ls) {
    if (!ls->depth) return;
    free(ls->bases[--ls->depth]);
    if (ls->depth == 1) ls->cur_set = (size_t)-1;
}

/* Read the flattened list with stax. Returns 0, or -1 (message printed). */
static int load_list(const char *dir, xc_suite *s) {
    char *path = xc_printf("%s%s", dir, LIST_PATH);
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
        fprintf(stderr, "conformance: %s:%llu:%llu: %s\n", path, (unsigned long long)p.line,
                (unsigned long long)p.column, stax_reader_message(r));
        rc = -1;
    }
    while (ls.depth) list_end(&ls);
    free(ls.bases);
    stax_reader_free(r);
    fclose(f);
    free(path);
    return rc;
}

static void free_suite(xc_suite *s) {
    for (size_t i = 0; i < s->nsets; i++) {
        free(s->sets[i].base);
        free(s->sets[i].profile);
    }
    for (size_t i = 0; i < s->ntests; i++) {
        xc_test *t = &s->tests[i];
        free(t->id);
        free(t->uri);
        free(t->path);
        free(t->output_path);
        free(t->entities);
        free(t->edition);
        free(t->version);
        free(t->recommendation);
        free(t->own.detail);
        free(t->ext.detail);
    }
    free(s->sets);
    free(s->tests);
}

/* ------------------------------------------------------------------ verdicts */

void xc_set_result(xc_test *t, int verdict, int skip, char *detail) {
    t->own.verdict = verdict;
    t->own.skip = skip;
    t->own.hard = 0;
    free(t->own.detail);
    t->own.detail = detail;
}

void xc_set_hard_failure(xc_test *t, char *detail) {
    xc_set_result(t, XC_FAIL, XC_SKIP_NONE, detail);
    t->own.hard = 1;
}

static size_t find(const char *p, size_t n, size_t from, const char *what) {
    size_t wl = strlen(what);
    for (size_t i = from; i + wl <= n; i++)
        if (memcmp(p + i, what, wl) == 0) return i + wl;
    return n;
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
    return xc_printf("canon output differs at byte %zu: got \"%.*s\", expected \"%.*s\"", i, (int)gn, g, (int)wn, w);
}

void xc_judge(const xc_opts *o, xc_test *t, const char *doc, size_t len, const xc_parse *p) {
    t->own.accepted = p->accepted;
    /* An `error` test may be rejected, for an unsupported encoding too: that
     * is what the type allows (most are in encodings no processor must know). */
    if (p->unsupported && t->type != XC_ERROR) {
        if (not_utf8(doc, len)) xc_set_result(t, XC_SKIP, XC_SKIP_ENCODING, xc_strdup(p->what));
        else xc_set_result(t, XC_FAIL, XC_SKIP_NONE, xc_printf("%s (but by Appendix F the document is UTF-8)", p->what));
        return;
    }
    if (p->trouble) {
        xc_set_hard_failure(t, xc_strdup(p->what));
        return;
    }
    /* Without external entities read, the only documents whose verdict or
     * output a parser cannot reach are those that need one (the list says so
     * with ENTITIES other than "none"). */
    int external = strcmp(t->entities, "none") != 0 && !p->resolved;
    if (t->type == XC_NOT_WF) {
        if (!p->accepted) xc_set_result(t, XC_PASS, XC_SKIP_NONE, xc_strdup(p->what));
        else if (external)
            xc_set_result(t, XC_SKIP, XC_SKIP_EXTERNAL, xc_printf("accepted; ENTITIES=\"%s\" not loaded", t->entities));
        else xc_set_result(t, XC_FAIL, XC_SKIP_NONE, xc_strdup("accepted (expected a well-formedness error)"));
        return;
    }
    if (!p->accepted) {
        /* Rejecting a valid or invalid document is always a failure; an
         * `error` test may go either way. */
        xc_set_result(t, t->type == XC_ERROR ? XC_PASS : XC_FAIL, XC_SKIP_NONE, xc_strdup(p->what));
        return;
    }
    if (!t->output_path || !p->canon) {
        xc_set_result(t, XC_PASS, XC_SKIP_NONE, xc_strdup("accepted"));
        return;
    }
    char *opath = xc_printf("%s%s%s", o->dir, TESTS_ROOT, t->output_path);
    size_t wlen;
    char *want = read_file(opath, &wlen);
    if (!want) {
        xc_set_hard_failure(t, xc_printf("cannot read the output file %s: %s", opath, strerror(errno)));
    } else if (wlen == p->canon_len && (!wlen || !memcmp(want, p->canon, wlen))) {
        xc_set_result(t, XC_PASS, XC_SKIP_NONE, xc_strdup("accepted, canon output matches"));
    } else {
        char *d = describe_diff(p->canon, p->canon_len, want, wlen);
        if (external) {
            xc_set_result(t, XC_SKIP, XC_SKIP_EXTERNAL, xc_printf("%s; ENTITIES=\"%s\" not loaded", d, t->entities));
            free(d);
        } else {
            xc_set_result(t, XC_FAIL, XC_SKIP_NONE, d);
        }
    }
    free(want);
    free(opath);
}

/* Pre-5th-edition tests are reported apart: not doing what the old edition
 * expects is noted ("differs"), never a failure, since the 5th edition
 * overrules it. A hard failure (chunk dependence...) stays a failure. */
static void settle_pre5(xc_test *t) {
    if (!t->pre5 || t->own.verdict != XC_FAIL || t->own.hard) return;
    t->own.verdict = XC_PASS;
    t->own.pre5_differs = 1;
}

static void run_one(const xc_opts *o, const xc_runner *runner, xc_test *t) {
    if (t->xml11) {
        xc_set_result(t, XC_NOT_RUN, XC_SKIP_NONE, xc_strdup("XML 1.1"));
        return;
    }
    if (t->type < 0) {
        xc_set_hard_failure(t, xc_strdup("unknown TYPE in the test list"));
        return;
    }
    char *path = xc_printf("%s%s%s", o->dir, TESTS_ROOT, t->path);
    size_t len;
    char *doc = read_file(path, &len);
    if (!doc) xc_set_hard_failure(t, xc_printf("cannot read %s: %s", path, strerror(errno)));
    else runner->run(o, t, path, doc, len);
    settle_pre5(t);
    if (doc && runner->run_external && strcmp(t->entities, "none") != 0) {
        /* judged like the others, into t->own for the while */
        xc_outcome main = t->own;
        memset(&t->own, 0, sizeof t->own);
        runner->run_external(o, t, path, doc, len);
        settle_pre5(t);
        t->ext = t->own;
        t->own = main;
    }
    free(doc);
    free(path);
}

/* ------------------------------------------------------------------ verdict files */

/* One line per test run: ID, verdict, skip reason, accepted, pre-5th "differs". */
static int write_verdicts(const char *file, const xc_suite *s, const xc_opts *o, const char *name) {
    FILE *f = fopen(file, "w");
    if (!f) {
        fprintf(stderr, "conformance: %s: %s\n", file, strerror(errno));
        return -1;
    }
    fprintf(f, "# xmlconf verdicts\t%s\n", name);
    for (size_t i = 0; i < s->ntests; i++) {
        const xc_test *t = &s->tests[i];
        if (o->only && strcmp(o->only, t->id)) continue;
        fprintf(f, "%s\t%d\t%d\t%d\t%d\n", t->id, t->own.verdict, t->own.skip, t->own.accepted, t->own.pre5_differs);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "conformance: cannot write %s\n", file);
        return -1;
    }
    return 0;
}

/* Read another runner's verdicts into the tests' beside outcome; *name gets
 * that runner's name. Returns 0, or -1 (message printed). */
static int read_verdicts(const char *file, xc_suite *s, char **name) {
    size_t len;
    char *text = read_file(file, &len);
    if (!text) {
        fprintf(stderr, "conformance: %s: %s\n", file, strerror(errno));
        return -1;
    }
    char *buf = xc_strndup(text, len);
    free(text);
    const char *head = "# xmlconf verdicts\t";
    if (strncmp(buf, head, strlen(head)) != 0) {
        fprintf(stderr, "conformance: %s: not a --verdicts file\n", file);
        free(buf);
        return -1;
    }
    char *line = buf + strlen(head), *next;
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    *name = xc_strdup(line);
    size_t hint = 0;
    for (line = next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = '\0';
        int v, sk, acc, d5;
        if (sscanf(tab + 1, "%d\t%d\t%d\t%d", &v, &sk, &acc, &d5) != 4) continue;
        /* The files list the tests in suite order: look from the last hit on. */
        for (size_t k = 0; k < s->ntests; k++) {
            xc_test *t = &s->tests[(hint + k) % s->ntests];
            if (strcmp(t->id, line)) continue;
            t->beside.verdict = v;
            t->beside.skip = sk >= 0 && sk < XC_SKIP_COUNT ? sk : XC_SKIP_NONE;
            t->beside.accepted = acc;
            t->beside.pre5_differs = d5;
            hint = (hint + k + 1) % s->ntests;
            break;
        }
    }
    free(buf);
    return 0;
}

/* ------------------------------------------------------------------ report */

typedef struct tally {
    unsigned pass, fail, skip, pre5, xml11, accepted, rejected;
} tally;

/* The tables: the XML 1.0 tests (namespaces off), the namespace tests, and
 * the tests with ENTITIES other than "none" run again with their external
 * entities read (by the runners that do it). */
enum { GROUP_XML, GROUP_NS, GROUP_EXT, GROUP_COUNT };
static const char *const group_titles[GROUP_COUNT] = {
    "XML 1.0, namespaces off", "Namespaces 1.0 (eduni/namespaces), namespaces on",
    "External entities read (the tests whose ENTITIES is not \"none\", again, with stax's --external resolver)"};

/* The outcome a table shows for runner k (0: this one, 1: the --beside one). */
static const xc_outcome *outcome_of(const xc_test *t, int group, int k) {
    static const xc_outcome none = {-1, 0, 0, 0, 0, NULL};
    if (group == GROUP_EXT) return k ? &none : &t->ext;
    return k ? &t->beside : &t->own;
}

static int in_group(const xc_test *t, int group) {
    if (group == GROUP_EXT) return t->ext.verdict >= 0;
    return t->namespaces == (group == GROUP_NS);
}

static int selected(const xc_test *t, const xc_opts *o) { return !o->only || !strcmp(o->only, t->id); }

static int in_pre5_list(const xc_test *t, const xc_outcome *r) {
    return t->pre5 && r->verdict != XC_NOT_RUN && r->verdict != XC_FAIL;
}

static void count_into(tally *c, const xc_test *t, const xc_outcome *r) {
    if (r->verdict < 0) return;
    if (r->verdict == XC_NOT_RUN) {
        c->xml11++;
        return;
    }
    if (in_pre5_list(t, r)) {
        c->pre5++;
        return;
    }
    if (r->verdict == XC_PASS) c->pass++;
    else if (r->verdict == XC_FAIL) c->fail++;
    else c->skip++;
    if (t->type == XC_ERROR && r->verdict == XC_PASS) {
        if (r->accepted) c->accepted++;
        else c->rejected++;
    }
}

static const char *set_label(const xc_suite *s, size_t i) {
    return s->sets[i].profile ? s->sets[i].profile : s->sets[i].base;
}

typedef struct report {
    const char *name, *beside; /* beside: NULL without --beside */
} report;

/* Pass, fail and skip of runner k (0: this one, 1: the --beside one). */
static void print_cells(FILE *f, int md, int k, const tally *c) {
    if (md) fprintf(f, " %u | %u | %u |", c->pass, c->fail, c->skip);
    else fprintf(f, "%s %6u %6u %6u", k ? " |" : "", c->pass, c->fail, c->skip);
}

static void print_group(FILE *f, const xc_suite *s, const xc_opts *o, const report *rp, int group, int md) {
    tally by_type[XC_TYPE_COUNT][2], total[2];
    memset(by_type, 0, sizeof by_type);
    memset(total, 0, sizeof total);
    tally(*by_set)[2] = xc_malloc((s->nsets + 1) * sizeof *by_set);
    memset(by_set, 0, (s->nsets + 1) * sizeof *by_set);
    unsigned in_set[2] = {0};
    size_t *present = xc_malloc((s->nsets + 1) * sizeof *present);
    memset(present, 0, (s->nsets + 1) * sizeof *present);
    for (size_t i = 0; i < s->ntests; i++) {
        const xc_test *t = &s->tests[i];
        if (!selected(t, o) || !in_group(t, group)) continue;
        size_t set = t->set < s->nsets ? t->set : s->nsets;
        present[set]++;
        for (int k = 0; k < 2; k++) {
            const xc_outcome *r = outcome_of(t, group, k);
            if (t->type >= 0 && r->verdict >= 0 && r->verdict != XC_NOT_RUN && !in_pre5_list(t, r))
                count_into(&by_type[t->type][k], t, r);
            count_into(&total[k], t, r);
            count_into(&by_set[set][k], t, r);
            in_set[k]++;
        }
    }
    int cols = rp->beside && group != GROUP_EXT ? 2 : 1;
    const char *names[2] = {rp->name, rp->beside};
    if (group == GROUP_EXT && !in_set[0]) {
        free(present);
        free(by_set);
        return; /* a runner that does not read external entities */
    }
    if (md) {
        fprintf(f, "**%s**\n\n| type |", group_titles[group]);
        for (int k = 0; k < cols; k++) fprintf(f, " %s pass | fail | skip |", names[k]);
        fprintf(f, " note |\n| --- |");
        for (int k = 0; k < cols; k++) fprintf(f, " ---: | ---: | ---: |");
        fprintf(f, " --- |\n");
    } else {
        fprintf(f, "%s\n%-10s", group_titles[group], "type");
        for (int k = 0; k < cols; k++) fprintf(f, "%s %6s %6s %6s", k ? " |" : "", "pass", "fail", "skip");
        if (cols == 2) fprintf(f, "   (%s | %s)", rp->name, rp->beside);
        fprintf(f, "\n");
    }
    for (int ty = 0; ty < XC_TYPE_COUNT; ty++) {
        char note[160] = "";
        if (ty == XC_ERROR) {
            int n = snprintf(note, sizeof note, "either result allowed: %s%s%u accepted, %u rejected",
                             cols == 2 ? rp->name : "", cols == 2 ? " " : "", by_type[ty][0].accepted,
                             by_type[ty][0].rejected);
            if (cols == 2 && n > 0 && (size_t)n < sizeof note)
                snprintf(note + n, sizeof note - (size_t)n, "; %s %u accepted, %u rejected", rp->beside,
                         by_type[ty][1].accepted, by_type[ty][1].rejected);
        }
        if (md) fprintf(f, "| %s |", xc_type_names[ty]);
        else fprintf(f, "%-10s", xc_type_names[ty]);
        for (int k = 0; k < cols; k++) print_cells(f, md, k, &by_type[ty][k]);
        if (md) fprintf(f, " %s |\n", note);
        else fprintf(f, "%s%s\n", *note ? "   " : "", note);
    }
    if (md) {
        fprintf(f, "| **all** |");
        for (int k = 0; k < cols; k++)
            fprintf(f, " **%u** | **%u** | **%u** |", total[k].pass, total[k].fail, total[k].skip);
        fprintf(f, " |\n\n");
    } else {
        fprintf(f, "%-10s", "all");
        for (int k = 0; k < cols; k++) print_cells(f, md, k, &total[k]);
        fprintf(f, "\n\n");
    }

    if (md) {
        fprintf(f, "| test set | xml:base |");
        for (int k = 0; k < cols; k++) fprintf(f, " %s pass | fail | skip | pre-5th |", names[k]);
        fprintf(f, " XML 1.1 |\n| --- | --- |");
        for (int k = 0; k < cols; k++) fprintf(f, " ---: | ---: | ---: | ---: |");
        fprintf(f, " ---: |\n");
    } else {
        fprintf(f, "%-28s", "test set (xml:base)");
        for (int k = 0; k < cols; k++) fprintf(f, "%s %6s %6s %6s %7s", k ? " |" : "", "pass", "fail", "skip", "pre-5th");
        fprintf(f, " %7s   %s\n", "XML 1.1", "profile");
    }
    for (size_t i = 0; i <= s->nsets; i++) {
        if (!present[i]) continue;
        const char *base = i < s->nsets ? s->sets[i].base : "(outside any set)";
        const char *label = i < s->nsets ? set_label(s, i) : "";
        if (md) fprintf(f, "| %s | `%s` |", label, base);
        else fprintf(f, "%-28s", base);
        for (int k = 0; k < cols; k++) {
            print_cells(f, md, k, &by_set[i][k]);
            if (md) fprintf(f, " %u |", by_set[i][k].pre5);
            else fprintf(f, " %7u", by_set[i][k].pre5);
        }
        if (md) fprintf(f, " %u |\n", by_set[i][0].xml11);
        else fprintf(f, " %7u   %s\n", by_set[i][0].xml11, label);
    }
    fprintf(f, "\n");
    free(present);
    free(by_set);
}

/* XML 1.0 tests that need no external entity (ENTITIES="none"), outside the
 * namespace sets and not of an older edition: what both parsers can fully do. */
static int standalone_xml10(const xc_test *t) {
    return !t->xml11 && !t->namespaces && !t->pre5 && t->type >= 0 && !strcmp(t->entities, "none");
}

static void print_summary(FILE *f, const xc_suite *s, const xc_opts *o, const report *rp, int md) {
    int cols = rp->beside ? 2 : 1;
    const char *names[2] = {rp->name, rp->beside};
    const char *bullet = md ? "- " : "";
    for (int k = 0; k < cols; k++) {
        unsigned xml11 = 0, run5 = 0, differ5 = 0, skip5 = 0, skips[XC_SKIP_COUNT] = {0}, fails = 0;
        unsigned sa = 0, sa_pass = 0;
        for (size_t i = 0; i < s->ntests; i++) {
            const xc_test *t = &s->tests[i];
            const xc_outcome *r = k ? &t->beside : &t->own;
            if (!selected(t, o) || r->verdict < 0) continue;
            if (r->verdict == XC_NOT_RUN) xml11++;
            if (in_pre5_list(t, r)) {
                run5++;
                if (r->pre5_differs) differ5++;
                else if (r->verdict == XC_SKIP) skip5++;
            } else if (r->verdict == XC_SKIP) {
                skips[r->skip]++;
            } else if (r->verdict == XC_FAIL) {
                fails++;
            }
            if (standalone_xml10(t)) {
                sa++;
                sa_pass += r->verdict == XC_PASS;
            }
        }
        if (cols == 2) fprintf(f, "%s%s%s:%s\n", md ? "\n" : "", md ? "**" : "", names[k], md ? "**\n" : "");
        fprintf(f, "%snot run: XML 1.1: %u\n", bullet, xml11);
        fprintf(f,
                "%spre-5th-edition tests (EDITION without 5; reported apart, the 5th edition overrules them): %u run, "
                "%u as the old edition expects, %u differ, %u skipped\n",
                bullet, run5, run5 - differ5 - skip5, differ5, skip5);
        for (int r = 1; r < XC_SKIP_COUNT; r++) fprintf(f, "%sskipped, %s: %u\n", bullet, xc_skip_names[r], skips[r]);
        fprintf(f, "%sfailures: %u\n", bullet, fails);
        fprintf(f, "%sXML 1.0 tests that need no external entity (ENTITIES=\"none\", outside the namespace sets, "
                   "5th edition): %u, passed: %u\n",
                bullet, sa, sa_pass);
        if (k) continue;
        unsigned by[XC_TYPE_COUNT][3] = {{0}}, ext = 0;
        for (size_t i = 0; i < s->ntests; i++) {
            const xc_test *t = &s->tests[i];
            const xc_outcome *r = &t->ext;
            if (!selected(t, o) || r->verdict < 0 || r->verdict == XC_NOT_RUN || t->type < 0) continue;
            ext++;
            by[t->type][r->verdict == XC_PASS ? 0 : r->verdict == XC_FAIL ? 1 : 2]++;
        }
        if (!ext) continue;
        fprintf(f, "%swith external entities read (ENTITIES not \"none\", pre-5th-edition tests included): %u run;", bullet,
                ext);
        for (int ty = 0; ty < XC_TYPE_COUNT; ty++)
            fprintf(f, "%s %s %u passed, %u failed, %u skipped", ty ? "," : "", xc_type_names[ty], by[ty][0], by[ty][1],
                    by[ty][2]);
        fprintf(f, "\n");
    }
}

static void print_report(FILE *f, const xc_suite *s, const xc_opts *o, const report *rp, int md) {
    for (int g = 0; g < GROUP_COUNT; g++) print_group(f, s, o, rp, g, md);
    print_summary(f, s, o, rp, md);
}

/* Markdown code span: backticks would end it, so they become quotes. */
static void md_code(FILE *f, const char *text) {
    fputc('`', f);
    for (const char *p = text ? text : ""; *p; p++) fputc(*p == '`' ? '\'' : *p == '\n' ? ' ' : *p, f);
    fputc('`', f);
}

/* Tests of the main tables (ext 0) or of the external-entity table (ext 1)
 * with this verdict (and skip reason, unless skip < 0). */
static int listed(const xc_test *t, const xc_opts *o, int ext, int verdict, int skip) {
    const xc_outcome *r = ext ? &t->ext : &t->own;
    if (!selected(t, o) || r->verdict != verdict) return 0;
    return skip < 0 || (r->skip == skip && !t->pre5);
}

static unsigned print_list(FILE *f, const xc_suite *s, const xc_opts *o, int ext, int verdict, int skip, int md) {
    unsigned n = 0;
    for (size_t i = 0; i < s->ntests; i++) {
        const xc_test *t = &s->tests[i];
        if (!listed(t, o, ext, verdict, skip)) continue;
        n++;
        if (!f) continue;
        const char *type = t->type >= 0 ? xc_type_names[t->type] : "?";
        const char *ns = t->namespaces ? ", namespaces on" : ext ? ", external entities read" : "";
        const char *detail = (ext ? t->ext.detail : t->own.detail);
        if (md) {
            fprintf(f, "- `%s` (%s, `%s`%s): ", t->id, type, t->path, ns);
            md_code(f, detail);
            fputc('\n', f);
        } else {
            fprintf(f, "  %s (%s, %s%s): %s\n", t->id, type, t->path, ns, detail ? detail : "");
        }
    }
    return n;
}

/* Failures of both kinds of runs. */
static unsigned count_failures(const xc_suite *s, const xc_opts *o) {
    return print_list(NULL, s, o, 0, XC_FAIL, -1, 0) + print_list(NULL, s, o, 1, XC_FAIL, -1, 0);
}

static void print_pre5(FILE *f, const xc_suite *s, const xc_opts *o) {
    for (size_t i = 0; i < s->ntests; i++) {
        const xc_test *t = &s->tests[i];
        if (!selected(t, o) || !in_pre5_list(t, &t->own)) continue;
        const char *what = t->own.pre5_differs ? "differs" : t->own.verdict == XC_SKIP ? "skipped" : "as expected";
        const char *type = t->type >= 0 ? xc_type_names[t->type] : "?";
        fprintf(f, "- `%s` (%s, EDITION %s): %s: ", t->id, type, t->edition, what);
        md_code(f, t->own.verdict == XC_SKIP ? xc_skip_names[t->own.skip] : t->own.detail);
        fputc('\n', f);
    }
}

/* The tables, then every failure, skip and pre-5th-edition test by ID; the
 * long lists fold away (<details>) when pasted into docs/conformance.md. */
static int write_markdown(const char *file, const xc_suite *s, const xc_opts *o, const report *rp) {
    FILE *f = fopen(file, "w");
    if (!f) {
        fprintf(stderr, "conformance: %s: %s\n", file, strerror(errno));
        return -1;
    }
    fprintf(f, "%s, chunk sizes %zu and %u bytes.\n\n", rp->name, o->small_chunk, XC_LARGE_CHUNK);
    print_report(f, s, o, rp, 1);
    fprintf(f, "\n#### %s: failures (%u)\n\n", rp->name, print_list(NULL, s, o, 0, XC_FAIL, -1, 1));
    print_list(f, s, o, 0, XC_FAIL, -1, 1);
    for (int k = 1; k < XC_SKIP_COUNT; k++) {
        unsigned n = print_list(NULL, s, o, 0, XC_SKIP, k, 1);
        fprintf(f, "\n#### %s: skipped, %s (%u)\n\n", rp->name, xc_skip_names[k], n);
        if (!n) continue;
        fprintf(f, "<details><summary>%u tests</summary>\n\n", n);
        print_list(f, s, o, 0, XC_SKIP, k, 1);
        fprintf(f, "\n</details>\n");
    }
    unsigned next = print_list(NULL, s, o, 1, XC_PASS, -1, 1) + print_list(NULL, s, o, 1, XC_FAIL, -1, 1) +
                    print_list(NULL, s, o, 1, XC_SKIP, -1, 1);
    if (next) {
        fprintf(f, "\n#### %s, external entities read: failures (%u)\n\n", rp->name, print_list(NULL, s, o, 1, XC_FAIL, -1, 1));
        print_list(f, s, o, 1, XC_FAIL, -1, 1);
        unsigned n = print_list(NULL, s, o, 1, XC_SKIP, -1, 1);
        fprintf(f, "\n#### %s, external entities read: skipped (%u)\n\n", rp->name, n);
        print_list(f, s, o, 1, XC_SKIP, -1, 1);
    }
    unsigned n5 = 0;
    for (size_t i = 0; i < s->ntests; i++) n5 += (unsigned)(selected(&s->tests[i], o) && in_pre5_list(&s->tests[i], &s->tests[i].own));
    fprintf(f, "\n#### %s: pre-5th-edition tests, reported apart (%u)\n\n", rp->name, n5);
    if (n5) {
        fprintf(f, "<details><summary>%u tests</summary>\n\n", n5);
        print_pre5(f, s, o);
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

static void print_verdict(const xc_test *t, const xc_outcome *r, const char *how) {
    static const char *const names[] = {"PASS", "FAIL", "SKIP", "NOT RUN"};
    const char *v = names[r->verdict];
    if (in_pre5_list(t, r)) v = r->pre5_differs ? "PRE5-DIFFERS" : "PRE5";
    int skipped = r->verdict == XC_SKIP;
    printf("%s %s (%s%s%s): %s%s%s\n", v, t->id, t->type >= 0 ? xc_type_names[t->type] : "?",
           t->namespaces ? ", namespaces on" : "", how, skipped ? xc_skip_names[r->skip] : "", skipped ? ": " : "",
           r->detail ? r->detail : "");
}

static void usage(const char *name) {
    fprintf(stderr,
            "usage: %s SUITE_DIR [--quiet] [--verbose] [--chunk N] [--only ID] [--markdown FILE]\n"
            "       [--verdicts FILE] [--beside FILE] [--fixed-sweep]\n"
            "  SUITE_DIR holds cleaned/xmlconf-flattened.xml (sh tools/fetch-suite.sh build/xmlconf\n"
            "  gives build/xmlconf/package)\n",
            name);
}

static int parse_args(int argc, char **argv, xc_opts *o) {
    memset(o, 0, sizeof *o);
    o->small_chunk = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--quiet")) o->quiet = 1;
        else if (!strcmp(a, "--verbose")) o->verbose = 1;
        else if (!strcmp(a, "--chunk") && more) {
            char *end;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end || v == 0 || v > XC_LARGE_CHUNK) {
                fprintf(stderr, "conformance: --chunk takes 1..%u\n", XC_LARGE_CHUNK);
                return -1;
            }
            o->small_chunk = (size_t)v;
        } else if (!strcmp(a, "--only") && more) o->only = argv[++i];
        else if (!strcmp(a, "--markdown") && more) o->markdown = argv[++i];
        else if (!strcmp(a, "--verdicts") && more) o->verdicts = argv[++i];
        else if (!strcmp(a, "--beside") && more) o->beside = argv[++i];
        else if (!strcmp(a, "--fixed-sweep")) o->fixed_sweep = 1;
        else if (a[0] == '-' || o->dir) return -1;
        else o->dir = a;
    }
    return o->dir ? 0 : -1;
}

int xc_main(int argc, char **argv, const xc_runner *runner) {
    xc_opts o;
    if (parse_args(argc, argv, &o) != 0) {
        usage(argc > 0 ? argv[0] : "conformance");
        return 2;
    }
    xc_suite s;
    memset(&s, 0, sizeof s);
    report rp = {runner->name, NULL};
    char *beside_name = NULL;
    if (load_list(o.dir, &s) != 0 || (o.beside && read_verdicts(o.beside, &s, &beside_name) != 0)) {
        free_suite(&s);
        return 2;
    }
    rp.beside = beside_name;
    size_t ran = 0;
    for (size_t i = 0; i < s.ntests; i++) {
        xc_test *t = &s.tests[i];
        if (!selected(t, &o)) continue;
        run_one(&o, runner, t);
        ran++;
        if (o.verbose) print_verdict(t, &t->own, "");
        if (o.verbose && t->ext.verdict >= 0) print_verdict(t, &t->ext, ", external entities read");
    }
    int rc = 0;
    if (o.only && !ran) {
        fprintf(stderr, "conformance: no test has ID '%s'\n", o.only);
        rc = 2;
    } else {
        unsigned fails = count_failures(&s, &o);
        if (fails) {
            printf("FAILURES (%u):\n", fails);
            print_list(stdout, &s, &o, 0, XC_FAIL, -1, 0);
            print_list(stdout, &s, &o, 1, XC_FAIL, -1, 0);
            printf("\n");
        }
        if (o.quiet) {
            printf("conformance (%s): %zu tests, %u failures\n", runner->name, s.ntests, fails);
        } else {
            printf("W3C XML Conformance Test Suite: %s, chunk sizes %zu and %u\n\n", runner->name, o.small_chunk,
                   XC_LARGE_CHUNK);
            print_report(stdout, &s, &o, &rp, 0);
        }
        rc = fails ? 1 : 0;
        if (o.markdown && write_markdown(o.markdown, &s, &o, &rp) != 0) rc = 2;
        if (o.verdicts && write_verdicts(o.verdicts, &s, &o, runner->name) != 0) rc = 2;
    }
    free(beside_name);
    free_suite(&s);
    return rc;
}
