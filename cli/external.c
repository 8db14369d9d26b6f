/* --external: the tool's resolver. A system id is a local file: a relative
 * reference is resolved against the base of its declaration (the directory
 * of the document, or of the external entity that declared it), a file: URI
 * names a path; every other scheme is refused, so the network is never
 * touched; only regular files are read. The file is handed to the reader
 * as a read function. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct cli_file {
    int fd;
    char path[]; /* the resolved path: the base of the declarations in the file */
} cli_file;

static ptrdiff_t cli_file_read(void *ctx, void *buf, size_t cap) {
    cli_file *f = ctx;
    for (;;) {
        ssize_t n = read(f->fd, buf, cap);
        if (n >= 0 || errno != EINTR) return (ptrdiff_t)n;
    }
}

static void cli_file_done(void *ctx) {
    cli_file *f = ctx;
    close(f->fd);
    free(f);
}

static int cli_hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The scheme of a URI reference (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" /
 * "-" / "." ) ":"), its length, or 0 for a relative reference. */
static size_t cli_scheme(stax_str s) {
    size_t i = 0;
    if (!s.len || !((s.ptr[0] | 32) >= 'a' && (s.ptr[0] | 32) <= 'z')) return 0;
    while (i < s.len && (((s.ptr[i] | 32) >= 'a' && (s.ptr[i] | 32) <= 'z') || (s.ptr[i] >= '0' && s.ptr[i] <= '9') ||
                         s.ptr[i] == '+' || s.ptr[i] == '-' || s.ptr[i] == '.'))
        i++;
    return i < s.len && s.ptr[i] == ':' ? i : 0;
}

/* Refuse with a message (the reader copies it at once). */
static int cli_refuse(stax_cli_resolver *rs, stax_entity_input *in, int status, const char *fmt, const char *a,
                      const char *b) {
    snprintf(rs->msg, sizeof rs->msg, fmt, a, b);
    in->message = rs->msg;
    return status;
}

int stax_cli_resolve(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    stax_cli_resolver *rs = ud;
    const char *doc = rs->document;
    stax_str id = req->sysid;
    char shown[300];
    snprintf(shown, sizeof shown, "%.*s", (int)(id.len > 256 ? 256 : id.len), id.ptr);
    size_t scheme = cli_scheme(id);
    if (scheme) {
        if (scheme != 4 || strncasecmp(id.ptr, "file", 4) != 0)
            return cli_refuse(rs, in, STAX_E_IO, "'%s' is not a local file (--external reads files and file: URIs only)%s",
                              shown, "");
        id.ptr += 5, id.len -= 5;
        if (id.len >= 2 && id.ptr[0] == '/' && id.ptr[1] == '/') { /* an authority: empty or localhost */
            size_t a = 2;
            while (a < id.len && id.ptr[a] != '/') a++;
            if (a != 2 && !(a == 11 && strncasecmp(id.ptr + 2, "localhost", 9) == 0))
                return cli_refuse(rs, in, STAX_E_IO, "'%s' names another host (--external reads local files only)%s", shown, "");
            id.ptr += a, id.len -= a;
        }
    }
    /* the directory the reference is relative to: that of the base, or of the document */
    const char *base = req->base.len ? req->base.ptr : doc && strcmp(doc, "-") ? doc : "";
    size_t base_len = req->base.len ? req->base.len : strlen(base), dir = base_len;
    while (dir > 0 && base[dir - 1] != '/') dir--;
    if (id.len && id.ptr[0] == '/') dir = 0;
    cli_file *f = malloc(sizeof *f + dir + id.len + 1);
    if (!f) return cli_refuse(rs, in, STAX_E_NOMEM, "out of memory%s%s", "", "");
    memcpy(f->path, base, dir);
    size_t n = dir;
    for (size_t i = 0; i < id.len; i++) { /* %XX escapes decoded */
        int h, l;
        if (id.ptr[i] == '%' && i + 2 < id.len && (h = cli_hex(id.ptr[i + 1])) >= 0 && (l = cli_hex(id.ptr[i + 2])) >= 0) {
            f->path[n++] = (char)(h * 16 + l);
            i += 2;
        } else {
            f->path[n++] = id.ptr[i];
        }
    }
    f->path[n] = '\0';
    if (memchr(f->path, '\0', n)) {
        free(f);
        return cli_refuse(rs, in, STAX_E_IO, "'%s': a NUL byte in the path%s", shown, "");
    }
    /* regular files only: a FIFO, a device or a directory could block, never
     * end, or hand over what is not a file (O_NONBLOCK: opening a FIFO
     * does not wait for a writer) */
    struct stat st;
    f->fd = open(f->path, O_RDONLY | O_NONBLOCK);
    const char *why = f->fd < 0 ? strerror(errno) : fstat(f->fd, &st) ? strerror(errno)
                      : !S_ISREG(st.st_mode) ? "not a regular file"
                      : fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_NONBLOCK) ? strerror(errno) : NULL;
    if (why) {
        cli_refuse(rs, in, STAX_E_IO, "%s: %s", f->path, why);
        if (f->fd >= 0) close(f->fd);
        free(f);
        return STAX_E_IO;
    }
    in->read = cli_file_read;
    in->read_ctx = f;
    in->done = cli_file_done;
    in->done_ctx = f;
    in->base.ptr = f->path;
    in->base.len = n;
    return STAX_OK;
}
