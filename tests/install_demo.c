/* A program built against an installed stax (tools/check-install.sh): it sees
 * only <stax.h> and what pkg-config says. It checks the version macros against
 * the library it runs with, reads a KOI8-R document (a built-in table) and
 * writes one through a background writer thread (the library's pthreads). */
#include <stax.h>

#include <stdio.h>
#include <string.h>

#if !defined(STAX_VERSION_NUMBER) || STAX_VERSION_NUMBER != \
    STAX_VERSION_MAJOR * 1000000 + STAX_VERSION_MINOR * 1000 + STAX_VERSION_PATCH
#error "STAX_VERSION_NUMBER is not usable in #if"
#endif

static int fail(const char *what) {
    fprintf(stderr, "install_demo: %s\n", what);
    return 1;
}

int main(void) {
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", STAX_VERSION_MAJOR, STAX_VERSION_MINOR, STAX_VERSION_PATCH);
    if (strcmp(want, STAX_VERSION) != 0) return fail("STAX_VERSION disagrees with the numbers");
    if (strcmp(stax_version(), STAX_VERSION) != 0) return fail("stax_version() is not the header's version");

    /* "мир" in KOI8-R is CD C9 D2. */
    static const char doc[] = "<?xml version='1.0' encoding='KOI8-R'?><p>\xCD\xC9\xD2</p>";
    stax_reader *r = stax_reader_new(NULL);
    if (!r) return fail("stax_reader_new");
    const stax_batch *b;
    char text[64] = "";
    int st;
    stax_reader_feed(r, doc, sizeof doc - 1);
    for (int ended = 0;;) {
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++)
                if (stax_ev_type(b, i) == STAX_EV_TEXT) {
                    stax_str t = stax_ev_text(b, i);
                    if (t.len < sizeof text) memcpy(text, t.ptr, t.len), text[t.len] = '\0';
                }
        if (st != STAX_NEED_INPUT || ended) break;
        stax_reader_end(r); /* all of doc was fed */
        ended = 1;
    }
    if (st != STAX_END) return fail(stax_reader_message(r));
    stax_reader_free(r);

    stax_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.flags = STAX_WRITE_BACKGROUND;
    stax_writer *w = stax_writer_new(&wo);
    if (!w) return fail("stax_writer_new with STAX_WRITE_BACKGROUND");
    stax_writer_set_file(w, stdout);
    stax_writer_start_z(w, "stax");
    stax_writer_attr_z(w, "version", stax_version());
    stax_writer_text_z(w, text);
    if (stax_writer_finish(w) != STAX_OK) return fail("stax_writer_finish");
    stax_writer_free(w);
    putchar('\n');
    return 0;
}
