/* docs/writer.md, "Errors you check once": STAX_WRITE_STICKY, the first
 * error, the message, and why stax_writer_new said no. */
#include "stax.h"

#include <stdio.h>

int main(void) {
    stax_writer_options opt = {0};
    const char *why;
    opt.indent_width = 100;
    if (stax_writer_check_options(&opt, &why) != STAX_OK) printf("no writer: %s\n", why);

    opt.indent_width = 0;
    opt.flags = STAX_WRITE_STICKY;       /* a refused call stops the writer */
    stax_writer *w = stax_writer_new(&opt);
    if (!w) return 1;
    stax_writer_set_memory(w, NULL, 0);
    stax_writer_start_z(w, "log");
    stax_writer_element_z(w, "entry", "started");
    stax_writer_element_z(w, "entry", "bad byte: \xff"); /* refused: not UTF-8 */
    stax_writer_element_z(w, "entry", "never written");  /* refused too: sticky */
    int st = stax_writer_finish(w);                       /* the first error, once */
    printf("finish: %s\n", stax_strerror(st));
    printf("first error: %s\n", stax_strerror(stax_writer_first_error(w)));
    printf("message: %s\n", stax_writer_message(w));
    stax_str out = stax_writer_memory(w);                 /* what came before it */
    printf("%.*s\n", (int)out.len, out.ptr);
    stax_writer_free(w);
    return 0;
}
