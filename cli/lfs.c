/* The tool reads files over 2 GiB on 32-bit targets as well: the build
 * defines _FILE_OFFSET_BITS=64 (Makefile STD), so off_t, and with it open,
 * fstat and lseek, are 64-bit everywhere. A build without it stops here. */
#include <sys/types.h>

_Static_assert(sizeof(off_t) >= 8, "build the tool with -D_FILE_OFFSET_BITS=64 (files over 2 GiB)");
