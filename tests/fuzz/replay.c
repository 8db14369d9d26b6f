/* Replays inputs through the fuzz targets without libFuzzer: for coverage
 * (tools/fuzz-coverage.sh builds it with -fprofile-instr-generate) and for
 * debugging in a plain build.
 *
 *   replay TARGET PATH...    TARGET: reader, dtd, alloc, writer, select, resume, context or parallel; each PATH
 *                            a file or a directory of files (not recursive)
 *
 * Each target's LLVMFuzzerTestOneInput is compiled under another name
 * (-DLLVMFuzzerTestOneInput=fz_target_NAME), so that all of them link into
 * one program. An input that breaks an invariant aborts, as under libFuzzer. */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int fz_target_reader(const uint8_t *data, size_t size);
int fz_target_dtd(const uint8_t *data, size_t size);
int fz_target_alloc(const uint8_t *data, size_t size);
int fz_target_writer(const uint8_t *data, size_t size);
int fz_target_select(const uint8_t *data, size_t size);
int fz_target_resume(const uint8_t *data, size_t size);
int fz_target_context(const uint8_t *data, size_t size);
int fz_target_parallel(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* the custom mutators (fuzz_reader's, fuzz_dtd's) call it; never called here */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
    (void)data;
    (void)max_size;
    return size;
}

static const struct {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
} targets[] = {{"reader", fz_target_reader}, {"dtd", fz_target_dtd}, {"alloc", fz_target_alloc}, {"writer", fz_target_writer},
               {"select", fz_target_select}, {"resume", fz_target_resume}, {"context", fz_target_context},
               {"parallel", fz_target_parallel}};

static int verbose;

static long replay_file(int (*fn)(const uint8_t *, size_t), const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            buf = realloc(buf, cap);
            if (!buf) abort();
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        if (n == 0) break;
        len += n;
    }
    fclose(f);
    if (verbose) fprintf(stderr, "%s\n", path);
    /* an exact-size copy, as libFuzzer gives */
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) abort();
    if (len) memcpy(copy, buf, len);
    free(buf);
    fn(copy, len);
    free(copy);
    return 1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static long replay_path(int (*fn)(const uint8_t *, size_t), const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) return replay_file(fn, path);
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        exit(2);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            names = realloc(names, cap * sizeof *names);
            if (!names) abort();
        }
        size_t l = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(l);
        if (!names[n]) abort();
        snprintf(names[n], l, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    long count = 0;
    for (size_t i = 0; i < n; i++) {
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) count += replay_file(fn, names[i]);
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv) {
    verbose = getenv("REPLAY_VERBOSE") != NULL;
    if (argc < 2) {
        fprintf(stderr, "usage: %s reader|dtd|alloc|writer|select|resume|parallel PATH...\n", argv[0]);
        return 2;
    }
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        if (strcmp(argv[1], targets[t].name) != 0) continue;
        long count = 0;
        for (int i = 2; i < argc; i++) count += replay_path(targets[t].fn, argv[i]);
        printf("%s: %ld inputs replayed\n", argv[1], count);
        return 0;
    }
    fprintf(stderr, "%s: unknown target %s\n", argv[0], argv[1]);
    return 2;
}
