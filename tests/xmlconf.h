/* What the W3C XML Conformance Test Suite runners share: the test list, the
 * verdict rules, and the report. A runner (tests/conformance.c for stax,
 * tests/conformance_expat.c for expat) only parses one document, at two chunk
 * sizes, and hands the outcome to xc_judge; so both apply the same rules and
 * print the same tables. docs/conformance.md states the rules. */
#ifndef STAX_XMLCONF_H
#define STAX_XMLCONF_H

#include <stddef.h>
#include <stdio.h>

#define XC_LARGE_CHUNK 65536u

enum xc_type { XC_VALID, XC_INVALID, XC_NOT_WF, XC_ERROR, XC_TYPE_COUNT };
extern const char *const xc_type_names[XC_TYPE_COUNT];

enum xc_verdict { XC_PASS, XC_FAIL, XC_SKIP, XC_NOT_RUN };

enum xc_skip { XC_SKIP_NONE, XC_SKIP_EXTERNAL, XC_SKIP_ENCODING, XC_SKIP_COUNT };
extern const char *const xc_skip_names[XC_SKIP_COUNT];

/* What happened to one test, in one runner. */
typedef struct xc_outcome {
    int verdict;      /* enum xc_verdict, or -1: not known (no such test in a --beside file) */
    int skip;         /* enum xc_skip */
    int accepted;     /* the parser accepted the document */
    int hard;         /* a failure whatever the test expects (chunk dependence, I/O...) */
    int pre5_differs; /* pre-5th-edition test: not what the old edition expects */
    char *detail;     /* what happened, for failures and skips */
} xc_outcome;

typedef struct xc_set {
    char *base;    /* xml:base of the top-level TESTCASES ("xmltest/") */
    char *profile; /* its PROFILE, or the first nested one */
} xc_set;

typedef struct xc_test {
    char *id, *uri, *path, *output_path; /* paths relative to SUITE_DIR/xmlconf/; output_path may be NULL */
    char *entities, *edition, *version, *recommendation;
    int type; /* enum xc_type, or -1 when TYPE is unknown */
    size_t set;
    int pre5;       /* EDITION given, and without 5: the 5th edition overrules it */
    int xml11;      /* XML 1.1 only: not run */
    int namespaces; /* a Namespaces 1.0 test: run with namespace processing on */
    xc_outcome own, beside;
    xc_outcome ext; /* the run with external entities read (ENTITIES not "none"), or verdict -1 */
} xc_test;

typedef struct xc_suite {
    xc_set *sets;
    size_t nsets, capsets;
    xc_test *tests;
    size_t ntests, captests;
} xc_suite;

typedef struct xc_opts {
    const char *dir; /* SUITE_DIR */
    size_t small_chunk;
    int quiet, verbose;
    const char *only;     /* --only ID */
    const char *markdown; /* --markdown FILE */
    const char *verdicts; /* --verdicts FILE: write one line per test */
    const char *beside;   /* --beside FILE: another runner's --verdicts, shown in extra columns */
    int fixed_sweep;      /* --fixed-sweep: also read each document in fixed blocks of many sizes */
} xc_opts;

/* One parse of a document, as a runner reports it to xc_judge. */
typedef struct xc_parse {
    int accepted;    /* well-formed (by this parser) */
    int unsupported; /* rejected only because the encoding is not supported */
    int trouble;     /* rejected for lack of memory, I/O or misuse: not a verdict on the document */
    char *what;      /* "accepted", or "rejected: ..." with the parser's error and position */
    char *canon;     /* canonical form, for an accepted document (NULL if not produced) */
    size_t canon_len;
    int resolved;    /* external entities were read: none can be the reason of a skip */
} xc_parse;

/* A runner: its name, shown in the report, and how it runs one test. run
 * reads nothing but doc (the document's bytes; path to name it) and must end
 * with xc_judge, xc_set_result or xc_set_hard_failure on t. run_external
 * (NULL: not done) runs a test whose ENTITIES is not "none" again, reading
 * its external entities (files beside path), and ends the same way; its
 * outcome is kept apart, in t->ext, and reported in a table of its own. */
typedef struct xc_runner {
    const char *name;
    void (*run)(const xc_opts *o, xc_test *t, const char *path, const char *doc, size_t len);
    void (*run_external)(const xc_opts *o, xc_test *t, const char *path, const char *doc, size_t len);
} xc_runner;

/* Parse the options, load the list, run every test, print the report; returns
 * the exit status (0: no failure, 1: failures, 2: usage or I/O trouble). */
int xc_main(int argc, char **argv, const xc_runner *runner);

/* The verdict rules (docs/conformance.md, "Verdicts by TYPE" and "Skips"),
 * given the parse at 65536-byte chunks; doc is for the Appendix F check. */
void xc_judge(const xc_opts *o, xc_test *t, const char *doc, size_t len, const xc_parse *p);

/* Both take ownership of detail. */
void xc_set_result(xc_test *t, int verdict, int skip, char *detail);
void xc_set_hard_failure(xc_test *t, char *detail);

/* Allocation that exits on failure, and formatting into a new string. */
void *xc_malloc(size_t n);
char *xc_strdup(const char *s);
char *xc_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
