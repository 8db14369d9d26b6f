/* The DTD's memory (max_dtd) as a limit: a document whose DTD fits in
 * max_dtd bytes fits in every larger max_dtd, on 64-bit and 32-bit targets
 * alike (what the fixed-block rule of the reader rests on: a larger block
 * gives a larger max_dtd). The family: internal subsets of a few entity,
 * element and attribute-list declarations, each read at every max_dtd from
 * 64 bytes to 4 KiB in steps of 8. */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The documents: the declarations of xmlconf's sun/valid/pe00 (without its
 * parameter entity, which an internal subset may not use inside a
 * declaration), then subsets with 1..8 entities of growing replacement
 * texts, and some with attribute lists. */
static size_t family_doc(int k, char *buf, size_t cap) {
    size_t o = 0;
    if (k == 0)
        return (size_t)snprintf(buf, cap, "<!DOCTYPE root [<!ELEMENT root (#PCDATA)>\n<!-- Example -->\n"
                                          "<!ENTITY pub \"&#xc9;ditions Gallimard\">\n"
                                          "<!ENTITY rights \"All rights reserved\">\n"
                                          "<!ENTITY book \"La Peste: Albert Camus,\n&#xa9; 1947 &pub;. &rights;\">]>\n"
                                          "<root>&book;</root>");
    o += (size_t)snprintf(buf + o, cap - o, "<!DOCTYPE r [<!ELEMENT r ANY>");
    int n = 1 + (k - 1) % 8;
    for (int i = 0; i < n; i++) {
        o += (size_t)snprintf(buf + o, cap - o, "<!ENTITY e%d \"", i);
        for (int j = 0; j < 8 + 13 * i * k % 97; j++) buf[o++] = (char)('a' + j % 26);
        o += (size_t)snprintf(buf + o, cap - o, "\">");
        if (k > 8) o += (size_t)snprintf(buf + o, cap - o, "<!ATTLIST r a%d CDATA 'v%d'>", i, i);
    }
    o += (size_t)snprintf(buf + o, cap - o, "]><r>");
    for (int i = 0; i < n; i++) o += (size_t)snprintf(buf + o, cap - o, "&e%d;", i);
    o += (size_t)snprintf(buf + o, cap - o, "</r>");
    return o;
}

Test(dtd_sizes, outcome_is_monotonic_in_max_dtd) {
    char doc[4096];
    for (int k = 0; k <= 16; k++) {
        size_t len = family_doc(k, doc, sizeof doc);
        size_t fits = 0;
        for (size_t m = 64; m <= 4096; m += 8) {
            stax_reader_options o;
            memset(&o, 0, sizeof o);
            o.max_dtd = m;
            int st;
            char *d = stax_test_events(doc, len, 0, &o, &st);
            free(d);
            if (st == STAX_END) {
                if (!fits) fits = m;
                continue;
            }
            cr_assert_eq(st, STAX_E_LIMIT_DTD, "document %d, max_dtd %zu: status %d", k, m, st);
            cr_assert_eq(fits, 0, "document %d: well-formed in max_dtd %zu, over max_dtd in %zu:\n%s", k, fits, m, doc);
        }
        cr_assert_neq(fits, 0, "document %d never fits in 4 KiB of DTD", k);
    }
}
