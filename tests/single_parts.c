/* The single file with parts left out (tools/check-parts.sh builds it once
 * per switch, around tests/single_options_impl.c): what each switch promises
 * in docs/embedded.md holds, and what it does not leave out still works.
 * Exit 0 when all holds. */
#include "stax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *stax_test_realloc(void *p, size_t n);
void stax_test_free(void *p);
void *stax_test_realloc(void *p, size_t n) { return realloc(p, n); }
void stax_test_free(void *p) { free(p); }

static int failures;
#define CHECK(cond, ...)                                                                                         \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            fprintf(stderr, "single_parts: " __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                                                 \
            failures++;                                                                                          \
        }                                                                                                        \
    } while (0)

/* Read doc whole with opt (NULL: defaults); its text events in text, the
 * message of an error in msg; the final status. */
static int read_doc(const stax_reader_options *opt, const char *doc, char *text, size_t cap, char *msg, size_t msg_cap) {
    stax_reader *r = stax_reader_new(opt);
    if (!r) return STAX_E_NOMEM;
    const stax_batch *b;
    size_t n = 0;
    int st;
    stax_reader_feed(r, doc, strlen(doc));
    for (int ended = 0;;) {
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++)
                if (stax_ev_type(b, i) == STAX_EV_TEXT) {
                    stax_str t = stax_ev_text(b, i);
                    if (n + t.len < cap) memcpy(text + n, t.ptr, t.len), n += t.len;
                }
        if (st != STAX_NEED_INPUT || ended) break;
        stax_reader_end(r);
        ended = 1;
    }
    text[n] = '\0';
    snprintf(msg, msg_cap, "%s", st < 0 ? stax_reader_message(r) : "");
    stax_reader_free(r);
    return st;
}

static int resolve(void *ud, const stax_entity_request *q, stax_entity_input *in) {
    (void)ud, (void)q;
    in->data = "ext";
    in->len = 3;
    return STAX_OK;
}

int main(void) {
    char text[128], msg[256];
    const char *why = NULL;
    stax_reader_options o;
    int st;

    /* what every build reads */
    st = read_doc(NULL, "<!DOCTYPE r SYSTEM 'r.dtd'><r a='&lt;'>x &amp; &#65;<![CDATA[y]]></r>", text, sizeof text, msg,
                  sizeof msg);
    CHECK(st == STAX_END, "plain document: status %d '%s'", st, msg);
    CHECK(!strcmp(text, "x & A"), "plain document: text '%s'", text);
    st = read_doc(NULL, "<!DOCTYPE r [ \n ]><r/>", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_END, "an internal subset of white space: status %d '%s'", st, msg);

    /* the internal subset and the entities it declares */
    st = read_doc(NULL, "<!DOCTYPE r [<!ENTITY e 'v'>]><r>&e;</r>", text, sizeof text, msg, sizeof msg);
#ifdef STAX_NO_DTD
    CHECK(st == STAX_E_UNSUPPORTED, "STAX_NO_DTD: an internal subset gives status %d, want STAX_E_UNSUPPORTED", st);
#ifndef STAX_NO_MESSAGES
    CHECK(strstr(msg, "STAX_NO_DTD") != NULL, "STAX_NO_DTD: the message does not say why: '%s'", msg);
#endif
#else
    CHECK(st == STAX_END && !strcmp(text, "v"), "an internal entity: status %d '%s' text '%s'", st, msg, text);
#endif
    /* an undeclared entity where a DTD reader may not call it an error (the
     * external subset is not read): without a DTD it is one */
    st = read_doc(NULL, "<!DOCTYPE r SYSTEM 'r.dtd'><r>&e;</r>", text, sizeof text, msg, sizeof msg);
#ifdef STAX_NO_DTD
    CHECK(st == STAX_E_ENTITY, "STAX_NO_DTD: an undeclared entity gives status %d, want STAX_E_ENTITY", st);
#else
    CHECK(st == STAX_END, "an entity the external subset may declare: status %d '%s'", st, msg);
#endif

    /* the resolver */
    memset(&o, 0, sizeof o);
    o.resolve = resolve;
    st = stax_reader_check_options(&o, &why);
#ifdef STAX_NO_EXTERNAL
    CHECK(st == STAX_E_USAGE && strstr(why, "STAX_NO_EXTERNAL"), "STAX_NO_EXTERNAL: a resolver gives %d '%s'", st, why);
    CHECK(stax_reader_new(&o) == NULL, "STAX_NO_EXTERNAL: a reader with a resolver was made");
#else
    CHECK(st == STAX_OK, "a resolver: %d '%s'", st, why);
    st = read_doc(&o, "<!DOCTYPE r [<!ENTITY e SYSTEM 'e.xml'>]><r>&e;</r>", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_END && !strcmp(text, "ext"), "an external entity: status %d '%s' text '%s'", st, msg, text);
#endif

    /* namespaces */
    memset(&o, 0, sizeof o);
    o.flags = STAX_READ_NAMESPACES;
    st = stax_reader_check_options(&o, &why);
#ifdef STAX_NO_NAMESPACES
    CHECK(st == STAX_E_USAGE && strstr(why, "STAX_NO_NAMESPACES"), "STAX_NO_NAMESPACES: the option gives %d '%s'", st, why);
    CHECK(stax_reader_new(&o) == NULL, "STAX_NO_NAMESPACES: a reader with namespaces was made");
#else
    CHECK(st == STAX_OK, "namespaces: %d '%s'", st, why);
    st = read_doc(&o, "<p:r xmlns:p='u'>t</p:r>", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_END, "namespaces: status %d '%s'", st, msg);
    st = read_doc(&o, "<p:r>t</p:r>", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_E_NAMESPACE, "an unbound prefix: status %d", st);
#endif
    /* the input's shapes: left out of builds for size (their reader refuses them) */
    memset(&o, 0, sizeof o);
    o.flags = STAX_READ_FRAGMENT;
    st = stax_reader_check_options(&o, &why);
#if defined(STAX_SMALL) || defined(__OPTIMIZE_SIZE__)
    CHECK(st == STAX_E_USAGE && (strstr(why, "builds for size") || strstr(why, "out of range")), "STAX_SMALL: a fragment gives %d '%s'", st, why);
    CHECK(stax_reader_new(&o) == NULL, "STAX_SMALL: a reader of fragments was made");
#else
    CHECK(st == STAX_OK, "a fragment: %d '%s'", st, why);
    st = read_doc(&o, "a<r>t</r>b", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_END, "a fragment: status %d '%s'", st, msg);
    o.flags = STAX_READ_DOCUMENTS;
    st = read_doc(&o, "<r>t</r><?xml version='1.0'?><r/>", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_END, "two documents: status %d '%s'", st, msg);
#endif
    /* without the option a colon is only a name character */
    st = read_doc(NULL, "<p:r>t</p:r>", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_END, "a prefixed name without namespaces: status %d '%s'", st, msg);

    /* messages */
    st = read_doc(NULL, "<a>\n  <b x='1'>&#x20AC;</a>", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_E_TAG_MISMATCH, "mismatch: status %d", st);
#ifdef STAX_NO_MESSAGES
    CHECK(!strcmp(msg, "mismatched end tag at line 2, column 20"), "STAX_NO_MESSAGES: message '%s'", msg);
#else
    CHECK(!strcmp(msg, "end tag 'a' does not match start tag 'b'"), "message '%s'", msg);
#endif
    st = read_doc(NULL, "<a>&nope;</a>", text, sizeof text, msg, sizeof msg);
#ifdef STAX_NO_MESSAGES
    CHECK(st == STAX_E_ENTITY && !strcmp(msg, "undeclared or invalid entity reference at line 1, column 4"),
          "STAX_NO_MESSAGES: status %d, message '%s'", st, msg);
#else
    CHECK(st == STAX_E_ENTITY && strstr(msg, "nope"), "undeclared entity: status %d, message '%s'", st, msg);
#endif

    /* a long text: the general path alone (STAX_NO_FAST_PATH) cuts it where the fast path would */
    static char doc[8192], all[2048];
    size_t n = (size_t)snprintf(doc, sizeof doc, "<r>");
    for (int i = 0; i < 300; i++) n += (size_t)snprintf(doc + n, sizeof doc - n, "<i k='%d'>v%d</i>", i, i);
    snprintf(doc + n, sizeof doc - n, "</r>");
    st = read_doc(NULL, doc, all, sizeof all, msg, sizeof msg);
    CHECK(st == STAX_END && strlen(all) == 1090 && !memcmp(all, "v0v1v2", 6), "300 elements: status %d '%s'", st, msg);

#ifndef STAX_NO_WRITER
    stax_writer *w = stax_writer_new(NULL);
    stax_writer_set_memory(w, NULL, 0);
    stax_writer_start_z(w, "r");
    st = stax_writer_finish(w);
    CHECK(st == STAX_OK && stax_writer_memory(w).len == 7, "writer: %d", st);
    stax_writer_free(w);
#endif
#ifndef STAX_NO_SELECT
    stax_select *s = stax_select_new(NULL);
    CHECK(s && stax_select_compile(s, stax_strz("//a"), stax_strz("")) == STAX_OK, "select");
    stax_select_free(s);
#endif
    return failures ? 1 : 0;
}
