/* annotate.c: the source view's model (annotate.h), built from the
 * report model: which functions, each line's count, text and sites. */
#include "annotate.h"

#include "cli.h"
#include "text.h"
#include "../format/psf_keys.h"
#include "../format/psf_line.h"
#include "../format/psf_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest source file read (a bound on time and memory). */
#define A_FILE_MAX (64L << 20)

const char *const a_state_words[A_STATE_COUNT] = {"specialized", "backing off", "never tried",
                                                  "not read"};

/* ---- sites ---------------------------------------------------------------- */

static long
pos_field(const char *s)
{
    return strcmp(s, PSF_NO_POSITION) == 0 ? -1 : strtol(s, NULL, 10);
}

/* Split a row (FAMILY | STATE | DETAIL | LINE | COL | END_LINE |
 * END_COL, checked by the reader) into s.  Returns 0, or -1. */
static int
parse_site(a_site *s, long offset, const char *row)
{
    const char *f[7];
    size_t fl[7], i;
    char *p;

    memset(s, 0, sizeof *s);
    if (psf_split_fields(row, strlen(row), f, fl, 7) != 7)
        return -1;
    s->offset = offset;
    s->base_state = -1;
    s->state = psf_site_state(f[1], fl[1]);
    if (s->state < 0)
        return -1;
    /* The fields, each NUL-terminated, in one copy of the row. */
    s->fields = p = cli_xstrdup(row);
    for (i = 0; i < 7; i++)
        p[(size_t)(f[i] - row) + fl[i]] = '\0';
    s->family = p + (f[0] - row);
    s->detail = p + (f[2] - row);
    s->line = pos_field(p + (f[3] - row));
    s->col = pos_field(p + (f[4] - row));
    s->end_line = pos_field(p + (f[5] - row));
    s->end_col = pos_field(p + (f[6] - row));
    return 0;
}

static int
site_cmp(const void *pa, const void *pb)
{
    const a_site *a = pa, *b = pb;

    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if (a->end_col != b->end_col) /* the enclosing one first */
        return a->end_col > b->end_col ? -1 : 1;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* One site per offset: the row most dumps had (vsites are sorted by
 * offset, then most dumps first). */
static void
take_sites(a_fn *f, const m_code *c)
{
    size_t i = 0, j;

    f->sites = cli_xcalloc(c->nvsites ? c->nvsites : 1, sizeof *f->sites);
    while (i < c->nvsites) {
        uint64_t all = 0;
        for (j = i; j < c->nvsites && c->vsites[j].offset == c->vsites[i].offset; j++)
            all += c->vsites[j].n;
        if (parse_site(&f->sites[f->nsites], c->vsites[i].offset, c->vsites[i].row) == 0) {
            f->sites[f->nsites].n = c->vsites[i].n;
            f->sites[f->nsites].ndumps = all;
            f->sites[f->nsites].has_exec = c->nsexec > 0;
            f->sites[f->nsites].executions = model_site_executions(c, c->vsites[i].offset);
            f->nsites++;
        }
        i = j;
    }
    qsort(f->sites, f->nsites, sizeof *f->sites, site_cmp);
}

/* ---- source text ---------------------------------------------------------- */

/* The dump's text of line (canonical), the one most dumps had; NULL. */
static const char *
dump_text(const m_src *s, long line)
{
    size_t lo = 0, hi = s ? s->n : 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return s && lo < s->n && s->v[lo].line == line ? s->v[lo].text : NULL;
}

/* A file's lines as read now, each in the canonical text form. */
typedef struct a_file {
    char *path;  /* owned: the bytes tried */
    char **line; /* owned: line[i] is line i + 1 */
    size_t n;
    char why[A_WHY_MAX]; /* not read: what the path is instead ("" read) */
} a_file;

/* The bytes a canonical path stands for: decoded, and each surrogate
 * U+DC80-U+DCFF (an undecodable byte, surrogateescape) back to its byte. */
static char *
path_bytes(const char *enc)
{
    size_t n = strlen(enc), i, j = 0, len;
    char *d = cli_xmalloc(n + 1);
    unsigned char *u = (unsigned char *)d;

    len = psf_text_decode(enc, n, d);
    if (len == (size_t)-1) {
        free(d);
        return NULL;
    }
    for (i = 0; i < len; i++) {
        if (i + 2 < len && u[i] == 0xED && (u[i + 1] & 0xFE) == 0xB2 && (u[i + 2] & 0xC0) == 0x80) {
            u[j++] = (unsigned char)(0x80 | ((u[i + 1] & 1) << 6) | (u[i + 2] & 0x3F));
            i += 2;
        }
        else {
            u[j++] = u[i];
        }
    }
    d[j] = '\0';
    return d;
}

static void
file_free(a_file *f)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        free(f->line[i]);
    free(f->line);
    free(f->path);
    memset(f, 0, sizeof *f);
}

/* What a path that is not a regular file is, for a sentence "the file is
 * ...". */
static const char *
kind_of(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
           : S_ISDIR(m)  ? "a directory"
                         : "not a regular file";
}

/* path opened for reading if it is a regular file of at most A_FILE_MAX
 * bytes (a dump may name anything: a FIFO is never waited on, a device
 * never read); NULL otherwise, with what it is instead in why. */
static FILE *
file_open(const char *path, char *why, size_t size)
{
    int fd, err;
    struct stat st;
    FILE *in;

    /* Told apart before opening: a FIFO opened without a writer is
     * opened all the same (O_NONBLOCK), a device's open may act. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(why, size, "%s", kind_of(st.st_mode));
        return NULL;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        err = errno;
        snprintf(why, size, "%s", err == ENOENT || err == ENOTDIR ? "gone" : "not readable: ");
        if (err != ENOENT && err != ENOTDIR)
            snprintf(why + strlen(why), size - strlen(why), "%s", strerror(err));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, size, "%s", kind_of(st.st_mode));
        close(fd);
        return NULL;
    }
    if (st.st_size > A_FILE_MAX) {
        snprintf(why, size, "too big (%lld bytes, more than the %ld read)", (long long)st.st_size,
                 A_FILE_MAX);
        close(fd);
        return NULL;
    }
    if ((in = fdopen(fd, "rb")) == NULL) {
        snprintf(why, size, "not readable: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    return in;
}

/* Read path (bytes) into f, each line without its line break, encoded. */
static void
file_read(a_file *f, const char *path)
{
    FILE *in = file_open(path, f->why, sizeof f->why);
    char *buf = NULL;
    size_t cap = 0, cap_l = 0;
    ssize_t got;

    f->path = cli_xstrdup(path);
    if (in == NULL)
        return;
    while ((got = getline(&buf, &cap, in)) >= 0) {
        size_t n = (size_t)got, elen;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            n--;
        if (f->n == cap_l) {
            cap_l = cap_l ? 2 * cap_l : 256;
            f->line = cli_xrealloc(f->line, cap_l * sizeof *f->line);
        }
        elen = psf_text_encode(buf, n, NULL, 0);
        f->line[f->n] = cli_xmalloc(elen + 1);
        psf_text_encode(buf, n, f->line[f->n], elen + 1);
        f->n++;
    }
    free(buf);
    fclose(in);
}

/* The file code names, read now (the last one read is kept in f). */
static void
file_of(a_file *f, const m_group *m, const m_code *c)
{
    char *enc = c->path ? cli_xstrdup(c->path) : cli_xstrndup(c->name, c->file_len);
    char *path = path_bytes(enc), *full = NULL;

    free(enc);
    if (path == NULL || path[0] == '<') {
        free(path);
        file_free(f);
        snprintf(f->why, sizeof f->why, "no file on disk (code made from a string)");
        return;
    }
    if (path[0] != '/' && m->wh.cwd != NULL) {
        full = cli_xmalloc(m->wh.cwd_len + strlen(path) + 2);
        sprintf(full, "%.*s/%s", (int)m->wh.cwd_len, m->wh.cwd, path);
        free(path);
        path = full;
    }
    if (f->path == NULL || strcmp(f->path, path) != 0) {
        file_free(f);
        file_read(f, path);
    }
    free(path);
}

/* Whether two canonical lines differ other than in trailing blanks. */
static int
differ(const char *x, const char *y)
{
    size_t a = strlen(x), b = strlen(y);

    while (a > 0 && (x[a - 1] == ' ' || (a >= 3 && memcmp(x + a - 3, "%20", 3) == 0)))
        a -= x[a - 1] == ' ' ? 1 : 3;
    while (b > 0 && (y[b - 1] == ' ' || (b >= 3 && memcmp(y + b - 3, "%20", 3) == 0)))
        b -= y[b - 1] == ' ' ? 1 : 3;
    return a != b || memcmp(x, y, a) != 0;
}

/* ---- functions ------------------------------------------------------------ */

static void
line_range(const m_code *c, const a_fn *f, long *lo, long *hi)
{
    size_t i;

    *lo = *hi = f->first;
    for (i = 0; i < c->nlines; i++)
        if (c->lines[i].line >= 0) {
            if (c->lines[i].line < *lo)
                *lo = c->lines[i].line;
            if (c->lines[i].line > *hi)
                *hi = c->lines[i].line;
        }
    for (i = 0; i < f->nsites; i++) {
        long e = f->sites[i].end_line > f->sites[i].line ? f->sites[i].end_line : f->sites[i].line;
        if (f->sites[i].line >= *lo && e > *hi)
            *hi = e;
    }
    if (*hi - *lo >= A_SPAN_MAX)
        *hi = *lo + A_SPAN_MAX - 1;
}

/* Each line's count, text and sites; no_read: why the file the dumps name
 * is not read (NULL: it may be). */
static void
fill_lines(a_fn *f, const m_group *m, const m_code *c, a_file *file, const char *no_read)
{
    const m_src *src = model_src(m, c->name, c->file_len);
    long lo, hi, l;
    size_t i, s = 0, from_dump = 0, from_file = 0;

    line_range(c, f, &lo, &hi);
    f->nlines = (size_t)(hi - lo + 1);
    f->lines = cli_xcalloc(f->nlines, sizeof *f->lines);
    if (file && no_read == NULL)
        file_of(file, m, c);
    else if (file)
        file_free(file);
    for (l = lo; l <= hi && file; l++) {
        a_line *al = &f->lines[l - lo];
        const char *dt = dump_text(src, l), *ft = NULL;
        al->line = l;
        if (l >= 1 && file->line != NULL && (size_t)l <= file->n)
            ft = file->line[l - 1];
        if (dt && ft && differ(dt, ft))
            f->changed = 1;
        if (dt || ft)
            al->text = text_display(dt ? dt : ft);
        from_dump += dt != NULL;
        from_file += dt == NULL && ft != NULL;
    }
    f->source = from_dump && from_file ? A_SRC_MIXED
                : from_dump            ? A_SRC_DUMP
                : from_file            ? A_SRC_FILE
                                       : A_SRC_NONE;
    if (file && f->source == A_SRC_NONE)
        snprintf(f->nosrc, sizeof f->nosrc, "%s",
                 no_read        ? no_read
                 : file->why[0] ? file->why
                                : "without these lines (it changed since the run?)");
    for (l = lo; l <= hi; l++)
        f->lines[l - lo].line = l;
    for (i = 0; i < c->nlines; i++) {
        if (c->lines[i].line < 0)
            f->no_line += c->lines[i].n;
        else if (c->lines[i].line > hi)
            f->beyond += c->lines[i].n;
        else {
            f->lines[c->lines[i].line - lo].counted = 1;
            f->lines[c->lines[i].line - lo].count += c->lines[i].n;
        }
    }
    for (i = 0; i < f->nlines; i++) {
        while (s < f->nsites && f->sites[s].line < f->lines[i].line)
            f->unplaced++, s++;
        f->lines[i].site0 = s;
        while (s < f->nsites && f->sites[s].line == f->lines[i].line)
            s++;
        f->lines[i].nsites = s - f->lines[i].site0;
    }
    f->unplaced += f->nsites - s;
}

static int
matches(const m_code *c, const char *want)
{
    size_t n = strlen(c->name), w;

    if (want == NULL)
        return 1;
    w = strlen(want);
    if (c->qual && strcmp(c->qual, want) == 0)
        return 1;
    return w <= n && memcmp(c->name + n - w, want, w) == 0 && w > 0;
}

/* The site record of generated code c (FORMAT.md 1.18: its hot code has
 * the key FILE:LINE:QUALNAME, its rows FILE:LINE:QUALNAME:MODULE:
 * FUNCQUAL): the one record of that FILE, LINE and QUALNAME with rows;
 * c itself when it has rows, is no such code, or several modules
 * generated a function of that key (their rows cannot be told apart
 * from its lines). */
static const m_code *
sites_of(const m_group *m, const m_code *c)
{
    const m_code *found = NULL;
    size_t i, head = c->qual ? (size_t)(c->qual - c->name) : 0;

    if (c->nvsites || c->module != NULL || c->qual == NULL)
        return c;
    for (i = m->nhot; i < m->ncode; i++) {
        const m_code *s = &m->code[i];
        if (s->module == NULL || s->nvsites == 0 || s->co_qual == NULL ||
            strncmp(s->name, c->name, head) != 0 || s->co_qual_len != strlen(c->qual) ||
            memcmp(s->co_qual, c->qual, s->co_qual_len) != 0)
            continue;
        if (found != NULL)
            return c;
        found = s;
    }
    return found ? found : c;
}

static void
fn_build(a_fn *f, size_t idx, const m_group *m, const m_code *c, a_file *file,
         const annotate_opts *o, const char *no_read)
{
    char id[160];

    memset(f, 0, sizeof *f);
    f->c = c;
    f->file = text_display_n(c->name, c->file_len);
    f->qual = c->qual ? text_display(c->qual) : cli_xstrdup("");
    if (o->anchor)
        snprintf(id, sizeof id, "%.120s-fn-%zu", o->anchor, idx + 1);
    else
        snprintf(id, sizeof id, "fn-%zu", idx + 1);
    f->anchor = cli_xstrdup(id);
    f->first = c->line ? strtol(c->line, NULL, 10) : 1;
    f->instructions = c->instructions;
    f->calls = c->calls;
    take_sites(f, sites_of(m, c));
    fill_lines(f, m, c, o->no_text ? NULL : file, no_read);
}

size_t
annotate_build(annotate *a, const m_group *m, const annotate_opts *o)
{
    a_file file = {0};
    size_t i, j;
    /* A file is read only for the reader's own dumps: whoever wrote a
     * dump chose the files it names, and the reader's rights read them. */
    const char *no_read = o->dump_text_only                              ? A_NOT_READ_PAGE
                          : m->src == NULL || !agg_group_vouched(m->src) ? A_NOT_READ_FOREIGN
                                                                         : NULL;

    memset(a, 0, sizeof *a);
    a->m = m;
    a->minor = m->src ? m->src->minor : 0;
    a->fn = cli_xcalloc(m->ncode ? m->ncode : 1, sizeof *a->fn);
    for (i = 0; i < m->ncode; i++) {
        const m_code *c = &m->code[i];
        if (c->nlines == 0 || c->out)
            continue;
        a->with_lines++;
        a->total += c->instructions;
        if ((o->top <= 0 || a->nfn < (size_t)o->top) && matches(c, o->function)) {
            fn_build(&a->fn[a->nfn], a->nfn, m, c, &file, o, no_read);
            for (j = 0; j < a->fn[a->nfn].nsites; j++)
                a->site_states[a->fn[a->nfn].sites[j].state]++;
            a->nfn++;
        }
    }
    file_free(&file);
    return a->nfn;
}

void
annotate_free(annotate *a)
{
    size_t i, j;

    for (i = 0; i < a->nfn; i++) {
        a_fn *f = &a->fn[i];
        for (j = 0; j < f->nlines; j++)
            free(f->lines[j].text);
        for (j = 0; j < f->nsites; j++)
            free(f->sites[j].fields);
        free(f->lines);
        free(f->sites);
        free(f->file);
        free(f->qual);
        free(f->anchor);
    }
    free(a->fn);
    memset(a, 0, sizeof *a);
}
