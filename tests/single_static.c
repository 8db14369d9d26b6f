/* The amalgamated single file built as a private copy (STAX_STATIC): every
 * function static, compiled with the project's warnings. It is linked into the
 * single-file unit tests next to the ordinary copy in single_impl.c, which
 * proves the two copies share no external name. */
#ifndef STAX_STATIC /* the Makefile may pass -DSTAX_STATIC as well */
#define STAX_STATIC
#endif
#define STAX_IMPLEMENTATION
#include "stax.h"
#include "stax.h"

int stax_single_static_smoke(void);

/* Parse a small document with the private copy; returns the number of start
 * tags seen, or a negative status. */
int stax_single_static_smoke(void) {
    static const char doc[] = "<a x='1'><b/>t&amp;</a>";
    stax_reader *r = stax_reader_new(NULL);
    const stax_batch *b;
    int st, elements = 0;
    if (!r) return STAX_E_NOMEM;
    stax_reader_feed(r, doc, sizeof doc - 1);
    for (int ended = 0;;) {
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++)
                if (stax_ev_type(b, i) == STAX_EV_START) elements++;
        if (st != STAX_NEED_INPUT || ended) break;
        stax_reader_end(r);
        ended = 1;
    }
    if (st != STAX_END) elements = st < 0 ? st : STAX_E_USAGE;
    (void)stax_strerror(st);
    stax_reader_free(r);
    return elements;
}
