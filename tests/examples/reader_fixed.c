/* docs/api.md, "Fixed memory": a reader that lives in one static block and
 * never calls malloc. */
#include "stax.h"

#include <stdio.h>
#include <string.h>

static _Alignas(16) unsigned char reader_block[32 * 1024];

/* Feed doc whole, end, count elements; print the outcome. */
static void fixed_run(const char *label, const char *doc, size_t len) {
    stax_reader_options opt = {0};
    opt.memory = reader_block;
    opt.memory_size = sizeof reader_block;
    stax_reader *r = stax_reader_new(&opt);
    if (!r) {
        printf("%s: no reader\n", label);
        return;
    }
    const stax_batch *b;
    unsigned long elements = 0;
    int st;
    stax_reader_feed(r, doc, len);
    while ((st = stax_reader_next(r, &b)) == STAX_OK)
        for (size_t i = 0; i < b->count; i++) elements += stax_ev_type(b, i) == STAX_EV_START;
    if (st == STAX_NEED_INPUT) {
        stax_reader_end(r);
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++) elements += stax_ev_type(b, i) == STAX_EV_START;
    }
    if (st == STAX_END) {
        printf("%s: %lu elements\n", label, elements);
    } else {
        stax_pos p = stax_reader_error_pos(r);
        printf("%s: %s at %llu:%llu: %s\n", label, stax_strerror(st), (unsigned long long)p.line,
               (unsigned long long)p.column, stax_reader_message(r));
    }
    stax_reader_free(r); /* gives the block back: the next reader can use it */
}

int main(void) {
    static const char readings[] = "<log><r t=\"1\">20.5</r><r t=\"2\">20.7</r><r t=\"3\">21.0</r></log>";
    fixed_run("readings", readings, sizeof readings - 1);

    /* max_token defaults to a quarter of the block: 8 KiB here */
    static char big[10 * 1024];
    size_t n = (size_t)sprintf(big, "<log>\n<!--");
    memset(big + n, 'x', 9000);
    n += 9000;
    n += (size_t)sprintf(big + n, "--></log>");
    fixed_run("big comment", big, n);

    static _Alignas(16) unsigned char tiny[8 * 1024];
    stax_reader_options opt = {0};
    opt.memory = tiny;
    opt.memory_size = sizeof tiny;
    printf("8 KiB block: %s\n", stax_reader_new(&opt) ? "accepted" : "refused (below STAX_READER_MIN_MEMORY)");
    return 0;
}
