/* docs/writer.md, "An XMPP stream": our side of a stream over a socket. The
 * stream's start tag is written once and stays open; each stanza is written
 * in fragment mode, inheriting the stream's namespaces, and flushed at once;
 * the peer's stanzas are read as each one completes. Here the peer is played
 * by this program: it writes its stream in pieces to the other end. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "stax.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define STREAMS "http://etherx.jabber.org/streams"
#define CLIENT "jabber:client"

static const char *const peer[] = {
    "<stream:stream xmlns='jabber:client' xmlns:stream='" STREAMS "' id='42'><mess",
    "age from='juliet@example.com'><body>Art thou not Romeo,</body></message><message from='juli",
    "et@example.com'><body>&amp; a Montague?</body></message>",
};

/* One stanza, flushed: it leaves now, whole. */
static int send_message(stax_writer *w, const char *to, const char *text) {
    stax_writer_start_ns_z(w, CLIENT, "message", NULL); /* jabber:client is in scope: no xmlns */
    stax_writer_attr_z(w, "to", to);
    stax_writer_start_ns_z(w, CLIENT, "body", NULL);
    stax_writer_text_z(w, text);
    stax_writer_end(w);
    stax_writer_start_ns_z(w, "http://jabber.org/protocol/chatstates", "active", NULL); /* declared here */
    stax_writer_end(w);
    stax_writer_end(w);
    return stax_writer_flush(w);
}

int main(void) {
    int sv[2]; /* sv[0]: our end; sv[1]: the peer's */
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;

    stax_writer_options wo = {0};
    wo.flags = STAX_WRITE_FRAGMENT | STAX_WRITE_SELF_CLOSE;
    stax_writer *w = stax_writer_new(&wo);
    stax_writer_set_fd(w, sv[0]);
    stax_writer_raw_z(w, "<stream:stream xmlns='" CLIENT "' xmlns:stream='" STREAMS "'>");
    stax_writer_inherit_ns_z(w, "", CLIENT); /* what that tag declares, for the stanzas */
    stax_writer_inherit_ns_z(w, "stream", STREAMS);
    stax_writer_flush(w);

    stax_reader_options ro = {0};
    ro.flags = STAX_READ_NAMESPACES;
    stax_reader *r = stax_reader_new(&ro);
    char buf[4096], from[256] = "", body[256] = "";
    int depth = 0, in_body = 0;
    for (size_t k = 0; k < sizeof peer / sizeof peer[0]; k++) {
        if (write(sv[1], peer[k], strlen(peer[k])) < 0) return 1; /* the peer sends */
        ssize_t n = read(sv[0], buf, sizeof buf);
        if (n <= 0) return 1;
        stax_reader_feed(r, buf, (size_t)n);
        const stax_batch *b;
        int st;
        while ((st = stax_reader_next(r, &b)) == STAX_OK) {
            for (size_t i = 0; i < b->count; i++) {
                int type = stax_ev_type(b, i);
                stax_str v;
                if (type == STAX_EV_START && ++depth == 2 && stax_ev_attr_get(b, i, "from", &v))
                    snprintf(from, sizeof from, "%.*s", (int)v.len, v.ptr); /* the batch is gone next call */
                if (type == STAX_EV_START && depth == 3)
                    in_body = stax_str_eq(stax_ev_uri(b, i), CLIENT) && stax_str_eq(stax_ev_local(b, i), "body");
                if (type == STAX_EV_TEXT && in_body)
                    snprintf(body + strlen(body), sizeof body - strlen(body), "%.*s", (int)stax_ev_text(b, i).len,
                             stax_ev_text(b, i).ptr);
                if (type == STAX_EV_END && --depth == 1) { /* a stanza is complete */
                    printf("%s: %s\n", from, body);
                    send_message(w, from, "Neither, fair saint, if either thee dislike.");
                    body[0] = '\0';
                }
                if (type == STAX_EV_END) in_body = 0;
            }
        }
        if (st != STAX_NEED_INPUT) return 1;
    }

    stax_writer_raw_z(w, "</stream:stream>");
    if (stax_writer_finish(w) != STAX_OK) return 1;
    shutdown(sv[0], SHUT_WR);
    ssize_t n, got = 0;
    while ((n = read(sv[1], buf + got, sizeof buf - 1 - (size_t)got)) > 0) got += n;
    printf("sent: %.*s\n", (int)got, buf);
    stax_reader_free(r);
    stax_writer_free(w);
    close(sv[0]);
    close(sv[1]);
    return 0;
}
