/* expr: values, precedence, short-circuits, and every error (syntax, unknown names, overflow,
 * division by zero) with the place it names. */
#include <stdint.h>
#include <stdlib.h>

#include "runner/ops/expr.h"
#include "runner/testing/testutil.h"

static const char *const params[] = {"BM", "BN", "BK", "THREADS", "ZERO"};
static const long values[] = {128, 64, 16, 256, 0};
static const char *const axes[] = {"m", "n", "k"};
static const int64_t dims[] = {1000, 4096, 777};
static const int64_t device[] = {132, 232448, 32};

typedef struct {
    const char *text;
    int64_t want;
} good_row;

static const good_row good[] = {
    {"42", 42},
    {"BM", 128},
    {"2 * (BM + BN) * BK * 4", 24576},
    {"ceil_div(n, BN)", 64},
    {"ceil_div(m, BM)", 8},
    {"ceil_div(-7, 2)", -3},
    {"ceil_div(0, 5)", 0},
    {"min(BM, BN)", 64},
    {"max(BM, BN, THREADS, 3)", 256},
    {"min(m, n, k)", 777},
    {"1 + 2 * 3", 7},
    {"(1 + 2) * 3", 9},
    {"10 - 3 - 2", 5},
    {"100 / 10 / 5", 2},
    {"-7 / 2", -3},
    {"-7 % 3", -1},
    {"- -5", 5},
    {"+5", 5},
    {"!0", 1},
    {"!BM", 0},
    {"BM % 16 == 0", 1},
    {"BM * BN / THREADS <= 64", 1},
    {"BM * BN / THREADS < 33", 1},
    {"BM > BN && BN >= 64", 1},
    {"BM < BN || BK != 16", 0},
    {"1 < 2 == 1", 1},
    {"!BM == 0", 1},
    {"sms * 4", 528},
    {"smem_optin / 1024", 227},
    {"warp", 32},
    {"ZERO != 0 && BM / ZERO > 1", 0}, /* the right side is never evaluated */
    {"ZERO == 0 || BM / ZERO > 1", 1},
    {"9223372036854775807", INT64_MAX},
    {"  BM\t+ 1 ", 129},
};

typedef struct {
    const char *text;
    int at;           /* offset the parse error names, or -1 for an evaluation error */
    const char *want; /* substring of the message */
} bad_row;

static const bad_row bad[] = {
    {"", 0, "expected a number, a name or '(' (the expression ends here)"},
    {"BM +", 4, "the expression ends here"},
    {"BM + * 2", 5, "got '*'"},
    {"(BM + 1", 7, "expected ')'"},
    {"BM BN", 3, "unexpected 'B' (an operator missing?)"},
    {"BNN * 2", 0, "unknown name 'BNN' (names: BM, BN, BK, THREADS, ZERO, m, n, k, sms, smem_optin, warp)"},
    {"2 * sqrt(BM)", 4, "unknown function 'sqrt' (functions: ceil_div, min, max)"},
    {"ceil_div(n)", 0, "ceil_div takes 2 arguments, got 1"},
    {"ceil_div(n, 1, 2)", 0, "ceil_div takes 2 arguments, got 3"},
    {"min(n)", 0, "min takes 2 or more arguments, got 1"},
    {"max(n; 2)", 5, "expected ',' or ')' in max(...)"},
    {"1.5 * BM", 1, "expected an integer (decimal digits only)"},
    {"0x10", 1, "expected an integer"},
    {"99999999999999999999", 0, "does not fit in 64 bits"},
    {"BM = 4", 3, "unexpected '='"},
    {"BM & 4", 3, "unexpected '&'"},
    {"BM\n+ 1", 2, "a control character"},
    {"BM / ZERO", -1, "division by zero in 'BM / ZERO'"},
    {"1 + BM % (BN - 64)", -1, "division by zero in 'BM % (BN - 64)'"},
    {"ceil_div(m, ZERO)", -1, "ceil_div by 0 (it needs a positive divisor) in 'ceil_div(m, ZERO)'"},
    {"9223372036854775807 + 1", -1, "64-bit overflow in '9223372036854775807 + 1'"},
    {"m * n * k * m * n * k * 4096", -1, "64-bit overflow in 'm * n * k * m * n * k'"},
    {"-(-9223372036854775807 - 1)", -1, "64-bit overflow"},
    {"(-9223372036854775807 - 1) / -1", -1, "64-bit overflow"},
    {"0 - 9223372036854775807 - 2", -1, "64-bit overflow"},
};

static int check_good(void)
{
    expr_scope sc = {params, 5, axes, 3};
    expr_env env = {values, dims, device};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        expr x;
        int at;
        char msg[512];
        int64_t v = -12345;
        if (expr_parse(good[i].text, &sc, &x, &at, msg, sizeof msg)) {
            CHECK(0, "'%s': %s at %d", good[i].text, msg, at);
            continue;
        }
        int rc = expr_eval(&x, &env, &v, msg, sizeof msg);
        CHECK(rc == 0 && v == good[i].want, "'%s' = %lld (rc %d, %s), want %lld", good[i].text, (long long)v, rc,
              rc ? msg : "", (long long)good[i].want);
        expr_free(&x);
    }
    return (int)(sizeof good / sizeof *good);
}

static int check_bad(void)
{
    expr_scope sc = {params, 5, axes, 3};
    expr_env env = {values, dims, device};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        expr x;
        int at = -99;
        char msg[512] = "";
        int64_t v;
        int prc = expr_parse(bad[i].text, &sc, &x, &at, msg, sizeof msg);
        if (bad[i].at >= 0) {
            CHECK(prc != 0, "'%s' parsed", bad[i].text);
            CHECK(at == bad[i].at, "'%s': error at %d, want %d (%s)", bad[i].text, at, bad[i].at, msg);
        } else {
            CHECK(prc == 0, "'%s': %s", bad[i].text, msg);
            if (prc == 0) {
                CHECK(expr_eval(&x, &env, &v, msg, sizeof msg) == -1, "'%s' evaluated to %lld", bad[i].text,
                      (long long)v);
                expr_free(&x);
            }
        }
        CHECK(strstr(msg, bad[i].want) != NULL, "'%s': got '%s', want '%s'", bad[i].text, msg, bad[i].want);
    }
    return (int)(sizeof bad / sizeof *bad);
}

/* A device fact without a device is "unknown" (1), not a value; the expression says it uses one. */
static int check_unknown_device(void)
{
    expr_scope sc = {params, 5, axes, 3};
    expr_env env = {values, dims, NULL};
    expr x;
    int at;
    char msg[256];
    int64_t v;
    CHECK(expr_parse("smem_optin - BM", &sc, &x, &at, msg, sizeof msg) == 0, "%s", msg);
    CHECK(x.uses_device, "uses_device not set");
    CHECK(expr_eval(&x, &env, &v, msg, sizeof msg) == 1, "a device fact without a device evaluated");
    expr_free(&x);
    CHECK(expr_parse("BM * 2", &sc, &x, &at, msg, sizeof msg) == 0 && !x.uses_device, "BM * 2 uses the device?");
    CHECK(expr_eval(&x, &env, &v, msg, sizeof msg) == 0 && v == 256, "BM * 2 = %lld", (long long)v);
    expr_free(&x);
    return 1;
}

/* Deep nesting is refused, not a stack overflow; long input is refused before parsing. */
static int check_limits(void)
{
    expr_scope sc = {params, 5, axes, 3};
    char deep[400], msg[256];
    int at;
    expr x;
    memset(deep, '(', 200);
    strcpy(deep + 200, "1");
    CHECK(expr_parse(deep, &sc, &x, &at, msg, sizeof msg) == -1 && strstr(msg, "nested more than"), "deep: %s", msg);
    char *lng = calloc(EXPR_MAX_LEN + 10, 1);
    memset(lng, '1', EXPR_MAX_LEN + 5);
    CHECK(expr_parse(lng, &sc, &x, &at, msg, sizeof msg) == -1 && strstr(msg, "longer than"), "long: %s", msg);
    free(lng);
    return 2;
}

int main(void)
{
    int total = check_good() + check_bad() + check_unknown_device() + check_limits();
    return TEST_REPORT(total);
}
