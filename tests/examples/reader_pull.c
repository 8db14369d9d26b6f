/* docs/api.md, "Pull: a reader that feeds itself": read a FILE*. */
#include "stax.h"

#include <stdio.h>

int main(void) {
    FILE *f = tmpfile(); /* any FILE* open for reading will do, stdin too */
    if (!f) return 1;
    fputs("<library>\n"
          "  <book year=\"1851\"><title>Moby-Dick</title></book>\n"
          "  <book year=\"1869\"><title>War and Peace</title></book>\n"
          "</library>\n",
          f);
    rewind(f);

    stax_reader *r = stax_reader_new(NULL);
    if (!r || stax_reader_set_file(r, f) != STAX_OK) return 1;

    const stax_batch *b;
    unsigned long elements = 0;
    int st, in_title = 0;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) { /* never STAX_NEED_INPUT */
        for (size_t i = 0; i < b->count; i++) {
            switch (stax_ev_type(b, i)) {
            case STAX_EV_START:
                elements++;
                in_title = stax_str_eq(stax_ev_name(b, i), "title");
                for (size_t k = 0; k < stax_ev_attr_count(b, i); k++)
                    if (stax_str_eq(stax_ev_attr_name(b, i, k), "year")) {
                        stax_str y = stax_ev_attr_value(b, i, k);
                        printf("year: %.*s\n", (int)y.len, y.ptr);
                    }
                break;
            case STAX_EV_END: in_title = 0; break;
            case STAX_EV_TEXT:
                if (in_title) { /* a long title could come in several TEXT events */
                    stax_str t = stax_ev_text(b, i);
                    printf("title: %.*s\n", (int)t.len, t.ptr);
                }
                break;
            default: break;
            }
        }
    }
    printf("%lu elements: %s\n", elements, st == STAX_END ? "well-formed" : stax_reader_message(r));
    stax_reader_free(r);
    fclose(f);
    return st == STAX_END ? 0 : 1;
}
