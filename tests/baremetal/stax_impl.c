/* The implementation of the single file for firmware: the default allocator
 * defined away, so only a caller's fixed block (or alloc hook) gives memory
 * and nothing can reach malloc. The configuration macros (STAX_NO_STDIO,
 * STAX_NO_DTD, ...) come from the compiler's command line, the same for every
 * file of the program. docs/embedded.md shows this file. */
#define STAX_REALLOC(p, n) ((void)(p), (void)(n), (void *)0)
#define STAX_FREE(p) ((void)(p))
#define STAX_IMPLEMENTATION
#include "stax.h"
