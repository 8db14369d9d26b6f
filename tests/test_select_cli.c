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
    cr_assert_eq(r.rc, 1, "%s", r.err); /* nothing selected */
    cr_assert_str_eq(r.out, "0\n");
    free(r.out);
    r = sel_tool(NULL, &so, "<b>a<![CDATA[b]]>c</b>");
    cr_assert_str_eq(r.out, "1\n");
    free(r.out);
}

/* --csv with the forms of so's CSV options: the run. */
static sel_out csv_run(const char *doc, const char *path, const char *columns, int header, const char *names,
                       const char *join) {
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = path;
    so.csv = columns;
    so.header = header;
    so.header_names = names;
    so.join = join;
    return sel_tool(NULL, &so, doc);
}

static void csv_ok(sel_out r, const char *want) {
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.err, "");
    cr_assert_str_eq(r.out, want, "got:\n%s\nwant:\n%s", r.out, want);
    free(r.out);
}

static const char books[] = "<r><b id='1'><au>A</au><au>B, C</au><t>T</t></b><b id='2'><t>U</t></b>"
                            "<b id='3'><au>D</au></b></r>";

Test(select_cli, header_names_the_columns) {
    csv_ok(csv_run(books, "//b", "@id,au", 1, NULL, NULL), "@id,au\n1,A\n2,\n3,D\n");
    csv_ok(csv_run(books, "//b", " @id , au|t ", 1, NULL, NULL), "@id,au|t\n1,A\n2,U\n3,D\n");
    /* a column path with a comma or quote is quoted as a field is */
    csv_ok(csv_run(books, "//b", "au[@k=\"x,y\"],@id", 1, NULL, NULL), "\"au[@k=\"\"x,y\"\"]\",@id\n,1\n,2\n,3\n");
    csv_ok(csv_run(books, "//b", "@id,au", 1, "id,author", NULL), "id,author\n1,A\n2,\n3,D\n");
    csv_ok(csv_run(books, "//b", "@id", 1, "the \"id\"", NULL), "\"the \"\"id\"\"\"\n1\n2\n3\n");
    csv_ok(csv_run(books, "//b", "@id,au", 1, "id,", NULL), "id,\n1,A\n2,\n3,D\n"); /* an empty name */
    /* a document without records: the header alone, and nothing selected */
    sel_out r = csv_run("<r/>", "//b", "@id,au", 1, NULL, NULL);
    cr_assert_eq(r.rc, 1, "%s", r.err);
    cr_assert_str_eq(r.err, "");
    cr_assert_str_eq(r.out, "@id,au\n");
    free(r.out);
}

Test(select_cli, header_names_must_be_one_per_column) {
    sel_out r = csv_run(books, "//b", "@id,au", 1, "id", NULL);
    cr_assert_eq(r.rc, 2);
    cr_assert_str_eq(r.out, "");
    cr_assert(strstr(r.err, "--header gives 1 name for 2 columns"), "%s", r.err);
    free(r.out);
    r = csv_run(books, "//b", "@id", 1, "a,b,c", NULL);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "--header gives 3 names for 1 column"), "%s", r.err);
    free(r.out);
}

Test(select_cli, join_gives_every_match_of_a_column) {
    csv_ok(csv_run(books, "//b", "@id,au,t", 0, NULL, "; "), "1,\"A; B, C\",T\n2,,U\n3,D,\n");
    csv_ok(csv_run(books, "//b", "au", 0, NULL, ""), "\"AB, C\"\n\nD\n");
    csv_ok(csv_run(books, "//b", "au", 0, NULL, "|"), "\"A|B, C\"\n\nD\n");
    csv_ok(csv_run("<r><b x='1' y='2'/></r>", "//b", "@*", 1, "all", "+"), "all\n1+2\n");
    csv_ok(csv_run("<r><b><a>1<a>2</a></a></b></r>", "//b", ".//a", 0, NULL, ";"), "12;2\n");
    /* --first counts rows, not the header */
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//b";
    so.csv = "au";
    so.header = 1;
    so.join = ";";
    so.first = 1;
    sel_out r = sel_tool(NULL, &so, books);
    csv_ok(r, "au\n\"A;B, C\"\n");
    /* -0: rows, header too, end with NUL */
    so.first = 0;
    so.nul = 1;
    r = sel_tool(NULL, &so, books);
    cr_assert_eq(r.rc, 0);
    static const char want[] = "au\0\"A;B, C\"\0\0D\0";
    cr_assert_eq(r.len, sizeof want - 1);
    cr_assert_eq(memcmp(r.out, want, r.len), 0);
    free(r.out);
}

Test(select_cli, header_and_join_go_with_csv) {
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//b";
    so.header = 1;
    sel_out r = sel_tool(NULL, &so, books);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "--header goes with --csv"), "%s", r.err);
    free(r.out);
    so.header = 0;
    so.join = ",";
    r = sel_tool(NULL, &so, books);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "--join goes with --csv"), "%s", r.err);
    free(r.out);
}

/* A limit of the select: exit status 2, the option and its value in the message. */
Test(select_cli, a_select_limit_exits_2_and_names_the_option) {
    char doc[4096];
    size_t n = 0;
    for (int k = 0; k < 40; k++) n += (size_t)sprintf(doc + n, "<a>xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    for (int k = 0; k < 40; k++) n += (size_t)sprintf(doc + n, "</a>");
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//a";
    so.max_held = 2048;
    sel_out r = sel_tool(NULL, &so, doc);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "in.xml:1:") && strstr(r.err, "held output exceeds max_held (2048 bytes)"), "%s", r.err);
    free(r.out);
    /* a --memory block too small for --max-held: refused before reading, and why */
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.memory = 16384;
    so.max_held = (size_t)1 << 20;
    r = sel_tool(&o, &so, doc);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "cannot create a select: the fixed block is too small for max_state and max_held"), "%s",
              r.err);
    free(r.out);
}

/* The tool's CSV row (what streams into it and what was held) is bounded by
 * twice --max-held: beyond, exit status 2 and the bound in the message. */
Test(select_cli, a_csv_row_longer_than_twice_max_held_says_so) {
    char doc[8192];
    size_t n = (size_t)sprintf(doc, "<r><b>");
    memset(doc + n, 'x', 5000);
    n += 5000;
    sprintf(doc + n, "</b></r>");
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//b";
    so.csv = ".";
    so.max_held = 1024;
    sel_out r = sel_tool(NULL, &so, doc);
    cr_assert_eq(r.rc, 2, "%s", r.err);
    cr_assert(strstr(r.err, "a CSV row is longer than twice --max-held (1024 bytes)"), "%s", r.err);
    free(r.out);
    so.max_held = 4096;
    r = sel_tool(NULL, &so, doc);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(r.len, 5001);
    free(r.out);
}

/* --csv '' names no column: refused before reading, as --csv ',' is (not
 * read as the column '.'). */
Test(select_cli, csv_without_a_column_is_refused) {
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//b";
    so.csv = "";
    sel_out r = sel_tool(NULL, &so, books);
    cr_assert_eq(r.rc, 2);
    cr_assert_str_eq(r.out, "");
    cr_assert_str_eq(r.err, "stax: select: --csv needs a column at least ('.' for the record itself)\n");
    free(r.out);
    so.csv = ",";
    r = sel_tool(NULL, &so, books);
    cr_assert_eq(r.rc, 2);
    cr_assert_str_eq(r.out, "");
    cr_assert(strstr(r.err, "at character 1 of the columns"), "%s", r.err);
    free(r.out);
    so.csv = "."; /* the record itself: a column */
    csv_ok(sel_tool(NULL, &so, books), "\"AB, CT\"\nU\nD\n");
}

/* As grep: 0 when something was selected, 1 when nothing was (whatever
 * was written: --count's zeros, --header's row), 2 for an error, a
 * document that is not well-formed included (what was selected before the
 * error is written). */
Test(select_cli, exit_status_as_grep) {
    static const struct {
        const char *path, *csv;
        int count, header, xml, nul;
        uint64_t first;
        int good, none; /* on books, on a document without b */
    } cases[] = {
        {"//b", NULL, 0, 0, 0, 0, 0, 0, 1},      {"//b/@id", NULL, 0, 0, 0, 0, 0, 0, 1},
        {"//b/t/text()", NULL, 0, 0, 0, 0, 0, 0, 1}, {"//b", NULL, 0, 0, 1, 0, 0, 0, 1},
        {"//b", NULL, 1, 0, 0, 0, 0, 0, 1},      {"//x|//b", NULL, 1, 0, 0, 0, 0, 0, 1},
        {"//b", "@id", 0, 0, 0, 0, 0, 0, 1},     {"//b", "@id", 0, 1, 0, 0, 0, 0, 1},
        {"//b", NULL, 0, 0, 0, 1, 0, 0, 1},      {"//b", NULL, 0, 0, 0, 0, 2, 0, 1},
        {"//b/@nothing", NULL, 0, 0, 0, 0, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        stax_cli_select_opts so;
        memset(&so, 0, sizeof so);
        so.path = cases[i].path;
        so.csv = cases[i].csv;
        so.count = cases[i].count;
        so.header = cases[i].header;
        so.xml = cases[i].xml;
        so.nul = cases[i].nul;
        so.first = cases[i].first;
        static const char *const docs[] = {books, "<r><a id='1'>x</a></r>", "<r><b id='1'>x</b><b id='2'>y</b></c>"};
        int want[] = {cases[i].good, cases[i].none, cases[i].first ? 0 : 2}; /* --first 2: stops before the error */
        for (size_t d = 0; d < 3; d++) {
            sel_out r = sel_tool(NULL, &so, docs[d]);
            cr_assert_eq(r.rc, want[d], "case %zu on %s: %s", i, docs[d], r.err);
            if (want[d] == 2) cr_assert(strstr(r.err, "in.xml:1:"), "case %zu: %s", i, r.err);
            else cr_assert_str_eq(r.err, "", "case %zu on %s", i, docs[d]);
            free(r.out);
        }
    }
}
