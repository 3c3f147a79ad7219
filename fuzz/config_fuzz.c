/* The YAML front end under fuzzing: any bytes -> config_parse -> plan_expand -> free. Whatever
 * the input, the parser returns an error or an experiment; it never crashes, leaks or reads out
 * of bounds (AddressSanitizer + UBSan), and never hangs. Declared variants (`source:`) find two files
 * in memory, k.cu and k.cuh, so their expressions and includes are fuzzed too; nothing is read from
 * disk.
 *
 * Built with clang and libFuzzer (bazel build --config=fuzz //fuzz:config_fuzz; tools/fuzz.sh runs
 * it). Built plainly (gcc) it is a replay driver (replay.c); //fuzz:config_fuzz_regression replays
 * the corpus that way. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/config/config.h"
#include "runner/ops/expr.h"
#include "runner/plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tl_experiment x;
    tl_plan p;
    tl_err e;
    /* Limits like a small machine's, so that sizes are checked against memory too. */
    static const int64_t device[EXPR_NDEVICE] = {132, 232448, 32};
    plan_limits lim = {1ull << 30, 1ull << 30, size % 2 ? device : NULL};
    source_store store;
    source_store_init_preloaded(&store, "fuzz", 0);
    static const char k_cu[] = "#include \"k.cuh\"\nextern \"C\" __global__ void k() {}\n", k_cuh[] = "// k.cuh\n";
    if (source_store_add(&store, SOURCE_EXPERIMENT, "k.cu", k_cu, sizeof k_cu - 1, NULL, &e) ||
        source_store_add(&store, SOURCE_EXPERIMENT, "k.cuh", k_cuh, sizeof k_cuh - 1, NULL, &e))
        abort();
    if (config_parse_with("fuzz.yaml", (const char *)data, size, &store, &x, &e) == 0) {
        /* A plan as large as the limits allow is legal but slow: the fuzzer wants breadth. */
        if (plan_expand(&x, &lim, &p, &e) == 0) {
            for (int i = 0; i < p.ncases; i++)
                if (strlen(p.cases[i].id) != 16) abort(); /* every case has its 16-digit id */
            plan_free(&p);
        }
        config_free(&x);
    } else if (!e.msg[0]) {
        abort(); /* an error must say what is wrong */
    }
    return 0;
}

const char fuzz_target_name[] = "config_fuzz";
