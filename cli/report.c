/* The tool's reports, below the driver (cli/run.c) and the ranges
 * (cli/part.c), which both use them: a reader's error as NAME:LINE:COL:
 * message (byte N), the refusal of a compressed input, a reader status as
 * the exit code, and a word quoted for the shell. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The formats a dump usually comes compressed in: the magic bytes at the start
 * of the stream (bzip2's fourth byte is the block size, '1' to '9'), and the
 * command that writes it out again. None can begin an XML document. */
static const struct {
    const char *magic;
    size_t len;
    const char *name, *cat;
} cli_compressed[] = {
    {"\x1f\x8b", 2, "gzip", "zcat"},
    {"BZh1", 4, "bzip2", "bzcat"},
    {"\xfd" "7zXZ\0", 6, "xz", "xzcat"},
    {"\x28\xb5\x2f\xfd", 4, "zstd", "zstdcat"},
};
#define CLI_NCOMPRESSED (sizeof cli_compressed / sizeof cli_compressed[0])

int stax_cli_compressed_format(const unsigned char *p, size_t n) {
    for (size_t f = 0; f < CLI_NCOMPRESSED; f++) {
        const unsigned char *m = (const unsigned char *)cli_compressed[f].magic;
        size_t len = cli_compressed[f].len, k = 0;
        for (; k < len && k < n; k++) {
            int bzip2_level = f == 1 && k == 3;
            if (bzip2_level ? p[k] < '1' || p[k] > '9' : p[k] != m[k]) break;
        }
        if (k == len) return (int)f;
        if (k == n) return STAX_CLI_UNDECIDED;
    }
    return -1;
}

size_t stax_cli_quote(char *out, const char *s) {
    size_t n = 0;
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-") == strlen(s)) {
        memcpy(out, s, strlen(s));
        return strlen(s);
    }
    out[n++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *s;
        }
    }
    out[n++] = '\'';
    return n;
}

/* The refusal of a compressed input. */
void stax_cli_report_compressed(const stax_cli_opts *o, int f) {
    if (o->quiet) return;
    const char *name = o->name ? o->name : "-", *command = o->command ? o->command : "stax ...";
    if (!strcmp(name, "-")) {
        fprintf(stderr, "-: input is %s-compressed; decompress it first: ... | %s | %s\n", cli_compressed[f].name,
                cli_compressed[f].cat, command);
        return;
    }
    char *quoted = malloc(4 * strlen(name) + 3);
    if (quoted) quoted[stax_cli_quote(quoted, name)] = '\0';
    fprintf(stderr, "%s: input is %s-compressed; try: %s %s | %s\n", name, cli_compressed[f].name, cli_compressed[f].cat,
            quoted ? quoted : name, command);
    free(quoted);
}

void stax_cli_report_at(const stax_cli_opts *o, stax_pos p, const char *msg, int st) {
    if (o->quiet) return;
    fprintf(stderr, "%s:%llu:%llu: %s (byte %llu)\n", o->name ? o->name : "-", (unsigned long long)p.line,
            (unsigned long long)p.column, msg[0] ? msg : stax_strerror(st), (unsigned long long)p.offset);
}

void stax_cli_report(const stax_cli_opts *o, stax_reader *r, int st) {
    stax_cli_report_at(o, stax_reader_error_pos(r), stax_reader_message(r), st);
}

int stax_cli_refuse_compressed(const stax_cli_opts *o, const unsigned char *p, size_t n) {
    int f = stax_cli_compressed_format(p, n);
    if (f < 0) return 0;
    stax_cli_report_compressed(o, f);
    return 1;
}

/* 1 for a document that is not well-formed (or over one of the reader's
 * limits), 2 for what is not the document's fault: I/O, memory, a bug, and
 * an encoding (or, in a build without the DTD, an internal subset) the
 * reader does not read. */
int stax_cli_exit_code(int st) {
    if (st == STAX_END) return 0;
    if (st == STAX_E_IO || st == STAX_E_USAGE || st == STAX_E_NOMEM || st == STAX_E_INTERNAL || st == STAX_E_UNSUPPORTED)
        return 2;
    return 1;
}
