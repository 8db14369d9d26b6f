/* tests/baremetal: the RAM figures of docs/embedded.md, measured on the
 * target. The example (config.c) is compiled into this file with its main
 * renamed, and its calls of stax_reader_memory_min go through a wrapper that
 * notes the options and the answer: the figures are those of the example's
 * own limits, never a copy of them. The implementation is in this file too,
 * for the size of the reader's struct. tools/check-baremetal.sh runs it under
 * QEMU and writes the table it prints into docs/embedded.md (or compares). */
#define STAX_REALLOC(p, n) ((void)(p), (void)(n), (void *)0)
#define STAX_FREE(p) ((void)(p))
#define STAX_IMPLEMENTATION
#include "stax.h"
#undef STAX_IMPLEMENTATION

#include <stdint.h>
#include <string.h>

void bm_puts(const char *s);

static stax_reader_options limits_seen; /* the example's options with limits set */
static size_t min_limits, min_zero;

static size_t figures_memory_min(const stax_reader_options *opt) {
    size_t n = stax_reader_memory_min(opt);
    if (!opt) min_zero = n;
    else if (!min_limits) {
        min_limits = n;
        limits_seen = *opt;
    }
    return n;
}

#define stax_reader_memory_min figures_memory_min
#define main config_main
#include "config.c"
#undef main
#undef stax_reader_memory_min

/* "1,234" into buf (32 bytes). */
static const char *num(size_t v, char *buf) {
    char digits[24];
    size_t n = 0, o = 0;
    do digits[n++] = (char)('0' + v % 10u);
    while ((v /= 10u) != 0 && n < sizeof digits);
    while (n) {
        buf[o++] = digits[--n];
        if (n && n % 3 == 0) buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}

/* One line "figure NAME VALUE" on the semihosting console. */
static void put(const char *name, const char *value) {
    char line[256];
    size_t n = 0, k;
    const char *parts[4] = {"figure ", name, " ", value};
    for (int i = 0; i < 4; i++)
        for (k = 0; parts[i][k] && n + 2 < sizeof line; k++) line[n++] = parts[i][k];
    line[n++] = '\n';
    line[n] = '\0';
    bm_puts(line);
}

static void put_size(const char *name, size_t v) {
    char buf[32];
    put(name, num(v, buf));
}

/* The example's limits as docs/embedded.md names them: "`max_token` 64, ...". */
static void put_limits(const stax_reader_options *o) {
    const struct {
        const char *name;
        size_t value;
    } f[] = {{"max_token", o->max_token},   {"max_text", o->max_text},
             {"batch_events", o->batch_events}, {"max_attrs", o->max_attrs},
             {"max_depth", o->max_depth},   {"max_name", o->max_name},
             {"max_entity_depth", o->max_entity_depth}, {"read_buffer", o->read_buffer},
             {"max_dtd", o->max_dtd}};
    char text[240], buf[32];
    size_t n = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (!f[i].value) continue;
        const char *parts[4] = {n ? ", `" : "`", f[i].name, "` ", num(f[i].value, buf)};
        for (int p = 0; p < 4; p++)
            for (size_t k = 0; parts[p][k] && n + 1 < sizeof text; k++) text[n++] = parts[p][k];
    }
    text[n] = '\0';
    put("limits", text);
}

int main(void) {
    int rc = config_main();
    if (rc != 0 || !min_limits || !min_zero) return rc ? rc : 7;
    /* the limits a block of the smallest size takes for zero options */
    stax_reader_options zero = {0}, eff;
    zero.memory = block;
    zero.memory_size = min_zero;
    if (stax_reader_effective_options(&zero, &eff, NULL) != STAX_OK) return 8;
    put_size("document", sizeof config_xml - 1);
    put_size("min_zero", min_zero);
    put_size("zero_max_token", eff.max_token);
    put_size("zero_max_depth", eff.max_depth);
    put_limits(&limits_seen);
    put_size("min_limits", min_limits);
    put_size("reader", sizeof(struct stax_reader));
    return 0;
}
