/* The document generator of the fuzz targets: see fuzz_gen.h.
 *
 * Every choice is pick(g, k): the next input byte modulo k, or 0 once the
 * input is used up. Loops run while a pick says so, so the input length
 * bounds the document; OUT_CAP bounds it too. The document is built in UTF-8
 * with characters of the chosen encoding's repertoire, then encoded; bad
 * byte sequences are kept aside (their offsets) and inserted while encoding. */
#include "fuzz_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_buf_add(fz_buf *b, const void *p, size_t n) {
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n) cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) abort();
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}

void fz_buf_free(fz_buf *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ---------------------------------------------------------------- state */

enum { E_UTF8, E_UTF8_BOM, E_U16LE_BOM, E_U16BE_BOM, E_U16LE, E_U16BE, E_LATIN1, E_CP1252, E_ASCII, E_COUNT };
enum { EK_TEXT, EK_MARKUP, EK_EXT, EK_UNPARSED };
enum { AT_CDATA, AT_ID, AT_IDREF, AT_IDREFS, AT_ENTITY, AT_ENTITIES, AT_NMTOKEN, AT_NMTOKENS, AT_NOTATION, AT_ENUM,
       AT_COUNT };
enum { C_CONTENT, C_ATTR, C_ENTVAL, C_DEFAULT };

#define MAX_ENTS 40
#define MAX_ATTS 48
#define MAX_BAD 16
#define OUT_CAP (40 * 1024)

typedef struct gent {
    char name[12];
    unsigned char kind;
} gent;

typedef struct gatt {
    unsigned char el, name, type;
} gatt;

typedef struct gen {
    const uint8_t *p;
    size_t n, i;
    fz_buf b; /* UTF-8 */
    struct {
        size_t at;
        unsigned char kind;
    } bad[MAX_BAD];
    int nbad;
    int enc;
    int faulty; /* this document may hold faults */
    int inpe; /* inside a parameter-entity literal ("...") */
    gent ents[MAX_ENTS];
    int nents;
    int chain_top; /* an entity of ents, or -1 */
    int nchain, npe, nnot, next, nunp, nid;
    gatt atts[MAX_ATTS];
    int natts;
    int elems;
} gen;

static const char *const el_names[] = {"r", "a", "b", "c", "p:a", "q:b", "d", "p:r"};
#define N_EL (sizeof el_names / sizeof el_names[0])
static const char *const att_names[] = {"x",       "y",       "z",         "id",       "t",       "p:x",   "q:y",
                                        "xml:space", "xml:lang", "xmlns", "xmlns:p", "xmlns:q", "u",   "q:x"};
#define N_ATT (sizeof att_names / sizeof att_names[0])
static const char *const ns_uris[] = {"urn:p", "urn:q", "http://example.com/ns", "urn:p", "", "urn:x:%20"};

static unsigned pick(gen *g, unsigned k) {
    if (k <= 1 || g->i >= g->n) return 0;
    return g->p[g->i++] % k;
}

/* A fault now and then: in one document of three, one choice in 32. */
static int fault(gen *g) { return g->faulty && pick(g, 32) == 31; }

static int full(const gen *g) { return g->b.len > OUT_CAP; }

static void put(gen *g, const char *s) { fz_buf_add(&g->b, s, strlen(s)); }
static void put_ch(gen *g, char c) { fz_buf_add(&g->b, &c, 1); }

static void put_cp(gen *g, uint32_t cp) {
    char o[4];
    size_t n;
    if (cp < 0x80) o[0] = (char)cp, n = 1;
    else if (cp < 0x800) o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[2] = (char)(0x80 | (cp & 0x3F)),
        n = 3;
    else
        o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    fz_buf_add(&g->b, o, n);
}

/* A bad byte sequence for the encoding, inserted here when encoding. */
static void put_bad(gen *g) {
    if (g->nbad == MAX_BAD) return;
    g->bad[g->nbad].at = g->b.len;
    g->bad[g->nbad].kind = (unsigned char)pick(g, 8);
    g->nbad++;
}

/* S, or nothing unless need. */
static void ws(gen *g, int need) {
    static const char *const w[] = {" ", "  ", "\n", "\t", "\r\n", " \n\t ", "\r"};
    unsigned k = pick(g, 8);
    if (k == 0) {
        if (need) put(g, " ");
        return;
    }
    put(g, w[k - 1]);
}

/* ---------------------------------------------------------------- characters */

static const uint32_t rep_uni[] = {0xE9, 0x20AC, 0x1D11E, 0x4E2D, 0xFFFD, 0xA0, 0x85, 0x2028, 0x10000, 0xFEFF, 0x3B1, 0x10FFFD};
static const uint32_t rep_latin1[] = {0xE9, 0xA0, 0xFF, 0x85, 0xC0, 0xD7};
static const uint32_t rep_cp1252[] = {0xE9, 0x20AC, 0x160, 0x178, 0x2026, 0xA0, 0x2122, 0x152};

static uint32_t non_ascii(gen *g) {
    switch (g->enc) {
    case E_LATIN1: return rep_latin1[pick(g, sizeof rep_latin1 / sizeof rep_latin1[0])];
    case E_CP1252: return rep_cp1252[pick(g, sizeof rep_cp1252 / sizeof rep_cp1252[0])];
    case E_ASCII: return 'n';
    default: return rep_uni[pick(g, sizeof rep_uni / sizeof rep_uni[0])];
    }
}

/* Characters that are data in every context (no < & % quotes, no "--" or
 * "?>" or "]]>" possible); name-ish unless punct. */
static void chars(gen *g, unsigned max, int punct) {
    static const char pun[] = "-._:;,!?()[]{}=+*#/>$@~^|`";
    unsigned n = 1 + pick(g, max);
    char last = 0;
    for (unsigned k = 0; k < n; k++) {
        unsigned c = pick(g, 16);
        if (c < 9) put_ch(g, last = (char)('a' + pick(g, 26)));
        else if (c < 10) put_ch(g, last = (char)('0' + pick(g, 10)));
        else if (c < 12) put_cp(g, non_ascii(g)), last = 0;
        else if (c < 14) put_ch(g, last = ' ');
        else if (punct) {
            char p = pun[pick(g, sizeof pun - 1)];
            if ((p == '-' || p == '?' || p == ']') && p == last) p = 'z'; /* no --, ??, ]] */
            if (p == '>' && (last == '?' || last == ']')) p = 'z';
            put_ch(g, last = p);
        } else put_ch(g, last = '_');
    }
}

/* A fault in character data: a bad byte sequence, or a character XML does
 * not allow. */
static void bad_char(gen *g) {
    static const uint32_t bad[] = {0x1, 0xB, 0xFFFE, 0xFFFF, 0x1F, 0x7F /* allowed */, 0x84 /* allowed */};
    if (pick(g, 2)) put_bad(g);
    else put_cp(g, bad[pick(g, sizeof bad / sizeof bad[0])]);
}

/* ---------------------------------------------------------------- references */

static void charref(gen *g, int ctx) {
    /* safe everywhere (expanded once more inside a parameter-entity literal) */
    static const char *const safe[] = {"&#32;", "&#x20;", "&#9;",  "&#10;",   "&#233;", "&#x20AC;",
                                       "&#65;", "&#13;",  "&#xA;", "&#x1D11E;", "&#x10FFFF;"};
    /* safe outside parameter-entity literals */
    static const char *const more[] = {"&#38;#60;", "&#38;amp;", "&#62;", "&#34;", "&#39;", "&#37;", "&#xD;&#xA;"};
    /* faults, or '<' where it may not be */
    static const char *const bad[] = {"&#0;",   "&#xFFFE;", "&#xD800;", "&#;",     "&#x;",
                                      "&#1114112;", "&#60;", "&#38;",   "&#x0000000041;", "&#99999999999;"};
    if (fault(g)) {
        put(g, bad[pick(g, sizeof bad / sizeof bad[0])]);
        return;
    }
    if (ctx == C_CONTENT && pick(g, 8) == 0) {
        put(g, "&#60;"); /* '<' as data */
        return;
    }
    if (g->inpe || pick(g, 2)) put(g, safe[pick(g, sizeof safe / sizeof safe[0])]);
    else put(g, more[pick(g, sizeof more / sizeof more[0])]);
}

static void predefined(gen *g) {
    static const char *const p[] = {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;"};
    put(g, p[pick(g, 5)]);
}

/* A reference to a general entity suited to ctx (or, as a fault, one that is
 * not: undeclared, external or unparsed in an attribute, markup in an
 * attribute). */
static void entref(gen *g, int ctx) {
    int ok[MAX_ENTS], n = 0;
    for (int k = 0; k < g->nents; k++) {
        int kind = g->ents[k].kind;
        if (ctx == C_ENTVAL || (ctx == C_CONTENT && kind != EK_UNPARSED) || kind == EK_TEXT) ok[n++] = k;
    }
    if (fault(g)) {
        static const char *const bad[] = {"&undeclared;", "&e0", "& e0;", "&x0;", "&u0;", "&#x41", "&e:0;", "&lt"};
        put(g, bad[pick(g, sizeof bad / sizeof bad[0])]);
        return;
    }
    if (n == 0) {
        if (ctx == C_ENTVAL) put(g, "&#38;amp;");
        else predefined(g);
        return;
    }
    int k = (g->chain_top >= 0 && pick(g, 3) == 0) ? g->chain_top : ok[pick(g, (unsigned)n)];
    put_ch(g, '&');
    put(g, g->ents[k].name);
    put_ch(g, ';');
}

/* ---------------------------------------------------------------- values */

/* An attribute value, an attribute default or an entity value (between
 * quotes q, written by the caller). Spaces everywhere, leading and trailing;
 * tokens for the tokenized types; references of every kind. */
static void value(gen *g, int ctx, int type, char q) {
    if (pick(g, 3) == 1) ws(g, 1);
    unsigned n = pick(g, 7);
    for (unsigned k = 0; k < n && !full(g); k++) {
        switch (pick(g, 12)) {
        case 0: chars(g, 6, type == AT_CDATA); break;
        case 1: put(g, pick(g, 2) ? " " : "   "); break;
        case 2: ws(g, 1); break; /* tabs and line ends, normalized */
        case 3: charref(g, ctx); break;
        case 4: entref(g, ctx); break;
        case 5:
            if (ctx != C_ENTVAL) predefined(g);
            else put(g, "&amp;");
            break;
        case 6:
            if (!g->inpe) put_ch(g, q == '"' ? '\'' : '"'); /* the other quote */
            break;
        case 7:
            if (g->nents) entref(g, ctx);
            else chars(g, 3, 0);
            break;
        case 8: /* a token list */
            chars(g, 3, 0);
            put(g, pick(g, 2) ? " " : " \t ");
            chars(g, 3, 0);
            break;
        case 9:
            if (ctx == C_ENTVAL && !g->inpe) {
                static const char *const mk[] = {"&#60;b/>", "&#60;b x='1'>t&#60;/b>", "&#38;#60;",
                                                 "&#60;b x=\"1\">t&#60;/b>"};
                unsigned m = pick(g, 3);
                put(g, mk[m == 1 && q == '\'' ? 3 : m]); /* (the attribute's quotes are not q) */
            } else if (fault(g)) {
                put(g, ctx == C_ENTVAL ? "%pe0;" : "<");
            } else chars(g, 2, 0);
            break;
        case 10:
            if (fault(g)) bad_char(g);
            else put_cp(g, non_ascii(g));
            break;
        default: chars(g, 4, 0); break;
        }
    }
    if (pick(g, 3) == 1) put(g, pick(g, 2) ? " " : "  ");
}

static char quote(gen *g);

static void quoted(gen *g, int ctx, int type) {
    char q = quote(g);
    put_ch(g, q);
    value(g, ctx, type, q);
    put_ch(g, q);
}

/* ---------------------------------------------------------------- declarations */

static int add_ent(gen *g, const char *prefix, int num, int kind) {
    if (g->nents == MAX_ENTS) return -1;
    gent *e = &g->ents[g->nents];
    snprintf(e->name, sizeof e->name, "%s%d", prefix, num);
    e->kind = (unsigned char)kind;
    return g->nents++;
}

/* The quote of a literal: ' inside a parameter-entity literal ("...") */
static char quote(gen *g) { return g->inpe ? '\'' : pick(g, 4) == 3 ? '\'' : '"'; }

static void literal(gen *g, const char *s) {
    char q = quote(g);
    put_ch(g, q);
    put(g, s);
    put_ch(g, q);
}

static void system_literal(gen *g) {
    static const char *const s[] = {"ext.xml", "http://example.com/a b.dtd", "", "#frag", "\xc3\xa9.dtd"};
    unsigned k = pick(g, 6);
    if (k == 5 && !g->inpe) put(g, "'q\"q'");
    else literal(g, s[k % 5]);
}

static void external_id(gen *g, int notation) {
    unsigned k = pick(g, notation ? 3 : 2);
    if (k == 0) {
        put(g, "SYSTEM");
        ws(g, 1);
        system_literal(g);
    } else {
        static const char *const pub[] = {"-//A//DTD X//EN", "pub id", "", "a  b\r\n c", "{bad}"};
        put(g, "PUBLIC");
        ws(g, 1);
        literal(g, pub[fault(g) ? 4 : pick(g, 4)]);
        if (k == 1) { /* (k == 2: a notation's public id alone) */
            ws(g, 1);
            system_literal(g);
        }
    }
}

static int contains(const gen *g, size_t at, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = at; i + n <= g->b.len; i++)
        if (memcmp(g->b.p + i, needle, n) == 0) return 1;
    return 0;
}

/* <!ENTITY name "value">: text, or markup for content */
static void ent_internal(gen *g) {
    if (g->nents == MAX_ENTS) return;
    char name[12];
    snprintf(name, sizeof name, "e%d", g->nents);
    put(g, "<!ENTITY");
    ws(g, 1);
    put(g, name);
    ws(g, 1);
    size_t at = g->b.len;
    quoted(g, C_ENTVAL, AT_CDATA); /* (before the entity is known: no reference to itself) */
    int k = add_ent(g, "e", g->nents, EK_TEXT);
    /* a '<' in the replacement text (from &#60;) makes it markup, for
     * content only; so does a reference to anything but text */
    if (contains(g, at, "<") || contains(g, at, "&#60;")) g->ents[k].kind = EK_MARKUP;
    for (int j = 0; j < k; j++)
        if (g->ents[j].kind != EK_TEXT) {
            char ref[16];
            snprintf(ref, sizeof ref, "&%s;", g->ents[j].name);
            if (contains(g, at, ref)) g->ents[k].kind = EK_MARKUP;
        }
    ws(g, 0);
    put_ch(g, '>');
}

/* A chain: c_0 is a short value with spaces at its ends; c_k refers to
 * c_(k-1) many times. */
static void ent_chain(gen *g) {
    static const char *const base[] = {" x",  " x ",     "x ",       "  ",   " a b ",   "&#32;x",
                                       " &#9;", "&#10;y ", "\t z\n", " &#38;amp; ", " \xc3\xa9"};
    unsigned depth = 1 + pick(g, 5), reps = 2 + pick(g, 9);
    uint64_t total = 1;
    for (unsigned d = 0; d < depth; d++) total *= reps;
    while (total > 50000 && depth > 1 && pick(g, 8) != 7) total /= reps, depth--;
    const char *sep = pick(g, 3) == 2 ? " " : "";
    int prev = -1;
    for (unsigned d = 0; d <= depth; d++) {
        int k = add_ent(g, "c", g->nchain++, EK_TEXT);
        if (k < 0) break;
        char q = g->inpe ? '\'' : '"';
        put(g, "<!ENTITY ");
        put(g, g->ents[k].name);
        put_ch(g, ' ');
        put_ch(g, q);
        if (prev < 0) {
            const char *b = base[pick(g, sizeof base / sizeof base[0])];
            if (g->enc == E_ASCII && (unsigned char)b[1] >= 0x80) b = " x";
            if (g->inpe && strchr(b, '&')) b = " x ";
            put(g, b);
        } else {
            for (unsigned r = 0; r < reps; r++) {
                put_ch(g, '&');
                put(g, g->ents[prev].name);
                put_ch(g, ';');
                put(g, sep);
            }
        }
        put_ch(g, q);
        put_ch(g, '>');
        ws(g, 0);
        prev = k;
    }
    if (prev >= 0) g->chain_top = prev;
}

static void ent_external(gen *g) {
    int unparsed = pick(g, 2);
    int k = unparsed ? add_ent(g, "u", g->nunp++, EK_UNPARSED) : add_ent(g, "x", g->next++, EK_EXT);
    if (k < 0) return;
    put(g, "<!ENTITY");
    ws(g, 1);
    put(g, g->ents[k].name);
    ws(g, 1);
    external_id(g, 0);
    if (unparsed) {
        ws(g, 1);
        put(g, "NDATA");
        ws(g, 1);
        char n[12];
        snprintf(n, sizeof n, "n%d", g->nnot ? (int)pick(g, (unsigned)g->nnot) : 0);
        put(g, n);
    }
    ws(g, 0);
    put_ch(g, '>');
}

static void decl(gen *g);

/* <!ENTITY % pe "declarations">, then (usually) %pe; */
static void ent_parameter(gen *g) {
    char name[12];
    snprintf(name, sizeof name, "pe%d", g->npe++);
    put(g, "<!ENTITY");
    ws(g, 1);
    put(g, "%");
    ws(g, 1);
    put(g, name);
    ws(g, 1);
    if (g->inpe || pick(g, 4) == 3) {
        external_id(g, 0);
    } else {
        put_ch(g, '"');
        g->inpe = 1;
        unsigned n = 1 + pick(g, 3);
        for (unsigned k = 0; k < n && !full(g); k++) {
            decl(g);
            ws(g, 0);
        }
        g->inpe = 0;
        put_ch(g, '"');
    }
    ws(g, 0);
    put_ch(g, '>');
    if (!g->inpe && pick(g, 4) != 3) {
        ws(g, 0);
        put_ch(g, '%');
        put(g, name);
        put_ch(g, ';');
    }
}

static void type_of(gen *g, int type) {
    static const char *const kw[] = {"CDATA",    "ID",      "IDREF",    "IDREFS",   "ENTITY",
                                     "ENTITIES", "NMTOKEN", "NMTOKENS", "NOTATION", ""};
    put(g, kw[type]);
    if (type == AT_NOTATION || type == AT_ENUM) {
        if (type == AT_NOTATION) ws(g, 1);
        put_ch(g, '(');
        unsigned n = 1 + pick(g, 3);
        for (unsigned k = 0; k < n; k++) {
            if (k) ws(g, 0), put_ch(g, '|');
            ws(g, 0);
            static const char *const ev[] = {"a", "b", "1x"};
            char v[12];
            if (type == AT_NOTATION) snprintf(v, sizeof v, "n%u", k);
            else snprintf(v, sizeof v, "%s", ev[k]);
            put(g, v);
            ws(g, 0);
        }
        put_ch(g, ')');
    }
}

static void attlist(gen *g) {
    if (pick(g, 32) == 31) { /* ATTLISTs for 40 elements the body never uses: the tables grow */
        for (unsigned k = 0; k < 40; k++) {
            char d[48];
            snprintf(d, sizeof d, "<!ATTLIST g%u a CDATA 'v'>", k);
            put(g, d);
        }
        return;
    }
    put(g, "<!ATTLIST");
    ws(g, 1);
    unsigned el = pick(g, N_EL);
    if (pick(g, 16) == 15) { /* an element the body never uses: many of them grow the tables */
        char n[12];
        snprintf(n, sizeof n, "g%u", pick(g, 64));
        put(g, n);
        el = N_EL; /* (registered under no element of the body) */
    } else {
        put(g, el_names[el]);
    }
    unsigned n = pick(g, 5);
    for (unsigned k = 0; k < n && !full(g); k++) {
        ws(g, 1);
        unsigned an = pick(g, N_ATT);
        int type = (int)pick(g, AT_COUNT);
        int xmlns = strncmp(att_names[an], "xmlns", 5) == 0;
        if (xmlns) type = AT_CDATA;
        put(g, att_names[an]);
        ws(g, 1);
        type_of(g, type);
        ws(g, 1);
        unsigned d = xmlns ? 2 + pick(g, 2) : pick(g, 4);
        if (d == 0) put(g, "#REQUIRED");
        else if (d == 1) put(g, "#IMPLIED");
        else {
            if (d == 2) put(g, "#FIXED"), ws(g, 1);
            if (xmlns) {
                unsigned u = pick(g, sizeof ns_uris / sizeof ns_uris[0]);
                if (att_names[an][5] == ':' && ns_uris[u][0] == 0 && !fault(g)) u = 0; /* xmlns:p="" */
                literal(g, ns_uris[u]);
            } else {
                quoted(g, C_DEFAULT, type);
            }
        }
        if (g->natts < MAX_ATTS) {
            gatt *a = &g->atts[g->natts++];
            a->el = (unsigned char)el;
            a->name = (unsigned char)an;
            a->type = (unsigned char)type;
        }
    }
    ws(g, 0);
    put_ch(g, '>');
}

static void content_particle(gen *g, int depth) {
    if (depth > 3 || pick(g, 3) != 2) {
        put(g, el_names[pick(g, N_EL)]);
    } else {
        put_ch(g, '(');
        ws(g, 0);
        unsigned n = 1 + pick(g, 3);
        char sep = pick(g, 2) ? ',' : '|';
        for (unsigned k = 0; k < n; k++) {
            if (k) ws(g, 0), put_ch(g, fault(g) ? (sep == ',' ? '|' : ',') : sep), ws(g, 0);
            content_particle(g, depth + 1);
        }
        ws(g, 0);
        put_ch(g, ')');
    }
    static const char *const card[] = {"", "?", "*", "+"};
    put(g, card[pick(g, 4)]);
}

static void element_decl(gen *g) {
    put(g, "<!ELEMENT");
    ws(g, 1);
    put(g, el_names[pick(g, N_EL)]);
    ws(g, 1);
    switch (pick(g, 6)) {
    case 0: put(g, "EMPTY"); break;
    case 1: put(g, "ANY"); break;
    case 2: put(g, "(#PCDATA)"); break;
    case 3: put(g, pick(g, 2) ? "( #PCDATA | a | p:a )*" : "(#PCDATA|b)*"); break;
    case 4: put(g, fault(g) ? "(#PCDATA|a)" : "(#PCDATA)*"); break;
    default:
        put_ch(g, '(');
        content_particle(g, 1);
        put_ch(g, ')');
        if (pick(g, 2)) put_ch(g, "?*+"[pick(g, 3)]);
        break;
    }
    ws(g, 0);
    put_ch(g, '>');
}

static void notation_decl(gen *g) {
    char n[12];
    snprintf(n, sizeof n, "n%d", g->nnot++);
    put(g, "<!NOTATION");
    ws(g, 1);
    put(g, n);
    ws(g, 1);
    external_id(g, 1);
    ws(g, 0);
    put_ch(g, '>');
}

static void pi(gen *g) {
    static const char *const target[] = {"pi", "x-y", "t\xc3\xa9", "xml-stylesheet", "p:t", "xml", "XmL"};
    put(g, "<?");
    put(g, target[fault(g) ? 4 + pick(g, 3) : pick(g, 4)]);
    if (pick(g, 3)) {
        ws(g, 1);
        chars(g, 10, 1);
        if (pick(g, 4) == 3) put(g, pick(g, 2) ? "\r\n" : "\r"), chars(g, 3, 0);
    }
    put(g, "?>");
}

static void comment(gen *g) {
    put(g, "<!--");
    if (pick(g, 4)) chars(g, 12, 1);
    if (fault(g)) put(g, "--");
    put(g, "-->");
}

static void pe_ref(gen *g) {
    char r[16];
    if (!g->npe && !fault(g)) {
        put(g, "<!---->");
        return;
    }
    snprintf(r, sizeof r, "%%pe%d;", g->npe && !fault(g) ? (int)pick(g, (unsigned)g->npe) : 99);
    put(g, r);
}

static void decl(gen *g) {
    if (full(g)) return;
    switch (pick(g, 14)) {
    case 0:
    case 1: ent_internal(g); break;
    case 2: ent_chain(g); break;
    case 3: ent_external(g); break;
    case 4:
        if (!g->inpe) ent_parameter(g);
        else ent_internal(g);
        break;
    case 5:
    case 6: attlist(g); break;
    case 7: element_decl(g); break;
    case 8: notation_decl(g); break;
    case 9: pi(g); break;
    case 10: comment(g); break;
    case 11:
        if (!g->inpe) pe_ref(g);
        else attlist(g);
        break;
    case 12: ent_chain(g); break;
    default:
        if (fault(g)) {
            static const char *const junk[] = {"<!ENTITY>", "<!ATTLIST a x CDATA>", "<!ELEMENT a (b,)>",
                                               "<!ENTITY e SYSTEM>", "<![INCLUDE[ ]]>", "<!DOCTYPE a>",
                                               "<!ENTITY % e '<!ENTITY'>", "<!ATTLIST a x (a|) #IMPLIED>",
                                               "<!ENTITY e 'a", "<!-- - -->", "]", "<!NOTATION n>",
                                               "<!ENTITY a:b 'x'>", "<!NOTATION n:x SYSTEM 's'>", "<?xml x?>"};
            put(g, junk[pick(g, sizeof junk / sizeof junk[0])]);
        } else {
            attlist(g);
        }
        break;
    }
}

/* ---------------------------------------------------------------- the body */

static void attribute(gen *g, const char *name, int type) {
    put(g, name);
    if (pick(g, 4) == 3) ws(g, 0);
    put_ch(g, '=');
    if (pick(g, 4) == 3) ws(g, 0);
    quoted(g, C_ATTR, type);
}

/* xmlns:p, xmlns, xmlns:q or xmlns:r (prefix pfx) */
static void ns_decl(gen *g, unsigned pfx) {
    static const char *const names[] = {"xmlns:p", "xmlns", "xmlns:q", "xmlns:r"};
    put(g, names[pfx]);
    put_ch(g, '=');
    put_ch(g, '"');
    unsigned u = pick(g, sizeof ns_uris / sizeof ns_uris[0]);
    if (pfx != 1 && ns_uris[u][0] == 0) u = 0; /* (xmlns:p="" is a fault, below) */
    if (fault(g)) {
        static const char *const bad[] = {"http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2000/xmlns/", "&undeclared;"};
        put(g, bad[pick(g, 3)]);
    } else {
        put(g, ns_uris[u]);
    }
    put_ch(g, '"');
}

static void content(gen *g, int depth);

static void element(gen *g, int depth, unsigned el) {
    g->elems++;
    const char *name = el_names[el];
    put_ch(g, '<');
    put(g, name);
    /* namespace declarations: p and q on the root (unless the choices run
     * out), more deeper now and then: each prefix once per tag */
    unsigned nns = depth == 0 ? (g->i < g->n ? 2 + pick(g, 3) : 0) : (pick(g, 4) == 3 ? 1 + pick(g, 3) : 0);
    unsigned first = depth == 0 ? 0 : pick(g, 4);
    for (unsigned k = 0; k < nns && k < 4; k++) {
        ws(g, 1);
        ns_decl(g, depth == 0 ? (k == 0 ? 0 : k == 1 ? 2 : k == 2 ? 1 : 3) : (first + k) % 4);
    }
    if (pick(g, 16) == 15) /* more bindings in scope than a linear search is used for */
        for (unsigned k = 0; k < 20; k++) {
            char d[40];
            snprintf(d, sizeof d, " xmlns:n%u='urn:n%u'", k, k);
            put(g, d);
        }
    /* the attributes the DTD declared for this element */
    for (int k = 0; k < g->natts && !full(g); k++) {
        if (g->atts[k].el != el || pick(g, 4) == 0) continue;
        if (strncmp(att_names[g->atts[k].name], "xmlns", 5) == 0 && !fault(g)) continue; /* defaults only */
        int dup = 0; /* once each (a duplicate is a fault below) */
        for (int j = 0; j < k; j++)
            if (g->atts[j].el == el && g->atts[j].name == g->atts[k].name) dup = 1;
        if (dup) continue;
        ws(g, 1);
        attribute(g, att_names[g->atts[k].name], g->atts[k].type);
    }
    unsigned more = pick(g, 4);
    for (unsigned k = 0; k < more; k++) {
        static const char *const extra[3][2] = {{"k", "p:k"}, {"m", "q:m"}, {"w", "v"}};
        ws(g, 1);
        attribute(g, extra[k][pick(g, 2)], AT_CDATA);
    }
    if (fault(g)) {
        static const char *const bad[] = {" k='1' k='2'", " z:k='1'", " p:k='1' q:k='2'", " xmlns:p=''",
                                          " xmlns:xmlns='u'", " k=1", " k='<'", " =''"};
        put(g, bad[pick(g, sizeof bad / sizeof bad[0])]);
    }
    ws(g, 0);
    if (pick(g, 3) == 0 || full(g)) {
        put(g, "/>");
        return;
    }
    put_ch(g, '>');
    content(g, depth + 1);
    put(g, "</");
    put(g, fault(g) ? "zz" : name);
    ws(g, 0);
    put_ch(g, '>');
}

static void cdata(gen *g) {
    put(g, "<![CDATA[");
    unsigned n = pick(g, 4);
    for (unsigned k = 0; k < n; k++) {
        unsigned c = pick(g, 5);
        if (c == 0) put(g, "<&>");
        else if (c == 1) put(g, "]]");
        else if (c == 2) put(g, "]>");
        else if (c == 3) put(g, "\r\n");
        else chars(g, 8, 0);
    }
    if (fault(g)) put(g, "]]>]]>");
    put(g, "]]>");
}

static void content(gen *g, int depth) {
    unsigned n = pick(g, 9);
    for (unsigned k = 0; k < n && !full(g); k++) {
        switch (pick(g, 14)) {
        case 0: chars(g, 24, 1); break;
        case 1: ws(g, 1); break;
        case 2: charref(g, C_CONTENT); break;
        case 3:
        case 4: entref(g, C_CONTENT); break;
        case 5: predefined(g); break;
        case 6:
        case 7:
            if (depth < 12 && g->elems < 400) element(g, depth, pick(g, N_EL));
            else chars(g, 4, 0);
            break;
        case 8: cdata(g); break;
        case 9: comment(g); break;
        case 10: pi(g); break;
        case 11:
            if (g->chain_top >= 0) put(g, "&"), put(g, g->ents[g->chain_top].name), put(g, ";");
            break;
        case 12:
            if (!fault(g)) chars(g, 3, 0);
            else if (pick(g, 2)) bad_char(g);
            else {
                static const char *const bad[] = {"]]>", "<", "&", "</r>", "<!DOCTYPE r>", "<?xml version='1.0'?>",
                                                  "<a", "<!-- -- -->", "<![CDATA[", "&#x;"};
                put(g, bad[pick(g, sizeof bad / sizeof bad[0])]);
            }
            break;
        default: chars(g, 6, 0); break;
        }
    }
}

static void misc(gen *g) {
    unsigned n = pick(g, 3);
    for (unsigned k = 0; k < n; k++) {
        unsigned c = pick(g, 3);
        if (c == 0) ws(g, 1);
        else if (c == 1) comment(g);
        else pi(g);
    }
}

/* ---------------------------------------------------------------- encoding */

static const char *const enc_names[E_COUNT][4] = {
    [E_UTF8] = {"UTF-8", "utf-8", "UTF8", "x-user"},
    [E_UTF8_BOM] = {"UTF-8", "utf-8", "UTF-16", "csUTF8"},
    [E_U16LE_BOM] = {"UTF-16", "utf-16", "UTF-16LE", "ISO-10646-UCS-2"},
    [E_U16BE_BOM] = {"UTF-16", "UTF-16", "UTF-16BE", "UCS-2"},
    [E_U16LE] = {"UTF-16LE", "UTF-16", "utf-16le", "UTF-8"},
    [E_U16BE] = {"UTF-16BE", "UTF-16", "csUTF16BE", "UTF-8"},
    [E_LATIN1] = {"ISO-8859-1", "latin1", "ISO_8859-1:1987", "l1"},
    [E_CP1252] = {"windows-1252", "cp1252", "WINDOWS-1252", "x-user"},
    [E_ASCII] = {"US-ASCII", "ascii", "us", "nope"},
};

static void xml_decl(gen *g, int needed) {
    if (!needed && pick(g, 3) == 0) return;
    put(g, "<?xml");
    ws(g, 1);
    put(g, fault(g) ? "version='1.1'" : pick(g, 2) ? "version=\"1.0\"" : "version = '1.0'");
    if (needed || pick(g, 2)) {
        ws(g, 1);
        put(g, "encoding=\"");
        unsigned k = pick(g, 8);
        put(g, enc_names[g->enc][k < 4 ? 0 : k - 4]);
        put_ch(g, '"');
    }
    unsigned sa = pick(g, 4);
    if (sa) {
        ws(g, 1);
        put(g, sa == 1 ? "standalone='yes'" : sa == 2 ? "standalone=\"no\"" : fault(g) ? "standalone='maybe'" : "standalone='yes'");
    }
    ws(g, 0);
    put(g, "?>");
}

static void out_byte(fz_buf *o, unsigned b) {
    uint8_t c = (uint8_t)b;
    fz_buf_add(o, &c, 1);
}

static void out_u16(fz_buf *o, int le, unsigned u) {
    if (le) out_byte(o, u & 0xFF), out_byte(o, u >> 8);
    else out_byte(o, u >> 8), out_byte(o, u & 0xFF);
}

static const uint16_t cp1252_hi[32] = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                       0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                                       0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                       0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

static void out_cp(fz_buf *o, int enc, uint32_t cp) {
    switch (enc) {
    case E_U16LE_BOM:
    case E_U16LE:
    case E_U16BE_BOM:
    case E_U16BE: {
        int le = enc == E_U16LE_BOM || enc == E_U16LE;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out_u16(o, le, 0xD800 | (cp >> 10));
            out_u16(o, le, 0xDC00 | (cp & 0x3FF));
        } else {
            out_u16(o, le, cp);
        }
        return;
    }
    /* (characters outside the repertoire, from fixed strings, become 'n') */
    case E_LATIN1: out_byte(o, cp <= 0xFF ? cp : 'n'); return;
    case E_ASCII: out_byte(o, cp < 0x80 ? cp : 'n'); return;
    case E_CP1252:
        if (cp < 0x80 || (cp >= 0xA0 && cp <= 0xFF)) {
            out_byte(o, cp);
            return;
        }
        for (unsigned k = 0; k < 32; k++)
            if (cp1252_hi[k] == cp) {
                out_byte(o, 0x80 + k);
                return;
            }
        out_byte(o, 'n');
        return;
    default: {
        char b[4];
        size_t n;
        if (cp < 0x80) b[0] = (char)cp, n = 1;
        else if (cp < 0x800) b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
        else if (cp < 0x10000)
            b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
            b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
        else
            b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
            b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
        fz_buf_add(o, b, n);
    }
    }
}

static void out_bad(fz_buf *o, int enc, unsigned kind) {
    static const char *const utf8[] = {"\xFF", "\xC0\x80", "\xED\xA0\x80", "\xE2\x82", "\xF4\x90\x80\x80",
                                       "\x80", "\xC3", "\xF8\x88\x80\x80\x80"};
    switch (enc) {
    case E_U16LE_BOM:
    case E_U16LE:
    case E_U16BE_BOM:
    case E_U16BE: {
        int le = enc == E_U16LE_BOM || enc == E_U16LE;
        static const unsigned u[] = {0xD800, 0xDC00, 0xFFFE, 0x0000, 0xDBFF, 0xD800, 0xFFFF, 0x0001};
        out_u16(o, le, u[kind & 7]);
        if ((kind & 7) == 5) out_u16(o, le, 0xD800); /* two high surrogates */
        return;
    }
    case E_LATIN1: out_byte(o, (unsigned[]){0x01, 0x00, 0x0B, 0x1F, 0x01, 0x00, 0x0C, 0x08}[kind & 7]); return;
    case E_CP1252: out_byte(o, (unsigned[]){0x81, 0x8D, 0x8F, 0x90, 0x9D, 0x01, 0x00, 0x81}[kind & 7]); return;
    case E_ASCII: out_byte(o, (unsigned[]){0x80, 0xFF, 0x01, 0xC3, 0xE9, 0x00, 0x9F, 0xA0}[kind & 7]); return;
    default: fz_buf_add(o, utf8[kind & 7], strlen(utf8[kind & 7])); return;
    }
}

static void encode(const gen *g, fz_buf *o) {
    if (g->enc == E_UTF8_BOM) fz_buf_add(o, "\xEF\xBB\xBF", 3);
    if (g->enc == E_U16LE_BOM) fz_buf_add(o, "\xFF\xFE", 2);
    if (g->enc == E_U16BE_BOM) fz_buf_add(o, "\xFE\xFF", 2);
    const uint8_t *s = g->b.p;
    size_t n = g->b.len, i = 0;
    int bi = 0;
    for (;;) {
        while (bi < g->nbad && g->bad[bi].at <= i) out_bad(o, g->enc, g->bad[bi++].kind);
        if (i >= n) break;
        uint32_t cp = s[i];
        size_t l = 1;
        if (cp >= 0xF0) cp &= 0x07, l = 4;
        else if (cp >= 0xE0) cp &= 0x0F, l = 3;
        else if (cp >= 0xC0) cp &= 0x1F, l = 2;
        for (size_t k = 1; k < l && i + k < n; k++) cp = (cp << 6) | (s[i + k] & 0x3F);
        i += l;
        out_cp(o, g->enc, cp);
    }
}

/* ---------------------------------------------------------------- documents */

static void gen_init(gen *g, const uint8_t *choices, size_t n) {
    memset(g, 0, sizeof *g);
    g->p = choices;
    g->n = n;
    g->chain_top = -1;
}

void fz_gen_document(const uint8_t *choices, size_t n, fz_buf *out) {
    gen g;
    gen_init(&g, choices, n);
    g.faulty = pick(&g, 3) == 2;
    g.enc = (int)pick(&g, E_COUNT);
    int needs_decl = g.enc == E_U16LE || g.enc == E_U16BE || g.enc >= E_LATIN1;
    xml_decl(&g, needs_decl && !fault(&g));
    misc(&g);
    unsigned root = pick(&g, N_EL);
    if (pick(&g, 8) != 7) {
        put(&g, "<!DOCTYPE");
        ws(&g, 1);
        put(&g, el_names[fault(&g) ? pick(&g, N_EL) : root]);
        if (pick(&g, 4) == 3) {
            ws(&g, 1);
            external_id(&g, 0);
        }
        if (pick(&g, 8) != 7) {
            ws(&g, 0);
            put_ch(&g, '[');
            unsigned k = 0;
            do {
                ws(&g, 0);
                decl(&g);
            } while (++k < 40 && pick(&g, 8) != 0 && !full(&g));
            ws(&g, 0);
            put_ch(&g, ']');
        }
        ws(&g, 0);
        put_ch(&g, '>');
    }
    misc(&g);
    element(&g, 0, root);
    misc(&g);
    if (fault(&g)) put(&g, pick(&g, 2) ? "<r/>" : "text");
    encode(&g, out);
    fz_buf_free(&g.b);
}

void fz_gen_piece(const uint8_t *choices, size_t n, int kind, fz_buf *out) {
    gen g;
    gen_init(&g, choices, n);
    static const char *const names[] = {"e0", "e1", "e2", "e3", "c0", "c1", "c2", "c3"};
    static const unsigned char kinds[] = {EK_TEXT, EK_TEXT, EK_MARKUP, EK_EXT, EK_TEXT, EK_TEXT, EK_TEXT, EK_TEXT};
    for (int k = 0; k < 8; k++) {
        snprintf(g.ents[k].name, sizeof g.ents[k].name, "%s", names[k]);
        g.ents[k].kind = kinds[k];
    }
    g.nents = 8;
    g.chain_top = 7;
    g.nchain = 4;
    g.nnot = 2;
    g.faulty = pick(&g, 3) == 2;
    switch (kind) {
    case 0: decl(&g); break;
    case 1: element(&g, 1, pick(&g, N_EL)); break;
    case 2: content(&g, 1); break;
    default:
        put_ch(&g, ' ');
        attribute(&g, att_names[pick(&g, N_ATT)], (int)pick(&g, AT_COUNT));
        break;
    }
    fz_buf_add(out, g.b.p, g.b.len);
    fz_buf_free(&g.b);
}
