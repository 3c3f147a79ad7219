#include "runner/store/h5write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/decl.h"
#include "runner/store/h5src.h"
#include "runner/util/build_info.h"

static int write_root(hid_t f, const char *where, const tl_experiment *x, const env_info *v, const h5out_session *s,
                      const char *created, tl_err *e)
{
    char *protocol = measure_protocol_text(&x->protocol);
    char tol[128];
    snprintf(tol, sizeof tol, "rtol=%.17g;atol=%.17g", x->tol.rtol, x->tol.atol);
    H5_CHECK(h5util_put_str(f, SCH_ROOT_SCHEMA, H5_SCHEMA));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_TILELAB_VERSION, TL_VERSION));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_GIT_COMMIT, tl_build_git_commit));
    H5_CHECK(h5util_put_i64(f, SCH_ROOT_GIT_DIRTY, tl_build_git_dirty));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_CREATED_UTC, created));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_HOST, v->host));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_ARGV, s->argv_text));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_EXPERIMENT, x->name));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_DESCRIPTION, x->description));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_CONFIG_PATH, x->path));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_CONFIG_YAML, x->yaml));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_CONFIG_SHA256, x->sha256));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_OP, x->op->name));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_REFERENCE, x->reference));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_TOLERANCE, tol));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_TOLERANCE_RULE, x->op->tol_doc));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_PROTOCOL, protocol));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_VERIFY, cfg_verify_names[x->verify]));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_DATA, reg_dist_names[x->dist]));
    if (s->rerun_of) H5_CHECK(h5util_put_str(f, SCH_ROOT_RERUN_OF, s->rerun_of));
    if (x->search) { /* schema 1.15 */
        char *search = search_spec_text(x->search);
        herr_t put = h5util_put_str(f, SCH_ROOT_SEARCH, search);
        free(search);
        H5_CHECK(put);
    }
    free(protocol);
    return 0;
fail:
    free(protocol);
    return -1;
}

static int write_env(hid_t g, const env_info *v)
{
    herr_t rc = 0;
    rc |= h5util_put_str(g, SCH_ENV_HOST, v->host);
    rc |= h5util_put_str(g, SCH_ENV_CPU, v->cpu);
    rc |= h5util_put_i64(g, SCH_ENV_CPUS, v->cpus);
    rc |= h5util_put_i64(g, SCH_ENV_HOST_MEM_BYTES, (long long)v->host_mem_bytes);
    rc |= h5util_put_str(g, SCH_ENV_BUILD_COMPILER, tl_build_compiler);
    rc |= h5util_put_i64(g, SCH_ENV_HAVE_GPU, v->have_gpu);
    rc |= h5util_put_str(g, SCH_ENV_NVML, v->have_gpu ? v->nvml : "not used (host target)");
    if (v->have_gpu) {
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", v->cc_major, v->cc_minor);
        rc |= h5util_put_str(g, SCH_ENV_DEVICE_NAME, v->gpu_name);
        rc |= h5util_put_str(g, SCH_ENV_PCI_BUS_ID, v->pci_bus_id);
        rc |= h5util_put_i64(g, SCH_ENV_DEVICE_ORDINAL, v->device);
        rc |= h5util_put_str(g, SCH_ENV_COMPUTE_CAPABILITY, cc);
        rc |= h5util_put_i64(g, SCH_ENV_SMS, v->sms);
        rc |= h5util_put_i64(g, SCH_ENV_L2_BYTES, v->l2_bytes);
        rc |= h5util_put_i64(g, SCH_ENV_SMEM_PER_BLOCK_BYTES, (long long)v->smem_per_block);
        rc |= h5util_put_i64(g, SCH_ENV_SMEM_PER_BLOCK_OPTIN_BYTES, (long long)v->smem_per_block_optin);
        rc |= h5util_put_i64(g, SCH_ENV_SMEM_PER_SM_BYTES, (long long)v->smem_per_sm);
        rc |= h5util_put_i64(g, SCH_ENV_REGS_PER_SM, v->regs_per_sm);
        rc |= h5util_put_i64(g, SCH_ENV_SM_CLOCK_KHZ, v->sm_clock_khz);
        rc |= h5util_put_i64(g, SCH_ENV_MEM_CLOCK_KHZ, v->mem_clock_khz);
        rc |= h5util_put_i64(g, SCH_ENV_MEM_BUS_BITS, v->mem_bus_bits);
        rc |= h5util_put_i64(g, SCH_ENV_DEVICE_MEM_BYTES, (long long)v->total_mem);
        rc |= h5util_put_i64(g, SCH_ENV_DRIVER_VERSION, v->driver_version);
        rc |= h5util_put_i64(g, SCH_ENV_RUNTIME_VERSION, v->runtime_version);
        rc |= h5util_put_i64(g, SCH_ENV_CUBLAS_VERSION, v->cublas_version);
        rc |= h5util_put_str(g, SCH_ENV_NVRTC_VERSION, v->nvrtc_version);
        rc |= h5util_put_f64(g, SCH_ENV_PEAK_FP32_GFLOPS, v->peak_fp32_gflops);
        rc |= h5util_put_f64(g, SCH_ENV_PEAK_DRAM_GBS, v->peak_dram_gbs);
        if (v->energy_counter[0]) rc |= h5util_put_str(g, SCH_ENV_ENERGY_COUNTER, v->energy_counter); /* schema 1.15 */
    }
    return rc < 0 ? -1 : 0;
}

int h5write_session(const h5write_run *o, hid_t f, tl_err *e)
{
    const char *where = o->where;
    hid_t g = -1, env = -1;
    char name[64];
    snprintf(name, sizeof name, "/sessions/%d", o->session);
    H5_CHECK(g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5_CHECK(h5util_put_str(g, SCH_SESSION_CREATED_UTC, o->created_utc));
    H5_CHECK(h5util_put_str(g, SCH_SESSION_HOST, o->env->host));
    H5_CHECK(h5util_put_str(g, SCH_SESSION_ARGV, o->s.argv_text));
    H5_CHECK(h5util_put_str(g, SCH_SESSION_SHARD, o->s.shard));
    H5_CHECK(h5util_put_str(g, SCH_SESSION_TILELAB_VERSION, TL_VERSION));
    H5_CHECK(h5util_put_str(g, SCH_SESSION_GIT_COMMIT, tl_build_git_commit));
    H5_CHECK(h5util_put_i64(g, SCH_SESSION_GIT_DIRTY, tl_build_git_dirty));
    H5_CHECK(h5util_put_i64(g, SCH_SESSION_RESUMED, o->session > 0));
    if (o->s.rerun_of) H5_CHECK(h5util_put_str(g, SCH_SESSION_RERUN_OF, o->s.rerun_of));
    H5_CHECK(env = H5Gcreate2(g, "env", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5_CHECK(write_env(env, o->env));
    H5Gclose(env);
    H5Gclose(g);
    return 0;
fail:
    if (env >= 0) H5Gclose(env);
    if (g >= 0) H5Gclose(g);
    return -1;
}

/* A write's transfer properties: a conversion buffer of 16 KiB. HDF5's default is 1 MiB, allocated and zeroed
 * (twice: the conversion and the background buffers) by each write that converts, which every write of a
 * row with strings does: 2 MiB of memset a case, a tenth of a sweep's writing on the host target. A write
 * larger than the buffer is converted in pieces, the same bytes in the file. */
static hid_t small_xfer(void)
{
    hid_t p = H5Pcreate(H5P_DATASET_XFER);
    if (p >= 0 && H5Pset_buffer(p, 16 * 1024, NULL, NULL) < 0) {
        H5Pclose(p);
        p = -1;
    }
    return p;
}

static int write_dataset(hid_t g, const char *where, const char *name, hid_t file_type, hid_t mem_type, const void *x,
                         hsize_t n, tl_err *e)
{
    hid_t space = -1, d = -1, xfer = -1;
    H5_CHECK(space = H5Screate_simple(1, &n, NULL));
    H5_CHECK(d = H5Dcreate2(g, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (n) {
        H5_CHECK(xfer = small_xfer());
        H5_CHECK(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, xfer, x));
        H5Pclose(xfer);
    }
    H5Dclose(d);
    H5Sclose(space);
    return 0;
fail:
    if (xfer >= 0) H5Pclose(xfer);
    if (d >= 0) H5Dclose(d);
    if (space >= 0) H5Sclose(space);
    return -1;
}

/* Where the case's kernel comes from, and every file its compile reads (each in /sources). */
static int write_kernel_attrs(hid_t g, const char *where, const tl_case *c, const source_store *st, tl_err *e)
{
    char *text = NULL, hex[65];
    H5_CHECK(h5util_put_str(g, SCH_CASE_VARIANT_ORIGIN, c->cv->origin));
    if (c->dispatch) H5_CHECK(h5util_put_str(g, SCH_CASE_DISPATCH, c->dispatch)); /* schema 1.7 */
    if (c->run->kind != REG_NVRTC || !c->run->entry) return 0; /* a dispatch that found no rung has none */
    text = source_set_text(st, c->run_src);
    tl_sha256_hex(text, strlen(text), hex);
    H5_CHECK(h5util_put_str(g, SCH_CASE_ENTRY, c->run->entry));
    if (c->run->entry2) H5_CHECK(h5util_put_str(g, SCH_CASE_ENTRY2, c->run->entry2));
    if (c->run->decl && c->run->decl->nkernels > 1) { /* schema 1.12: a declared variant's kernels, in order */
        tl_buf k = {0};
        for (int i = 0; i < c->run->decl->nkernels; i++) tl_buf_printf(&k, "%s%s", i ? "," : "", c->run->decl->kernels[i].entry);
        int bad = h5util_put_str(g, SCH_CASE_KERNELS, k.s) < 0;
        free(k.s);
        if (bad) goto fail;
    }
    if (c->run->entry2_first) H5_CHECK(h5util_put_i64(g, SCH_CASE_ENTRY2_FIRST, 1)); /* schema 1.9 */
    H5_CHECK(h5util_put_str(g, SCH_CASE_SOURCES, text));
    H5_CHECK(h5util_put_str(g, SCH_CASE_SOURCES_SHA256, hex));
    free(text);
    return 0;
fail:
    free(text);
    return -1;
}

/* Schema 1.15: energy per run (when the protocol asks for it) and a search's record of the case. */
static herr_t write_energy_search(hid_t g, const tl_result *r)
{
    herr_t rc = 0;
    const measure_energy *m = &r->energy;
    if (m->status) {
        rc |= h5util_put_str(g, SCH_CASE_ENERGY_STATUS, m->status);
        rc |= h5util_put_str(g, SCH_CASE_ENERGY_REASON, m->reason ? m->reason : "");
        if (!strcmp(m->status, "ok")) {
            rc |= h5util_put_f64(g, SCH_CASE_ENERGY_J, m->j_per_run);
            rc |= h5util_put_f64(g, SCH_CASE_ENERGY_POWER_W, m->power_w);
            rc |= h5util_put_f64(g, SCH_CASE_ENERGY_SPAN_S, m->span_s);
            rc |= h5util_put_i64(g, SCH_CASE_ENERGY_RUNS, m->runs);
            rc |= h5util_put_f64(g, SCH_CASE_ENERGY_RESOLUTION_J, m->resolution_j);
        }
    }
    if (r->search_proposer) {
        rc |= h5util_put_i64(g, SCH_CASE_SEARCH_STEP, r->search_step);
        rc |= h5util_put_str(g, SCH_CASE_SEARCH_PROPOSER, r->search_proposer);
        rc |= h5util_put_f64(g, SCH_CASE_SEARCH_OBJECTIVE, r->search_objective);
        rc |= h5util_put_f64(g, SCH_CASE_SEARCH_BEST, r->search_best);
    }
    return rc < 0 ? -1 : 0;
}

static int write_case_attrs(hid_t g, const char *where, const tl_result *r, int session, const source_store *st,
                            tl_err *e)
{
    const tl_case *c = r->c;
    long long dims[REG_MAX_AXES];
    char tol[128], axes[64] = "";
    for (int a = 0; a < c->op->naxes; a++) {
        dims[a] = c->spec.dims[a];
        snprintf(axes + strlen(axes), sizeof axes - strlen(axes), "%s%s", a ? "," : "", c->op->axes[a]);
    }
    snprintf(tol, sizeof tol, "rtol=%.17g;atol=%.17g", r->tol.rtol, r->tol.atol);
    H5_CHECK(h5util_put_str(g, SCH_CASE_CASE_ID, c->id));
    H5_CHECK(h5util_put_str(g, SCH_CASE_CANONICAL, c->canonical));
    H5_CHECK(h5util_put_str(g, SCH_CASE_OP, c->op->name));
    H5_CHECK(h5util_put_str(g, SCH_CASE_VARIANT, c->variant->name));
    H5_CHECK(h5util_put_str(g, SCH_CASE_KIND, reg_kind_name(c->variant->kind)));
    H5_CHECK(h5util_put_str(g, SCH_CASE_TARGET, reg_target_name(c->variant->kind)));
    H5_CHECK(h5util_put_str(g, SCH_CASE_PARAMS, c->params_text));
    H5_CHECK(h5util_put_str(g, SCH_CASE_SIZES, c->sizes_text));
    H5_CHECK(h5util_put_str(g, SCH_CASE_AXES, axes));
    H5_CHECK(h5util_put_i64_array(g, SCH_CASE_DIMS, dims, (hsize_t)c->op->naxes));
    H5_CHECK(h5util_put_str(g, SCH_CASE_DTYPE, c->dtype));
    H5_CHECK(h5util_put_str(g, SCH_CASE_LAYOUTS, c->layout_text));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_SEED, (long long)c->spec.seed));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_SESSION, session));
    H5_CHECK(h5util_put_str(g, SCH_CASE_STATUS, r->status));
    H5_CHECK(h5util_put_str(g, SCH_CASE_REASON, r->reason));
    H5_CHECK(h5util_put_str(g, SCH_CASE_REFERENCE, r->reference));
    H5_CHECK(h5util_put_str(g, SCH_CASE_RATE_NAME, c->op->rate ? c->op->rate : "GFLOP/s")); /* schema 1.12 */
    const char *baseline = reg_baseline(c->op);
    if (baseline) H5_CHECK(h5util_put_str(g, SCH_CASE_BASELINE, baseline)); /* schema 1.16 */
    if (r->retried) H5_CHECK(h5util_put_str(g, SCH_CASE_RETRIED, r->retried)); /* schema 1.14 */
    if (r->sanitize_tool) {
        H5_CHECK(h5util_put_str(g, SCH_CASE_SANITIZE_TOOL, r->sanitize_tool));
        H5_CHECK(h5util_put_i64(g, SCH_CASE_SANITIZE_ERRORS, r->sanitize_errors));
        H5_CHECK(h5util_put_str(g, SCH_CASE_SANITIZE_REPORT, r->sanitize_report ? r->sanitize_report : ""));
    }
    if (write_energy_search(g, r) < 0) goto fail; /* schema 1.15 */
    H5_CHECK(h5util_put_str(g, SCH_CASE_TOLERANCE, tol));
    H5_CHECK(h5util_put_f64(g, SCH_CASE_MAX_ABS_ERR, r->max_abs_err));
    H5_CHECK(h5util_put_f64(g, SCH_CASE_MAX_REL_ERR, r->max_rel_err));
    H5_CHECK(h5util_put_f64(g, SCH_CASE_FLOP, r->flop));
    H5_CHECK(h5util_put_f64(g, SCH_CASE_BYTES, r->bytes));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_REGS, r->regs));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_SMEM_BYTES, r->smem_bytes));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_SMEM_STATIC_BYTES, r->smem_static_bytes));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_SMEM_DYNAMIC_BYTES, r->smem_dynamic_bytes));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_LOCAL_BYTES, r->local_bytes));
    if (r->workspace_bytes) H5_CHECK(h5util_put_i64(g, SCH_CASE_WORKSPACE_BYTES, r->workspace_bytes)); /* schema 1.9 */
    H5_CHECK(h5util_put_str(g, SCH_CASE_CUBIN_SHA256, r->cubin_sha256));
    H5_CHECK(h5util_put_str(g, SCH_CASE_NVRTC_OPTIONS, r->nvrtc_options));
    /* Schema 1.5: where the case's wall time went, and whether its kernel came from the cache. */
    for (int p = 0; p < PH_N; p++) H5_CHECK(h5util_put_f64(g, SCH_CASE_T_COMPILE_S + p, r->phase_s[p]));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_COMPILE_CACHED, r->compile_cached));
    /* Schema 1.4: the CUTLASS headers' version, on cases whose sources include them. */
    if (r->cutlass_version[0]) H5_CHECK(h5util_put_str(g, SCH_CASE_CUTLASS_VERSION, r->cutlass_version));
    /* Schema 1.6: the TMA tensor maps, on cases whose kernels ask for them. */
    if (r->tensor_maps[0]) H5_CHECK(h5util_put_str(g, SCH_CASE_TENSOR_MAPS, r->tensor_maps));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_DEVICE_ORDINAL, r->device)); /* schema 1.7 */
    if (r->trials) H5_CHECK(h5util_put_str(g, SCH_CASE_DISPATCH_TRIALS, r->trials)); /* schema 1.10 */
    long long grid[3] = {r->grid[0], r->grid[1], r->grid[2]}, block[3] = {r->block[0], r->block[1], r->block[2]};
    H5_CHECK(h5util_put_i64_array(g, SCH_CASE_GRID, grid, 3));
    H5_CHECK(h5util_put_i64_array(g, SCH_CASE_BLOCK, block, 3));
    H5_CHECK(h5util_put_str(g, SCH_CASE_PROTOCOL, r->protocol));
    H5_CHECK(h5util_put_str(g, SCH_CASE_STOPPED, r->samples.stopped));
    H5_CHECK(h5util_put_str(g, SCH_CASE_VERIFY, r->verify));
    H5_CHECK(h5util_put_str(g, SCH_CASE_DATA, r->data));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_WARMUP_RUNS, r->samples.warmup_runs));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_THROTTLED, r->samples.nthrottled));
    H5_CHECK(h5util_put_f64(g, SCH_CASE_TIMED_S, r->samples.timed_s));
    for (int a = 0; a < c->op->nargs; a++) H5_CHECK(h5util_put_f64_named(g, SCH_CASE_ARG, c->op->args[a].name, c->spec.args[a]));
    return write_kernel_attrs(g, where, c, st, e);
fail:
    return -1;
}

static int summary_append(hid_t f, const char *where, const tl_result *r, tl_err *e)
{
    const tl_case *c = r->c;
    h5util_summary_row row = {c->id, c->op->name, c->variant->name, reg_target_name(c->variant->kind), c->params_text,
                          c->sizes_text, c->layout_text, r->status, r->st.median_ms, r->st.mean_ms, r->st.stdev_ms,
                          r->st.min_ms, r->st.max_ms, r->st.p10_ms, r->st.p90_ms, r->gflops, r->gbs, r->samples.n,
                          r->samples.nthrottled};
    hsize_t rows, start, one = 1;
    hid_t d = -1, type = -1, file_space = -1, mem_space = -1, xfer = -1;
    H5_CHECK(d = H5Dopen2(f, "/summary", H5P_DEFAULT));
    H5_CHECK(type = h5util_summary_type());
    H5_CHECK(file_space = H5Dget_space(d));
    H5_CHECK(H5Sget_simple_extent_dims(file_space, &rows, NULL));
    H5Sclose(file_space);
    file_space = -1;
    start = rows++;
    H5_CHECK(H5Dset_extent(d, &rows));
    H5_CHECK(file_space = H5Dget_space(d));
    H5_CHECK(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, NULL, &one, NULL));
    H5_CHECK(mem_space = H5Screate_simple(1, &one, NULL));
    H5_CHECK(xfer = small_xfer());
    H5_CHECK(H5Dwrite(d, type, mem_space, file_space, xfer, &row));
    H5Pclose(xfer);
    H5Sclose(mem_space);
    H5Sclose(file_space);
    H5Tclose(type);
    H5Dclose(d);
    return 0;
fail:
    if (xfer >= 0) H5Pclose(xfer);
    if (mem_space >= 0) H5Sclose(mem_space);
    if (file_space >= 0) H5Sclose(file_space);
    if (type >= 0) H5Tclose(type);
    if (d >= 0) H5Dclose(d);
    return -1;
}

/* Counters (schema 1.3): status attributes, and the values when there are some. */
static int write_counters(hid_t g, const char *where, const counters_result *c, tl_err *e)
{
    hid_t type = -1;
    h5util_counter_row *rows = NULL;
    if (!c->status) return 0;
    H5_CHECK(h5util_put_str(g, SCH_CASE_COUNTERS_STATUS, c->status));
    H5_CHECK(h5util_put_str(g, SCH_CASE_COUNTERS_REASON, c->reason ? c->reason : ""));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_COUNTERS_KERNELS, c->kernels));
    H5_CHECK(h5util_put_i64(g, SCH_CASE_COUNTERS_PASSES, c->passes));
    if (c->n == 0) return 0;
    rows = tl_xcalloc((size_t)c->n, sizeof *rows);
    for (int i = 0; i < c->n; i++) rows[i] = (h5util_counter_row){.name = c->names[i], .value = c->values[i], .unit = c->units[i]};
    H5_CHECK(type = h5util_counter_type());
    if (write_dataset(g, where, "counters", type, type, rows, (hsize_t)c->n, e)) goto fail;
    H5Tclose(type);
    free(rows);
    return 0;
fail:
    if (type >= 0) H5Tclose(type);
    free(rows);
    return -1;
}

/* Drops id's rows from /summary (a case --retry-failed replaces). */
static int summary_remove(hid_t f, const char *where, const char *id, tl_err *e)
{
    hid_t d = -1, type = -1, space = -1;
    hsize_t rows = 0, kept = 0;
    h5util_summary_row *buf = NULL;
    int rc = -1;
    H5_CHECK(d = H5Dopen2(f, "/summary", H5P_DEFAULT));
    H5_CHECK(type = h5util_summary_type());
    H5_CHECK(space = H5Dget_space(d));
    H5_CHECK(H5Sget_simple_extent_dims(space, &rows, NULL));
    if (rows) {
        buf = tl_xcalloc((size_t)rows, sizeof *buf);
        H5_CHECK(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        h5util_summary_row *keep = tl_xcalloc((size_t)rows, sizeof *keep);
        for (hsize_t i = 0; i < rows; i++)
            if (!buf[i].case_id || strcmp(buf[i].case_id, id)) keep[kept++] = buf[i];
        herr_t w = 0;
        if (kept < rows) {
            w = H5Dset_extent(d, &kept);
            if (w >= 0 && kept) {
                hid_t s2 = H5Dget_space(d);
                w = s2 < 0 ? -1 : H5Dwrite(d, type, H5S_ALL, s2, H5P_DEFAULT, keep);
                if (s2 >= 0) H5Sclose(s2);
            }
        }
        free(keep);
        H5Dvlen_reclaim(type, space, H5P_DEFAULT, buf);
        H5_CHECK(w);
    }
    rc = 0;
fail:
    free(buf);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (d >= 0) H5Dclose(d);
    return rc;
}

/* A case the copy holds already (--retry-failed runs it again): its group moves to /retried/<id>/<session>, its
 * summary row goes; the new attempt gets a `retried` attribute. */
static int set_aside(hid_t f, const char *where, const char *name, const char *id, tl_err *e)
{
    hid_t g = -1;
    long long old_session = -1;
    char *to = NULL, *parent = tl_xasprintf("/retried/%s", id);
    int rc = -1;
    H5_CHECK(g = H5Gopen2(f, name, H5P_DEFAULT));
    h5util_read_i64(g, "session", &old_session);
    H5Gclose(g);
    g = -1;
    if (H5Lexists(f, "/retried", H5P_DEFAULT) <= 0) {
        H5_CHECK(g = H5Gcreate2(f, "/retried", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Gclose(g);
        g = -1;
    }
    if (H5Lexists(f, parent, H5P_DEFAULT) <= 0) {
        H5_CHECK(g = H5Gcreate2(f, parent, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Gclose(g);
        g = -1;
    }
    to = tl_xasprintf("%s/%lld", parent, old_session);
    if (H5Lexists(f, to, H5P_DEFAULT) > 0) H5_CHECK(H5Ldelete(f, to, H5P_DEFAULT));
    H5_CHECK(H5Lmove(f, name, f, to, H5P_DEFAULT, H5P_DEFAULT));
    if (summary_remove(f, where, id, e)) goto fail;
    rc = 0;
fail:
    if (g >= 0) H5Gclose(g);
    free(to), free(parent);
    return rc;
}

int h5write_case(hid_t f, const char *where, const tl_result *r, int session, const source_store *st, tl_err *e)
{
    hid_t g = -1;
    char *name = tl_xasprintf("/cases/%s", r->c->id);
    if (H5Lexists(f, name, H5P_DEFAULT) > 0 && set_aside(f, where, name, r->c->id, e)) goto fail;
    H5_CHECK(g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (write_case_attrs(g, where, r, session, st, e)) goto fail;
    const measure_samples *s = &r->samples;
    hsize_t n = (hsize_t)s->n;
    if (write_dataset(g, where, "time_ms", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->time_ms, n, e)) goto fail;
    if (s->sm_clock_mhz &&
        (write_dataset(g, where, "sm_clock_mhz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->sm_clock_mhz, n, e) ||
         write_dataset(g, where, "temp_c", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->temp_c, n, e) ||
         write_dataset(g, where, "power_w", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->power_w, n, e) ||
         write_dataset(g, where, "throttle_reasons", H5T_STD_U64LE, H5T_NATIVE_UINT64, s->throttle, n, e) ||
         write_dataset(g, where, "throttled", H5T_STD_U8LE, H5T_NATIVE_UINT8, s->throttled, n, e)))
        goto fail;
    if (write_counters(g, where, &r->counters, e)) goto fail;
    H5Gclose(g);
    g = -1;
    if (summary_append(f, where, r, e)) goto fail;
    free(name);
    return 0;
fail:
    if (g >= 0) H5Gclose(g);
    tl_err_wrap(e, "case %s", r->c->id);
    free(name);
    return -1;
}

int h5write_header(const h5write_run *o, hid_t f, tl_err *e)
{
    const char *where = o->where;
    hid_t g = -1, space = -1, dcpl = -1, type = -1, d = -1;
    hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = 64;
    if (write_root(f, where, o->x, o->env, &o->s, o->created_utc, e)) goto fail;
    H5_CHECK(g = H5Gcreate2(f, "/env", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5_CHECK(write_env(g, o->env));
    H5Gclose(g);
    H5_CHECK(g = H5Gcreate2(f, "/cases", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(g);
    H5_CHECK(g = H5Gcreate2(f, "/sessions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(g);
    g = -1;
    H5_CHECK(type = h5util_summary_type());
    H5_CHECK(space = H5Screate_simple(1, &dims, &maxdims));
    H5_CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    H5_CHECK(H5Pset_chunk(dcpl, 1, &chunk));
    H5_CHECK(d = H5Dcreate2(f, "/summary", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
    if (h5src_add_store(f, where, &o->x->store, e)) return -1;
    return h5write_session(o, f, e);
fail:
    if (d >= 0) H5Dclose(d);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (g >= 0) H5Gclose(g);
    return -1;
}
