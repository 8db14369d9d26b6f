/* The part of Criterion's interface the unit tests use, for builds that have
 * no Criterion library (the cross targets of `make test-cross`, which run
 * under qemu-user with only the cross C library). tests/lite/runner.c runs
 * the tests: each in a child process, as Criterion does, so that a crash or a
 * failed assertion ends only its own test.
 *
 * The build puts tests/lite first on the include path: the unit tests'
 * `#include <criterion/criterion.h>` then finds this file. */
#ifndef STAX_LITE_CRITERION_H
#define STAX_LITE_CRITERION_H

#include <stddef.h>
#include <string.h>

/* The tests hand the address of a local to the reader's options and free the
 * reader before they return; behind Criterion's assertions GCC cannot follow
 * that, behind these it can, and then warns. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif

struct crx_test {
    const char *suite, *name;
    void (*fn)(void);
    void (*init)(void);
    void (*fini)(void);
    double timeout; /* seconds, 0: none */
    int disabled;
    const char *description;
    int crx_end;
    struct crx_test *next;
};

void crx_register(struct crx_test *t);
/* A failed assertion: the message (fmt may be NULL), then the test ends. */
_Noreturn void crx_fail(const char *file, int line, const char *expr, const char *fmt, ...);
/* The same for two strings that should (or should not) be equal. */
_Noreturn void crx_fail_str(const char *file, int line, const char *expr, const char *a, const char *b, const char *fmt, ...);
_Noreturn void crx_skip(const char *fmt, ...);
void crx_log(const char *fmt, ...);

/* Test(suite, name, .init = f, .timeout = s) { ... } */
#define Test(...) CRX_TEST_(__VA_ARGS__, .crx_end = 0)
#define CRX_TEST_(s_, n_, ...)                                                                                   \
    static void crx_fn_##s_##_##n_(void);                                                                        \
    static struct crx_test crx_t_##s_##_##n_ = {.suite = #s_, .name = #n_, .fn = crx_fn_##s_##_##n_, __VA_ARGS__}; \
    __attribute__((constructor)) static void crx_reg_##s_##_##n_(void) { crx_register(&crx_t_##s_##_##n_); }     \
    static void crx_fn_##s_##_##n_(void)

/* Every assertion takes an optional format and its arguments after its
 * operands; the trailing 0 stands for "no format" when there are none. */
#define cr_assert(...) CRX_TRUE_(__VA_ARGS__, 0)
#define cr_assert_not(...) CRX_NOT_(__VA_ARGS__, 0)
#define CRX_NOT_(e, ...) CRX_TRUE_(!(e), __VA_ARGS__)
#define CRX_TRUE_(cond, ...)                                                                                     \
    do {                                                                                                         \
        if (!(cond)) crx_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                           \
    } while (0)
#define CRX_CMP_(op, a, b, ...)                                                                                  \
    do {                                                                                                         \
        if (!((a)op(b))) crx_fail(__FILE__, __LINE__, #a " " #op " " #b, __VA_ARGS__);                          \
    } while (0)
#define cr_assert_eq(...) CRX_CMP_(==, __VA_ARGS__, 0)
#define cr_assert_neq(...) CRX_CMP_(!=, __VA_ARGS__, 0)
#define cr_assert_lt(...) CRX_CMP_(<, __VA_ARGS__, 0)
#define cr_assert_leq(...) CRX_CMP_(<=, __VA_ARGS__, 0)
#define cr_assert_gt(...) CRX_CMP_(>, __VA_ARGS__, 0)
#define cr_assert_geq(...) CRX_CMP_(>=, __VA_ARGS__, 0)
#define cr_assert_null(...) CRX_NULL_(==, __VA_ARGS__, 0)
#define cr_assert_not_null(...) CRX_NULL_(!=, __VA_ARGS__, 0)
#define CRX_NULL_(op, p, ...)                                                                                    \
    do {                                                                                                         \
        if (!((p)op NULL)) crx_fail(__FILE__, __LINE__, #p " " #op " NULL", __VA_ARGS__);          \
    } while (0)
#define cr_assert_str_eq(...) CRX_STR_(==, __VA_ARGS__, 0)
#define cr_assert_str_neq(...) CRX_STR_(!=, __VA_ARGS__, 0)
#define CRX_STR_(op, a, b, ...)                                                                                  \
    do {                                                                                                         \
        const char *crx_a_ = (a), *crx_b_ = (b);                                                                 \
        if (!(strcmp(crx_a_, crx_b_) op 0))                                                                      \
            crx_fail_str(__FILE__, __LINE__, #a " " #op " " #b, crx_a_, crx_b_, __VA_ARGS__);                    \
    } while (0)
#define cr_assert_fail(...) crx_fail(__FILE__, __LINE__, "cr_assert_fail", __VA_ARGS__, 0)
#define cr_skip_test(...) crx_skip(__VA_ARGS__, 0)
#define cr_log_info(...) crx_log(__VA_ARGS__, 0)

#endif
