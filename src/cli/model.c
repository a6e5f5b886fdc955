/* model.c: turning a group's canonical keys into the report model. */
#include "model.h"
#include "../format/psf_keys.h"
#include "../format/psf_stats.h"

#include "cli.h"
#include "../format/psf_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
bucket_cmp(const void *pa, const void *pb)
{
    const m_kv *a = pa, *b = pb;
    unsigned long long x = strtoull(a->name, NULL, 10), y = strtoull(b->name, NULL, 10);

    return x < y ? -1 : x > y;
}

/* The op called name[0..len), created if new.  Linear search would be
 * quadratic over ~250 ops x ~1,500 keys: still small, but a key table
 * keeps it linear. */
static m_op *
get_op(m_ops *ops, ktab *index, const char *name, size_t len)
{
    int is_new;
    size_t id = ktab_intern(index, name, len, &is_new);

    if (is_new) {
        if (ops->n == ops->cap) {
            ops->cap = ops->cap ? ops->cap * 2 : 64;
            ops->v = cli_xrealloc(ops->v, ops->cap * sizeof *ops->v);
        }
        memset(&ops->v[ops->n], 0, sizeof ops->v[ops->n]);
        ops->v[ops->n].name = cli_xstrndup(name, len);
        ops->v[ops->n].spec_form = -1;
        ops->v[ops->n].order = SIZE_MAX;
        ops->n++;
    }
    return &ops->v[id];
}

static int
op_cmp(const void *pa, const void *pb)
{
    return strcmp(((const m_op *)pa)->name, ((const m_op *)pb)->name);
}

static m_hist *
get_hist(m_group *m, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < m->nhist; i++)
        if (strlen(m->hist[i].name) == len && memcmp(m->hist[i].name, name, len) == 0)
            return &m->hist[i];
    m->hist = cli_xrealloc(m->hist, (m->nhist + 1) * sizeof *m->hist);
    memset(&m->hist[m->nhist], 0, sizeof *m->hist);
    m->hist[m->nhist].name = cli_xstrndup(name, len);
    return &m->hist[m->nhist++];
}

static m_cfam *
get_cfam(m_group *m, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < m->ncfam; i++)
        if (strlen(m->cfam[i].name) == len && memcmp(m->cfam[i].name, name, len) == 0)
            return &m->cfam[i];
    m->cfam = cli_xrealloc(m->cfam, (m->ncfam + 1) * sizeof *m->cfam);
    memset(&m->cfam[m->ncfam], 0, sizeof *m->cfam);
    m->cfam[m->ncfam].name = cli_xstrndup(name, len);
    return &m->cfam[m->ncfam++];
}

/* Key tables of model_build: name -> index in its array. */
enum { IDX_OP = 0, IDX_UOP, IDX_SITE, IDX_CODE, IDX_COUNT };

/* Site rows can be many (hundreds per program, summed over many
 * programs): found through a key table, like ops. */
/* A site row "F | FILE | ..." with its FILE named portably. */
static char *
portable_row(const where *w, const char *row, size_t len, size_t *out_len, char **path)
{
    const char *a = memmem(row, len, " | ", 3);
    const char *b = a ? memmem(a + 3, len - (size_t)(a + 3 - row), " | ", 3) : NULL;

    if (b == NULL) {
        *path = NULL;
        *out_len = len;
        return cli_xstrndup(row, len);
    }
    return where_rename(w, row, len, (size_t)(a + 3 - row), (size_t)(b - row), out_len, path);
}

static m_csite *
get_site(m_group *m, ktab *index, const char *raw_row, size_t raw_len)
{
    m_csite *c;
    char *p;
    const char **f[5];
    int i, is_new;
    size_t len, id;
    char *path, *row = portable_row(&m->wh, raw_row, raw_len, &len, &path);

    id = ktab_intern(index, row, len, &is_new);
    if (!is_new) {
        free(row);
        free(path);
        return &m->sites[id];
    }
    m->sites = cli_xrealloc(m->sites, (m->nsites + 1) * sizeof *m->sites);
    c = &m->sites[m->nsites++];
    memset(c, 0, sizeof *c);
    c->row = row;
    c->path = path;
    c->fields = cli_xstrndup(row, len);
    f[0] = &c->family;
    f[1] = &c->file;
    f[2] = &c->line;
    f[3] = &c->func;
    f[4] = &c->source;
    p = c->fields;
    for (i = 0; i < 5; i++) {
        char *sep = i < 4 ? strstr(p, " | ") : NULL;
        *f[i] = p;
        if (sep) {
            *sep = '\0';
            p = sep + 3;
        }
        else {
            p += strlen(p); /* missing fields are empty */
        }
    }
    return c;
}

/* A site key of generated code (QUALNAME:MODULE:FUNCQUAL after LINE,
 * each part free of raw ':'): the function named as the program calls
 * it (FORMAT.md 1.18). */
static void
code_parts(m_code *c)
{
    const char *c3 = strchr(c->qual, ':'), *c4 = c3 ? strchr(c3 + 1, ':') : NULL;

    if (c4 == NULL)
        return;
    c->co_qual = c->qual;
    c->co_qual_len = (size_t)(c3 - c->qual);
    c->module = c3 + 1;
    c->module_len = (size_t)(c4 - c3 - 1);
    c->qual = c4 + 1;
}

/* The entry of hot code key FILE:LINE:QUALNAME (canonical text), FILE
 * renamed portably (where.h). */
static m_code *
get_code(m_group *m, ktab *index, const char *name, size_t len)
{
    const char *c1 = memchr(name, ':', len), *c2;
    char *file = NULL, *key;
    size_t id, klen;
    int is_new;
    m_code *c;

    if (c1 != NULL) {
        key = where_rename(&m->wh, name, len, 0, (size_t)(c1 - name), &klen, &file);
    }
    else {
        key = cli_xstrndup(name, len);
        klen = len;
    }
    id = ktab_intern(index, key, klen, &is_new);
    if (!is_new) {
        free(key);
        free(file);
        return &m->code[id];
    }
    m->code = cli_xrealloc(m->code, (m->ncode + 1) * sizeof *m->code);
    c = &m->code[m->ncode++];
    memset(c, 0, sizeof *c);
    c->name = key;
    c1 = strchr(key, ':');
    c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    c->file_len = c2 ? (size_t)(c1 - key) : klen;
    if (c2) {
        c->line = c1 + 1;
        c->line_len = (size_t)(c2 - c1 - 1);
        c->qual = c2 + 1;
        code_parts(c);
    }
    c->path = file;
    return c;
}

static void
add_census(m_group *m, const psf_key *k, uint64_t v)
{
    m_cfam *f;
    size_t i;

    m->has_census = 1;
    if (k->a == NULL) {
        m_list_add(&m->census, k->b, k->b_len, v);
        return;
    }
    f = get_cfam(m, k->a, k->a_len);
    i = psf_stat_rank(&psf_stats_census_family, k->b, k->b_len);
    if (i < PSF_NCF)
        f->f[i] = cli_sat_add(f->f[i], v);
    else
        m_list_add(&f->extra, k->b, k->b_len, v);
}

/* census.excluded_family[F]: F's sites left out of a census taken
 * alongside counting (an OTHER key to the shared key grammar, so that
 * readers that do not know it keep it as a plain counter).  Returns 1
 * and sets the family if s is one. */
static int
census_excluded(const char *s, size_t n, const char **fam, size_t *flen)
{
    static const char pre[] = PSF_KEY_CENSUS_EXCLUDED;
    size_t p = sizeof pre - 1;

    if (n <= p + 1 || memcmp(s, pre, p) != 0 || s[n - 1] != ']' ||
        memchr(s + p, ']', n - p - 1) != NULL)
        return 0;
    *fam = s + p;
    *flen = n - p - 1;
    return 1;
}

/* Whether g was read from one CPython summary and nothing else: then its
 * key order is that file's. */
static int
one_cpython_file(const agg_group *g)
{
    size_t i;

    for (i = 0; i < AGG_FMT_COUNT; i++)
        if (i != AGG_FMT_CPYTHON_JSON && g->fmt[i])
            return 0;
    for (i = 0; i < g->nhdr; i++)
        if (strcmp(g->hdr[i].key, AGG_HDR_CPY_INPUT) == 0)
            return g->hdr[i].vals.n == 1 && g->hdr[i].vals.v[0].n == 1;
    return 0;
}

const char *
model_hdr_top(const agg_group *g, const char *key)
{
    const agg_strs *v = NULL;
    size_t i, best = 0;

    for (i = 0; i < g->nhdr && v == NULL; i++)
        if (strcmp(g->hdr[i].key, key) == 0)
            v = &g->hdr[i].vals;
    if (v == NULL || v->n == 0)
        return NULL;
    for (i = 1; i < v->n; i++)
        if (v->v[i].n > v->v[best].n)
            best = i;
    return v->v[best].text;
}

/* The words of a space-separated list, as a set: one pass over the list,
 * so that asking for every opcode of a group stays linear. */
static void
word_set(ktab *set, const char *list)
{
    const char *p = list, *e;

    while (*p) {
        int is_new;
        while (*p == ' ')
            p++;
        for (e = p; *e && *e != ' '; e++)
            ;
        if (e > p)
            ktab_intern(set, p, (size_t)(e - p), &is_new);
        p = e;
    }
}

/* A failure kind; CPython lists equal counts by kind number. */
static void
fail_add(m_list *l, const char *name, uint64_t v, uint64_t kind)
{
    size_t i, n = l->n;

    m_list_add(l, name, strlen(name), v);
    for (i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0 && (i == n || kind < l->v[i].seq))
            l->v[i].seq = kind;
}

/* CPython's label of failure kind `kind` of opname: with the names the
 * input's own _defines give that number, else the version's table. */
static void
fail_label(const agg_group *g, const char *opname, int kind, char *buf, size_t size, char *raw,
           size_t rsize)
{
    const char *names[64], *def, *matched;
    char key[64], words[2048], *w, *save = NULL;
    size_t n = 0;

    snprintf(key, sizeof key, "%s[%d]", AGG_HDR_CPY_DEFINES, kind);
    def = model_hdr_top(g, key);
    if (def != NULL) {
        snprintf(words, sizeof words, "%s", def);
        for (w = strtok_r(words, " ", &save); w && n < 64; w = strtok_r(NULL, " ", &save))
            names[n++] = w;
    }
    else {
        n = psf_tab_fail_names(g->minor, kind, names, 64);
    }
    if (psf_tab_fail_label(g->minor, opname, kind, names, n, buf, size, &matched))
        snprintf(raw, rsize, "%s", matched);
    else
        snprintf(raw, rsize, "kind %d", kind);
}

/* opcode[NAME].specialization.failure_kinds[KIND]: by CPython's label
 * and by SPEC_FAIL_ name, a kind given by number or by name. */
static void
add_fail_kind(const agg_group *g, m_op *op, const psf_key *kp, uint64_t v)
{
    const psf_key k = *kp;
    char kname[128], raw[128];

    op->has_spec = 1;
    if (k.b_num >= 0) {
        fail_label(g, op->name, (int)k.b_num, kname, sizeof kname, raw, sizeof raw);
        fail_add(&op->fail, kname, v, (uint64_t)k.b_num);
        fail_add(&op->fail_names, raw, v, (uint64_t)k.b_num);
    }
    else {
        /* A name: a label already, or a SPEC_FAIL_ name of an older
         * summary ("ATTR_CLASS_METHOD_OBJ"), labelled alike. */
        size_t j;
        int upper = k.b_len < sizeof raw;
        for (j = 0; upper && j < k.b_len; j++)
            upper = (k.b[j] >= 'A' && k.b[j] <= 'Z') || k.b[j] == '_' ||
                    (k.b[j] >= '0' && k.b[j] <= '9');
        if (upper) {
            const char *one[1] = {raw};
            memcpy(raw, k.b, k.b_len);
            raw[k.b_len] = '\0';
            if (!psf_tab_fail_label(g->minor, op->name, 9, one, 1, kname, sizeof kname, NULL))
                psf_tab_fail_label(g->minor, op->name, 0, one, 1, kname, sizeof kname, NULL);
            m_list_add(&op->fail, kname, strlen(kname), v);
        }
        else {
            m_list_add(&op->fail, k.b, k.b_len, v);
        }
        m_list_add(&op->fail_names, k.b, k.b_len, v);
    }
}

/* An instruction's or micro-op's key: 1 if k is one (added), else 0. */
static int
add_op_key(m_group *m, ktab *idx, const agg_group *g, size_t slot, const psf_key *kp, uint64_t v)
{
    const psf_key k = *kp;
    m_op *op;

    switch (k.kind) {
    case PSF_K_OP_EXEC:
    case PSF_K_OP_SPECIALIZABLE:
    case PSF_K_OP_SPEC:
    case PSF_K_OP_FAIL_KIND:
    case PSF_K_OP_PAIR:
        op = get_op(&m->ops, &idx[IDX_OP], k.a, k.a_len);
        if (op->order == SIZE_MAX)
            op->order = slot;
        break;
    default:
        break;
    }
    switch (k.kind) {
    case PSF_K_OP_EXEC:
        op = get_op(&m->ops, &idx[IDX_OP], k.a, k.a_len);
        op->has_exec = 1;
        op->exec += v;
        return 1;
    case PSF_K_OP_SPECIALIZABLE:
        op = get_op(&m->ops, &idx[IDX_OP], k.a, k.a_len);
        op->specializable |= v != 0;
        return 1;
    case PSF_K_OP_SPEC:
        op = get_op(&m->ops, &idx[IDX_OP], k.a, k.a_len);
        op->has_spec = 1;
        op->spec[k.field] += v;
        return 1;
    case PSF_K_OP_FAIL_KIND:
        add_fail_kind(g, get_op(&m->ops, &idx[IDX_OP], k.a, k.a_len), kp, v);
        return 1;
    case PSF_K_OP_PAIR:
        op = get_op(&m->ops, &idx[IDX_OP], k.a, k.a_len);
        m_list_add(&op->succ, k.b, k.b_len, v);
        op = get_op(&m->ops, &idx[IDX_OP], k.b, k.b_len);
        m_list_add(&op->pred, k.a, k.a_len, v);
        m->has_pairs = 1;
        return 1;
    case PSF_K_UOP_EXEC:
        op = get_op(&m->uops, &idx[IDX_UOP], k.a, k.a_len);
        op->has_exec = 1;
        op->exec += v;
        return 1;
    case PSF_K_UOP_MISS:
        op = get_op(&m->uops, &idx[IDX_UOP], k.a, k.a_len);
        op->has_spec = 1;
        op->spec[PSF_SPEC_MISS] += v;
        return 1;
    case PSF_K_UOP_PAIR:
        op = get_op(&m->uops, &idx[IDX_UOP], k.a, k.a_len);
        m_list_add(&op->succ, k.b, k.b_len, v);
        return 1;
    default:
        return 0;
    }
}

static m_code *
code_of(m_group *m, void *idx, const char *name, size_t len)
{
    return get_code(m, &((ktab *)idx)[IDX_CODE], name, len);
}

/* A census key (FORMAT.md 1.10): 1 if k is one, added to m. */
static int
add_census_key(m_group *m, ktab *idx, const psf_key *k, uint64_t v)
{
    m_csite *c;

    switch (k->kind) {
    case PSF_K_CENSUS:
        add_census(m, k, v);
        return 1;
    case PSF_K_CENSUS_FORM:
        m->has_census = 1;
        m_list_add(&get_cfam(m, k->a, k->a_len)->forms, k->b, k->b_len, v);
        return 1;
    case PSF_K_SITE_SEEN:
        m->has_census = 1;
        get_site(m, &idx[IDX_SITE], k->a, k->a_len)->count += v;
        return 1;
    case PSF_K_SITE_ATTEMPTS:
        c = get_site(m, &idx[IDX_SITE], k->a, k->a_len);
        m->has_census = 1;
        if (v > c->attempts)
            c->attempts = v;
        return 1;
    default:
        return 0;
    }
}

static void
add_key(m_group *m, ktab *idx, const agg_group *g, size_t slot)
{
    const char *s = ktab_key(&g->keys, slot);
    size_t n = ktab_len(&g->keys, slot);
    uint64_t v = g->val[slot];
    psf_key k;
    char name[600];

    agg_key_of(g, slot, &k);
    if (add_op_key(m, idx, g, slot, &k, v) || add_census_key(m, idx, &k, v) ||
        model_view_add(m, &k, v, code_of, idx) || model_sitefx_add(m, &k, v))
        return;
    switch (k.kind) {
    case PSF_K_UNSUPPORTED:
        m_list_add(&m->unsupported, k.a, k.a_len, v);
        break;
    case PSF_K_ERROR_IN_OPCODE:
        m_list_add(&m->errors, k.a, k.a_len, v);
        break;
    case PSF_K_CALL:
    case PSF_K_EVAL_CALL:
        m_list_add(&m->calls, s, n, v);
        break;
    case PSF_K_OBJECT:
        m_list_add(&m->objects, s, n, v);
        break;
    case PSF_K_GC:
        snprintf(name, sizeof name, "%ld %.*s", k.a_num, (int)k.b_len, k.b);
        m_list_add(&m->gc, name, strlen(name), v);
        break;
    case PSF_K_OPT:
        m_list_add(&m->opt, s, n, v);
        break;
    case PSF_K_JIT:
        m_list_add(&m->jit, s, n, v);
        break;
    case PSF_K_HIST:
        m_list_add(&get_hist(m, k.b, k.b_len)->buckets, k.a, k.a_len, v);
        break;
    case PSF_K_RARE:
        m_list_add(&m->rare, k.a, k.a_len, v);
        break;
    case PSF_K_FT:
        m_list_add(&m->ft, k.a, k.a_len, v);
        break;
    case PSF_K_BENCH_CALLS:
        m->bench_calls = cli_sat_add(m->bench_calls, v);
        break;
    case PSF_K_OWN_GC:
        snprintf(name, sizeof name, "%ld %.*s", k.a_num, (int)k.b_len, k.b);
        m_list_add(&m->gc, name, strlen(name), v);
        break;
    case PSF_K_OWN_OBJECT:
        m_list_add(&m->objects, s, n, v);
        break;
    case PSF_K_OWN_RARE:
        m_list_add(&m->own_rare, k.b, k.b_len, v);
        break;
    case PSF_K_OWN_CALL:
        m_list_add(&m->own_calls, k.b, k.b_len, v);
        break;
    case PSF_K_CODE: {
        m_code *c = get_code(m, &idx[IDX_CODE], k.a, k.a_len);
        if (k.b_len == 5) /* calls */
            c->calls += v;
        else
            c->instructions += v;
        break;
    }
    case PSF_K_CODE_OP:
        m_list_add(&get_code(m, &idx[IDX_CODE], k.a, k.a_len)->ops, k.b, k.b_len, v);
        break;
    default: {
        const char *fam;
        size_t flen;
        if (census_excluded(s, n, &fam, &flen)) {
            m->has_census = 1;
            m_list_add(&m->census_excluded, fam, flen, v);
        }
        else {
            m_list_add(&m->other, s, n, v);
        }
        break;
    }
    }
}

static int
cfam_cmp(const void *pa, const void *pb)
{
    const m_cfam *a = pa, *b = pb;

    if (a->f[PSF_CF_sites] != b->f[PSF_CF_sites])
        return a->f[PSF_CF_sites] > b->f[PSF_CF_sites] ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int
site_cmp(const void *pa, const void *pb)
{
    const m_csite *a = pa, *b = pb;

    if (a->attempts != b->attempts)
        return a->attempts > b->attempts ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->row, b->row);
}

static int
code_cmp(const void *pa, const void *pb)
{
    const m_code *a = pa, *b = pb;

    /* The site records of generated functions (five-part keys) last:
     * they are no hot code of their own. */
    if ((a->module != NULL) != (b->module != NULL))
        return a->module != NULL ? 1 : -1;
    if (a->instructions != b->instructions)
        return a->instructions > b->instructions ? -1 : 1;
    if (a->calls != b->calls)
        return a->calls > b->calls ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* calls.* in the family's order (psf_stats.h), others after by name. */
static int
own_call_cmp(const void *pa, const void *pb)
{
    const m_kv *a = pa, *b = pb;
    size_t ra = psf_stat_rank(&psf_stats_calls, a->name, strlen(a->name)),
           rb = psf_stat_rank(&psf_stats_calls, b->name, strlen(b->name));

    if (ra != rb)
        return ra < rb ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int
name_cmp(const void *pa, const void *pb)
{
    return strcmp(((const m_kv *)pa)->name, ((const m_kv *)pb)->name);
}

static void
own_sort(m_group *m)
{
    size_t i;

    if (m->ncfam > 1)
        qsort(m->cfam, m->ncfam, sizeof *m->cfam, cfam_cmp);
    for (i = 0; i < m->ncfam; i++)
        m_list_sort(&m->cfam[i].forms);
    if (m->nsites > 1)
        qsort(m->sites, m->nsites, sizeof *m->sites, site_cmp);
    if (m->ncode > 1)
        qsort(m->code, m->ncode, sizeof *m->code, code_cmp);
    for (i = 0; i < m->ncode; i++) {
        m->nhot += m->code[i].module == NULL;
        m_list_sort(&m->code[i].ops);
        m->code_instructions = m->code_instructions > UINT64_MAX - m->code[i].instructions
                                   ? UINT64_MAX
                                   : m->code_instructions + m->code[i].instructions;
    }
    if (m->own_calls.n > 1)
        qsort(m->own_calls.v, m->own_calls.n, sizeof(m_kv), own_call_cmp);
    if (m->census.n > 1)
        qsort(m->census.v, m->census.n, sizeof(m_kv), name_cmp);
    if (m->census_excluded.n > 1)
        qsort(m->census_excluded.v, m->census_excluded.n, sizeof(m_kv), name_cmp);
}

void
model_build(m_group *m, const agg_group *g)
{
    ktab idx[IDX_COUNT], spec_words;
    const char *spec_list;
    size_t i;

    memset(m, 0, sizeof *m);
    m->src = g;
    m->own = g->source == AGG_OWN;
    m->minor = g->minor;
    /* Dumps without these headers (older ones, native ones) name every
     * file as it is. */
    if (where_init(&m->wh, model_hdr_top(g, PSF_H_CWD), model_hdr_top(g, PSF_H_PY_PATH)) != 0)
        where_init(&m->wh, NULL, NULL);
    for (i = 0; i < IDX_COUNT; i++)
        ktab_init(&idx[i]);
    for (i = 0; i < g->keys.n; i++)
        add_key(m, idx, g, i);
    for (i = 0; i < IDX_COUNT; i++)
        ktab_free(&idx[i]);
    if (m->ops.n > 1)
        qsort(m->ops.v, m->ops.n, sizeof *m->ops.v, op_cmp);
    if (m->uops.n > 1)
        qsort(m->uops.v, m->uops.n, sizeof *m->uops.v, op_cmp);
    spec_list = model_hdr_top(g, AGG_HDR_CPY_SPECIALIZED);
    ktab_init(&spec_words);
    if (spec_list)
        word_set(&spec_words, spec_list);
    m->input_order = one_cpython_file(g);
    for (i = 0; i < m->ops.n; i++) {
        m_op *op = &m->ops.v[i];
        const char *fam = psf_tab_family(g->minor, op->name);
        size_t j;
        /* A family is the base instruction; an unknown name is its own. */
        op->family = fam ? fam : op->name;
        op->spec_form =
            spec_list ? ktab_find(&spec_words, op->name, strlen(op->name)) != (size_t)-1 : -1;
        m->total_exec += op->exec;
        /* CPython lists a predecessor's pairs in its instruction's order. */
        for (j = 0; j < op->pred.n; j++) {
            const m_op *a = model_op(m, op->pred.v[j].name);
            op->pred.v[j].seq = a ? a->order : SIZE_MAX;
        }
    }
    ktab_free(&spec_words);
    for (i = 0; i < m->ops.n; i++) {
        m_op *op = &m->ops.v[i];
        m_list_sort_input(&op->fail, m->input_order);
        m_list_sort_input(&op->fail_names, m->input_order);
        m_list_sort_input(&op->succ, m->input_order);
        m_list_sort_input(&op->pred, m->input_order);
    }
    for (i = 0; i < m->nhist; i++)
        if (m->hist[i].buckets.n > 1)
            qsort(m->hist[i].buckets.v, m->hist[i].buckets.n, sizeof(m_kv), bucket_cmp);
    m_list_sort(&m->unsupported);
    m_list_sort(&m->errors);
    own_sort(m);
    model_view_finish(m);
    /* Each failing site's family executions, from the opcodes: here, so
     * that the source view's part needs nothing of this file. */
    for (i = 0; i < m->nfsites; i++) {
        const m_op *op = model_op(m, m->fsites[i].family);
        m->fsites[i].family_exec = op && op->has_exec ? op->exec : 0;
    }
    model_sitefx_build(m, model_hdr_files(m, PSF_H_PY_FREE_THREADING, "1") > 0);
}

static void
ops_free(m_ops *ops)
{
    size_t i;

    for (i = 0; i < ops->n; i++) {
        free(ops->v[i].name);
        m_list_free(&ops->v[i].fail);
        m_list_free(&ops->v[i].fail_names);
        m_list_free(&ops->v[i].succ);
        m_list_free(&ops->v[i].pred);
    }
    free(ops->v);
}

void
model_free(m_group *m)
{
    size_t i;

    ops_free(&m->ops);
    ops_free(&m->uops);
    m_list_free(&m->calls);
    m_list_free(&m->objects);
    m_list_free(&m->gc);
    m_list_free(&m->opt);
    m_list_free(&m->jit);
    for (i = 0; i < m->nhist; i++) {
        free(m->hist[i].name);
        m_list_free(&m->hist[i].buckets);
    }
    free(m->hist);
    m_list_free(&m->unsupported);
    m_list_free(&m->errors);
    m_list_free(&m->rare);
    m_list_free(&m->ft);
    m_list_free(&m->other);
    m_list_free(&m->census);
    m_list_free(&m->census_excluded);
    model_sitefx_free(m);
    for (i = 0; i < m->ncfam; i++) {
        free(m->cfam[i].name);
        m_list_free(&m->cfam[i].forms);
        m_list_free(&m->cfam[i].extra);
    }
    free(m->cfam);
    for (i = 0; i < m->nsites; i++) {
        free(m->sites[i].row);
        free(m->sites[i].fields);
        free(m->sites[i].path);
    }
    free(m->sites);
    model_view_free(m);
    for (i = 0; i < m->ncode; i++) {
        free(m->code[i].name);
        free(m->code[i].path);
        m_list_free(&m->code[i].ops);
    }
    free(m->code);
    where_free(&m->wh);
    m_list_free(&m->own_calls);
    m_list_free(&m->own_rare);
    memset(m, 0, sizeof *m);
}

uint64_t
model_hdr_files(const m_group *m, const char *key, const char *val)
{
    size_t i, j;

    for (i = 0; m->src && i < m->src->nhdr; i++)
        if (strcmp(m->src->hdr[i].key, key) == 0)
            for (j = 0; j < m->src->hdr[i].vals.n; j++)
                if (strcmp(m->src->hdr[i].vals.v[j].text, val) == 0)
                    return m->src->hdr[i].vals.v[j].n;
    return 0;
}

const m_op *
model_op(const m_group *m, const char *name)
{
    size_t lo = 0, hi = m->ops.n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(m->ops.v[mid].name, name);
        if (c == 0)
            return &m->ops.v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int
model_is_specialized(const m_op *op)
{
    size_t n = strlen(op->name);

    if (op->spec_form >= 0)
        return op->spec_form;
    if (strcmp(op->family, op->name) == 0)
        return 0;
    if (n > 9 && strcmp(op->name + n - 9, "_ADAPTIVE") == 0)
        return 0;
    return 1;
}
