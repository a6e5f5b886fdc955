/* read_json.c: reading JSON inputs: summaries written by --json (schema 1)
 * and CPython's summarize_stats.py --json-output files. */
#include "read.h"

#include "cli.h"
#include "summary_schema.h"
#include "text.h"
#include "../format/psf_keys.h"
#include "../format/psf_stats.h"
#include "../format/psf_detect.h"
#include "../format/psf_key.h"
#include "../format/psf_line.h"
#include "../format/psf_text.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_SCHEMA 1

/* A count: a JSON integer >= 0, or a decimal string (used by the writer
 * for counts above 2**63-1).  true and false are not counts. */
static int
get_count(json_t *v, uint64_t *out)
{
    const char *s;
    uint64_t n = 0;

    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return 0;
    }
    if (!json_is_string(v))
        return -1;
    s = json_string_value(v);
    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -1;
        n = n * 10 + (uint64_t)(*s - '0');
    }
    *out = n;
    return 0;
}

typedef struct jctx {
    ingest_worker *w;
    const char *path;
    agg_group *g;
    int bad;         /* values that were not counts */
    const char *sec; /* the section being read, for the first of them */
    char *first;     /* owned: what the first was ("in other, beta is true") */
} jctx;

static const char *
what_json(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string that is no decimal count";
    case JSON_INTEGER:
        return "a negative integer";
    case JSON_REAL:
        return "a real number";
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    case JSON_NULL:
        return "null";
    }
    return "?";
}

/* One more value that is not a count; the first is described. */
static void
not_a_count(jctx *c, const char *key, const json_t *v)
{
    size_t n;

    if (c->bad++ || v == NULL)
        return;
    n = strlen(c->sec) + strlen(key) + 64;
    c->first = cli_xmalloc(n);
    snprintf(c->first, n, "in %s, %s is %s", c->sec, key, what_json(v));
}

/* A count under key; an opcode's "specializable" (flag) is the one
 * member where true and false belong, as 1 and 0. */
static void
put_flag(jctx *c, const char *key, json_t *v, int mode, int flag)
{
    uint64_t n;
    size_t slot;

    if (flag && json_is_boolean(v))
        n = json_is_true(v);
    else if (get_count(v, &n) != 0) {
        not_a_count(c, key, v);
        return;
    }
    slot = agg_slot(c->g, key, strlen(key));
    if (agg_add(c->g, slot, n, mode))
        agg_problem(&c->w->a, AGG_P_OVERFLOW, c->path, 0,
                    "the sum of %s exceeds 2**64-1; kept at the maximum", key);
}

static void
put(jctx *c, const char *key, json_t *v, int mode)
{
    put_flag(c, key, v, mode, 0);
}

/* a b c d concatenated, a new string (NULLs are empty): member names
 * have any length, and a key built from them is never cut (FORMAT.md 3). */
static char *
cat4(const char *a, const char *b, const char *c, const char *d)
{
    const char *part[4] = {a, b, c, d};
    size_t len[4], n = 1, i;
    char *out, *p;

    for (i = 0; i < 4; i++)
        n += len[i] = part[i] ? strlen(part[i]) : 0;
    p = out = cli_xmalloc(n);
    for (i = 0; i < 4; i++) {
        memcpy(p, part[i] ? part[i] : "", len[i]);
        p += len[i];
    }
    *p = '\0';
    return out;
}

/* put() under the key a b c d. */
static void
put4(jctx *c, const char *a, const char *b, const char *d, const char *e, json_t *v, int mode)
{
    char *key = cat4(a, b, d, e);
    put(c, key, v, mode);
    free(key);
}

/* Every member of obj as "<pre><name><post>". */
static void
put_all(jctx *c, json_t *obj, const char *pre, const char *post)
{
    const char *name;
    json_t *v;

    json_object_foreach(obj, name, v) put4(c, pre, name, post, NULL, v, 0);
}

/* The free-threading lines, by CPython's label, back to "LABEL (FIELD)";
 * a label the format does not know is kept under its own name. */
static void
put_ft(jctx *c, json_t *obj)
{
    const char *name, *field;
    json_t *v;

    json_object_foreach(obj, name, v)
    {
        field = psf_key_ft_field(name, strlen(name));
        if (field)
            put4(c, name, " (", field, ")", v, 0);
        else
            put(c, name, v, 0);
    }
}

static void
put_op(jctx *c, const char *prefix, const char *op, json_t *o)
{
    char *pre = cat4(prefix, "[", op, "]"), *key;
    const char *name;
    json_t *v, *spec;

    json_object_foreach(o, name, v)
    {
        if (strcmp(name, "specializable") == 0) {
            key = cat4(pre, ".specializable", NULL, NULL);
            put_flag(c, key, v, 1, 1);
            free(key);
        }
        else if (strcmp(name, "pair_count") == 0 && json_is_object(v)) {
            key = strcmp(prefix, "uops") == 0 ? cat4("uop[", op, "].pair_count[", NULL)
                                              : cat4(pre, ".pair_count[", NULL, NULL);
            put_all(c, v, key, "]");
            free(key);
        }
        else if (strcmp(name, "specialization") == 0 && json_is_object(v)) {
            const char *f;
            json_object_foreach(v, f, spec)
            {
                if (strcmp(f, "failure_kinds") == 0 && json_is_object(spec)) {
                    key = cat4(pre, ".specialization.failure_kinds[", NULL, NULL);
                    put_all(c, spec, key, "]");
                    free(key);
                }
                else {
                    put4(c, pre, ".specialization.", f, NULL, spec, 0);
                }
            }
        }
        else if (strcmp(name, "miss") == 0) {
            put4(c, pre, ".specialization.miss", NULL, NULL, v, 0);
        }
        else if (strcmp(name, "family") != 0) {
            put4(c, pre, ".", name, NULL, v, 0);
        }
    }
    free(pre);
}

/* A header's key or value as the summary's writer had it: free text in
 * its canonical encoding, anything else raw (the bytes of the dump, which
 * the writer showed as text: a byte that is not UTF-8 as \udcXX). */
static char *
header_text(const char *name, int free_text)
{
    char *t = text_from_json_key(name, strlen(name));
    size_t n;

    if (t == NULL)
        return cli_xstrdup(name);
    if (!free_text && (n = psf_text_decode(t, strlen(t), t)) != (size_t)-1)
        t[n] = '\0';
    return t;
}

/* Texts and their counts (the dumps' own bytes: raw, header_text()). */
static void
strs_from(agg_strs *s, json_t *obj, uint64_t *total)
{
    const char *name;
    json_t *v;
    uint64_t n;

    json_object_foreach(obj, name, v) if (get_count(v, &n) == 0)
    {
        char *t = header_text(name, 0);
        agg_strs_add(s, t, strlen(t), n);
        free(t);
        if (total)
            *total += n;
    }
}

/* Whether a "line" member is a line number (psf_parse_line: digits only,
 * at most 2**31-1): nothing else of it reaches a key or a report. */
static int
line_ok_n(const char *line, size_t len)
{
    long n;

    return psf_parse_line(line, len, &n) == 0;
}

static int
line_ok(const char *line)
{
    return line != NULL && line_ok_n(line, strlen(line));
}

static int put_failing(jctx *c, json_t *s);

/* census.site_executions back as census.site_executions[F].STATE and
 * .form[FORM] (family_executions is derived from the opcodes again). */
static void
put_site_fx(jctx *c, json_t *sx)
{
    const char *name, *f;
    json_t *v, *fv;
    char *key;

    json_object_foreach(sx, name, v) json_object_foreach(v, f, fv)
    {
        if (strcmp(f, "forms") == 0 && json_is_object(fv)) {
            key = cat4(PSF_KEY_SITE_FX, name, PSF_KEY_SITE_FX_FORM, NULL);
            put_all(c, fv, key, "]");
            free(key);
        }
        else if (strcmp(f, "family_executions") != 0) {
            key = cat4(PSF_KEY_SITE_FX, name, "].", f);
            put(c, key, fv, AGG_ADD_SUM);
            free(key);
        }
    }
}

/* The summary's "census": counters census.*, census.family[F].*, and
 * site rows back as census.sites[ROW].count / .attempts; the ranked
 * sites (failing_sites) back as their rows (put_failing). */
static void
put_census(jctx *c, json_t *cen)
{
    const char *name, *f, *spec = psf_stats_census_family.rows[PSF_CF_specialized].key;
    json_t *v, *fv, *site;
    char *key;
    size_t i;

    if (!json_is_object(cen))
        return;
    json_object_foreach(cen, name, v)
    {
        if (strcmp(name, "families") == 0 || strcmp(name, "sites") == 0 ||
            strcmp(name, "failing_sites") == 0 || strcmp(name, "site_executions") == 0)
            continue;
        if (strcmp(name, "excluded_families") == 0 && json_is_object(v)) {
            put_all(c, v, PSF_KEY_CENSUS_EXCLUDED, "]");
            continue;
        }
        /* A member of a later pystats that is no count: ignored, as
         * schema 1 promises (section 3.1 of FORMAT.md). */
        if (json_is_object(v) || json_is_array(v))
            continue;
        put4(c, "census.", name, NULL, NULL, v, AGG_ADD_SUM);
    }
    json_object_foreach(json_object_get(cen, "families"), name, v)
    {
        json_object_foreach(v, f, fv)
        {
            if (strcmp(f, "forms") == 0 && json_is_object(fv)) {
                /* census.family[F].specialized[FORM] */
                char *form = cat4(PSF_CENSUS_FAMILY_PREFIX, name, PSF_CENSUS_FAMILY_SEP, spec);
                key = cat4(form, "[", NULL, NULL);
                put_all(c, fv, key, "]");
                free(key);
                free(form);
            }
            else {
                key = cat4(PSF_CENSUS_FAMILY_PREFIX, name, PSF_CENSUS_FAMILY_SEP, f);
                put(c, key, fv, AGG_ADD_SUM);
                free(key);
            }
        }
    }
    json_array_foreach(json_object_get(cen, "sites"), i, site)
    {
        static const char *const field[] = {"family", "file", "function", "source"};
        const char *line = json_string_value(json_object_get(site, "line"));
        char *t[4], *row;
        size_t j, n;
        int ok = line_ok(line);
        for (j = 0; j < 4; j++) {
            /* "path": the file as the dumps named it, where "file" is
             * portable (the summary names it again when it is built). */
            json_t *f = j == 1 && json_object_get(site, "path") ? json_object_get(site, "path")
                                                                : json_object_get(site, field[j]);
            ok &= (t[j] = text_from_json(f)) != NULL;
        }
        if (ok) {
            n = strlen(t[0]) + strlen(t[1]) + strlen(line) + strlen(t[2]) + strlen(t[3]) + 64;
            row = cli_xmalloc(n);
            n = (size_t)snprintf(row, n, PSF_KEY_CENSUS_ROWS "%s | %s | %s | %s | %s].count", t[0],
                                 t[1], line, t[2], t[3]);
            put(c, row, json_object_get(site, "sites"), AGG_ADD_SUM);
            memcpy(row + n - 6, ".attempts", 10);
            put(c, row, json_object_get(site, "attempts"), AGG_ADD_MAX);
            free(row);
        }
        else {
            c->bad++;
        }
        for (j = 0; j < 4; j++)
            free(t[j]);
    }
    json_array_foreach(json_object_get(cen, "failing_sites"), i, site) if (put_failing(c, site) < 0)
        c->bad++;
    if (json_object_get(cen, "site_executions") != NULL) {
        put_site_fx(c, json_object_get(cen, "site_executions"));
    }
    else if (json_object_get(cen, "failing_sites") != NULL) {
        /* Written before census.site_executions: its rows are not all of
         * them, and give no figure. */
        json_t *zero = json_integer(0);
        put(c, PSF_KEY_SITE_FX "].none", zero, AGG_ADD_SUM);
        json_decref(zero);
    }
}

/* A census.failing_sites entry back as the keys it was ranked from
 * (FORMAT.md 1.18): its row code[K].site_row[OFFSET | ROW] (in one
 * summary: positions but the line are not kept), its executions, and
 * its source line; K from the code's own parts (first_line,
 * code_function, and module and function for generated code).  Returns
 * 0, or -1 if the entry is not one. */
static int
put_failing(jctx *c, json_t *s)
{
    static const char *const field[] = {"family", "state", "code_function", "file"};
    const char *line = json_string_value(json_object_get(s, "line")),
               *first = json_string_value(json_object_get(s, "first_line"));
    json_t *off = json_object_get(s, "offset"), *one = json_integer(1);
    char *t[6] = {NULL}, *key = NULL, *src = NULL, detail[32] = "";
    uint64_t attempts;
    size_t j, n;
    int ok = line_ok(line) && line_ok(first) && json_is_integer(off) &&
             json_integer_value(off) >= 0 && json_integer_value(off) <= INT32_MAX;

    for (j = 0; j < 4 && ok; j++) {
        json_t *f = j == 3 && json_object_get(s, "path") ? json_object_get(s, "path")
                                                         : json_object_get(s, field[j]);
        ok = (t[j] = text_from_json(f)) != NULL;
    }
    if (ok && json_object_get(s, "module") != NULL) {
        ok = (t[4] = text_from_json(json_object_get(s, "module"))) != NULL &&
             (t[5] = text_from_json(json_object_get(s, "function"))) != NULL;
    }
    if (ok && json_object_get(s, "attempts") != NULL) {
        ok = get_count(json_object_get(s, "attempts"), &attempts) == 0;
        snprintf(detail, sizeof detail, "%llu", (unsigned long long)attempts);
    }
    if (ok) {
        n = strlen(t[3]) + strlen(first) + strlen(t[2]) + (t[4] ? strlen(t[4]) + strlen(t[5]) : 0) +
            strlen(t[0]) + strlen(t[1]) + strlen(line) + 128;
        key = cli_xmalloc(n);
        snprintf(key, n,
                 PSF_KEY_CODE "%s:%s:%s%s%s%s%s" PSF_KEY_CODE_SITE_ROW
                              "%lld | %s | %s | %s | %s | - | - | -]",
                 t[3], first, t[2], t[4] ? ":" : "", t[4] ? t[4] : "", t[4] ? ":" : "",
                 t[4] ? t[5] : "", (long long)json_integer_value(off), t[0], t[1], detail, line);
        put(c, key, one, AGG_ADD_SUM);
        snprintf(key, n, PSF_KEY_CODE "%s:%s:%s%s%s%s%s" PSF_KEY_CODE_SITE_EXEC "%lld]", t[3],
                 first, t[2], t[4] ? ":" : "", t[4] ? t[4] : "", t[4] ? ":" : "", t[4] ? t[5] : "",
                 (long long)json_integer_value(off));
        put(c, key, json_object_get(s, "executions"), AGG_ADD_SUM);
        if (json_object_get(s, "source") != NULL &&
            (src = text_from_json(json_object_get(s, "source"))) != NULL) {
            char *sk = cat4(PSF_KEY_SOURCE, t[3], PSF_KEY_SOURCE_ROW, line);
            char *full = cat4(sk, " | ", src, "]");
            put(c, full, one, AGG_ADD_SUM);
            free(sk);
            free(full);
            free(src);
        }
    }
    for (j = 0; j < 6; j++)
        free(t[j]);
    free(key);
    json_decref(one);
    return ok ? 0 : -1;
}

/* The canonical FILE:LINE:QUALNAME of a "code" member: from its "file",
 * "line" and "function" (exact), else from its name split at the last
 * two ':' (summaries written before those members).  A new string, or
 * NULL. */
static char *
code_name(const char *name, size_t nlen, json_t *v)
{
    const char *line = json_string_value(json_object_get(v, "line"));
    char *file = NULL, *fn = NULL, *out = NULL;
    const char *c1 = NULL, *c2 = NULL, *p;
    size_t n;

    if (line != NULL && !line_ok(line))
        return NULL;
    if (line != NULL) {
        /* "path" where "file" is portable: the dumps' own file, named
         * again when the summary is built. */
        file = text_from_json(json_object_get(v, json_object_get(v, "path") ? "path" : "file"));
        fn = text_from_json(json_object_get(v, "function"));
    }
    else {
        for (p = name + nlen; p > name && c1 == NULL; p--)
            if (p[-1] == ':') {
                if (c2 == NULL)
                    c2 = p - 1;
                else
                    c1 = p - 1;
            }
        if (c1 != NULL && line_ok_n(c1 + 1, (size_t)(c2 - c1 - 1))) {
            file = text_from_json_key(name, (size_t)(c1 - name));
            fn = text_from_json_key(c2 + 1, (size_t)(name + nlen - c2 - 1));
        }
    }
    if (file && fn) {
        n = strlen(file) + strlen(fn) + (line ? strlen(line) : (size_t)(c2 - c1)) + 4;
        out = cli_xmalloc(n);
        if (line)
            snprintf(out, n, "%s:%s:%s", file, line, fn);
        else
            snprintf(out, n, "%s:%.*s:%s", file, (int)(c2 - c1 - 1), c1 + 1, fn);
    }
    free(file);
    free(fn);
    return out;
}

static void
put_code(jctx *c, json_t *code)
{
    const char *name;
    json_t *v;
    char *key, *cn;
    size_t n;

    json_object_foreach(code, name, v)
    {
        if ((cn = code_name(name, json_object_iter_key_len(json_object_key_to_iter(name)), v)) ==
            NULL) {
            c->bad++;
            continue;
        }
        n = strlen(cn) + 32;
        key = cli_xmalloc(n);
        snprintf(key, n, PSF_KEY_CODE "%s" PSF_KEY_CODE_INSTRUCTIONS, cn);
        put(c, key, json_object_get(v, "instructions"), AGG_ADD_SUM);
        snprintf(key, n, PSF_KEY_CODE "%s" PSF_KEY_CODE_CALLS, cn);
        put(c, key, json_object_get(v, "calls"), AGG_ADD_SUM);
        snprintf(key, n, PSF_KEY_CODE "%s" PSF_KEY_CODE_OPCODE, cn);
        put_all(c, json_object_get(v, "opcodes"), key, "]");
        free(key);
        free(cn);
    }
}

/* Counters a group carries in its meta: benchmark.calls (FORMAT.md 1.19). */
static void
put_meta_counts(jctx *c, json_t *meta)
{
    json_t *v = json_object_get(meta, "benchmark_calls");

    c->sec = "meta";
    if (v != NULL)
        put(c, PSF_KEY_BENCH_CALLS, v, AGG_ADD_SUM);
}

/* A group's GC generations, each field back to its key: PSF_GC's
 * (psf_stats.h: gc[G].FIELD for the collector's own), else CPython's
 * "GC[G] FIELD". */
static void
put_gc(jctx *c, json_t *gc)
{
    const char *name, *field, *pre, *sep;
    json_t *v, *fv;

    json_object_foreach(gc, name, v)
    {
        json_object_foreach(v, field, fv)
        {
            psf_gc_key_parts(field, strlen(field), &pre, &sep);
            put4(c, pre, name, sep, field, fv, AGG_ADD_SUM);
        }
    }
}

/* A group's files, headers, time span and the problems found when the
 * summary was made (they stay counted). */
static void
put_meta(jctx *c, json_t *meta)
{
    const char *name;
    json_t *o, *v;
    uint64_t files = 0, n;
    size_t i;

    if (get_count(json_object_get(meta, "files"), &files) != 0)
        files = 0;
    c->g->files += files;
    c->g->fmt[AGG_FMT_SUMMARY_JSON] += files;
    ingest_observe(c->w, c->path, AGG_FMT_SUMMARY_JSON, files, c->g, NULL);
    strs_from(&c->g->how, json_object_get(meta, "version_detection"), NULL);
    strs_from(&c->g->collectors, json_object_get(meta, "collectors"), NULL);
    json_object_foreach(json_object_get(meta, "headers"), name, o)
    {
        const char *val;
        char *hk = header_text(name, 0), *hv;
        int free_text = text_header_is_free(hk, strlen(hk));
        json_object_foreach(o, val, v) if (get_count(v, &n) == 0)
        {
            hv = header_text(val, free_text);
            agg_hdr_add(c->g, hk, hv, n);
            free(hv);
        }
        free(hk);
    }
    agg_time(c->g, json_string_value(json_object_get(meta, "time_start")),
             json_string_value(json_object_get(meta, "time_end")));
    /* Problems found when the summary was made stay counted. */
    o = json_object_get(meta, "problems");
    for (i = 0; i < AGG_P_COUNT; i++)
        if (get_count(json_object_get(o, agg_problem_name[i]), &n) == 0)
            c->w->a.problems[i] += n;
}

static void
load_group(jctx *c, json_t *grp)
{
    json_t *meta = json_object_get(grp, "meta"), *sec, *v;
    const char *name, *src, *ver, *counts;
    char *label;
    int source, minor = 0;
    char *pre;

    src = json_string_value(json_object_get(meta, "source"));
    ver = json_string_value(json_object_get(meta, "python_version"));
    counts = json_string_value(json_object_get(meta, "counts"));
    source = src && strcmp(src, "pystats") == 0 ? AGG_OWN : AGG_NATIVE;
    if (ver)
        minor = psf_parse_version(ver, strlen(ver));
    label = NULL;
    if (c->w->opt->by_label && (label = text_from_json(json_object_get(meta, "label"))) == NULL)
        label = cli_xstrdup("");
    c->g = agg_group_get_label(
        &c->w->a, source, minor,
        counts ? counts : (source == AGG_OWN ? "base-instructions" : "specialized-forms"), label);
    free(label);
    c->sec = "opcodes";
    json_object_foreach(json_object_get(grp, "opcodes"), name, v) put_op(c, "opcode", name, v);
    c->sec = "calls";
    put_all(c, json_object_get(grp, "calls"), "", "");
    c->sec = "objects";
    put_all(c, json_object_get(grp, "objects"), "", "");
    c->sec = "gc";
    put_gc(c, json_object_get(grp, "gc"));
    sec = json_object_get(grp, "optimization");
    c->sec = "optimization";
    put_all(c, json_object_get(sec, "counters"), "", "");
    put_all(c, json_object_get(sec, "jit"), "", "");
    json_object_foreach(json_object_get(sec, "histograms"), name, v)
    {
        pre = cat4(name, "[", NULL, NULL);
        put_all(c, v, pre, "]");
        free(pre);
    }
    json_object_foreach(json_object_get(sec, "uops"), name, v) put_op(c, "uops", name, v);
    put_all(c, json_object_get(sec, "unsupported_opcodes"), "unsupported_opcode[", "].count");
    put_all(c, json_object_get(sec, "errors_in_opcode"), "error_in_opcode[", "].count");
    c->sec = "free_threading";
    put_ft(c, json_object_get(grp, "free_threading"));
    c->sec = "rare_events";
    put_all(c, json_object_get(grp, "rare_events"), "Rare event (", ")");
    c->sec = "census";
    put_census(c, json_object_get(grp, "census"));
    c->sec = "code";
    put_code(c, json_object_get(grp, "code"));
    c->sec = "own_calls";
    put_all(c, json_object_get(grp, "own_calls"), PSF_CALLS_PREFIX, "");
    c->sec = "rare_watchers";
    put_all(c, json_object_get(grp, "rare_watchers"), PSF_RARE_PREFIX, "");
    c->sec = "other";
    put_all(c, json_object_get(grp, "other"), "", "");
    put_meta_counts(c, meta);
    put_meta(c, meta);
}

static void
load_summary(jctx *c, json_t *root)
{
    json_t *groups = json_object_get(root, "groups"), *g;
    size_t i;

    if (json_is_array(groups)) {
        json_array_foreach(groups, i, g) if (json_is_object(g)) load_group(c, g);
    }
    else {
        load_group(c, root);
    }
}

/* A JSON array of strings (or a list of them) as one header value, the
 * names separated by single spaces.  Returns -1 if v is not that. */
static int
names_value(json_t *v, char *buf, size_t size)
{
    size_t i, used = 0;
    json_t *e;

    if (!json_is_array(v))
        return -1;
    buf[0] = '\0';
    json_array_foreach(v, i, e)
    {
        const char *t = json_string_value(e);
        int n;
        if (t == NULL || *t == '\0' || strchr(t, ' '))
            return -1;
        n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", t);
        if (n < 0 || (size_t)n >= size - used)
            return -1;
        used += (size_t)n;
    }
    return 0;
}

/* "_defines" / "_stats_defines": {"N": ["NAME", ...]} as header lines
 * PREFIX[N] : NAME NAME ... */
static void
defines_headers(jctx *c, json_t *obj, const char *prefix)
{
    const char *num, *p;
    json_t *v;
    char key[128], val[4096];

    if (!json_is_object(obj)) {
        c->bad++;
        return;
    }
    json_object_foreach(obj, num, v)
    {
        for (p = num; *p >= '0' && *p <= '9'; p++)
            ;
        if (*num == '\0' || *p != '\0' || p - num > 6 || names_value(v, val, sizeof val) != 0) {
            c->bad++;
            continue;
        }
        snprintf(key, sizeof key, "%s[%s]", prefix, num);
        ingest_header(c->w, key, strlen(key), val, strlen(val));
    }
}

/* The benchmark a published summary is of, from its file name
 * ("...-pystats-NAME.json"), into buf; 0 if the name does not say. */
static int
benchmark_of(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/'), *p, *dot;

    base = base ? base + 1 : path;
    p = strstr(base, "-pystats-");
    if (p == NULL)
        return 0;
    p += strlen("-pystats-");
    dot = strrchr(p, '.');
    if (dot == NULL || strcmp(dot, ".json") != 0 || dot == p || (size_t)(dot - p) >= size)
        return 0;
    memcpy(buf, p, (size_t)(dot - p));
    buf[dot - p] = '\0';
    return 1;
}

/* "Calls via PyEval_EvalFrame[N]" named with the file's own
 * _stats_defines (EVAL_CALL_*) into buf, before the built-in table; 0 if
 * the key is not one or the file does not name N. */
static int
eval_call_key(json_t *root, const char *key, char *buf, size_t size)
{
    static const char pre[] = "Calls via PyEval_EvalFrame[";
    const char *p = key + sizeof pre - 1, *name;
    char num[16];
    size_t len;

    if (strncmp(key, pre, sizeof pre - 1) != 0)
        return 0;
    for (len = 0; p[len] >= '0' && p[len] <= '9'; len++)
        ;
    if (len == 0 || len >= sizeof num || strcmp(p + len, "]") != 0)
        return 0;
    memcpy(num, p, len);
    num[len] = '\0';
    name = json_string_value(
        json_array_get(json_object_get(json_object_get(root, "_stats_defines"), num), 0));
    if (name == NULL || *name == '\0' || strpbrk(name, "[] ") != NULL)
        return 0;
    return snprintf(buf, size, "%s%s]", pre, name) < (int)size;
}

/* CPython's JSON is its raw counters summed over a directory, plus
 * "__nfiles__", what the interpreter says about itself ("_defines",
 * "_stats_defines", "_specialized_instructions": kept as header values
 * for the report to use before any built-in table) and, in the files
 * Faster CPython publishes, a "metadata" object (commit, fork, branch,
 * date, actor: header values shown in the report, not counts). */
static void
load_cpython(jctx *c, json_t *root)
{
    const char *key, *name;
    json_t *v, *m;
    uint64_t n, nfiles = 1;
    char hkey[256], val[16384];

    ingest_begin(c->w);
    json_object_foreach(root, key, v)
    {
        if (strcmp(key, "__nfiles__") == 0) {
            if (get_count(v, &nfiles) != 0)
                c->bad++;
            continue;
        }
        if (strcmp(key, "_specialized_instructions") == 0) {
            if (names_value(v, val, sizeof val) == 0)
                ingest_header(c->w, AGG_HDR_CPY_SPECIALIZED, strlen(AGG_HDR_CPY_SPECIALIZED), val,
                              strlen(val));
            else
                c->bad++;
            continue;
        }
        if (strcmp(key, "_defines") == 0) {
            defines_headers(c, v, AGG_HDR_CPY_DEFINES);
            continue;
        }
        if (strcmp(key, "_stats_defines") == 0) {
            defines_headers(c, v, AGG_HDR_CPY_STATS_DEFINES);
            continue;
        }
        if (strcmp(key, "metadata") == 0 && json_is_object(v)) {
            json_object_foreach(v, name, m)
            {
                const char *t = json_string_value(m);
                if (t == NULL) {
                    c->bad++;
                    continue;
                }
                char *hk = cat4(AGG_HDR_CPY_METADATA, name, NULL, NULL);
                ingest_header(c->w, hk, strlen(hk), t, strlen(t));
                free(hk);
            }
            continue;
        }
        if (key[0] == '_')
            continue;
        if (get_count(v, &n) != 0) {
            not_a_count(c, key, v);
            continue;
        }
        if (eval_call_key(root, key, hkey, sizeof hkey))
            ingest_counter(c->w, hkey, strlen(hkey), n);
        else
            ingest_counter(c->w, key, strlen(key), n);
    }
    ingest_header(c->w, AGG_HDR_CPY_INPUT, strlen(AGG_HDR_CPY_INPUT), c->path, strlen(c->path));
    if (benchmark_of(c->path, val, sizeof val)) {
        /* A label is free text, held in the dump's encoding (text.h). */
        size_t ll;
        char *l = text_from_dump(1, val, strlen(val), &ll);
        ingest_header(c->w, PSF_H_LABEL, sizeof PSF_H_LABEL - 1, l, ll);
        free(l);
    }
    ingest_end(c->w, c->path, AGG_FMT_CPYTHON_JSON, nfiles);
}

void
read_json(ingest_worker *w, const char *path, const char *buf, size_t n)
{
    json_error_t err;
    /* A member given twice is refused, not the last one taken. */
    json_t *root = text_json_loadb(buf, n, JSON_REJECT_DUPLICATES, &err);
    jctx c = {w, path, NULL, 0, "the document", NULL};
    json_t *schema;
    char why[600];

    if (root == NULL || !json_is_object(root)) {
        agg_problem(&w->a, AGG_P_UNPARSABLE, path, root ? 1 : (unsigned long)err.line,
                    "not a valid JSON summary: %s, file not counted",
                    root ? "not an object" : err.text);
        json_decref(root);
        return;
    }
    schema = json_object_get(root, "schema");
    if (schema != NULL) {
        if (!json_is_integer(schema) || json_integer_value(schema) != SUMMARY_SCHEMA) {
            agg_problem(&w->a, AGG_P_UNSUPPORTED, path, 0,
                        "summary schema is not %d, file not counted", SUMMARY_SCHEMA);
            json_decref(root);
            return;
        }
        if (summary_schema_check(root, why, sizeof why) != 0) {
            agg_problem(&w->a, AGG_P_UNPARSABLE, path, 0,
                        "not a JSON summary of schema %d: %s; file not counted", SUMMARY_SCHEMA,
                        why);
            json_decref(root);
            return;
        }
        if (ingest_reserve(w, path, summary_count_total(root)) != 0) {
            json_decref(root);
            return;
        }
        load_summary(&c, root);
    }
    else {
        load_cpython(&c, root);
    }
    if (c.bad)
        agg_problem(&w->a, AGG_P_UNPARSABLE, path, 0,
                    "%d values were not counts and were skipped%s%s%s", c.bad,
                    c.first ? " (the first: " : "", c.first ? c.first : "", c.first ? ")" : "");
    free(c.first);
    json_decref(root);
}
