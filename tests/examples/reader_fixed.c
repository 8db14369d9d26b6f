/* docs/api.md, "Memory": firmware reading a sensor configuration in one
 * static block of 4 KiB, never calling malloc. */
#include "stax.h"

#include <stdio.h>
#include <string.h>

static _Alignas(16) unsigned char reader_block[4096];

/* Small limits: what a configuration file needs, and what bounds the block. */
static stax_reader_options sensor_options(void) {
    stax_reader_options o = {0};
    o.max_depth = 8;
    o.max_name = 32;
    o.max_attrs = 4;
    o.max_token = 256;
    o.max_text = 128;
    o.batch_events = 4;
    o.max_entity_depth = 2;
    o.read_buffer = 64;
    o.max_dtd = 64; /* no DTD expected: any internal subset is over the limit */
    o.memory = reader_block;
    o.memory_size = sizeof reader_block;
    return o;
}

/* Feed doc whole, end, count elements; print the outcome. */
static void fixed_run(const char *label, const char *doc, size_t len) {
    stax_reader_options opt = sensor_options();
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
    stax_reader_options opt = sensor_options();
    /* everything the reader can need is taken from the block when it is created */
    printf("the limits fit in %zu bytes: %s\n", sizeof reader_block,
           stax_reader_memory_size(&opt) <= sizeof reader_block ? "yes" : "no");

    static const char config[] = "<cfg v=\"2\"><sensor id=\"t1\" rate=\"10\"/>\n"
                                 "<sensor id=\"t2\" rate=\"20\">on</sensor><log/></cfg>";
    fixed_run("config", config, sizeof config - 1);

    static char big[1024];
    size_t n = (size_t)sprintf(big, "<cfg>\n<!--");
    memset(big + n, 'x', 300);
    n += 300;
    n += (size_t)sprintf(big + n, "--></cfg>");
    fixed_run("big comment", big, n);

    opt.max_token = 8192; /* does not fit: the reader is not created, and we learn why */
    const char *why;
    if (!stax_reader_new(&opt) && stax_reader_check_options(&opt, &why) == STAX_E_NOMEM)
        printf("max_token 8192: refused: %s\n", why);
    return 0;
}
