/* The keyed hash of the reader's lookup tables (stax__hash, SipHash-1-3):
 * published test vectors, and keys that differ from table to table. */
#include "harness.h"
#include "stax_internal.h"

#include <criterion/criterion.h>

Test(hash, siphash_1_3_published_vectors) {
    /* SipHash-1-3 under the all-zero key, as published with the reference
     * implementation's 1-3 variant (and used by Rust's std and OCaml) */
    stax__hash_key zero = {0, 0};
    cr_assert_eq(stax__hash(&zero, "", 0), 0xd1fba762150c532cu);
    cr_assert_eq(stax__hash(&zero, "siphash", 7), 0x8264ceeccb16bcbeu);
    cr_assert_eq(stax__hash(&zero, "digest-sip_hash", 15), 0xce31007e34130c0au);
}

Test(hash, each_table_gets_its_own_key) {
    /* keys come from the table's address (and the stack's, and the
     * program's): two tables never share one, and the same name hashes
     * differently under them */
    static stax__hash_key a, b;
    stax__hash_key_init(&a, &a);
    stax__hash_key_init(&b, &b);
    cr_assert(a.k0 != b.k0 || a.k1 != b.k1);
    cr_assert_neq(stax__hash(&a, "name", 4), stax__hash(&b, "name", 4));
    /* and one key hashes consistently */
    cr_assert_eq(stax__hash(&a, "name", 4), stax__hash(&a, "name", 4));
    cr_assert_neq(stax__hash(&a, "name", 4), stax__hash(&a, "namf", 4));
}
