/* The implementation of the single file with the default allocator replaced
 * (STAX_REALLOC and STAX_FREE), compiled by tools/check-single.sh once per set
 * of configuration macros. tests/single_options.c is the program around it. */
#include <stddef.h>

void *stax_test_realloc(void *p, size_t n);
void stax_test_free(void *p);

#define STAX_REALLOC(p, n) stax_test_realloc(p, n)
#define STAX_FREE(p) stax_test_free(p)
#define STAX_IMPLEMENTATION
#include "stax.h"
