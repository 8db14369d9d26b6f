/* An allocator hook for tests and fuzz targets (stax_alloc_fn): it fails the
 * fail_at-th allocation or resize (counting from 1; 0: none) and checks the
 * allocator contract: every free and resize must pass the size the block was
 * given, and only pointers it gave. What went wrong is kept in `wrong` (the
 * first fault, as a sentence) for the caller to report; nlive counts the
 * blocks not freed. Single-threaded: one hook per writer, no locking. */
#ifndef STAX_TEST_SIZED_ALLOC_H
#define STAX_TEST_SIZED_ALLOC_H

#include <stdio.h>
#include <stdlib.h>

typedef struct sized_alloc {
    long calls, fail_at;
    int failed; /* the failure was injected */
    struct {
        void *p;
        size_t n;
    } live[64];
    int nlive;
    char wrong[120]; /* empty while the contract holds */
} sized_alloc;

static void sized_alloc_fault(sized_alloc *a, const char *what, size_t old, size_t had) {
    if (!a->wrong[0]) snprintf(a->wrong, sizeof a->wrong, "%s with size %zu of a block of %zu", what, old, had);
}

static void *sized_alloc_hook(void *ud, void *p, size_t old, size_t n) {
    sized_alloc *a = ud;
    int i = -1;
    if (p) {
        for (int j = 0; j < a->nlive; j++)
            if (a->live[j].p == p) i = j;
        if (i < 0)
            sized_alloc_fault(a, n ? "resize of a pointer the hook did not give" : "free of a pointer the hook did not give",
                              old, 0);
        else if (a->live[i].n != old)
            sized_alloc_fault(a, n ? "resize" : "free", old, a->live[i].n);
    }
    if (n == 0) {
        if (i >= 0) a->live[i] = a->live[--a->nlive];
        free(p);
        return NULL;
    }
    if (++a->calls == a->fail_at) {
        a->failed = 1;
        return NULL;
    }
    void *q = realloc(p, n);
    if (!q) return NULL;
    if (i < 0) {
        if (a->nlive == 64) {
            sized_alloc_fault(a, "more than 64 live blocks", n, 0);
            return q; /* untracked: reported */
        }
        i = a->nlive++;
    }
    a->live[i].p = q;
    a->live[i].n = n;
    return q;
}

#endif
