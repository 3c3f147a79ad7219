/* counters_fixture: writes a result file with counters from a stated model, through the runner's own
 * writer, for the analysis tests (no GPU in CI). Test-only: nothing here was measured.
 *
 * usage: counters_fixture OUT.h5 EXPERIMENT.yaml [--outlier]
 *   --outlier: the first case's last sample is 20 x its median (the report flags outliers).
 *
 * The model (analysis_test.py recomputes it):
 *   copy, n floats, stride S (1 unless the variant has S), offset O (0 unless it has O):
 *     requested load bytes 4n; load sectors n / 8 * min(S, 8), or n / 32 * 5 when O % 8 != 0;
 *     DRAM read 4n * min(S, 8) / (O % 8 ? 0.8 : 1), DRAM write 4n; time 4n * (1 + min(S, 8)) / 2e12 s.
 *   sgemm m, n, k: FFMA m*n*k, FMUL m*n; DRAM read 4(mk + kn) * R, write 4mn, R = 4 for variants whose
 *     name starts with "v", else 2; shared loads m*n*k / 64, conflicts 2 per load for "vectorized", 0.02
 *     per load otherwise; occupancy 25%; time 2mnk / 3e13 s (cublas: / 4.5e13).
 * The device: "Synthetic GPU", 50000 GFLOP/s FP32, 3000 GB/s DRAM. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/config/config.h"
#include "runner/exec/env.h"
#include "runner/exec/result.h"
#include "runner/plan/plan.h"
#include "runner/store/h5out.h"

static long param(const tl_case *c, const char *name, long def)
{
    for (int k = 0; k < c->variant->nparams; k++)
        if (!strcmp(c->variant->params[k].name, name)) return c->params[k];
    return def;
}

static void add(counters_result *r, const char *name, double v, const char *unit)
{
    int i = r->n++;
    r->names = realloc(r->names, (size_t)r->n * sizeof *r->names);
    r->units = realloc(r->units, (size_t)r->n * sizeof *r->units);
    r->values = realloc(r->values, (size_t)r->n * sizeof *r->values);
    if (!r->names || !r->units || !r->values) abort();
    r->names[i] = tl_xstrdup(name);
    r->units[i] = tl_xstrdup(unit);
    r->values[i] = v;
}

/* Fills r's counters and returns the run's time, s. */
static double model(const tl_case *c, counters_result *r)
{
    const int64_t *d = c->spec.dims;
    r->status = "ok";
    r->kernels = 1;
    r->passes = 3;
    if (!strcmp(c->op->name, "copy")) {
        double n = (double)d[0], s = (double)param(c, "S", 1), o = (double)param(c, "O", 0);
        double w = s < 8 ? s : 8, mis = fmod(o, 8) != 0;
        add(r, "sm__sass_data_bytes_mem_global_op_ld.sum", 4 * n, "byte");
        add(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", mis ? n / 32 * 5 : n / 8 * w, "l2_sector");
        add(r, "dram__bytes_read.sum", 4 * n * w / (mis ? 0.8 : 1), "byte");
        add(r, "dram__bytes_write.sum", 4 * n, "byte");
        add(r, COUNTERS_DURATION, 4 * n * (1 + w) / 2e12 * 1e9, "nanosecond");
        return 4 * n * (1 + w) / 2e12;
    }
    double m = (double)d[0], n = (double)d[1], k = (double)d[2];
    const char *v = c->variant->name;
    double lds = m * n * k / 64, t = 2 * m * n * k / (!strcmp(v, "cublas") ? 4.5e13 : 3e13);
    add(r, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", m * n * k, "instruction");
    add(r, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 0, "instruction");
    add(r, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", m * n, "instruction");
    add(r, "dram__bytes_read.sum", 4 * (m * k + k * n) * (v[0] == 'v' ? 4 : 2), "byte");
    add(r, "dram__bytes_write.sum", 4 * m * n, "byte");
    add(r, "smsp__inst_executed_op_shared_ld.sum", lds, "instruction");
    add(r, "smsp__inst_executed_op_shared_st.sum", 0, "instruction");
    add(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", lds * (!strcmp(v, "vectorized") ? 2 : 0.02),
        "l1data_bank_conflict");
    add(r, "sm__warps_active.avg.pct_of_peak_sustained_active", 25, "percent");
    add(r, COUNTERS_DURATION, t * 1e9, "nanosecond");
    return t;
}

int main(int argc, char **argv)
{
    tl_experiment x;
    tl_plan p;
    tl_err e;
    env_info env;
    h5out out;
    h5out_existing have;
    h5out_session ses = {"counters_fixture", "", NULL};
    int outlier = argc == 4 && !strcmp(argv[3], "--outlier");
    if (argc != 3 && !outlier) {
        fprintf(stderr, "usage: counters_fixture OUT.h5 EXPERIMENT.yaml [--outlier]\n");
        return 2;
    }
    plan_limits lim = {0};
    if (config_load(argv[2], &x, &e) || plan_expand(&x, &lim, &p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 2;
    }
    memset(&env, 0, sizeof env);
    env_host(&env);
    env.have_gpu = 1;
    snprintf(env.nvml, sizeof env.nvml, "not used (fixture)");
    snprintf(env.nvrtc_version, sizeof env.nvrtc_version, "fixture");
    snprintf(env.gpu_name, sizeof env.gpu_name, "Synthetic GPU");
    env.cc_major = 9, env.cc_minor = 0; /* the analysis takes the tensor cores' peaks from its table for sm_90 */
    env.peak_fp32_gflops = 50000;
    env.peak_dram_gbs = 3000;
    int rc = h5out_open(&out, argv[1], &x, &env, &ses, 0, &have, &e);
    /* The writer keeps every result until it closes (each commit writes them into the other copy). */
    tl_result *res = tl_xcalloc((size_t)p.ncases + 1, sizeof *res);
    for (int i = 0; rc == 0 && i < p.ncases; i++) {
        tl_result r = {0};
        r.c = &p.cases[i];
        r.status = "ok";
        r.regs = -1, r.smem_bytes = r.local_bytes = r.smem_static_bytes = r.smem_dynamic_bytes = -1;
        r.max_abs_err = r.max_rel_err = 0;
        r.flop = r.c->op->flop(r.c->op, &r.c->spec);
        r.bytes = r.c->op->bytes(r.c->op, &r.c->spec);
        r.protocol = tl_xstrdup("fixture");
        r.verify = "once";
        r.data = "uniform";
        r.reference = "fixture";
        double t_ms = model(r.c, &r.counters) * 1e3;
        r.samples.n = 5;
        r.samples.time_ms = tl_xcalloc(5, sizeof(double));
        for (int j = 0; j < 5; j++) r.samples.time_ms[j] = t_ms * (1 + 0.001 * (j - 2));
        if (outlier && i == 0) r.samples.time_ms[4] = 20 * t_ms; /* --outlier: one far sample, for the report's flag */
        r.samples.stopped = "fixture";
        measure_stats_compute(r.samples.time_ms, 5, &r.st);
        r.gflops = r.flop / (r.st.median_ms * 1e-3) * 1e-9;
        r.gbs = r.bytes / (r.st.median_ms * 1e-3) * 1e-9;
        res[i] = r;
        rc = h5out_write_case(&out, &res[i], &e);
    }
    if (rc == 0) rc = h5out_finish(&out, 0, 0, &e);
    if (out.path) h5out_close(&out);
    for (int i = 0; i < p.ncases; i++) result_free(&res[i]);
    free(res);
    h5out_existing_free(&have);
    plan_free(&p);
    config_free(&x);
    if (rc) fprintf(stderr, "counters_fixture: %s\n", e.msg);
    return rc ? 1 : 0;
}
