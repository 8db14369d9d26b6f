/* docs/writer.md, "A first document": write to stdout with indentation. */
#include "stax.h"

#include <stdio.h>

int main(void) {
    stax_writer_options opt = {0};
    opt.indent_width = 2;                 /* two spaces per level */
    opt.flags = STAX_WRITE_SELF_CLOSE;    /* <empty/> rather than <empty></empty> */
    stax_writer *w = stax_writer_new(&opt);
    if (!w) return 1;
    stax_writer_set_fd(w, 1);

    stax_writer_xml_decl(w, stax_strz(NULL), stax_strz("UTF-8"), 0);
    stax_writer_start_z(w, "catalog");
    stax_writer_attr_z(w, "owner", "Tom & Jerry");       /* escaped: &amp; */
    stax_writer_start_z(w, "book");
    stax_writer_attr_z(w, "id", "1");
    stax_writer_element_z(w, "title", "XML <for> everyone");
    stax_writer_start_z(w, "note");
    stax_writer_text_z(w, "Mixed ");                     /* text: no indentation inside <note> */
    stax_writer_element_z(w, "b", "content");
    stax_writer_text_z(w, " stays exact.");
    stax_writer_end(w);                                  /* </note>: no name needed */
    stax_writer_start_z(w, "empty");
    stax_writer_end(w);
    stax_writer_end(w);                                  /* </book> */
    stax_writer_end(w);                                  /* </catalog> */
    stax_writer_text_z(w, "\n");                         /* outside the root: only whitespace */
    int st = stax_writer_finish(w);                      /* closes anything still open, flushes */
    stax_writer_free(w);
    if (st != STAX_OK) {
        fprintf(stderr, "write failed: %s\n", stax_strerror(st));
        return 1;
    }
    return 0;
}
