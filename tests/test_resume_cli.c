/* stax check|count --save-every / --context / --resume: a job that dies
 * part way (here: a file cut short) goes on from its last context over the
 * whole file and prints what one uninterrupted run prints. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "../cli/cli.h"

#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define bin stax_test_bin

static char dir[256];

/* `stax ARGS` in the scratch folder: stdout and stderr, and the exit code. */
static int run(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(char *out, size_t cap, const char *fmt, ...) {
    char args[4096], line[12288];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "cd %s && %s %s 2>&1", dir, bin(), args);
    return stax_test_shell(line, out, cap);
}

static void write_file(const char *name, const char *data, size_t len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

static int exists(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* A document of records with a DTD, namespaces and entities in use throughout. */
static stax_test_buf make_doc(const char *tail) {
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<?xml version='1.0'?>\n<!DOCTYPE db [<!ENTITY co 'Company &amp; Co'>"
                           "<!ATTLIST rec kind CDATA 'plain'>]>\n<db xmlns:x='urn:x'>\n");
    for (int i = 0; i < 3000; i++)
        stax_test_buf_printf(&b, "  <rec id='%d'><x:name>&co; %d</x:name><![CDATA[c]]><!-- n --></rec>\n", i, i);
    stax_test_buf_puts(&b, tail);
    return b;
}

static void setup(void) {
    snprintf(dir, sizeof dir, "%s/stax-resume-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
    char line[600];
    snprintf(line, sizeof line, "rm -rf '%s'", dir);
    cr_assert_eq(system(line), 0);
}

Test(resume_cli, count_goes_on_after_a_cut, .init = setup, .fini = teardown) {
    stax_test_buf doc = make_doc("</db>\n");
    write_file("full.xml", doc.p, doc.len);
    write_file("cut.xml", doc.p, doc.len * 3 / 5);
    char want[4096], out[4096];
    cr_assert_eq(run(want, sizeof want, "count full.xml"), 0, "%s", want);
    /* the job that dies: the input ends at 60 % */
    cr_assert_eq(run(out, sizeof out, "count --quiet --chunk 1000 --save-every 4K --context job.ctx cut.xml"), 1, "%s", out);
    cr_assert(exists("job.ctx") && !exists("job.ctx.tmp"));
    cr_assert_eq(run(out, sizeof out, "count --resume job.ctx full.xml"), 0, "%s", out);
    cr_assert_str_eq(out, want);
    /* from a pipe (read up to the offset), and in a fixed block */
    cr_assert_eq(run(out, sizeof out, "count --resume job.ctx --memory 256K < full.xml"), 0, "%s", out);
    cr_assert_str_eq(out, want);
    /* resumed and saving again into the same file: the next run goes on from later */
    cr_assert_eq(run(out, sizeof out, "count --quiet --resume job.ctx --save-every 8K --chunk 512 cut.xml"), 1, "%s", out);
    cr_assert_eq(run(out, sizeof out, "count --resume job.ctx --chunk 7 full.xml"), 0, "%s", out);
    cr_assert_str_eq(out, want);
    stax_test_buf_free(&doc);
}

Test(resume_cli, check_gives_the_same_error, .init = setup, .fini = teardown) {
    stax_test_buf doc = make_doc("  <rec><x:name>unclosed</rec>\n</db>\n");
    write_file("bad.xml", doc.p, doc.len);
    write_file("cut.xml", doc.p, doc.len / 2);
    char want[4096], out[4096];
    cr_assert_eq(run(want, sizeof want, "check bad.xml"), 1, "%s", want);
    cr_assert(strstr(want, "bad.xml:"), "%s", want);
    cr_assert_eq(run(out, sizeof out, "check --quiet --save-every 2K --context c.ctx cut.xml"), 1);
    cr_assert_eq(run(out, sizeof out, "check --resume c.ctx bad.xml"), 1);
    cr_assert_str_eq(out, want);
    /* and a well-formed rest exits 0 */
    stax_test_buf good = make_doc("</db>\n");
    write_file("good.xml", good.p, good.len);
    cr_assert_eq(run(out, sizeof out, "check --resume c.ctx good.xml"), 0, "%s", out);
    stax_test_buf_free(&doc);
    stax_test_buf_free(&good);
}

Test(resume_cli, refusals_exit_2, .init = setup, .fini = teardown) {
    stax_test_buf doc = make_doc("</db>\n");
    write_file("full.xml", doc.p, doc.len);
    char out[4096];
    cr_assert_eq(run(out, sizeof out, "check --save-every 4K --context c.ctx full.xml"), 0, "%s", out);
    cr_assert_eq(run(out, sizeof out, "count --resume c.ctx full.xml"), 2);
    cr_assert(strstr(out, "c.ctx: saved by another command"), "%s", out);
    cr_assert_eq(run(out, sizeof out, "select --resume c.ctx //rec full.xml"), 2);
    cr_assert(strstr(out, "select does not save its matching state"), "%s", out);
    cr_assert_eq(run(out, sizeof out, "fmt --save-every 1K --context f.ctx full.xml"), 2);
    cr_assert_eq(run(out, sizeof out, "count --save-every 4K full.xml"), 2);
    cr_assert(strstr(out, "--save-every needs --context"), "%s", out);
    cr_assert_eq(run(out, sizeof out, "check --resume missing.ctx full.xml"), 2);
    /* a byte of the reader's part changed; then the tool's part */
    char path[512];
    snprintf(path, sizeof path, "%s/c.ctx", dir);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, -3, SEEK_END);
    int c = fgetc(f);
    fseek(f, -3, SEEK_END);
    fputc(c ^ 0x40, f);
    fclose(f);
    cr_assert_eq(run(out, sizeof out, "check --resume c.ctx full.xml"), 2);
    cr_assert(strstr(out, "checksum"), "%s", out);
    f = fopen(path, "r+b");
    fseek(f, 13, SEEK_SET);
    fputc('X', f);
    fclose(f);
    cr_assert_eq(run(out, sizeof out, "check --resume c.ctx full.xml"), 2);
    cr_assert(strstr(out, "corrupt") || strstr(out, "another command"), "%s", out);
    stax_test_buf_free(&doc);
}

/* A DTD that names things longer than max_name (here a PI target and an
 * entity of 1500 bytes, past the default 1024): -j and --part read it from
 * contexts that hold those names, and give what one thread gives. */
Test(resume_cli, parts_take_dtd_names_longer_than_max_name, .init = setup, .fini = teardown) {
    char name[1501];
    memset(name, 'n', 1500);
    name[1500] = 0;
    stax_test_buf doc = {0};
    stax_test_buf_puts(&doc, "<!DOCTYPE r [<?");
    stax_test_buf_puts(&doc, name);
    stax_test_buf_puts(&doc, " x?><!ENTITY ");
    stax_test_buf_puts(&doc, name);
    stax_test_buf_puts(&doc, " 'v'>]>\n<r>");
    for (int i = 0; i < 2000; i++) stax_test_buf_puts(&doc, "<e>x</e>\n");
    stax_test_buf_puts(&doc, "</r>\n");
    write_file("long.xml", doc.p, doc.len);
    char want[4096], out[4096];
    cr_assert_eq(run(want, sizeof want, "count -j 1 long.xml"), 0, "%s", want);
    cr_assert_eq(run(out, sizeof out, "count -j 2 --part-size 1000 long.xml"), 0, "%s", out);
    cr_assert_str_eq(out, want);
    for (int k = 0; k < 3; k++) cr_assert_eq(run(out, sizeof out, "count --part %d/3 long.xml > p%d", k, k), 0, "part %d: %s", k, out);
    cr_assert_eq(run(out, sizeof out, "merge long.xml p0 p1 p2"), 0, "%s", out);
    cr_assert_str_eq(out, want);
    stax_test_buf_free(&doc);
}

/* The offset a context resumes at: sought in a file, read up to in a pipe;
 * never past the end of a file, nor past what off_t holds (2^64 - 1 is -1
 * there, what a failed lseek returns: it was taken for a seek, and the
 * file read from byte 0). */
Test(resume_cli, skip_to_an_offset, .init = setup, .fini = teardown) {
    write_file("ten", "0123456789", 10);
    char path[512], c;
    snprintf(path, sizeof path, "%s/ten", dir);
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0);
    static const uint64_t past[] = {UINT64_MAX, (uint64_t)1 << 63, 11};
    for (size_t i = 0; i < sizeof past / sizeof past[0]; i++)
        cr_assert_eq(stax_cli_skip(fd, past[i]), -1, "offset %llu of a 10-byte file", (unsigned long long)past[i]);
    cr_assert_eq(stax_cli_skip(fd, 4), 0);
    cr_assert(read(fd, &c, 1) == 1 && c == '4');
    cr_assert_eq(stax_cli_skip(fd, 10), 0, "the end itself");
    cr_assert_eq(read(fd, &c, 1), 0);
    close(fd);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(write(p[1], "0123456789", 10), 10);
    cr_assert_eq(stax_cli_skip(p[0], 3), 0);
    cr_assert(read(p[0], &c, 1) == 1 && c == '3');
    close(p[1]);
    cr_assert_eq(stax_cli_skip(p[0], 7), -1, "past the end of a pipe");
    close(p[0]);
}

/* A context file whose context is moved (and sealed again): refused when the
 * offset is past the input, by the tool (a file that short) or the reader
 * (an offset no input has). */
Test(resume_cli, context_past_the_input, .init = setup, .fini = teardown) {
    stax_test_buf doc = make_doc("</db>\n");
    write_file("full.xml", doc.p, doc.len);
    char out[4096], path[512];
    cr_assert_eq(run(out, sizeof out, "count --save-every 4K --context c.ctx full.xml"), 0, "%s", out);
    snprintf(path, sizeof path, "%s/c.ctx", dir);
    unsigned char *buf;
    size_t len;
    cr_assert_null(stax_cli_read_file(path, &buf, &len));
    size_t cmd = (size_t)stax_cli_get(buf + 8, 4), app = (size_t)stax_cli_get(buf + 12 + cmd, 4), head = 12 + cmd + 4 + app + 8;
    stax_pos at;
    cr_assert_eq(stax_context_position(buf + head, len - head, &at), STAX_OK);
    const uint64_t offsets[] = {doc.len + 1, (uint64_t)1 << 40, UINT64_MAX};
    for (size_t i = 0; i < 3; i++) {
        stax_pos to = at;
        to.offset = offsets[i];
        cr_assert_eq(stax_context_move(buf + head, len - head, to), STAX_OK);
        write_file("moved.ctx", (const char *)buf, len);
        cr_assert_eq(run(out, sizeof out, "count --resume moved.ctx full.xml"), 2, "offset %llu: %s", (unsigned long long)to.offset, out);
        cr_assert(strstr(out, i == 2 ? "position" : "cannot go to byte"), "offset %llu: %s", (unsigned long long)to.offset, out);
    }
    free(buf);
    stax_test_buf_free(&doc);
}
