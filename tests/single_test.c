/* Only in the single-file unit binary (make test-single): the private
 * STAX_STATIC copy of tests/single_static.c, linked beside the ordinary copy,
 * must run as well as compile. Its document has two start tags. */
#include <criterion/criterion.h>

int stax_single_static_smoke(void);

Test(single, static_copy_runs) { cr_assert_eq(stax_single_static_smoke(), 2); }
