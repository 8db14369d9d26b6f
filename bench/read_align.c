/* How fast the kernel copies a file into a buffer at a given offset from a
 * page: reads FILE BLOCK bytes at a time into a page-aligned buffer at OFFSET,
 * touching one byte a cache line, and prints their sum. The stax tool's read
 * buffer is page-aligned because an offset of 16 (where glibc's malloc puts a
 * block of 256 KiB) made the copy about 3.5 times slower on an AMD EPYC
 * (bench/log.md, "The tool's read buffer page-aligned"):
 *   make build/read_align
 *   hyperfine -N --warmup 3 'build/read_align FILE 262144 0' 'build/read_align FILE 262144 16' */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: read_align FILE BLOCK OFFSET\n");
        return 2;
    }
    size_t block = strtoul(argv[2], NULL, 10), offset = strtoul(argv[3], NULL, 10);
    if (!block || offset >= 4096) {
        fprintf(stderr, "read_align: BLOCK must be positive, OFFSET under 4096\n");
        return 2;
    }
    void *page = NULL;
    if (posix_memalign(&page, 4096, block + 4096)) {
        fprintf(stderr, "read_align: out of memory\n");
        return 2;
    }
    char *map = page;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 2;
    }
    char *buf = map + offset;
    unsigned long long sum = 0;
    ssize_t n;
    while ((n = read(fd, buf, block)) > 0)
        for (ssize_t i = 0; i < n; i += 64) sum += (unsigned char)buf[i];
    if (n < 0) {
        perror("read_align: read");
        return 2;
    }
    printf("%llu\n", sum);
    close(fd);
    free(page);
    return 0;
}
