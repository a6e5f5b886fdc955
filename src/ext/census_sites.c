/* census_sites.c: per-site rows with positions and the source text of
 * the code that ran (see census_sites.h, docs/FORMAT.md 1.18).
 *
 * With the live census (scope count), _census.py hands over the code
 * objects it reached; those with a hot-code record that has
 * instructions (the segment counts folded into it first), and the code
 * that ran and died before (kept by pc_sites_code_dead), are ordered by
 * instructions, one per site key (the one with most instructions: the
 * key, or for generated code the key and its function's module and
 * qualified name, hotcode.h), and the
 * rows of the hottest are written as text, within PC_HOT_CAP code
 * objects and PC_SITES_MAX_ROWS rows; what is left out is counted, and
 * so are the rows and executions of the others of a key.
 *
 * A site's position is read from the code's location table
 * (co_linetable, the format of CPython's Objects/locations.md, the same
 * in 3.11-3.14) in one pass, as co_positions() gives it.
 */
#include "census_sites.h"
#include "../format/psf_text.h"

#include <stdlib.h>
#include <string.h>

/* A code object whose rows may be written. */
typedef struct site_entry {
    char *key;      /* dead: owned copy; live: the hot record's */
    PyObject *code; /* live: borrowed from the caller's list; else NULL */
    PyObject *file; /* dead: owned co_filename */
    char *rows;     /* dead: owned row lines */
    uint64_t instructions;
    size_t nrows;
    uint64_t site_exec; /* dead: its rows' executions */
    int first, last;    /* source lines */
    int best;           /* the one kept for its key */
} site_entry;

static site_entry *dead;
static size_t ndead, dead_cap;
static uint64_t dead_dropped_rows; /* rows of dead code past the bound */

/* What the dump writes (PyMem_RawMalloc'd, or NULL). */
static char *rows_text, *source_text;
static uint64_t omitted_rows, omitted_lines;
/* The rows, and their executions, of code objects that share their key
 * with a hotter one: not written, the key's rows being the hotter's. */
static uint64_t shared_rows, shared_exec;
static int selected; /* rows were selected in this period */

/* ---- a growing text buffer (malloc: plain C) ---- */

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int failed;
} sbuf;

static int
sb_reserve(sbuf *b, size_t n)
{
    size_t cap = b->cap ? b->cap : 256;
    char *p;
    if (b->failed)
        return -1;
    if (b->n + n + 1 <= b->cap)
        return 0;
    while (b->n + n + 1 > cap)
        cap *= 2;
    p = realloc(b->p, cap);
    if (p == NULL) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

/* A str as free text in the dump's encoding (psf_text.h); -1 with an
 * exception if it is no str. */
static int
sb_text(sbuf *b, PyObject *str)
{
    PyObject *bytes = NULL; /* owned */
    const char *src;
    Py_ssize_t n;
    if (!PyUnicode_Check(str)) {
        PyErr_SetString(PyExc_TypeError, "source text must be str");
        return -1;
    }
    if (PyUnicode_IS_ASCII(str)) {
        src = (const char *)PyUnicode_DATA(str);
        n = PyUnicode_GET_LENGTH(str);
    }
    else {
        bytes = PyUnicode_AsEncodedString(str, "utf-8", "surrogatepass");
        if (bytes == NULL)
            return -1;
        src = PyBytes_AS_STRING(bytes);
        n = PyBytes_GET_SIZE(bytes);
    }
    if (sb_reserve(b, PSF_TEXT_MAX((size_t)n)) == 0)
        b->n += psf_text_encode(src, (size_t)n, b->p + b->n, b->cap - b->n);
    Py_XDECREF(bytes);
    return 0;
}

static void
sb_putn(sbuf *b, const char *s, size_t n)
{
    if (sb_reserve(b, n) < 0)
        return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void
sb_put(sbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

/* A number, or PSF_NO_POSITION for -1. */
static void
sb_num(sbuf *b, long v)
{
    char num[24];
    if (v < 0) {
        sb_put(b, PSF_NO_POSITION);
        return;
    }
    psf_u64_to_str((uint64_t)v, num);
    sb_put(b, num);
}

static void
sb_u64(sbuf *b, uint64_t v)
{
    char num[24];
    psf_u64_to_str(v, num);
    sb_put(b, num);
}

/* ---- positions: the location table, one pass ---- */

typedef struct lt_walk {
    const uint8_t *p, *end;
    int line;            /* the line entries are relative to */
    Py_ssize_t unit_end; /* the units before it are behind */
    int pos[4];          /* line, column, end line, end column; -1: None */
    int max_line;
} lt_walk;

static unsigned
lt_varint(lt_walk *w)
{
    unsigned v = 0, shift = 0;
    uint8_t b;
    do {
        if (w->p >= w->end)
            return v;
        b = *w->p++;
        v |= (unsigned)(b & 63) << shift;
        shift += 6;
    } while ((b & 64) && shift < 32);
    return v;
}

static int
lt_svarint(lt_walk *w)
{
    unsigned v = lt_varint(w);
    return (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
}

static uint8_t
lt_byte(lt_walk *w)
{
    return w->p < w->end ? *w->p++ : 0;
}

/* The next entry; past the end, every unit has no position. */
static void
lt_entry(lt_walk *w)
{
    uint8_t first, second;
    int code, *pos = w->pos;
    if (w->p >= w->end) {
        pos[0] = pos[1] = pos[2] = pos[3] = -1;
        w->unit_end = PY_SSIZE_T_MAX;
        return;
    }
    first = *w->p++;
    code = (first >> 3) & 15;
    w->unit_end += (first & 7) + 1;
    if (code == 15) { /* no location */
        pos[0] = pos[1] = pos[2] = pos[3] = -1;
        return;
    }
    if (code == 14) { /* long form */
        w->line += lt_svarint(w);
        pos[2] = w->line + (int)lt_varint(w);
        pos[1] = (int)lt_varint(w) - 1;
        pos[3] = (int)lt_varint(w) - 1;
    }
    else if (code == 13) { /* no columns */
        w->line += lt_svarint(w);
        pos[2] = w->line;
        pos[1] = pos[3] = -1;
    }
    else if (code >= 10) { /* one line, 0-2 below */
        w->line += code - 10;
        pos[2] = w->line;
        pos[1] = lt_byte(w);
        pos[3] = lt_byte(w);
    }
    else { /* short form */
        second = lt_byte(w);
        pos[2] = w->line;
        pos[1] = code << 3 | (second >> 4);
        pos[3] = pos[1] + (second & 15);
    }
    pos[0] = w->line;
    if (w->line > w->max_line)
        w->max_line = w->line;
}

static void
lt_init(lt_walk *w, PyCodeObject *co)
{
    PyObject *t = co->co_linetable;
    w->p = w->end = NULL;
    if (t != NULL && PyBytes_Check(t)) {
        w->p = (const uint8_t *)PyBytes_AS_STRING(t);
        w->end = w->p + PyBytes_GET_SIZE(t);
    }
    w->line = co->co_firstlineno;
    w->max_line = co->co_firstlineno;
    w->unit_end = 0;
    w->pos[0] = w->pos[1] = w->pos[2] = w->pos[3] = -1;
}

/* The position of unit u (u never decreasing from call to call). */
static const int *
lt_at(lt_walk *w, Py_ssize_t u)
{
    while (u >= w->unit_end)
        lt_entry(w);
    return w->pos;
}

/* ---- a code object's rows ---- */

static const char *
state_name(pc_site_state st)
{
    switch (st) {
    case PC_STATE_SPECIALIZED:
        return PSF_SITE_SPECIALIZED;
    case PC_STATE_BACKING_OFF:
        return PSF_SITE_BACKING_OFF;
    case PC_STATE_EXCLUDED:
        return PSF_SITE_EXCLUDED;
    default:
        return PSF_SITE_NEVER_TRIED;
    }
}

static void
put_row(sbuf *b, const char *key, Py_ssize_t i, int op, pc_site_state st, unsigned fails,
        const int *pos, uint64_t executions)
{
    int k;
    sb_put(b, PSF_KEY_CODE);
    sb_put(b, key);
    sb_put(b, PSF_KEY_CODE_SITE);
    sb_num(b, (long)(2 * i));
    sb_put(b, "]" PSF_SEP_VALUE);
    sb_put(b, pc_ct.name[pc_ct.base[op]]);
    sb_put(b, PSF_SEP_FIELD);
    sb_put(b, state_name(st));
    sb_put(b, PSF_SEP_FIELD);
    if (st == PC_STATE_SPECIALIZED)
        sb_put(b, pc_ct.name[op]);
    else if (st == PC_STATE_BACKING_OFF)
        sb_num(b, (long)fails);
    for (k = 0; k < 4; k++) {
        sb_put(b, PSF_SEP_FIELD);
        sb_num(b, pos[k]);
    }
    sb_put(b, "\n");
    /* Its executions, every dispatch in any form: the per-unit count the
     * hot record holds (segment counts folded in), a key of its own. */
    sb_put(b, PSF_KEY_CODE);
    sb_put(b, key);
    sb_put(b, PSF_KEY_CODE_SITE_EXEC);
    sb_num(b, (long)(2 * i));
    sb_put(b, "]" PSF_SEP_VALUE);
    sb_u64(b, executions);
    sb_put(b, "\n");
}

/* The rows of code (scope count) into b, or only counted if b is NULL;
 * h: its hot record (the sites' executions; NULL: 0), their sum added
 * to *exec if not NULL; *last: the last line of its co_lines(). */
static size_t
code_rows(PyCodeObject *co, const pc_hot *h, const char *key, sbuf *b, int *last, uint64_t *exec)
{
    const uint16_t *units = pc_code_units(co);
    Py_ssize_t n = pc_code_nunits(co), i;
    size_t rows = 0;
    lt_walk w;

    lt_init(&w, co);
    for (i = 0; i < n; i++) {
        int op = units[i] & 0xff;
        pc_site_read r;
        pc_census_read_site(co, n, i, PC_CENSUS_COUNT, &r);
        /* A form without counter that is not specialized (3.12's
         * LOAD_FAST: no superinstruction here) is no adaptive site. */
        if (r.state != PC_STATE_NONE && r.state != PC_STATE_PLAIN) {
            uint64_t x = h != NULL && i < h->n ? h->counts[i] : 0;
            rows++;
            if (exec != NULL)
                *exec += x;
            if (b != NULL)
                put_row(b, key, i, r.op, r.state, r.fails, lt_at(&w, i), x);
        }
        i += pc_ct.caches[op];
    }
    if (last != NULL) {
        while (w.unit_end != PY_SSIZE_T_MAX)
            lt_entry(&w);
        *last = w.max_line;
    }
    return rows;
}

static uint64_t
hot_instructions(const pc_hot *h)
{
    uint64_t t = 0;
    int32_t u;
    for (u = 0; h != NULL && u < h->n; u++)
        t += h->counts[u];
    return t;
}

/* ---- code that ran and died before the census ---- */

static void
entry_free(site_entry *e)
{
    free(e->key);
    free(e->rows);
    Py_XDECREF(e->file);
}

void
pc_sites_code_dead(pc_codeinfo *ci)
{
    PyCodeObject *co = (PyCodeObject *)ci->code;
    site_entry *e;
    sbuf b = {NULL, 0, 0, 0};
    uint64_t instr;

    /* Its census first (scope count, if it ran in this period). */
    pc_census_count_dead(ci->code, ci->hot);
    if (!pc_ct.ready || !Py_IsInitialized() || pc_census_taken() ||
        pc_census_period_scope() != PC_CENSUS_COUNT)
        return;
    instr = hot_instructions(ci->hot);
    if (instr == 0 || ci->hot->key == NULL || pc_census_hidden(ci->code, PC_CENSUS_COUNT))
        return;
    if (ndead >= PC_SITES_MAX_DEAD) {
        dead_dropped_rows += code_rows(co, NULL, "", NULL, NULL, NULL);
        return;
    }
    if (ndead == dead_cap) {
        size_t cap = dead_cap ? 2 * dead_cap : 64;
        site_entry *t = realloc(dead, cap * sizeof *t);
        if (t == NULL)
            return;
        dead = t;
        dead_cap = cap;
    }
    e = &dead[ndead];
    memset(e, 0, sizeof *e);
    e->nrows = code_rows(co, ci->hot, ci->hot->site_key, &b, &e->last, &e->site_exec);
    e->key = strdup(ci->hot->site_key);
    if (b.failed || e->key == NULL) {
        free(b.p);
        free(e->key);
        return;
    }
    e->rows = b.p;
    e->instructions = instr;
    e->first = co->co_firstlineno;
    e->file = Py_NewRef(co->co_filename);
    assert(e->code == NULL); /* a dead entry holds its file name only */
    ndead++;
}

void
pc_sites_clear(void)
{
    size_t i;
    for (i = 0; i < ndead; i++)
        entry_free(&dead[i]);
    ndead = 0;
    dead_dropped_rows = 0;
    PyMem_RawFree(rows_text);
    PyMem_RawFree(source_text);
    rows_text = source_text = NULL;
    omitted_rows = omitted_lines = 0;
    shared_rows = shared_exec = 0;
    selected = 0;
}

void
pc_sites_write(psf_out *o)
{
    if (!selected)
        return;
    if (rows_text)
        psf_put(o, rows_text);
    if (source_text)
        psf_put(o, source_text);
    psf_put_counter(o, PSF_KEY_CENSUS_OMITTED_ROWS, omitted_rows);
    psf_put_counter(o, PSF_KEY_CENSUS_OMITTED_SOURCE, omitted_lines);
    psf_put_counter(o, PSF_KEY_CENSUS_SHARED_ROWS, shared_rows);
    psf_put_counter(o, PSF_KEY_CENSUS_SHARED_EXEC, shared_exec);
}

/* ---- selection, at the census ---- */

static int
by_key(const void *x, const void *y)
{
    const site_entry *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    return (a->instructions < b->instructions) - (a->instructions > b->instructions);
}

static int
by_instructions(const void *x, const void *y)
{
    const site_entry *a = x, *b = y;
    if (a->instructions != b->instructions)
        return a->instructions < b->instructions ? 1 : -1;
    return strcmp(a->key, b->key);
}

/* The candidates: the code objects of list that ran (hot record with
 * instructions, not hidden), then the dead ones.  *n their number. */
static site_entry *
candidates(PyObject *list, size_t *n)
{
    Py_ssize_t m = PyList_GET_SIZE(list), i;
    site_entry *c = malloc(((size_t)m + ndead + 1) * sizeof *c);
    size_t k = 0;
    if (c == NULL)
        return NULL;
    for (i = 0; i < m; i++) {
        PyObject *code = PyList_GET_ITEM(list, i);
        pc_hot *h = PyCode_Check(code) ? pc_census_hot_of(code) : NULL;
        uint64_t instr = hot_instructions(h);
        if (instr == 0 || h->key == NULL || pc_census_hidden(code, PC_CENSUS_COUNT))
            continue;
        memset(&c[k], 0, sizeof c[k]);
        c[k].key = h->site_key;
        c[k].code = code;
        c[k].instructions = instr;
        c[k].file = ((PyCodeObject *)code)->co_filename;
        c[k].first = ((PyCodeObject *)code)->co_firstlineno;
        k++;
    }
    for (i = 0; i < (Py_ssize_t)ndead; i++)
        c[k++] = dead[i]; /* a shallow copy: dead keeps what it owns */
    /* One per key: the one with most instructions. */
    qsort(c, k, sizeof *c, by_key);
    for (i = 0; i < (Py_ssize_t)k; i++)
        c[i].best = i == 0 || strcmp(c[i].key, c[i - 1].key) != 0;
    qsort(c, k, sizeof *c, by_instructions);
    *n = k;
    return c;
}

/* Append e's rows to b within the bounds, or count them as omitted.
 * Returns 1 if e was written. */
static int
take_rows(site_entry *e, sbuf *b, size_t *codes, size_t *rows)
{
    sbuf one = {NULL, 0, 0, 0};
    /* Only code that ran has rows, under its record's key (live: from
     * candidates(); dead: from pc_sites_code_dead()). */
    assert(e->instructions > 0 && e->key != NULL);
    if (e->code != NULL)
        e->nrows = code_rows((PyCodeObject *)e->code, NULL, e->key, NULL, NULL, NULL);
    if (*codes >= PC_HOT_CAP || *rows + e->nrows > PC_SITES_MAX_ROWS) {
        omitted_rows += e->nrows;
        return 0;
    }
    if (e->code != NULL) {
        code_rows((PyCodeObject *)e->code, pc_census_hot_of(e->code), e->key, &one, &e->last, NULL);
        if (one.n)
            sb_putn(b, one.p, one.n);
        free(one.p);
    }
    else if (e->rows != NULL) {
        sb_put(b, e->rows);
    }
    (*codes)++;
    *rows += e->nrows;
    return 1;
}

/* Count the rows and executions of e, which shares its key with a
 * hotter code object whose rows the key has (the dumps' caps aside). */
static void
count_shared(const site_entry *e)
{
    if (e->code != NULL) {
        shared_rows += code_rows((PyCodeObject *)e->code, pc_census_hot_of(e->code), e->key, NULL,
                                 NULL, &shared_exec);
        return;
    }
    shared_rows += e->nrows;
    shared_exec += e->site_exec;
}

/* b's text as a PyMem_RawMalloc'd copy into *out (NULL for no text); -1
 * with MemoryError if b or the copy ran short of memory: a census whose
 * rows or lines are cut is not taken at all. */
static int
raw_copy(const sbuf *b, char **out)
{
    *out = NULL;
    if (b->failed) {
        PyErr_NoMemory();
        return -1;
    }
    if (b->n == 0)
        return 0;
    *out = PyMem_RawMalloc(b->n + 1);
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(*out, b->p, b->n + 1);
    return 0;
}

/* _census_site_select(codes): the rows of the code that ran, among
 * codes (the live code objects the census reached) and the dead; returns
 * [(co_filename, first line, last line)] of the code written, hottest
 * first, for the source lines. */
static PyObject *
site_select_fn(PyObject *self, PyObject *list)
{
    site_entry *c;
    size_t n = 0, i, codes = 0, rows = 0;
    sbuf b = {NULL, 0, 0, 0};
    PyObject *spans;
    (void)self;
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "_census_site_select needs a list");
        return NULL;
    }
    spans = PyList_New(0);
    c = spans ? candidates(list, &n) : NULL;
    if (c == NULL) {
        Py_XDECREF(spans);
        return spans ? PyErr_NoMemory() : NULL;
    }
    PyMem_RawFree(rows_text);
    rows_text = NULL;
    omitted_rows = dead_dropped_rows;
    shared_rows = shared_exec = 0;
    for (i = 0; i < n; i++) {
        PyObject *t;
        if (!c[i].best)
            count_shared(&c[i]);
        if (!c[i].best || !take_rows(&c[i], &b, &codes, &rows))
            continue;
        t = Py_BuildValue("(Oii)", c[i].file, c[i].first, c[i].last);
        if (t == NULL || PyList_Append(spans, t) < 0) {
            Py_XDECREF(t);
            Py_CLEAR(spans);
            break;
        }
        Py_DECREF(t);
    }
    free(c);
    if (spans != NULL && raw_copy(&b, &rows_text) < 0)
        Py_CLEAR(spans);
    free(b.p);
    selected = spans != NULL;
    return spans;
}

/* One source line into b: source[FILE].line[N] : TEXT; -1 with an
 * exception for a row that is not (str, int, str). */
static int
put_source(sbuf *b, PyObject *row)
{
    long n;
    if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 3 ||
        !PyLong_Check(PyTuple_GET_ITEM(row, 1))) {
        PyErr_SetString(PyExc_TypeError, "source rows are (file, n, text)");
        return -1;
    }
    n = PyLong_AsLong(PyTuple_GET_ITEM(row, 1));
    if (n == -1 && PyErr_Occurred())
        return -1;
    sb_put(b, PSF_KEY_SOURCE);
    if (sb_text(b, PyTuple_GET_ITEM(row, 0)) < 0)
        return -1;
    sb_put(b, PSF_KEY_SOURCE_LINE);
    sb_num(b, n);
    sb_put(b, "]" PSF_SEP_VALUE);
    if (sb_text(b, PyTuple_GET_ITEM(row, 2)) < 0)
        return -1;
    sb_put(b, "\n");
    return 0;
}

/* _census_source(rows): rows [(co_filename, line number, text)], written
 * as source[FILE].line[N] : TEXT within PC_SITES_MAX_SOURCE bytes; the
 * lines past it are counted. */
static PyObject *
source_fn(PyObject *self, PyObject *list)
{
    sbuf b = {NULL, 0, 0, 0};
    Py_ssize_t i;
    int err;
    (void)self;
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "_census_source needs a list");
        return NULL;
    }
    omitted_lines = 0;
    for (i = 0; i < PyList_GET_SIZE(list); i++) {
        size_t before = b.n;
        if (put_source(&b, PyList_GET_ITEM(list, i)) < 0) {
            free(b.p);
            return NULL;
        }
        if (b.n > PC_SITES_MAX_SOURCE) {
            /* past the bound: left out */
            b.n = before;
            if (b.p != NULL)
                b.p[b.n] = '\0';
            omitted_lines++;
        }
    }
    PyMem_RawFree(source_text);
    err = raw_copy(&b, &source_text);
    free(b.p);
    if (err < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyMethodDef pc_sites_methods[] = {
    {"_census_site_select", site_select_fn, METH_O, NULL},
    {"_census_source", source_fn, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};
