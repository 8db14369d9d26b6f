/* --save-every / --resume: the tool's context file. It holds the reader's
 * context (stax_reader_save) and beside it what the command has counted so
 * far, so that a job over a huge file survives a restart:
 *
 *   "STAXCLI" 0x01   u32 length + the command's name   u32 length + its state
 *   u64 FNV-1a of every byte before it                 the reader's context
 *
 * The reader checks its own part; the tool checks the rest. The file is
 * written to FILE.tmp, synced, and renamed over FILE: a crash leaves the
 * last complete context. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CLI_CTX_MAGIC "STAXCLI\x01"

uint64_t stax_cli_fnv(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

void stax_cli_put(unsigned char *p, uint64_t v, int width) {
    for (int i = 0; i < width; i++) p[i] = (unsigned char)(v >> (8 * i));
}

uint64_t stax_cli_get(const unsigned char *p, int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int stax_cli_write_all(int fd, const unsigned char *p, size_t n) {
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

const char *stax_cli_read_file(const char *path, unsigned char **out, size_t *out_len) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return strerror(errno);
    size_t len = 0, cap = 0;
    unsigned char *buf = NULL;
    const char *why = NULL;
    for (;;) {
        if (len == cap) {
            unsigned char *nb = cap < ((size_t)1 << 30) ? realloc(buf, cap = cap ? 2 * cap : 65536) : NULL;
            if (!nb) {
                why = "the file is too large";
                break;
            }
            buf = nb;
        }
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) why = strerror(errno);
        if (k <= 0) break;
        len += (size_t)k;
    }
    close(fd);
    if (why) {
        free(buf);
        return why;
    }
    unsigned char *fit = realloc(buf, len ? len : 1); /* no slack past the bytes read */
    *out = fit ? fit : buf;
    *out_len = len;
    return NULL;
}

int stax_cli_context_store(const stax_cli_opts *o, stax_reader *r, const stax_cli_state *st) {
    size_t ctx_len = 0;
    int rc = stax_reader_save(r, NULL, 0, &ctx_len);
    if (rc == STAX_E_NOSAVE) return 1; /* not here: at the next batch */
    if (rc != STAX_OK) return -1;
    size_t cmd = strlen(st->command), head = 8 + 4 + cmd + 4 + st->len + 8;
    unsigned char *buf = malloc(head + ctx_len);
    if (!buf) return -1;
    memcpy(buf, CLI_CTX_MAGIC, 8);
    stax_cli_put(buf + 8, cmd, 4);
    memcpy(buf + 12, st->command, cmd);
    stax_cli_put(buf + 12 + cmd, st->len, 4);
    if (st->len) memcpy(buf + 16 + cmd, st->data, st->len);
    stax_cli_put(buf + head - 8, stax_cli_fnv(buf, head - 8), 8);
    if (stax_reader_save(r, buf + head, ctx_len, &ctx_len) != STAX_OK) {
        free(buf);
        return -1;
    }
    size_t nl = strlen(o->context);
    char *tmp = malloc(nl + 5);
    if (!tmp) {
        free(buf);
        return -1;
    }
    memcpy(tmp, o->context, nl);
    memcpy(tmp + nl, ".tmp", 5);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int bad = fd < 0 || stax_cli_write_all(fd, buf, head + ctx_len) || fsync(fd);
    if (fd >= 0 && close(fd)) bad = 1;
    if (!bad && rename(tmp, o->context)) bad = 1;
    if (bad) {
        if (!o->quiet) fprintf(stderr, "stax: %s: cannot write the context: %s\n", o->context, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    free(buf);
    return bad ? -1 : 0;
}

static int cli_ctx_fail(const stax_cli_opts *o, const char *why) {
    if (!o->quiet) fprintf(stderr, "stax: %s: %s\n", o->resume, why);
    return -1;
}

int stax_cli_context_load(const stax_cli_opts *o, stax_reader *r, const stax_cli_state *st, uint64_t *offset) {
    size_t len = 0;
    unsigned char *buf = NULL;
    const char *fail = stax_cli_read_file(o->resume, &buf, &len);
    if (fail) return cli_ctx_fail(o, !strcmp(fail, "the file is too large") ? "the context file is too large" : fail);
    const char *why = NULL;
    size_t cmd = len >= 12 ? (size_t)stax_cli_get(buf + 8, 4) : 0, at = 12 + cmd, app = 0;
    if (len < 12 || memcmp(buf, CLI_CTX_MAGIC, 8) != 0 || cmd > len - 12) why = "not a stax context file";
    else if (len - at < 4 || (app = (size_t)stax_cli_get(buf + at, 4)) > len - at - 4 || len - at - 4 - app < 8)
        why = "the context file is truncated";
    else if (stax_cli_get(buf + at + 4 + app, 8) != stax_cli_fnv(buf, at + 4 + app)) why = "the context file is corrupt";
    else if (cmd != strlen(st->command) || memcmp(buf + 12, st->command, cmd) != 0) why = "saved by another command";
    else if (app != st->len) why = "the command's saved state has another size";
    if (why) {
        free(buf);
        return cli_ctx_fail(o, why);
    }
    size_t head = at + 4 + app + 8;
    stax_pos pos;
    if (stax_reader_resume(r, buf + head, len - head) != STAX_OK ||
        stax_context_position(buf + head, len - head, &pos) != STAX_OK) {
        int rc = cli_ctx_fail(o, stax_reader_message(r));
        free(buf);
        return rc;
    }
    if (app) memcpy(st->data, buf + at + 4, app);
    *offset = pos.offset;
    free(buf);
    return 0;
}

int stax_cli_skip(int fd, uint64_t offset) {
    /* off_t is 64-bit (cli/lfs.c): an offset past INT64_MAX turns negative in
     * it, and 2^64 - 1 into -1, which is also what a failing lseek returns */
    if (offset > (uint64_t)INT64_MAX) {
        errno = EOVERFLOW;
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && offset > (uint64_t)sb.st_size) {
        errno = EINVAL; /* past the end: nothing there to read on from */
        return -1;
    }
    off_t at = lseek(fd, (off_t)offset, SEEK_SET);
    if (at >= 0) return (uint64_t)at == offset ? 0 : -1;
    if (errno != ESPIPE) return -1;
    char tmp[65536]; /* a pipe: read up to the offset */
    while (offset) {
        ssize_t k = read(fd, tmp, offset < sizeof tmp ? (size_t)offset : sizeof tmp);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        offset -= (uint64_t)k;
    }
    return 0;
}
