#include "runner/ops/expr.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/util/util.h"

const char *const expr_device_names[EXPR_NDEVICE] = {"sms", "smem_optin", "warp"};

typedef enum { N_NUM, N_PARAM, N_AXIS, N_DEVICE, N_UNARY, N_BINARY, N_CALL } node_kind;

/* Operators: one character each ('L' <=, 'G' >=, 'E' ==, 'N' !=, '&' &&, '|' ||;
 * calls: 'c' ceil_div, 'm' min, 'M' max). */
struct expr_node {
    node_kind kind;
    char op;
    int64_t value; /* N_NUM; the index for names */
    int a, b;      /* children */
    int start, end;/* the text it was parsed from, [start, end) */
};

typedef struct {
    const char *s;
    int pos, depth;
    const expr_scope *scope;
    expr *x;
    int err_at;
    char *msg;
    size_t msglen;
} parser;

__attribute__((format(printf, 3, 4))) static int fail(parser *p, int at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, p->msglen, fmt, ap);
    va_end(ap);
    p->err_at = at;
    return -1;
}

static void skip_space(parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t') p->pos++;
}

static int add_node(parser *p, node_kind kind, char op, int64_t value, int a, int b, int start)
{
    expr *x = p->x;
    x->nodes = realloc(x->nodes, sizeof *x->nodes * (size_t)(x->nnodes + 1));
    if (!x->nodes) abort();
    x->nodes[x->nnodes] = (expr_node){kind, op, value, a, b, start, p->pos};
    return x->nnodes++;
}

static int parse_or(parser *p);

/* Two-character operators first, then one-character ones; 0 when none of ops is next. */
static char next_op(parser *p, const char *ops)
{
    static const struct { const char *text; char op; } two[] = {
        {"<=", 'L'}, {">=", 'G'}, {"==", 'E'}, {"!=", 'N'}, {"&&", '&'}, {"||", '|'}};
    skip_space(p);
    const char *s = p->s + p->pos;
    for (size_t i = 0; i < sizeof two / sizeof *two; i++)
        if (!strncmp(s, two[i].text, 2)) return strchr(ops, two[i].op) ? two[i].op : 0;
    if (*s && strchr("+-*/%<>", *s) && strchr(ops, *s)) return *s;
    return 0;
}

static int lookup(const char *const *names, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && !strncmp(names[i], name, len)) return i;
    return -1;
}

static int unknown_name(parser *p, int start, size_t len)
{
    const expr_scope *sc = p->scope;
    char list[768] = "";
    for (int i = 0; i < sc->nparams; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", sc->params[i]);
    for (int i = 0; i < sc->naxes; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", sc->axes[i]);
    for (int i = 0; i < EXPR_NDEVICE; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", expr_device_names[i]);
    return fail(p, start, "unknown name '%.*s' (names: %s)", (int)len, p->s + start, list);
}

/* ceil_div(a, b), min(a, b, ...), max(a, b, ...): min and max fold their arguments left to right. */
static int parse_call(parser *p, int start, size_t len)
{
    const char *name = p->s + start;
    char op = len == 8 && !strncmp(name, "ceil_div", 8) ? 'c' : len == 3 && !strncmp(name, "min", 3) ? 'm'
            : len == 3 && !strncmp(name, "max", 3) ? 'M' : 0;
    if (!op) return fail(p, start, "unknown function '%.*s' (functions: ceil_div, min, max)", (int)len, name);
    p->pos++; /* ( */
    int acc = -1, nargs = 0;
    for (;;) {
        int arg = parse_or(p);
        if (arg < 0) return -1;
        acc = nargs++ ? add_node(p, N_CALL, op, 0, acc, arg, start) : arg;
        skip_space(p);
        if (p->s[p->pos] == ')') break;
        if (p->s[p->pos] != ',') return fail(p, p->pos, "expected ',' or ')' in %.*s(...)", (int)len, name);
        p->pos++;
    }
    p->pos++;
    if (nargs < 2 || (op == 'c' && nargs != 2))
        return fail(p, start, "%.*s takes %s arguments, got %d", (int)len, name, op == 'c' ? "2" : "2 or more", nargs);
    p->x->nodes[acc].start = start;
    p->x->nodes[acc].end = p->pos;
    return acc;
}

static int parse_name(parser *p)
{
    int start = p->pos;
    while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_') p->pos++;
    size_t len = (size_t)(p->pos - start);
    int end = p->pos;
    skip_space(p);
    if (p->s[p->pos] == '(') return parse_call(p, start, len);
    p->pos = end; /* the name's text ends here, not after the spaces */
    const expr_scope *sc = p->scope;
    int i;
    if ((i = lookup(sc->params, sc->nparams, p->s + start, len)) >= 0) return add_node(p, N_PARAM, 0, i, -1, -1, start);
    if ((i = lookup(sc->axes, sc->naxes, p->s + start, len)) >= 0) return add_node(p, N_AXIS, 0, i, -1, -1, start);
    if ((i = lookup(expr_device_names, EXPR_NDEVICE, p->s + start, len)) >= 0) {
        p->x->uses_device = 1;
        return add_node(p, N_DEVICE, 0, i, -1, -1, start);
    }
    return unknown_name(p, start, len);
}

static int parse_number(parser *p)
{
    int start = p->pos;
    int64_t v = 0;
    while (isdigit((unsigned char)p->s[p->pos])) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, p->s[p->pos] - '0', &v))
            return fail(p, start, "the number does not fit in 64 bits");
        p->pos++;
    }
    if (isalpha((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_' || p->s[p->pos] == '.')
        return fail(p, p->pos, "expected an integer (decimal digits only)");
    return add_node(p, N_NUM, 0, v, -1, -1, start);
}

static int parse_unary(parser *p)
{
    skip_space(p);
    int start = p->pos;
    char c = p->s[p->pos];
    if (++p->depth > EXPR_MAX_DEPTH) return fail(p, start, "nested more than %d deep", EXPR_MAX_DEPTH);
    int n;
    if (c == '-' || c == '+' || (c == '!' && p->s[p->pos + 1] != '=')) {
        p->pos++;
        int a = parse_unary(p);
        n = a < 0 ? -1 : add_node(p, N_UNARY, c, 0, a, -1, start);
    } else if (c == '(') {
        p->pos++;
        n = parse_or(p);
        skip_space(p);
        if (n >= 0 && p->s[p->pos] != ')') n = fail(p, p->pos, "expected ')'");
        else if (n >= 0) p->pos++;
    } else if (isdigit((unsigned char)c)) {
        n = parse_number(p);
    } else if (isalpha((unsigned char)c) || c == '_') {
        n = parse_name(p);
    } else {
        n = c ? fail(p, start, "expected a number, a name or '(', got '%c'", c)
              : fail(p, start, "expected a number, a name or '(' (the expression ends here)");
    }
    p->depth--;
    return n;
}

/* Binary operators by precedence, lowest first: || && (== !=) (< <= > >=) (+ -) (* / %). */
static const char *const levels[] = {"|", "&", "EN", "<L>G", "+-", "*/%"};
#define NLEVELS 6

static int parse_level(parser *p, int level)
{
    if (level == NLEVELS) return parse_unary(p);
    int a = parse_level(p, level + 1);
    char op;
    while (a >= 0 && (op = next_op(p, levels[level]))) {
        p->pos += strchr("LGEN&|", op) ? 2 : 1;
        int b = parse_level(p, level + 1);
        if (b < 0) return -1;
        a = add_node(p, N_BINARY, op, 0, a, b, p->x->nodes[a].start);
    }
    return a;
}

static int parse_or(parser *p)
{
    return parse_level(p, 0);
}

int expr_parse(const char *text, const expr_scope *scope, expr *x, int *at, char *msg, size_t msglen)
{
    memset(x, 0, sizeof *x);
    parser p = {.s = text, .scope = scope, .x = x, .msg = msg, .msglen = msglen};
    size_t len = strlen(text);
    *at = 0;
    if (len > EXPR_MAX_LEN) {
        snprintf(msg, msglen, "longer than %d characters", EXPR_MAX_LEN);
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] < 0x20 && text[i] != '\t') {
            *at = (int)i;
            snprintf(msg, msglen, "a control character in the expression");
            return -1;
        }
    x->text = tl_xstrdup(text);
    p.s = x->text;
    x->root = parse_or(&p);
    if (x->root >= 0) {
        skip_space(&p);
        if (p.s[p.pos]) x->root = fail(&p, p.pos, "unexpected '%c' (an operator missing?)", p.s[p.pos]);
    }
    if (x->root < 0) {
        *at = p.err_at;
        expr_free(x);
        return -1;
    }
    return 0;
}

void expr_free(expr *x)
{
    free(x->text);
    free(x->nodes);
    memset(x, 0, sizeof *x);
}

/* ---- evaluation ---------------------------------------------------------------------------- */

typedef struct {
    const expr *x;
    const expr_env *env;
    char *msg;
    size_t msglen;
} evaluator;

__attribute__((format(printf, 3, 4))) static int eval_fail(evaluator *ev, const expr_node *n, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(ev->msg, ev->msglen, "%s in '%.*s'", what, n->end - n->start, ev->x->text + n->start);
    return -1;
}

static int eval_node(evaluator *ev, int i, int64_t *out);

static int arith(evaluator *ev, const expr_node *n, int64_t a, int64_t b, int64_t *out)
{
    int over = 0;
    switch (n->op) {
    case '+': over = __builtin_add_overflow(a, b, out); break;
    case '-': over = __builtin_sub_overflow(a, b, out); break;
    case '*': over = __builtin_mul_overflow(a, b, out); break;
    case '/':
    case '%':
        if (b == 0) return eval_fail(ev, n, "division by zero");
        if (a == INT64_MIN && b == -1) over = 1;
        else *out = n->op == '/' ? a / b : a % b;
        break;
    case '<': *out = a < b; break;
    case 'L': *out = a <= b; break;
    case '>': *out = a > b; break;
    case 'G': *out = a >= b; break;
    case 'E': *out = a == b; break;
    case 'N': *out = a != b; break;
    }
    return over ? eval_fail(ev, n, "64-bit overflow") : 0;
}

static int call(evaluator *ev, const expr_node *n, int64_t a, int64_t b, int64_t *out)
{
    if (n->op == 'm') *out = a < b ? a : b;
    else if (n->op == 'M') *out = a > b ? a : b;
    else if (b <= 0) return eval_fail(ev, n, "ceil_div by %lld (it needs a positive divisor)", (long long)b);
    else *out = a / b + (a % b > 0); /* rounds up for any sign of a */
    return 0;
}

static int eval_node(evaluator *ev, int i, int64_t *out)
{
    const expr_node *n = &ev->x->nodes[i];
    int64_t a, b;
    int rc;
    switch (n->kind) {
    case N_NUM: *out = n->value; return 0;
    case N_PARAM: *out = ev->env->params[n->value]; return 0;
    case N_AXIS: *out = ev->env->dims[n->value]; return 0;
    case N_DEVICE:
        if (!ev->env->device) return 1;
        *out = ev->env->device[n->value];
        return 0;
    case N_UNARY:
        if ((rc = eval_node(ev, n->a, &a))) return rc;
        if (n->op == '!') *out = !a;
        else if (n->op == '+') *out = a;
        else if (a == INT64_MIN) return eval_fail(ev, n, "64-bit overflow");
        else *out = -a;
        return 0;
    case N_BINARY:
        if ((rc = eval_node(ev, n->a, &a))) return rc;
        if (n->op == '&' || n->op == '|') {
            if ((n->op == '&') != (a != 0)) return *out = a != 0, 0; /* decided by the left side */
            if ((rc = eval_node(ev, n->b, &b))) return rc;
            return *out = b != 0, 0;
        }
        if ((rc = eval_node(ev, n->b, &b))) return rc;
        return arith(ev, n, a, b, out);
    case N_CALL:
        if ((rc = eval_node(ev, n->a, &a)) || (rc = eval_node(ev, n->b, &b))) return rc;
        return call(ev, n, a, b, out);
    }
    return -1;
}

int expr_eval(const expr *x, const expr_env *env, int64_t *out, char *msg, size_t msglen)
{
    evaluator ev = {x, env, msg, msglen};
    return eval_node(&ev, x->root, out);
}
