/* The tool's decoder for encodings the library does not read itself: the C
 * library's iconv (iconv_open(3)), given to the reader as its decoder
 * (stax_reader_options.decoder). Built without it (make ICONV=0, which
 * defines STAX_CLI_NO_ICONV) the tool reads the library's encodings alone. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#ifndef STAX_CLI_NO_ICONV
#include <errno.h>
#include <iconv.h>

/* An incomplete character at the end of one input is kept here and
 * completed from the next: no encoding iconv knows has a longer one. */
#define DEC_HELD 32

typedef struct cli_iconv {
    iconv_t cd;
    char held[DEC_HELD];
    size_t nheld;
} cli_iconv;

static void *cli_iconv_open(void *ud, const char *name, size_t len) {
    (void)ud;
    char z[64];
    if (len >= sizeof z) return NULL;
    memcpy(z, name, len);
    z[len] = 0;
    cli_iconv *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->cd = iconv_open("UTF-8", z);
    if (c->cd == (iconv_t)-1) {
        free(c);
        return NULL;
    }
    return c;
}

static void cli_iconv_close(void *state) {
    cli_iconv *c = (cli_iconv *)state;
    iconv_close(c->cd);
    free(c);
}

/* iconv over in[0, n) into the room left in io: the bytes taken, or
 * (size_t)-1 with errno (EILSEQ, EINVAL: an incomplete character at the
 * end; E2BIG: the room is full). */
static size_t cli_iconv_run(cli_iconv *c, char *in, size_t n, stax_decode_io *io, size_t *taken) {
    char *src = in, *dst = io->out + io->out_len;
    size_t left = n, room = io->out_cap - io->out_len;
    size_t rc = iconv(c->cd, &src, &left, &dst, &room);
    *taken = n - left;
    io->out_len = io->out_cap - room;
    return rc;
}

/* The reader's decode: the held bytes first (completed a byte at a time
 * from in, so that what is taken from in is exact), then in itself. */
static int cli_iconv_decode(void *state, stax_decode_io *io) {
    cli_iconv *c = (cli_iconv *)state;
    size_t taken;
    if (!io->in) { /* the end: a held character stays incomplete */
        io->held = c->nheld;
        if (c->nheld) return STAX_E_TRUNCATED;
        char *dst = io->out;
        size_t room = io->out_cap;
        if (iconv(c->cd, NULL, NULL, &dst, &room) == (size_t)-1) {
            io->message = strerror(errno);
            return STAX_E_IO;
        }
        io->out_len = io->out_cap - room; /* a stateful encoding's last shift: nothing, into UTF-8 */
        return STAX_OK;
    }
    while (c->nheld && io->in_used < io->in_len) {
        c->held[c->nheld++] = io->in[io->in_used++];
        size_t n = c->nheld, rc = cli_iconv_run(c, c->held, n, io, &taken);
        int e = errno;
        memmove(c->held, c->held + taken, n - taken);
        c->nheld = n - taken;
        if (rc != (size_t)-1) continue;
        if (e == E2BIG) { /* no room for it: the byte goes back to in, for the next call */
            if (c->nheld) c->nheld--, io->in_used--;
            io->held = c->nheld;
            return STAX_OK;
        }
        if (e == EILSEQ || (e == EINVAL && c->nheld == DEC_HELD)) {
            io->held = c->nheld; /* the bad sequence starts in the held bytes */
            return STAX_E_ENCODING;
        }
        if (e != EINVAL) {
            io->message = strerror(e);
            return STAX_E_IO;
        }
    }
    if (io->in_used < io->in_len) {
        char *in = (char *)(uintptr_t)(io->in + io->in_used);
        size_t n = io->in_len - io->in_used;
        size_t rc = cli_iconv_run(c, in, n, io, &taken);
        io->in_used += taken;
        if (rc == (size_t)-1 && errno == EILSEQ) return STAX_E_ENCODING;
        if (rc == (size_t)-1 && errno == EINVAL) { /* keep the incomplete end */
            size_t rest = n - taken;
            if (rest > DEC_HELD) return STAX_E_ENCODING;
            memcpy(c->held, in + taken, rest);
            c->nheld = rest;
            io->in_used += rest;
        } else if (rc == (size_t)-1 && errno != E2BIG) {
            io->message = strerror(errno);
            return STAX_E_IO;
        }
    }
    io->held = c->nheld;
    return STAX_OK;
}

static const stax_decoder cli_iconv_decoder = {cli_iconv_open, cli_iconv_decode, cli_iconv_close};

const stax_decoder *stax_cli_decoder(void) { return &cli_iconv_decoder; }
#else
const stax_decoder *stax_cli_decoder(void) { return NULL; }
#endif
