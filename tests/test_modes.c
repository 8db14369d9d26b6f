/* The reader's input shapes: a fragment (STAX_READ_FRAGMENT, the content of
 * an external parsed entity) and a sequence of documents
 * (STAX_READ_DOCUMENTS). Every dump is checked at every chunk size of the
 * harness (1, 2, 3, 7, 64 KiB and whole), errors with their line, column and
 * byte offset; then a fixed block, save and resume, a parallel read, and the
 * tool's --fragment and --documents. */
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

static stax_reader_options shape(unsigned flags) {
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    return o;
}

static void expect(unsigned flags, const char *doc, const char *want) {
    stax_reader_options o = shape(flags);
    stax_test_expect_events(doc, strlen(doc), &o, STAX_DUMP_POS, want);
}

static void expect_error(unsigned flags, const char *doc, const char *want) {
    stax_reader_options o = shape(flags);
    stax_test_expect_status(doc, strlen(doc), &o, want);
}

#define FRAG STAX_READ_FRAGMENT
#define DOCS STAX_READ_DOCUMENTS

/* ================================================================ fragments */

Test(modes, fragment_text_and_several_elements_at_the_top_level) {
    expect(FRAG, "hi <a>x</a>\n<b/>t&amp;&#65;",
           "TEXT \"hi \" @1:1:0\n"
           "START a @1:4:3\n"
           "TEXT \"x\" @1:7:6\n"
           "END a @1:8:7\n"
           "TEXT \"\\n\" ws @1:12:11\n"
           "START b / @2:1:12\n"
           "END b @2:1:12\n"
           "TEXT \"t&A\" @2:5:16\n"
           "END-OF-DOCUMENT\n");
}

Test(modes, fragment_comments_pis_and_cdata_at_the_top_level) {
    expect(FRAG, "<!--c--><?p d?><![CDATA[<x>]]>  <e/>",
           "COMMENT \"c\" @1:1:0\n"
           "PI p \"d\" @1:9:8\n"
           "CDATA \"<x>\" @1:16:15\n"
           "TEXT \"  \" ws @1:31:30\n"
           "START e / @1:33:32\n"
           "END e @1:33:32\n"
           "END-OF-DOCUMENT\n");
    stax_reader_options o = shape(FRAG | STAX_READ_SKIP_WS);
    stax_test_expect_events(STAX_DOC("  <e/> \n"), &o, 0, "START e /\nEND e\nEND-OF-DOCUMENT\n");
}

Test(modes, empty_fragment) {
    expect(FRAG, "", "END-OF-DOCUMENT\n");
    expect(FRAG, " ", "TEXT \" \" ws @1:1:0\nEND-OF-DOCUMENT\n");
}

Test(modes, fragment_text_declaration) {
    expect(FRAG, "<?xml encoding='UTF-8'?>t<a/>",
           "XMLDECL  enc=\"UTF-8\" sa=- @1:1:0\n"
           "TEXT \"t\" @1:25:24\n"
           "START a / @1:26:25\n"
           "END a @1:26:25\n"
           "END-OF-DOCUMENT\n");
    expect(FRAG, "<?xml version='1.0' encoding='UTF-8' ?>t",
           "XMLDECL 1.0 enc=\"UTF-8\" sa=- @1:1:0\n"
           "TEXT \"t\" @1:40:39\n"
           "END-OF-DOCUMENT\n");
    /* the encoding is required, standalone is not allowed, and only at the very start */
    expect_error(FRAG, "<?xml version='1.0'?>t", "ERROR SYNTAX @1:20:19");
    expect_error(FRAG, "<?xml encoding='UTF-8' standalone='yes'?>", "ERROR SYNTAX @1:36:35");
    expect_error(FRAG, "t<?xml encoding='UTF-8'?>", "ERROR SYNTAX @1:2:1");
    expect_error(FRAG, "\n<?xml encoding='UTF-8'?>", "ERROR SYNTAX @2:1:1");
}

Test(modes, fragment_refuses_a_doctype) {
    expect_error(FRAG, "<!DOCTYPE a><a/>", "ERROR STRUCTURE @1:1:0");
    expect_error(FRAG, "<a/>\n<!DOCTYPE a [<!ENTITY e 'x'>]>", "ERROR STRUCTURE @2:1:5");
    stax_reader_options o = shape(FRAG);
    char *d = stax_test_events_ex(STAX_DOC("<!DOCTYPE a><a/>"), 0, &o, STAX_DUMP_MESSAGE, NULL);
    cr_assert(strstr(d, "DOCTYPE is not allowed in a fragment"), "%s", d);
    free(d);
}

Test(modes, fragment_keeps_the_rules_of_content) {
    expect_error(FRAG, "a ]]> b", "ERROR SYNTAX @1:3:2");
    expect_error(FRAG, "x<a>y", "ERROR TRUNCATED @1:6:5");
    expect_error(FRAG, "x\n</a>", "ERROR STRUCTURE @2:1:2");
    expect_error(FRAG, "<a></b>", "ERROR TAG_MISMATCH @1:4:3");
    expect_error(FRAG, "t&e;", "ERROR ENTITY @1:2:1");
    expect_error(FRAG, "t\x01", "ERROR CHAR @1:2:1");
    expect_error(FRAG, "<a x='1' x='2'/>", "ERROR DUP_ATTR @1:10:9");
    expect_error(FRAG, "t&#0;", "ERROR CHARREF @1:2:1");
}

Test(modes, fragment_with_namespaces) {
    stax_reader_options o = shape(FRAG | STAX_READ_NAMESPACES);
    stax_test_expect_events(STAX_DOC("<p:a xmlns:p='u'/>t<b/>"), &o, 0,
                            "START p:a xmlns:p=\"u\" /\nEND p:a\nTEXT \"t\"\nSTART b /\nEND b\nEND-OF-DOCUMENT\n");
    stax_test_expect_status(STAX_DOC("<p:a xmlns:p='u'/><p:b/>"), &o, "ERROR NAMESPACE @1:20:19");
}

/* Without the flag, the same inputs are what they always were: errors. */
Test(modes, one_document_without_the_flags) {
    expect_error(0, "<a/><b/>", "ERROR STRUCTURE @1:5:4");
    expect_error(0, "t<a/>", "ERROR STRUCTURE @1:1:0");
    expect_error(0, "", "ERROR STRUCTURE @1:1:0");
    expect_error(0, "<a/><?xml version='1.0'?><b/>", "ERROR SYNTAX @1:5:4");
}

Test(modes, the_two_shapes_exclude_each_other) {
    stax_reader_options o = shape(FRAG | DOCS);
    const char *why = NULL;
    cr_assert_eq(stax_reader_check_options(&o, &why), STAX_E_USAGE);
    cr_assert(strstr(why, "exclude each other"), "%s", why);
    cr_assert_null(stax_reader_new(&o));
}

/* ================================================================ sequences of documents */

Test(modes, three_documents_with_and_without_declarations) {
    expect(DOCS,
           "<?xml version='1.0'?>\n<a>1</a>\n<!--e-->\n"
           "<b/>"
           "<?xml version='1.0' encoding='UTF-8'?><c/>\n",
           "XMLDECL 1.0 enc=\"\" sa=- @1:1:0\n"
           "START a @2:1:22\n"
           "TEXT \"1\" @2:4:25\n"
           "END a @2:5:26\n"
           "COMMENT \"e\" @3:1:31\n" /* the epilog of the first document */
           "DOCUMENT_END @4:1:40\n"
           "START b / @4:1:40\n"
           "END b @4:1:40\n"
           "DOCUMENT_END @4:5:44\n"
           "XMLDECL 1.0 enc=\"UTF-8\" sa=- @4:5:44\n"
           "START c / @4:43:82\n"
           "END c @4:43:82\n"
           "DOCUMENT_END @5:1:87\n"
           "END-OF-DOCUMENT\n");
    /* each with its DOCTYPE, which starts it */
    expect(DOCS, "<!DOCTYPE a><a/><!DOCTYPE b><b/>",
           "DOCTYPE a pub=\"\" sys=\"\" @1:1:0\n"
           "START a / @1:13:12\n"
           "END a @1:13:12\n"
           "DOCUMENT_END @1:17:16\n"
           "DOCTYPE b pub=\"\" sys=\"\" @1:17:16\n"
           "START b / @1:29:28\n"
           "END b @1:29:28\n"
           "DOCUMENT_END @1:33:32\n"
           "END-OF-DOCUMENT\n");
}

/* A batch of two events at most still holds every event, and the DTD of
 * the document before is emptied only when no event points into it. */
Test(modes, documents_in_small_batches) {
    stax_reader_options o = shape(DOCS);
    o.batch_events = 2;
    stax_test_expect_events(STAX_DOC("<!DOCTYPE a [<!ENTITY e 'E'>]><a>&e;</a><b/><c>x</c>"), &o, 0,
                            "DOCTYPE a pub=\"\" sys=\"\" subset=\"<!ENTITY e 'E'>\"\n"
                            "START a\nTEXT \"E\"\nEND a\nDOCUMENT_END\n"
                            "START b /\nEND b\nDOCUMENT_END\n"
                            "START c\nTEXT \"x\"\nEND c\nDOCUMENT_END\n"
                            "END-OF-DOCUMENT\n");
}

Test(modes, a_dtd_does_not_outlive_its_document) {
    static const char doc[] = "<!DOCTYPE a [<!ENTITY e 'E'><!ATTLIST b d CDATA 'D'>]><a>&e;<b/></a>\n"
                              "<b/>\n"
                              "<a>&e;</a>";
    /* the second document has no DTD: its b has no default; the third's &e; is undefined */
    expect_error(DOCS, doc, "ERROR ENTITY @3:4:77");
    expect(DOCS, "<!DOCTYPE a [<!ENTITY e 'E'><!ATTLIST b d CDATA 'D'>]><a>&e;<b/></a>\n<b/>",
           "DOCTYPE a pub=\"\" sys=\"\" subset=\"<!ENTITY e 'E'><!ATTLIST b d CDATA 'D'>\" @1:1:0\n"
           "START a @1:55:54\n"
           "TEXT \"E\" @1:58:57\n"
           "START b d=\"D\"* / @1:61:60\n"
           "END b @1:61:60\n"
           "END a @1:65:64\n"
           "DOCUMENT_END @2:1:69\n"
           "START b / @2:1:69\n"
           "END b @2:1:69\n"
           "DOCUMENT_END @2:5:73\n"
           "END-OF-DOCUMENT\n");
}

Test(modes, positions_go_on_across_documents) {
    expect_error(DOCS, "<a>\r\n</a>\n<?xml version='1.0'?>\n<b>\n\n  <c></d></b>", "ERROR TAG_MISMATCH @6:6:42");
    expect_error(DOCS, "<a/>\n<b>\n</b>\n<c>\n", "ERROR TRUNCATED @5:1:18");
}

Test(modes, an_xml_declaration_only_at_the_start_of_a_document) {
    expect_error(DOCS, "<a/><b><?xml version='1.0'?></b>", "ERROR SYNTAX @1:8:7");
    expect_error(DOCS, "<a/><?xml version='1.0'?><!--c--><?xml version='1.0'?><b/>", "ERROR SYNTAX @1:34:33");
    expect_error(DOCS, "  <?xml version='1.0'?><b/>", "ERROR SYNTAX @1:3:2");
    expect_error(DOCS, "<a/><!DOCTYPE b><?xml version='1.0'?><b/>", "ERROR SYNTAX @1:17:16");
}

Test(modes, between_documents) {
    expect_error(DOCS, "<a/>\ntext<b/>", "ERROR STRUCTURE @2:1:5");
    expect_error(DOCS, "<!DOCTYPE a><!DOCTYPE b><a/>", "ERROR STRUCTURE @1:13:12");
    expect_error(DOCS, "<!--c-->", "ERROR STRUCTURE @1:9:8");
    expect(DOCS, "", "END-OF-DOCUMENT\n");
    expect(DOCS, " \n\t", "END-OF-DOCUMENT\n");
    expect(DOCS, "<a/><!--c-->\n", "START a / @1:1:0\nEND a @1:1:0\nCOMMENT \"c\" @1:5:4\nDOCUMENT_END @2:1:13\nEND-OF-DOCUMENT\n");
}

Test(modes, the_documents_share_the_stream_s_encoding) {
    expect_error(DOCS, "<a/><?xml version='1.0' encoding='ISO-8859-1'?><b/>", "ERROR UNSUPPORTED @1:35:34");
    static const char latin[] = "<?xml version='1.0' encoding='ISO-8859-1'?><a>\xE9</a><?xml version='1.0' encoding='ISO-8859-1'?><b>\xE9</b>";
    stax_reader_options o = shape(DOCS);
    stax_test_expect_events(STAX_DOC(latin), &o, 0,
                            "XMLDECL 1.0 enc=\"ISO-8859-1\" sa=-\nSTART a\nTEXT \"\xC3\xA9\"\nEND a\nDOCUMENT_END\n"
                            "XMLDECL 1.0 enc=\"ISO-8859-1\" sa=-\nSTART b\nTEXT \"\xC3\xA9\"\nEND b\nDOCUMENT_END\n"
                            "END-OF-DOCUMENT\n");
}

Test(modes, documents_with_namespaces) {
    stax_reader_options o = shape(DOCS | STAX_READ_NAMESPACES);
    stax_test_expect_events(STAX_DOC("<p:a xmlns:p='u'/><p:a xmlns:p='v'/>"), &o, STAX_DUMP_NS,
                            "START p:a xmlns:p=\"u\" / {u}p:a {http://www.w3.org/2000/xmlns/}xmlns:p\nEND p:a {u}p:a\nDOCUMENT_END\n"
                            "START p:a xmlns:p=\"v\" / {v}p:a {http://www.w3.org/2000/xmlns/}xmlns:p\nEND p:a {v}p:a\nDOCUMENT_END\n"
                            "END-OF-DOCUMENT\n");
    stax_test_expect_status(STAX_DOC("<p:a xmlns:p='u'/><p:b/>"), &o, "ERROR NAMESPACE @1:20:19");
}

/* ================================================================ a fixed block */

/* The shapes take no memory of their own: the smallest block reads them,
 * and nothing is allocated (the sequence's DTDs are emptied in the block). */
Test(modes, in_a_fixed_block) {
    static const struct {
        unsigned flags;
        const char *doc, *want;
    } cases[] = {
        {FRAG, "t<a>&lt;</a><!--c-->u", "TEXT \"t\"\nSTART a\nTEXT \"<\"\nEND a\nCOMMENT \"c\"\nTEXT \"u\"\nEND-OF-DOCUMENT\n"},
        {DOCS, "<!DOCTYPE a [<!ENTITY e 'E'>]><a>&e;</a><!DOCTYPE b [<!ENTITY f 'F'>]><b>&f;</b>",
         "DOCTYPE a pub=\"\" sys=\"\" subset=\"<!ENTITY e 'E'>\"\nSTART a\nTEXT \"E\"\nEND a\nDOCUMENT_END\n"
         "DOCTYPE b pub=\"\" sys=\"\" subset=\"<!ENTITY f 'F'>\"\nSTART b\nTEXT \"F\"\nEND b\nDOCUMENT_END\nEND-OF-DOCUMENT\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        stax_reader_options o = shape(cases[k].flags);
        size_t need = stax_reader_memory_min(&o);
        cr_assert_eq(need, stax_reader_memory_min(NULL), "a shape takes %zu bytes more", need - stax_reader_memory_min(NULL));
        void *blk = malloc(need);
        cr_assert_not_null(blk);
        o.memory = blk;
        o.memory_size = need;
        stax_test_forbid_malloc = 1;
        char *d = stax_test_events_all(cases[k].doc, strlen(cases[k].doc), &o, 0);
        stax_test_forbid_malloc = 0;
        cr_assert_eq(stax_test_forbidden_calls, 0);
        cr_assert_str_eq(d, cases[k].want);
        free(d);
        free(blk);
    }
}

/* ================================================================ several threads */

static int count_events(void *ud, size_t part, const stax_batch *b) {
    (void)part;
    *(size_t *)ud += b->count;
    return 0;
}

/* A fragment or a sequence is read as one part (a cut's guessed context is
 * one document's), with the serial result. */
Test(modes, a_parallel_read_is_one_part) {
    stax_test_buf docs = {0}, frag = {0};
    for (int i = 0; i < 2000; i++) stax_test_buf_printf(&docs, "<?xml version='1.0'?><r n='%d'><x>text</x></r>\n", i);
    for (int i = 0; i < 2000; i++) stax_test_buf_printf(&frag, "<r n='%d'><x>text</x></r>\n", i);
    for (int k = 0; k < 2; k++) {
        const stax_test_buf *doc = k ? &docs : &frag;
        stax_reader_options o = shape(k ? DOCS : FRAG);
        stax_parallel_options po;
        memset(&po, 0, sizeof po);
        po.reader = &o;
        po.threads = 4;
        po.part_size = 4096;
        size_t n = 0;
        po.ud = &n;
        po.batch = count_events;
        stax_parallel_result res;
        int st = stax_parallel_read(doc->p, doc->len, &po, &res);
        cr_assert_eq(st, STAX_OK, "%d %s", st, res.message);
        /* a document: XMLDECL START START TEXT END END DOCUMENT_END; a
         * record of the fragment: START START TEXT END END TEXT */
        cr_assert_eq(n, 2000u * (k ? 7 : 6), "%zu events", n);
        cr_assert_eq(res.parts, 1);
        uint64_t cuts[5];
        size_t glen = 1;
        cr_assert_eq(stax_parallel_cuts(doc->p, doc->len, &o, 4, cuts, NULL, 0, &glen), STAX_OK);
        cr_assert_eq(glen, 0);
        for (int c = 1; c <= 4; c++) cr_assert_eq(cuts[c], doc->len);
    }
    stax_test_buf_free(&docs);
    stax_test_buf_free(&frag);
}

/* ================================================================ the tool */

/* `stax ARGS` with stdin from printf's rendering of input: output (stdout
 * and stderr) and exit status. */
static int tool(const char *input, const char *args, char *out, size_t cap) {
    char line[4096];
    snprintf(line, sizeof line, "printf '%s' | %s %s 2>&1", input, stax_test_bin(), args);
    return stax_test_shell(line, out, cap);
}

#define SEQ "<a><b>1</b></a>\\n<?xml version=\"1.0\"?><a><b>2</b></a><!--e--><a><b>3</b></a>"
#define FRAGMENT "t<b x=\"1\">u</b>v<!--c--><b/>&amp;"

Test(modes_cli, every_command_reads_both_shapes) {
    char out[8192];
    static const char *const chunks[] = {"", "--chunk 1", "--chunk 3", "--chunk 7"};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        char args[256];
        snprintf(args, sizeof args, "count --documents %s", chunks[c]);
        cr_assert_eq(tool(SEQ, args, out, sizeof out), 0, "%s", out);
        cr_assert_str_eq(out, "elements=6 attributes=0 text=3 cdata=0 comments=1 pis=0 text_bytes=3 documents=3\n");
        snprintf(args, sizeof args, "count --fragment %s", chunks[c]);
        cr_assert_eq(tool(FRAGMENT, args, out, sizeof out), 0, "%s", out);
        cr_assert_str_eq(out, "elements=2 attributes=1 text=4 cdata=0 comments=1 pis=0 text_bytes=4\n");
        snprintf(args, sizeof args, "canon --documents %s", chunks[c]);
        cr_assert_eq(tool(SEQ, args, out, sizeof out), 0, "%s", out);
        cr_assert_str_eq(out, "<a><b>1</b></a><a><b>2</b></a><a><b>3</b></a>");
        snprintf(args, sizeof args, "canon --fragment %s", chunks[c]);
        cr_assert_eq(tool(FRAGMENT, args, out, sizeof out), 0, "%s", out);
        cr_assert_str_eq(out, "t<b x=\"1\">u</b>v<b></b>&amp;");
        snprintf(args, sizeof args, "fmt --fragment --indent 0 %s", chunks[c]);
        cr_assert_eq(tool(FRAGMENT, args, out, sizeof out), 0, "%s", out);
        cr_assert_str_eq(out, "t<b x=\"1\">u</b>v<!--c--><b/>&amp;\n");
        snprintf(args, sizeof args, "select --documents %s '/a[1]/b'", chunks[c]);
        cr_assert_eq(tool(SEQ, args, out, sizeof out), 0, "%s", out);
        cr_assert_str_eq(out, "1\n2\n3\n"); /* each document's root is its first a */
        snprintf(args, sizeof args, "select --fragment %s '/b/@x|/b[2]'", chunks[c]);
        cr_assert_eq(tool(FRAGMENT, args, out, sizeof out), 0, "%s", out);
        cr_assert_str_eq(out, "1\n\n");
    }
    cr_assert_eq(tool(SEQ, "check --documents", out, sizeof out), 0, "%s", out);
    cr_assert_eq(tool(FRAGMENT, "check --fragment", out, sizeof out), 0, "%s", out);
    cr_assert_eq(tool(SEQ, "select --documents --count //b", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "3\n");
    cr_assert_eq(tool(SEQ, "--documents fmt --indent 0", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "<a><b>1</b></a>\n<?xml version=\"1.0\"?><a><b>2</b></a><!--e-->\n<a><b>3</b></a>\n");
    cr_assert_eq(tool("", "count --documents", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "elements=0 attributes=0 text=0 cdata=0 comments=0 pis=0 text_bytes=0 documents=0\n");
}

Test(modes_cli, errors_and_refusals) {
    char out[8192];
    cr_assert_eq(tool(SEQ, "check", out, sizeof out), 1);
    cr_assert_str_eq(out, "-:2:1: the XML declaration is only allowed at the very start of the document (byte 16)\n");
    cr_assert_eq(tool("<a/>\\n<b>\\n<?xml version=\"1.0\"?></b>", "check --documents", out, sizeof out), 1);
    cr_assert_str_eq(out, "-:3:1: the XML declaration is only allowed at the very start of the document (byte 9)\n");
    cr_assert_eq(tool("x\\n<!DOCTYPE a>", "check --fragment", out, sizeof out), 1);
    cr_assert_str_eq(out, "-:2:1: a DOCTYPE is not allowed in a fragment (STAX_READ_FRAGMENT) (byte 2)\n");
    cr_assert_eq(tool("t]]>", "count --fragment", out, sizeof out), 1);
    cr_assert_str_eq(out, "-:1:2: ']]>' is not allowed in text (byte 1)\n");
    cr_assert_eq(tool("<a>", "count --fragment", out, sizeof out), 1);
    cr_assert_eq(tool("<a/>", "check --fragment --documents", out, sizeof out), 2);
    cr_assert(strstr(out, "exclude each other"), "%s", out);
    cr_assert_eq(tool("<a/>", "--part 0/2 count --documents", out, sizeof out), 2);
    cr_assert(strstr(out, "not --fragment or --documents"), "%s", out);
}

/* -j reads a fragment or a sequence on one thread: the output of -j 1;
 * --save-every and --resume go on in the same shape (the context says
 * which: another shape's is refused). */
Test(modes_cli, threads_and_resume) {
    char path[] = "/tmp/stax-modes-XXXXXX", ctx[64], line[1024], out[8192], want[8192];
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < 3000; i++) fprintf(f, "<?xml version='1.0'?>\n<r n='%d'><x>some text %d</x></r>\n<!--e-->\n", i, i);
    fclose(f);
    snprintf(ctx, sizeof ctx, "%s.ctx", path);
    snprintf(line, sizeof line, "%s count --documents %s 2>&1", stax_test_bin(), path);
    cr_assert_eq(stax_test_shell(line, want, sizeof want), 0, "%s", want);
    cr_assert_str_eq(want, "elements=6000 attributes=3000 text=3000 cdata=0 comments=3000 pis=0 text_bytes=40890 documents=3000\n");
    snprintf(line, sizeof line, "%s count -j 4 --part-size 4096 --documents %s 2>&1", stax_test_bin(), path);
    cr_assert_eq(stax_test_shell(line, out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, want);
    snprintf(line, sizeof line, "%s select -j 4 --part-size 4096 --documents --count '/r[1]/x' %s 2>&1", stax_test_bin(), path);
    cr_assert_eq(stax_test_shell(line, out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "3000\n");
    snprintf(line, sizeof line, "%s count --documents --save-every 20000 --context %s %s 2>&1", stax_test_bin(), ctx, path);
    cr_assert_eq(stax_test_shell(line, out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, want);
    snprintf(line, sizeof line, "%s count --documents --resume %s %s 2>&1", stax_test_bin(), ctx, path);
    cr_assert_eq(stax_test_shell(line, out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, want);
    snprintf(line, sizeof line, "%s count --resume %s %s 2>&1", stax_test_bin(), ctx, path);
    cr_assert_eq(stax_test_shell(line, out, sizeof out), 2, "%s", out);
    cr_assert(strstr(out, "saved with other flags"), "%s", out);
    unlink(ctx);
    unlink(path);
}
