/* Writer benchmark, XMPP stanzas: a chat message with a body, a chat state
 * and a delay stamp, written as a server sends them, one stanza at a time,
 * each flushed to the sink (a null sink, or a file to compare). The stanzas
 * are written in fragment mode, inside a stream whose jabber:client default
 * namespace they inherit; the chat state and the delay declare their own.
 *
 *   writer_stanza stax|libxml2 [COUNT [OUT]]
 *
 * stax: the namespace-aware calls (stax_writer_start_ns, with
 * stax_writer_inherit_ns for the stream's scope), STAX_WRITE_FRAGMENT;
 * libxml2: xmlTextWriterStartElement for jabber:client's elements,
 * xmlTextWriterStartElementNS for the chat state and an xmlns attribute for
 * the delay (so that the bytes are the same), xmlTextWriterFlush after each.
 * COUNT: stanzas (default 4,000,000); OUT: a file (default: a null sink). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "stax.h"

#include <fcntl.h>
#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLIENT "jabber:client"
#define STREAMS "http://etherx.jabber.org/streams"
#define CHATSTATES "http://jabber.org/protocol/chatstates"
#define DELAY "urn:xmpp:delay"

static const char *const froms[] = {"romeo@montague.lit/orchard", "juliet@capulet.lit/balcony",
                                    "mercutio@montague.lit/street", "nurse@capulet.lit/chamber"};
static const char *const bodies[] = {
    "Wherefore art thou Romeo?",
    "Deny thy father and refuse thy name.",
    "What's in a name? That which we call a rose by any other word would smell as sweet.",
    "Parting is such sweet sorrow, that I shall say good night till it be morrow & more.",
};
static const char *const stamps[] = {"2002-09-10T23:08:25Z", "2002-09-10T23:41:07Z", "2002-09-11T00:02:13Z"};

/* The stanza's id, "m" and the decimal number, without printf. */
static const char *stanza_id(char *buf, unsigned long i) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    buf[0] = 'm';
    for (int k = 0; k < n; k++) buf[1 + k] = tmp[n - 1 - k];
    buf[1 + n] = '\0';
    return buf;
}

typedef struct sink {
    int fd;                  /* -1: count only */
    unsigned long long bytes;
} sink;

static ptrdiff_t sink_write(void *ctx, const void *data, size_t len) {
    sink *s = (sink *)ctx;
    s->bytes += len;
    for (size_t done = 0; s->fd >= 0 && done < len;) {
        ssize_t k = write(s->fd, (const char *)data + done, len - done);
        if (k <= 0) return STAX_E_IO;
        done += (size_t)k;
    }
    return (ptrdiff_t)len;
}

static void run_stax(sink *s, unsigned long count) {
    stax_writer_options o = {0};
    o.flags = STAX_WRITE_FRAGMENT | STAX_WRITE_SELF_CLOSE;
    o.buffer_size = 4096;
    stax_writer *w = stax_writer_new(&o);
    stax_writer_set_sink(w, sink_write, s);
    stax_writer_inherit_ns_z(w, "", CLIENT);
    stax_writer_inherit_ns_z(w, "stream", STREAMS);
    for (unsigned long i = 0; i < count; i++) {
        char id[24];
        stax_writer_start_ns_z(w, CLIENT, "message", NULL);
        stax_writer_attr_z(w, "from", froms[i % 4]);
        stax_writer_attr_z(w, "to", froms[(i + 1) % 4]);
        stax_writer_attr_z(w, "id", stanza_id(id, i));
        stax_writer_attr_z(w, "type", "chat");
        stax_writer_start_ns_z(w, CLIENT, "body", NULL);
        stax_writer_text_z(w, bodies[i % 4]);
        stax_writer_end(w);
        stax_writer_start_ns_z(w, CHATSTATES, "active", NULL);
        stax_writer_end(w);
        stax_writer_start_ns_z(w, DELAY, "delay", NULL);
        stax_writer_attr_z(w, "from", "capulet.lit");
        stax_writer_attr_z(w, "stamp", stamps[i % 3]);
        stax_writer_end(w);
        stax_writer_end(w);
        if (stax_writer_flush(w) != STAX_OK) {
            fprintf(stderr, "writer_stanza: %s\n", stax_writer_message(w));
            exit(1);
        }
    }
    if (stax_writer_finish(w) != STAX_OK) exit(1);
    stax_writer_free(w);
}

static int lx_write(void *ctx, const char *buf, int len) {
    return sink_write(ctx, buf, (size_t)len) < 0 ? -1 : len;
}

static int lx_close(void *ctx) {
    (void)ctx;
    return 0;
}

static void run_libxml2(sink *s, unsigned long count) {
    xmlOutputBufferPtr ob = xmlOutputBufferCreateIO(lx_write, lx_close, s, NULL);
    xmlTextWriterPtr w = xmlNewTextWriter(ob);
    for (unsigned long i = 0; i < count; i++) {
        char id[24];
        int k = 0;
        k |= xmlTextWriterStartElement(w, BAD_CAST "message");
        k |= xmlTextWriterWriteAttribute(w, BAD_CAST "from", BAD_CAST froms[i % 4]);
        k |= xmlTextWriterWriteAttribute(w, BAD_CAST "to", BAD_CAST froms[(i + 1) % 4]);
        k |= xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST stanza_id(id, i));
        k |= xmlTextWriterWriteAttribute(w, BAD_CAST "type", BAD_CAST "chat");
        k |= xmlTextWriterWriteElement(w, BAD_CAST "body", BAD_CAST bodies[i % 4]);
        k |= xmlTextWriterStartElementNS(w, NULL, BAD_CAST "active", BAD_CAST CHATSTATES);
        k |= xmlTextWriterEndElement(w);
        /* (StartElementNS would declare the namespace after the attributes) */
        k |= xmlTextWriterStartElement(w, BAD_CAST "delay");
        k |= xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns", BAD_CAST DELAY);
        k |= xmlTextWriterWriteAttribute(w, BAD_CAST "from", BAD_CAST "capulet.lit");
        k |= xmlTextWriterWriteAttribute(w, BAD_CAST "stamp", BAD_CAST stamps[i % 3]);
        k |= xmlTextWriterEndElement(w);
        k |= xmlTextWriterEndElement(w);
        k |= xmlTextWriterFlush(w);
        if (k < 0) {
            fprintf(stderr, "writer_stanza: libxml2 failed\n");
            exit(1);
        }
    }
    xmlFreeTextWriter(w);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: writer_stanza stax|libxml2 [COUNT [OUT]]\n");
        return 2;
    }
    unsigned long count = argc > 2 ? strtoul(argv[2], NULL, 10) : 4000000ul;
    sink s = {-1, 0};
    if (argc > 3 && (s.fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
        perror(argv[3]);
        return 2;
    }
    if (!strcmp(argv[1], "stax"))
        run_stax(&s, count);
    else if (!strcmp(argv[1], "libxml2"))
        run_libxml2(&s, count);
    else
        return 2;
    if (s.fd >= 0) close(s.fd);
    return 0;
}
