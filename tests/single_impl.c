/* The implementation of the amalgamated single file (build/stax.h) for
 * `make test-single`: every other test file sees only its declarations. It is
 * included twice on purpose: the second time must add nothing. */
#define STAX_IMPLEMENTATION
#include "stax.h"
#include "stax.h"
