/* The registry's rules (reg_rule), each written once: the plan's check, `list` and the compile follow from
 * them. Every rule of every registered variant parses against its params and reads as a preprocessor #if
 * (no calls); every default set of params keeps them; a broken rule's reason has the params' values in it;
 * and NVRTC, compiling a rung for params a rule refuses, stops with the rule's words (no GPU). Every compiled
 * variant with params has rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/jit/jit.h"
#include "runner/ops/registry.h"
#include "runner/ops/registry_lookup.h"
#include "runner/testing/testutil.h"

/* Parses and evaluates every rule on the variant's defaults (reg_check aborts on one that does not parse). */
static int check_every_rule(void)
{
    int rules = 0, launches = 0;
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
            CHECK(v->kind != REG_NVRTC || v->nparams == 0 || v->rules, "%s/%s has params but no rules on them",
                  reg_ops[o]->name, v->name);
            char why[256] = "";
            reg_spec s = {.dims = {1024, 1024, 1024, 0}};
            if (v->rules) {
                /* The defaults keep the rules (the check after them may still refuse a problem). */
                const reg_variant only_rules = {.name = v->name, .params = v->params, .nparams = v->nparams,
                                                .rules = v->rules};
                CHECK(reg_check(&only_rules, def, &s, why, sizeof why), "%s's defaults break its rule: %s", v->name, why);
            }
            if (v->kind != REG_NVRTC || v->decl || v->table) continue; /* a table runs other rungs */
            CHECK(!v->launch.grid[0] != !v->geometry, "%s: its launch is expressions or a geometry, one of them", v->name);
            launches += !!v->launch.grid[0];
            /* Where the defaults take the problem, the launch evaluates (its expressions parse in the scope of
             * the params and the op's axes, or reg_geometry aborts) to a non-empty grid and block. */
            reg_launch l;
            if (reg_check(v, def, &s, why, sizeof why))
                CHECK(reg_geometry(reg_ops[o], v, def, &s, &l, why, sizeof why) == 0 && l.grid[0] >= 1 && l.block[0] >= 1,
                      "%s's launch at its defaults: %s", v->name, why);
        }
    CHECK(rules > 100, "only %d rules: the registry's rungs have lost theirs?", rules);
    CHECK(launches > 10, "only %d launches as expressions", launches);
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
    /* Another op's: reduce's trees from 64 refuse BLOCK 32, which the 32 .. 1024 ones take. */
    const reg_op *reduce = reg_find_op("reduce");
    reg_spec r = {.dims = {1 << 20, 0, 0, 0}};
    long b[REG_MAX_PARAMS] = {32};
    CHECK(reg_check(reg_find_variant(reduce, "sequential"), b, &r, why, sizeof why), "sequential takes BLOCK 32: %s", why);
    CHECK(!reg_check(reg_find_variant(reduce, "first_add"), b, &r, why, sizeof why) &&
              !strcmp(why, "BLOCK = 32 is not a power of two in 64 .. 1024"), "%s", why);
    b[0] = 96;
    CHECK(!reg_check(reg_find_variant(reduce, "sequential"), b, &r, why, sizeof why), "96 is not a power of two");
    /* A launch expression is evaluated on the case's params and sizes; one that fails is a reason, not a crash. */
    reg_launch l;
    b[0] = 256;
    CHECK(reg_geometry(reduce, reg_find_variant(reduce, "first_add"), b, &r, &l, why, sizeof why) == 0 &&
              l.grid[0] == (1 << 20) / 512 && l.block[0] == 256 && l.grid[1] == 1 && l.smem == 0,
          "first_add's launch: %u x %u blocks of %u", l.grid[0], l.grid[1], l.block[0]);
    const reg_variant odd = {.name = "odd", .kind = REG_NVRTC, .params = reg_find_variant(reduce, "atomic")->params,
                             .nparams = 1, .launch = {.grid = {"ceil_div(n, BLOCK - 256)"}, .block = {"BLOCK"}}};
    CHECK(reg_geometry(reduce, &odd, b, &r, &l, why, sizeof why) == -1 && strstr(why, "launch grid x") &&
              strstr(why, "positive divisor"), "%s", why);
    const reg_variant empty = {.name = "empty", .kind = REG_NVRTC, .params = odd.params, .nparams = 1,
                               .launch = {.grid = {"n - n"}, .block = {"BLOCK"}}};
    CHECK(reg_geometry(reduce, &empty, b, &r, &l, why, sizeof why) == -1 && strstr(why, "= 0 is not 1 .. 2^31 - 1"),
          "%s", why);
    return 1;
}

/* NVRTC's front end on op/variant at its defaults compiles; with `param` = value it stops with `expect`, the
 * rule's words in the runner's. */
static int compile_stops(const char *op_name, const char *variant, const char *param, long value, const char *param2,
                         long value2, const char *expect)
{
    const reg_op *op = reg_find_op(op_name);
    const reg_variant *v = reg_find_variant(op, variant);
    source_store st;
    source_set set;
    tl_err e;
    source_store_init(&st, "registry.yaml");
    CHECK(source_resolve(&st, SOURCE_TILELAB, v->source, &set, &e) == 0, "%s", e.msg);
    long p[REG_MAX_PARAMS];
    for (int k = 0; k < v->nparams; k++) p[k] = v->params[k].def;
    reg_spec s = {.dims = {256, 256, 256, 0}};
    jit_request rq = {.op = op, .store = &st, .src = &set, .entry = v->entry, .params = v->params, .nparams = v->nparams,
                      .values = p, .spec = &s, .variant = v, .arch = 90, .front_end_only = 1};
    jit_cubin out;
    CHECK(jit_compile(&rq, NULL, NULL, &out, &e) == 0, "%s's defaults compile: %s", variant, e.msg);
    jit_cubin_free(&out);
    p[reg_find_param(v, param)] = value;
    if (param2) p[reg_find_param(v, param2)] = value2;
    int rc = jit_compile(&rq, NULL, NULL, &out, &e);
    CHECK(rc != 0 && strstr(e.msg, expect), "the rule stops %s's compile, in the registry's words: %s", variant,
          rc ? e.msg : "it compiled");
    source_set_free(&set);
    source_store_free(&st);
    return 1;
}

static int check_compile_stops(void)
{
    return compile_stops("sgemm", "hopper", "TLDG", 1, "ODD", 1,
                         "sgemm/11_hopper.cu: hopper: TLDG = 1 needs ODD = 0, SWIZZLE = 0, BK a multiple of 8") &&
           compile_stops("reduce", "warp_shuffle", "BLOCK", 32, NULL, 0,
                         "warp_shuffle: BLOCK = 32 is not a power of two in 64 .. 1024") &&
           compile_stops("transpose", "tiled", "TILE", 128, NULL, 0, "tiled: a 128 x 128 tile needs more than 48 KiB");
}

int main(void)
{
    int total = 0;
    total += check_every_rule();
    total += check_reasons();
    total += check_compile_stops();
    return TEST_REPORT(total);
}
