/* stax: command-line tool over the reader and writer. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
    fputs("usage: stax [options] COMMAND [options] [FILE]\n"
          "commands:\n"
          "  canon   write James Clark's canonical form (the W3C suite's out/ form)\n"
          "  check   exit 0 if FILE is well-formed, 1 if not; nothing on stdout\n"
          "  count   print element, attribute and other counts as key=value pairs\n"
          "  fmt     re-serialize through the writer (--indent N, default 2; 0: none)\n"
          "  merge   stax merge FILE PART...: the result of check or count from --part K/N's records\n"
          "  select  print what PATH selects: stax select [options] PATH [FILE] (docs/select.md)\n"
          "options (before or after COMMAND):\n"
          "  --chunk N       feed the reader N bytes at a time (output never depends on N)\n"
          "  --memory N      run the reader in one fixed block of N bytes (suffix K or M allowed)\n"
          "  --namespaces    namespace processing\n"
          "  --fragment      read the content of an external parsed entity: elements, text, comments,\n"
          "                  PIs and CDATA in any sequence at the top level, no DOCTYPE\n"
          "  --documents     read whole documents one after another (each with its own prolog)\n"
          "  --external      read external entities and the external DTD subset from local files,\n"
          "                  relative to the entity that declares them (file: URIs too; never the network)\n"
          "  --save-every N  check, count: save the reading's context after each N bytes read\n"
          "                  (at the next point it can be saved), atomically, to the --context file\n"
          "  --context FILE  where --save-every writes (default: the --resume file)\n"
          "  --resume FILE   check, count: go on from the context in FILE (seeks FILE's input)\n"
          "  -j N            check, count, select, canon: read FILE or stdin on N threads\n"
          "                  (0: one per core; default 1); the output is that of one thread\n"
          "  --part-size N   with -j: bytes in a part, about (default 4M)\n"
          "  --part K/N      check, count: read range K of N of a regular file and write its part\n"
          "                  record to stdout; stax merge FILE PART... prints the result of the N\n"
          "                  (docs/parallel.md: ranges run as separate processes, e.g. GNU parallel)\n"
          "  --progress      show a progress line on stderr (default: when stderr is a terminal\n"
          "                  and stdout is not the same terminal being written to)\n"
          "  --quiet         no progress line\n"
          "  -h, --help      this text\n"
          "  --version       print the version\n"
          "select options:\n"
          "  --xml           each match as XML (elements with their subtree)\n"
          "  --count         the number of matches of each path of the union, one a line\n"
          "  --csv COLUMNS   one CSV row per match of PATH; COLUMNS: paths relative to it, by commas\n"
          "  --header[=NAMES] with --csv: a first row of column names: the column paths, or NAMES by commas\n"
          "  --join SEP      with --csv: a column's every match in the row, joined by SEP (not the first)\n"
          "  --json[=COLUMNS] JSON Lines: each match as a JSON string (with --xml: its XML); with\n"
          "                  COLUMNS, one object per match of PATH: keys the column paths (or\n"
          "                  --header=NAMES), values strings: a column's first match, \"\" for none\n"
          "  --arrays        with --json=COLUMNS: each value an array of the column's every match\n"
          "  -0              end each value (or row) with NUL instead of a newline\n"
          "  -N PREFIX=URI   bind a prefix for PATH (implies --namespaces)\n"
          "  --first N       stop after N matches\n"
          "  --max-held N    bytes of output held for nested matches and rows (default 4M)\n"
          "FILE '-' or absent reads stdin; a gzip, bzip2, xz or zstd input is refused (pipe it\n"
          "through zcat, bzcat, xzcat or zstdcat). Errors go to stderr as FILE:LINE:COL: message.\n"
          "Exit: 0 ok; 1 not well-formed; 2 usage, I/O, an encoding stax does not read, output\n"
          "that cannot be written. select, as grep: 0 selected, 1 nothing, 2 any error (not\n"
          "well-formed too).\n",
          f);
}

/* What main wrote itself (--help, --version), and what a command left in
 * stdout's buffer: flushed, a failure reported as every command's is. A
 * command that returned 2 has said what went wrong. */
static int stdout_end(const stax_cli_opts *o, int rc) {
    stax_cli_out w;
    stax_cli_out_init(&w, stdout);
    return rc == 2 ? rc : stax_cli_out_end(o, &w, rc);
}

static int parse_size(const char *s, size_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-') return -1;
    unsigned long long mul = 1;
    if (*end == 'K' || *end == 'k') mul = 1024, end++;
    else if (*end == 'M' || *end == 'm') mul = 1024 * 1024, end++;
    if (*end || v == 0 || v > (unsigned long long)SIZE_MAX / mul) return -1;
    *out = (size_t)(v * mul);
    return 0;
}

/* After a usage error, the message is followed by this instead of the whole text. */
static int short_usage(void) {
    fputs("usage: stax [options] COMMAND [options] [FILE]    COMMAND: canon, check, count, fmt, merge, select\n"
          "       stax [options] select [options] PATH [FILE]\n"
          "stax --help for more\n",
          stderr);
    return 2;
}

/* An option of every command, before or after COMMAND, at argv[*i]: 1 if it
 * is one (*i then at its last word), 0 if not, 2 for a bad or missing value
 * (reported: exit 2). */
static int common_option(int argc, char **argv, int *i, stax_cli_opts *o, int *progress) {
    const char *a = argv[*i];
    if (!strcmp(a, "--progress") || !strcmp(a, "--quiet")) {
        *progress = a[2] == 'p';
    } else if (!strcmp(a, "--namespaces")) {
        o->namespaces = 1;
    } else if (!strcmp(a, "--fragment") || !strcmp(a, "--documents")) {
        unsigned shape = a[2] == 'f' ? STAX_READ_FRAGMENT : STAX_READ_DOCUMENTS;
        if (o->shape && o->shape != shape) {
            fprintf(stderr, "stax: --fragment and --documents exclude each other\n");
            return 2;
        }
        o->shape = shape;
    } else if (!strcmp(a, "--external")) {
        o->external = 1;
    } else if ((!strcmp(a, "--resume") || !strcmp(a, "--context")) && *i + 1 < argc) {
        if (a[2] == 'r') o->resume = argv[++*i];
        else o->context = argv[++*i];
    } else if (!strcmp(a, "-j")) {
        char *end;
        const char *val = *i + 1 < argc ? argv[++*i] : "";
        errno = 0;
        unsigned long n = strtoul(val, &end, 10);
        if (!*val || *end || val[0] == '-' || errno || n > 1024) {
            fprintf(stderr, "stax: -j takes a number of threads, 0..1024 (0: one per core), not '%s'\n", val);
            return 2;
        }
        o->jobs = n ? (int)n : -1;
    } else if (!strcmp(a, "--part")) {
        char *slash = NULL, *end = NULL;
        const char *val = *i + 1 < argc ? argv[++*i] : "";
        errno = 0;
        unsigned long k = val[0] >= '0' && val[0] <= '9' ? strtoul(val, &slash, 10) : 0, n = 0;
        if (slash && *slash == '/' && slash[1] >= '0' && slash[1] <= '9') n = strtoul(slash + 1, &end, 10);
        if (!end || *end || errno || n == 0 || n > 65536 || k >= n) {
            fprintf(stderr, "stax: --part takes K/N, range K of N (0 <= K < N <= 65536), not '%s'\n", val);
            return 2;
        }
        o->part_k = (unsigned)k;
        o->part_n = (unsigned)n;
    } else if (!strcmp(a, "--chunk") || !strcmp(a, "--memory") || !strcmp(a, "--save-every") ||
               !strcmp(a, "--part-size")) {
        size_t v;
        if (*i + 1 >= argc) {
            fprintf(stderr, "stax: %s needs a value\n", a);
            return short_usage();
        }
        const char *val = argv[++*i];
        if (parse_size(val, &v)) {
            fprintf(stderr, "stax: %s takes a positive size, not '%s'\n", a, val);
            return 2;
        }
        if (a[2] == 'c') o->chunk = v;
        else if (a[2] == 's') o->save_every = v;
        else if (a[2] == 'p') o->part_size = v;
        else o->memory = v;
    } else {
        return 0;
    }
    return 1;
}

/* stax merge FILE PART...: the options of every command that make sense
 * here are --quiet and --progress (the rest come from the part records). */
static int merge_main(int argc, char **argv, int c, stax_cli_opts *o, int progress) {
    int first = 0, k;
    for (int i = c + 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return stdout_end(o, 0);
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            if ((k = common_option(argc, argv, &i, o, &progress)) == 2) return 2;
            if (k == 0 || strcmp(argv[i], "--quiet")) {
                fprintf(stderr, "stax: merge takes FILE and the part records, and no option but --quiet: '%s'\n",
                        argv[i]);
                return 2;
            }
            continue;
        }
        argv[c + 1 + first++] = argv[i]; /* the operands, in order, after the command */
    }
    if (o->namespaces || o->shape || o->external || o->jobs || o->part_n || o->resume || o->context || o->chunk || o->memory ||
        o->save_every || o->part_size) {
        fprintf(stderr, "stax: merge takes its options from the part records: give them to --part\n");
        return 2;
    }
    if (first < 2) {
        fprintf(stderr, "stax: merge needs FILE and the part records: stax merge FILE PART...\n");
        return short_usage();
    }
    const char *file = argv[c + 1];
    int fd = open(file, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "stax: %s: %s\n", file, strerror(errno));
        return 2;
    }
    o->name = file;
    int rc = stdout_end(o, stax_cmd_merge(o, fd, argv + c + 2, (size_t)first - 1, stdout));
    close(fd);
    return rc;
}

int main(int argc, char **argv) {
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.indent = 2;
    int progress = -1; /* -1: decide below */
    int c = 1, k;
    for (; c < argc && argv[c][0] == '-' && argv[c][1] != '\0'; c++) {
        const char *a = argv[c];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return stdout_end(&o, 0);
        }
        if (!strcmp(a, "--version")) {
            puts("stax " STAX_VERSION);
            return stdout_end(&o, 0);
        }
        if ((k = common_option(argc, argv, &c, &o, &progress)) != 1) {
            if (k == 0) fprintf(stderr, "stax: unknown option '%s' (before COMMAND, only the options of every command)\n", a);
            return k ? k : short_usage();
        }
    }
    if (c >= argc) {
        if (c > 1) fprintf(stderr, "stax: no command\n");
        return short_usage();
    }
    const char *cmd = argv[c];
    int select = !strcmp(cmd, "select");
    if (!strcmp(cmd, "merge")) return merge_main(argc, argv, c, &o, progress);
    if (strcmp(cmd, "check") && strcmp(cmd, "count") && strcmp(cmd, "canon") && strcmp(cmd, "fmt") && !select) {
        fprintf(stderr, "stax: unknown command '%s'\n", cmd);
        return short_usage();
    }
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    const char *file = NULL;
    int file_arg = 0;
    for (int i = c + 1; i < argc; i++) {
        const char *a = argv[i];
        size_t v;
        if ((k = common_option(argc, argv, &i, &o, &progress)) != 0) {
            if (k == 2) return 2;
        } else if (select && (!strcmp(a, "--xml") || !strcmp(a, "--count") || !strcmp(a, "-0"))) {
            if (a[1] == '0') so.nul = 1;
            else if (a[2] == 'x') so.xml = 1;
            else so.count = 1;
        } else if (select && (!strcmp(a, "--json") || !strncmp(a, "--json=", 7))) {
            so.json = 1;
            if (a[6] == '=') so.json_columns = a + 7;
        } else if (select && !strcmp(a, "--arrays")) {
            so.arrays = 1;
        } else if (select && (!strcmp(a, "--header") || !strncmp(a, "--header=", 9))) {
            so.header = 1;
            if (a[8] == '=') so.header_names = a + 9;
        } else if (select && (!strcmp(a, "--csv") || !strcmp(a, "-N") || !strcmp(a, "--first") ||
                              !strcmp(a, "--max-held") || !strcmp(a, "--join")) && i + 1 < argc) {
            const char *val = argv[++i];
            if (!strcmp(a, "--csv")) {
                so.csv = val;
            } else if (!strcmp(a, "--join")) {
                so.join = val;
            } else if (!strcmp(a, "-N")) {
                if (!so.ns && !(so.ns = calloc((size_t)argc, sizeof *so.ns))) return 2;
                so.ns[so.ns_count++] = val;
                o.namespaces = 1;
            } else if (parse_size(val, &v)) {
                fprintf(stderr, "stax: %s takes a positive %s, not '%s'\n", a, a[2] == 'f' ? "number" : "size", val);
                return 2;
            } else if (a[2] == 'f') {
                so.first = v;
            } else {
                so.max_held = v;
            }
        } else if (!strcmp(a, "--indent") && i + 1 < argc) {
            const char *val = argv[++i];
            char *end;
            long n = strtol(val, &end, 10);
            if (*end || n < 0 || n > 64) {
                fprintf(stderr, "stax: --indent takes 0..64, not '%s'\n", val);
                return 2;
            }
            o.indent = (int)n;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return stdout_end(&o, 0);
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "stax: unknown option '%s'\n", a);
            return short_usage();
        } else if (select && !so.path) {
            so.path = a;
        } else if (!file) {
            file = a;
            file_arg = i;
        } else {
            fprintf(stderr, "stax: only one FILE, got '%s' and '%s'\n", file, a);
            return 2;
        }
    }
    if (!o.context) o.context = o.resume;
    if (o.part_n && strcmp(cmd, "check") && strcmp(cmd, "count")) {
        fprintf(stderr, "stax: --part works with check and count only\n");
        return 2;
    }
    if ((o.resume || o.save_every) && strcmp(cmd, "check") && strcmp(cmd, "count")) {
        fprintf(stderr, "stax: --resume and --save-every work with check and count only%s\n",
                select ? " (select does not save its matching state of the open elements)" : "");
        return 2;
    }
    if (select && !so.path) {
        fprintf(stderr, "stax: select needs a PATH\n");
        return short_usage();
    }
    /* By default the progress line shows when stderr is a terminal, unless
     * the command streams its output to that same terminal meanwhile. */
    int streams = !strcmp(cmd, "canon") || !strcmp(cmd, "fmt") || (select && !so.count);
    o.progress = progress >= 0 ? progress : isatty(2) && !(streams && isatty(1));
    int fd = 0;
    o.name = "-";
    if (file && strcmp(file, "-") != 0) {
        fd = open(file, O_RDONLY);
        if (fd < 0) {
            fprintf(stderr, "stax: %s: %s\n", file, strerror(errno));
            return 2;
        }
        o.name = file;
    }
    /* The command line without FILE, for the hint on a compressed input. */
    size_t line_cap = sizeof "stax";
    for (int i = 1; i < argc; i++) line_cap += 4 * strlen(argv[i]) + 3;
    char *line = malloc(line_cap);
    if (line) {
        size_t n = 4;
        memcpy(line, "stax", n);
        for (int i = 1; i < argc; i++) {
            if (i == file_arg) continue;
            line[n++] = ' ';
            n += stax_cli_quote(line + n, argv[i]);
        }
        line[n] = '\0';
        o.command = line;
    }
    int rc;
    if (!strcmp(cmd, "check")) rc = stax_cmd_check(&o, fd);
    else if (!strcmp(cmd, "count")) rc = stax_cmd_count(&o, fd, stdout);
    else if (!strcmp(cmd, "canon")) rc = stax_cmd_canon(&o, fd, stdout);
    else if (!strcmp(cmd, "fmt")) rc = stax_cmd_fmt(&o, fd, stdout);
    else if (select) rc = stax_cmd_select(&o, &so, fd, stdout);
    else {
        fprintf(stderr, "stax: unknown command '%s'\n", cmd);
        usage(stderr);
        rc = 2;
    }
    rc = stdout_end(&o, rc);
    if (fd > 0) close(fd);
    free(so.ns);
    free(line);
    return rc;
}
