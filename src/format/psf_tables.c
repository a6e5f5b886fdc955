/* psf_tables.c: lookups in CPython's opcode and failure-kind tables.
 *
 * The tables are small (at most 256 opcodes, ~150 failure kinds) and
 * every lookup happens once per distinct key of a run, never per line, so
 * plain linear searches keep this file free of state and initialisation.
 */
#include "psf_tables.h"

#include <stdio.h>
#include <string.h>

/* The newest version with built-in tables: later versions borrow its
 * opcode names for families (names are stable, numbers are not). */
#define PSF_TAB_NEWEST 14

/* The tables of 3.minor (the generated index), or NULL. */
static const psf_tab_version *
tab_version(int minor)
{
    const psf_tab_version *v;

    for (v = psf_tab_versions; v->minor; v++)
        if (v->minor == minor)
            return v;
    return NULL;
}

static const char *const *
tab_names(int minor)
{
    const psf_tab_version *v = tab_version(minor);
    return v ? v->opnames : NULL;
}

static const char *const *
tab_families(int minor)
{
    const psf_tab_version *v = tab_version(minor);
    return v ? v->families : NULL;
}

int
psf_tab_has_opcodes(int minor)
{
    return tab_names(minor) != NULL;
}

const char *
psf_tab_opname(int minor, int num)
{
    const char *const *names = tab_names(minor);

    if (names == NULL || num < 0 || num > 255)
        return NULL;
    return names[num];
}

/* Family of name in one version's table, or NULL if the table lacks it. */
static const char *
family_in(int minor, const char *name)
{
    const char *const *names = tab_names(minor);
    const char *const *fams = tab_families(minor);
    int i;

    if (names == NULL)
        return NULL;
    for (i = 0; i < 256; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return fams[i] ? fams[i] : names[i];
    return NULL;
}

/* Longest specializable family of the newest table that prefixes name
 * followed by "_", or NULL. */
static const char *
family_by_prefix(const char *name)
{
    const char *const *names = tab_names(PSF_TAB_NEWEST);
    const char *const *fams = tab_families(PSF_TAB_NEWEST);
    const char *best = NULL;
    size_t best_len = 0;
    int i;

    for (i = 0; i < 256; i++) {
        size_t n;
        if (!names[i] || !fams[i] || strcmp(names[i], fams[i]) == 0)
            continue;
        n = strlen(fams[i]);
        if (n > best_len && strncmp(name, fams[i], n) == 0 && name[n] == '_') {
            best = fams[i];
            best_len = n;
        }
    }
    return best;
}

const char *
psf_tab_family(int minor, const char *name)
{
    const char *fam;

    if (tab_names(minor) != NULL)
        return family_in(minor, name);
    /* No table for this version: newest names, then the prefix rule. */
    fam = family_in(PSF_TAB_NEWEST, name);
    if (fam == NULL)
        fam = family_by_prefix(name);
    return fam;
}

static int
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Mirrors the SPEC_FAIL_* naming of Python/specialize.c: the attribute
 * families share SPEC_FAIL_ATTR_*, the subscript ones SPEC_FAIL_SUBSCR_*,
 * iteration (FOR_ITER, and SEND from 3.12) SPEC_FAIL_ITER_*. */
const char *
psf_tab_fail_prefix(int minor, const char *family)
{
    if (minor == 11) {
        if (strcmp(family, "PRECALL") == 0)
            return "CALL";
        if (strcmp(family, "LOAD_METHOD") == 0 || strcmp(family, "FOR_ITER") == 0)
            return family;
    }
    else {
        if (strcmp(family, "LOAD_SUPER_ATTR") == 0)
            return "SUPER";
        if (strcmp(family, "FOR_ITER") == 0 || strcmp(family, "SEND") == 0)
            return "ITER";
        if (strcmp(family, "CALL_KW") == 0)
            return "CALL";
    }
    if (ends_with(family, "ATTR"))
        return "ATTR";
    if (ends_with(family, "SUBSCR"))
        return "SUBSCR";
    return family;
}

/* 3.12: no table; 3.15+: numbers may move (no table either). */
static const psf_tab_kind *
fail_table(int minor)
{
    const psf_tab_version *v = tab_version(minor);
    return v ? v->fail_kinds : NULL;
}

int
psf_tab_fail_kind(int minor, const char *family, int kind, char *buf, size_t size)
{
    const psf_tab_kind *t = fail_table(minor);
    int shared_max = minor == 11 ? 6 : 8;
    const char *prefix;
    size_t plen;

    if (t != NULL && kind >= 0) {
        if (kind <= shared_max) {
            for (; t->value >= 0; t++)
                if (t->value == kind) {
                    snprintf(buf, size, "%s", t->name);
                    return 1;
                }
        }
        else if (family != NULL) {
            prefix = psf_tab_fail_prefix(minor, family);
            plen = strlen(prefix);
            for (; t->value >= 0; t++)
                if (t->value == kind && strncmp(t->name, prefix, plen) == 0 &&
                    t->name[plen] == '_') {
                    snprintf(buf, size, "%s", t->name);
                    return 1;
                }
        }
    }
    snprintf(buf, size, "kind %d", kind);
    return 0;
}

size_t
psf_tab_fail_names(int minor, int kind, const char **names, size_t max)
{
    const psf_tab_kind *t = fail_table(minor);
    size_t n = 0;

    for (; t != NULL && t->value >= 0; t++)
        if (t->value == kind && n < max)
            names[n++] = t->name;
    return n;
}

static int
starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* summarize_stats.py's pretty(): "_" as spaces, lowercased. */
static void
pretty(char *buf, size_t size, const char *name)
{
    size_t i;

    for (i = 0; name[i] && i + 1 < size; i++)
        buf[i] = name[i] == '_'
                     ? ' '
                     : (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
    if (size)
        buf[i] = '\0';
}

int
psf_tab_fail_label(int minor, const char *opname, int kind, const char *const *names, size_t nnames,
                   char *buf, size_t size, const char **matched)
{
    const char *prefix = opname;
    size_t i, plen;

    if (matched)
        *matched = NULL;
    if (kind >= 0 && kind <= (minor == 11 ? 6 : 8)) {
        if (nnames == 0)
            goto unknown;
        pretty(buf, size, names[0]);
        if (matched)
            *matched = names[0];
        return 1;
    }
    if (minor == 11) {
        /* 3.11's script: the suffixes first, then PRECALL*. */
        if (ends_with(opname, "ATTR"))
            prefix = "ATTR";
        if (ends_with(opname, "SUBSCR"))
            prefix = "SUBSCR";
        if (starts_with(opname, "PRECALL"))
            prefix = "CALL";
    }
    else if (strcmp(opname, "LOAD_SUPER_ATTR") == 0) {
        prefix = "SUPER";
    }
    else if (ends_with(opname, "ATTR")) {
        prefix = "ATTR";
    }
    else if (strcmp(opname, "FOR_ITER") == 0 || strcmp(opname, "SEND") == 0 ||
             (minor >= 14 && strcmp(opname, "GET_ITER") == 0)) {
        prefix = "ITER";
    }
    else if (ends_with(opname, "SUBSCR")) {
        prefix = "SUBSCR";
    }
    plen = strlen(prefix);
    for (i = 0; i < nnames; i++)
        if (strncmp(names[i], prefix, plen) == 0) {
            /* The script drops the prefix and one more character. */
            const char *rest = names[i][plen] ? names[i] + plen + 1 : names[i] + plen;
            pretty(buf, size, rest);
            if (matched)
                *matched = names[i];
            return 1;
        }
unknown:
    snprintf(buf, size, "kind %d", kind);
    return 0;
}

const char *
psf_tab_eval_call_kind(int kind)
{
    const psf_tab_kind *t;

    for (t = psf_tab_eval_call_kinds_3_13; t->value >= 0; t++)
        if (t->value == kind)
            return t->name;
    return NULL;
}

int
psf_tab_script_tables(int minor, psf_tab_script *out)
{
    /* Include/cpython/pystats.h's EVAL_CALL_* are the same in 3.13.5 and
     * 3.14.7. */
    const psf_tab_version *v = tab_version(minor);

    if (v == NULL || v->specialized == NULL) {
        out->specialized = out->fail_kinds = out->call_kinds = NULL;
        return -1;
    }
    out->call_kinds = psf_tab_eval_call_kinds_3_13;
    out->fail_kinds = v->fail_kinds;
    out->specialized = v->specialized;
    return 0;
}
