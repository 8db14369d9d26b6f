/* docs/api.md, "Push: feeding chunks": a document fed 8 bytes at a time. */
#include "stax.h"

#include <stdio.h>

static const char *push_type_name(int type) {
    static const char *const names[] = {"?",  "START",   "END",     "TEXT",    "CDATA",
                                        "COMMENT", "PI", "DOCTYPE", "XMLDECL", "ENTITY_REF"};
    return type >= 1 && type <= 9 ? names[type] : "?";
}

static void push_print_event(const stax_batch *b, size_t i) {
    stax_pos at = stax_ev_pos(b, i);
    stax_str name = stax_ev_name(b, i), text = stax_ev_text(b, i);
    printf("%llu:%llu %s", (unsigned long long)at.line, (unsigned long long)at.column,
           push_type_name(stax_ev_type(b, i)));
    if (name.len) printf(" %.*s", (int)name.len, name.ptr);
    for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
        stax_str an = stax_ev_attr_name(b, i, k), av = stax_ev_attr_value(b, i, k);
        printf(" %.*s=\"%.*s\"", (int)an.len, an.ptr, (int)av.len, av.ptr);
    }
    if (stax_ev_flags(b, i) & STAX_EVF_EMPTY) printf(" (empty)");
    if (text.len) printf(" \"%.*s\"", (int)text.len, text.ptr);
    printf("\n");
}

int main(void) {
    static const char doc[] = "<?xml version=\"1.0\"?>\n"
                              "<order id=\"42\" currency='EUR'>\n"
                              "  <item sku=\"A-1\">Tea &amp; biscuits</item>\n"
                              "  <note><![CDATA[<fragile>]]></note>\n"
                              "  <gift/>\n"
                              "</order>\n";
    const size_t len = sizeof doc - 1, chunk = 8;

    stax_reader_options opt = {0};
    opt.flags = STAX_READ_SKIP_WS; /* no events for the indentation */
    stax_reader *r = stax_reader_new(&opt);
    if (!r) return 1;

    const stax_batch *b;
    size_t off = 0;
    int st = STAX_NEED_INPUT;
    while (st == STAX_NEED_INPUT) {
        if (off < len) {
            size_t n = len - off < chunk ? len - off : chunk;
            stax_reader_feed(r, doc + off, n); /* must stay valid until next() asks for more */
            off += n;
        } else {
            stax_reader_end(r); /* no more input */
        }
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++) push_print_event(b, i);
    }
    if (st != STAX_END) {
        stax_pos p = stax_reader_error_pos(r);
        printf("error %llu:%llu: %s\n", (unsigned long long)p.line, (unsigned long long)p.column,
               stax_reader_message(r));
    }
    stax_reader_free(r);
    return st == STAX_END ? 0 : 1;
}
