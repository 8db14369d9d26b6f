/* stax fmt round trip: canon(fmt(doc)) == canon(doc) for hand-written
 * documents, every fixture, and every W3C suite document the reader accepts
 * (when `make conformance` has fetched the suite into build/xmlconf, or
 * where $STAX_XMLCONF says). With
 * indentation the canonical forms must agree once whitespace-only text
 * between tags is removed from both. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "harness.h"
#include "stax.h"
#include "../cli/cli.h"

#include <criterion/criterion.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*cmd_fn)(const stax_cli_opts *o, int fd, FILE *out);

/* Run a subcommand on data; returns its exit code, *out its output (malloc'd). */
static int run_cmd(cmd_fn fn, int indent, const char *data, size_t len, char **out, size_t *out_len) {
    FILE *in = tmpfile();
    cr_assert_not_null(in);
    cr_assert_eq(fwrite(data, 1, len, in), len);
    fflush(in);
    rewind(in);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.indent = indent;
    o.quiet = 1;
    o.name = "doc";
    FILE *mem = open_memstream(out, out_len);
    cr_assert_not_null(mem);
    int rc = fn(&o, fileno(in), mem);
    fclose(mem);
    fclose(in);
    return rc;
}

/* Remove whitespace-only text between '>' and '<' of a canonical form (where
 * whitespace is spaces and the references canon writes for TAB LF CR). */
static size_t strip_ws_text(char *s, size_t n) {
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        s[o++] = s[i];
        if (s[i++] != '>') continue;
        size_t j = i;
        for (;;) {
            if (j < n && s[j] == ' ') j++;
            else if (n - j >= 4 && !memcmp(s + j, "&#9;", 4)) j += 4;
            else if (n - j >= 5 && (!memcmp(s + j, "&#10;", 5) || !memcmp(s + j, "&#13;", 5))) j += 5;
            else break;
        }
        if (j < n && s[j] == '<') i = j;
    }
    return o;
}

/* Check one document; returns 0 if the reader rejects it (nothing to check). */
static int check_round_trip(const char *name, const char *doc, size_t len) {
    char *canon = NULL, *fmt = NULL, *canon2 = NULL;
    size_t canon_len, fmt_len, canon2_len;
    int rc = run_cmd(stax_cmd_canon, 0, doc, len, &canon, &canon_len);
    if (rc != 0) {
        free(canon);
        return 0;
    }
    for (int indent = 0; indent <= 2; indent += 2) {
        rc = run_cmd(stax_cmd_fmt, indent, doc, len, &fmt, &fmt_len);
        cr_assert_eq(rc, 0, "%s: fmt --indent %d failed (%d)", name, indent, rc);
        rc = run_cmd(stax_cmd_canon, 0, fmt, fmt_len, &canon2, &canon2_len);
        cr_assert_eq(rc, 0, "%s: fmt --indent %d output is not well-formed:\n%.*s", name, indent, (int)fmt_len, fmt);
        size_t a = canon_len, b = canon2_len;
        char *want = malloc(a + 1);
        memcpy(want, canon, a);
        if (indent) {
            a = strip_ws_text(want, a);
            b = strip_ws_text(canon2, b);
        }
        cr_assert(a == b && memcmp(want, canon2, a) == 0,
                  "%s: canon(fmt --indent %d) differs\n  canon(doc): %.*s\n  canon(fmt): %.*s\n  fmt: %.*s", name,
                  indent, (int)a, want, (int)b, canon2, (int)fmt_len, fmt);
        free(want);
        free(fmt);
        free(canon2);
    }
    free(canon);
    return 1;
}

Test(writer_fmt, hand_written_documents) {
    static const char *docs[] = {
        "<a/>",
        "<a x=\"1 &amp; 2\" y='&quot;&#9;&#10;&#13;'>t &lt; &gt; &amp;&#13;</a>",
        "<?xml version=\"1.0\" encoding=\"US-ASCII\" standalone=\"yes\"?>\n<!-- c -->\n<a><b/><c>x</c></a>\n<?p d?>",
        "<!DOCTYPE a [<!ENTITY e \"ent\"><!ATTLIST a d CDATA \"def\">]><a>&e;</a>",
        "<!DOCTYPE a SYSTEM \"a.dtd\"><a/>",
        "<a><p>Hello <b>big</b> world</p><q>\n  <r/>\n</q></a>",
        "<a>  <b>x</b>  tail  <c/>  </a>",
        "<a><![CDATA[x]]]]><![CDATA[>y <&>]]></a>",
        "<a>\r\n line\r end </a>",
        "<a><b>\xc3\xa9\xf0\x9f\x98\x80</b><!--only--><?pi?></a>",
        "<r>\n  <s>\n    <t/>\n  </s>\n  <u> </u>\n</r>",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "doc %zu", i);
        cr_assert(check_round_trip(name, docs[i], strlen(docs[i])), "%s: reader rejected it", name);
    }
}

Test(writer_fmt, exact_output) {
    const char *doc = "<?xml version='1.0'?><!DOCTYPE r><r a='1'><s><t/></s><p>x<b/>y</p><u>  </u></r>";
    char *out = NULL;
    size_t n;
    cr_assert_eq(run_cmd(stax_cmd_fmt, 2, doc, strlen(doc), &out, &n), 0);
    const char *want = "<?xml version=\"1.0\"?>\n"
                       "<!DOCTYPE r>\n"
                       "<r a=\"1\">\n"
                       "  <s>\n"
                       "    <t/>\n"
                       "  </s>\n"
                       "  <p>x<b/>y</p>\n"
                       "  <u/>\n"
                       "</r>\n";
    cr_assert(n == strlen(want) && !memcmp(out, want, n), "got\n%.*s", (int)n, out);
    free(out);
    cr_assert_eq(run_cmd(stax_cmd_fmt, 0, doc, strlen(doc), &out, &n), 0);
    want = "<?xml version=\"1.0\"?><!DOCTYPE r><r a=\"1\"><s><t/></s><p>x<b/>y</p><u>  </u></r>\n";
    cr_assert(n == strlen(want) && !memcmp(out, want, n), "got\n%.*s", (int)n, out);
    free(out);
}

Test(writer_fmt, not_well_formed_input_exits_1) {
    char *out = NULL;
    size_t n;
    cr_assert_eq(run_cmd(stax_cmd_fmt, 2, "<a><b></a>", 10, &out, &n), 1);
    free(out);
}

/* ---------------------------------------------------------------- files */

static size_t files_checked, files_seen;

static int check_file(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || n < 4 || strcmp(path + n - 4, ".xml") != 0) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char *buf = NULL;
    size_t len = 0, cap = 0, k;
    do {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            buf = realloc(buf, cap);
        }
        k = fread(buf + len, 1, cap - len, f);
        len += k;
    } while (k > 0);
    fclose(f);
    files_seen++;
    files_checked += (size_t)check_round_trip(path, buf, len);
    free(buf);
    return 0;
}

Test(writer_fmt, fixtures) {
    files_checked = files_seen = 0;
    if (access("fixtures", F_OK) != 0) cr_skip_test("no fixtures folder (run from the repository root)");
    nftw("fixtures", check_file, 16, FTW_PHYS);
    cr_log_info("fmt round trip: %zu of %zu fixtures accepted and checked", files_checked, files_seen);
}

Test(writer_fmt, w3c_suite, .timeout = 600) {
    files_checked = files_seen = 0;
    const char *dir = getenv("STAX_XMLCONF") ? getenv("STAX_XMLCONF") : "build/xmlconf";
    if (access(dir, F_OK) != 0) cr_skip_test("W3C suite not fetched (make conformance fetches it)");
    nftw(dir, check_file, 16, FTW_PHYS);
    cr_log_info("fmt round trip: %zu of %zu suite documents accepted and checked", files_checked, files_seen);
    cr_assert(files_checked > 0);
}
