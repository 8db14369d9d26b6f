/* pugixml_count: the in-memory reference beside `stax count`: pugixml's DOM.
 *
 *   pugixml_count [FILE|-]
 *
 * Loads the whole document into a pugixml tree with the default options
 * (load_file for a FILE; stdin, when FILE is absent or "-", is read whole into
 * one buffer that pugixml parses in place), then walks the tree and prints
 * "elements=N attributes=M" like `stax count`. pugixml has no namespace
 * processing, so xmlns attributes count as attributes, as in stax count. It
 * is not a conforming parser (it skips the DTD and checks less), which is
 * why it is only the speed reference here, never the judge of the counts'
 * correctness. Exit 1 if pugixml rejects the document, 2 on usage or I/O
 * errors. */
#include <pugixml.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

/* stdin, whole, in a buffer from pugixml's allocator (so the document can own it). */
static bool read_stdin(void **data, size_t *size) {
    size_t cap = 1 << 20, len = 0;
    char *buf = static_cast<char *>(pugi::get_memory_allocation_function()(cap));
    if (!buf) return false;
    for (;;) {
        if (len == cap) {
            char *bigger = static_cast<char *>(pugi::get_memory_allocation_function()(cap * 2));
            if (!bigger) {
                pugi::get_memory_deallocation_function()(buf);
                return false;
            }
            memcpy(bigger, buf, len);
            pugi::get_memory_deallocation_function()(buf);
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(STDIN_FILENO, buf + len, cap - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            pugi::get_memory_deallocation_function()(buf);
            return false;
        }
        if (n == 0) break;
        len += static_cast<size_t>(n);
    }
    *data = buf;
    *size = len;
    return true;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "-";
    if (argc > 2) {
        fputs("usage: pugixml_count [FILE|-]\n", stderr);
        return 2;
    }

    pugi::xml_document doc;
    pugi::xml_parse_result result;
    if (strcmp(path, "-") == 0) {
        void *data;
        size_t size;
        if (!read_stdin(&data, &size)) {
            fprintf(stderr, "pugixml_count: -: %s\n", strerror(errno ? errno : ENOMEM));
            return 2;
        }
        result = doc.load_buffer_inplace_own(data, size);
    } else {
        result = doc.load_file(path);
    }
    if (result.status == pugi::status_file_not_found || result.status == pugi::status_io_error ||
        result.status == pugi::status_out_of_memory) {
        fprintf(stderr, "pugixml_count: %s: %s\n", path, result.description());
        return 2;
    }
    if (!result) {
        fprintf(stderr, "%s: byte %lld: %s\n", path, static_cast<long long>(result.offset), result.description());
        return 1;
    }

    /* Depth-first, without recursion: deep documents stay cheap. */
    unsigned long long elements = 0, attributes = 0;
    pugi::xml_node node = doc.first_child();
    while (node) {
        if (node.type() == pugi::node_element) {
            elements++;
            for (pugi::xml_attribute a = node.first_attribute(); a; a = a.next_attribute()) attributes++;
            if (node.first_child()) {
                node = node.first_child();
                continue;
            }
        }
        while (node && !node.next_sibling()) node = node.parent();
        if (node) node = node.next_sibling();
    }
    printf("elements=%llu attributes=%llu\n", elements, attributes);
    return 0;
}
