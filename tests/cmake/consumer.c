/* A program of a CMake project that links stax::stax (tests/cmake/CMakeLists.txt):
 * it reads a document, writes a summary through the writer into memory and
 * prints it with the version and whether stdio is in the build. */
#include <stax.h>

#include <stdio.h>
#include <string.h>

int main(void) {
    static const char doc[] = "<r><a x='1'/><a x='2'>t</a></r>";
    stax_reader *r = stax_reader_new(NULL);
    if (!r) return 1;
    const stax_batch *b;
    int st = stax_reader_feed(r, doc, sizeof doc - 1);
    unsigned elements = 0;
    for (int ended = 0; st >= 0;) {
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++) elements += stax_ev_type(b, i) == STAX_EV_START;
        if (st != STAX_NEED_INPUT || ended) break;
        st = stax_reader_end(r);
        ended = 1;
    }
    if (st != STAX_END) {
        fprintf(stderr, "consumer: %s\n", stax_reader_message(r));
        return 1;
    }
    stax_reader_free(r);

    stax_writer *w = stax_writer_new(NULL);
    if (!w || stax_writer_set_memory(w, NULL, 0) != STAX_OK) return 1;
    char n[16];
    snprintf(n, sizeof n, "%u", elements);
    stax_writer_start_z(w, "count");
    stax_writer_attr_z(w, "elements", n);
    if (stax_writer_finish(w) != STAX_OK) return 1;
    stax_str out = stax_writer_memory(w);
#ifdef STAX_NO_STDIO
    const char *stdio = "no stdio";
#else
    const char *stdio = "stdio";
#endif
    printf("stax %s %.*s %s\n", stax_version(), (int)out.len, out.ptr, stdio);
    stax_writer_free(w);
    return strcmp(stax_version(), STAX_VERSION) != 0;
}
