/* psf_stats.c: the command's tables of the statistics families, made
 * from psf_stats.h's lists (the collector uses the lists directly). */
#include "psf_stats.h"

#include <string.h>

#define CALL_ROW(f, key, kind, label) {key, label, PSF_CALLS_PREFIX, "", kind, 0, -1},
#define OBJ_ROW(f, key, kind, label) {key, label, PSF_OBJECTS_PREFIX, "", kind, 0, -1},
#define GC_ROW(f, prefix, sep, key, kind) {key, key, prefix, sep, kind, 0, -1},
#define RARE_ROW(f, key, kind, label) {key, label, PSF_RARE_PREFIX, "", kind, 0, -1},
#define CF_ROW(f, key, label, den) \
    {key, label, PSF_CENSUS_FAMILY_PREFIX, PSF_CENSUS_FAMILY_SEP, PSF_STAT_LEVEL, 0, PSF_CF_##den},
#define OPT_ROW(id, key, label, table, den) \
    {key, label, "", "", PSF_STAT_EVENTS, table, PSF_OPT_##den},
#define JIT_ROW(id, key, label, table, den) \
    {key, label, "", "", PSF_STAT_EVENTS, table, PSF_JIT_##den},
#define NATIVE_ROW(id, key, label, part, den) \
    {key, label, "", "", PSF_STAT_EVENTS, PSF_NSUM_##part, PSF_NSUM_##den},

static const psf_stat calls[] = {PSF_CALLS(CALL_ROW)};
static const psf_stat objects[] = {PSF_OBJECTS(OBJ_ROW)};
static const psf_stat gc[] = {PSF_GC(GC_ROW)};
static const psf_stat rare[] = {PSF_RARE(RARE_ROW)};
static const psf_stat census_family[] = {PSF_CENSUS_FAMILY(CF_ROW)};
static const psf_stat native_opt[] = {PSF_NATIVE_OPT(OPT_ROW)};
static const psf_stat native_jit[] = {PSF_NATIVE_JIT(JIT_ROW)};
static const psf_stat native_calls[] = {PSF_NATIVE_CALLS(NATIVE_ROW)};
static const psf_stat native_objects[] = {PSF_NATIVE_OBJECTS(NATIVE_ROW)};

const psf_family psf_stats_calls = {calls, PSF_NCALLS};
const psf_family psf_stats_objects = {objects, PSF_NOBJECTS};
const psf_family psf_stats_gc = {gc, PSF_NGC};
const psf_family psf_stats_rare = {rare, PSF_NRARE};
const psf_family psf_stats_census_family = {census_family, PSF_NCF};
const psf_family psf_stats_native_opt = {native_opt, PSF_NOPT};
const psf_family psf_stats_native_jit = {native_jit, PSF_NJIT};
const psf_family psf_stats_native_calls = {native_calls, PSF_NNCALLS};
const psf_family psf_stats_native_objects = {native_objects, PSF_NNOBJECTS};

size_t
psf_stat_rank(const psf_family *f, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        if (strlen(f->rows[i].key) == n && memcmp(f->rows[i].key, s, n) == 0)
            return i;
    return f->n;
}

void
psf_gc_key_parts(const char *s, size_t n, const char **prefix, const char **sep)
{
    const psf_stat *r = psf_stat_find(&psf_stats_gc, s, n);

    *prefix = r ? r->prefix : PSF_KEY_NATIVE_GC;
    *sep = r ? r->sep : PSF_GC_SEP_NATIVE;
}

const psf_stat *
psf_stat_find(const psf_family *f, const char *s, size_t n)
{
    size_t i = psf_stat_rank(f, s, n);

    return i < f->n ? &f->rows[i] : NULL;
}
