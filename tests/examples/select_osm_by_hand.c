/* The rows of
 *     stax select --csv '@id,@lat,@lon,tag[@k="name"]/@v' /osm/node
 * written by hand over the reader, as a new user would: one row per node
 * child of the root osm element, its id, lat and lon, and the v of its first
 * tag child with k="name" that has one; fields quoted per RFC 4180. The
 * tests check that the tool prints the same bytes. */
#include "stax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ID, LAT, LON, NAME, FIELDS };

static void put_field(FILE *out, const char *v) {
    if (!strpbrk(v, ",\"\r\n")) {
        fputs(v, out);
        return;
    }
    putc('"', out);
    for (; *v; v++) {
        if (*v == '"') putc('"', out);
        putc(*v, out);
    }
    putc('"', out);
}

static char *copy(stax_str s) {
    char *c = malloc(s.len + 1);
    if (c) {
        memcpy(c, s.ptr, s.len);
        c[s.len] = '\0';
    }
    return c;
}

/* The value of the attribute called name; found says whether there is one. */
static stax_str attr(const stax_batch *b, size_t i, const char *name, int *found) {
    stax_str none = {NULL, 0};
    for (size_t k = 0; k < stax_ev_attr_count(b, i); k++)
        if (stax_str_eq(stax_ev_attr_name(b, i, k), name)) {
            *found = 1;
            return stax_ev_attr_value(b, i, k);
        }
    *found = 0;
    return none;
}

int osm_csv_by_hand(FILE *in, FILE *out) {
    stax_reader *r = stax_reader_new(NULL);
    if (!r || stax_reader_set_file(r, in) != STAX_OK) return 2;
    char *field[FIELDS] = {NULL};
    int depth = 0, root_is_osm = 0, in_node = 0, st;
    const stax_batch *b;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {
        for (size_t i = 0; i < b->count; i++) {
            int type = stax_ev_type(b, i);
            if (type == STAX_EV_START) {
                depth++;
                stax_str name = stax_ev_name(b, i);
                if (depth == 1) root_is_osm = stax_str_eq(name, "osm");
                if (depth == 2 && root_is_osm && stax_str_eq(name, "node")) {
                    static const char *const keys[] = {"id", "lat", "lon"};
                    in_node = 1;
                    for (int f = ID; f <= LON; f++) {
                        int found;
                        stax_str v = attr(b, i, keys[f], &found);
                        field[f] = found ? copy(v) : NULL;
                    }
                }
                if (depth == 3 && in_node && !field[NAME] && stax_str_eq(name, "tag")) {
                    int has_k, has_v;
                    stax_str k = attr(b, i, "k", &has_k), v = attr(b, i, "v", &has_v);
                    if (has_k && has_v && stax_str_eq(k, "name")) field[NAME] = copy(v);
                }
            } else if (type == STAX_EV_END) {
                if (depth == 2 && in_node) {
                    for (int f = 0; f < FIELDS; f++) {
                        if (f) putc(',', out);
                        put_field(out, field[f] ? field[f] : "");
                        free(field[f]);
                        field[f] = NULL;
                    }
                    putc('\n', out);
                    in_node = 0;
                }
                depth--;
            }
        }
    }
    stax_reader_free(r);
    return st == STAX_END ? 0 : 1;
}

int main(void) { return osm_csv_by_hand(stdin, stdout); }
