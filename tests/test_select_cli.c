/* stax select, the tool (cli/select.c), in process: the CSV forms (--header,
 * --join), unions of columns, the limits' messages and exit statuses. The
 * library's side is tests/test_select.c. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../cli/cli.h"
#include "harness.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sel_out {
    int rc;
    char *out;     /* stdout (NUL-terminated; may hold NULs before its end with -0) */
    size_t len;
    char err[2048]; /* stderr */
} sel_out;

/* stax select with so (and o's common options) on doc, fed through a pipe
 * (docs here are short), stdout into memory, stderr captured. */
static sel_out sel_tool(const stax_cli_opts *common, const stax_cli_select_opts *so, const char *doc) {
    sel_out r;
    memset(&r, 0, sizeof r);
    stax_cli_opts o;
    if (common) o = *common;
    else memset(&o, 0, sizeof o);
    if (!o.name) o.name = "in.xml";
    int p[2];
    cr_assert_eq(pipe(p), 0);
    size_t n = strlen(doc);
    cr_assert_lt(n, 60000, "a document for a pipe");
    cr_assert_eq(write(p[1], doc, n), (ssize_t)n);
    close(p[1]);
    FILE *out = open_memstream(&r.out, &r.len);
    cr_assert_not_null(out);
    FILE *err = tmpfile();
    cr_assert_not_null(err);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(err), 2);
    r.rc = stax_cmd_select(&o, so, p[0], out);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(p[0]);
    fclose(out);
    rewind(err);
    r.err[fread(r.err, 1, sizeof r.err - 1, err)] = '\0';
    fclose(err);
    return r;
}

/* --csv COLUMNS PATH on doc: the rows, exit status 0 and nothing on stderr. */
static void csv_is(const char *doc, const char *path, const char *columns, const char *want) {
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = path;
    so.csv = columns;
    sel_out r = sel_tool(NULL, &so, doc);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.err, "");
    cr_assert_str_eq(r.out, want, "--csv '%s' %s\ngot:\n%s\nwant:\n%s", columns, path, r.out, want);
    free(r.out);
}

Test(select_cli, a_union_column_takes_the_first_match_in_document_order) {
    csv_is("<r><c y=\"Y\" x=\"X\"/></r>", "//c", "@x|@y", "Y\n");
    csv_is("<r><c y=\"Y\" x=\"X\"/></r>", "//c", "@x|@y,@x", "Y,X\n");
    csv_is("<r><c><b>B</b><a>A</a></c></r>", "//c", "a|b", "B\n");
    csv_is("<r><c>T<a>A</a></c></r>", "//c", "a|text()", "T\n");
}

Test(select_cli, an_empty_cdata_section_is_no_text_node) {
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//text()";
    so.count = 1;
    sel_out r = sel_tool(NULL, &so, "<b><![CDATA[]]></b>");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "0\n");
    free(r.out);
    r = sel_tool(NULL, &so, "<b>a<![CDATA[b]]>c</b>");
    cr_assert_str_eq(r.out, "1\n");
    free(r.out);
}
