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
