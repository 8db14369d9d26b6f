/* docs/api.md, "The DTD": expansion, defaults, external entities reported,
 * notations, unparsed entities and PIs of the internal subset. */
#include "stax.h"

#include <stdio.h>

static void dtd_print_str(const char *label, stax_str s) {
    printf(" %s \"%.*s\"", label, (int)s.len, s.ptr ? s.ptr : "");
}

static void dtd_print_declarations(const stax_reader *r) {
    const stax_decl *d;
    const stax_dtd_pi *pi;
    size_t n = stax_reader_notations(r, &d);
    for (size_t k = 0; k < n; k++) {
        printf("notation %.*s", (int)d[k].name.len, d[k].name.ptr);
        dtd_print_str("pubid", d[k].pubid);
        dtd_print_str("sysid", d[k].sysid);
        printf("\n");
    }
    n = stax_reader_unparsed_entities(r, &d);
    for (size_t k = 0; k < n; k++) {
        printf("unparsed entity %.*s", (int)d[k].name.len, d[k].name.ptr);
        dtd_print_str("sysid", d[k].sysid);
        dtd_print_str("notation", d[k].notation);
        printf("\n");
    }
    n = stax_reader_dtd_pis(r, &pi);
    for (size_t k = 0; k < n; k++)
        printf("subset PI %.*s \"%.*s\"\n", (int)pi[k].target.len, pi[k].target.ptr, (int)pi[k].data.len,
               pi[k].data.ptr);
}

/* Print the events of everything read so far; return the status. */
static int dtd_drain(stax_reader *r) {
    const stax_batch *b;
    int st;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {
        for (size_t i = 0; i < b->count; i++) {
            stax_str name = stax_ev_name(b, i);
            stax_pos at = stax_ev_pos(b, i);
            switch (stax_ev_type(b, i)) {
            case STAX_EV_DOCTYPE:
                printf("DOCTYPE %.*s\n", (int)name.len, name.ptr);
                dtd_print_declarations(r); /* available from the DOCTYPE event on */
                break;
            case STAX_EV_START:
                printf("START %.*s", (int)name.len, name.ptr);
                for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
                    stax_str an = stax_ev_attr_name(b, i, k), av = stax_ev_attr_value(b, i, k);
                    printf(" %.*s=\"%.*s\"%s", (int)an.len, an.ptr, (int)av.len, av.ptr,
                           stax_ev_attr_flags(b, i, k) & STAX_ATTRF_DEFAULTED ? " (default)" : "");
                }
                printf(" @%llu:%llu\n", (unsigned long long)at.line, (unsigned long long)at.column);
                break;
            case STAX_EV_TEXT: {
                stax_str t = stax_ev_text(b, i);
                printf("TEXT \"%.*s\" @%llu:%llu\n", (int)t.len, t.ptr, (unsigned long long)at.line,
                       (unsigned long long)at.column);
                break;
            }
            case STAX_EV_ENTITY_REF: {
                stax_str sys = stax_ev_sysid(b, i);
                printf("ENTITY_REF %.*s system \"%.*s\" @%llu:%llu\n", (int)name.len, name.ptr, (int)sys.len,
                       sys.ptr, (unsigned long long)at.line, (unsigned long long)at.column);
                break;
            }
            default: break;
            }
        }
    }
    return st;
}

int main(void) {
    static const char doc[] = "<!DOCTYPE catalog [\n"
                              "  <!NOTATION png SYSTEM \"image/png\">\n"
                              "  <!ENTITY logo SYSTEM \"logo.png\" NDATA png>\n"
                              "  <!ENTITY company \"Acme &amp; Sons\">\n"
                              "  <!ENTITY legal SYSTEM \"legal.xml\">\n"
                              "  <!ATTLIST catalog version CDATA \"2.0\">\n"
                              "  <!ATTLIST item kind (tool|part) \"part\">\n"
                              "  <?generator stax-example?>\n"
                              "]>\n"
                              "<catalog>\n"
                              "  <item>&company;</item>\n"
                              "  <item kind=\" tool \">See &legal;</item>\n"
                              "</catalog>\n";
    stax_reader_options opt = {0};
    opt.flags = STAX_READ_SKIP_WS;
    stax_reader *r = stax_reader_new(&opt);
    if (!r) return 1;

    stax_reader_feed(r, doc, sizeof doc - 1); /* the whole document at once */
    stax_reader_end(r);                       /* ... and nothing after it */
    int st = dtd_drain(r);
    printf("%s\n", st == STAX_END ? "done" : stax_reader_message(r));
    stax_reader_free(r);
    return st == STAX_END ? 0 : 1;
}
