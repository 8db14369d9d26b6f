/* The one way a command's output goes out (cli.h, stax_cli_out): writes
 * that keep the first error, and the one message that reports it. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>

void stax_cli_out_init(stax_cli_out *w, FILE *f) {
    w->f = f;
    w->err = 0;
    w->reported = 0;
    w->drain = NULL;
    w->drain_ud = NULL;
}

int stax_cli_out_failed(stax_cli_out *w) {
    if (!w->err) w->err = errno ? errno : EIO;
    return -1;
}

int stax_cli_printf(stax_cli_out *w, const char *fmt, ...) {
    if (w->err) return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(w->f, fmt, ap);
    va_end(ap);
    return n >= 0 ? 0 : stax_cli_out_failed(w);
}

int stax_cli_out_flush(stax_cli_out *w) {
    if (w->drain && !w->err) w->drain(w->drain_ud);
    if (w->err) return -1;
    errno = 0;
    return fflush(w->f) == 0 ? 0 : stax_cli_out_failed(w);
}

int stax_cli_out_end(const stax_cli_opts *o, stax_cli_out *w, int rc) {
    if (!w->err) {
        /* errno from fflush; ferror alone: a write made past these functions */
        errno = 0;
        if (fflush(w->f) != 0) stax_cli_out_failed(w);
        else if (ferror(w->f)) w->err = EIO;
    }
    if (!w->err) return rc;
    if (!w->reported && !(o && o->quiet)) fprintf(stderr, "stax: write error: %s\n", strerror(w->err));
    w->reported = 1;
    return 2;
}
