/* docs/embedded.md: firmware reading its configuration from flash, in one
 * static block, with no malloc and no stdio. The document is read twice: in
 * the smallest block its limits need (2 KiB on a 32-bit target with every
 * part left out), and in 4 KiB with the block's own defaults; then the
 * settings are written back with the writer. main returns 0 when all of it
 * gives the expected values. */
#include "stax.h"

#include <stdint.h>
#include <string.h>

static const char config_xml[] =
    "<?xml version=\"1.0\"?>\n"
    "<config version=\"2\">\n"
    "  <wifi ssid=\"greenhouse\" channel=\"6\"/>\n"
    "  <sensor id=\"t1\" kind=\"temp\" period=\"10\"/>\n"
    "  <sensor id=\"h1\" kind=\"rh\" period=\"30\"/>\n"
    "  <log level=\"warn\">uart0</log>\n"
    "</config>\n";

typedef struct settings {
    unsigned channel, sensors, period_sum;
    char ssid[33], log_level[8];
    int log_uart0;
} settings;

/* An unsigned decimal attribute value, or 0. */
static unsigned to_uint(stax_str s) {
    unsigned v = 0;
    for (size_t i = 0; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9'; i++)
        v = v * 10u + (unsigned)(s.ptr[i] - '0');
    return v;
}

static void take(settings *cfg, const stax_batch *b, size_t i, int *in_log) {
    stax_str v;
    switch (stax_ev_type(b, i)) {
    case STAX_EV_START:
        if (stax_str_eq(stax_ev_name(b, i), "wifi")) {
            if (stax_ev_attr_get(b, i, "ssid", &v)) stax_str_copy(v, cfg->ssid, sizeof cfg->ssid);
            if (stax_ev_attr_get(b, i, "channel", &v)) cfg->channel = to_uint(v);
        } else if (stax_str_eq(stax_ev_name(b, i), "sensor")) {
            cfg->sensors++;
            if (stax_ev_attr_get(b, i, "period", &v)) cfg->period_sum += to_uint(v);
        } else if (stax_str_eq(stax_ev_name(b, i), "log")) {
            if (stax_ev_attr_get(b, i, "level", &v)) stax_str_copy(v, cfg->log_level, sizeof cfg->log_level);
            *in_log = 1;
        }
        break;
    case STAX_EV_TEXT:
        if (*in_log) cfg->log_uart0 = stax_str_eq(stax_ev_text(b, i), "uart0");
        break;
    case STAX_EV_END:
        *in_log = 0;
        break;
    default:
        break;
    }
}

/* Read the document with opt: STAX_END when it is well-formed. */
static int read_config(const stax_reader_options *opt, settings *cfg) {
    stax_reader *r = stax_reader_new(opt);
    if (!r) return STAX_E_NOMEM; /* stax_reader_check_options says why */
    const stax_batch *b;
    int st, in_log = 0;
    stax_reader_feed(r, config_xml, sizeof config_xml - 1);
    for (int ended = 0;;) {
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++) take(cfg, b, i, &in_log);
        if (st != STAX_NEED_INPUT || ended) break;
        stax_reader_end(r);
        ended = 1;
    }
    stax_reader_free(r); /* gives the block back */
    return st;
}

static int check(const settings *c) {
    return c->channel == 6 && c->sensors == 2 && c->period_sum == 40 && stax_str_eq(stax_strz(c->ssid), "greenhouse") &&
           stax_str_eq(stax_strz(c->log_level), "warn") && c->log_uart0;
}

static unsigned char block[4096]; /* any alignment: the sizes count the worst */

#if defined(STAX_NO_DTD) && defined(STAX_NO_MESSAGES)
#define SMALL_BLOCK 2048 /* the reader with every part left out */
#else
#define SMALL_BLOCK 2304 /* the DTD's region and the messages' buffer */
#endif

#ifndef STAX_NO_WRITER
/* The settings written back as XML, with the writer in the same block and
 * a memory sink: what firmware would send as its status. */
static int write_status(const settings *c, char *out, size_t cap, size_t *len) {
    stax_writer_options wo = {0};
    wo.memory = block;
    wo.memory_size = sizeof block;
    wo.buffer_size = 256;
    wo.flags = STAX_WRITE_SELF_CLOSE;
    stax_writer *w = stax_writer_new(&wo);
    if (!w) return STAX_E_NOMEM;
    int st = stax_writer_set_memory(w, out, cap);
    if (st == STAX_OK) st = stax_writer_start_z(w, "status");
    if (st == STAX_OK) st = stax_writer_attr_z(w, "ssid", c->ssid);
    if (st == STAX_OK) st = stax_writer_attr_uint_z(w, "sensors", c->sensors);
    if (st == STAX_OK) st = stax_writer_text_z(w, c->log_level);
    if (st == STAX_OK) st = stax_writer_finish(w);
    *len = stax_writer_memory(w).len;
    stax_writer_free(w);
    return st;
}
#endif

int main(void) {
    settings a = {0}, b = {0};

    /* Limits this document needs: 64-byte tokens, 32-byte texts, 3
     * attributes, 3 levels of 8-byte names, no DTD. On a 32-bit target
     * they fit in 2 KiB when every part is left out (docs/embedded.md). */
    stax_reader_options small = {0};
    small.max_token = 64;
    small.max_text = 32;
    small.max_attrs = 3;
    small.batch_events = 2;
    small.max_depth = 3;
    small.max_name = 8;
    small.max_entity_depth = 1;
    small.read_buffer = 64;
    small.max_dtd = 64;
    small.memory = block;
    size_t need = stax_reader_memory_min(&small);
    if (need > SMALL_BLOCK) return 1;
    small.memory_size = need - 1; /* one byte short: refused */
    if (stax_reader_new(&small) != NULL) return 5;
    small.memory_size = SMALL_BLOCK;
    if (read_config(&small, &a) != STAX_END || !check(&a)) return 2;

    /* 4 KiB, every limit zero: the block's own defaults */
#if defined(STAX_NO_DTD) || defined(STAX_NO_MESSAGES) /* less than the full build's */
    if (stax_reader_memory_min(NULL) > STAX_READER_MIN_MEMORY) return 6;
#else
    if (stax_reader_memory_min(NULL) != STAX_READER_MIN_MEMORY) return 6;
#endif
    stax_reader_options whole = {0};
    whole.memory = block;
    whole.memory_size = sizeof block;
    if (read_config(&whole, &b) != STAX_END || !check(&b)) return 3;

#ifndef STAX_NO_WRITER
    static char out[128];
    static const char expected[] = "<status ssid=\"greenhouse\" sensors=\"2\">warn</status>";
    size_t len = 0;
    if (write_status(&b, out, sizeof out, &len) != STAX_OK || len != sizeof expected - 1 ||
        memcmp(out, expected, len) != 0)
        return 4;
#endif
    return 0;
}
