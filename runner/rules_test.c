/* The registry's rules (reg_rule), each written once: the plan's check, `list` and the compile follow from
 * them. Every rule of every registered variant parses against its params and reads as a preprocessor #if
 * (no calls); every default set of params keeps them; a broken rule's reason has the params' values in it;
 * and NVRTC, compiling a rung for params a rule refuses, stops with the rule's words (no GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/jit.h"
#include "runner/registry.h"
#include "runner/testutil.h"

/* Parses and evaluates every rule on the variant's defaults (reg_check aborts on one that does not parse). */
static int check_every_rule(void)
{
    int rules = 0;
    for (int o = 0; o < reg_nops; o++)
        for (int i = 0; i < reg_ops[o]->nvariants; i++) {
            const reg_variant *v = &reg_ops[o]->variants[i];
            long def[REG_MAX_PARAMS] = {0};
            for (int k = 0; k < v->nparams; k++) def[k] = v->params[k].def;
            for (int r = 0; v->rules && v->rules[r].expr; r++, rules++) {
                const char *x = v->rules[r].expr;
                CHECK(!strstr(x, "ceil_div") && !strstr(x, "min(") && !strstr(x, "max("),
                      "%s's rule '%s' calls a function: the preprocessor cannot read it as an #if", v->name, x);
                CHECK(v->rules[r].why && v->rules[r].why[0], "%s's rule '%s' has no reason", v->name, x);
            }
            char why[256] = "";
            reg_spec s = {.dims = {1024, 1024, 1024, 0}};
            if (v->rules) {
                /* The defaults keep the rules (the check after them may still refuse a problem). */
                const reg_variant only_rules = {.name = v->name, .params = v->params, .nparams = v->nparams,
                                                .rules = v->rules};
                CHECK(reg_check(&only_rules, def, &s, why, sizeof why), "%s's defaults break its rule: %s", v->name, why);
            }
        }
    CHECK(rules > 100, "only %d rules: the registry's rungs have lost theirs?", rules);
    return 1;
}

/* A broken rule is the skip reason, its {expression}s the values of these params; the first broken one wins. */
static int check_reasons(void)
{
    const reg_op *op = reg_find_op("sgemm");
    const reg_variant *naive = reg_find_variant(op, "naive"), *hopper = reg_find_variant(op, "hopper");
    reg_spec s = {.dims = {256, 256, 256, 0}};
    char why[256];
    long p[REG_MAX_PARAMS] = {64, 32};
    CHECK(!reg_check(naive, p, &s, why, sizeof why) && !strcmp(why, "BX * BY = 2048 is not 1 .. 1024 threads"), "%s", why);
    p[0] = 16;
    CHECK(reg_check(naive, p, &s, why, sizeof why), "BX 16, BY 32 is a naive the rules take");
    long h[REG_MAX_PARAMS];
    for (int k = 0; k < hopper->nparams; k++) h[k] = hopper->params[k].def;
    h[reg_find_param(hopper, "TLDG")] = 1, h[reg_find_param(hopper, "ODD")] = 1;
    CHECK(!reg_check(hopper, h, &s, why, sizeof why) &&
              !strcmp(why, "TLDG = 1 needs ODD = 0, SWIZZLE = 0, BK a multiple of 8, BM and BN of 16"), "%s", why);
    h[reg_find_param(hopper, "SWIZZLE")] = 3;
    CHECK(!reg_check(hopper, h, &s, why, sizeof why) && !strcmp(why, "SWIZZLE = 3 is not 0 or 1"), "first rule: %s", why);
    return 1;
}

/* NVRTC's front end on hopper with TLDG = 1 and ODD = 1: the rule's #error, in the runner's words. */
static int check_compile_stops(void)
{
    const reg_op *op = reg_find_op("sgemm");
    const reg_variant *v = reg_find_variant(op, "hopper");
    src_store st;
    src_set set;
    tl_err e;
    src_store_init(&st, "registry.yaml");
    CHECK(src_resolve(&st, SRC_TILELAB, v->source, &set, &e) == 0, "%s", e.msg);
    long p[REG_MAX_PARAMS];
    for (int k = 0; k < v->nparams; k++) p[k] = v->params[k].def;
    reg_spec s = {.dims = {256, 256, 256, 0}};
    jit_request rq = {.op = op, .store = &st, .src = &set, .entry = v->entry, .params = v->params, .nparams = v->nparams,
                      .values = p, .spec = &s, .variant = v, .arch = 90, .front_end_only = 1};
    jit_cubin out;
    CHECK(jit_compile(&rq, NULL, NULL, &out, &e) == 0, "the defaults compile: %s", e.msg);
    jit_cubin_free(&out);
    p[reg_find_param(v, "TLDG")] = 1, p[reg_find_param(v, "ODD")] = 1;
    int rc = jit_compile(&rq, NULL, NULL, &out, &e);
    CHECK(rc != 0 && strstr(e.msg, "sgemm/11_hopper.cu: hopper: TLDG = 1 needs ODD = 0, SWIZZLE = 0, BK a multiple of 8"),
          "the rule stops the compile, in the registry's words: %s", rc ? e.msg : "it compiled");
    src_set_free(&set);
    src_store_free(&st);
    return 1;
}

int main(void)
{
    int total = 0;
    total += check_every_rule();
    total += check_reasons();
    total += check_compile_stops();
    return TEST_REPORT(total);
}
