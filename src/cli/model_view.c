/* model_view.c: the source view's part of the model (FORMAT.md 1.18):
 * per-line counts and site rows of hot code, source texts per file.
 *
 * Keys arrive once each per group (the aggregate summed them over the
 * dumps), so entries are appended and sorted at the end; only code
 * objects that two dumps name alike under different spellings (FILE
 * renamed portably) meet twice, and model_view_finish() merges them. */
#include "model.h"

#include "cli.h"
#include "text.h"
#include "../format/psf_keys.h"

#include <stdlib.h>
#include <string.h>

static void
add_to(m_line **v, size_t *n, size_t *cap, long line, uint64_t count)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *v = cli_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[*n].line = line;
    (*v)[*n].n = count;
    (*n)++;
}

static void
add_line(m_code *c, long line, uint64_t v)
{
    add_to(&c->lines, &c->nlines, &c->lines_cap, line, v);
}

/* "OFFSET | ROW": the site's offset and its row. */
static void
add_site(m_code *c, const char *b, size_t len, uint64_t v)
{
    const char *sep = memmem(b, len, PSF_SEP_FIELD, 3);
    m_vsite *s;

    if (sep == NULL)
        return;
    if (c->nvsites == c->vsites_cap) {
        c->vsites_cap = c->vsites_cap ? 2 * c->vsites_cap : 16;
        c->vsites = cli_xrealloc(c->vsites, c->vsites_cap * sizeof *c->vsites);
    }
    s = &c->vsites[c->nvsites++];
    s->offset = strtol(b, NULL, 10);
    s->row = cli_xstrndup(sep + 3, len - (size_t)(sep + 3 - b));
    s->n = v;
}

static m_src *
get_src(m_group *m, const char *file, size_t len)
{
    size_t i, plen;
    char *path, *port = where_rename(&m->wh, file, len, 0, len, &plen, &path);
    m_src *s;

    for (i = 0; i < m->nsrcs; i++)
        if (strcmp(m->srcs[i].file, port) == 0) {
            free(port);
            free(path);
            return &m->srcs[i];
        }
    m->srcs = cli_xrealloc(m->srcs, (m->nsrcs + 1) * sizeof *m->srcs);
    s = &m->srcs[m->nsrcs++];
    memset(s, 0, sizeof *s);
    s->file = port;
    s->path = path;
    return s;
}

/* "LINE | TEXT" of source file a. */
static void
add_src(m_group *m, const psf_key *k, uint64_t v)
{
    const char *sep = memmem(k->b, k->b_len, PSF_SEP_FIELD, 3);
    m_src *s;

    if (sep == NULL)
        return;
    s = get_src(m, k->a, k->a_len);
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = cli_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n].line = strtol(k->b, NULL, 10);
    s->v[s->n].text = cli_xstrndup(sep + 3, k->b_len - (size_t)(sep + 3 - k->b));
    s->v[s->n].n = v;
    s->n++;
}

int
model_view_add(m_group *m, const psf_key *k, uint64_t v,
               m_code *(*code_of)(m_group *, void *, const char *, size_t), void *ctx)
{
    switch (k->kind) {
    case PSF_K_CODE_LINE:
        if (k->b_num < 0 && !(k->b_len == strlen(PSF_CODE_NO_LINE) &&
                              memcmp(k->b, PSF_CODE_NO_LINE, k->b_len) == 0))
            return 0; /* not a line: kept under "other" */
        add_line(code_of(m, ctx, k->a, k->a_len), k->b_num, v);
        return 1;
    case PSF_K_CODE_SITE_EXEC:
        if (k->b_num < 0)
            return 0; /* not an offset: kept under "other" */
        {
            m_code *c = code_of(m, ctx, k->a, k->a_len);
            add_to(&c->sexec, &c->nsexec, &c->sexec_cap, k->b_num, v);
        }
        return 1;
    case PSF_K_CODE_SITE_ROW:
        add_site(code_of(m, ctx, k->a, k->a_len), k->b, k->b_len, v);
        return 1;
    case PSF_K_SOURCE_ROW:
        add_src(m, k, v);
        return 1;
    case PSF_K_LINES_OMITTED:
        m->lines_omitted += v;
        return 1;
    default:
        return 0;
    }
}

/* Lines ascending, the no-line bucket (-1) last. */
static int
line_cmp(const void *pa, const void *pb)
{
    const m_line *a = pa, *b = pb;
    unsigned long x = (unsigned long)a->line, y = (unsigned long)b->line;

    return x < y ? -1 : x > y;
}

static int
vsite_cmp(const void *pa, const void *pb)
{
    const m_vsite *a = pa, *b = pb;

    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return strcmp(a->row, b->row);
}

static int
srcline_cmp(const void *pa, const void *pb)
{
    const m_srcline *a = pa, *b = pb;

    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return strcmp(a->text, b->text);
}

/* Sort v by line (offset) and add up the entries of one line. */
static void
merge_lines(m_line *v, size_t *nv)
{
    size_t i, j = 0;

    qsort(v, *nv, sizeof *v, line_cmp);
    for (i = 0; i < *nv; i++) {
        if (j > 0 && v[j - 1].line == v[i].line) {
            uint64_t *n = &v[j - 1].n;
            *n = cli_sat_add(*n, v[i].n);
        }
        else {
            v[j++] = v[i];
        }
    }
    *nv = j;
}

uint64_t
model_site_executions(const m_code *c, long offset)
{
    size_t lo = 0, hi = c->nsexec;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->sexec[mid].line == offset)
            return c->sexec[mid].n;
        if (c->sexec[mid].line < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int
fsite_cmp(const void *pa, const void *pb)
{
    const m_fsite *a = pa, *b = pb;
    int c;

    if (a->executions != b->executions)
        return a->executions > b->executions ? -1 : 1;
    if ((c = strcmp(a->code->name, b->code->name)) != 0)
        return c;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

/* The sites of c run unspecialized: its rows (the one most dumps had per
 * offset) backing off or never tried that have executions.  Excluded
 * families (run unspecialized because of counting) are never taken. */
static void
rank_code(m_group *m, const m_code *c, size_t *cap)
{
    size_t i;

    for (i = 0; i < c->nvsites; i++) {
        const m_vsite *v = &c->vsites[i];
        char *f[7] = {NULL}, *p;
        uint64_t n;
        int k;

        if (i > 0 && c->vsites[i - 1].offset == v->offset)
            continue;
        n = model_site_executions(c, v->offset);
        if (n == 0)
            continue;
        p = cli_xstrndup(v->row, strlen(v->row));
        for (k = 0; k < 7 && p != NULL; k++) {
            f[k] = p;
            if (p != NULL && (p = strstr(p, PSF_SEP_FIELD)) != NULL) {
                *p = '\0';
                p += 3;
            }
        }
        if (f[3] == NULL ||
            (strcmp(f[1], PSF_SITE_BACKING_OFF) != 0 && strcmp(f[1], PSF_SITE_NEVER_TRIED) != 0)) {
            free(f[0]);
            continue;
        }
        if (m->nfsites == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            m->fsites = cli_xrealloc(m->fsites, *cap * sizeof *m->fsites);
        }
        /* family_exec: model.c's, from its opcodes (model_view_finish()'s
         * caller fills it in). */
        m->fsites[m->nfsites++] = (m_fsite){.code = c,
                                            .offset = v->offset,
                                            .fields = f[0],
                                            .family = f[0],
                                            .state = f[1],
                                            .detail = f[2],
                                            .line = f[3],
                                            .col = f[4] ? f[4] : "-",
                                            .end_line = f[5] ? f[5] : "-",
                                            .end_col = f[6] ? f[6] : "-",
                                            .executions = n};
    }
}

static void
rank_sites(m_group *m)
{
    size_t i, cap = 0;

    for (i = 0; i < m->ncode; i++)
        rank_code(m, &m->code[i], &cap);
    if (m->nfsites > 1)
        qsort(m->fsites, m->nfsites, sizeof *m->fsites, fsite_cmp);
}

void
model_view_finish(m_group *m)
{
    size_t i;

    for (i = 0; i < m->ncode; i++) {
        m_code *c = &m->code[i];
        if (c->nlines > 1)
            merge_lines(c->lines, &c->nlines);
        if (c->nsexec > 1)
            merge_lines(c->sexec, &c->nsexec);
        if (c->nvsites > 1)
            qsort(c->vsites, c->nvsites, sizeof *c->vsites, vsite_cmp);
    }
    for (i = 0; i < m->nsrcs; i++)
        if (m->srcs[i].n > 1)
            qsort(m->srcs[i].v, m->srcs[i].n, sizeof *m->srcs[i].v, srcline_cmp);
    rank_sites(m);
}

void
model_view_free(m_group *m)
{
    size_t i, j;

    for (i = 0; i < m->nfsites; i++)
        free(m->fsites[i].fields);
    free(m->fsites);
    m->fsites = NULL;
    m->nfsites = 0;
    for (i = 0; i < m->ncode; i++) {
        m_code *c = &m->code[i];
        for (j = 0; j < c->nvsites; j++)
            free(c->vsites[j].row);
        free(c->vsites);
        free(c->lines);
        free(c->sexec);
    }
    for (i = 0; i < m->nsrcs; i++) {
        for (j = 0; j < m->srcs[i].n; j++)
            free(m->srcs[i].v[j].text);
        free(m->srcs[i].v);
        free(m->srcs[i].file);
        free(m->srcs[i].path);
    }
    free(m->srcs);
}

const m_code *
model_code(const m_group *m, const char *name)
{
    size_t i;

    for (i = 0; i < m->ncode; i++)
        if (strcmp(m->code[i].name, name) == 0)
            return &m->code[i];
    return NULL;
}

const m_src *
model_src(const m_group *m, const char *file, size_t len)
{
    size_t i;

    for (i = 0; i < m->nsrcs; i++)
        if (strlen(m->srcs[i].file) == len && memcmp(m->srcs[i].file, file, len) == 0)
            return &m->srcs[i];
    return NULL;
}

const char *
model_fsite_source(const m_group *g, const m_fsite *f)
{
    const m_src *src = model_src(g, f->code->name, f->code->file_len);
    long line = strtol(f->line, NULL, 10);
    size_t lo = 0, hi = src ? src->n : 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (src->v[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return src && lo < src->n && src->v[lo].line == line ? src->v[lo].text : NULL;
}

/* Whether the file of c (as the dump wrote it) is the standard
 * library's (model.h, m_code_filter). */
static int
code_is_stdlib(const m_code *c)
{
    size_t n = c->path ? strlen(c->path) : c->file_len;
    char *f = cli_xstrndup(c->path ? c->path : c->name, n);
    const char *p;
    int yes = 0;

    if (strncmp(f, "<frozen ", 8) == 0)
        yes = 1;
    else if (strstr(f, "/site-packages/") == NULL && strstr(f, "/dist-packages/") == NULL) {
        for (p = strstr(f, "/lib/python3."); p != NULL && !yes;
             p = strstr(p + 1, "/lib/python3.")) {
            const char *q = p + strlen("/lib/python3.");
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == 't')
                q++;
            yes = *q == '/' && q > p + strlen("/lib/python3.");
        }
    }
    free(f);
    return yes;
}

/* Whether name[0..len) is module or lies under it (module "a.b": "a.b",
 * "a.b.c"). */
static int
under_module(const char *name, size_t len, const char *module)
{
    size_t m = strlen(module);

    return len >= m && memcmp(name, module, m) == 0 && (len == m || name[m] == '.');
}

/* Whether the relative path name[0..len) is the file of module or lies
 * under its package (module "a.b": "a/b.py", "a/b/c.py"): code named by
 * its path relative to the working directory (where.h). */
static int
under_module_path(const char *name, size_t len, const char *module)
{
    size_t i, m = strlen(module);

    if (len <= m || name[0] == '/')
        return 0;
    for (i = 0; i < m; i++)
        if (name[i] != (module[i] == '.' ? '/' : module[i]))
            return 0;
    return name[m] == '/' || (len == m + 3 && memcmp(name + m, ".py", 3) == 0);
}

static int
code_matches(const m_code *c, const char *prefix)
{
    size_t fl = c->qual ? c->file_len : strlen(c->name), m = strlen(prefix);

    if (strchr(prefix, '/') != NULL)
        return (fl >= m && memcmp(c->name, prefix, m) == 0) ||
               (c->path != NULL && strncmp(c->path, prefix, m) == 0);
    return under_module(c->name, fl, prefix) || under_module_path(c->name, fl, prefix) ||
           (c->module != NULL && under_module(c->module, c->module_len, prefix));
}

int
model_code_kept(const m_code *c, const m_code_filter *f)
{
    size_t j;

    if (f->no_stdlib && code_is_stdlib(c))
        return 0;
    for (j = 0; j < f->nprefix; j++)
        if (code_matches(c, f->prefix[j]))
            return 1;
    return f->nprefix == 0;
}

void
model_filter_code(m_group *m, const m_code_filter *f)
{
    size_t i, k = 0;

    for (i = 0; i < m->ncode; i++) {
        m_code *c = &m->code[i];
        c->out = !model_code_kept(c, f);
        if (c->out && i < m->nhot) { /* hot code, not a generated function's site record */
            m->hot_out++;
            m->hot_out_instructions = cli_sat_add(m->hot_out_instructions, c->instructions);
        }
    }
    for (i = 0; i < m->nfsites; i++) {
        m_fsite *s = &m->fsites[i];
        /* s->code is one of code[], marked above. */
        int std = code_is_stdlib(s->code), keep = !s->code->out;
        if (std)
            m->fs_stdlib++;
        if (!keep) {
            if (std && f->no_stdlib)
                m->fs_stdlib_out++;
            else
                m->fs_prefix_out++;
            free(s->fields);
        }
        else
            m->fsites[k++] = *s;
    }
    m->nfsites = k;
}

/* Whether another ranked site of f's code object, of its family, is on
 * its line (1: the file and line do not tell them apart), and at its
 * very place (2: nor does the column: the offset does). */
static int
fsite_twins(const m_group *g, const m_fsite *f)
{
    size_t i;
    int r = 0;

    for (i = 0; i < g->nfsites; i++) {
        const m_fsite *o = &g->fsites[i];
        if (o == f || o->code != f->code || o->offset == f->offset ||
            strcmp(o->line, f->line) != 0 || strcmp(o->family, f->family) != 0)
            continue;
        r = 1;
        if (strcmp(o->col, f->col) == 0 && strcmp(o->end_line, f->end_line) == 0 &&
            strcmp(o->end_col, f->end_col) == 0)
            return 2;
    }
    return r;
}

/* A field of a site row's position: a number, or -1 for "-". */
static long
pos_field(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    return end == s || *end || v < 0 ? -1 : v;
}

void
model_fsite_apart(const m_group *g, const m_fsite *f, m_apart *a)
{
    int twins = fsite_twins(g, f);
    const char *enc;
    long end;
    char *text;

    memset(a, 0, sizeof *a);
    if (twins == 0)
        return;
    a->col = pos_field(f->col);
    if (a->col < 0 || twins == 2) {
        a->kind = M_APART_OFFSET;
        return;
    }
    a->kind = M_APART_COLUMN;
    enc = model_fsite_source(g, f);
    end = pos_field(f->end_col);
    if (enc == NULL || end <= a->col || strcmp(f->end_line, f->line) != 0)
        return;
    text = text_display(enc);
    if ((size_t)end <= strlen(text)) {
        memmove(text, text + a->col, (size_t)(end - a->col));
        text[end - a->col] = '\0';
        a->span = text;
        return;
    }
    free(text);
}
