// A C++ program over the single file (tools/check-cpp.sh): it includes the
// header only and links with the implementation compiled as C++
// (tests/cpp_impl.cpp) and a private STAX_STATIC copy (tests/cpp_static.cpp).
// It reads a document into std::strings, writes one through a callback sink
// that appends to a std::string, and reports an error; the script compares
// what it prints with what it must print.
#include "stax.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

long cpp_static_elements(const std::string &doc);

namespace {

struct reader_free {
    void operator()(stax_reader *r) const { stax_reader_free(r); }
};
struct writer_free {
    void operator()(stax_writer *w) const { stax_writer_free(w); }
};
using reader_ptr = std::unique_ptr<stax_reader, reader_free>;
using writer_ptr = std::unique_ptr<stax_writer, writer_free>;

std::string str(stax_str s) { return std::string(s.ptr, s.len); }
stax_str view(const std::string &s) { return stax_str{s.data(), s.size()}; }

// Every start tag as name[attr=value,...], and the text; the status at the end.
int read_all(const std::string &doc, std::vector<std::string> &out, std::string &error) {
    reader_ptr r(stax_reader_new(nullptr));
    if (!r) return STAX_E_NOMEM;
    const stax_batch *b;
    int st = stax_reader_feed(r.get(), doc.data(), doc.size());
    for (bool ended = false; st >= 0;) {
        while ((st = stax_reader_next(r.get(), &b)) == STAX_OK) {
            for (size_t i = 0; i < b->count; i++) {
                if (stax_ev_type(b, i) == STAX_EV_START) {
                    std::string e = str(stax_ev_name(b, i)) + "[";
                    for (size_t k = 0; k < stax_ev_attr_count(b, i); k++)
                        e += (k ? "," : "") + str(stax_ev_attr_name(b, i, k)) + "=" + str(stax_ev_attr_value(b, i, k));
                    out.push_back(e + "]");
                } else if (stax_ev_type(b, i) == STAX_EV_TEXT) {
                    out.push_back("'" + str(stax_ev_text(b, i)) + "'");
                }
            }
        }
        if (st != STAX_NEED_INPUT || ended) break;
        st = stax_reader_end(r.get());
        ended = true;
    }
    if (st < 0) {
        stax_pos p = stax_reader_error_pos(r.get());
        error = std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + stax_reader_message(r.get());
    }
    return st;
}

} // namespace

int main() {
    std::vector<std::string> seen;
    std::string error;
    int st = read_all("<?xml version='1.0'?><doc lang='fr'><p id='1' n='a&amp;b'>caf\xc3\xa9</p><q/></doc>", seen,
                      error);
    std::printf("read: %s", st == STAX_END ? "ok" : error.c_str());
    for (const std::string &s : seen) std::printf(" %s", s.c_str());
    std::printf("\n");

    std::string out;
    writer_ptr w(stax_writer_new(nullptr));
    if (!w) return 1;
    // A captureless lambda is a plain function pointer: the sink.
    stax_writer_set_sink(w.get(), [](void *ctx, const void *data, size_t len) -> ptrdiff_t {
        static_cast<std::string *>(ctx)->append(static_cast<const char *>(data), len);
        return static_cast<ptrdiff_t>(len);
    }, &out);
    stax_writer_start(w.get(), view("list"));
    for (const std::string &s : seen) {
        stax_writer_start(w.get(), view("item"));
        stax_writer_attr(w.get(), view("v"), view(s));
        stax_writer_end(w.get());
    }
    if (stax_writer_finish(w.get()) != STAX_OK) return 1;
    std::printf("wrote: %s\n", out.c_str());

    seen.clear();
    st = read_all("<a>\n  <b></a>", seen, error);
    std::printf("error: %d %s\n", st == STAX_END ? 0 : 1, error.c_str());
    std::printf("static copy: %ld %ld\n", cpp_static_elements("<a><b/><c><d/></c></a>"), cpp_static_elements("<a>"));
    std::printf("version: %s\n", stax_version());
    return 0;
}
