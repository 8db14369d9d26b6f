/* The `stax` tool's subcommands, in process: exit codes (0 well-formed, 1 not,
 * 2 for resource or I/O trouble), the FILE:LINE:COL: message format on
 * stderr, count's and canon's output, and output independent of --chunk. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../cli/cli.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A file descriptor reading doc (a temporary file: any size). */
static int doc_fd(const char *doc) {
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    size_t n = strlen(doc);
    cr_assert_eq(fwrite(doc, 1, n, f), n);
    fflush(f);
    int fd = dup(fileno(f));
    fclose(f);
    cr_assert(fd >= 0);
    cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
    return fd;
}

typedef struct run {
    int rc;
    char out[4096], err[4096];
} run;

/* Run a subcommand on doc with stdout to a buffer and stderr captured. */
static run cmd(const char *which, const char *doc, size_t chunk, size_t memory) {
    run r;
    memset(&r, 0, sizeof r);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.chunk = chunk;
    o.memory = memory;
    o.name = "doc.xml";
    FILE *out = fmemopen(r.out, sizeof r.out - 1, "w");
    cr_assert_not_null(out);
    fflush(stderr);
    int saved = dup(2);
    FILE *err = tmpfile();
    cr_assert_not_null(err);
    dup2(fileno(err), 2);
    int fd = doc_fd(doc);
    if (!strcmp(which, "check")) r.rc = stax_cmd_check(&o, fd);
    else if (!strcmp(which, "count")) r.rc = stax_cmd_count(&o, fd, out);
    else r.rc = stax_cmd_canon(&o, fd, out);
    close(fd);
    fclose(out);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(err);
    size_t n = fread(r.err, 1, sizeof r.err - 1, err);
    r.err[n] = '\0';
    fclose(err);
    return r;
}

Test(cli, check_exit_codes_and_message_format) {
    run ok = cmd("check", "<a><b/></a>", 0, 0);
    cr_assert_eq(ok.rc, 0);
    cr_assert_str_eq(ok.out, "");
    cr_assert_str_eq(ok.err, "");
    run bad = cmd("check", "<a>\n<b>x</c></a>", 0, 0);
    cr_assert_eq(bad.rc, 1);
    cr_assert_str_eq(bad.err, "doc.xml:2:5: end tag 'c' does not match start tag 'b' (byte 8)\n");
    run trunc = cmd("check", "<a>", 0, 0);
    cr_assert_eq(trunc.rc, 1);
    cr_assert_str_eq(trunc.err, "doc.xml:1:4: the input ends inside element 'a' (byte 3)\n");
}

Test(cli, count_output) {
    run r = cmd("count", "<a x='1'><b y='2' z='3'/>t<![CDATA[c]]><!--k--><?p?></a>", 0, 0);
    cr_assert_eq(r.rc, 0);
    cr_assert_str_eq(r.out, "elements=2 attributes=3 text=1 cdata=1 comments=1 pis=1 text_bytes=2\n");
}

Test(cli, canon_output_does_not_depend_on_chunk) {
    static const char doc[] = "<?xml version='1.0'?><!DOCTYPE r [<!ENTITY e 'E'>]><r b='2' a='1'>&e;&#9;<![CDATA[<]]><!--x--><?p d?></r>";
    static const char want[] = "<r a=\"1\" b=\"2\">E&#9;&lt;<?p d?></r>";
    for (size_t chunk = 1; chunk <= 8; chunk++) {
        run r = cmd("canon", doc, chunk, 0);
        cr_assert_eq(r.rc, 0, "chunk %zu: %s", chunk, r.err);
        cr_assert_str_eq(r.out, want, "chunk %zu", chunk);
    }
    run whole = cmd("canon", doc, 0, 0);
    cr_assert_str_eq(whole.out, want);
}

Test(cli, memory_trouble_exits_2_and_limits_exit_1) {
    /* a fixed block below the reader's minimum: no reader at all, exit 2 */
    run r = cmd("check", "<a/>", 0, 1000);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "--memory") != NULL, "%s", r.err);
    /* a 64 KiB block: max_token defaults to a quarter of it; a longer tag is
     * a limit of the document (exit 1), reported at its '<' */
    char *doc = malloc(40000);
    cr_assert_not_null(doc);
    strcpy(doc, "<a>\n<b c='");
    memset(doc + 10, 'y', 30000);
    strcpy(doc + 30010, "'/></a>");
    run s = cmd("check", doc, 0, 65536);
    free(doc);
    cr_assert_eq(s.rc, 1, "%s", s.err);
    cr_assert(strncmp(s.err, "doc.xml:2:1: ", 13) == 0, "%s", s.err);
}
