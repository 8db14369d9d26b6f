/* docs/writer.md, "Non-blocking output": a non-blocking pipe, poll(), and the
 * retry rule. A child process copies the pipe to stdout, slowly. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "stax.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Repeat a writer call until it is not STAX_WOULD_BLOCK, waiting for the fd. */
#define RETRY(fd, call)                                       \
    do {                                                      \
        int st_;                                              \
        while ((st_ = (call)) == STAX_WOULD_BLOCK) {          \
            struct pollfd p_ = {(fd), POLLOUT, 0};            \
            poll(&p_, 1, -1);                                 \
        }                                                     \
        if (st_ != STAX_OK) return st_;                       \
    } while (0)

static int write_doc(stax_writer *w, int fd) {
    static char line[] = "All work and no play makes Jack a dull boy. ";
    RETRY(fd, stax_writer_start_z(w, "lines"));
    for (int i = 0; i < 5000; i++) {
        RETRY(fd, stax_writer_start_z(w, "line"));
        RETRY(fd, stax_writer_text_z(w, line));
        RETRY(fd, stax_writer_end(w));
    }
    RETRY(fd, stax_writer_finish(w));
    return STAX_OK;
}

int main(void) {
    int p[2];
    if (pipe(p) != 0) return 1;
    pid_t child = fork();
    if (child == 0) { /* the slow consumer */
        char buf[4096];
        ssize_t n;
        close(p[1]);
        while ((n = read(p[0], buf, sizeof buf)) > 0) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
            if (write(1, buf, (size_t)n) != n) _exit(1);
        }
        _exit(0);
    }
    close(p[0]);
    fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);

    stax_writer_options opt = {0};
    opt.buffer_size = 4096;
    stax_writer *w = stax_writer_new(&opt);
    if (!w) return 1;
    stax_writer_set_fd(w, p[1]);
    int st = write_doc(w, p[1]);
    stax_writer_free(w);
    close(p[1]);
    int status;
    waitpid(child, &status, 0);
    if (st != STAX_OK) fprintf(stderr, "write failed: %s\n", stax_strerror(st));
    return st == STAX_OK ? 0 : 1;
}
