/* stax._stax: the CPython extension of the stax package (docs/python.md).
 * The library is compiled in from its single file (a private copy:
 * STAX_STATIC), so the module needs nothing else at run time.
 *
 * Sources: a path (opened here and read with read(2)), a buffer (bytes,
 * bytearray, memoryview, mmap: fed as it is, zero copy) or a binary file
 * object (readinto into one chunk-sized buffer). Reading a path or a buffer
 * runs without the GIL; a file object is called with it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define STAX_IMPLEMENTATION
#define STAX_STATIC
#include "stax.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static PyObject *XMLError;     /* stax.XMLError, set by the package (_set_error) */
static PyObject *SelectError;  /* stax.SelectError: a path refused, a select limit */
static PyObject *WriterError;  /* stax.WriterError: a call the writer refused */

#define PYERR (-1000) /* a Python exception is set */

/* ---------------------------------------------------------------- options */

typedef struct opts {
    stax_reader_options ro;
    size_t chunk;  /* bytes fed (or read) at a time; 0: 64 KiB reads, a buffer whole */
    size_t memory; /* fixed block for the reader (the tool's --memory) */
    char encoding[64];
} opts;

/* One keyword option into o: 1 taken, 0 not a reader option, -1 error. */
static int opt_size(PyObject *v, size_t *out) {
    size_t n = PyLong_AsSize_t(v);
    if (n == (size_t)-1 && PyErr_Occurred()) return -1;
    *out = n;
    return 1;
}

static int opt_u32(PyObject *v, uint32_t *out) {
    size_t n;
    if (opt_size(v, &n) < 0) return -1;
    if (n > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "option out of range");
        return -1;
    }
    *out = (uint32_t)n;
    return 1;
}

static int opt_flag(PyObject *v, unsigned *flags, unsigned bit) {
    int t = PyObject_IsTrue(v);
    if (t < 0) return -1;
    if (t) *flags |= bit;
    else *flags &= ~bit;
    return 1;
}

static int opt_one(opts *o, const char *k, PyObject *v) {
    stax_reader_options *ro = &o->ro;
    if (!strcmp(k, "max_depth")) return opt_u32(v, &ro->max_depth);
    if (!strcmp(k, "max_name")) return opt_u32(v, &ro->max_name);
    if (!strcmp(k, "max_attrs")) return opt_u32(v, &ro->max_attrs);
    if (!strcmp(k, "max_token")) return opt_size(v, &ro->max_token);
    if (!strcmp(k, "max_text")) return opt_size(v, &ro->max_text);
    if (!strcmp(k, "batch_events")) return opt_u32(v, &ro->batch_events);
    if (!strcmp(k, "max_entity_depth")) return opt_u32(v, &ro->max_entity_depth);
    if (!strcmp(k, "entity_amplification")) return opt_u32(v, &ro->entity_amplification);
    if (!strcmp(k, "entity_threshold")) return opt_size(v, &ro->entity_threshold);
    if (!strcmp(k, "max_dtd")) return opt_size(v, &ro->max_dtd);
    if (!strcmp(k, "max_ns")) return opt_u32(v, &ro->max_ns);
    if (!strcmp(k, "max_ns_bytes")) return opt_size(v, &ro->max_ns_bytes);
    if (!strcmp(k, "read_buffer")) return opt_size(v, &ro->read_buffer);
    if (!strcmp(k, "max_external")) return opt_size(v, &ro->max_external);
    if (!strcmp(k, "max_external_text")) return opt_size(v, &ro->max_external_text);
    if (!strcmp(k, "skip_ws")) return opt_flag(v, &ro->flags, STAX_READ_SKIP_WS);
    if (!strcmp(k, "namespaces")) {
        if (PyDict_Check(v)) { /* select's prefix bindings: namespaces on */
            ro->flags |= STAX_READ_NAMESPACES;
            return 1;
        }
        if (v == Py_None) return 1;
        return opt_flag(v, &ro->flags, STAX_READ_NAMESPACES);
    }
    if (!strcmp(k, "chunk")) return opt_size(v, &o->chunk);
    if (!strcmp(k, "memory")) return opt_size(v, &o->memory);
    if (!strcmp(k, "encoding")) {
        if (v == Py_None) return 1;
        const char *e = PyUnicode_AsUTF8(v);
        if (!e) return -1;
        if (strlen(e) >= sizeof o->encoding) {
            PyErr_SetString(PyExc_ValueError, "encoding name too long");
            return -1;
        }
        strcpy(o->encoding, e);
        ro->encoding = o->encoding;
        return 1;
    }
    return 0;
}

/* The reader options of kw; names in `extra` are left for the caller. */
static int opts_parse(opts *o, PyObject *kw, const char *const *extra) {
    memset(o, 0, sizeof *o);
    if (!kw) return 0;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kw, &pos, &k, &v)) {
        const char *name = PyUnicode_AsUTF8(k);
        if (!name) return -1;
        int r = opt_one(o, name, v);
        if (r < 0) return -1;
        if (r) continue;
        int known = 0;
        for (const char *const *e = extra; e && *e; e++) known |= !strcmp(*e, name);
        if (!known) {
            PyErr_Format(PyExc_TypeError, "unknown option '%s'", name);
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- sources */

enum { SRC_BUF = 1, SRC_FD, SRC_PY };

typedef struct src {
    int kind;
    Py_buffer view; /* SRC_BUF */
    size_t fed;
    int fd;         /* SRC_FD */
    PyObject *readinto, *read, *mv; /* SRC_PY */
    char *buf;      /* SRC_FD, SRC_PY: the chunk */
    size_t cap, chunk;
    int ended;
    PyObject *name; /* a str for messages (the path), or NULL */
} src;

static void src_close(src *s) {
    if (s->kind == SRC_BUF) PyBuffer_Release(&s->view);
    if (s->kind == SRC_FD && s->fd >= 0) close(s->fd);
    if (s->mv) { /* a raised exception stays raised */
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyObject *r = PyObject_CallMethod(s->mv, "release", NULL);
        if (!r) PyErr_Clear();
        Py_XDECREF(r);
        PyErr_Restore(t, v, tb);
    }
    Py_CLEAR(s->mv);
    Py_CLEAR(s->readinto);
    Py_CLEAR(s->read);
    Py_CLEAR(s->name);
    PyMem_Free(s->buf);
    s->buf = NULL;
    s->kind = 0;
}

static int src_open(src *s, PyObject *source, size_t chunk) {
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->chunk = chunk;
    if (PyUnicode_Check(source) || PyObject_HasAttrString(source, "__fspath__")) {
        PyObject *path = NULL;
        if (!PyUnicode_FSConverter(source, &path)) return -1;
        const char *p = PyBytes_AS_STRING(path);
        int fd;
        Py_BEGIN_ALLOW_THREADS
        fd = open(p, O_RDONLY | O_CLOEXEC);
        Py_END_ALLOW_THREADS
        if (fd < 0) {
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, source);
            Py_DECREF(path);
            return -1;
        }
        s->name = PyUnicode_DecodeFSDefault(p);
        Py_DECREF(path);
        s->fd = fd;
        s->kind = SRC_FD;
        s->cap = chunk ? chunk : 1 << 16;
        s->buf = PyMem_Malloc(s->cap);
        if (!s->buf) return PyErr_NoMemory(), -1;
        return 0;
    }
    if (PyObject_CheckBuffer(source)) {
        if (PyObject_GetBuffer(source, &s->view, PyBUF_SIMPLE) < 0) return -1;
        s->kind = SRC_BUF;
        return 0;
    }
    s->kind = SRC_PY;
    s->cap = chunk ? chunk : 1 << 16;
    s->readinto = PyObject_GetAttrString(source, "readinto");
    if (!s->readinto) {
        PyErr_Clear();
        s->read = PyObject_GetAttrString(source, "read");
        if (!s->read) {
            PyErr_SetString(PyExc_TypeError, "a source is a path, a bytes-like object or a binary file object");
            return -1;
        }
        return 0;
    }
    s->buf = PyMem_Malloc(s->cap);
    if (!s->buf) return PyErr_NoMemory(), -1;
    s->mv = PyMemoryView_FromMemory(s->buf, (Py_ssize_t)s->cap, PyBUF_WRITE);
    if (!s->mv) return -1;
    PyObject *n = PyObject_GetAttrString(source, "name"); /* a file's name for messages */
    if (n && PyUnicode_Check(n)) s->name = n;
    else Py_XDECREF(n);
    PyErr_Clear();
    return 0;
}

/* Hand the reader its next chunk (or the end). Without the GIL for SRC_BUF
 * and SRC_FD (errno in *err for a read error); SRC_PY with it. 0, or -1 with
 * *err set (errno) or a Python exception (*err 0). */
static int src_fill(src *s, stax_reader *r, int *err, PyObject **hold) {
    *err = 0;
    if (s->ended) return stax_reader_end(r), 0;
    if (s->kind == SRC_BUF) {
        size_t len = (size_t)s->view.len, n = len - s->fed;
        if (s->chunk && n > s->chunk) n = s->chunk;
        stax_reader_feed(r, (const char *)s->view.buf + s->fed, n);
        s->fed += n;
        if (s->fed == len) {
            s->ended = 1;
            stax_reader_end(r);
        }
        return 0;
    }
    if (s->kind == SRC_FD) {
        ssize_t n;
        do n = read(s->fd, s->buf, s->cap);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
            *err = errno;
            return -1;
        }
        if (n == 0) {
            s->ended = 1;
            stax_reader_end(r);
        } else {
            stax_reader_feed(r, s->buf, (size_t)n);
        }
        return 0;
    }
    Py_ssize_t n;
    if (s->readinto) {
        PyObject *res = PyObject_CallOneArg(s->readinto, s->mv);
        if (!res) return -1;
        if (res == Py_None) {
            Py_DECREF(res);
            PyErr_SetString(PyExc_BlockingIOError, "the source has no bytes ready (a non-blocking file)");
            return -1;
        }
        n = PyLong_AsSsize_t(res);
        Py_DECREF(res);
        if (n < 0 && PyErr_Occurred()) return -1;
        if (n) stax_reader_feed(r, s->buf, (size_t)n);
    } else { /* read(): the bytes object is kept until the next fill */
        PyObject *res = PyObject_CallFunction(s->read, "n", (Py_ssize_t)s->cap);
        if (!res) return -1;
        if (!PyBytes_Check(res)) {
            Py_DECREF(res);
            PyErr_SetString(PyExc_TypeError, "the source's read() must return bytes");
            return -1;
        }
        Py_XSETREF(*hold, res);
        n = PyBytes_GET_SIZE(res);
        if (n) stax_reader_feed(r, PyBytes_AS_STRING(res), (size_t)n);
    }
    if (n == 0) {
        s->ended = 1;
        stax_reader_end(r);
    }
    return 0;
}

/* ---------------------------------------------------------------- the core */

typedef struct core {
    stax_reader *r;
    src s;
    void *block;
    PyObject *hold; /* the bytes read() returned, fed to the reader */
    int err;        /* errno of a failed read(2) */
} core;

static void core_close(core *c) {
    stax_reader_free(c->r);
    c->r = NULL;
    PyMem_Free(c->block);
    c->block = NULL;
    Py_CLEAR(c->hold);
    src_close(&c->s);
}

static int core_open(core *c, PyObject *source, opts *o) {
    memset(c, 0, sizeof *c);
    if (o->memory) {
        c->block = PyMem_Malloc(o->memory);
        if (!c->block) return PyErr_NoMemory(), -1;
        o->ro.memory = c->block;
        o->ro.memory_size = o->memory;
    }
    const char *why = NULL;
    if (stax_reader_check_options(&o->ro, &why) != STAX_OK) {
        PyErr_Format(PyExc_ValueError, "reader options: %s", why ? why : "refused");
        core_close(c);
        return -1;
    }
    c->r = stax_reader_new(&o->ro);
    if (!c->r) {
        core_close(c);
        return PyErr_NoMemory(), -1;
    }
    if (src_open(&c->s, source, o->chunk) < 0) {
        core_close(c);
        return -1;
    }
    return 0;
}

static inline int core_nogil(const core *c) { return c->s.kind != SRC_PY; }

/* The next batch: STAX_OK, STAX_END, a negative status, or PYERR. Call with
 * the GIL, or without it when core_nogil. */
static int core_next(core *c, const stax_batch **b) {
    for (;;) {
        int st = stax_reader_next(c->r, b);
        if (st != STAX_NEED_INPUT) return st;
        if (src_fill(&c->s, c->r, &c->err, &c->hold) < 0) return PYERR;
    }
}

/* The exception for a reader status (or PYERR: already set). */
static void core_raise(core *c, int st) {
    if (st == PYERR) {
        if (c->err) {
            errno = c->err;
            if (c->s.name) PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, c->s.name);
            else PyErr_SetFromErrno(PyExc_OSError);
        }
        return;
    }
    stax_pos p = stax_reader_error_pos(c->r);
    const char *msg = stax_reader_message(c->r);
    /* the tool's form: FILE:LINE:COL: message (byte OFFSET) */
    PyObject *text = c->s.name ? PyUnicode_FromFormat("%U:%llu:%llu: %s (byte %llu)", c->s.name,
                                                      (unsigned long long)p.line, (unsigned long long)p.column, msg,
                                                      (unsigned long long)p.offset)
                               : PyUnicode_FromFormat("%llu:%llu: %s (byte %llu)", (unsigned long long)p.line,
                                                      (unsigned long long)p.column, msg, (unsigned long long)p.offset);
    if (!text) return;
    PyObject *e = PyObject_CallOneArg(XMLError, text);
    Py_DECREF(text);
    if (!e) return;
    PyObject *v;
#define SETATTR(n, x) \
    if ((v = (x)) != NULL) { \
        PyObject_SetAttrString(e, n, v); \
        Py_DECREF(v); \
    }
    SETATTR("line", PyLong_FromUnsignedLongLong(p.line));
    SETATTR("column", PyLong_FromUnsignedLongLong(p.column));
    SETATTR("offset", PyLong_FromUnsignedLongLong(p.offset));
    SETATTR("message", PyUnicode_FromString(msg));
    SETATTR("code", PyLong_FromLong(st));
    if (c->s.name) PyObject_SetAttrString(e, "filename", c->s.name);
    else PyObject_SetAttrString(e, "filename", Py_None);
#undef SETATTR
    PyErr_SetObject(XMLError, e);
    Py_DECREF(e);
}

/* Every batch through fn (NULL: none), without the GIL where the source
 * allows. 0 at the end of a well-formed document, else -1 raised. */
typedef void (*batch_fn)(void *ctx, const stax_batch *b);

static int core_run(core *c, batch_fn fn, void *ctx) {
    const stax_batch *b;
    int st;
    if (core_nogil(c)) {
        Py_BEGIN_ALLOW_THREADS
        while ((st = core_next(c, &b)) == STAX_OK)
            if (fn) fn(ctx, b);
        Py_END_ALLOW_THREADS
    } else {
        while ((st = core_next(c, &b)) == STAX_OK)
            if (fn) fn(ctx, b);
    }
    if (st == STAX_END) return 0;
    core_raise(c, st);
    return -1;
}

/* ---------------------------------------------------------------- check, count */

static PyObject *py_check(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *source;
    if (!PyArg_ParseTuple(args, "O:check", &source)) return NULL;
    opts o;
    core c;
    if (opts_parse(&o, kw, NULL) < 0 || core_open(&c, source, &o) < 0) return NULL;
    int rc = core_run(&c, NULL, NULL);
    core_close(&c);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

typedef struct counts {
    unsigned long long elements, attributes, text, cdata, comments, pis, text_bytes;
} counts;

/* The counts `stax count` prints (cli/run.c, cli_count_batch). */
static void count_batch(void *ctx, const stax_batch *b) {
    counts *c = ctx;
    unsigned long long n[16] = {0}, attrs = 0, text = 0;
    for (size_t i = 0; i < b->count; i++) {
        int t = stax_ev_type(b, i);
        n[t & 15]++;
        attrs += stax_ev_attr_count(b, i);
        if (t == STAX_EV_TEXT || t == STAX_EV_CDATA) text += stax_ev_text(b, i).len;
    }
    c->elements += n[STAX_EV_START];
    c->attributes += attrs;
    c->text += n[STAX_EV_TEXT];
    c->cdata += n[STAX_EV_CDATA];
    c->comments += n[STAX_EV_COMMENT];
    c->pis += n[STAX_EV_PI];
    c->text_bytes += text;
}

static PyObject *counts_dict(const counts *c) {
    return Py_BuildValue("{sKsKsKsKsKsKsK}", "elements", c->elements, "attributes", c->attributes, "text", c->text,
                         "cdata", c->cdata, "comments", c->comments, "pis", c->pis, "text_bytes", c->text_bytes);
}

static PyObject *py_count(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *source;
    if (!PyArg_ParseTuple(args, "O:count", &source)) return NULL;
    opts o;
    core c;
    if (opts_parse(&o, kw, NULL) < 0 || core_open(&c, source, &o) < 0) return NULL;
    counts n;
    memset(&n, 0, sizeof n);
    int rc = core_run(&c, count_batch, &n);
    core_close(&c);
    if (rc < 0) return NULL;
    return counts_dict(&n);
}

/* ---------------------------------------------------------------- growable bytes */

typedef struct gbuf {
    char *p;
    size_t len, cap;
    int oom;
} gbuf;

static int gbuf_put(gbuf *g, const void *d, size_t n) {
    if (g->cap - g->len < n) {
        size_t cap = g->cap ? g->cap : 256;
        while (cap - g->len < n) cap *= 2;
        char *q = PyMem_RawRealloc(g->p, cap); /* without the GIL too */
        if (!q) return g->oom = 1, -1;
        g->p = q;
        g->cap = cap;
    }
    if (n) memcpy(g->p + g->len, d, n);
    g->len += n;
    return 0;
}

static void gbuf_free(gbuf *g) {
    PyMem_RawFree(g->p);
    memset(g, 0, sizeof *g);
}

/* ---------------------------------------------------------------- select */

/* Prefix bindings from a dict {prefix: uri} as stax_str pairs (kept alive
 * by the dict's str objects while compiling). */
static stax_str *ns_pairs(PyObject *ns, size_t *count) {
    *count = 0;
    if (!ns || ns == Py_None || !PyDict_Check(ns)) return PyMem_Malloc(1);
    Py_ssize_t n = PyDict_Size(ns), pos = 0, i = 0;
    stax_str *p = PyMem_Malloc((size_t)(2 * n + 1) * sizeof *p);
    if (!p) return (stax_str *)PyErr_NoMemory();
    PyObject *k, *v;
    while (PyDict_Next(ns, &pos, &k, &v)) {
        Py_ssize_t kl, vl;
        const char *ks = PyUnicode_AsUTF8AndSize(k, &kl), *vs = ks ? PyUnicode_AsUTF8AndSize(v, &vl) : NULL;
        if (!vs) {
            PyMem_Free(p);
            return NULL;
        }
        p[i].ptr = ks;
        p[i++].len = (size_t)kl;
        p[i].ptr = vs;
        p[i++].len = (size_t)vl;
    }
    *count = (size_t)n;
    return p;
}

typedef struct SelectIter {
    PyObject_HEAD
    core c;
    int open;
    stax_select *sel;
    size_t ncols;   /* 0: values */
    gbuf out;       /* the queued matches' bytes */
    size_t *ends;   /* field ends in out: one per value, ncols per record */
    size_t nends, ends_cap, taken, fields; /* taken: fields handed out; fields: of the record being read */
    int status;     /* the reader's or the select's end: STAX_OK while reading */
    int sel_error;  /* the select stopped with an error */
    stax_pos where;
    unsigned long long first, done;
    PyObject *hold_ns; /* the bindings' dict, alive while compiling */
    int busy;          /* reading without the GIL: another thread may not */
} SelectIter;

static int sel_end_field(SelectIter *it) {
    if (it->nends == it->ends_cap) {
        size_t cap = it->ends_cap ? it->ends_cap * 2 : 64;
        size_t *e = PyMem_RawRealloc(it->ends, cap * sizeof *e);
        if (!e) return it->out.oom = 1, -1;
        it->ends = e;
        it->ends_cap = cap;
    }
    it->ends[it->nends++] = it->out.len;
    return 0;
}

static int sel_piece(void *ctx, const stax_select_piece *p) {
    SelectIter *it = ctx;
    switch (p->type) {
    case STAX_SELECT_VALUE:
        return gbuf_put(&it->out, p->value.ptr, p->value.len) ? 1 : 0;
    case STAX_SELECT_COLUMN:
        while (it->fields < p->column)
            if (sel_end_field(it)) return 1;
            else it->fields++;
        return 0;
    case STAX_SELECT_END:
        if (it->ncols) {
            while (it->fields < it->ncols)
                if (sel_end_field(it)) return 1;
                else it->fields++;
            it->fields = 0;
        } else if (sel_end_field(it)) {
            return 1;
        }
        it->done++;
        return it->first && it->done >= it->first;
    }
    return 0;
}

static void select_iter_free(SelectIter *it) {
    if (it->open) core_close(&it->c);
    it->open = 0;
    stax_select_free(it->sel);
    it->sel = NULL;
    gbuf_free(&it->out);
    PyMem_RawFree(it->ends);
    it->ends = NULL;
    Py_CLEAR(it->hold_ns);
}

static void SelectIter_dealloc(SelectIter *it) {
    select_iter_free(it);
    Py_TYPE(it)->tp_free((PyObject *)it);
}

/* Read until a match is queued or the reading ends. */
static void select_pump(SelectIter *it) {
    const stax_batch *b;
    int st = STAX_OK, sst = STAX_OK;
    core *c = &it->c;
    size_t want = it->ncols ? it->ncols : 1;
#define PUMP_LOOP \
    while (it->nends < want && (st = core_next(c, &b)) == STAX_OK) { \
        sst = stax_select_batch(it->sel, b); \
        if (sst != STAX_OK) break; \
    }
    if (core_nogil(c)) {
        Py_BEGIN_ALLOW_THREADS
        PUMP_LOOP
        Py_END_ALLOW_THREADS
    } else {
        PUMP_LOOP
    }
#undef PUMP_LOOP
    if (sst != STAX_OK) {
        if (sst == STAX_END) {
            it->status = STAX_END; /* --first reached, or a queue that could not grow */
            if (it->out.oom) it->status = PYERR;
        } else {
            it->status = sst;
            it->sel_error = 1;
            size_t i = stax_select_event_index(it->sel);
            it->where = stax_ev_pos(b, i < b->count ? i : 0);
        }
    } else if (st != STAX_OK) {
        it->status = st;
    }
}

static PyObject *select_raise(SelectIter *it) {
    if (it->status == STAX_END) return NULL;
    if (it->status == PYERR && it->out.oom) return PyErr_NoMemory();
    if (it->sel_error) {
        PyErr_Format(SelectError, "%llu:%llu: select: %s (byte %llu)", (unsigned long long)it->where.line,
                     (unsigned long long)it->where.column, stax_select_message(it->sel),
                     (unsigned long long)it->where.offset);
        return NULL;
    }
    core_raise(&it->c, it->status);
    return NULL;
}

static PyObject *select_field(SelectIter *it, size_t k) {
    size_t from = k ? it->ends[k - 1] : 0;
    return PyUnicode_DecodeUTF8(it->out.p + from, (Py_ssize_t)(it->ends[k] - from), "surrogateescape");
}

static int busy_refused(int busy) {
    if (busy) PyErr_SetString(PyExc_RuntimeError, "another thread is reading from this object");
    return busy;
}

static PyObject *SelectIter_next(SelectIter *it) {
    if (busy_refused(it->busy)) return NULL;
    size_t want = it->ncols ? it->ncols : 1;
    if (it->taken + want > it->nends) {
        if (it->status != STAX_OK) return select_raise(it);
        /* keep a record being read (its fields so far) at the front */
        size_t keep_from = it->taken ? it->ends[it->taken - 1] : 0, rest = it->nends - it->taken;
        memmove(it->out.p, it->out.p + keep_from, it->out.len - keep_from);
        it->out.len -= keep_from;
        for (size_t i = 0; i < rest; i++) it->ends[i] = it->ends[it->taken + i] - keep_from;
        it->nends = rest;
        it->taken = 0;
        it->busy = 1;
        select_pump(it);
        it->busy = 0;
        if (it->taken + want > it->nends) {
            if (it->status == STAX_END && !it->out.oom) {
                if (it->open) core_close(&it->c);
                it->open = 0;
                return NULL;
            }
            return select_raise(it);
        }
    }
    if (!it->ncols) return select_field(it, it->taken++);
    PyObject *t = PyTuple_New((Py_ssize_t)it->ncols);
    if (!t) return NULL;
    for (size_t k = 0; k < it->ncols; k++) {
        PyObject *f = select_field(it, it->taken + k);
        if (!f) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)k, f);
    }
    it->taken += it->ncols;
    return t;
}

static PyTypeObject SelectIterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "stax._stax.SelectIter",
    .tp_basicsize = sizeof(SelectIter),
    .tp_dealloc = (destructor)SelectIter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The matches of stax.select, read as they are iterated.",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)SelectIter_next,
};

static const char *const select_extra[] = {"xml", "join", "max_held", "max_state", "xml_memory", "first", "count_only",
                                           NULL};

/* A compiled select over a source's reader, or NULL raised. */
static stax_select *select_make(PyObject *kw, opts *o, PyObject *path, PyObject *columns, PyObject *ns, unsigned flags,
                                size_t *ncols, unsigned long long *first) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = flags;
    so.max_depth = o->ro.max_depth;
    PyObject *v;
    if (kw) {
        if ((v = PyDict_GetItemString(kw, "xml")) && PyObject_IsTrue(v)) so.flags |= STAX_SELECT_XML;
        if ((v = PyDict_GetItemString(kw, "max_held")) && opt_size(v, &so.max_held) < 0) return NULL;
        if ((v = PyDict_GetItemString(kw, "max_state")) && opt_size(v, &so.max_state) < 0) return NULL;
        if ((v = PyDict_GetItemString(kw, "xml_memory")) && opt_size(v, &so.xml_memory) < 0) return NULL;
        if ((v = PyDict_GetItemString(kw, "first")) && v != Py_None) {
            *first = PyLong_AsUnsignedLongLong(v);
            if (PyErr_Occurred()) return NULL;
        }
        if ((v = PyDict_GetItemString(kw, "join")) && v != Py_None) {
            Py_ssize_t n;
            const char *j = PyUnicode_AsUTF8AndSize(v, &n);
            if (!j) return NULL;
            so.join.ptr = j;
            so.join.len = (size_t)n;
            so.flags |= STAX_SELECT_ALL_MATCHES;
        }
    }
    if (ns && ns != Py_None && ns != Py_False) so.flags |= STAX_SELECT_NAMESPACES;
    stax_str *pairs = ns_pairs(ns, &so.ns_count);
    if (!pairs) return NULL;
    so.ns = pairs;
    const char *why = NULL;
    if (stax_select_check_options(&so, &why) != STAX_OK) {
        PyMem_Free(pairs);
        PyErr_Format(PyExc_ValueError, "select options: %s", why ? why : "refused");
        return NULL;
    }
    stax_select *s = stax_select_new(&so);
    if (!s) {
        PyMem_Free(pairs);
        return (stax_select *)PyErr_NoMemory();
    }
    Py_ssize_t pl, cl = 0;
    const char *ps = PyUnicode_AsUTF8AndSize(path, &pl), *cs = "";
    if (ps && columns && columns != Py_None) cs = PyUnicode_AsUTF8AndSize(columns, &cl);
    if (!ps || !cs) {
        stax_select_free(s);
        PyMem_Free(pairs);
        return NULL;
    }
    stax_str P = {ps, (size_t)pl}, C = {cs, (size_t)cl};
    int st = stax_select_compile(s, P, C);
    PyMem_Free(pairs);
    if (st != STAX_OK) {
        PyErr_Format(SelectError, "select: %s", stax_select_message(s));
        stax_select_free(s);
        return NULL;
    }
    *ncols = cl ? stax_select_columns(s) : 0;
    return s;
}

static PyObject *py_select(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *source, *path, *columns = Py_None, *ns = Py_None;
    if (!PyArg_ParseTuple(args, "OU|OO:select", &source, &path, &columns, &ns)) return NULL;
    if (columns != Py_None && !PyUnicode_Check(columns)) {
        PyErr_SetString(PyExc_TypeError, "columns: a str of relative paths separated by commas");
        return NULL;
    }
    opts o;
    if (opts_parse(&o, kw, select_extra) < 0) return NULL;
    if (ns != Py_None && PyObject_IsTrue(ns)) o.ro.flags |= STAX_READ_NAMESPACES;
    SelectIter *it = PyObject_New(SelectIter, &SelectIterType);
    if (!it) return NULL;
    memset((char *)it + sizeof(PyObject), 0, sizeof *it - sizeof(PyObject));
    it->sel = select_make(kw, &o, path, columns, ns, 0, &it->ncols, &it->first);
    if (!it->sel || core_open(&it->c, source, &o) < 0) {
        Py_DECREF(it);
        return NULL;
    }
    it->open = 1;
    stax_select_set_output(it->sel, sel_piece, it);
    return (PyObject *)it;
}

/* select_count(source, path, namespaces=None, **options): the matches of
 * each path of the union (`stax select --count`), a list. */
static PyObject *py_select_count(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *source, *path, *ns = Py_None;
    if (!PyArg_ParseTuple(args, "OU|O:select_count", &source, &path, &ns)) return NULL;
    opts o;
    if (opts_parse(&o, kw, select_extra) < 0) return NULL;
    if (ns != Py_None && PyObject_IsTrue(ns)) o.ro.flags |= STAX_READ_NAMESPACES;
    size_t ncols;
    unsigned long long first = 0;
    stax_select *s = select_make(kw, &o, path, NULL, ns, STAX_SELECT_NO_VALUES, &ncols, &first);
    core c;
    if (!s) return NULL;
    if (core_open(&c, source, &o) < 0) {
        stax_select_free(s);
        return NULL;
    }
    const stax_batch *b = NULL;
    int st, sst = STAX_OK;
    if (core_nogil(&c)) {
        Py_BEGIN_ALLOW_THREADS
        while ((st = core_next(&c, &b)) == STAX_OK && (sst = stax_select_batch(s, b)) == STAX_OK) {}
        Py_END_ALLOW_THREADS
    } else {
        while ((st = core_next(&c, &b)) == STAX_OK && (sst = stax_select_batch(s, b)) == STAX_OK) {}
    }
    PyObject *res = NULL;
    if (sst != STAX_OK) PyErr_Format(SelectError, "select: %s", stax_select_message(s));
    else if (st != STAX_END) core_raise(&c, st);
    else if ((res = PyList_New((Py_ssize_t)stax_select_paths(s))) != NULL)
        for (size_t p = 0; p < stax_select_paths(s); p++)
            PyList_SET_ITEM(res, (Py_ssize_t)p, PyLong_FromUnsignedLongLong(stax_select_count(s, p)));
    stax_select_free(s);
    core_close(&c);
    return res;
}

/* ---------------------------------------------------------------- Reader and Batch */

typedef struct Reader {
    PyObject_HEAD
    core c;
    int open, status; /* status: STAX_OK while reading, then STAX_END or the error */
    const stax_batch *b;
    unsigned long long gen; /* the batch's number: a Batch of another is stale */
    int busy;               /* reading without the GIL: another thread may not */
} Reader;

typedef struct Batch {
    PyObject_HEAD
    Reader *r;
    unsigned long long gen;
} Batch;

static PyTypeObject BatchType;

static void Reader_dealloc(Reader *r) {
    if (r->open) core_close(&r->c);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyObject *Reader_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *source;
    if (!PyArg_ParseTuple(args, "O:Reader", &source)) return NULL;
    opts o;
    if (opts_parse(&o, kw, NULL) < 0) return NULL;
    Reader *r = (Reader *)type->tp_alloc(type, 0);
    if (!r) return NULL;
    if (core_open(&r->c, source, &o) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    r->open = 1;
    return (PyObject *)r;
}

static PyObject *Reader_next(Reader *r) {
    if (busy_refused(r->busy)) return NULL;
    if (r->status != STAX_OK) {
        if (r->status != STAX_END) {
            core_raise(&r->c, r->status);
            return NULL;
        }
        return NULL;
    }
    const stax_batch *b;
    int st;
    r->gen++;
    if (core_nogil(&r->c)) {
        r->busy = 1;
        Py_BEGIN_ALLOW_THREADS
        st = core_next(&r->c, &b);
        Py_END_ALLOW_THREADS
        r->busy = 0;
    } else {
        st = core_next(&r->c, &b);
    }
    if (st != STAX_OK) {
        r->status = st == PYERR && !r->c.err ? STAX_E_IO : st;
        r->b = NULL;
        if (st == STAX_END) return NULL;
        core_raise(&r->c, st);
        return NULL;
    }
    r->b = b;
    Batch *bt = PyObject_New(Batch, &BatchType);
    if (!bt) return NULL;
    Py_INCREF(r);
    bt->r = r;
    bt->gen = r->gen;
    return (PyObject *)bt;
}

static PyObject *Reader_depth(Reader *r, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(r->c.r ? stax_reader_depth(r->c.r) : 0);
}

static PyObject *Reader_ns_lookup(Reader *r, PyObject *arg) {
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(arg, &n);
    if (!p) return NULL;
    stax_str pre = {p, (size_t)n}, uri;
    if (!r->c.r || stax_reader_ns_lookup(r->c.r, pre, &uri) != 0) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(uri.ptr, (Py_ssize_t)uri.len, "strict");
}

static PyObject *Reader_close(Reader *r, PyObject *unused) {
    (void)unused;
    if (busy_refused(r->busy)) return NULL;
    if (r->open) core_close(&r->c);
    r->open = 0;
    r->b = NULL;
    if (r->status == STAX_OK) r->status = STAX_END;
    Py_RETURN_NONE;
}

static PyMethodDef Reader_methods[] = {
    {"ns_lookup", (PyCFunction)Reader_ns_lookup, METH_O, "The URI bound to a prefix ('' the default) now, or None."},
    {"close", (PyCFunction)Reader_close, METH_NOARGS, "Stop reading and close the source the reader opened."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Reader_getset[] = {{"depth", (getter)Reader_depth, NULL, "Elements open now.", NULL},
                                      {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "stax.Reader",
    .tp_basicsize = sizeof(Reader),
    .tp_dealloc = (destructor)Reader_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Reader(source, **options): iterate it for its batches (stax.Batch), valid until the next.",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)Reader_next,
    .tp_methods = Reader_methods,
    .tp_getset = Reader_getset,
    .tp_new = Reader_new,
};

static void Batch_dealloc(Batch *b) {
    Py_XDECREF(b->r);
    PyObject_Free(b);
}

/* The batch, or NULL raised when it is no longer the reader's. */
static const stax_batch *batch_of(Batch *b) {
    if (b->r->gen != b->gen || !b->r->b) {
        PyErr_SetString(PyExc_RuntimeError, "a batch is valid until the reader's next batch");
        return NULL;
    }
    return b->r->b;
}

static const stax_batch *batch_at(Batch *b, Py_ssize_t *i) {
    const stax_batch *t = batch_of(b);
    if (!t) return NULL;
    if (*i < 0) *i += (Py_ssize_t)t->count;
    if (*i < 0 || (size_t)*i >= t->count) {
        PyErr_SetString(PyExc_IndexError, "event index out of range");
        return NULL;
    }
    return t;
}

static inline PyObject *str_of(stax_str s) {
    return PyUnicode_DecodeUTF8(s.ptr ? s.ptr : "", (Py_ssize_t)s.len, "surrogateescape");
}

static Py_ssize_t Batch_len(Batch *b) {
    const stax_batch *t = batch_of(b);
    return t ? (Py_ssize_t)t->count : -1;
}

static PyObject *attrs_list(const stax_batch *t, size_t i) {
    size_t n = stax_ev_attr_count(t, i);
    PyObject *l = PyList_New((Py_ssize_t)n);
    if (!l) return NULL;
    for (size_t k = 0; k < n; k++) {
        PyObject *pair = Py_BuildValue("(NN)", str_of(stax_ev_attr_name(t, i, k)), str_of(stax_ev_attr_value(t, i, k)));
        if (!pair) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)k, pair);
    }
    return l;
}

/* batch[i]: (kind, name, text, attributes, (offset, line, column), depth). */
static PyObject *Batch_item(Batch *b, Py_ssize_t i) {
    const stax_batch *t = batch_at(b, &i);
    if (!t) return NULL;
    stax_pos p = stax_ev_pos(t, (size_t)i);
    return Py_BuildValue("(iNNN(KKK)I)", stax_ev_type(t, (size_t)i), str_of(stax_ev_name(t, (size_t)i)),
                         str_of(stax_ev_text(t, (size_t)i)), attrs_list(t, (size_t)i), (unsigned long long)p.offset,
                         (unsigned long long)p.line, (unsigned long long)p.column, stax_ev_depth(t, (size_t)i));
}

#define BATCH_INDEX_METHOD(fname, ...) \
    static PyObject *fname(Batch *b, PyObject *arg) { \
        Py_ssize_t i = PyLong_AsSsize_t(arg); \
        if (i == -1 && PyErr_Occurred()) return NULL; \
        const stax_batch *t = batch_at(b, &i); \
        if (!t) return NULL; \
        size_t e = (size_t)i; \
        __VA_ARGS__ \
    }

BATCH_INDEX_METHOD(Batch_kind, return PyLong_FromLong(stax_ev_type(t, e));)
BATCH_INDEX_METHOD(Batch_flags, return PyLong_FromUnsignedLong(stax_ev_flags(t, e));)
BATCH_INDEX_METHOD(Batch_name, return str_of(stax_ev_name(t, e));)
BATCH_INDEX_METHOD(Batch_text, return str_of(stax_ev_text(t, e));)
BATCH_INDEX_METHOD(Batch_depth1, return PyLong_FromUnsignedLong(stax_ev_depth(t, e));)
BATCH_INDEX_METHOD(Batch_attributes, return attrs_list(t, e);)
BATCH_INDEX_METHOD(Batch_uri, return str_of(stax_ev_uri(t, e));)
BATCH_INDEX_METHOD(Batch_local, return str_of(stax_ev_local(t, e));)
BATCH_INDEX_METHOD(Batch_prefix, return str_of(stax_ev_prefix(t, e));)
BATCH_INDEX_METHOD(Batch_pos, {
    stax_pos p = stax_ev_pos(t, e);
    return Py_BuildValue("(KKK)", (unsigned long long)p.offset, (unsigned long long)p.line,
                         (unsigned long long)p.column);
})
BATCH_INDEX_METHOD(Batch_attrib, {
    PyObject *d = PyDict_New();
    for (size_t k = 0; d && k < stax_ev_attr_count(t, e); k++) {
        PyObject *n = str_of(stax_ev_attr_name(t, e, k)), *v = n ? str_of(stax_ev_attr_value(t, e, k)) : NULL;
        if (!v || PyDict_SetItem(d, n, v) < 0) Py_CLEAR(d);
        Py_XDECREF(n);
        Py_XDECREF(v);
    }
    return d;
})

/* Columns: one object for the whole batch. */
static PyObject *Batch_kinds(Batch *b, void *c) {
    (void)c;
    const stax_batch *t = batch_of(b);
    if (!t) return NULL;
    PyObject *r = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)t->count);
    if (!r) return NULL;
    char *p = PyBytes_AS_STRING(r);
    for (size_t i = 0; i < t->count; i++) p[i] = (char)stax_ev_type(t, i);
    return r;
}

/* An array of n unsigned values of size sz ('I' or 'Q'), as a memoryview. */
static PyObject *cast_view(PyObject *bytes, const char *fmt) {
    PyObject *mv = PyMemoryView_FromObject(bytes);
    Py_DECREF(bytes);
    if (!mv) return NULL;
    PyObject *r = PyObject_CallMethod(mv, "cast", "s", fmt);
    Py_DECREF(mv);
    return r;
}

static PyObject *Batch_u64_column(Batch *b, int which) {
    const stax_batch *t = batch_of(b);
    if (!t) return NULL;
    PyObject *r = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(t->count * 8));
    if (!r) return NULL;
    uint64_t *p = (uint64_t *)PyBytes_AS_STRING(r);
    for (size_t i = 0; i < t->count; i++) {
        stax_pos q = stax_ev_pos(t, i);
        p[i] = which == 0 ? q.offset : which == 1 ? q.line : which == 2 ? q.column : stax_ev_depth(t, i);
    }
    return cast_view(r, "Q");
}

static PyObject *Batch_offsets(Batch *b, void *c) { (void)c; return Batch_u64_column(b, 0); }
static PyObject *Batch_lines(Batch *b, void *c) { (void)c; return Batch_u64_column(b, 1); }
static PyObject *Batch_columns(Batch *b, void *c) { (void)c; return Batch_u64_column(b, 2); }
static PyObject *Batch_depths(Batch *b, void *c) { (void)c; return Batch_u64_column(b, 3); }

static PyObject *Batch_str_column(Batch *b, int which) {
    const stax_batch *t = batch_of(b);
    if (!t) return NULL;
    PyObject *l = PyList_New((Py_ssize_t)t->count);
    for (size_t i = 0; l && i < t->count; i++) {
        PyObject *s;
        if (which == 2) s = stax_ev_type(t, i) == STAX_EV_START ? attrs_list(t, i) : (Py_INCREF(Py_None), Py_None);
        else {
            stax_str v = which == 0 ? stax_ev_name(t, i) : stax_ev_text(t, i);
            if (!v.ptr && !((which == 0 ? STAX__EV_NAMED : STAX__EV_TEXTED) >> stax_ev_type(t, i) & 1u)) {
                Py_INCREF(Py_None);
                s = Py_None;
            } else {
                s = str_of(v);
            }
        }
        if (!s) Py_CLEAR(l);
        else PyList_SET_ITEM(l, (Py_ssize_t)i, s);
    }
    return l;
}

static PyObject *Batch_names(Batch *b, void *c) { (void)c; return Batch_str_column(b, 0); }
static PyObject *Batch_texts(Batch *b, void *c) { (void)c; return Batch_str_column(b, 1); }
static PyObject *Batch_attributes_col(Batch *b, void *c) { (void)c; return Batch_str_column(b, 2); }

static PyMethodDef Batch_methods[] = {
    {"kind", (PyCFunction)Batch_kind, METH_O, "Event i's kind (stax.START, ...)."},
    {"flags", (PyCFunction)Batch_flags, METH_O, "Event i's flags (stax.EMPTY, ...)."},
    {"name", (PyCFunction)Batch_name, METH_O, "Event i's name ('' when its kind has none)."},
    {"text", (PyCFunction)Batch_text, METH_O, "Event i's text ('' when its kind has none)."},
    {"depth", (PyCFunction)Batch_depth1, METH_O, "Elements open around event i."},
    {"pos", (PyCFunction)Batch_pos, METH_O, "Event i's (offset, line, column)."},
    {"attributes", (PyCFunction)Batch_attributes, METH_O, "Event i's attributes, a list of (name, value)."},
    {"attrib", (PyCFunction)Batch_attrib, METH_O, "Event i's attributes, a dict."},
    {"uri", (PyCFunction)Batch_uri, METH_O, "Event i's namespace URI (namespaces=True)."},
    {"local", (PyCFunction)Batch_local, METH_O, "Event i's local name."},
    {"prefix", (PyCFunction)Batch_prefix, METH_O, "Event i's prefix (namespaces=True)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Batch_getset[] = {
    {"kinds", (getter)Batch_kinds, NULL, "Every event's kind, one byte each.", NULL},
    {"names", (getter)Batch_names, NULL, "Every event's name (None for kinds without one).", NULL},
    {"texts", (getter)Batch_texts, NULL, "Every event's text (None for kinds without one).", NULL},
    {"attributes_column", (getter)Batch_attributes_col, NULL, "Every START's attributes (None for others).", NULL},
    {"offsets", (getter)Batch_offsets, NULL, "Every event's byte offset (a memoryview of uint64).", NULL},
    {"lines", (getter)Batch_lines, NULL, "Every event's line.", NULL},
    {"columns", (getter)Batch_columns, NULL, "Every event's column.", NULL},
    {"depths", (getter)Batch_depths, NULL, "Every event's depth.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PySequenceMethods Batch_seq = {
    .sq_length = (lenfunc)Batch_len,
    .sq_item = (ssizeargfunc)Batch_item,
};

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "stax.Batch",
    .tp_basicsize = sizeof(Batch),
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A batch of events, read by index or as columns; valid until the reader's next batch.",
    .tp_as_sequence = &Batch_seq,
    .tp_methods = Batch_methods,
    .tp_getset = Batch_getset,
};

/* ---------------------------------------------------------------- records */

/* One matched element being built: a dict (attributes as "@name", each child
 * element's string value under its name, a list when a name repeats, the
 * element's own text as "#text" when it is not only whitespace), or an
 * element tree built with a factory (xml.etree.ElementTree.Element). */
typedef struct builder {
    uint32_t depth;  /* the record element's */
    PyObject *obj;   /* the dict, or the record's element */
    PyObject *child; /* dict: the name of the child being read */
    gbuf text, own;  /* dict: the child's string value, the record's own text;
                        element: the pending text */
    PyObject **stack; /* element: the open elements (owned: lxml's are proxies its tree does not keep) */
    size_t nstack, capstack;
    PyObject *target; /* element: where pending text goes (owned) */
    int tail;         /* ...as its tail (else its text) */
} builder;

typedef struct RecordsIter {
    PyObject_HEAD
    core c;
    int open, status, ns;
    stax_select *sel;
    PyObject *factory; /* NULL: dicts */
    builder *bs;
    size_t nb, capb;
    size_t *starts; /* the current batch's matched START events */
    size_t nstarts, capstarts;
    int oom;
    PyObject *done; /* finished records, a list, handed out from `at` */
    Py_ssize_t at;
    int busy;       /* reading without the GIL: another thread may not */
} RecordsIter;

static int rec_piece(void *ctx, const stax_select_piece *p) {
    RecordsIter *it = ctx;
    if (p->type != STAX_SELECT_BEGIN || p->kind != STAX_SELECT_ELEMENT) return 0;
    if (it->nstarts == it->capstarts) {
        size_t cap = it->capstarts ? 2 * it->capstarts : 64;
        size_t *s = PyMem_RawRealloc(it->starts, cap * sizeof *s);
        if (!s) return it->oom = 1;
        it->starts = s;
        it->capstarts = cap;
    }
    it->starts[it->nstarts++] = p->event;
    return 0;
}

static void builder_clear(builder *b) {
    Py_CLEAR(b->obj);
    Py_CLEAR(b->child);
    gbuf_free(&b->text);
    gbuf_free(&b->own);
    while (b->nstack) Py_DECREF(b->stack[--b->nstack]);
    PyMem_Free(b->stack);
    b->stack = NULL;
    Py_CLEAR(b->target);
}

static void records_free(RecordsIter *it) {
    if (it->open) core_close(&it->c);
    it->open = 0;
    stax_select_free(it->sel);
    it->sel = NULL;
    for (size_t i = 0; i < it->nb; i++) builder_clear(&it->bs[i]);
    PyMem_Free(it->bs);
    it->bs = NULL;
    it->nb = 0;
    PyMem_RawFree(it->starts);
    it->starts = NULL;
    Py_CLEAR(it->factory);
    Py_CLEAR(it->done);
}

static void RecordsIter_dealloc(RecordsIter *it) {
    records_free(it);
    Py_TYPE(it)->tp_free((PyObject *)it);
}

/* An element's or attribute's name: "{uri}local" with namespaces, else as written. */
static PyObject *clark_name(int ns, stax_str name, stax_qname q) {
    if (!ns || !q.uri.len) return str_of(ns ? q.local : name);
    PyObject *u = str_of(q.uri), *l = str_of(q.local), *r = NULL;
    if (u && l) r = PyUnicode_FromFormat("{%U}%U", u, l);
    Py_XDECREF(u);
    Py_XDECREF(l);
    return r;
}

static int gbuf_has_nonspace(const gbuf *g) {
    for (size_t i = 0; i < g->len; i++)
        if (g->p[i] != ' ' && g->p[i] != '\t' && g->p[i] != '\n' && g->p[i] != '\r') return 1;
    return 0;
}

static PyObject *gbuf_str(gbuf *g) {
    return PyUnicode_DecodeUTF8(g->p ? g->p : "", (Py_ssize_t)g->len, "surrogateescape");
}

/* dict[key] = v, or a list of the values when key repeats. Steals v. */
static int dict_add(PyObject *d, PyObject *key, PyObject *v) {
    if (!v) return -1;
    PyObject *old = PyDict_GetItemWithError(d, key);
    int rc;
    if (!old) {
        if (PyErr_Occurred()) rc = -1;
        else rc = PyDict_SetItem(d, key, v);
    } else if (PyList_CheckExact(old)) {
        rc = PyList_Append(old, v);
    } else {
        PyObject *l = PyList_New(2);
        if (!l) rc = -1;
        else {
            Py_INCREF(old);
            PyList_SET_ITEM(l, 0, old);
            Py_INCREF(v);
            PyList_SET_ITEM(l, 1, v);
            rc = PyDict_SetItem(d, key, l);
            Py_DECREF(l);
        }
    }
    Py_DECREF(v);
    return rc;
}

/* Pending text to its place in the element tree. */
static int builder_flush_text(builder *b) {
    if (!b->text.len || !b->target) {
        b->text.len = 0;
        return 0;
    }
    PyObject *s = gbuf_str(&b->text);
    b->text.len = 0;
    if (!s) return -1;
    const char *attr = b->tail ? "tail" : "text";
    PyObject *old = PyObject_GetAttrString(b->target, attr);
    int rc;
    if (old && old != Py_None) {
        PyObject *cat = PyUnicode_Concat(old, s);
        rc = cat ? PyObject_SetAttrString(b->target, attr, cat) : -1;
        Py_XDECREF(cat);
    } else {
        rc = old ? PyObject_SetAttrString(b->target, attr, s) : -1;
    }
    Py_XDECREF(old);
    Py_DECREF(s);
    return rc;
}

static PyObject *attrs_dict(RecordsIter *it, const stax_batch *t, size_t i, const char *prefix) {
    PyObject *d = PyDict_New();
    for (size_t k = 0; d && k < stax_ev_attr_count(t, i); k++) {
        PyObject *n = clark_name(it->ns, stax_ev_attr_name(t, i, k), stax_ev_attr_qname(t, i, k));
        if (n && prefix) Py_SETREF(n, PyUnicode_FromFormat("%s%U", prefix, n));
        PyObject *v = n ? str_of(stax_ev_attr_value(t, i, k)) : NULL;
        if (!v || PyDict_SetItem(d, n, v) < 0) Py_CLEAR(d);
        Py_XDECREF(n);
        Py_XDECREF(v);
    }
    return d;
}

static int builder_push_elem(builder *b, PyObject *e) {
    if (b->nstack == b->capstack) {
        size_t cap = b->capstack ? 2 * b->capstack : 16;
        PyObject **s = PyMem_Realloc(b->stack, cap * sizeof *s);
        if (!s) return PyErr_NoMemory(), -1;
        b->stack = s;
        b->capstack = cap;
    }
    b->stack[b->nstack++] = e;
    return 0;
}

/* Event i to builder b: 1 when the record is complete, 0, -1 raised. */
static int builder_event(RecordsIter *it, builder *b, const stax_batch *t, size_t i) {
    int type = stax_ev_type(t, i);
    uint32_t d = stax_ev_depth(t, i);
    if (!it->factory) {
        switch (type) {
        case STAX_EV_START:
            if (d == b->depth) {
                b->obj = attrs_dict(it, t, i, "@");
                return b->obj ? 0 : -1;
            }
            if (d == b->depth + 1) {
                Py_XSETREF(b->child, clark_name(it->ns, stax_ev_name(t, i), stax_ev_qname(t, i)));
                b->text.len = 0;
                return b->child ? 0 : -1;
            }
            return 0;
        case STAX_EV_TEXT:
        case STAX_EV_CDATA: {
            stax_str s = stax_ev_text(t, i);
            if (gbuf_put(d == b->depth ? &b->own : &b->text, s.ptr, s.len)) return PyErr_NoMemory(), -1;
            return 0;
        }
        case STAX_EV_END:
            if (d == b->depth + 1) {
                int rc = dict_add(b->obj, b->child, gbuf_str(&b->text));
                Py_CLEAR(b->child);
                return rc;
            }
            if (d == b->depth) {
                if (gbuf_has_nonspace(&b->own) && dict_add(b->obj, PyUnicode_FromString("#text") /* interned below */,
                                                           gbuf_str(&b->own)) < 0)
                    return -1;
                return 1;
            }
            return 0;
        }
        return 0;
    }
    switch (type) {
    case STAX_EV_START: {
        if (builder_flush_text(b) < 0) return -1;
        PyObject *tag = clark_name(it->ns, stax_ev_name(t, i), stax_ev_qname(t, i));
        PyObject *attrib = tag ? attrs_dict(it, t, i, NULL) : NULL;
        PyObject *e = attrib ? PyObject_CallFunctionObjArgs(it->factory, tag, attrib, NULL) : NULL;
        Py_XDECREF(tag);
        Py_XDECREF(attrib);
        if (!e) return -1;
        if (b->nstack) {
            PyObject *r = PyObject_CallMethod(b->stack[b->nstack - 1], "append", "O", e);
            if (!r) {
                Py_DECREF(e);
                return -1;
            }
            Py_DECREF(r);
        } else {
            b->obj = Py_NewRef(e);
        }
        Py_XSETREF(b->target, Py_NewRef(e));
        b->tail = 0;
        if (builder_push_elem(b, e) < 0) {
            Py_DECREF(e);
            return -1;
        }
        return 0;
    }
    case STAX_EV_TEXT:
    case STAX_EV_CDATA: {
        stax_str s = stax_ev_text(t, i);
        if (gbuf_put(&b->text, s.ptr, s.len)) return PyErr_NoMemory(), -1;
        return 0;
    }
    case STAX_EV_END:
        if (builder_flush_text(b) < 0) return -1;
        Py_XSETREF(b->target, b->stack[--b->nstack]); /* the stack's reference moves */
        b->tail = 1;
        return b->nstack == 0;
    }
    return 0;
}

/* The events of batch t from `from` on, through the builders (new ones at
 * the matched starts). 0, or -1 raised. */
static int records_walk(RecordsIter *it, const stax_batch *t) {
    size_t next = 0;
    for (size_t i = 0; i < t->count; i++) {
        if (next < it->nstarts && it->starts[next] == i) {
            next++;
            if (it->nb == it->capb) {
                size_t cap = it->capb ? 2 * it->capb : 4;
                builder *nb = PyMem_Realloc(it->bs, cap * sizeof *nb);
                if (!nb) return PyErr_NoMemory(), -1;
                it->bs = nb;
                it->capb = cap;
            }
            builder *b = &it->bs[it->nb++];
            memset(b, 0, sizeof *b);
            b->depth = stax_ev_depth(t, i);
        }
        if (!it->nb) { /* skip to the next matched start */
            if (next >= it->nstarts) break;
            i = it->starts[next] - 1;
            continue;
        }
        for (size_t k = 0; k < it->nb; k++) {
            builder *b = &it->bs[k];
            int rc = builder_event(it, b, t, i);
            if (rc < 0) return -1;
            if (rc == 1) {
                if (PyList_Append(it->done, b->obj) < 0) return -1;
                builder_clear(b);
                memmove(b, b + 1, (it->nb - k - 1) * sizeof *b);
                it->nb--;
                k--;
            }
        }
    }
    return 0;
}

static PyObject *RecordsIter_next(RecordsIter *it) {
    if (busy_refused(it->busy)) return NULL;
    for (;;) {
        if (it->at < PyList_GET_SIZE(it->done)) {
            PyObject *r = PyList_GET_ITEM(it->done, it->at);
            Py_INCREF(r);
            if (++it->at == PyList_GET_SIZE(it->done)) {
                if (PyList_SetSlice(it->done, 0, it->at, NULL) < 0) return NULL;
                it->at = 0;
            }
            return r;
        }
        if (it->status != STAX_OK) {
            if (it->status == STAX_END) return NULL;
            if (it->status == PYERR && it->oom) return PyErr_NoMemory();
            if (it->status == PYERR + 1) {
                PyErr_Format(SelectError, "select: %s", stax_select_message(it->sel));
                return NULL;
            }
            core_raise(&it->c, it->status);
            it->status = STAX_E_IO;
            return NULL;
        }
        const stax_batch *b = NULL;
        int st = STAX_OK, sst = STAX_OK;
        it->nstarts = 0;
#define REC_LOOP \
    while ((st = core_next(&it->c, &b)) == STAX_OK) { \
        it->nstarts = 0; \
        if ((sst = stax_select_batch(it->sel, b)) != STAX_OK) break; \
        if (it->nstarts || it->nb) break; \
    }
        if (core_nogil(&it->c)) {
            it->busy = 1;
            Py_BEGIN_ALLOW_THREADS
            REC_LOOP
            Py_END_ALLOW_THREADS
            it->busy = 0;
        } else {
            REC_LOOP
        }
#undef REC_LOOP
        if (st == PYERR && !it->c.err) return NULL;
        if (sst != STAX_OK) {
            it->status = it->oom ? PYERR : PYERR + 1;
            continue;
        }
        if (st != STAX_OK) {
            it->status = st;
            if (st == STAX_END && it->open) {
                core_close(&it->c);
                it->open = 0;
            }
            continue;
        }
        if (records_walk(it, b) < 0) return NULL;
    }
}

static PyTypeObject RecordsIterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "stax._stax.RecordsIter",
    .tp_basicsize = sizeof(RecordsIter),
    .tp_dealloc = (destructor)RecordsIter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The records of stax.records, built as they are iterated.",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)RecordsIter_next,
};

/* records(source, path, factory=None, namespaces=None, **options) */
static PyObject *py_records(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *source, *path, *factory = Py_None, *ns = Py_None;
    if (!PyArg_ParseTuple(args, "OU|OO:records", &source, &path, &factory, &ns)) return NULL;
    opts o;
    if (opts_parse(&o, kw, select_extra) < 0) return NULL;
    if (ns != Py_None && PyObject_IsTrue(ns)) o.ro.flags |= STAX_READ_NAMESPACES;
    RecordsIter *it = PyObject_New(RecordsIter, &RecordsIterType);
    if (!it) return NULL;
    memset((char *)it + sizeof(PyObject), 0, sizeof *it - sizeof(PyObject));
    it->ns = (o.ro.flags & STAX_READ_NAMESPACES) != 0;
    if (factory != Py_None) {
        Py_INCREF(factory);
        it->factory = factory;
    }
    size_t ncols;
    unsigned long long first = 0;
    it->done = PyList_New(0);
    if (it->done) it->sel = select_make(NULL, &o, path, NULL, ns, STAX_SELECT_NO_VALUES, &ncols, &first);
    if (!it->sel || core_open(&it->c, source, &o) < 0) {
        Py_DECREF(it);
        return NULL;
    }
    it->open = 1;
    stax_select_set_output(it->sel, rec_piece, it);
    return (PyObject *)it;
}

/* ---------------------------------------------------------------- Writer */

typedef struct Writer {
    PyObject_HEAD
    stax_writer *w;
    PyObject *sink;     /* a callable taking bytes (a file's write), or NULL: in memory */
    PyObject *exc;      /* what the sink raised (re-raised by the call) */
    Py_ssize_t blocked; /* the sink raised BlockingIOError: bytes it took */
} Writer;

/* The sink: n of len taken (an int), None for all of them, or
 * BlockingIOError (its characters_written taken). */
static ptrdiff_t writer_sink(void *ctx, const void *data, size_t len) {
    Writer *W = ctx;
    PyObject *b = PyBytes_FromStringAndSize(data, (Py_ssize_t)len);
    if (!b) goto fail;
    PyObject *r = PyObject_CallOneArg(W->sink, b);
    Py_DECREF(b);
    if (!r) {
        if (PyErr_ExceptionMatches(PyExc_BlockingIOError)) {
            PyObject *t, *v, *tb;
            PyErr_Fetch(&t, &v, &tb);
            PyErr_NormalizeException(&t, &v, &tb);
            Py_ssize_t n = 0;
            PyObject *cw = v ? PyObject_GetAttrString(v, "characters_written") : NULL;
            if (cw) n = PyLong_AsSsize_t(cw);
            PyErr_Clear();
            Py_XDECREF(cw);
            Py_XDECREF(t);
            Py_XDECREF(v);
            Py_XDECREF(tb);
            return n < 0 ? 0 : (size_t)n > len ? (ptrdiff_t)len : (ptrdiff_t)n;
        }
        goto fail;
    }
    if (r == Py_None) {
        Py_DECREF(r);
        return (ptrdiff_t)len;
    }
    Py_ssize_t n = PyLong_AsSsize_t(r);
    Py_DECREF(r);
    if (n == -1 && PyErr_Occurred()) goto fail;
    if (n < 0 || (size_t)n > len) {
        PyErr_SetString(PyExc_ValueError, "the sink returned more than it was given, or less than 0");
        goto fail;
    }
    return n;
fail:
    if (!W->exc) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        if (tb) PyException_SetTraceback(v, tb);
        W->exc = v;
        Py_XDECREF(t);
        Py_XDECREF(tb);
    }
    PyErr_Clear();
    return STAX_E_IO;
}

/* A call's status: None (STAX_OK), BlockingIOError, or the exception. */
static PyObject *writer_result(Writer *W, int st) {
    if (st == STAX_OK) Py_RETURN_NONE;
    if (W->exc) {
        PyObject *e = W->exc;
        W->exc = NULL;
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
        return NULL;
    }
    if (st == STAX_WOULD_BLOCK) {
        PyErr_SetString(PyExc_BlockingIOError, "the sink took less than offered: repeat the same call later");
        return NULL;
    }
    PyObject *e = PyObject_CallFunction(WriterError, "s", W->w ? stax_writer_message(W->w) : "writer closed");
    if (e) {
        PyObject *c = PyLong_FromLong(st);
        if (c) PyObject_SetAttrString(e, "code", c);
        Py_XDECREF(c);
        PyErr_SetObject(WriterError, e);
        Py_DECREF(e);
    }
    return NULL;
}

static void Writer_dealloc(Writer *W) {
    stax_writer_free(W->w);
    Py_XDECREF(W->sink);
    Py_XDECREF(W->exc);
    Py_TYPE(W)->tp_free((PyObject *)W);
}

static int writer_options(PyObject *kw, stax_writer_options *wo, char *indent) {
    memset(wo, 0, sizeof *wo);
    if (!kw) return 0;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kw, &pos, &k, &v)) {
        const char *n = PyUnicode_AsUTF8(k);
        if (!n) return -1;
        if (!strcmp(n, "buffer_size")) { if (opt_size(v, &wo->buffer_size) < 0) return -1; }
        else if (!strcmp(n, "stack_size")) { if (opt_size(v, &wo->stack_size) < 0) return -1; }
        else if (!strcmp(n, "self_close")) { if (opt_flag(v, &wo->flags, STAX_WRITE_SELF_CLOSE) < 0) return -1; }
        else if (!strcmp(n, "sticky")) { if (opt_flag(v, &wo->flags, STAX_WRITE_STICKY) < 0) return -1; }
        else if (!strcmp(n, "indent")) {
            if (v == Py_None) continue;
            if (PyLong_Check(v)) {
                size_t w;
                if (opt_size(v, &w) < 0) return -1;
                wo->indent_width = (unsigned)(w > 1000 ? 1000 : w);
            } else {
                const char *s = PyUnicode_AsUTF8(v);
                if (!s) return -1;
                if (strlen(s) > 64) {
                    PyErr_SetString(PyExc_ValueError, "indent: at most 64 spaces or tabs");
                    return -1;
                }
                strcpy(indent, s);
                wo->indent = indent;
            }
        } else {
            PyErr_Format(PyExc_TypeError, "unknown writer option '%s'", n);
            return -1;
        }
    }
    return 0;
}

static PyObject *Writer_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *sink = Py_None;
    if (!PyArg_ParseTuple(args, "|O:Writer", &sink)) return NULL;
    stax_writer_options wo;
    char indent[65];
    if (writer_options(kw, &wo, indent) < 0) return NULL;
    const char *why = NULL;
    if (stax_writer_check_options(&wo, &why) != STAX_OK) {
        PyErr_Format(PyExc_ValueError, "writer options: %s", why ? why : "refused");
        return NULL;
    }
    Writer *W = (Writer *)type->tp_alloc(type, 0);
    if (!W) return NULL;
    W->w = stax_writer_new(&wo);
    if (!W->w) {
        Py_DECREF(W);
        return PyErr_NoMemory();
    }
    if (sink == Py_None) {
        stax_writer_set_memory(W->w, NULL, 0);
    } else {
        if (PyCallable_Check(sink)) {
            Py_INCREF(sink);
            W->sink = sink;
        } else if (!(W->sink = PyObject_GetAttrString(sink, "write"))) {
            Py_DECREF(W);
            PyErr_SetString(PyExc_TypeError, "Writer(sink): a callable taking bytes, a binary file, or None");
            return NULL;
        }
        stax_writer_set_sink(W->w, writer_sink, W);
    }
    return (PyObject *)W;
}

/* A str or bytes-like argument as a stax_str (valid while the object lives). */
static int as_str(PyObject *o, stax_str *s) {
    if (o == Py_None) {
        s->ptr = "";
        s->len = 0;
        return 0;
    }
    if (PyUnicode_IS_COMPACT_ASCII(o) && PyUnicode_CheckExact(o)) { /* its bytes are its UTF-8 */
        s->ptr = (const char *)PyUnicode_DATA(o);
        s->len = (size_t)PyUnicode_GET_LENGTH(o);
        return 0;
    }
    if (PyUnicode_Check(o)) {
        Py_ssize_t n;
        s->ptr = PyUnicode_AsUTF8AndSize(o, &n);
        s->len = (size_t)n;
        return s->ptr ? 0 : -1;
    }
    if (PyBytes_Check(o)) {
        s->ptr = PyBytes_AS_STRING(o);
        s->len = (size_t)PyBytes_GET_SIZE(o);
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "expected str or bytes, not %.80s", Py_TYPE(o)->tp_name);
    return -1;
}

static int writer_attrs(Writer *W, PyObject *attrs) {
    if (!attrs || attrs == Py_None) return STAX_OK;
    PyObject *items = PyDict_Check(attrs) ? PyDict_Items(attrs) : PySequence_List(attrs);
    if (!items) return PYERR;
    int st = STAX_OK;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items) && st == STAX_OK; i++) {
        PyObject *kv = PyList_GET_ITEM(items, i);
        stax_str k, v;
        if (!PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2) {
            PyErr_SetString(PyExc_TypeError, "attributes: a dict, or (name, value) pairs");
            st = PYERR;
        } else if (as_str(PyTuple_GET_ITEM(kv, 0), &k) < 0 || as_str(PyTuple_GET_ITEM(kv, 1), &v) < 0) {
            st = PYERR;
        } else {
            st = stax_writer_attr(W->w, k, v);
        }
    }
    Py_DECREF(items);
    return st;
}

#define WRITER_CHECK(W) \
    if (!(W)->w) { \
        PyErr_SetString(PyExc_ValueError, "the writer is closed"); \
        return NULL; \
    }

static PyObject *done(Writer *W, int st) { return st == PYERR ? NULL : writer_result(W, st); }

static PyObject *Writer_start(Writer *W, PyObject *args) {
    PyObject *name, *attrs = Py_None;
    stax_str n;
    WRITER_CHECK(W);
    if (!PyArg_ParseTuple(args, "O|O:start", &name, &attrs) || as_str(name, &n) < 0) return NULL;
    int st = stax_writer_start(W->w, n);
    if (st == STAX_OK) st = writer_attrs(W, attrs);
    return done(W, st);
}

#define WRITER_2STR(fname, call, fmt) \
    static PyObject *fname(Writer *W, PyObject *args) { \
        PyObject *a, *b = Py_None; \
        stax_str x, y; \
        WRITER_CHECK(W); \
        if (!PyArg_ParseTuple(args, fmt, &a, &b) || as_str(a, &x) < 0 || as_str(b, &y) < 0) return NULL; \
        return done(W, call(W->w, x, y)); \
    }
#define WRITER_1STR(fname, call) \
    static PyObject *fname(Writer *W, PyObject *a) { \
        stax_str x; \
        WRITER_CHECK(W); \
        if (as_str(a, &x) < 0) return NULL; \
        return done(W, call(W->w, x)); \
    }
#define WRITER_0(fname, call) \
    static PyObject *fname(Writer *W, PyObject *unused) { \
        (void)unused; \
        WRITER_CHECK(W); \
        return done(W, call(W->w)); \
    }

static PyObject *Writer_attr(Writer *W, PyObject *args) {
    PyObject *a, *b;
    stax_str x, y;
    WRITER_CHECK(W);
    if (!PyArg_ParseTuple(args, "OO:attr", &a, &b) || as_str(a, &x) < 0) return NULL;
    if (PyLong_Check(b)) { /* exact digits: stax_writer_attr_int, or _uint past int64 */
        int over;
        long long v = PyLong_AsLongLongAndOverflow(b, &over);
        if (over > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(b);
            if (PyErr_Occurred()) return NULL;
            return done(W, stax_writer_attr_uint(W->w, x, u));
        }
        if (over < 0 || (v == -1 && PyErr_Occurred())) return PyErr_Format(PyExc_OverflowError, "integer out of range");
        return done(W, stax_writer_attr_int(W->w, x, v));
    }
    if (as_str(b, &y) < 0) return NULL;
    return done(W, stax_writer_attr(W->w, x, y));
}

/* The decimal forms: v / 10^frac with exactly frac digits after the point. */
static PyObject *Writer_text_dec(Writer *W, PyObject *args) {
    long long v;
    unsigned frac;
    WRITER_CHECK(W);
    if (!PyArg_ParseTuple(args, "LI:text_dec", &v, &frac)) return NULL;
    return done(W, stax_writer_text_dec(W->w, v, frac));
}

static PyObject *Writer_attr_dec(Writer *W, PyObject *args) {
    PyObject *a;
    long long v;
    unsigned frac;
    stax_str x;
    WRITER_CHECK(W);
    if (!PyArg_ParseTuple(args, "OLI:attr_dec", &a, &v, &frac) || as_str(a, &x) < 0) return NULL;
    return done(W, stax_writer_attr_dec(W->w, x, v, frac));
}

static PyObject *Writer_element_dec(Writer *W, PyObject *args) {
    PyObject *a;
    long long v;
    unsigned frac;
    stax_str x;
    WRITER_CHECK(W);
    if (!PyArg_ParseTuple(args, "OLI:element_dec", &a, &v, &frac) || as_str(a, &x) < 0) return NULL;
    return done(W, stax_writer_element_dec(W->w, x, v, frac));
}
WRITER_2STR(Writer_ns, stax_writer_ns, "OO:ns")
WRITER_2STR(Writer_pi, stax_writer_pi, "O|O:pi")
WRITER_1STR(Writer_cdata, stax_writer_cdata)
WRITER_1STR(Writer_comment, stax_writer_comment)
WRITER_1STR(Writer_raw, stax_writer_raw)
WRITER_0(Writer_end, stax_writer_end)
WRITER_0(Writer_flush, stax_writer_flush)
WRITER_0(Writer_finish, stax_writer_finish)

static PyObject *Writer_text(Writer *W, PyObject *a) {
    stax_str x;
    WRITER_CHECK(W);
    if (PyLong_Check(a)) {
        int over;
        long long v = PyLong_AsLongLongAndOverflow(a, &over);
        if (over > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(a);
            if (PyErr_Occurred()) return NULL;
            return done(W, stax_writer_text_uint(W->w, u));
        }
        if (over < 0 || (v == -1 && PyErr_Occurred())) return PyErr_Format(PyExc_OverflowError, "integer out of range");
        return done(W, stax_writer_text_int(W->w, v));
    }
    if (as_str(a, &x) < 0) return NULL;
    return done(W, stax_writer_text(W->w, x));
}

static PyObject *Writer_element(Writer *W, PyObject *args) {
    PyObject *name, *text = Py_None;
    stax_str n, t;
    WRITER_CHECK(W);
    if (!PyArg_ParseTuple(args, "O|O:element", &name, &text) || as_str(name, &n) < 0) return NULL;
    if (PyLong_Check(text)) {
        int over;
        long long v = PyLong_AsLongLongAndOverflow(text, &over);
        if (over > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(text);
            if (PyErr_Occurred()) return NULL;
            return done(W, stax_writer_element_uint(W->w, n, u));
        }
        if (over < 0 || (v == -1 && PyErr_Occurred())) return PyErr_Format(PyExc_OverflowError, "integer out of range");
        return done(W, stax_writer_element_int(W->w, n, v));
    }
    if (as_str(text, &t) < 0) return NULL;
    return done(W, stax_writer_element(W->w, n, t));
}

static PyObject *Writer_xml_decl(Writer *W, PyObject *args, PyObject *kw) {
    static char *kws[] = {"version", "encoding", "standalone", NULL};
    PyObject *ver = Py_None, *enc = Py_None, *sa = Py_None;
    stax_str v, e;
    WRITER_CHECK(W);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO:xml_decl", kws, &ver, &enc, &sa) || as_str(ver, &v) < 0 ||
        as_str(enc, &e) < 0)
        return NULL;
    unsigned s = 0;
    if (sa != Py_None) s = PyObject_IsTrue(sa) ? STAX_EVF_STANDALONE_YES : STAX_EVF_STANDALONE_NO;
    return done(W, stax_writer_xml_decl(W->w, v, e, s));
}

static PyObject *Writer_doctype(Writer *W, PyObject *args, PyObject *kw) {
    static char *kws[] = {"name", "pubid", "sysid", "subset", NULL};
    PyObject *n = NULL, *p = Py_None, *s = Py_None, *sub = Py_None;
    stax_str a, b, c, d;
    WRITER_CHECK(W);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO:doctype", kws, &n, &p, &s, &sub) || as_str(n, &a) < 0 ||
        as_str(p, &b) < 0 || as_str(s, &c) < 0 || as_str(sub, &d) < 0)
        return NULL;
    return done(W, stax_writer_doctype(W->w, a, b, c, d));
}

static PyObject *Writer_getvalue(Writer *W, PyObject *unused) {
    (void)unused;
    WRITER_CHECK(W);
    stax_str m = stax_writer_memory(W->w);
    return PyBytes_FromStringAndSize(m.ptr ? m.ptr : "", (Py_ssize_t)m.len);
}

static PyObject *Writer_close(Writer *W, PyObject *unused) {
    (void)unused;
    stax_writer_free(W->w);
    W->w = NULL;
    Py_RETURN_NONE;
}

static PyObject *Writer_enter(Writer *W, PyObject *unused) {
    (void)unused;
    Py_INCREF(W);
    return (PyObject *)W;
}

static PyObject *Writer_exit(Writer *W, PyObject *args) {
    if (W->w && PyTuple_GET_SIZE(args) && PyTuple_GET_ITEM(args, 0) == Py_None) {
        PyObject *r = done(W, stax_writer_finish(W->w));
        if (!r) return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_FALSE;
}

static PyObject *Writer_depth(Writer *W, void *c) {
    (void)c;
    return PyLong_FromUnsignedLong(W->w ? stax_writer_depth(W->w) : 0);
}

static PyObject *Writer_bytes_out(Writer *W, void *c) {
    (void)c;
    return PyLong_FromUnsignedLongLong(W->w ? stax_writer_bytes_out(W->w) : 0);
}

/* ---------------------------------------------------------------- trees */

/* Element trees (xml.etree.ElementTree, lxml) and domish-shaped objects
 * through a writer. The namespace bookkeeping is done here, minimally: the
 * bindings in scope, a prefix found for each namespace URI (the one in
 * scope; else lxml's nsmap, ElementTree's registered prefixes, or ns0,
 * ns1, ...), declared where first used. */
static PyObject *et_comment, *et_pi;   /* tuples of the Comment and PI factories (ElementTree, lxml) */
static PyObject *et_nsmap;             /* ElementTree's registered prefixes {uri: prefix} */
static PyObject *s_tag, *s_text, *s_tail, *s_attrib, *s_nsmap, *s_target, *s_items, *s_empty, *s_xml_ns, *s_xml;
static PyObject *s_name, *s_uri, *s_defaultUri, *s_attributes, *s_children, *s_localPrefixes, *s_xmlns;

static int ns_generated(PyObject *p);

typedef struct nsent {
    PyObject *prefix, *uri; /* owned */
} nsent;

typedef struct nsscope {
    nsent *e;
    size_t n, cap;
    unsigned counter;
} nsscope;

static void scope_pop(nsscope *s, size_t to) {
    while (s->n > to) {
        s->n--;
        Py_DECREF(s->e[s->n].prefix);
        Py_DECREF(s->e[s->n].uri);
    }
}

static void scope_free(nsscope *s) {
    scope_pop(s, 0);
    PyMem_Free(s->e);
    s->e = NULL;
    s->cap = 0;
}

static int scope_push(nsscope *s, PyObject *prefix, PyObject *uri) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        nsent *e = PyMem_Realloc(s->e, cap * sizeof *e);
        if (!e) return PyErr_NoMemory(), -1;
        s->e = e;
        s->cap = cap;
    }
    Py_INCREF(prefix);
    Py_INCREF(uri);
    s->e[s->n].prefix = prefix;
    s->e[s->n].uri = uri;
    s->n++;
    return 0;
}

static int str_eq(PyObject *a, PyObject *b) { return a == b || PyUnicode_Compare(a, b) == 0; }

/* The URI prefix is bound to in scope (borrowed), or NULL. */
static PyObject *scope_uri(const nsscope *s, PyObject *prefix) {
    for (size_t j = s->n; j-- > 0;)
        if (str_eq(s->e[j].prefix, prefix)) return s->e[j].uri;
    return NULL;
}

/* A prefix bound to uri in scope and not shadowed (borrowed), or NULL. */
static PyObject *scope_prefix(const nsscope *s, PyObject *uri, int nonempty) {
    for (size_t j = s->n; j-- > 0;) {
        if (!str_eq(s->e[j].uri, uri) || (nonempty && PyUnicode_GET_LENGTH(s->e[j].prefix) == 0)) continue;
        PyObject *u = scope_uri(s, s->e[j].prefix);
        if (u && str_eq(u, uri)) return s->e[j].prefix;
    }
    return NULL;
}

/* The prefix for uri (a new reference), declared on the start tag written
 * last when it is not in scope. frame: where this element's bindings begin. */
static PyObject *ns_prefix(stax_writer *w, nsscope *s, size_t frame, PyObject *uri, PyObject *elem, int nonempty,
                           int *st) {
    if (str_eq(uri, s_xml_ns)) return Py_NewRef(s_xml);
    PyObject *p = scope_prefix(s, uri, nonempty);
    if (p) return Py_NewRef(p);
    PyObject *cand = NULL;
    PyObject *nsmap = elem ? PyObject_GetAttr(elem, s_nsmap) : NULL; /* lxml */
    if (!nsmap) PyErr_Clear();
    else if (PyDict_Check(nsmap)) {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(nsmap, &pos, &k, &v))
            if (PyUnicode_Check(v) && str_eq(v, uri)) {
                if (k == Py_None) {
                    if (!nonempty) cand = Py_NewRef(s_empty);
                } else if (PyUnicode_Check(k)) {
                    cand = Py_NewRef(k);
                }
                if (cand) break;
            }
    }
    Py_XDECREF(nsmap);
    if (!cand && et_nsmap) {
        PyObject *r = PyDict_GetItemWithError(et_nsmap, uri);
        if (r && PyUnicode_Check(r) && !ns_generated(r)) cand = Py_NewRef(r);
    }
    for (;;) { /* a prefix not bound on this element already */
        int clash = 0;
        if (cand)
            for (size_t j = frame; j < s->n; j++) clash |= str_eq(s->e[j].prefix, cand);
        if (cand && !clash) break;
        Py_XDECREF(cand);
        cand = PyUnicode_FromFormat("ns%u", s->counter++);
        if (!cand) return NULL;
    }
    stax_str ps, us;
    if (as_str(cand, &ps) < 0 || as_str(uri, &us) < 0 || scope_push(s, cand, uri) < 0) {
        Py_DECREF(cand);
        return NULL;
    }
    *st = stax_writer_ns(w, ps, us);
    return cand;
}

/* ElementTree's own ns0, ns1, ... (registered as it writes): not kept. */
static int ns_generated(PyObject *p) {
    return PyUnicode_GET_LENGTH(p) > 2 && PyUnicode_READ_CHAR(p, 0) == 'n' && PyUnicode_READ_CHAR(p, 1) == 's' &&
           Py_UNICODE_ISDIGIT(PyUnicode_READ_CHAR(p, 2));
}

/* "{uri}local" into uri and local (new references; uri NULL when none). */
static int split_clark(PyObject *name, PyObject **uri, PyObject **local) {
    *uri = NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    if (n && PyUnicode_READ_CHAR(name, 0) == '{') {
        Py_ssize_t close = PyUnicode_FindChar(name, '}', 1, n, 1);
        if (close > 0) {
            *uri = PyUnicode_Substring(name, 1, close);
            *local = PyUnicode_Substring(name, close + 1, n);
            if (!*uri || !*local) return -1;
            return 0;
        }
    }
    *local = Py_NewRef(name);
    return 0;
}

static int in_tuple(PyObject *t, PyObject *o) {
    if (!t) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++)
        if (PyTuple_GET_ITEM(t, i) == o) return 1;
    return 0;
}

/* A qualified name "prefix:local" (or local) as a new str. */
static PyObject *qualify(PyObject *prefix, PyObject *local) {
    if (!prefix || !PyUnicode_GET_LENGTH(prefix)) return Py_NewRef(local);
    return PyUnicode_FromFormat("%U:%U", prefix, local);
}

static int et_text(stax_writer *w, PyObject *elem, PyObject *which) {
    PyObject *t = PyObject_GetAttr(elem, which);
    if (!t) return PYERR;
    int st = STAX_OK;
    if (t != Py_None) {
        stax_str s;
        st = as_str(t, &s) < 0 ? PYERR : s.len ? stax_writer_text(w, s) : STAX_OK;
    }
    Py_DECREF(t);
    return st;
}

/* An ElementTree or lxml element (its tail not included). */
static int et_write(stax_writer *w, nsscope *s, PyObject *elem) {
    PyObject *tag = PyObject_GetAttr(elem, s_tag);
    if (!tag) return PYERR;
    int st = STAX_OK;
    if (!PyUnicode_Check(tag)) { /* a comment, a processing instruction, or skipped (lxml's entities) */
        stax_str a, b;
        PyObject *text = PyObject_GetAttr(elem, s_text), *target = NULL;
        if (!text) st = PYERR;
        else if (in_tuple(et_comment, tag)) {
            st = as_str(text, &a) < 0 ? PYERR : stax_writer_comment(w, a);
        } else if (in_tuple(et_pi, tag)) {
            target = PyObject_GetAttr(elem, s_target); /* lxml; ElementTree: "target data" in text */
            if (!target) {
                PyErr_Clear();
                PyObject *parts = PyUnicode_Split(text, NULL, 1);
                if (!parts) st = PYERR;
                else {
                    target = Py_NewRef(PyList_GET_ITEM(parts, 0));
                    Py_SETREF(text, PyList_GET_SIZE(parts) > 1 ? Py_NewRef(PyList_GET_ITEM(parts, 1)) : Py_NewRef(s_empty));
                    Py_DECREF(parts);
                }
            }
            if (st == STAX_OK) st = as_str(target, &a) < 0 || as_str(text, &b) < 0 ? PYERR : stax_writer_pi(w, a, b);
        }
        Py_XDECREF(text);
        Py_XDECREF(target);
        Py_DECREF(tag);
        return st;
    }
    if (Py_EnterRecursiveCall(" in stax.tostring")) {
        Py_DECREF(tag);
        return PYERR;
    }
    size_t frame = s->n;
    PyObject *uri, *local, *prefix = NULL, *qname = NULL, *attrib = NULL, *items = NULL, *it = NULL, *child;
    if (split_clark(tag, &uri, &local) < 0) {
        st = PYERR;
        goto out;
    }
    /* lxml: the bindings its nsmap holds that are not in scope, declared
     * here as lxml declares them */
    PyObject *nsmap = PyObject_GetAttr(elem, s_nsmap);
    if (!nsmap) PyErr_Clear();
    else if (PyDict_Check(nsmap)) {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (st == STAX_OK && PyDict_Next(nsmap, &pos, &k, &v)) {
            PyObject *p = k == Py_None ? s_empty : k, *u;
            if (!PyUnicode_Check(p) || !PyUnicode_Check(v) || str_eq(p, s_xml)) continue;
            if (!((u = scope_uri(s, p)) && str_eq(u, v)) && scope_push(s, p, v) < 0) st = PYERR;
        }
    }
    Py_XDECREF(nsmap);
    size_t declared = s->n;
    if (st != STAX_OK) goto out;
    /* the element's prefix: bound in scope, else declared after the start */
    PyObject *bound = uri ? scope_prefix(s, uri, 0) : NULL;
    int need_decl = uri && !bound && !str_eq(uri, s_xml_ns);
    if (!uri) {
        PyObject *d = scope_uri(s, s_empty); /* no namespace: undeclare a default one */
        if (d && PyUnicode_GET_LENGTH(d)) {
            qname = Py_NewRef(local);
            stax_str q;
            if (as_str(qname, &q) < 0) st = PYERR;
            else if ((st = stax_writer_start(w, q)) == STAX_OK)
                st = stax_writer_attr(w, stax_strz("xmlns"), stax_strz(""));
            if (st == STAX_OK && scope_push(s, s_empty, s_empty) < 0) st = PYERR;
        }
    }
    if (st == STAX_OK && !qname) {
        if (need_decl) { /* the name needs its prefix before the start: pick it first */
            int dst = STAX_OK; /* the prefix chosen as ns_prefix would, then the start, then its declaration */
            PyObject *cand = NULL;
            PyObject *nsmap = PyObject_GetAttr(elem, s_nsmap);
            if (!nsmap) PyErr_Clear();
            else if (PyDict_Check(nsmap)) {
                PyObject *k, *v;
                Py_ssize_t pos = 0;
                while (!cand && PyDict_Next(nsmap, &pos, &k, &v))
                    if (PyUnicode_Check(v) && str_eq(v, uri)) cand = Py_NewRef(k == Py_None ? s_empty : k);
            }
            Py_XDECREF(nsmap);
            if (!cand && et_nsmap) {
                PyObject *r = PyDict_GetItemWithError(et_nsmap, uri);
                if (r && PyUnicode_Check(r) && !ns_generated(r)) cand = Py_NewRef(r);
            }
            if (!cand) cand = PyUnicode_FromFormat("ns%u", s->counter++);
            if (!cand) {
                st = PYERR;
                goto out;
            }
            prefix = cand;
            qname = qualify(prefix, local);
            stax_str q, ps, us;
            if (!qname || as_str(qname, &q) < 0 || as_str(prefix, &ps) < 0 || as_str(uri, &us) < 0) st = PYERR;
            else if ((st = stax_writer_start(w, q)) == STAX_OK && (dst = stax_writer_ns(w, ps, us)) != STAX_OK) st = dst;
            if (st == STAX_OK && scope_push(s, prefix, uri) < 0) st = PYERR;
        } else {
            prefix = bound ? Py_NewRef(bound) : uri ? Py_NewRef(s_xml) : NULL;
            qname = qualify(prefix, local);
            stax_str q;
            st = !qname || as_str(qname, &q) < 0 ? PYERR : stax_writer_start(w, q);
        }
    }
    for (size_t j = frame; st == STAX_OK && j < declared; j++) {
        stax_str ps, us;
        st = as_str(s->e[j].prefix, &ps) < 0 || as_str(s->e[j].uri, &us) < 0 ? PYERR : stax_writer_ns(w, ps, us);
    }
    /* attributes */
    if (st == STAX_OK && (attrib = PyObject_GetAttr(elem, s_attrib)) == NULL) st = PYERR;
    if (st == STAX_OK && attrib != Py_None && (items = PyMapping_Items(attrib)) == NULL) st = PYERR;
    for (Py_ssize_t i = 0; st == STAX_OK && items && i < PyList_GET_SIZE(items); i++) {
        PyObject *kv = PyList_GET_ITEM(items, i), *k = PyTuple_GET_ITEM(kv, 0), *auri, *alocal, *ap = NULL, *an;
        stax_str a, v;
        if (!PyUnicode_Check(k) || split_clark(k, &auri, &alocal) < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "attribute names are str");
            st = PYERR;
            break;
        }
        if (auri) ap = ns_prefix(w, s, frame, auri, elem, 1, &st);
        an = (!auri || ap) ? qualify(ap, alocal) : NULL;
        if (st == STAX_OK)
            st = !an || as_str(an, &a) < 0 || as_str(PyTuple_GET_ITEM(kv, 1), &v) < 0 ? PYERR : stax_writer_attr(w, a, v);
        Py_XDECREF(auri);
        Py_XDECREF(alocal);
        Py_XDECREF(ap);
        Py_XDECREF(an);
    }
    if (st == STAX_OK) st = et_text(w, elem, s_text);
    if (st == STAX_OK && (it = PyObject_GetIter(elem)) == NULL) st = PYERR;
    while (st == STAX_OK && it && (child = PyIter_Next(it)) != NULL) {
        st = et_write(w, s, child);
        if (st == STAX_OK) st = et_text(w, child, s_tail);
        Py_DECREF(child);
    }
    if (st == STAX_OK && PyErr_Occurred()) st = PYERR;
    if (st == STAX_OK) st = stax_writer_end(w);
out:
    scope_pop(s, frame);
    Py_XDECREF(uri);
    Py_XDECREF(local);
    Py_XDECREF(prefix);
    Py_XDECREF(qname);
    Py_XDECREF(attrib);
    Py_XDECREF(items);
    Py_XDECREF(it);
    Py_DECREF(tag);
    Py_LeaveRecursiveCall();
    return st;
}

/* domish (twisted.words.xish.domish) elements: name, uri, defaultUri,
 * attributes (a str key, or (uri, name)), children (str, or elements),
 * localPrefixes; the rules of domish's own serializer, with the default
 * namespace of the stream given. A child whose class is SerializedXML is
 * written as it is (raw). */
typedef struct dstate {
    PyObject *prefixes; /* {uri: prefix} */
    nsscope inscope;    /* prefixes declared in scope (uri unused: the prefix again) */
    unsigned counter;
} dstate;

/* name, uri, defaultUri, localPrefixes, attributes, children (new
 * references) into f; f[5] NULL (an error set) when one is missing. */
static void d_fields(PyObject *elem, PyObject **f) {
    PyObject *const names[6] = {s_name, s_uri, s_defaultUri, s_localPrefixes, s_attributes, s_children};
    PyObject **dp = _PyObject_GetDictPtr(elem), *dict = dp ? *dp : NULL;
    for (int i = 0; i < 6; i++) {
        PyObject *v = dict ? PyDict_GetItemWithError(dict, names[i]) : NULL;
        if (v) f[i] = Py_NewRef(v);
        else if (PyErr_Occurred() || !(f[i] = PyObject_GetAttr(elem, names[i]))) {
            for (int j = 0; j < i; j++) Py_CLEAR(f[j]);
            return;
        }
    }
}

static int d_in_scope(dstate *d, PyObject *prefix) {
    for (size_t j = 0; j < d->inscope.n; j++)
        if (str_eq(d->inscope.e[j].prefix, prefix)) return 1;
    return 0;
}

/* The prefix domish's serializer has for uri (borrowed; the XML namespace's
 * is xml), or NULL (an error set when one was raised). */
static PyObject *d_known(dstate *d, PyObject *uri) {
    if (PyUnicode_Check(uri) && str_eq(uri, s_xml_ns)) return s_xml;
    return d->prefixes ? PyDict_GetItemWithError(d->prefixes, uri) : NULL;
}

static int d_learn(dstate *d, PyObject *uri, PyObject *prefix) {
    if (!d->prefixes && !(d->prefixes = PyDict_New())) return -1;
    return PyDict_SetItem(d->prefixes, uri, prefix);
}

static PyObject *d_prefix(dstate *d, PyObject *uri) {
    PyObject *p = d_known(d, uri);
    if (p) return Py_NewRef(p);
    if (PyErr_Occurred()) return NULL;
    if (!d->prefixes && !(d->prefixes = PyDict_New())) return NULL;
    p = PyUnicode_FromFormat("xn%u", d->counter++);
    if (p && PyDict_SetItem(d->prefixes, uri, p) < 0) Py_CLEAR(p);
    return p;
}

static int d_neq(PyObject *a, PyObject *b) {
    if (a == b) return 0;
    if (a == Py_None || b == Py_None) return 1;
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b))
        return PyUnicode_GET_LENGTH(a) != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b) ||
               memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)PyUnicode_GET_LENGTH(a) * PyUnicode_KIND(a)) != 0;
    return PyObject_RichCompareBool(a, b, Py_NE);
}

static int d_write(stax_writer *w, dstate *d, PyObject *elem, PyObject *current) {
    if (PyUnicode_Check(elem)) {
        stax_str s;
        if (as_str(elem, &s) < 0) return PYERR;
        if (!PyUnicode_CheckExact(elem) && !strcmp(Py_TYPE(elem)->tp_name, "SerializedXML"))
            return stax_writer_raw(w, s);
        return s.len ? stax_writer_text(w, s) : STAX_OK;
    }
    if (Py_EnterRecursiveCall(" in stax.stanza")) return PYERR;
    int st = STAX_OK;
    size_t frame = d->inscope.n;
    PyObject *f[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    d_fields(elem, f);
    PyObject *name = f[0], *uri = f[1], *dflt = f[2], *lp = f[3], *attrs = f[4], *children = f[5];
    PyObject *prefix = NULL, *qname = NULL;
    if (!children) {
        st = PYERR;
        goto out;
    }
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    if (PyDict_Check(lp) && PyDict_GET_SIZE(lp))
        while (PyDict_Next(lp, &pos, &k, &v))
            if (d_learn(d, v, k) < 0 || scope_push(&d->inscope, k, k) < 0) {
                st = PYERR;
                goto out;
            }
    if (dflt == Py_None) Py_SETREF(dflt, Py_NewRef(current));
    if (uri == Py_None) Py_SETREF(uri, Py_NewRef(dflt));
    int in_scope = 0;
    if (d_neq(uri, dflt) || (uri != Py_None && d_known(d, uri))) {
        if (!(prefix = d_prefix(d, uri))) {
            st = PYERR;
            goto out;
        }
        in_scope = d_in_scope(d, prefix);
    }
    qname = qualify(prefix, name);
    stax_str q, a, b;
    if (!qname || as_str(qname, &q) < 0) {
        st = PYERR;
        goto out;
    }
    st = stax_writer_start(w, q);
    if (st == STAX_OK && prefix && !in_scope) {
        st = as_str(prefix, &a) < 0 || as_str(uri, &b) < 0 ? PYERR : stax_writer_ns(w, a, b);
        if (st == STAX_OK && scope_push(&d->inscope, prefix, prefix) < 0) st = PYERR;
        in_scope = 1;
    }
    if (st == STAX_OK && d_neq(dflt, current) && (d_neq(uri, dflt) || !prefix || !in_scope)) {
        if (as_str(dflt, &b) < 0) st = PYERR;
        else st = b.len ? stax_writer_ns(w, stax_strz(""), b) : stax_writer_attr(w, stax_strz("xmlns"), b);
    }
    pos = 0;
    if (st == STAX_OK && PyDict_Check(lp) && PyDict_GET_SIZE(lp))
        while (st == STAX_OK && PyDict_Next(lp, &pos, &k, &v))
            st = as_str(k, &a) < 0 || as_str(v, &b) < 0 ? PYERR : stax_writer_ns(w, a, b);
    pos = 0;
    if (st == STAX_OK && PyDict_Check(attrs))
        while (st == STAX_OK && PyDict_Next(attrs, &pos, &k, &v)) {
            stax_str vs;
            if (as_str(v, &vs) < 0) {
                st = PYERR;
                break;
            }
            if (PyTuple_Check(k) && PyTuple_GET_SIZE(k) == 2) {
                PyObject *ap = d_prefix(d, PyTuple_GET_ITEM(k, 0)), *an = NULL;
                if (!ap) {
                    st = PYERR;
                    break;
                }
                if (!d_in_scope(d, ap) && !str_eq(ap, s_xml)) {
                    st = as_str(ap, &a) < 0 || as_str(PyTuple_GET_ITEM(k, 0), &b) < 0 ? PYERR : stax_writer_ns(w, a, b);
                    if (st == STAX_OK && scope_push(&d->inscope, ap, ap) < 0) st = PYERR;
                }
                if (st == STAX_OK) {
                    an = qualify(ap, PyTuple_GET_ITEM(k, 1));
                    st = !an || as_str(an, &a) < 0 ? PYERR : stax_writer_attr(w, a, vs);
                }
                Py_DECREF(ap);
                Py_XDECREF(an);
            } else {
                st = as_str(k, &a) < 0 ? PYERR : stax_writer_attr(w, a, vs);
            }
        }
    if (st == STAX_OK && PyList_Check(children))
        for (Py_ssize_t i = 0; st == STAX_OK && i < PyList_GET_SIZE(children); i++)
            st = d_write(w, d, PyList_GET_ITEM(children, i), dflt);
    if (st == STAX_OK) st = stax_writer_end(w);
out:
    scope_pop(&d->inscope, frame);
    Py_XDECREF(name);
    Py_XDECREF(uri);
    Py_XDECREF(dflt);
    Py_XDECREF(lp);
    Py_XDECREF(prefix);
    Py_XDECREF(qname);
    Py_XDECREF(attrs);
    Py_XDECREF(children);
    Py_LeaveRecursiveCall();
    return st;
}

/* Whether elem has domish's shape: a children attribute, in its instance
 * dict or its class (asked without raising AttributeError, whose cost would
 * show in every ElementTree or lxml tostring). */
static int is_domish(PyObject *elem) {
    if (PyUnicode_Check(elem)) return 0;
    PyObject **dp = _PyObject_GetDictPtr(elem);
    if (dp && *dp && PyDict_GetItemWithError(*dp, s_children)) return 1;
    PyErr_Clear();
    return _PyType_Lookup(Py_TYPE(elem), s_children) != NULL;
}

/* Any tree through w: domish-shaped (default namespace `current`) or an element tree. */
static int tree_write(stax_writer *w, PyObject *elem, PyObject *current) {
    int st;
    if (is_domish(elem)) {
        dstate d;
        memset(&d, 0, sizeof d);
        st = d_write(w, &d, elem, current);
        if (st == STAX_OK && PyErr_Occurred()) st = PYERR;
        scope_free(&d.inscope);
        Py_XDECREF(d.prefixes);
    } else {
        nsscope s;
        memset(&s, 0, sizeof s);
        st = et_write(w, &s, elem);
        scope_free(&s);
    }
    return st;
}

/* Writer.write(element, default_ns=''): a tree where the writer stands. */
static PyObject *Writer_write(Writer *W, PyObject *args, PyObject *kw) {
    static char *kws[] = {"element", "default_ns", NULL};
    PyObject *elem, *dns = s_empty;
    WRITER_CHECK(W);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:write", kws, &elem, &dns)) return NULL;
    return done(W, tree_write(W->w, elem, dns));
}

static PyMethodDef Writer_methods[] = {
    {"xml_decl", (PyCFunction)(void (*)(void))Writer_xml_decl, METH_VARARGS | METH_KEYWORDS,
     "xml_decl(version='', encoding='', standalone=None)"},
    {"doctype", (PyCFunction)(void (*)(void))Writer_doctype, METH_VARARGS | METH_KEYWORDS,
     "doctype(name, pubid='', sysid='', subset='')"},
    {"start", (PyCFunction)Writer_start, METH_VARARGS, "start(name, attrs=None): a start tag, left open for attr and ns."},
    {"attr", (PyCFunction)Writer_attr, METH_VARARGS, "attr(name, value): value a str, or an int written exactly."},
    {"attr_dec", (PyCFunction)Writer_attr_dec, METH_VARARGS, "attr_dec(name, v, frac): v / 10**frac, frac digits."},
    {"text_dec", (PyCFunction)Writer_text_dec, METH_VARARGS, "text_dec(v, frac): v / 10**frac, frac digits."},
    {"element_dec", (PyCFunction)Writer_element_dec, METH_VARARGS, "element_dec(name, v, frac)"},
    {"ns", (PyCFunction)Writer_ns, METH_VARARGS, "ns(prefix, uri): a namespace declaration ('' the default)."},
    {"text", (PyCFunction)Writer_text, METH_O, "text(str or int)"},
    {"cdata", (PyCFunction)Writer_cdata, METH_O, "cdata(text)"},
    {"comment", (PyCFunction)Writer_comment, METH_O, "comment(text)"},
    {"pi", (PyCFunction)Writer_pi, METH_VARARGS, "pi(target, data='')"},
    {"end", (PyCFunction)Writer_end, METH_NOARGS, "End the innermost open element."},
    {"element", (PyCFunction)Writer_element, METH_VARARGS, "element(name, text=''): <name>text</name> in one call."},
    {"raw", (PyCFunction)Writer_raw, METH_O, "raw(bytes or str): written as given, unchecked."},
    {"write", (PyCFunction)(void (*)(void))Writer_write, METH_VARARGS | METH_KEYWORDS,
     "write(element, default_ns=''): an ElementTree, lxml or domish element."},
    {"flush", (PyCFunction)Writer_flush, METH_NOARGS, "Hand everything buffered to the sink."},
    {"finish", (PyCFunction)Writer_finish, METH_NOARGS, "Close every open element and flush."},
    {"getvalue", (PyCFunction)Writer_getvalue, METH_NOARGS, "Writer(None): the bytes written so far."},
    {"close", (PyCFunction)Writer_close, METH_NOARGS, "Free the writer (without finishing)."},
    {"__enter__", (PyCFunction)Writer_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Writer_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Writer_getset[] = {
    {"depth", (getter)Writer_depth, NULL, "Open elements.", NULL},
    {"bytes_out", (getter)Writer_bytes_out, NULL, "Bytes the sink has taken.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "stax.Writer",
    .tp_basicsize = sizeof(Writer),
    .tp_dealloc = (destructor)Writer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Writer(sink=None, **options): the library's writer; sink a binary file, a callable, or None (getvalue).",
    .tp_methods = Writer_methods,
    .tp_getset = Writer_getset,
    .tp_new = Writer_new,
};

/* ---------------------------------------------------------------- tostring, stanza */

/* One long-lived writer for the trees: it stands inside a root element of
 * its own that is never closed, so that each tree is written as that
 * root's child, with no writer made or finished per call (a stanza is a
 * few hundred bytes: making a writer cost a third of it). Its callback sink
 * appends to tree_out, emptied before each tree. A call that fails leaves
 * elements open: the writer is dropped and made again. A tree whose str
 * subclass calls back in gets a writer of its own. */
static gbuf tree_out;
static stax_writer *tree_w;
static int tree_busy;

static ptrdiff_t tree_sink(void *ctx, const void *data, size_t len) {
    return gbuf_put(ctx, data, len) ? STAX_E_NOMEM : (ptrdiff_t)len;
}

static stax_writer *tree_writer(gbuf *out, int shared) {
    if (shared && tree_w) return tree_w;
    stax_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.flags = STAX_WRITE_SELF_CLOSE;
    wo.buffer_size = 4096;
    stax_writer *w = stax_writer_new(&wo);
    if (!w) return NULL;
    /* the root of its own, its start tag closed (an empty text), flushed away */
    if (stax_writer_set_sink(w, tree_sink, out) != STAX_OK || stax_writer_start(w, stax_strz("_")) != STAX_OK ||
        stax_writer_text(w, stax_strz("")) != STAX_OK || stax_writer_flush(w) != STAX_OK) {
        stax_writer_free(w);
        return NULL;
    }
    if (shared) tree_w = w;
    return w;
}

static PyObject *tree_bytes(PyObject *elem, PyObject *dns, int with_tail, int unicode) {
    gbuf local;
    memset(&local, 0, sizeof local);
    int shared = !tree_busy;
    gbuf *out = shared ? &tree_out : &local;
    stax_writer *w = tree_writer(out, shared);
    if (!w) return PyErr_NoMemory();
    out->len = 0;
    tree_busy += shared;
    int st = tree_write(w, elem, dns);
    if (st == STAX_OK) st = stax_writer_flush(w);
    PyObject *r = NULL;
    if (st == STAX_OK && with_tail && !is_domish(elem)) { /* the root's tail, as ElementTree and lxml write it */
        PyObject *tail = PyObject_GetAttr(elem, s_tail);
        stax_str t;
        if (!tail || (tail != Py_None && as_str(tail, &t) < 0)) st = PYERR;
        else if (tail != Py_None)
            for (size_t i = 0; i < t.len && st == STAX_OK; i++) {
                const char *e = t.ptr[i] == '&' ? "&amp;" : t.ptr[i] == '<' ? "&lt;" : t.ptr[i] == '>' ? "&gt;" : NULL;
                if (e ? gbuf_put(out, e, strlen(e)) : gbuf_put(out, t.ptr + i, 1)) st = STAX_E_NOMEM;
            }
        Py_XDECREF(tail);
    }
    if (st == STAX_OK)
        r = unicode ? PyUnicode_DecodeUTF8(out->p ? out->p : "", (Py_ssize_t)out->len, "strict")
                    : PyBytes_FromStringAndSize(out->p ? out->p : "", (Py_ssize_t)out->len);
    else if (st == STAX_E_NOMEM) PyErr_NoMemory();
    else if (st != PYERR) PyErr_SetString(WriterError, stax_writer_message(w));
    if (!shared || st != STAX_OK || stax_writer_depth(w) != 1) {
        if (shared) tree_w = NULL;
        stax_writer_free(w);
    }
    gbuf_free(&local);
    if (shared && tree_out.cap > (1u << 20)) gbuf_free(&tree_out); /* keep no big buffer */
    tree_busy -= shared;
    return r;
}

static PyObject *py_tostring(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kws[] = {"element", "encoding", "with_tail", NULL};
    PyObject *elem, *enc = Py_None;
    int with_tail = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Op:tostring", kws, &elem, &enc, &with_tail)) return NULL;
    int unicode = 0;
    if (enc != Py_None) {
        const char *e = PyUnicode_AsUTF8(enc);
        if (!e) return NULL;
        if (!strcmp(e, "unicode")) unicode = 1;
        else if (strcasecmp(e, "utf-8") && strcasecmp(e, "utf8")) {
            PyErr_SetString(PyExc_ValueError, "encoding: 'utf-8' (bytes) or 'unicode' (str)");
            return NULL;
        }
    }
    return tree_bytes(elem, s_empty, with_tail, unicode);
}

/* stanza(element, default_ns=''): positional only, without keyword parsing
 * (the package's stax.stanza takes the keyword): it runs once per stanza. */
static PyObject *py_stanza(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    (void)self;
    if (n < 1 || n > 2) {
        PyErr_SetString(PyExc_TypeError, "stanza(element, default_ns='')");
        return NULL;
    }
    PyObject *dns = n > 1 && args[1] != Py_None ? args[1] : s_empty;
    return tree_bytes(args[0], dns, 0, 0);
}

static PyObject *py_set_classes(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *x, *s, *w, *c, *p, *m;
    if (!PyArg_ParseTuple(args, "OOOOOO", &x, &s, &w, &c, &p, &m)) return NULL;
    Py_XSETREF(XMLError, Py_NewRef(x));
    Py_XSETREF(SelectError, Py_NewRef(s));
    Py_XSETREF(WriterError, Py_NewRef(w));
    Py_XSETREF(et_comment, Py_NewRef(c));
    Py_XSETREF(et_pi, Py_NewRef(p));
    Py_XSETREF(et_nsmap, m == Py_None ? NULL : Py_NewRef(m));
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- ranges */

/* The library's side of stax.dask: a document cut into byte ranges
 * (stax_parallel_cuts, as `stax --part K/N`), each read apart from a guessed
 * context, then merged in order where every guess is checked (docs/python.md,
 * "Many machines"; cli/part.c does the same for the tool). */

static PyObject *py_cuts(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    Py_buffer view;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*n:cuts", &view, &n)) return NULL;
    opts o;
    PyObject *res = NULL;
    uint64_t *cuts = NULL;
    char *guess = NULL;
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "cuts: n >= 1");
        goto out;
    }
    if (opts_parse(&o, kw, NULL) < 0) goto out;
    size_t cap = stax_context_max_size(&o.ro), glen = 0;
    cuts = PyMem_Malloc(((size_t)n + 1) * sizeof *cuts);
    guess = PyMem_Malloc(cap ? cap : 1);
    if (!cuts || !guess) {
        PyErr_NoMemory();
        goto out;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = stax_parallel_cuts(view.buf, (size_t)view.len, &o.ro, (size_t)n, cuts, guess, cap, &glen);
    Py_END_ALLOW_THREADS
    if (st != STAX_OK) {
        PyErr_Format(PyExc_ValueError, "cuts: %s", stax_strerror(st));
        goto out;
    }
    PyObject *l = PyList_New(n + 1);
    for (Py_ssize_t k = 0; l && k <= n; k++) PyList_SET_ITEM(l, k, PyLong_FromUnsignedLongLong(cuts[k]));
    if (l) res = Py_BuildValue("(Ny#)", l, guess, (Py_ssize_t)glen);
out:
    PyBuffer_Release(&view);
    PyMem_Free(cuts);
    PyMem_Free(guess);
    return res;
}

static PyObject *py_context_position(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer v;
    if (PyObject_GetBuffer(arg, &v, PyBUF_SIMPLE) < 0) return NULL;
    stax_pos p;
    int st = stax_context_position(v.buf, (size_t)v.len, &p);
    PyBuffer_Release(&v);
    if (st != STAX_OK) {
        PyErr_SetString(PyExc_ValueError, "not an intact context");
        return NULL;
    }
    return Py_BuildValue("(KKK)", (unsigned long long)p.offset, (unsigned long long)p.line,
                         (unsigned long long)p.column);
}

static PyObject *py_context_move(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v;
    unsigned long long off, line, col;
    if (!PyArg_ParseTuple(args, "y*(KKK):context_move", &v, &off, &line, &col)) return NULL;
    PyObject *r = PyBytes_FromStringAndSize(v.buf, v.len);
    PyBuffer_Release(&v);
    if (!r) return NULL;
    stax_pos p = {off, line, col};
    if (stax_context_move(PyBytes_AS_STRING(r), (size_t)PyBytes_GET_SIZE(r), p) != STAX_OK) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_ValueError, "not an intact context");
        return NULL;
    }
    return r;
}

static PyObject *py_context_equal(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer a, b;
    if (!PyArg_ParseTuple(args, "y*y*:context_equal", &a, &b)) return NULL;
    int eq = stax_context_equal(a.buf, (size_t)a.len, b.buf, (size_t)b.len);
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    return PyBool_FromLong(eq);
}

/* A context or select state as bytes, or None when none can be saved here. */
static PyObject *saved_reader(stax_reader *r) {
    size_t n = 0;
    if (stax_reader_save(r, NULL, 0, &n) != STAX_OK) Py_RETURN_NONE;
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (b && stax_reader_save(r, PyBytes_AS_STRING(b), n, &n) != STAX_OK) Py_CLEAR(b);
    return b;
}

static PyObject *saved_select(stax_select *s) {
    size_t n = 0;
    if (stax_select_save(s, NULL, 0, &n) != STAX_OK) Py_RETURN_NONE;
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (b && stax_select_save(s, PyBytes_AS_STRING(b), n, &n) != STAX_OK) Py_CLEAR(b);
    return b;
}

/* range_read(buf, last, context, command, path=None, columns=None,
 * namespaces=None, select_state=None, **options): a reader (resumed from
 * context, if any) fed buf, ended when last; for "count" the counts, for
 * "select" the values (a select resumed from select_state, if any). A dict:
 * status (the reader's last status: 1 needs more input, 2 the end, < 0 an
 * error), message, position, counts or values, context and select_state at
 * the end (None when none could be saved). */
static PyObject *py_range_read(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    Py_buffer view;
    int last;
    PyObject *ctx, *path = Py_None, *columns = Py_None, *ns = Py_None, *sstate = Py_None;
    const char *cmd;
    if (!PyArg_ParseTuple(args, "y*pOs|OOOO:range_read", &view, &last, &ctx, &cmd, &path, &columns, &ns, &sstate))
        return NULL;
    opts o;
    SelectIter *it = NULL;
    PyObject *res = NULL, *values = NULL;
    stax_reader *r = NULL;
    counts c;
    memset(&c, 0, sizeof c);
    int selecting = !strcmp(cmd, "select");
    if (opts_parse(&o, kw, select_extra) < 0) goto out;
    if (ns != Py_None && PyObject_IsTrue(ns)) o.ro.flags |= STAX_READ_NAMESPACES;
    if (selecting) { /* the select's queue and output of stax.select */
        it = PyObject_New(SelectIter, &SelectIterType);
        if (!it) goto out;
        memset((char *)it + sizeof(PyObject), 0, sizeof *it - sizeof(PyObject));
        it->sel = select_make(kw, &o, path, columns, ns, 0, &it->ncols, &it->first);
        if (!it->sel) goto out;
        stax_select_set_output(it->sel, sel_piece, it);
        if (sstate != Py_None) {
            Py_buffer sv;
            if (PyObject_GetBuffer(sstate, &sv, PyBUF_SIMPLE) < 0) goto out;
            int st = stax_select_resume(it->sel, sv.buf, (size_t)sv.len);
            PyBuffer_Release(&sv);
            if (st != STAX_OK) {
                PyErr_Format(SelectError, "select state: %s", stax_select_message(it->sel));
                goto out;
            }
        }
    }
    r = stax_reader_new(&o.ro);
    if (!r) {
        PyErr_NoMemory();
        goto out;
    }
    if (ctx != Py_None) {
        Py_buffer cv;
        if (PyObject_GetBuffer(ctx, &cv, PyBUF_SIMPLE) < 0) goto out;
        int st = stax_reader_resume(r, cv.buf, (size_t)cv.len);
        PyBuffer_Release(&cv);
        if (st != STAX_OK) {
            PyErr_Format(PyExc_ValueError, "context: %s", stax_reader_message(r));
            goto out;
        }
    }
    int st = STAX_NEED_INPUT, sst = STAX_OK;
    const stax_batch *b = NULL;
    Py_BEGIN_ALLOW_THREADS
    for (int round = 0; round < 2 && st == STAX_NEED_INPUT && sst == STAX_OK; round++) {
        if (round == 0) {
            if (view.len) stax_reader_feed(r, view.buf, (size_t)view.len);
            else continue;
        } else if (last) {
            stax_reader_end(r);
        } else {
            break;
        }
        while ((st = stax_reader_next(r, &b)) == STAX_OK) {
            if (selecting) {
                if ((sst = stax_select_batch(it->sel, b)) != STAX_OK) break;
            } else {
                count_batch(&c, b);
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (sst != STAX_OK) {
        if (it->out.oom) PyErr_NoMemory();
        else PyErr_Format(SelectError, "select: %s", stax_select_message(it->sel));
        goto out;
    }
    if (selecting) { /* every queued match */
        values = PyList_New(0);
        it->status = STAX_END;
        PyObject *v;
        while (values && (v = SelectIter_next(it)) != NULL) {
            if (PyList_Append(values, v) < 0) Py_CLEAR(values);
            Py_DECREF(v);
        }
        if (!values || PyErr_Occurred()) goto out;
    }
    stax_pos p = stax_reader_error_pos(r);
    PyObject *rctx = st == STAX_NEED_INPUT ? saved_reader(r) : Py_NewRef(Py_None);
    PyObject *sctx = st == STAX_NEED_INPUT && selecting ? saved_select(it->sel) : Py_NewRef(Py_None);
    res = Py_BuildValue("{sisss(KKK)sNsNsN}", "status", st, "message", st < 0 ? stax_reader_message(r) : "",
                        "position", (unsigned long long)p.offset, (unsigned long long)p.line,
                        (unsigned long long)p.column, "context", rctx, "select_state", sctx, "result",
                        selecting ? Py_NewRef(values) : counts_dict(&c));
out:
    Py_XDECREF(values);
    stax_reader_free(r);
    Py_XDECREF(it);
    PyBuffer_Release(&view);
    return res;
}

/* ---------------------------------------------------------------- module */

static PyMethodDef module_methods[] = {
    {"check", (PyCFunction)(void (*)(void))py_check, METH_VARARGS | METH_KEYWORDS, "check(source, **options)"},
    {"count", (PyCFunction)(void (*)(void))py_count, METH_VARARGS | METH_KEYWORDS, "count(source, **options)"},
    {"select", (PyCFunction)(void (*)(void))py_select, METH_VARARGS | METH_KEYWORDS,
     "select(source, path, columns=None, namespaces=None, **options)"},
    {"select_count", (PyCFunction)(void (*)(void))py_select_count, METH_VARARGS | METH_KEYWORDS,
     "select_count(source, path, namespaces=None, **options)"},
    {"records", (PyCFunction)(void (*)(void))py_records, METH_VARARGS | METH_KEYWORDS,
     "records(source, path, factory=None, namespaces=None, **options)"},
    {"tostring", (PyCFunction)(void (*)(void))py_tostring, METH_VARARGS | METH_KEYWORDS,
     "tostring(element, encoding=None, with_tail=True)"},
    {"stanza", (PyCFunction)(void (*)(void))py_stanza, METH_FASTCALL, "stanza(element, default_ns='')"},
    {"_set_classes", (PyCFunction)py_set_classes, METH_VARARGS, NULL},
    {"cuts", (PyCFunction)(void (*)(void))py_cuts, METH_VARARGS | METH_KEYWORDS, "cuts(buffer, n, **options)"},
    {"context_position", (PyCFunction)py_context_position, METH_O, "context_position(context)"},
    {"context_move", (PyCFunction)py_context_move, METH_VARARGS, "context_move(context, (offset, line, column))"},
    {"context_equal", (PyCFunction)py_context_equal, METH_VARARGS, "context_equal(a, b)"},
    {"range_read", (PyCFunction)(void (*)(void))py_range_read, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_stax", "The C part of the stax package.", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__stax(void) {
    if (PyType_Ready(&SelectIterType) < 0 || PyType_Ready(&RecordsIterType) < 0 || PyType_Ready(&ReaderType) < 0 ||
        PyType_Ready(&BatchType) < 0 || PyType_Ready(&WriterType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    XMLError = Py_NewRef(PyExc_ValueError);
    SelectError = Py_NewRef(PyExc_ValueError);
    WriterError = Py_NewRef(PyExc_ValueError);
#define INTERN(v, s) if (!(v = PyUnicode_InternFromString(s))) return NULL;
    INTERN(s_tag, "tag") INTERN(s_text, "text") INTERN(s_tail, "tail") INTERN(s_attrib, "attrib")
    INTERN(s_nsmap, "nsmap") INTERN(s_target, "target") INTERN(s_items, "items") INTERN(s_empty, "")
    INTERN(s_xml_ns, "http://www.w3.org/XML/1998/namespace") INTERN(s_xml, "xml") INTERN(s_name, "name")
    INTERN(s_uri, "uri") INTERN(s_defaultUri, "defaultUri") INTERN(s_attributes, "attributes")
    INTERN(s_children, "children") INTERN(s_localPrefixes, "localPrefixes") INTERN(s_xmlns, "xmlns")
#undef INTERN
    Py_INCREF(&ReaderType);
    Py_INCREF(&BatchType);
    Py_INCREF(&WriterType);
    if (PyModule_AddObject(m, "Reader", (PyObject *)&ReaderType) < 0 ||
        PyModule_AddObject(m, "Batch", (PyObject *)&BatchType) < 0 ||
        PyModule_AddObject(m, "Writer", (PyObject *)&WriterType) < 0)
        return NULL;
    struct { const char *n; long v; } k[] = {
        {"START", STAX_EV_START}, {"END", STAX_EV_END}, {"TEXT", STAX_EV_TEXT}, {"CDATA", STAX_EV_CDATA},
        {"COMMENT", STAX_EV_COMMENT}, {"PI", STAX_EV_PI}, {"DOCTYPE", STAX_EV_DOCTYPE},
        {"XMLDECL", STAX_EV_XMLDECL}, {"ENTITY_REF", STAX_EV_ENTITY_REF}, {"EMPTY", STAX_EVF_EMPTY},
        {"WHITESPACE", STAX_EVF_WHITESPACE}, {"CONTINUED", STAX_EVF_CONTINUED},
        {"STANDALONE_YES", STAX_EVF_STANDALONE_YES}, {"STANDALONE_NO", STAX_EVF_STANDALONE_NO},
        {"HAS_SUBSET", STAX_EVF_HAS_SUBSET}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (PyModule_AddIntConstant(m, k[i].n, k[i].v) < 0) return NULL;
    if (PyModule_AddStringConstant(m, "LIBRARY_VERSION", STAX_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "SELECT_STATE_TAIL", STAX_SELECT_STATE_TAIL) < 0)
        return NULL;
    return m;
}
