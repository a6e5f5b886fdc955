/* psf_key.c: classifying counter keys and spelling them canonically. */
#include "psf_key.h"
#include "psf_keys.h"

#include "psf_line.h"
#include "psf_stats.h"
#include "psf_tables.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

const char *const psf_spec_field_name[PSF_SPEC_COUNT] = {
    "success", "failure", "hit", "deferred", "miss", "deopt",
};

static int
starts(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s, lit, m) == 0;
}

static int
equals(const char *s, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

/* A bracketed number (an opcode, a bucket, a line): digits only, at most
 * PSF_LINE_MAX, as psf_parse_line() reads a line number; -1 otherwise. */
static long
as_num(const char *s, size_t n)
{
    long v;

    return psf_parse_line(s, n, &v) == 0 ? v : -1;
}

/* A histogram bucket's bound: digits, up to 2**62 (CPython 3.15's trace
 * histograms run to 2**31, past a line number's limit); -1 if not. */
static long
as_bucket(const char *s, size_t n)
{
    long v = 0;
    size_t i;

    if (n == 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > ((1L << 62) - 9) / 10)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Parse "[X]" at s[0..n); sets x and xn and returns the length consumed
 * including brackets, or 0 if s does not start with a bracket pair. */
static size_t
bracket(const char *s, size_t n, const char **x, size_t *xn)
{
    const char *close;

    if (n < 2 || s[0] != '[')
        return 0;
    close = memchr(s + 1, ']', n - 1);
    if (close == NULL)
        return 0;
    *x = s + 1;
    *xn = (size_t)(close - s - 1);
    return (size_t)(close - s) + 1;
}

/* "opcode[A]<rest>" with the given prefix ("opcode", "uops", "uop", ...):
 * on success sets a and returns a pointer to rest. */
static const char *
prefixed(const char *s, size_t n, const char *prefix, psf_key *k)
{
    size_t m = strlen(prefix), used;

    if (!starts(s, n, prefix))
        return NULL;
    used = bracket(s + m, n - m, &k->a, &k->a_len);
    if (used == 0)
        return NULL;
    k->a_num = as_num(k->a, k->a_len);
    return s + m + used;
}

static void
parse_opcode(const char *rest, size_t rn, psf_key *k)
{
    size_t used;
    int f;

    if (equals(rest, rn, ".execution_count")) {
        k->kind = PSF_K_OP_EXEC;
    }
    else if (equals(rest, rn, ".specializable")) {
        k->kind = PSF_K_OP_SPECIALIZABLE;
    }
    else if (starts(rest, rn, ".pair_count") &&
             (used = bracket(rest + 11, rn - 11, &k->b, &k->b_len)) != 0 && used == rn - 11) {
        k->kind = PSF_K_OP_PAIR;
        k->b_num = as_num(k->b, k->b_len);
    }
    else if (starts(rest, rn, ".specialization.failure_kinds") &&
             (used = bracket(rest + 29, rn - 29, &k->b, &k->b_len)) != 0 && used == rn - 29) {
        k->kind = PSF_K_OP_FAIL_KIND;
        k->b_num = as_num(k->b, k->b_len);
    }
    else if (starts(rest, rn, ".specialization.")) {
        k->kind = PSF_K_OP_OTHER;
        for (f = 0; f < PSF_SPEC_COUNT; f++)
            if (equals(rest + 16, rn - 16, psf_spec_field_name[f])) {
                k->kind = PSF_K_OP_SPEC;
                k->field = f;
            }
    }
    else {
        k->kind = PSF_K_OP_OTHER;
    }
}

static int
ends(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s + n - m, lit, m) == 0;
}

/* Last occurrence of lit in s[0..n), or NULL. */
static const char *
find_last(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit), i;

    for (i = n >= m ? n - m + 1 : 0; i-- > 0;)
        if (memcmp(s + i, lit, m) == 0)
            return s + i;
    return NULL;
}

static void
set_a(psf_key *k, const char *a, const char *a_end)
{
    k->a = a;
    k->a_len = (size_t)(a_end - a);
    k->a_num = as_num(k->a, k->a_len);
}

static void
set_b(psf_key *k, const char *b, const char *b_end)
{
    k->b = b;
    k->b_len = (size_t)(b_end - b);
    k->b_num = as_num(k->b, k->b_len);
}

/* "NAME.FIELD" after a prefix: FIELD (no '.', '[' or ' ') into b. */
static int
plain_field(const char *f, const char *e, psf_key *k)
{
    const char *p;

    if (f >= e)
        return 0;
    for (p = f; p < e; p++)
        if (*p == '.' || *p == '[' || *p == ']' || *p == ' ')
            return 0;
    set_b(k, f, e);
    return 1;
}

/* The subkeys "PREFIX[A]SUB[B]" of code[...] and source[...]. */
static const struct sub {
    const char *lit;
    int kind;
} sub_code[] =
    {
        {PSF_KEY_CODE_LINE, PSF_K_CODE_LINE},
        {PSF_KEY_CODE_SITE, PSF_K_CODE_SITE},
        {PSF_KEY_CODE_SITE_EXEC, PSF_K_CODE_SITE_EXEC},
        {PSF_KEY_CODE_SITE_ROW, PSF_K_CODE_SITE_ROW},
},
  sub_source[] = {
      {PSF_KEY_SOURCE_LINE, PSF_K_SOURCE},
      {PSF_KEY_SOURCE_ROW, PSF_K_SOURCE_ROW},
};

/* s[0..n) is PREFIX[A]SUB[B], A starting at a: A holds no raw ']' (free
 * text, 1.16), so it ends at the first ']' after a; B is what the last
 * ']' closes, non-empty.  Returns 1 with k set if one of subs[0..nsub)
 * follows A. */
static int
bracketed_sub(const char *s, size_t n, const char *a, psf_key *k, const struct sub *subs,
              size_t nsub)
{
    const char *e = s + n, *close = memchr(a, ']', (size_t)(e - a));
    size_t i, m;

    if (close == NULL || s[n - 1] != ']')
        return 0;
    for (i = 0; i < nsub; i++) {
        m = strlen(subs[i].lit);
        if ((size_t)(e - close) > m + 1 && memcmp(close, subs[i].lit, m) == 0) {
            set_a(k, a, close);
            set_b(k, close + m, e - 1);
            k->kind = subs[i].kind;
            return 1;
        }
    }
    return 0;
}

static int
code_sub(const char *s, size_t n, const char *a, psf_key *k)
{
    return bracketed_sub(s, n, a, k, sub_code, sizeof sub_code / sizeof sub_code[0]);
}

/* census.*, code[...].*: the collector's own structured keys.  Returns 1
 * if s was one of them (k set). */
/* The length of a literal prefix. */
#define LEN(lit) (sizeof lit - 1)

/* census.site_executions[F].form[FORM] or census.site_executions[F].B
 * (B a plain field; F empty: the marker of a summary without them). */
static int
site_fx(const char *s, size_t n, psf_key *k)
{
    const char *e = s + n, *f = s + LEN(PSF_KEY_SITE_FX);
    const char *p = memchr(f, ']', (size_t)(e - f));

    if (p == NULL || p + 1 >= e || p[1] != '.')
        return 0;
    set_a(k, f, p);
    if (starts(p, (size_t)(e - p), PSF_KEY_SITE_FX_FORM) && s[n - 1] == ']' &&
        e - 1 > p + LEN(PSF_KEY_SITE_FX_FORM)) {
        set_b(k, p + LEN(PSF_KEY_SITE_FX_FORM), e - 1);
        k->kind = PSF_K_SITE_FX_FORM;
        return 1;
    }
    if (plain_field(p + 2, e, k)) {
        k->kind = PSF_K_SITE_FX;
        return 1;
    }
    return 0;
}

/* census.family[F].B (B a plain field) or census.family[F].S[FORM], S
 * the key of PSF_CENSUS_FAMILY's specialized row. */
static int
census_family(const char *s, size_t n, psf_key *k)
{
    const char *e = s + n, *f = s + LEN(PSF_CENSUS_FAMILY_PREFIX);
    const char *p = memchr(f, ']', (size_t)(e - f));
    const char *spec = psf_stats_census_family.rows[PSF_CF_specialized].key;
    size_t sn = strlen(spec);

    if (p == NULL || p + 1 >= e || p[1] != '.')
        return 0;
    set_a(k, f, p);
    p += LEN(PSF_CENSUS_FAMILY_SEP);
    if (starts(p, (size_t)(e - p), spec) && p + sn < e && p[sn] == '[' && s[n - 1] == ']' &&
        e - 1 > p + sn + 1) {
        set_b(k, p + sn + 1, e - 1);
        k->kind = PSF_K_CENSUS_FORM;
        return 1;
    }
    if (plain_field(p, e, k)) {
        k->kind = PSF_K_CENSUS;
        return 1;
    }
    return 0;
}

static int
parse_own(const char *s, size_t n, psf_key *k)
{
    const char *e = s + n, *p;

    if (starts(s, n, PSF_KEY_CENSUS_ROWS)) {
        if (ends(s, n, "].count")) {
            set_a(k, s + LEN(PSF_KEY_CENSUS_ROWS), e - LEN("].count"));
            k->kind = PSF_K_SITE_SEEN;
            return 1;
        }
        if (ends(s, n, "].attempts")) {
            set_a(k, s + LEN(PSF_KEY_CENSUS_ROWS), e - LEN("].attempts"));
            k->kind = PSF_K_SITE_ATTEMPTS;
            return 1;
        }
        return 0;
    }
    if (starts(s, n, PSF_KEY_SITE_FX))
        return site_fx(s, n, k);
    if (starts(s, n, PSF_KEY_CENSUS_SITE) && s[n - 1] == ']') {
        set_a(k, s + LEN(PSF_KEY_CENSUS_SITE), e - 1);
        k->kind = PSF_K_CENSUS_SITE;
        return 1;
    }
    if (starts(s, n, PSF_CENSUS_FAMILY_PREFIX))
        return census_family(s, n, k);
    if (starts(s, n, PSF_KEY_CENSUS) && plain_field(s + LEN(PSF_KEY_CENSUS), e, k)) {
        k->kind = PSF_K_CENSUS;
        return 1;
    }
    if (equals(s, n, PSF_KEY_CODE_LINES_OMITTED)) {
        k->kind = PSF_K_LINES_OMITTED;
        return 1;
    }
    if (equals(s, n, PSF_KEY_BENCH_CALLS)) {
        k->kind = PSF_K_BENCH_CALLS;
        return 1;
    }
    if (starts(s, n, PSF_KEY_SOURCE) && n > LEN(PSF_KEY_SOURCE))
        return bracketed_sub(s, n, s + LEN(PSF_KEY_SOURCE), k, sub_source, 2);
    if (starts(s, n, PSF_KEY_CODE) && n > LEN(PSF_KEY_CODE)) {
        const char *a = s + LEN(PSF_KEY_CODE);
        if (ends(s, n, PSF_KEY_CODE_INSTRUCTIONS) || ends(s, n, PSF_KEY_CODE_CALLS)) {
            p = find_last(s, n, PSF_KEY_FIELD);
            set_a(k, a, p);
            set_b(k, p + LEN(PSF_KEY_FIELD), e);
            k->kind = PSF_K_CODE;
            return 1;
        }
        if (code_sub(s, n, a, k))
            return 1;
        p = find_last(s, n, PSF_KEY_CODE_OPCODE);
        if (p != NULL && p >= a && s[n - 1] == ']' && e - 1 > p + LEN(PSF_KEY_CODE_OPCODE)) {
            set_a(k, a, p);
            set_b(k, p + LEN(PSF_KEY_CODE_OPCODE), e - 1);
            k->kind = PSF_K_CODE_OP;
            return 1;
        }
        return 0;
    }
    return 0;
}

/* The free-threading lines of CPython 3.15's print_ft_stats()
 * (Python/pystats.c, free-threaded builds only): "LABEL (FIELD)", the
 * label CPython's, the field its FTStats member. */
static const char *const ft_fields[][2] = {
    {"Mutex sleeps", "mutex_sleeps"}, {"QSBR polls", "qsbr_polls"}, {"World stops", "world_stops"}};

static int
ft_line(const char *s, size_t n, psf_key *k)
{
    size_t i, ln, fn;

    for (i = 0; i < sizeof ft_fields / sizeof ft_fields[0]; i++) {
        ln = strlen(ft_fields[i][0]);
        fn = strlen(ft_fields[i][1]);
        if (n == ln + 2 + fn + 1 && memcmp(s, ft_fields[i][0], ln) == 0 &&
            memcmp(s + ln, " (", 2) == 0 && memcmp(s + ln + 2, ft_fields[i][1], fn) == 0 &&
            s[n - 1] == ')') {
            k->kind = PSF_K_FT;
            k->a = s;
            k->a_len = ln;
            k->b = s + ln + 2;
            k->b_len = fn;
            return 1;
        }
    }
    return 0;
}

const char *
psf_key_ft_field(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < sizeof ft_fields / sizeof ft_fields[0]; i++)
        if (strlen(ft_fields[i][0]) == n && memcmp(s, ft_fields[i][0], n) == 0)
            return ft_fields[i][1];
    return NULL;
}

/* The dotted keys of indexed counters: the collector's (gc[N].FIELD,
 * objects.*, rare.*, calls.*) and CPython's (opcode[X].*, uops[X].*,
 * uop[X].pair_count[Y], unsupported_opcode[X].count,
 * error_in_opcode[X].count).  Returns 1 when s has one of their
 * prefixes (its kind set, or left PSF_K_OTHER if the rest is not one of
 * theirs), 0 otherwise. */
static int
parse_dotted(const char *s, size_t n, psf_key *k)
{
    const char *rest, *e = s + n;
    size_t used;

    if ((rest = prefixed(s, n, "gc", k)) != NULL) {
        if (k->a_num >= 0 && rest < e && *rest == '.' && plain_field(rest + 1, e, k))
            k->kind = PSF_K_OWN_GC;
    }
    else if (starts(s, n, PSF_KEY_OBJECTS) && plain_field(s + LEN(PSF_KEY_OBJECTS), e, k)) {
        k->kind = PSF_K_OWN_OBJECT;
    }
    else if (starts(s, n, PSF_KEY_RARE) && plain_field(s + LEN(PSF_KEY_RARE), e, k)) {
        k->kind = PSF_K_OWN_RARE;
    }
    else if (starts(s, n, PSF_KEY_CALLS) && plain_field(s + LEN(PSF_KEY_CALLS), e, k)) {
        k->kind = PSF_K_OWN_CALL;
    }
    else if ((rest = prefixed(s, n, "opcode", k)) != NULL) {
        parse_opcode(rest, (size_t)(e - rest), k);
    }
    else if ((rest = prefixed(s, n, "uops", k)) != NULL) {
        if (equals(rest, (size_t)(e - rest), ".execution_count"))
            k->kind = PSF_K_UOP_EXEC;
        else if (equals(rest, (size_t)(e - rest), ".specialization.miss"))
            k->kind = PSF_K_UOP_MISS;
    }
    else if ((rest = prefixed(s, n, "uop", k)) != NULL) {
        if (starts(rest, (size_t)(e - rest), ".pair_count") &&
            (used = bracket(rest + 11, (size_t)(e - rest) - 11, &k->b, &k->b_len)) != 0 &&
            rest + 11 + used == e)
            k->kind = PSF_K_UOP_PAIR;
    }
    else if ((rest = prefixed(s, n, "unsupported_opcode", k)) != NULL) {
        if (equals(rest, (size_t)(e - rest), ".count"))
            k->kind = PSF_K_UNSUPPORTED;
    }
    else if ((rest = prefixed(s, n, "error_in_opcode", k)) != NULL) {
        if (equals(rest, (size_t)(e - rest), ".count"))
            k->kind = PSF_K_ERROR_IN_OPCODE;
    }
    else {
        return 0;
    }
    return 1;
}

/* "Trace length[64]": a bucket of one of CPython's histograms. */
static void
hist_bucket(const char *s, size_t n, psf_key *k)
{
    const char *open = s + n - 1;
    long bucket;

    while (open > s && *open != '[')
        open--;
    bucket = open > s ? as_bucket(open + 1, (size_t)(s + n - 1 - open - 1)) : -1;
    if (bucket >= 0) {
        k->kind = PSF_K_HIST;
        k->b = s;
        k->b_len = (size_t)(open - s);
        k->a = open + 1;
        k->a_len = (size_t)(s + n - 1 - open - 1);
        k->a_num = bucket;
    }
}

/* The lines CPython's native dumps write by label ("Calls to ...",
 * "Object ...", "GC[N] ...", "Rare event (...)", free-threading, JIT,
 * optimization counters and histogram buckets); the kind is left
 * PSF_K_OTHER for any other line. */
static void
parse_labelled(const char *s, size_t n, psf_key *k)
{
    const char *rest, *e = s + n;

    if ((rest = prefixed(s, n, "Calls via PyEval_EvalFrame", k)) != NULL) {
        if (rest == e)
            k->kind = PSF_K_EVAL_CALL;
    }
    else if (starts(s, n, "Calls to ") || psf_stat_find(&psf_stats_native_calls, s, n) != NULL) {
        k->kind = PSF_K_CALL;
    }
    else if (starts(s, n, "Object ")) {
        k->kind = PSF_K_OBJECT;
    }
    else if ((rest = prefixed(s, n, "GC", k)) != NULL) {
        if (rest < e && *rest == ' ' && k->a_num >= 0) {
            k->kind = PSF_K_GC;
            k->b = rest + 1;
            k->b_len = (size_t)(e - rest - 1);
        }
    }
    else if (starts(s, n, "Rare event (") && s[n - 1] == ')') {
        k->kind = PSF_K_RARE;
        k->a = s + 12;
        k->a_len = n - 13;
    }
    else if (ft_line(s, n, k)) {
        /* kind set */
    }
    else if (starts(s, n, "JIT ")) {
        k->kind = PSF_K_JIT;
    }
    else if (starts(s, n, "Optimization ") || starts(s, n, "Optimizer ") ||
             equals(s, n, psf_stats_native_opt.rows[PSF_OPT_invalidated].key)) {
        k->kind = PSF_K_OPT;
    }
    else if (n > 3 && s[n - 1] == ']') {
        hist_bucket(s, n, k);
    }
}

int
psf_key_parse(const char *s, size_t n, psf_key *k)
{
    memset(k, 0, sizeof *k);
    k->a_num = k->b_num = -1;
    k->kind = PSF_K_OTHER;

    /* The grammars in turn: header keys, the collector's own
     * (census.*, code[...], ...), the dotted ones, then the labels. */
    if (psf_is_header_key(s, n))
        k->kind = PSF_K_HEADER;
    else if (!parse_own(s, n, k) && !parse_dotted(s, n, k))
        parse_labelled(s, n, k);
    /* psf_key.h: a kind always; the parts borrowed from s; a number or
     * -1; a specialization field for PSF_K_OP_SPEC. */
    assert(k->kind >= 0 && k->kind < PSF_K_KIND_COUNT);
    assert(k->a == NULL || (k->a >= s && k->a + k->a_len <= s + n));
    assert(k->b == NULL || (k->b >= s && k->b + k->b_len <= s + n));
    assert(k->a_num >= -1 && k->b_num >= -1);
    assert(k->kind != PSF_K_OP_SPEC || (k->field >= 0 && k->field < PSF_SPEC_COUNT));
    return k->kind;
}

static int
contains(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit), i;

    for (i = 0; i + m <= n; i++)
        if (memcmp(s + i, lit, m) == 0)
            return 1;
    return 0;
}

/* Instructions no earlier version has (CPython's own lists: the
 * _specialized_instructions of published 3.15 and 3.16 summaries against
 * the opcode table of 3.14). */
static const char *const new_315[] = {"BINARY_OP_SUBSCR_USTR_INT",
                                      "CALL_EX_NON_PY_GENERAL",
                                      "CALL_EX_PY",
                                      "FOR_ITER_VIRTUAL",
                                      "GET_ITER_SELF",
                                      "GET_ITER_VIRTUAL",
                                      "RESUME_CHECK_JIT",
                                      NULL};
static const char *const new_316[] = {"SEND_ASYNC_GEN", "SEND_VIRTUAL", NULL};

unsigned
psf_key_new_name(const char *s, size_t n)
{
    size_t i;

    for (i = 0; new_316[i]; i++)
        if (equals(s, n, new_316[i]))
            return PSF_M_NEW_316;
    for (i = 0; new_315[i]; i++)
        if (equals(s, n, new_315[i]))
            return PSF_M_NEW_315;
    return 0;
}

/* The key of CPython's object counter id (psf_stats.h). */
#define NOBJ_KEY(id) (psf_stats_native_objects.rows[PSF_NOBJ_##id].key)

unsigned
psf_key_marks(const psf_key *k, const char *s, size_t n)
{
    unsigned m = 0;

    switch (k->kind) {
    case PSF_K_HEADER:
        if (starts(s, n, "pystats."))
            m |= PSF_M_OWN_HEADER;
        break;
    case PSF_K_OP_EXEC:
    case PSF_K_OP_PAIR:
    case PSF_K_OP_SPECIALIZABLE:
    case PSF_K_OP_SPEC:
    case PSF_K_OP_FAIL_KIND:
    case PSF_K_OP_OTHER:
        m |= k->a_num >= 0 ? PSF_M_NUMERIC_OP : PSF_M_NAMED_OP;
        if (k->a_num < 0)
            m |= psf_key_new_name(k->a, k->a_len);
        if (k->kind == PSF_K_OP_PAIR && k->b != NULL && k->b_num < 0)
            m |= psf_key_new_name(k->b, k->b_len);
        break;
    case PSF_K_EVAL_CALL:
        m |= PSF_M_EVAL_CALL;
        break;
    case PSF_K_OBJECT:
        if (starts(s, n, "Object method cache"))
            m |= PSF_M_METHOD_CACHE;
        if (contains(s, n, "mortal"))
            m |= PSF_M_MORTAL;
        /* Resizing the method cache: 3.16. */
        if (starts(s, n, NOBJ_KEY(cache_too_big)) || starts(s, n, NOBJ_KEY(cache_invalidations)) ||
            starts(s, n, NOBJ_KEY(cache_resizes)))
            m |= PSF_M_NEW_316;
        break;
    case PSF_K_OPT:
        if (equals(s, n, "Optimization fitness terminated"))
            m |= PSF_M_NEW_315;
        break;
    case PSF_K_JIT:
        if (contains(s, n, "size"))
            m |= PSF_M_JIT_MEMORY;
        break;
    case PSF_K_GC:
        m |= PSF_M_GC;
        break;
    case PSF_K_RARE:
        m |= PSF_M_RARE;
        break;
    case PSF_K_FT:
        /* Printed by 3.15 and later, free-threaded builds only. */
        m |= PSF_M_NEW_315;
        break;
    default:
        break;
    }
    return m;
}

/* Append s[0..n) to buf at *pos; returns 0 if it does not fit. */
static int
put(char *buf, size_t size, size_t *pos, const char *s, size_t n)
{
    if (*pos + n + 1 > size)
        return 0;
    memcpy(buf + *pos, s, n);
    *pos += n;
    buf[*pos] = '\0';
    return 1;
}

static int
put_op(char *buf, size_t size, size_t *pos, const char *x, size_t xn, long num, int minor)
{
    const char *name = num >= 0 ? psf_tab_opname(minor, (int)num) : NULL;

    if (name != NULL)
        return put(buf, size, pos, name, strlen(name));
    return put(buf, size, pos, x, xn);
}

size_t
psf_key_canon(const psf_key *k, const char *s, size_t n, int minor, char *buf, size_t size)
{
    size_t pos = 0;
    int ok = 1;
    const char *after;

    if (size == 0)
        return 0;
    buf[0] = '\0';
    switch (k->kind) {
    case PSF_K_OP_EXEC:
    case PSF_K_OP_SPECIALIZABLE:
    case PSF_K_OP_SPEC:
    case PSF_K_OP_FAIL_KIND:
    case PSF_K_OP_OTHER:
    case PSF_K_OP_PAIR:
        after = k->a + k->a_len; /* "]..." */
        ok = put(buf, size, &pos, "opcode[", 7) &&
             put_op(buf, size, &pos, k->a, k->a_len, k->a_num, minor);
        if (ok && k->kind == PSF_K_OP_PAIR) {
            ok = put(buf, size, &pos, "].pair_count[", 13) &&
                 put_op(buf, size, &pos, k->b, k->b_len, k->b_num, minor) &&
                 put(buf, size, &pos, "]", 1);
        }
        else if (ok) {
            ok = put(buf, size, &pos, after, (size_t)(s + n - after));
        }
        break;
    case PSF_K_EVAL_CALL: {
        const char *name = k->a_num >= 0 ? psf_tab_eval_call_kind((int)k->a_num) : NULL;
        ok = put(buf, size, &pos, "Calls via PyEval_EvalFrame[", 27) &&
             (name ? put(buf, size, &pos, name, strlen(name))
                   : put(buf, size, &pos, k->a, k->a_len)) &&
             put(buf, size, &pos, "]", 1);
        break;
    }
    case PSF_K_UOP_EXEC:
    case PSF_K_UOP_MISS:
        /* Older dumps spelled some uops without their leading "_". */
        if (k->a_len > 0 && k->a[0] != '_')
            ok = put(buf, size, &pos, "uops[_", 6) &&
                 put(buf, size, &pos, k->a, (size_t)(s + n - k->a));
        else
            ok = put(buf, size, &pos, s, n);
        break;
    default:
        ok = put(buf, size, &pos, s, n);
        break;
    }
    return ok ? pos : 0;
}
