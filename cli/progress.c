/* The progress line of the commands that read a file: on stderr, redrawn in
 * place a few times a second, erased when the input ends. */
#include "cli.h"

#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_INTERVAL 0.2 /* seconds between redraws */
#define PROGRESS_FIRST 0.5    /* nothing is drawn before this: short runs stay silent */

static double progress_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* "12.3 MiB" */
static void progress_size(char *buf, size_t cap, uint64_t n) {
    double v = (double)n;
    if (v < 1024.0 * 1024.0) snprintf(buf, cap, "%.1f KiB", v / 1024.0);
    else if (v < 1024.0 * 1024.0 * 1024.0) snprintf(buf, cap, "%.1f MiB", v / (1024.0 * 1024.0));
    else snprintf(buf, cap, "%.2f GiB", v / (1024.0 * 1024.0 * 1024.0));
}

size_t stax_cli_progress_line(char *buf, size_t cap, const char *name, uint64_t done, uint64_t total, double seconds) {
    char d[32], t[32];
    double rate = seconds > 0 ? (double)done / seconds : 0; /* bytes per second */
    progress_size(d, sizeof d, done);
    int n;
    if (total > 0) {
        progress_size(t, sizeof t, total);
        double pct = done >= total ? 100.0 : 100.0 * (double)done / (double)total;
        if (rate > 0 && done < total) {
            unsigned long left = (unsigned long)((double)(total - done) / rate + 0.5);
            n = snprintf(buf, cap, "%s: %s of %s (%.0f%%), %.1f MiB/s, %lu:%02lu left", name, d, t, pct,
                         rate / (1024.0 * 1024.0), left / 60, left % 60);
        } else {
            n = snprintf(buf, cap, "%s: %s of %s (%.0f%%), %.1f MiB/s", name, d, t, pct, rate / (1024.0 * 1024.0));
        }
    } else {
        n = snprintf(buf, cap, "%s: %s, %.1f MiB/s", name, d, rate / (1024.0 * 1024.0));
    }
    if (n < 0) n = 0;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

void stax_cli_progress_begin(stax_cli_progress *p, int mode, int fd, const char *name) {
    memset(p, 0, sizeof *p);
    p->mode = mode;
    p->name = name ? name : "-";
    if (!mode) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at >= 0 && st.st_size > at) p->total = (uint64_t)(st.st_size - at);
    }
    p->start = p->last = progress_now();
}

static void progress_draw(stax_cli_progress *p, double now) {
    char line[256];
    stax_cli_progress_line(line, sizeof line, p->name, p->done, p->total, now - p->start);
    /* carriage return, the line, then erase what a longer line left */
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->shown = 1;
    p->last = now;
}

void stax_cli_progress_add(stax_cli_progress *p, size_t n) {
    if (!p->mode) return;
    p->done += n;
    if (p->mode == 2) {
        progress_draw(p, progress_now());
        return;
    }
    double now = progress_now();
    if (now - p->start >= PROGRESS_FIRST && now - p->last >= PROGRESS_INTERVAL) progress_draw(p, now);
}

void stax_cli_progress_end(stax_cli_progress *p) {
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = 0;
}
