/* docs/writer.md, "Refused calls": a refused call writes nothing, and the
 * message says why. */
#include "stax.h"

#include <stdio.h>

static void say(stax_writer *w, int st) { printf("%s | %s\n", stax_strerror(st), stax_writer_message(w)); }

int main(void) {
    stax_writer *w = stax_writer_new(NULL);
    if (!w) return 1;
    say(w, stax_writer_start_z(w, "r"));                  /* no sink yet */
    stax_writer_set_memory(w, NULL, 0);                  /* a growable buffer */
    stax_writer_start_z(w, "r");
    say(w, stax_writer_start_z(w, "1st"));               /* bad name */
    say(w, stax_writer_comment_z(w, "a -- b"));          /* "--" */
    say(w, stax_writer_text_z(w, "\xff"));               /* not UTF-8 */
    stax_writer_attr_z(w, "a", "1");
    say(w, stax_writer_attr_z(w, "a", "2"));             /* duplicate */
    stax_writer_text_z(w, "ok");
    say(w, stax_writer_attr_z(w, "b", "3"));             /* after content */
    stax_writer_finish(w);
    stax_str out = stax_writer_memory(w);
    printf("%.*s\n", (int)out.len, out.ptr);
    stax_writer_free(w);
    return 0;
}
