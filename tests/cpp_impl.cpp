// The implementation of the single file in a C++ translation unit
// (tools/check-cpp.sh): compiled as C++11 to C++20, its public functions keep
// their C names, so C and C++ callers link with it alike.
#define STAX_IMPLEMENTATION
#include "stax.h"
