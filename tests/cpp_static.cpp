// A private STAX_STATIC copy of the single file in a C++ translation unit,
// linked beside the public one (tests/cpp_impl.cpp) without a clash: every
// function and table of the copy has internal linkage.
#define STAX_STATIC
#define STAX_IMPLEMENTATION
#include "stax.h"

#include <string>

// The number of elements of doc, read by the private copy (-1 if not well-formed).
long cpp_static_elements(const std::string &doc) {
    stax_reader *r = stax_reader_new(nullptr);
    if (!r) return -1;
    long n = 0;
    const stax_batch *b;
    int st = stax_reader_feed(r, doc.data(), doc.size());
    for (bool ended = false; st >= 0;) {
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++) n += stax_ev_type(b, i) == STAX_EV_START;
        if (st != STAX_NEED_INPUT || ended) break;
        st = stax_reader_end(r);
        ended = true;
    }
    stax_reader_free(r);
    return st == STAX_END ? n : -1;
}
