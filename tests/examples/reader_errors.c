/* docs/api.md, "Errors": the first error stops the reader; report it as
 * NAME:LINE:COL like a compiler. */
#include "stax.h"

#include <stdio.h>
#include <string.h>

static void errors_check(const char *name, const char *doc) {
    stax_reader *r = stax_reader_new(NULL);
    if (!r) return;
    const stax_batch *b;
    int st;
    stax_reader_feed(r, doc, strlen(doc));
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {}
    if (st == STAX_NEED_INPUT) {
        stax_reader_end(r);
        while ((st = stax_reader_next(r, &b)) == STAX_OK) {}
    }
    if (st == STAX_END) {
        printf("%s: well-formed\n", name);
    } else {
        stax_pos p = stax_reader_error_pos(r);
        printf("%s:%llu:%llu: %s (byte %llu; %s)\n", name, (unsigned long long)p.line,
               (unsigned long long)p.column, stax_reader_message(r), (unsigned long long)p.offset,
               stax_strerror(st));
        if (stax_reader_next(r, &b) != st) printf("not sticky!\n"); /* every later call returns it */
    }
    stax_reader_free(r);
}

int main(void) {
    errors_check("ok.xml", "<a>fine</a>");
    errors_check("mismatch.xml", "<a>\n  <b>\n  </c>\n</a>");
    errors_check("dup.xml", "<a x='1'\n   x='2'/>");
    errors_check("utf8.xml", "<a>caf\xC3</a>");
    errors_check("entity.xml", "<p>&nbsp;</p>");
    errors_check("roots.xml", "<a/>\n<b/>");
    errors_check("cut.xml", "<a>\n  <b>text");
    return 0;
}
