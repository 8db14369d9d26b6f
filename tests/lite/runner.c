/* The runner of the unit tests built against tests/lite/criterion/criterion.h
 * (no Criterion library): every build of them but the native gcc one, which
 * runs Criterion's own (`make unit`): the sanitizer, clang and single-file
 * builds, and the cross targets of `make test-cross` under qemu-user.
 *
 *   unit-lite [--jobs N] [--filter SUITE/NAME-GLOB]... [--exclude GLOB]... [--list] [--verbose]
 *
 * --filter keeps only the tests whose SUITE/NAME matches one of the globs
 * given (up to 64); --exclude then leaves out the tests that match one of its
 * globs (up to 64); the summary says how many were left out.
 * Each test runs in a child process (its .init, its body, its .fini), N at a
 * time, with its .timeout (or STAX_LITE_TIMEOUT seconds when it has none),
 * scaled by STAX_LITE_TIMEOUT_SCALE (for emulators), as an alarm. --verbose
 * names each test as it starts, and when it ends its time and the CPU time
 * (user and system) of its child and what that ran, which another program's
 * load does not change as it does the time (tools/cross.sh's lists are made
 * from them). A child that exits 0 passed, 77 skipped; anything else (a
 * failed assertion exits 1, a crash is a signal) failed. The summary line
 * counts them; the exit status is 1 if any failed. Built with AddressSanitizer
 * (`make test-asan`), a test whose child leaks memory fails. */
#include <criterion/criterion.h>

#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

enum { LITE_SKIP = 77 };

/* Under AddressSanitizer each test's child looks for leaks before it exits
 * (_exit skips LeakSanitizer's check at exit): a leak fails the test, as it
 * fails a test under Criterion's runner. */
#if defined(__SANITIZE_ADDRESS__)
#define LITE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LITE_LSAN 1
#endif
#endif
#ifdef LITE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

static struct crx_test *lite_all;
static const struct crx_test *lite_current;

void crx_register(struct crx_test *t) {
    t->next = lite_all;
    lite_all = t;
}

static void lite_vmsg(const char *fmt, va_list ap) {
    if (!fmt) return;
    fputs(": ", stderr);
    vfprintf(stderr, fmt, ap);
}

/* The failure's line: test, place, expression and the assertion's message. */
static void lite_report(const char *file, int line, const char *expr, const char *fmt, va_list ap) {
    fprintf(stderr, "[FAIL] %s/%s %s:%d: %s", lite_current ? lite_current->suite : "?",
            lite_current ? lite_current->name : "?", file, line, expr);
    lite_vmsg(fmt, ap);
    fputc('\n', stderr);
}

_Noreturn static void lite_end_failed(void) {
    fflush(NULL);
    _exit(1);
}

_Noreturn void crx_fail(const char *file, int line, const char *expr, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lite_report(file, line, expr, fmt, ap);
    va_end(ap);
    lite_end_failed();
}

_Noreturn void crx_fail_str(const char *file, int line, const char *expr, const char *a, const char *b, const char *fmt,
                            ...) {
    va_list ap;
    va_start(ap, fmt);
    lite_report(file, line, expr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "  left:  \"%s\"\n  right: \"%s\"\n", a, b);
    lite_end_failed();
}

void crx_skip(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[SKIP] %s/%s", lite_current->suite, lite_current->name);
    lite_vmsg(fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(NULL);
    _exit(LITE_SKIP);
}

void crx_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[INFO] %s/%s", lite_current->suite, lite_current->name);
    lite_vmsg(fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int lite_order(const void *a, const void *b) {
    const struct crx_test *x = *(const struct crx_test *const *)a, *y = *(const struct crx_test *const *)b;
    int c = strcmp(x->suite, y->suite);
    return c ? c : strcmp(x->name, y->name);
}

static void lite_child(const struct crx_test *t, double scale, double dflt) {
    lite_current = t;
    double limit = t->timeout > 0 ? t->timeout : dflt;
    if (limit > 0) alarm((unsigned)(limit * scale) + 1);
    if (t->init) t->init();
    t->fn();
    if (t->fini) t->fini();
    fflush(NULL);
#ifdef LITE_LSAN
    if (__lsan_do_recoverable_leak_check()) {
        fprintf(stderr, "[FAIL] %s/%s: memory leaked (LeakSanitizer's report above)\n", t->suite, t->name);
        lite_end_failed();
    }
#endif
    _exit(0);
}

static double lite_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* User and system time of the children waited for so far. */
static double lite_children_cpu(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0) return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv) {
    long jobs = 1;
    const char *filter[64];
    size_t n_filter = 0;
    int list = 0, verbose = 0;
    const char *exclude[64];
    size_t n_exclude = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
            jobs = strtol(argv[++i], NULL, 10);
        } else if (strncmp(argv[i], "--jobs=", 7) == 0) {
            jobs = strtol(argv[i] + 7, NULL, 10);
        } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc && n_filter < 64) {
            filter[n_filter++] = argv[++i];
        } else if (strncmp(argv[i], "--filter=", 9) == 0 && n_filter < 64) {
            filter[n_filter++] = argv[i] + 9;
        } else if (strcmp(argv[i], "--exclude") == 0 && i + 1 < argc && n_exclude < 64) {
            exclude[n_exclude++] = argv[++i];
        } else if (strcmp(argv[i], "--list") == 0) {
            list = 1;
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else {
            fprintf(stderr, "usage: %s [--jobs N] [--filter SUITE/NAME-GLOB]... [--exclude GLOB]... [--list] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    if (jobs < 1) jobs = 1;
    const char *sc = getenv("STAX_LITE_TIMEOUT_SCALE");
    double scale = sc && atof(sc) > 0 ? atof(sc) : 1.0;
    const char *dt = getenv("STAX_LITE_TIMEOUT");
    double dflt = dt && atof(dt) > 0 ? atof(dt) : 0;

    size_t n = 0;
    for (struct crx_test *t = lite_all; t; t = t->next) n++;
    struct crx_test **v = (struct crx_test **)malloc((n ? n : 1) * sizeof *v);
    pid_t *pids = (pid_t *)calloc(n ? n : 1, sizeof *pids);
    double *starts = (double *)calloc(n ? n : 1, sizeof *starts);
    if (!v || !pids || !starts) return 2;
    size_t m = 0, excluded = 0;
    for (struct crx_test *t = lite_all; t; t = t->next) {
        char full[512];
        snprintf(full, sizeof full, "%s/%s", t->suite, t->name);
        size_t f = 0;
        while (f < n_filter && fnmatch(filter[f], full, 0) != 0) f++;
        if (n_filter && f == n_filter) continue;
        size_t x = 0;
        while (x < n_exclude && fnmatch(exclude[x], full, 0) != 0) x++;
        if (x < n_exclude) excluded++;
        else v[m++] = t;
    }
    qsort(v, m, sizeof *v, lite_order);
    if (list) {
        for (size_t i = 0; i < m; i++) printf("%s/%s\n", v[i]->suite, v[i]->name);
        return 0;
    }

    size_t next = 0, running = 0, passed = 0, failed = 0, skipped = 0, disabled = 0;
    double cpu0 = lite_children_cpu();
    fflush(NULL);
    while (next < m || running) {
        while (next < m && running < (size_t)jobs) {
            const struct crx_test *t = v[next];
            if (t->disabled) {
                disabled++;
                next++;
                continue;
            }
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 2;
            }
            if (pid == 0) lite_child(t, scale, dflt);
            if (verbose) fprintf(stderr, "[RUN ] %s/%s\n", t->suite, t->name);
            starts[next] = lite_seconds();
            pids[next++] = pid;
            running++;
        }
        if (!running) break;
        int st;
        pid_t pid = wait(&st);
        if (pid < 0) {
            perror("wait");
            return 2;
        }
        size_t k = 0;
        while (k < next && pids[k] != pid) k++;
        if (k == next) continue;
        pids[k] = 0;
        running--;
        /* The children's times grow by the child just waited for. */
        double cpu = lite_children_cpu();
        if (verbose)
            fprintf(stderr, "[DONE] %s/%s %.2fs, CPU %.2fs\n", v[k]->suite, v[k]->name, lite_seconds() - starts[k],
                    cpu - cpu0);
        cpu0 = cpu;
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            passed++;
        } else if (WIFEXITED(st) && WEXITSTATUS(st) == LITE_SKIP) {
            skipped++;
        } else {
            failed++;
            if (WIFSIGNALED(st))
                fprintf(stderr, "[FAIL] %s/%s: %s\n", v[k]->suite, v[k]->name,
                        WTERMSIG(st) == SIGALRM ? "timed out" : strsignal(WTERMSIG(st)));
            else if (WEXITSTATUS(st) != 1)
                fprintf(stderr, "[FAIL] %s/%s: exit status %d\n", v[k]->suite, v[k]->name, WEXITSTATUS(st));
        }
    }
    printf("unit-lite: %zu tests: %zu passed, %zu failed, %zu skipped, %zu disabled, %zu left out\n", m, passed, failed,
           skipped, disabled, excluded);
    free(v);
    free(pids);
    free(starts);
    return failed ? 1 : 0;
}
