/* The single file under its configuration macros (tools/check-single.sh
 * builds it with STAX_NO_THREADS, STAX_NO_EXTRA_ENCODINGS, STAX_NO_STDIO and
 * STAX_NO_SIMD in several combinations): every allocation goes through
 * STAX_REALLOC/STAX_FREE (tests/single_options_impl.c), messages are
 * formatted, the built-in tables are there or not, the background writer is
 * refused without threads. Exit 0 when all holds. */
#include "stax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long calls, live;

void *stax_test_realloc(void *p, size_t n);
void stax_test_free(void *p);

void *stax_test_realloc(void *p, size_t n) {
    void *q = realloc(p, n);
    calls++;
    if (!p && q) live++;
    return q;
}

void stax_test_free(void *p) {
    calls++;
    if (p) live--;
    free(p);
}

static int failures;
#define CHECK(cond, ...)                                                                                         \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            fprintf(stderr, "single_options: " __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                                                 \
            failures++;                                                                                          \
        }                                                                                                        \
    } while (0)

/* Read doc whole; the text of its events in *text, the final status returned. */
static int read_doc(const char *doc, char *text, size_t cap, char *msg, size_t msg_cap) {
    stax_reader *r = stax_reader_new(NULL);
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
    if (st < 0) {
        stax_pos p = stax_reader_error_pos(r);
        snprintf(msg, msg_cap, "%llu:%llu: %s", (unsigned long long)p.line, (unsigned long long)p.column,
                 stax_reader_message(r));
    }
    stax_reader_free(r);
    return st;
}

int main(void) {
    char text[64], msg[256];

    /* "мир" in KOI8-R */
    int st = read_doc("<?xml version='1.0' encoding='koi8-r'?><p>\xCD\xC9\xD2</p>", text, sizeof text, msg, sizeof msg);
#ifdef STAX_NO_EXTRA_ENCODINGS
    CHECK(st == STAX_E_UNSUPPORTED, "KOI8-R without the tables: status %d, want STAX_E_UNSUPPORTED", st);
#else
    CHECK(st == STAX_END && !strcmp(text, "\xD0\xBC\xD0\xB8\xD1\x80"), "KOI8-R: status %d, text '%s'", st, text);
#endif

    st = read_doc("<a>\n  <b x='1'>&#x20AC;</a>", text, sizeof text, msg, sizeof msg);
    CHECK(st == STAX_E_TAG_MISMATCH, "mismatch: status %d", st);
    CHECK(!strcmp(msg, "2:20: end tag 'a' does not match start tag 'b'"), "message '%s'", msg);

    stax_writer *w = stax_writer_new(NULL);
    CHECK(w != NULL, "stax_writer_new");
    if (w) {
        stax_writer_set_memory(w, NULL, 0);
        stax_writer_start_z(w, "r");
        stax_writer_attr_z(w, "a", "<1>");
        stax_writer_text_z(w, "t&");
        st = stax_writer_finish(w);
        stax_str out = stax_writer_memory(w);
        CHECK(st == STAX_OK && out.len == 24 && !memcmp(out.ptr, "<r a=\"&lt;1>\">t&amp;</r>", 24), "writer: %d '%.*s'",
              st, (int)out.len, out.ptr);
        stax_writer_free(w);
    }

    stax_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.flags = STAX_WRITE_BACKGROUND;
    w = stax_writer_new(&wo);
#ifdef STAX_NO_THREADS
    CHECK(w == NULL, "STAX_WRITE_BACKGROUND accepted without threads");
#else
    CHECK(w != NULL, "STAX_WRITE_BACKGROUND refused");
#endif
    stax_writer_free(w);

    CHECK(calls > 0, "STAX_REALLOC and STAX_FREE were never called");
    CHECK(live == 0, "%ld blocks still allocated", live);
    return failures ? 1 : 0;
}
