/* The examples of docs/api.md (tests/examples/reader_*.c, select_titles.c), compiled into the
 * unit binary with main() renamed. Each test checks both directions, so the
 * page cannot drift from the code: the page's code block is the file byte for
 * byte, and the program, run with stdout captured, prints exactly the
 * page's output block. Blocks are found by their markers in docs/api.md:
 *   <!-- example: tests/examples/NAME.c -->   then a ```c block
 *   <!-- output: tests/examples/NAME.c -->    then a ```text block
 * Paths are relative to the source tree, where the unit tests run. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define main reader_example_push_main
#include "examples/reader_push.c"
#undef main
#define main reader_example_pull_main
#include "examples/reader_pull.c"
#undef main
#define main reader_example_namespaces_main
#include "examples/reader_namespaces.c"
#undef main
#define main reader_example_dtd_main
#include "examples/reader_dtd.c"
#undef main
#define main reader_example_fixed_main
#include "examples/reader_fixed.c"
#undef main
#define main reader_example_errors_main
#include "examples/reader_errors.c"
#undef main
#define main reader_example_external_main
#include "examples/reader_external.c"
#undef main
#define main select_example_titles_main
#include "examples/select_titles.c"
#undef main

#define API_DOC "docs/api.md"

/* The whole file as a NUL-terminated string. */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s (run the unit tests from the source tree)", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* The body of the fenced block (opening fence `fence`, e.g. "```c") that
 * follows `marker` in doc: everything between the fence line and the line
 * that closes it, final newline included. */
static char *fenced_after(const char *doc, const char *marker, const char *fence) {
    const char *m = strstr(doc, marker);
    cr_assert_not_null(m, API_DOC " has no marker '%s'", marker);
    const char *after = m + strlen(marker);
    while (*after == '\n') after++;
    size_t fl = strlen(fence);
    cr_assert(strncmp(after, fence, fl) == 0 && after[fl] == '\n', "'%s' is not followed by a %s block", marker,
              fence);
    const char *body = after + fl + 1, *end = body;
    while (strncmp(end, "```\n", 4) != 0 && strcmp(end, "```") != 0) {
        end = strchr(end, '\n');
        cr_assert_not_null(end, "unterminated block after '%s'", marker);
        end++;
    }
    size_t n = (size_t)(end - body);
    char *s = malloc(n + 1);
    cr_assert_not_null(s);
    memcpy(s, body, n);
    s[n] = '\0';
    return s;
}

/* Run fn with stdout going to a temporary file; return what it printed. */
static char *capture_stdout(int (*fn)(void), int *rc) {
    fflush(stdout);
    FILE *tmp = tmpfile();
    cr_assert_not_null(tmp);
    int saved = dup(1);
    cr_assert_geq(saved, 0);
    dup2(fileno(tmp), 1);
    *rc = fn();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    long n = (long)lseek(fileno(tmp), 0, SEEK_END);
    char *out = malloc((size_t)n + 1);
    cr_assert_not_null(out);
    lseek(fileno(tmp), 0, SEEK_SET);
    cr_assert_eq(read(fileno(tmp), out, (size_t)n), n);
    out[n] = '\0';
    fclose(tmp);
    return out;
}

/* The example file equals its code block, and its output equals its output block. */
static void check_example(const char *file, int (*fn)(void), int want_rc) {
    char *doc = slurp(API_DOC);
    char path[256], marker[300];
    snprintf(path, sizeof path, "tests/%s", file);
    char *src = slurp(path);
    snprintf(marker, sizeof marker, "<!-- example: %s -->", path);
    char *code = fenced_after(doc, marker, "```c");
    cr_assert_str_eq(code, src, "the code block of %s in " API_DOC " differs from the file", path);
    snprintf(marker, sizeof marker, "<!-- output: %s -->", path);
    char *want = fenced_after(doc, marker, "```text");
    int rc;
    char *out = capture_stdout(fn, &rc);
    cr_assert_eq(rc, want_rc, "%s returned %d", path, rc);
    cr_assert_str_eq(out, want, "%s prints something else than " API_DOC " shows:\n%s", path, out);
    free(out);
    free(want);
    free(code);
    free(src);
    free(doc);
}

Test(reader_examples, push) { check_example("examples/reader_push.c", reader_example_push_main, 0); }
Test(reader_examples, pull) { check_example("examples/reader_pull.c", reader_example_pull_main, 0); }
Test(reader_examples, namespaces) { check_example("examples/reader_namespaces.c", reader_example_namespaces_main, 0); }
Test(reader_examples, dtd) { check_example("examples/reader_dtd.c", reader_example_dtd_main, 0); }
Test(reader_examples, fixed) { check_example("examples/reader_fixed.c", reader_example_fixed_main, 0); }
Test(reader_examples, errors) { check_example("examples/reader_errors.c", reader_example_errors_main, 0); }
Test(reader_examples, external) { check_example("examples/reader_external.c", reader_example_external_main, 0); }
Test(reader_examples, select_titles) { check_example("examples/select_titles.c", select_example_titles_main, 0); }
