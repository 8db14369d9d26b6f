/* docs/writer.md, "Numbers": integers and fixed-point decimals, exact, without snprintf. */
#include "stax.h"

#include <stdint.h>
#include <stdio.h>

int main(void) {
    stax_writer *w = stax_writer_new(NULL);
    if (!w) return 1;
    stax_writer_set_memory(w, NULL, 0);
    stax_writer_start_z(w, "item");
    stax_writer_attr_uint_z(w, "id", 18446744073709551615u); /* UINT64_MAX */
    stax_writer_attr_dec_z(w, "price", 1999, 2);             /* 19.99 */
    stax_writer_attr_dec_z(w, "delta", -5, 3);               /* -0.005 */
    stax_writer_text_int(w, INT64_MIN);
    int st = stax_writer_finish(w);
    stax_str out = stax_writer_memory(w);
    printf("%s: %.*s\n", stax_strerror(st), (int)out.len, out.ptr);
    stax_writer_free(w);
    return 0;
}
