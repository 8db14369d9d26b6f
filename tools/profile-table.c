/* Prints the profiles of docs/security.md ("Fixed blocks"): the limits a
 * fixed block gives with every option zero (the profile table in
 * reader_batch.c, through stax_reader_effective_options), and for each the
 * smallest block that gets it on this target, without and with namespaces
 * (stax_reader_memory_min of the profile's limits); tools/check-figures.sh
 * (make test-docs) compares its 64-bit columns with docs/security.md. Build
 * it against the single file for each target, e.g. natively and with a
 * 32-bit cross compiler under qemu-user:
 *   make single && cc -std=c11 -Ibuild tools/profile-table.c -o t && ./t */
#define STAX_IMPLEMENTATION
#include "stax.h"

#include <stdio.h>

static const char *kib(size_t n, char *buf) {
    if (n >= 1024 && n % 1024 == 0) sprintf(buf, "%zu KiB", n / 1024);
    else sprintf(buf, "%zu", n);
    return buf;
}

int main(void) {
    printf("pointers of %zu bytes; smallest block %zu bytes (STAX_READER_MIN_MEMORY %u)\n", sizeof(void *),
           stax_reader_memory_min(NULL), (unsigned)STAX_READER_MIN_MEMORY);
    printf("| profile | smallest block | with namespaces | `max_token` | `max_text` | `batch_events`, `max_attrs` | "
           "`max_name` | `max_depth` | `max_entity_depth` | `read_buffer` | `max_dtd` | `max_ns_bytes` |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    size_t last = 0;
    static unsigned char dummy[1]; /* effective_options reads memory_size only */
    for (size_t n = stax_reader_memory_min(NULL); n <= ((size_t)64 << 20); n += n / 64 + 1) {
        stax_reader_options o = {0}, e;
        o.memory = dummy;
        o.memory_size = n;
        if (stax_reader_effective_options(&o, &e, NULL) != STAX_OK || e.max_token + e.max_dtd == last) continue;
        last = e.max_token + e.max_dtd;
        e.memory = NULL;
        e.memory_size = 0;
        size_t plain = stax_reader_memory_min(&e);
        e.flags = STAX_READ_NAMESPACES;
        size_t ns = stax_reader_memory_min(&e);
        char b[10][32];
        /* the profile's nominal size: the smallest whose rules (rd_profile,
         * in this translation unit with the implementation) give these limits */
        size_t nominal = 4096;
        for (; nominal < ((size_t)1 << 30); nominal *= 2) {
            stax_reader_options t = {0};
            rd_profile(&t, nominal);
            if (t.max_token == e.max_token && t.max_dtd == e.max_dtd) break;
        }
        printf("| %s | %zu | %zu | %s | %s | %u | %u | %u | %u | %s | %s | %s |\n", kib(nominal, b[0]), plain, ns,
               kib(e.max_token, b[1]), kib(e.max_text, b[2]), (unsigned)e.batch_events, (unsigned)e.max_name,
               (unsigned)e.max_depth, (unsigned)e.max_entity_depth, kib(e.read_buffer, b[3]), kib(e.max_dtd, b[4]),
               kib(e.max_ns_bytes, b[5]));
    }
    return 0;
}
