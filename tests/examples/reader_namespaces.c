/* docs/api.md, "Namespaces": prefixes resolved to URIs, and a lookup between
 * two chunks. */
#include "stax.h"

#include <stdio.h>

static void ns_print_qname(const char *what, stax_str name, stax_qname q) {
    printf("%s %.*s: prefix \"%.*s\", local \"%.*s\", uri \"%.*s\"\n", what, (int)name.len, name.ptr,
           (int)q.prefix.len, q.prefix.ptr, (int)q.local.len, q.local.ptr, (int)q.uri.len, q.uri.ptr);
}

/* Print the START events of everything read so far; return the status. */
static int ns_drain(stax_reader *r) {
    const stax_batch *b;
    int st;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {
        for (size_t i = 0; i < b->count; i++) {
            if (stax_ev_type(b, i) != STAX_EV_START) continue;
            ns_print_qname("element", stax_ev_name(b, i), stax_ev_qname(b, i));
            for (size_t k = 0; k < stax_ev_attr_count(b, i); k++)
                ns_print_qname("  attribute", stax_ev_attr_name(b, i, k), stax_ev_attr_qname(b, i, k));
        }
    }
    return st;
}

int main(void) {
    static const char part1[] = "<feed xmlns=\"http://www.w3.org/2005/Atom\"\n"
                                "      xmlns:m=\"http://search.yahoo.com/mrss/\">\n"
                                "  <entry xml:lang=\"en\">\n";
    static const char part2[] = "    <m:thumbnail url=\"a.png\" m:width=\"64\"/>\n"
                                "    <title xmlns=\"\">plain</title>\n"
                                "  </entry>\n"
                                "</feed>\n";
    stax_reader_options opt = {0};
    opt.flags = STAX_READ_NAMESPACES;
    stax_reader *r = stax_reader_new(&opt);
    if (!r) return 1;

    stax_reader_feed(r, part1, sizeof part1 - 1);
    int st = ns_drain(r);

    /* next() asked for more: the reader stands inside <entry> */
    stax_str uri;
    if (stax_reader_ns_lookup(r, stax_strz("m"), &uri) == 0)
        printf("in scope: m = %.*s\n", (int)uri.len, uri.ptr);
    if (stax_reader_ns_lookup(r, stax_strz("dc"), &uri) != 0) printf("in scope: dc is not bound\n");

    if (st == STAX_NEED_INPUT) {
        stax_reader_feed(r, part2, sizeof part2 - 1);
        st = ns_drain(r);
    }
    if (st == STAX_NEED_INPUT) {
        stax_reader_end(r);
        st = ns_drain(r);
    }
    printf("%s\n", st == STAX_END ? "done" : stax_reader_message(r));
    stax_reader_free(r);
    return st == STAX_END ? 0 : 1;
}
