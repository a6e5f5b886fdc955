/* summary_schema.c: the shape of a JSON summary of schema 1 (see
 * summary_schema.h). */
#include "summary_schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct sctx {
    char *why;
    size_t size;
    int bad;
} sctx;

static const char *
type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return json_integer_value(v) < 0 ? "a negative integer" : "an integer";
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

static void
fail(sctx *c, const char *path, const json_t *v, const char *want)
{
    if (c->bad++)
        return;
    if (v == NULL)
        snprintf(c->why, c->size, "%s is missing", path);
    else
        snprintf(c->why, c->size, "%s is %s, not %s", path, type_name(v), want);
}

/* path + "." + name (or "[i]"), cut to fit. */
static void
sub(char *out, size_t size, const char *path, const char *name)
{
    size_t n = 0, k;

    for (; *path && n + 1 < size; path++)
        out[n++] = *path;
    if (n && n + 1 < size)
        out[n++] = '.';
    for (k = 0; name[k] && k < 80 && n + 1 < size; k++)
        out[n++] = name[k];
    out[n] = '\0';
}

static int
is_count(const json_t *v)
{
    const char *s;

    if (json_is_integer(v))
        return json_integer_value(v) >= 0;
    if (!json_is_string(v))
        return 0;
    s = json_string_value(v);
    if (*s == '\0' || strlen(s) > 20)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* The member name of o, if present, must be an object: returns it, else
 * NULL (absent, or wrong: then c->bad). */
static json_t *
obj(sctx *c, json_t *o, const char *path, const char *name)
{
    json_t *v = json_object_get(o, name);
    char p[512];

    if (v == NULL || json_is_object(v))
        return v;
    sub(p, sizeof p, path, name);
    fail(c, p, v, "an object");
    return NULL;
}

/* o.name, if present, an object whose every member is an object; each
 * handed to each() (may be NULL). */
static void
obj_of_obj(sctx *c, json_t *o, const char *path, const char *name,
           void (*each)(sctx *, json_t *, const char *))
{
    json_t *m = obj(c, o, path, name), *v;
    const char *k;
    char p[512], q[640];

    if (m == NULL)
        return;
    sub(p, sizeof p, path, name);
    json_object_foreach(m, k, v)
    {
        sub(q, sizeof q, p, k);
        if (!json_is_object(v))
            fail(c, q, v, "an object");
        else if (each)
            each(c, v, q);
    }
}

static void
str(sctx *c, json_t *o, const char *path, const char *name, int null_ok)
{
    json_t *v = json_object_get(o, name);
    char p[512];

    if (v == NULL || json_is_string(v) || (null_ok && json_is_null(v)))
        return;
    sub(p, sizeof p, path, name);
    fail(c, p, v, null_ok ? "a string or null" : "a string");
}

static void
op(sctx *c, json_t *o, const char *path)
{
    json_t *spec = obj(c, o, path, "specialization");
    char p[640];

    str(c, o, path, "family", 0);
    obj(c, o, path, "pair_count");
    if (spec) {
        sub(p, sizeof p, path, "specialization");
        obj(c, spec, p, "failure_kinds");
    }
}

static void
code(sctx *c, json_t *o, const char *path)
{
    obj(c, o, path, "opcodes");
}

static void
family(sctx *c, json_t *o, const char *path)
{
    obj(c, o, path, "forms");
}

/* census.failing_sites: an array of objects, each with its texts and
 * its executions (section 3 of FORMAT.md). */
static void
failing_sites(sctx *c, json_t *cen, const char *path)
{
    static const char *const fields[] = {"family", "state", "file", "line", "function", "code"};
    json_t *a = json_object_get(cen, "failing_sites"), *s, *n;
    char p[512], q[600], r[700];
    size_t i, k;

    if (a == NULL)
        return;
    sub(p, sizeof p, path, "failing_sites");
    if (!json_is_array(a)) {
        fail(c, p, a, "an array");
        return;
    }
    json_array_foreach(a, i, s)
    {
        snprintf(q, sizeof q, "%s[%zu]", p, i);
        if (!json_is_object(s)) {
            fail(c, q, s, "an object");
            continue;
        }
        for (k = 0; k < sizeof fields / sizeof fields[0]; k++)
            str(c, s, q, fields[k], 0);
        n = json_object_get(s, "executions");
        if (!is_count(n)) {
            snprintf(r, sizeof r, "%s.executions", q);
            fail(c, r, n, "a count (an integer >= 0, or a decimal string)");
        }
    }
}

static void
census(sctx *c, json_t *cen, const char *path)
{
    static const char *const fields[] = {"family", "file", "line", "function", "source"};
    json_t *sites = json_object_get(cen, "sites"), *s;
    char p[512], q[600];
    size_t i, k;

    obj_of_obj(c, cen, path, "families", family);
    /* census.site_executions: per family its counts and "forms". */
    obj_of_obj(c, cen, path, "site_executions", family);
    obj(c, cen, path, "excluded_families");
    failing_sites(c, cen, path);
    if (sites == NULL)
        return;
    sub(p, sizeof p, path, "sites");
    if (!json_is_array(sites)) {
        fail(c, p, sites, "an array");
        return;
    }
    json_array_foreach(sites, i, s)
    {
        snprintf(q, sizeof q, "%s[%zu]", p, i);
        if (!json_is_object(s)) {
            fail(c, q, s, "an object");
            continue;
        }
        for (k = 0; k < sizeof fields / sizeof fields[0]; k++)
            str(c, s, q, fields[k], 0);
    }
}

static void
meta_check(sctx *c, json_t *meta, const char *path, int group)
{
    static const char *const strs[] = {"source",     "counts",   "label",
                                       "time_start", "time_end", "mix_warning"};
    static const char *const maps[] = {"formats", "version_detection", "collectors", "problems"};
    json_t *files = json_object_get(meta, "files"), *pn;
    char p[512];
    size_t i;

    sub(p, sizeof p, path, "files");
    if (!is_count(files))
        fail(c, p, files, "a count (an integer >= 0, or a decimal string)");
    for (i = 0; i < sizeof strs / sizeof strs[0]; i++)
        str(c, meta, path, strs[i], 0);
    str(c, meta, path, "python_version", 1);
    for (i = 0; i < sizeof maps / sizeof maps[0]; i++)
        obj(c, meta, path, maps[i]);
    if (group)
        obj_of_obj(c, meta, path, "headers", NULL);
    pn = json_object_get(meta, "problem_notes");
    if (pn && !json_is_array(pn)) {
        sub(p, sizeof p, path, "problem_notes");
        fail(c, p, pn, "an array");
    }
}

static json_t *
meta_of(sctx *c, json_t *o, const char *path)
{
    json_t *meta = json_object_get(o, "meta");
    char p[512];

    sub(p, sizeof p, path, "meta");
    if (!json_is_object(meta)) {
        fail(c, p, meta, "an object");
        return NULL;
    }
    return meta;
}

static void
group_check(sctx *c, json_t *g, const char *path)
{
    static const char *const maps[] = {"calls",     "objects",       "rare_events",   "other",
                                       "own_calls", "rare_watchers", "free_threading"};
    json_t *meta = meta_of(c, g, path), *opt, *cen;
    char p[512];
    size_t i;

    if (meta) {
        sub(p, sizeof p, path, "meta");
        meta_check(c, meta, p, 1);
    }
    obj_of_obj(c, g, path, "opcodes", op);
    for (i = 0; i < sizeof maps / sizeof maps[0]; i++)
        obj(c, g, path, maps[i]);
    obj_of_obj(c, g, path, "gc", NULL);
    obj_of_obj(c, g, path, "code", code);
    if ((opt = obj(c, g, path, "optimization")) != NULL) {
        static const char *const omaps[] = {"counters", "jit", "unsupported_opcodes",
                                            "errors_in_opcode"};
        sub(p, sizeof p, path, "optimization");
        for (i = 0; i < sizeof omaps / sizeof omaps[0]; i++)
            obj(c, opt, p, omaps[i]);
        obj_of_obj(c, opt, p, "histograms", NULL);
        obj_of_obj(c, opt, p, "uops", op);
    }
    if ((cen = obj(c, g, path, "census")) != NULL) {
        sub(p, sizeof p, path, "census");
        census(c, cen, p);
    }
}

unsigned __int128
summary_count_total(json_t *v)
{
    unsigned __int128 n = 0;
    const char *k, *s;
    json_t *m;
    size_t i;

    if (json_is_object(v)) {
        json_object_foreach(v, k, m) if (strcmp(k, "meta") != 0) n += summary_count_total(m);
    }
    else if (json_is_array(v)) {
        json_array_foreach(v, i, m) n += summary_count_total(m);
    }
    else if (json_is_integer(v) && json_integer_value(v) > 0) {
        n = (unsigned __int128)json_integer_value(v);
    }
    else if (json_is_string(v) && is_count(v)) {
        for (s = json_string_value(v); *s; s++)
            n = n * 10 + (unsigned)(*s - '0');
    }
    return n;
}

int
summary_schema_check(json_t *root, char *why, size_t size)
{
    sctx c = {why, size, 0};
    json_t *groups = json_object_get(root, "groups"), *g, *meta;
    char p[64];
    size_t i;

    if (size)
        why[0] = '\0';
    if (groups == NULL) {
        group_check(&c, root, "");
        return c.bad ? -1 : 0;
    }
    if (!json_is_array(groups)) {
        fail(&c, "groups", groups, "an array");
        return -1;
    }
    if ((meta = meta_of(&c, root, "")) != NULL)
        meta_check(&c, meta, "meta", 0);
    json_array_foreach(groups, i, g)
    {
        snprintf(p, sizeof p, "groups[%zu]", i);
        if (!json_is_object(g))
            fail(&c, p, g, "an object");
        else
            group_check(&c, g, p);
    }
    return c.bad ? -1 : 0;
}
