/* docs/writer.md, "Refused calls": a refused call writes nothing. */
#include "stax.h"

#include <stdio.h>

int main(void) {
    stax_writer *w = stax_writer_new(NULL);
    if (!w) return 1;
    stax_writer_set_memory(w, NULL, 0);                  /* a growable buffer */
    stax_writer_start_z(w, "r");
    printf("%s\n", stax_strerror(stax_writer_start_z(w, "1st")));       /* bad name */
    printf("%s\n", stax_strerror(stax_writer_comment_z(w, "a -- b"))); /* "--" */
    printf("%s\n", stax_strerror(stax_writer_text_z(w, "\xff")));      /* not UTF-8 */
    stax_writer_attr_z(w, "a", "1");
    printf("%s\n", stax_strerror(stax_writer_attr_z(w, "a", "2")));    /* duplicate */
    stax_writer_text_z(w, "ok");
    printf("%s\n", stax_strerror(stax_writer_attr_z(w, "b", "3")));    /* after content */
    stax_writer_finish(w);
    stax_str out = stax_writer_memory(w);
    printf("%.*s\n", (int)out.len, out.ptr);
    stax_writer_free(w);
    return 0;
}
