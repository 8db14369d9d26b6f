/* docs/writer.md, "Fixed memory": no malloc, ever. */
#include "stax.h"

#include <stdio.h>

static _Alignas(16) unsigned char block[4096]; /* the writer and its stack */
static char document[256];                       /* the output */

int main(void) {
    stax_writer_options opt = {0};
    opt.memory = block;
    opt.memory_size = sizeof block;
    opt.buffer_size = 1024;
    stax_writer *w = stax_writer_new(&opt);
    if (!w) return 1;
    stax_writer_set_memory(w, document, sizeof document);
    /* what is left of the block after the writer and its buffer holds the
     * names of the open elements: each costs its length + 8 bytes */
    printf("room for 40 levels of 16-byte names: %s\n", stax_writer_stack_room(w) >= 40 * (16 + 8) ? "yes" : "no");
    stax_writer_start_z(w, "reading");
    stax_writer_attr_z(w, "sensor", "t1");
    stax_writer_text_z(w, "21.5");
    int st = stax_writer_finish(w);
    stax_str s = stax_writer_memory(w);
    printf("%s: %.*s\n", stax_strerror(st), (int)s.len, s.ptr);

    /* a document larger than the buffer stops with STAX_E_FULL */
    stax_writer_free(w);
    w = stax_writer_new(&opt);
    stax_writer_set_memory(w, document, 16);
    stax_writer_element_z(w, "message", "far too long for sixteen bytes");
    st = stax_writer_finish(w);
    s = stax_writer_memory(w);
    printf("%s: %.*s\n", stax_strerror(st), (int)s.len, s.ptr);
    stax_writer_free(w);
    return 0;
}
