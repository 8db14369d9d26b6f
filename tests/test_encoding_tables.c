/* The built-in single-byte encodings (encoding_tables.h) against
 * fixtures/encoding-mappings.txt, which Python's codecs wrote one byte at a
 * time (tools/gen-encodings.py), never from the packed tables: every byte
 * value of every encoding through the decoder, every name, and a document in
 * each encoding through the reader at every chunk size. A list of code points
 * checked by hand guards the mapping file itself. */
#include "harness.h"
#include "encoding.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mapping {
    char name[32];
    long cp[256]; /* -1: the byte is undefined */
} mapping;
typedef struct alias {
    char name[32], canon[32];
} alias;

static mapping maps[64];
static size_t n_maps;
static alias aliases[512];
static size_t n_aliases;

/* ./fixtures/encoding-mappings.txt from the top of the tree (make runs the
 * tests there), else next to this source file. */
static FILE *open_mappings(void) {
    FILE *f = fopen("fixtures/encoding-mappings.txt", "r");
    if (f) return f;
    char path[512];
    const char *slash = strrchr(__FILE__, '/');
    int n = slash ? (int)(slash - __FILE__) : 0;
    snprintf(path, sizeof path, "%.*s%s../fixtures/encoding-mappings.txt", n, __FILE__, n ? "/" : "");
    f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open fixtures/encoding-mappings.txt (nor %s)", path);
    return f;
}

static void load(void) {
    if (n_maps) return;
    FILE *f = open_mappings();
    static char line[4096];
    while (fgets(line, sizeof line, f)) {
        cr_assert(strchr(line, '\n'), "line too long in the mapping file");
        char *save = NULL, *kind = strtok_r(line, " \n", &save);
        if (!kind || kind[0] == '#') continue;
        if (!strcmp(kind, "alias")) {
            cr_assert_lt(n_aliases, sizeof aliases / sizeof aliases[0]);
            alias *a = &aliases[n_aliases++];
            snprintf(a->name, sizeof a->name, "%s", strtok_r(NULL, " \n", &save));
            snprintf(a->canon, sizeof a->canon, "%s", strtok_r(NULL, " \n", &save));
            continue;
        }
        cr_assert_str_eq(kind, "encoding");
        cr_assert_lt(n_maps, sizeof maps / sizeof maps[0]);
        mapping *m = &maps[n_maps++];
        snprintf(m->name, sizeof m->name, "%s", strtok_r(NULL, " \n", &save));
        cr_assert_not_null(strtok_r(NULL, " \n", &save)); /* the codec */
        for (int b = 0; b < 256; b++) {
            char *t = strtok_r(NULL, " \n", &save);
            cr_assert_not_null(t, "%s: %d code points, want 256", m->name, b);
            m->cp[b] = strcmp(t, "-") ? strtol(t, NULL, 16) : -1;
        }
        cr_assert_null(strtok_r(NULL, " \n", &save), "%s: more than 256 code points", m->name);
    }
    fclose(f);
}

static const mapping *find(const char *name) {
    load();
    for (size_t k = 0; k < n_maps; k++)
        if (!strcmp(maps[k].name, name)) return &maps[k];
    cr_assert_fail("%s is not in the mapping file", name);
    return NULL;
}

/* UTF-8 of cp at o; returns the length. */
static size_t utf8(long cp, char *o) {
    unsigned long c = (unsigned long)cp;
    if (c < 0x80) return o[0] = (char)c, 1;
    if (c < 0x800) return o[0] = (char)(0xC0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3F)), 2;
    o[0] = (char)(0xE0 | c >> 12), o[1] = (char)(0x80 | ((c >> 6) & 0x3F)), o[2] = (char)(0x80 | (c & 0x3F));
    return 3; /* every table is in the BMP */
}

/* Every table the library is asked to have. */
static const char *const required[] = {
    "ISO-8859-2",   "ISO-8859-3",   "ISO-8859-4",     "ISO-8859-5",   "ISO-8859-6",   "ISO-8859-7",
    "ISO-8859-8",   "ISO-8859-9",   "ISO-8859-10",    "ISO-8859-11",  "ISO-8859-13",  "ISO-8859-14",
    "ISO-8859-15",  "ISO-8859-16",  "windows-1250",   "windows-1251", "windows-1253", "windows-1254",
    "windows-1255", "windows-1256", "windows-1257",   "windows-1258", "KOI8-R",       "KOI8-U",
    "IBM866",       "IBM855",       "macintosh",      "x-mac-cyrillic", "TIS-620",    "windows-874",
};

Test(encoding_tables, every_required_table_is_built_in) {
    load();
    size_t n = sizeof required / sizeof required[0];
    cr_assert_eq(n_maps, n, "the mapping file has %zu encodings, want %zu", n_maps, n);
    for (size_t k = 0; k < n; k++) {
        find(required[k]);
        int enc = stax__encoding_by_name(required[k], strlen(required[k]));
        cr_assert(enc > 0, "%s is not built in", required[k]);
        cr_assert_str_eq(stax__encoding_name(enc), required[k]);
    }
}

/* Code points looked up by hand (code charts), one or two per encoding. */
Test(encoding_tables, hand_checked_code_points) {
    static const struct {
        const char *name;
        int byte;
        long cp;
    } known[] = {
        {"ISO-8859-2", 0xA1, 0x0104},   {"ISO-8859-3", 0xA1, 0x0126},     {"ISO-8859-4", 0xA1, 0x0104},
        {"ISO-8859-5", 0xB0, 0x0410},   {"ISO-8859-6", 0xC7, 0x0627},     {"ISO-8859-7", 0xC1, 0x0391},
        {"ISO-8859-8", 0xE0, 0x05D0},   {"ISO-8859-9", 0xD0, 0x011E},     {"ISO-8859-10", 0xA1, 0x0104},
        {"ISO-8859-11", 0xA1, 0x0E01},  {"ISO-8859-13", 0xA1, 0x201D},    {"ISO-8859-14", 0xA1, 0x1E02},
        {"ISO-8859-15", 0xA4, 0x20AC},  {"ISO-8859-16", 0xAA, 0x0218},    {"windows-1250", 0x8A, 0x0160},
        {"windows-1251", 0xC0, 0x0410}, {"windows-1253", 0xC1, 0x0391},   {"windows-1254", 0xD0, 0x011E},
        {"windows-1255", 0xE0, 0x05D0}, {"windows-1256", 0xC7, 0x0627},   {"windows-1257", 0xC0, 0x0104},
        {"windows-1258", 0xD2, 0x0309}, {"KOI8-R", 0xC1, 0x0430},         {"KOI8-U", 0xA4, 0x0454},
        {"IBM866", 0x80, 0x0410},       {"IBM855", 0x80, 0x0452},         {"macintosh", 0x80, 0x00C4},
        {"x-mac-cyrillic", 0x80, 0x0410}, {"TIS-620", 0xA1, 0x0E01},      {"windows-874", 0x80, 0x20AC},
        {"windows-1251", 0x98, -1},     {"ISO-8859-7", 0xD2, -1},         {"TIS-620", 0xA0, -1},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        const mapping *m = find(known[k].name);
        cr_assert_eq(m->cp[known[k].byte], known[k].cp, "%s 0x%02X: the mapping file says %lX", known[k].name,
                     known[k].byte, m->cp[known[k].byte]);
    }
}

/* Each byte value alone, then all defined bytes in one run into a large and
 * into the smallest output buffer. */
Test(encoding_tables, every_byte_of_every_table) {
    load();
    for (size_t k = 0; k < n_maps; k++) {
        const mapping *m = &maps[k];
        int enc = stax__encoding_by_name(m->name, strlen(m->name));
        cr_assert(enc > 0, "%s", m->name);
        char all_in[256], all_want[768], out[1024];
        size_t n_in = 0, n_want = 0;
        for (int b = 0; b < 256; b++) {
            stax__decoder d;
            stax__decoder_init(&d, enc, NULL);
            char in = (char)b, want[4];
            size_t used = 99, made = 99;
            int rc = stax__decode(&d, &in, 1, &used, out, 8, &made);
            if (m->cp[b] < 0) {
                cr_assert_eq(rc, STAX__DEC_ERROR, "%s 0x%02X: decoded, want an error", m->name, b);
                cr_assert_eq(used, 0);
                cr_assert_eq(made, 0);
                continue;
            }
            size_t wl = utf8(m->cp[b], want);
            cr_assert_eq(rc, 0, "%s 0x%02X: an error, want U+%04lX", m->name, b, m->cp[b]);
            cr_assert_eq(used, 1);
            cr_assert(made == wl && !memcmp(out, want, wl), "%s 0x%02X: wrong output, want U+%04lX", m->name, b,
                      m->cp[b]);
            all_in[n_in++] = (char)b;
            memcpy(all_want + n_want, want, wl);
            n_want += wl;
        }
        static const size_t caps[] = {sizeof out, 8};
        for (size_t c = 0; c < 2; c++) {
            stax__decoder d;
            stax__decoder_init(&d, enc, NULL);
            char got[768];
            size_t off = 0, n_got = 0;
            while (off < n_in) {
                size_t used, made;
                cr_assert_eq(stax__decode(&d, all_in + off, n_in - off, &used, out, caps[c], &made), 0);
                cr_assert(used > 0 || made > 0, "no progress");
                cr_assert(n_got + made <= sizeof got);
                memcpy(got + n_got, out, made);
                n_got += made;
                off += used;
            }
            cr_assert(n_got == n_want && !memcmp(got, all_want, n_want), "%s: every byte at once, cap %zu", m->name,
                      caps[c]);
        }
    }
}

static void upper(char *s) {
    for (; *s; s++)
        if (*s >= 'a' && *s <= 'z') *s = (char)(*s - 32);
}

Test(encoding_tables, every_name) {
    load();
    cr_assert_gt(n_aliases, n_maps);
    for (size_t k = 0; k < n_aliases; k++) {
        const alias *a = &aliases[k];
        int want = stax__encoding_by_name(a->canon, strlen(a->canon));
        cr_assert(want > 0, "%s", a->canon);
        cr_assert_eq(stax__encoding_by_name(a->name, strlen(a->name)), want, "%s is not %s", a->name, a->canon);
        char up[32];
        memcpy(up, a->name, sizeof up);
        upper(up);
        cr_assert_eq(stax__encoding_by_name(up, strlen(up)), want, "%s (any case) is not %s", up, a->canon);
    }
}

/* A document in each encoding with every defined byte >= 0x80 in an attribute
 * value and in text, declared and forced, at every chunk size; then each
 * undefined byte as an error at its offset. */
Test(encoding_tables, documents_through_the_reader) {
    load();
    for (size_t k = 0; k < n_maps; k++) {
        const mapping *m = &maps[k];
        char bytes[129], text[400], doc[1024], want[2048];
        size_t nb = 0, nt = 0;
        for (int b = 0x80; b < 0x100; b++)
            if (m->cp[b] >= 0) {
                bytes[nb++] = (char)b;
                nt += utf8(m->cp[b], text + nt);
            }
        int decl = snprintf(doc, sizeof doc, "<?xml version='1.0' encoding='%.31s'?>\n<d a='", m->name);
        size_t len = (size_t)decl;
        memcpy(doc + len, bytes, nb), len += nb;
        memcpy(doc + len, "'>", 2), len += 2;
        memcpy(doc + len, bytes, nb), len += nb;
        memcpy(doc + len, "</d>", 4), len += 4;
        snprintf(want, sizeof want, "XMLDECL 1.0 enc=\"%.31s\" sa=-\nSTART d a=\"%.*s\"\nTEXT \"%.*s\"\nEND d\nEND-OF-DOCUMENT\n",
                 m->name, (int)nt, text, (int)nt, text);
        stax_test_expect_events(doc, len, NULL, 0, want);

        stax_reader_options o;
        memset(&o, 0, sizeof o);
        o.encoding = m->name;
        size_t body = (size_t)decl - strlen("<d a='"); /* from "<d" on, no declaration */
        snprintf(want, sizeof want, "START d a=\"%.*s\"\nTEXT \"%.*s\"\nEND d\nEND-OF-DOCUMENT\n", (int)nt, text,
                 (int)nt, text);
        stax_test_expect_events(doc + body, len - body, &o, 0, want);

        for (int b = 0x80; b < 0x100; b++) {
            if (m->cp[b] >= 0) continue;
            int n = snprintf(doc, sizeof doc, "<?xml version='1.0' encoding='%.31s'?><d>ab%c</d>", m->name, b);
            char status[64];
            size_t at = (size_t)n - 5; /* the byte before "</d>" */
            snprintf(status, sizeof status, "ERROR ENCODING @1:%zu:%zu", at + 1, at);
            stax_test_expect_status(doc, (size_t)n, NULL, status);
        }
    }
}
