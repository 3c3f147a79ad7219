/* expr: the integer expressions of a variant declared in an experiment file (its block, grid, smem
 * and requires): 64-bit integers, + - * / %, comparisons, && || !, ceil_div, min, max, parentheses,
 * and names (the variant's params, the op's axes, facts of the device). Parsed once, evaluated per
 * case; an overflow or a division by zero is an error, never a wrapped value. */
#ifndef TILELAB_EXPR_H
#define TILELAB_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define EXPR_MAX_LEN 1000  /* characters of one expression */
#define EXPR_MAX_DEPTH 64  /* nesting of parentheses and operators */

/* Facts of the device an expression may name; their values are known once there is a GPU. */
enum { EXPR_SMS, EXPR_SMEM_OPTIN, EXPR_WARP, EXPR_NDEVICE };
extern const char *const expr_device_names[EXPR_NDEVICE];

/* The names an expression may use, in the order their values are given. */
typedef struct {
    const char *const *params; /* the variant's params */
    int nparams;
    const char *const *axes;   /* the op's axes */
    int naxes;
} expr_scope;

/* Values for one evaluation. */
typedef struct {
    const long *params;    /* per scope param */
    const int64_t *dims;   /* per scope axis */
    const int64_t *device; /* per EXPR_* fact; NULL when not known (no GPU yet) */
} expr_env;

typedef struct expr_node expr_node;

typedef struct {
    char *text;       /* as written */
    expr_node *nodes; /* the tree, children before parents */
    int nnodes;
    int root;
    int uses_device;  /* names a device fact */
} expr;

/* Parses text. -1 on a syntax error or an unknown name: msg says what, *at is the 0-based offset
 * in text where it is. */
int expr_parse(const char *text, const expr_scope *scope, expr *x, int *at, char *msg, size_t msglen);
/* 0 with *out set; -1 with msg on overflow or division by zero (naming the part of the expression
 * that failed); 1 when the expression needs a device fact that env does not have. */
int expr_eval(const expr *x, const expr_env *env, int64_t *out, char *msg, size_t msglen);
void expr_free(expr *x);

#endif
