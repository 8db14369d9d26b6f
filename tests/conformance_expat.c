/* The W3C XML Conformance Test Suite runner, for expat: the peer of
 * build/conformance, with the same test selection, rules and report
 * (xmlconf.c), so that docs/conformance.md can show the two side by side.
 *
 *   build/conformance_expat SUITE_DIR [the options of build/conformance]
 *
 * Each test is parsed twice, fed 1 byte (or --chunk N) and 65536 bytes at a
 * time; both parses must agree. Nothing external is loaded: no external
 * entity handler is set, and parameter entity parsing stays off (expat's
 * default), so expat skips what stax reports and does not fetch. The
 * namespace sets run with expat's namespace processing (XML_ParserCreateNS).
 * The canonical form is built from expat's events, as stax canon writes it.
 * The shared part, xmlconf.c, is compiled in (as in tests/conformance.c). */
#include "xmlconf.c"

#include <expat.h>
#include <stdlib.h>
#include <string.h>

/* Separates URI, local name and prefix in names when namespaces are on; a
 * control character that no XML 1.0 document can contain. */
#define NS_SEP '\x01'

typedef struct notation {
    char *name, *pubid, *sysid; /* pubid, sysid NULL when absent */
} notation;

typedef struct canon {
    FILE *out;
    int namespaces;
    char *doctype; /* the DOCTYPE's name, while its notations are collected */
    notation *notations;
    size_t nnotations, capnotations;
} canon;

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

static void put_escaped(FILE *out, const char *s, size_t len) {
    for (size_t i = 0; i < len; i++) {
        const char *esc = canon_escape((unsigned char)s[i]);
        if (esc) fputs(esc, out);
        else fputc(s[i], out);
    }
}

/* A name as written in the document. With namespaces on, expat gives
 * "uri SEP local SEP prefix" (XML_SetReturnNSTriplet), "uri SEP local"
 * without a prefix, or "local" outside any namespace. */
static void put_name(const canon *c, const char *name) {
    const char *s1 = c->namespaces ? strchr(name, NS_SEP) : NULL;
    if (!s1) {
        fputs(name, c->out);
        return;
    }
    const char *local = s1 + 1, *s2 = strchr(local, NS_SEP);
    if (s2) fprintf(c->out, "%s:%.*s", s2 + 1, (int)(s2 - local), local);
    else fputs(local, c->out);
}

static int cmp_attr(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts) {
    canon *c = ud;
    size_t n = 0;
    while (atts[2 * n]) n++;
    /* Sort (name, value) pairs by name: strcmp is byte order, which is
     * code point order in UTF-8. With namespaces on, the sort key is the
     * expanded name expat gives, close enough for the suite (no namespace
     * test has an OUTPUT file). */
    const XML_Char **sorted = xc_malloc(2 * n * sizeof *sorted);
    if (n) memcpy(sorted, atts, 2 * n * sizeof *sorted);
    qsort(sorted, n, 2 * sizeof *sorted, cmp_attr);
    fputc('<', c->out);
    put_name(c, name);
    for (size_t k = 0; k < n; k++) {
        fputc(' ', c->out);
        put_name(c, sorted[2 * k]);
        fputs("=\"", c->out);
        put_escaped(c->out, sorted[2 * k + 1], strlen(sorted[2 * k + 1]));
        fputc('"', c->out);
    }
    fputc('>', c->out);
    free(sorted);
}

static void XMLCALL on_end(void *ud, const XML_Char *name) {
    canon *c = ud;
    fputs("</", c->out);
    put_name(c, name);
    fputc('>', c->out);
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len) {
    canon *c = ud;
    put_escaped(c->out, s, (size_t)len);
}

static void XMLCALL on_pi(void *ud, const XML_Char *target, const XML_Char *data) {
    canon *c = ud;
    fprintf(c->out, "<?%s %s?>", target, data);
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid, const XML_Char *pubid,
                               int has_subset) {
    canon *c = ud;
    (void)sysid;
    (void)pubid;
    (void)has_subset;
    free(c->doctype);
    c->doctype = xc_strdup(name);
}

static void XMLCALL on_notation(void *ud, const XML_Char *name, const XML_Char *base, const XML_Char *sysid,
                                const XML_Char *pubid) {
    canon *c = ud;
    (void)base;
    if (c->nnotations == c->capnotations) {
        c->capnotations = c->capnotations ? 2 * c->capnotations : 8;
        notation *grown = realloc(c->notations, c->capnotations * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "conformance: out of memory\n");
            exit(2);
        }
        c->notations = grown;
    }
    notation *n = &c->notations[c->nnotations++];
    n->name = xc_strdup(name);
    n->pubid = pubid ? xc_strdup(pubid) : NULL;
    n->sysid = sysid ? xc_strdup(sysid) : NULL;
}

static int cmp_notation(const void *a, const void *b) {
    return strcmp(((const notation *)a)->name, ((const notation *)b)->name);
}

/* Second canonical form: the notations, sorted, in a DOCTYPE where the DOCTYPE stood. */
static void XMLCALL on_doctype_end(void *ud) {
    canon *c = ud;
    if (!c->nnotations || !c->doctype) return;
    qsort(c->notations, c->nnotations, sizeof *c->notations, cmp_notation);
    fprintf(c->out, "<!DOCTYPE %s [\n", c->doctype);
    for (size_t k = 0; k < c->nnotations; k++) {
        const notation *n = &c->notations[k];
        if (n->pubid) fprintf(c->out, "<!NOTATION %s PUBLIC '%s'%s", n->name, n->pubid, n->sysid ? " " : "");
        else fprintf(c->out, "<!NOTATION %s SYSTEM ", n->name);
        if (n->sysid) fprintf(c->out, "'%s'", n->sysid);
        fputs(">\n", c->out);
    }
    fputs("]>\n", c->out);
}

static void canon_free(canon *c) {
    for (size_t k = 0; k < c->nnotations; k++) {
        free(c->notations[k].name);
        free(c->notations[k].pubid);
        free(c->notations[k].sysid);
    }
    free(c->notations);
    free(c->doctype);
}

typedef struct run_result {
    enum XML_Error error; /* XML_ERROR_NONE: accepted */
    unsigned long line, column;
    long long offset;
    char *canon;
    size_t canon_len;
} run_result;

static void parse_document(const char *doc, size_t len, size_t chunk, int namespaces, run_result *rr) {
    memset(rr, 0, sizeof *rr);
    XML_Parser p = namespaces ? XML_ParserCreateNS(NULL, NS_SEP) : XML_ParserCreate(NULL);
    FILE *out = open_memstream(&rr->canon, &rr->canon_len);
    if (!p || !out) {
        fprintf(stderr, "conformance: cannot create a parser or a memory stream\n");
        exit(2);
    }
    canon c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.namespaces = namespaces;
    if (namespaces) XML_SetReturnNSTriplet(p, 1);
    XML_SetUserData(p, &c);
    XML_SetElementHandler(p, on_start, on_end);
    XML_SetCharacterDataHandler(p, on_text);
    XML_SetProcessingInstructionHandler(p, on_pi);
    XML_SetDoctypeDeclHandler(p, on_doctype, on_doctype_end);
    XML_SetNotationDeclHandler(p, on_notation);
    XML_SetParamEntityParsing(p, XML_PARAM_ENTITY_PARSING_NEVER);
    size_t off = 0;
    enum XML_Status st;
    do {
        size_t n = len - off < chunk ? len - off : chunk;
        st = XML_Parse(p, doc + off, (int)n, off + n == len);
        off += n;
    } while (st == XML_STATUS_OK && off < len);
    if (st == XML_STATUS_OK && len == 0) st = XML_Parse(p, doc, 0, 1);
    if (st != XML_STATUS_OK) {
        rr->error = XML_GetErrorCode(p);
        rr->line = XML_GetCurrentLineNumber(p);
        rr->column = XML_GetCurrentColumnNumber(p);
        rr->offset = XML_GetCurrentByteIndex(p);
    }
    fclose(out);
    canon_free(&c);
    XML_ParserFree(p);
}

static char *describe(const run_result *rr) {
    if (rr->error == XML_ERROR_NONE) return xc_strdup("accepted");
    return xc_printf("rejected: expat error %d at %lu:%lu (byte %lld): %s", (int)rr->error, rr->line, rr->column,
                     rr->offset, XML_ErrorString(rr->error));
}

/* Line and column are not compared: after an error in the epilog, expat's
 * line can be one more when the input came a byte at a time (same byte). */
static int same_result(const run_result *a, const run_result *b) {
    return a->error == b->error && a->offset == b->offset &&
           (a->error != XML_ERROR_NONE ||
            (a->canon_len == b->canon_len && (!a->canon_len || !memcmp(a->canon, b->canon, a->canon_len))));
}

static void run_expat(const xc_opts *o, xc_test *t, const char *path, const char *doc, size_t len) {
    (void)path;
    run_result small, large;
    parse_document(doc, len, o->small_chunk, t->namespaces, &small);
    parse_document(doc, len, XC_LARGE_CHUNK, t->namespaces, &large);
    if (!same_result(&small, &large)) {
        char *a = describe(&small), *b = describe(&large);
        xc_set_hard_failure(t, xc_printf("chunk-dependent: chunk %zu: %s; chunk %u: %s", o->small_chunk, a,
                                         XC_LARGE_CHUNK, b));
        free(a);
        free(b);
    } else {
        xc_parse p;
        memset(&p, 0, sizeof p);
        p.accepted = large.error == XML_ERROR_NONE;
        p.unsupported = large.error == XML_ERROR_UNKNOWN_ENCODING;
        p.trouble = large.error == XML_ERROR_NO_MEMORY;
        p.what = describe(&large);
        p.canon = large.canon;
        p.canon_len = large.canon_len;
        xc_judge(o, t, doc, len, &p);
        free(p.what);
    }
    free(small.canon);
    free(large.canon);
}

int main(int argc, char **argv) {
    XML_Expat_Version v = XML_ExpatVersionInfo();
    char *name = xc_printf("expat %d.%d.%d", v.major, v.minor, v.micro);
    xc_runner runner = {name, run_expat, NULL};
    int rc = xc_main(argc, argv, &runner);
    free(name);
    return rc;
}
