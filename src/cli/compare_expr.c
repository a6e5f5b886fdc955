/* compare_expr.c: parsing and evaluating --fail-if expressions (grammar in
 * compare_expr.h).  A recursive-descent parser over a hand-written lexer;
 * every error names the column where it was found. */
#include "compare_expr.h"

#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cexpr_fn_name[CX_FN_COUNT] = {
    "", "base", "head", "change", "rel", "base_pm", "head_pm", "change_pm", "rel_pm",
};

enum { N_OR, N_AND, N_NOT, N_CMP };
enum { OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE };
static const char *const op_name[] = {"<", "<=", ">", ">=", "==", "!="};

typedef struct cval {
    int is_num;
    double num;
    char num_text[64];
    int fn;
    char *path; /* owned */
} cval;

struct cexpr {
    int type;
    cexpr *l, *r; /* N_OR, N_AND: both; N_NOT: l */
    int op;
    cval a, b; /* N_CMP */
};

typedef struct parser {
    const char *s;
    size_t pos;
    int depth;
    char *err;
    size_t errsize;
    int failed;
} parser;

static void fail(parser *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
fail(parser *p, size_t at, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (p->failed)
        return;
    p->failed = 1;
    n = snprintf(p->err, p->errsize, "column %zu: ", at + 1);
    if (n < 0 || (size_t)n >= p->errsize)
        return;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errsize - (size_t)n, fmt, ap);
    va_end(ap);
}

static void
skip_ws(parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
           p->s[p->pos] == '\r')
        p->pos++;
}

static int
is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int
is_word(int c)
{
    return is_alpha(c) || is_digit(c) || c == '.' || c == '[' || c == ']';
}

/* The word at pos (without moving), its length. */
static size_t
word_len(const parser *p)
{
    size_t n = 0;

    if (!is_alpha((unsigned char)p->s[p->pos]))
        return 0;
    while (is_word((unsigned char)p->s[p->pos + n]))
        n++;
    return n;
}

static int
word_is(const parser *p, const char *w)
{
    size_t n = word_len(p);
    return n == strlen(w) && strncmp(p->s + p->pos, w, n) == 0;
}

/* Describe what is at pos for an error message. */
static void
what(const parser *p, char *buf, size_t size)
{
    const char *t = p->s + p->pos;
    size_t n = word_len(p);

    if (*t == '\0')
        snprintf(buf, size, "the end of the expression");
    else if (n)
        snprintf(buf, size, "'%.*s'", (int)(n > 40 ? 40 : n), t);
    else
        snprintf(buf, size, "'%c'", *t);
}

static cexpr *
node(int type)
{
    cexpr *e = cli_xcalloc(1, sizeof *e);
    e->type = type;
    return e;
}

static int
parse_number(parser *p, cval *v)
{
    size_t start = p->pos, i = p->pos;
    char buf[64];
    int digits = 0;

    if (p->s[i] == '-' || p->s[i] == '+')
        i++;
    while (is_digit((unsigned char)p->s[i])) {
        i++;
        digits++;
    }
    if (p->s[i] == '.') {
        i++;
        while (is_digit((unsigned char)p->s[i])) {
            i++;
            digits++;
        }
    }
    if (digits == 0) {
        fail(p, start, "a number needs digits");
        return -1;
    }
    if (p->s[i] == 'e' || p->s[i] == 'E') {
        size_t j = i + 1;
        if (p->s[j] == '-' || p->s[j] == '+')
            j++;
        if (!is_digit((unsigned char)p->s[j])) {
            fail(p, i, "an exponent needs digits");
            return -1;
        }
        while (is_digit((unsigned char)p->s[j]))
            j++;
        i = j;
    }
    if (i - start >= sizeof buf - 1) {
        fail(p, start, "number too long");
        return -1;
    }
    memcpy(buf, p->s + start, i - start);
    buf[i - start] = '\0';
    v->is_num = 1;
    v->num = strtod(buf, NULL);
    if (p->s[i] == '%') {
        v->num /= 100.0;
        i++;
    }
    if (is_alpha((unsigned char)p->s[i])) {
        fail(p, i, "unexpected '%c' after the number %s (numbers take only a '%%' suffix)", p->s[i],
             buf);
        return -1;
    }
    snprintf(v->num_text, sizeof v->num_text, "%.*s", (int)(i - start), p->s + start);
    p->pos = i;
    return 0;
}

/* A path: bare word or quoted string; checks SECTION.ROW. */
static int
parse_path(parser *p, cval *v)
{
    size_t start = p->pos, n;
    char *out;
    const char *dot;

    if (p->s[p->pos] == '"') {
        size_t i = p->pos + 1, o = 0;
        out = cli_xmalloc(strlen(p->s + i) + 1);
        while (p->s[i] && p->s[i] != '"') {
            if (p->s[i] == '\\' && (p->s[i + 1] == '"' || p->s[i + 1] == '\\'))
                i++;
            out[o++] = p->s[i++];
        }
        if (p->s[i] != '"') {
            free(out);
            fail(p, start, "unterminated quoted name");
            return -1;
        }
        out[o] = '\0';
        p->pos = i + 1;
    }
    else {
        n = word_len(p);
        if (n == 0) {
            char w[64];
            what(p, w, sizeof w);
            fail(p, start, "expected a figure (SECTION.NAME) or a number, found %s", w);
            return -1;
        }
        out = cli_xstrndup(p->s + p->pos, n);
        p->pos += n;
    }
    dot = strchr(out, '.');
    if (dot == NULL || dot == out || dot[1] == '\0') {
        fail(p, start,
             "'%.60s' is not a figure: write SECTION.NAME, e.g. "
             "specialization.LOAD_ATTR.hit_ratio or family.LOAD_ATTR",
             out);
        free(out);
        return -1;
    }
    v->path = out;
    return 0;
}

static int
parse_value(parser *p, cval *v)
{
    char c;
    int f;

    skip_ws(p);
    c = p->s[p->pos];
    if (is_digit((unsigned char)c) || c == '.' ||
        ((c == '-' || c == '+') &&
         (is_digit((unsigned char)p->s[p->pos + 1]) || p->s[p->pos + 1] == '.')))
        return parse_number(p, v);
    if (c == '"')
        return parse_path(p, v);
    for (f = 1; f < CX_FN_COUNT; f++)
        if (word_is(p, cexpr_fn_name[f])) {
            size_t save = p->pos;
            p->pos += strlen(cexpr_fn_name[f]);
            skip_ws(p);
            if (p->s[p->pos] != '(') {
                p->pos = save;
                break;
            }
            p->pos++;
            skip_ws(p);
            if (parse_path(p, v) != 0)
                return -1;
            skip_ws(p);
            if (p->s[p->pos] != ')') {
                char w[64];
                what(p, w, sizeof w);
                fail(p, p->pos, "expected ')' after %s(%s, found %s", cexpr_fn_name[f], v->path, w);
                return -1;
            }
            p->pos++;
            v->fn = f;
            return 0;
        }
    if (is_alpha((unsigned char)c) && p->s[p->pos + word_len(p)] == '(') {
        fail(p, p->pos,
             "unknown function '%.*s' (functions: base, head, change, rel, "
             "base_pm, head_pm, change_pm, rel_pm)",
             (int)word_len(p), p->s + p->pos);
        return -1;
    }
    return parse_path(p, v);
}

static int
parse_op(parser *p)
{
    const char *t = p->s + p->pos;

    if (t[0] == '<' && t[1] == '=') {
        p->pos += 2;
        return OP_LE;
    }
    if (t[0] == '>' && t[1] == '=') {
        p->pos += 2;
        return OP_GE;
    }
    if (t[0] == '=' && t[1] == '=') {
        p->pos += 2;
        return OP_EQ;
    }
    if (t[0] == '!' && t[1] == '=') {
        p->pos += 2;
        return OP_NE;
    }
    if (t[0] == '<') {
        p->pos++;
        return OP_LT;
    }
    if (t[0] == '>') {
        p->pos++;
        return OP_GT;
    }
    return -1;
}

static cexpr *parse_or(parser *p);

static void
val_free(cval *v)
{
    free(v->path);
}

void
cexpr_free(cexpr *e)
{
    if (e == NULL)
        return;
    cexpr_free(e->l);
    cexpr_free(e->r);
    val_free(&e->a);
    val_free(&e->b);
    free(e);
}

static cexpr *
parse_unary(parser *p)
{
    cexpr *e;
    size_t at;

    skip_ws(p);
    if (++p->depth > CEXPR_MAX_DEPTH) {
        fail(p, p->pos, "nested too deeply (more than %d levels)", CEXPR_MAX_DEPTH);
        return NULL;
    }
    if ((p->s[p->pos] == '!' && p->s[p->pos + 1] != '=') || word_is(p, "not")) {
        p->pos += p->s[p->pos] == '!' ? 1 : 3;
        e = node(N_NOT);
        e->l = parse_unary(p);
        if (e->l == NULL) {
            cexpr_free(e);
            return NULL;
        }
        p->depth--;
        return e;
    }
    if (p->s[p->pos] == '(') {
        at = p->pos++;
        e = parse_or(p);
        if (e == NULL)
            return NULL;
        skip_ws(p);
        if (p->s[p->pos] != ')') {
            char w[64];
            what(p, w, sizeof w);
            fail(p, p->pos, "expected ')' to close the '(' at column %zu, found %s", at + 1, w);
            cexpr_free(e);
            return NULL;
        }
        p->pos++;
        p->depth--;
        return e;
    }
    e = node(N_CMP);
    if (parse_value(p, &e->a) != 0) {
        cexpr_free(e);
        return NULL;
    }
    skip_ws(p);
    at = p->pos;
    e->op = parse_op(p);
    if (e->op < 0) {
        char w[64];
        what(p, w, sizeof w);
        fail(p, at, "expected a comparison (<, <=, >, >=, ==, !=) after '%.60s', found %s",
             e->a.is_num ? e->a.num_text : e->a.path, w);
        cexpr_free(e);
        return NULL;
    }
    if (parse_value(p, &e->b) != 0) {
        cexpr_free(e);
        return NULL;
    }
    p->depth--;
    return e;
}

static cexpr *
parse_and(parser *p)
{
    cexpr *l = parse_unary(p), *e;

    while (l) {
        skip_ws(p);
        if (p->s[p->pos] == '&' && p->s[p->pos + 1] == '&')
            p->pos += 2;
        else if (word_is(p, "and"))
            p->pos += 3;
        else
            break;
        e = node(N_AND);
        e->l = l;
        e->r = parse_unary(p);
        if (e->r == NULL) {
            cexpr_free(e);
            return NULL;
        }
        l = e;
    }
    return l;
}

static cexpr *
parse_or(parser *p)
{
    cexpr *l, *e;

    if (++p->depth > CEXPR_MAX_DEPTH) {
        fail(p, p->pos, "nested too deeply (more than %d levels)", CEXPR_MAX_DEPTH);
        return NULL;
    }
    l = parse_and(p);
    while (l) {
        skip_ws(p);
        if (p->s[p->pos] == '|' && p->s[p->pos + 1] == '|')
            p->pos += 2;
        else if (word_is(p, "or"))
            p->pos += 2;
        else
            break;
        e = node(N_OR);
        e->l = l;
        e->r = parse_and(p);
        if (e->r == NULL) {
            cexpr_free(e);
            return NULL;
        }
        l = e;
    }
    p->depth--;
    return l;
}

cexpr *
cexpr_parse(const char *text, char *err, size_t errsize)
{
    parser p = {text, 0, 0, err, errsize, 0};
    cexpr *e;

    if (errsize)
        err[0] = '\0';
    if (strlen(text) > CEXPR_MAX_LEN) {
        snprintf(err, errsize, "the expression is longer than %d characters", CEXPR_MAX_LEN);
        return NULL;
    }
    skip_ws(&p);
    if (text[p.pos] == '\0') {
        snprintf(err, errsize, "the expression is empty");
        return NULL;
    }
    e = parse_or(&p);
    if (e == NULL) {
        if (!p.failed)
            fail(&p, p.pos, "malformed expression");
        return NULL;
    }
    skip_ws(&p);
    if (text[p.pos] != '\0') {
        char w[64];
        what(&p, w, sizeof w);
        fail(&p, p.pos, "unexpected %s (join comparisons with 'and' / 'or')", w);
        cexpr_free(e);
        return NULL;
    }
    return e;
}

/* ---- evaluation --------------------------------------------------------- */

static int
val_get(const cval *v, cexpr_lookup lookup, void *ctx, double *out, char *err, size_t errsize)
{
    if (v->is_num) {
        *out = v->num;
        return 0;
    }
    return lookup(ctx, v->fn, v->path, out, err, errsize);
}

static void
val_print(FILE *f, const cval *v, double x)
{
    if (v->is_num) {
        fputs(v->num_text, f);
        return;
    }
    if (v->fn)
        fprintf(f, "%s(%s)", cexpr_fn_name[v->fn], v->path);
    else
        fputs(v->path, f);
    if (isnan(x))
        fputs(" = undefined", f);
    else
        fprintf(f, " = %.6g", x);
}

int
cexpr_eval(const cexpr *e, cexpr_lookup lookup, void *ctx, FILE *trace, char *err, size_t errsize)
{
    double a, b;
    int r, l;

    switch (e->type) {
    case N_OR:
    case N_AND:
        /* Both sides are evaluated, so that a misspelt name is always
         * reported and the trace shows every comparison. */
        l = cexpr_eval(e->l, lookup, ctx, trace, err, errsize);
        if (l < 0)
            return -1;
        r = cexpr_eval(e->r, lookup, ctx, trace, err, errsize);
        if (r < 0)
            return -1;
        return e->type == N_OR ? (l || r) : (l && r);
    case N_NOT:
        r = cexpr_eval(e->l, lookup, ctx, trace, err, errsize);
        return r < 0 ? -1 : !r;
    default:
        if (val_get(&e->a, lookup, ctx, &a, err, errsize) != 0 ||
            val_get(&e->b, lookup, ctx, &b, err, errsize) != 0)
            return -1;
        if (isnan(a) || isnan(b))
            r = 0;
        else
            switch (e->op) {
            case OP_LT:
                r = a < b;
                break;
            case OP_LE:
                r = a <= b;
                break;
            case OP_GT:
                r = a > b;
                break;
            case OP_GE:
                r = a >= b;
                break;
            case OP_EQ:
                r = a == b;
                break;
            default:
                r = a != b;
                break;
            }
        if (trace) {
            fputs("  ", trace);
            val_print(trace, &e->a, a);
            fprintf(trace, " %s ", op_name[e->op]);
            val_print(trace, &e->b, b);
            fprintf(trace, ": %s\n", r ? "true" : "false");
        }
        return r;
    }
}
