/* What a program that asks for every event's line and column pays, beside
 * one that asks for none: reads FILE and prints the number of events and the
 * sum of their lines and columns (with -n, the events alone). The reader
 * gives every event its line and column as it reads (the fast path from the
 * counts its scans make anyway), so the difference is the program's own
 * reads; bench/log.md ("Lines and columns when asked for") has the figures
 * of a reader that computed them only when asked:
 *   make build/pos_count
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null build/pos_count FILE
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null build/pos_count -n FILE */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stax.h"

int main(int argc, char **argv) {
    int none = argc == 3 && strcmp(argv[1], "-n") == 0;
    if (argc != 2 + none) {
        fprintf(stderr, "usage: pos_count [-n] FILE\n");
        return 2;
    }
    int fd = open(argv[1 + none], O_RDONLY);
    if (fd < 0) {
        perror(argv[1 + none]);
        return 2;
    }
    stax_reader *r = stax_reader_new(NULL);
    if (!r || stax_reader_set_fd(r, fd) != STAX_OK) {
        fprintf(stderr, "pos_count: no reader\n");
        return 2;
    }
    const stax_batch *b;
    unsigned long long events = 0, sum = 0;
    int st;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {
        events += b->count;
        if (!none)
            for (size_t i = 0; i < b->count; i++) sum += stax_ev_line(b, i) + stax_ev_column(b, i);
    }
    if (st != STAX_END) {
        fprintf(stderr, "pos_count: %s\n", stax_reader_message(r));
        return 1;
    }
    printf("events=%llu positions=%llu\n", events, sum);
    stax_reader_free(r);
    close(fd);
    return 0;
}
