/* Keyed hashing for the tables an attacker fills (the DTD's, the namespace
 * bindings): SipHash-1-3 under a key made per table. */
#include "stax_internal.h"

static uint64_t hash_mix(uint64_t x) { /* a 64-bit finalizer: every input bit moves every output bit */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

void stax__hash_key_init(stax__hash_key *key, const void *table) {
    static const char anchor = 0; /* where the program's data was loaded */
    uint64_t a = (uint64_t)(uintptr_t)table, b = (uint64_t)(uintptr_t)&a, c = (uint64_t)(uintptr_t)&anchor;
    key->k0 = hash_mix(a ^ hash_mix(c));
    key->k1 = hash_mix(b ^ hash_mix(c + 0x9e3779b97f4a7c15u));
}

#define HASH_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define HASH_ROUND(v0, v1, v2, v3)                                                                               \
    do {                                                                                                        \
        v0 += v1, v1 = HASH_ROTL(v1, 13), v1 ^= v0, v0 = HASH_ROTL(v0, 32);                                      \
        v2 += v3, v3 = HASH_ROTL(v3, 16), v3 ^= v2;                                                              \
        v0 += v3, v3 = HASH_ROTL(v3, 21), v3 ^= v0;                                                              \
        v2 += v1, v1 = HASH_ROTL(v1, 17), v1 ^= v2, v2 = HASH_ROTL(v2, 32);                                      \
    } while (0)

/* SipHash-1-3: one compression round per 8-byte word, three to finish. */
uint64_t stax__hash(const stax__hash_key *key, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t v0 = key->k0 ^ 0x736f6d6570736575u, v1 = key->k1 ^ 0x646f72616e646f6du;
    uint64_t v2 = key->k0 ^ 0x6c7967656e657261u, v3 = key->k1 ^ 0x7465646279746573u;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t m = 0;
        for (int k = 7; k >= 0; k--) m = m << 8 | p[i + (size_t)k]; /* little-endian on every machine */
        v3 ^= m;
        HASH_ROUND(v0, v1, v2, v3);
        v0 ^= m;
    }
    uint64_t last = (uint64_t)n << 56;
    for (size_t k = 0; i + k < n; k++) last |= (uint64_t)p[i + k] << (8 * k);
    v3 ^= last;
    HASH_ROUND(v0, v1, v2, v3);
    v0 ^= last;
    v2 ^= 0xff;
    HASH_ROUND(v0, v1, v2, v3);
    HASH_ROUND(v0, v1, v2, v3);
    HASH_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

