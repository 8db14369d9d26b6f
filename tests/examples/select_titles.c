/* docs/api.md, "Select: path queries": two paths over a document, their
 * values in document order, a count, and a refused path. */
#include "stax.h"

#include <stdio.h>

static int print_piece(void *ctx, const stax_select_piece *p) {
    (void)ctx;
    static const char *const path_names[] = {"title", "isbn"};
    if (p->type == STAX_SELECT_BEGIN) printf("%llu %s: ", (unsigned long long)p->match, path_names[p->path]);
    if (p->type == STAX_SELECT_VALUE) printf("%.*s", (int)p->value.len, p->value.ptr);
    if (p->type == STAX_SELECT_END) printf("\n");
    return 0; /* nonzero would stop the selection */
}

/* Every batch of a document held in memory, through the select. */
static int select_document(stax_select *s, const char *doc, size_t len) {
    stax_reader *r = stax_reader_new(NULL);
    if (!r) return STAX_E_NOMEM;
    const stax_batch *b;
    int st = stax_reader_feed(r, doc, len), sst = STAX_OK;
    for (int ended = 0; sst == STAX_OK;) {
        while (sst == STAX_OK && (st = stax_reader_next(r, &b)) == STAX_OK) sst = stax_select_batch(s, b);
        if (st != STAX_NEED_INPUT || ended) break;
        stax_reader_end(r);
        ended = 1;
    }
    stax_reader_free(r);
    return sst != STAX_OK ? sst : st;
}

int main(void) {
    static const char doc[] = "<library>\n"
                              "  <book isbn=\"0-14-243724-7\"><title>Moby-Dick</title></book>\n"
                              "  <book><title>War &amp; Peace</title><title lang=\"ru\">Voyna i mir</title></book>\n"
                              "</library>\n";
    stax_select *s = stax_select_new(NULL); /* compile once, use for many documents */
    if (!s || stax_select_compile(s, stax_strz("//book/title[1] | //book/@isbn"), stax_strz("")) != STAX_OK)
        return 1;
    stax_select_set_output(s, print_piece, NULL);
    int st = select_document(s, doc, sizeof doc - 1);
    printf("%s; %llu titles, %llu isbn\n", st == STAX_END ? "done" : stax_select_message(s),
           (unsigned long long)stax_select_count(s, 0), (unsigned long long)stax_select_count(s, 1));
    stax_select_free(s);

    stax_select *bad = stax_select_new(NULL);
    if (!bad) return 1;
    if (stax_select_compile(bad, stax_strz("//book[substring(title, 1, 3)='War']"), stax_strz("")) != STAX_OK)
        printf("refused: %s\n", stax_select_message(bad));
    stax_select_free(bad);
    return st == STAX_END ? 0 : 1;
}
