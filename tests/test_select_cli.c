/* stax select, the tool (cli/select.c), in process: the CSV forms (--header,
 * --join), JSON Lines (--json, --arrays), unions of columns, the limits'
 * messages and exit statuses. The library's side is tests/test_select.c. */
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

/* --json with so's other options on doc: the run. */
static sel_out json_run(const char *doc, const char *path, const char *columns, int arrays, const char *names) {
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = path;
    so.json = 1;
    so.json_columns = columns;
    so.arrays = arrays;
    so.header = names != NULL;
    so.header_names = names;
    return sel_tool(NULL, &so, doc);
}

/* Quotes, backslashes and the control characters an XML 1.0 value can hold
 * (TAB, LF, CR, by reference or as they are) escaped; U+007F, U+2028 and
 * the rest of UTF-8 as they are. */
static const char json_doc[] = "<r><a>say \"hi\" \\ back</a><a>t&#9;l&#10;c&#13;e\t.</a>"
                               "<a>\x7f|\xe2\x80\xa8|\xc3\xa9|\xf0\x9d\x84\x9e</a><a/><a>&amp;&lt;&gt;&apos;/</a></r>";

Test(select_cli, json_escapes_each_value_as_rfc_8259_says) {
    csv_ok(json_run(json_doc, "//a", NULL, 0, NULL), "\"say \\\"hi\\\" \\\\ back\"\n"
                                                     "\"t\\tl\\nc\\re\\t.\"\n"
                                                     "\"\x7f|\xe2\x80\xa8|\xc3\xa9|\xf0\x9d\x84\x9e\"\n"
                                                     "\"\"\n"
                                                     "\"&<>'/\"\n");
    /* attributes (normalized: the TAB by reference stays) and text nodes */
    csv_ok(json_run("<r><a x='&quot;1&#9;2&#10;\\'/><a>x<b/>y</a></r>", "//a/@x|//a/text()", NULL, 0, NULL),
           "\"\\\"1\\t2\\n\\\\\"\n\"x\"\n\"y\"\n");
}

Test(select_cli, json_with_xml_writes_the_xml_as_a_string) {
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//a[2]|//b/@x";
    so.json = 1;
    so.xml = 1;
    csv_ok(sel_tool(NULL, &so, "<r><a>1</a><a k='\"'>t&#9;&#13;\\</a><b x='&lt;'/></r>"),
           "\"<a k=\\\"&quot;\\\">t\\t&#13;\\\\</a>\"\n\"x=\\\"&lt;\\\"\"\n");
}

/* --json=COLUMNS: an object per record, keys the column paths as written
 * (or the --header names), escaped as values are; a column without a match
 * is "". */
Test(select_cli, json_columns_make_an_object_per_record) {
    csv_ok(json_run(books, "//b", "@id, au ,t", 0, NULL),
           "{\"@id\":\"1\",\"au\":\"A\",\"t\":\"T\"}\n{\"@id\":\"2\",\"au\":\"\",\"t\":\"U\"}\n"
           "{\"@id\":\"3\",\"au\":\"D\",\"t\":\"\"}\n");
    csv_ok(json_run(books, "//b", "@id,au", 0, "id,the \"au\\\x01\t"),
           "{\"id\":\"1\",\"the \\\"au\\\\\\u0001\\t\":\"A\"}\n{\"id\":\"2\",\"the \\\"au\\\\\\u0001\\t\":\"\"}\n"
           "{\"id\":\"3\",\"the \\\"au\\\\\\u0001\\t\":\"D\"}\n");
    csv_ok(json_run(books, "//b[@id='1']", "au[@k=\"x\"]|t", 0, NULL), "{\"au[@k=\\\"x\\\"]|t\":\"T\"}\n");
    csv_ok(json_run(json_doc, "/r", "a[2],a[4]", 0, "tab,empty"), "{\"tab\":\"t\\tl\\nc\\re\\t.\",\"empty\":\"\"}\n");
    /* --first counts objects; nothing selected: nothing written, status 1 */
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//b";
    so.json = 1;
    so.json_columns = "@id";
    so.first = 2;
    csv_ok(sel_tool(NULL, &so, books), "{\"@id\":\"1\"}\n{\"@id\":\"2\"}\n");
    sel_out r = json_run("<r/>", "//b", "@id", 0, NULL);
    cr_assert_eq(r.rc, 1, "%s", r.err);
    cr_assert_str_eq(r.out, "");
    free(r.out);
    /* an error: status 2, the lines before it written, the one open left without its end */
    r = json_run("<r><b id='1'/><b id='2'>x</c>", "//b", "@id,.", 0, NULL);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "in.xml:1:"), "%s", r.err);
    cr_assert_str_eq(r.out, "{\"@id\":\"1\",\".\":\"\"}\n{\"@id\":\"2\",\".\":\"x");
    free(r.out);
}

/* --arrays: each column every match in the record, in document order, an
 * array; [] for none. An empty match is "" beside others; alone it is [],
 * as no match is (the select's pieces do not tell them apart). */
Test(select_cli, json_arrays_give_every_match_of_a_column) {
    csv_ok(json_run(books, "//b", "@id,au,t", 1, NULL),
           "{\"@id\":[\"1\"],\"au\":[\"A\",\"B, C\"],\"t\":[\"T\"]}\n{\"@id\":[\"2\"],\"au\":[],\"t\":[\"U\"]}\n"
           "{\"@id\":[\"3\"],\"au\":[\"D\"],\"t\":[]}\n");
    csv_ok(json_run("<r><b x='1' y='\"'/></r>", "//b", "@*", 1, "all"), "{\"all\":[\"1\",\"\\\"\"]}\n");
    csv_ok(json_run("<r><b><a>1<a>2</a></a></b></r>", "//b", ".//a", 1, NULL), "{\".//a\":[\"12\",\"2\"]}\n");
    csv_ok(json_run("<r><b><a/><a>x&#10;</a><a/><a/></b><b><a/></b></r>", "//b", "a", 1, NULL),
           "{\"a\":[\"\",\"x\\n\",\"\",\"\"]}\n{\"a\":[]}\n");
    csv_ok(json_run(json_doc, "/r", "a", 1, NULL),
           "{\"a\":[\"say \\\"hi\\\" \\\\ back\",\"t\\tl\\nc\\re\\t.\",\"\x7f|\xe2\x80\xa8|\xc3\xa9|\xf0\x9d\x84\x9e\",\"\","
           "\"&<>'/\"]}\n");
}

/* What --json cannot go with: exit status 2, nothing read or written. */
Test(select_cli, json_refuses_what_has_no_meaning_with_it) {
    static const struct {
        stax_cli_select_opts so;
        const char *says;
    } cases[] = {
        {{.csv = "@id", .json = 1}, "--count, --csv and --json exclude each other"},
        {{.count = 1, .json = 1}, "--count, --csv and --json exclude each other"},
        {{.json_columns = "@id", .xml = 1, .json = 1}, "--xml, --count, --csv and --json=COLUMNS exclude each other"},
        {{.nul = 1, .json = 1}, "-0 and --json exclude each other"},
        {{.header = 1, .json = 1}, "--header goes with --csv or --json=COLUMNS"},
        {{.json_columns = "@id", .header = 1, .json = 1}, "--json=COLUMNS takes the column paths as keys: --header=NAMES"},
        {{.json_columns = "@id", .join = ";", .json = 1}, "--join goes with --csv (with --json=COLUMNS, --arrays gives"},
        {{.arrays = 1, .json = 1}, "--arrays goes with --json=COLUMNS"},
        {{.csv = "@id", .arrays = 1}, "--arrays goes with --json=COLUMNS"},
        {{.json_columns = "", .json = 1}, "--json= needs a column at least"},
        {{.json_columns = "@id,au,@id", .json = 1}, "the column '@id' is a key twice (name the columns"},
        {{.json_columns = "@id,au", .header_names = "a,a", .header = 1, .json = 1}, "the --header name 'a' is a key twice"},
        {{.json_columns = "@id,au", .header_names = "a", .header = 1, .json = 1}, "--header gives 1 name for 2 columns"},
        {{.json_columns = "@id", .header_names = "\xc3(", .header = 1, .json = 1}, "is not UTF-8"},
        {{.json_columns = "@id", .header_names = "\xed\xa0\x80", .header = 1, .json = 1}, "is not UTF-8"},
        {{.json_columns = "@id", .header_names = "\xe0\x80\xaf", .header = 1, .json = 1}, "is not UTF-8"},
        {{.json_columns = "@id", .header_names = "\xf4\x90\x80\x80", .header = 1, .json = 1}, "is not UTF-8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        stax_cli_select_opts so = cases[i].so;
        so.path = "//b";
        sel_out r = sel_tool(NULL, &so, books);
        cr_assert_eq(r.rc, 2, "case %zu", i);
        cr_assert_str_eq(r.out, "", "case %zu", i);
        cr_assert(strstr(r.err, cases[i].says), "case %zu: %s", i, r.err);
        free(r.out);
    }
    /* a name that is UTF-8 is a key, whatever its script */
    csv_ok(json_run(books, "//b[@id='3']", "@id", 0, "\xc3\xa9\xf0\x9d\x84\x9e"), "{\"\xc3\xa9\xf0\x9d\x84\x9e\":\"3\"}\n");
}

/* Each line of the tool's --json output is one JSON text for Python's json
 * module (strict: no raw control character in a string), and decodes to
 * the values: printed again with every non-ASCII character escaped. */
Test(select_cli, json_lines_parse_with_python_line_by_line) {
    static const char python[] = "/usr/bin/python3";
    if (access(python, X_OK) != 0) cr_skip_test("no %s (sh tools/deps.sh test installs it)", python);
    char dir[] = "/tmp/stax-json-XXXXXX", path[256], cmd[2048];
    static char out[1 << 16];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/doc.xml", dir);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs("<r><b id='1' k=''>", f);
    fwrite(json_doc + 3, 1, sizeof json_doc - 1 - 7, f); /* its a elements, without <r> and </r> */
    fputs("</b><b id='2'><a>\xe2\x80\xa9</a></b><b id='3'/></r>", f);
    cr_assert_eq(fclose(f), 0);
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"--json //a",
         "\"say \\\"hi\\\" \\\\ back\"\n\"t\\tl\\nc\\re\\t.\"\n\"\\u007f|\\u2028|\\u00e9|\\ud834\\udd1e\"\n\"\"\n\"&<>'/\"\n"
         "\"\\u2029\"\n"},
        {"--json --xml '//b[@id=\"2\"]|//a[2]'", "\"<a>t\\tl\\nc&#13;e\\t.</a>\"\n\"<b id=\\\"2\\\"><a>\\u2029</a></b>\"\n"},
        {"--json=@id,@k,'a[3]' --header=id,k,third //b",
         "{\"id\": \"1\", \"k\": \"\", \"third\": \"\\u007f|\\u2028|\\u00e9|\\ud834\\udd1e\"}\n"
         "{\"id\": \"2\", \"k\": \"\", \"third\": \"\"}\n{\"id\": \"3\", \"k\": \"\", \"third\": \"\"}\n"},
        {"--json=@id,a --arrays //b",
         "{\"@id\": [\"1\"], \"a\": [\"say \\\"hi\\\" \\\\ back\", \"t\\tl\\nc\\re\\t.\", "
         "\"\\u007f|\\u2028|\\u00e9|\\ud834\\udd1e\", \"\", \"&<>'/\"]}\n"
         "{\"@id\": [\"2\"], \"a\": [\"\\u2029\"]}\n{\"@id\": [\"3\"], \"a\": []}\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 "%s select %s '%s' | %s -c 'import sys, json\n"
                 "for line in sys.stdin.buffer:\n"
                 "    assert line.endswith(b\"\\n\"), line\n"
                 "    print(json.dumps(json.loads(line)))' 2>&1",
                 stax_test_bin(), cases[i].args, path, python);
        int rc = stax_test_shell(cmd, out, sizeof out);
        cr_assert_eq(rc, 0, "%s: %s", cases[i].args, out);
        cr_assert_str_eq(out, cases[i].want, "%s\ngot:\n%s\nwant:\n%s", cases[i].args, out, cases[i].want);
    }
    /* Values of every length up to 40 with a character to escape (or a
     * multi-byte one) at every place in an eight-byte word: the strings
     * Python decodes are the values -0 writes. */
    static const char *const pieces[] = {"a", "\"", "\\", "&#9;", "&#10;", "&#13;", "\x7f", "\xe2\x80\xa8", "\xc3\xa9",
                                         "\xf0\x9d\x84\x9e", " ", "&amp;", "&lt;"};
    f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs("<r>", f);
    uint32_t seed = 53;
    for (int k = 0; k < 2000; k++) {
        fputs("<a>", f);
        for (int len = k % 41; len > 0; len--) {
            seed = seed * 1103515245u + 12345u;
            fputs(pieces[(seed >> 8) % (sizeof pieces / sizeof pieces[0])], f);
        }
        fputs("</a>", f);
    }
    fputs("</r>", f);
    cr_assert_eq(fclose(f), 0);
    snprintf(cmd, sizeof cmd,
             "%s select -0 //a '%s' > '%s.0' && %s select --json //a '%s' | %s -c 'import sys, json\n"
             "want = open(sys.argv[1], \"rb\").read().split(b\"\\0\")[:-1]\n"
             "got = [json.loads(line).encode() for line in sys.stdin.buffer]\n"
             "print(len(got), got == want)' '%s.0' 2>&1",
             stax_test_bin(), path, path, stax_test_bin(), path, python, path);
    cr_assert_eq(stax_test_shell(cmd, out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "2000 True\n");
    snprintf(cmd, sizeof cmd, "%s.0", path);
    unlink(cmd);
    unlink(path);
    rmdir(dir);
}

/* Predicates on content in the tool: records chosen by their content, and
 * a held candidate over --max-held stops with exit status 2 and says why. */
Test(select_cli, predicates_on_content_choose_records_and_hold_within_max_held) {
    csv_is(books, "//b[t='U' or au='A']", "@id,t", "1,T\n2,U\n");
    csv_is(books, "//b[count(au)=2][last()]", "@id,au", "1,A\n");
    char doc[4096];
    size_t n = (size_t)sprintf(doc, "<r><a>");
    for (int k = 0; k < 100; k++) n += (size_t)sprintf(doc + n, "<t>xxxxxxxxxx</t>");
    sprintf(doc + n, "<k/></a></r>");
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//a[k]/t";
    so.max_held = 1024;
    sel_out r = sel_tool(NULL, &so, doc);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "held output exceeds max_held (1024 bytes)") &&
                  strstr(r.err, "candidates wait until their predicates are decided"),
              "%s", r.err);
    free(r.out);
    so.max_held = 0;
    r = sel_tool(NULL, &so, doc);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_eq(r.len, 1100);
    free(r.out);
}
