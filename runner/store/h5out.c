#include "runner/store/h5out.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/ops/decl.h"
#include "runner/store/h5in.h"
#include "runner/store/h5src.h"
#include "runner/util/build_info.h"

/* TILELAB_TEST_CRASH_AT=POINT:N kills the runner (SIGKILL, as kill -9 would) the Nth time it passes
 * POINT: for the fault tests, which must hit the moments inside a commit. Never set otherwise. */
static void crash_point(const char *point)
{
    static int seen[8];
    static const char *const points[] = {"case_written", "shadow_closed", "exchanged", "created", NULL};
    const char *v = getenv("TILELAB_TEST_CRASH_AT");
    if (!v) return;
    size_t n = strlen(point);
    if (strncmp(v, point, n) || v[n] != ':') return;
    for (int i = 0; points[i]; i++)
        if (!strcmp(points[i], point) && ++seen[i] == atoi(v + n + 1)) raise(SIGKILL);
}

/* ---- writing into an open copy ------------------------------------------------------------ */

static int write_root(hid_t f, const char *where, const tl_experiment *x, const env_info *v, const h5out_session *s,
                      const char *created, tl_err *e)
{
    char *protocol = measure_protocol_text(&x->protocol);
    char tol[128];
    snprintf(tol, sizeof tol, "rtol=%.17g;atol=%.17g", x->tol.rtol, x->tol.atol);
    H5_CHECK(h5_put_str(f, SCH_ROOT_SCHEMA, H5_SCHEMA));
    H5_CHECK(h5_put_str(f, SCH_ROOT_TILELAB_VERSION, TL_VERSION));
    H5_CHECK(h5_put_str(f, SCH_ROOT_GIT_COMMIT, tl_build_git_commit));
    H5_CHECK(h5_put_i64(f, SCH_ROOT_GIT_DIRTY, tl_build_git_dirty));
    H5_CHECK(h5_put_str(f, SCH_ROOT_CREATED_UTC, created));
    H5_CHECK(h5_put_str(f, SCH_ROOT_HOST, v->host));
    H5_CHECK(h5_put_str(f, SCH_ROOT_ARGV, s->argv_text));
    H5_CHECK(h5_put_str(f, SCH_ROOT_EXPERIMENT, x->name));
    H5_CHECK(h5_put_str(f, SCH_ROOT_DESCRIPTION, x->description));
    H5_CHECK(h5_put_str(f, SCH_ROOT_CONFIG_PATH, x->path));
    H5_CHECK(h5_put_str(f, SCH_ROOT_CONFIG_YAML, x->yaml));
    H5_CHECK(h5_put_str(f, SCH_ROOT_CONFIG_SHA256, x->sha256));
    H5_CHECK(h5_put_str(f, SCH_ROOT_OP, x->op->name));
    H5_CHECK(h5_put_str(f, SCH_ROOT_REFERENCE, x->reference));
    H5_CHECK(h5_put_str(f, SCH_ROOT_TOLERANCE, tol));
    H5_CHECK(h5_put_str(f, SCH_ROOT_TOLERANCE_RULE, x->op->tol_doc));
    H5_CHECK(h5_put_str(f, SCH_ROOT_PROTOCOL, protocol));
    H5_CHECK(h5_put_str(f, SCH_ROOT_VERIFY, cfg_verify_names[x->verify]));
    H5_CHECK(h5_put_str(f, SCH_ROOT_DATA, reg_dist_names[x->dist]));
    if (s->rerun_of) H5_CHECK(h5_put_str(f, SCH_ROOT_RERUN_OF, s->rerun_of));
    if (x->search) { /* schema 1.15 */
        char *search = srch_spec_text(x->search);
        herr_t put = h5_put_str(f, SCH_ROOT_SEARCH, search);
        free(search);
        H5_CHECK(put);
    }
    free(protocol);
    return 0;
fail:
    free(protocol);
    return -1;
}

int h5out_write_env(hid_t g, const env_info *v)
{
    herr_t rc = 0;
    rc |= h5_put_str(g, SCH_ENV_HOST, v->host);
    rc |= h5_put_str(g, SCH_ENV_CPU, v->cpu);
    rc |= h5_put_i64(g, SCH_ENV_CPUS, v->cpus);
    rc |= h5_put_i64(g, SCH_ENV_HOST_MEM_BYTES, (long long)v->host_mem_bytes);
    rc |= h5_put_str(g, SCH_ENV_BUILD_COMPILER, tl_build_compiler);
    rc |= h5_put_i64(g, SCH_ENV_HAVE_GPU, v->have_gpu);
    rc |= h5_put_str(g, SCH_ENV_NVML, v->have_gpu ? v->nvml : "not used (host target)");
    if (v->have_gpu) {
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", v->cc_major, v->cc_minor);
        rc |= h5_put_str(g, SCH_ENV_DEVICE_NAME, v->gpu_name);
        rc |= h5_put_str(g, SCH_ENV_PCI_BUS_ID, v->pci_bus_id);
        rc |= h5_put_i64(g, SCH_ENV_DEVICE_ORDINAL, v->device);
        rc |= h5_put_str(g, SCH_ENV_COMPUTE_CAPABILITY, cc);
        rc |= h5_put_i64(g, SCH_ENV_SMS, v->sms);
        rc |= h5_put_i64(g, SCH_ENV_L2_BYTES, v->l2_bytes);
        rc |= h5_put_i64(g, SCH_ENV_SMEM_PER_BLOCK_BYTES, (long long)v->smem_per_block);
        rc |= h5_put_i64(g, SCH_ENV_SMEM_PER_BLOCK_OPTIN_BYTES, (long long)v->smem_per_block_optin);
        rc |= h5_put_i64(g, SCH_ENV_SMEM_PER_SM_BYTES, (long long)v->smem_per_sm);
        rc |= h5_put_i64(g, SCH_ENV_REGS_PER_SM, v->regs_per_sm);
        rc |= h5_put_i64(g, SCH_ENV_SM_CLOCK_KHZ, v->sm_clock_khz);
        rc |= h5_put_i64(g, SCH_ENV_MEM_CLOCK_KHZ, v->mem_clock_khz);
        rc |= h5_put_i64(g, SCH_ENV_MEM_BUS_BITS, v->mem_bus_bits);
        rc |= h5_put_i64(g, SCH_ENV_DEVICE_MEM_BYTES, (long long)v->total_mem);
        rc |= h5_put_i64(g, SCH_ENV_DRIVER_VERSION, v->driver_version);
        rc |= h5_put_i64(g, SCH_ENV_RUNTIME_VERSION, v->runtime_version);
        rc |= h5_put_i64(g, SCH_ENV_CUBLAS_VERSION, v->cublas_version);
        rc |= h5_put_str(g, SCH_ENV_NVRTC_VERSION, v->nvrtc_version);
        rc |= h5_put_f64(g, SCH_ENV_PEAK_FP32_GFLOPS, v->peak_fp32_gflops);
        rc |= h5_put_f64(g, SCH_ENV_PEAK_DRAM_GBS, v->peak_dram_gbs);
        if (v->energy_counter[0]) rc |= h5_put_str(g, SCH_ENV_ENERGY_COUNTER, v->energy_counter); /* schema 1.15 */
    }
    return rc < 0 ? -1 : 0;
}

/* /sessions/<k>: who ran which cases, where (a resumed or merged file has several). */
static int write_session(const h5out *o, hid_t f, tl_err *e)
{
    const char *where = o->shadow;
    hid_t g = -1, env = -1;
    char name[64];
    snprintf(name, sizeof name, "/sessions/%d", o->session);
    H5_CHECK(g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5_CHECK(h5_put_str(g, SCH_SESSION_CREATED_UTC, o->created_utc));
    H5_CHECK(h5_put_str(g, SCH_SESSION_HOST, o->env->host));
    H5_CHECK(h5_put_str(g, SCH_SESSION_ARGV, o->s.argv_text));
    H5_CHECK(h5_put_str(g, SCH_SESSION_SHARD, o->s.shard));
    H5_CHECK(h5_put_str(g, SCH_SESSION_TILELAB_VERSION, TL_VERSION));
    H5_CHECK(h5_put_str(g, SCH_SESSION_GIT_COMMIT, tl_build_git_commit));
    H5_CHECK(h5_put_i64(g, SCH_SESSION_GIT_DIRTY, tl_build_git_dirty));
    H5_CHECK(h5_put_i64(g, SCH_SESSION_RESUMED, o->session > 0));
    if (o->s.rerun_of) H5_CHECK(h5_put_str(g, SCH_SESSION_RERUN_OF, o->s.rerun_of));
    H5_CHECK(env = H5Gcreate2(g, "env", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5_CHECK(h5out_write_env(env, o->env));
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
static int write_kernel_attrs(hid_t g, const char *where, const tl_case *c, const src_store *st, tl_err *e)
{
    char *text = NULL, hex[65];
    H5_CHECK(h5_put_str(g, SCH_CASE_VARIANT_ORIGIN, c->cv->origin));
    if (c->dispatch) H5_CHECK(h5_put_str(g, SCH_CASE_DISPATCH, c->dispatch)); /* schema 1.7 */
    if (c->run->kind != REG_NVRTC || !c->run->entry) return 0; /* a dispatch that found no rung has none */
    text = src_set_text(st, c->run_src);
    tl_sha256_hex(text, strlen(text), hex);
    H5_CHECK(h5_put_str(g, SCH_CASE_ENTRY, c->run->entry));
    if (c->run->entry2) H5_CHECK(h5_put_str(g, SCH_CASE_ENTRY2, c->run->entry2));
    if (c->run->decl && c->run->decl->nkernels > 1) { /* schema 1.12: a declared variant's kernels, in order */
        tl_buf k = {0};
        for (int i = 0; i < c->run->decl->nkernels; i++) tl_buf_printf(&k, "%s%s", i ? "," : "", c->run->decl->kernels[i].entry);
        int bad = h5_put_str(g, SCH_CASE_KERNELS, k.s) < 0;
        free(k.s);
        if (bad) goto fail;
    }
    if (c->run->entry2_first) H5_CHECK(h5_put_i64(g, SCH_CASE_ENTRY2_FIRST, 1)); /* schema 1.9 */
    H5_CHECK(h5_put_str(g, SCH_CASE_SOURCES, text));
    H5_CHECK(h5_put_str(g, SCH_CASE_SOURCES_SHA256, hex));
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
        rc |= h5_put_str(g, SCH_CASE_ENERGY_STATUS, m->status);
        rc |= h5_put_str(g, SCH_CASE_ENERGY_REASON, m->reason ? m->reason : "");
        if (!strcmp(m->status, "ok")) {
            rc |= h5_put_f64(g, SCH_CASE_ENERGY_J, m->j_per_run);
            rc |= h5_put_f64(g, SCH_CASE_ENERGY_POWER_W, m->power_w);
            rc |= h5_put_f64(g, SCH_CASE_ENERGY_SPAN_S, m->span_s);
            rc |= h5_put_i64(g, SCH_CASE_ENERGY_RUNS, m->runs);
            rc |= h5_put_f64(g, SCH_CASE_ENERGY_RESOLUTION_J, m->resolution_j);
        }
    }
    if (r->search_proposer) {
        rc |= h5_put_i64(g, SCH_CASE_SEARCH_STEP, r->search_step);
        rc |= h5_put_str(g, SCH_CASE_SEARCH_PROPOSER, r->search_proposer);
        rc |= h5_put_f64(g, SCH_CASE_SEARCH_OBJECTIVE, r->search_objective);
        rc |= h5_put_f64(g, SCH_CASE_SEARCH_BEST, r->search_best);
    }
    return rc < 0 ? -1 : 0;
}

static int write_case_attrs(hid_t g, const char *where, const tl_result *r, int session, const src_store *st,
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
    H5_CHECK(h5_put_str(g, SCH_CASE_CASE_ID, c->id));
    H5_CHECK(h5_put_str(g, SCH_CASE_CANONICAL, c->canonical));
    H5_CHECK(h5_put_str(g, SCH_CASE_OP, c->op->name));
    H5_CHECK(h5_put_str(g, SCH_CASE_VARIANT, c->variant->name));
    H5_CHECK(h5_put_str(g, SCH_CASE_KIND, reg_kind_name(c->variant->kind)));
    H5_CHECK(h5_put_str(g, SCH_CASE_TARGET, reg_target_name(c->variant->kind)));
    H5_CHECK(h5_put_str(g, SCH_CASE_PARAMS, c->params_text));
    H5_CHECK(h5_put_str(g, SCH_CASE_SIZES, c->sizes_text));
    H5_CHECK(h5_put_str(g, SCH_CASE_AXES, axes));
    H5_CHECK(h5_put_i64_array(g, SCH_CASE_DIMS, dims, (hsize_t)c->op->naxes));
    H5_CHECK(h5_put_str(g, SCH_CASE_DTYPE, c->dtype));
    H5_CHECK(h5_put_str(g, SCH_CASE_LAYOUTS, c->layout_text));
    H5_CHECK(h5_put_i64(g, SCH_CASE_SEED, (long long)c->spec.seed));
    H5_CHECK(h5_put_i64(g, SCH_CASE_SESSION, session));
    H5_CHECK(h5_put_str(g, SCH_CASE_STATUS, r->status));
    H5_CHECK(h5_put_str(g, SCH_CASE_REASON, r->reason));
    H5_CHECK(h5_put_str(g, SCH_CASE_REFERENCE, r->reference));
    H5_CHECK(h5_put_str(g, SCH_CASE_RATE_NAME, c->op->rate ? c->op->rate : "GFLOP/s")); /* schema 1.12 */
    if (r->retried) H5_CHECK(h5_put_str(g, SCH_CASE_RETRIED, r->retried)); /* schema 1.14 */
    if (r->sanitize_tool) {
        H5_CHECK(h5_put_str(g, SCH_CASE_SANITIZE_TOOL, r->sanitize_tool));
        H5_CHECK(h5_put_i64(g, SCH_CASE_SANITIZE_ERRORS, r->sanitize_errors));
        H5_CHECK(h5_put_str(g, SCH_CASE_SANITIZE_REPORT, r->sanitize_report ? r->sanitize_report : ""));
    }
    if (write_energy_search(g, r) < 0) goto fail; /* schema 1.15 */
    H5_CHECK(h5_put_str(g, SCH_CASE_TOLERANCE, tol));
    H5_CHECK(h5_put_f64(g, SCH_CASE_MAX_ABS_ERR, r->max_abs_err));
    H5_CHECK(h5_put_f64(g, SCH_CASE_MAX_REL_ERR, r->max_rel_err));
    H5_CHECK(h5_put_f64(g, SCH_CASE_FLOP, r->flop));
    H5_CHECK(h5_put_f64(g, SCH_CASE_BYTES, r->bytes));
    H5_CHECK(h5_put_i64(g, SCH_CASE_REGS, r->regs));
    H5_CHECK(h5_put_i64(g, SCH_CASE_SMEM_BYTES, r->smem_bytes));
    H5_CHECK(h5_put_i64(g, SCH_CASE_SMEM_STATIC_BYTES, r->smem_static_bytes));
    H5_CHECK(h5_put_i64(g, SCH_CASE_SMEM_DYNAMIC_BYTES, r->smem_dynamic_bytes));
    H5_CHECK(h5_put_i64(g, SCH_CASE_LOCAL_BYTES, r->local_bytes));
    if (r->workspace_bytes) H5_CHECK(h5_put_i64(g, SCH_CASE_WORKSPACE_BYTES, r->workspace_bytes)); /* schema 1.9 */
    H5_CHECK(h5_put_str(g, SCH_CASE_CUBIN_SHA256, r->cubin_sha256));
    H5_CHECK(h5_put_str(g, SCH_CASE_NVRTC_OPTIONS, r->nvrtc_options));
    /* Schema 1.5: where the case's wall time went, and whether its kernel came from the cache. */
    for (int p = 0; p < PH_N; p++) H5_CHECK(h5_put_f64(g, SCH_CASE_T_COMPILE_S + p, r->phase_s[p]));
    H5_CHECK(h5_put_i64(g, SCH_CASE_COMPILE_CACHED, r->compile_cached));
    /* Schema 1.4: the CUTLASS headers' version, on cases whose sources include them. */
    if (r->cutlass_version[0]) H5_CHECK(h5_put_str(g, SCH_CASE_CUTLASS_VERSION, r->cutlass_version));
    /* Schema 1.6: the TMA tensor maps, on cases whose kernels ask for them. */
    if (r->tensor_maps[0]) H5_CHECK(h5_put_str(g, SCH_CASE_TENSOR_MAPS, r->tensor_maps));
    H5_CHECK(h5_put_i64(g, SCH_CASE_DEVICE_ORDINAL, r->device)); /* schema 1.7 */
    if (r->trials) H5_CHECK(h5_put_str(g, SCH_CASE_DISPATCH_TRIALS, r->trials)); /* schema 1.10 */
    long long grid[3] = {r->grid[0], r->grid[1], r->grid[2]}, block[3] = {r->block[0], r->block[1], r->block[2]};
    H5_CHECK(h5_put_i64_array(g, SCH_CASE_GRID, grid, 3));
    H5_CHECK(h5_put_i64_array(g, SCH_CASE_BLOCK, block, 3));
    H5_CHECK(h5_put_str(g, SCH_CASE_PROTOCOL, r->protocol));
    H5_CHECK(h5_put_str(g, SCH_CASE_STOPPED, r->samples.stopped));
    H5_CHECK(h5_put_str(g, SCH_CASE_VERIFY, r->verify));
    H5_CHECK(h5_put_str(g, SCH_CASE_DATA, r->data));
    H5_CHECK(h5_put_i64(g, SCH_CASE_WARMUP_RUNS, r->samples.warmup_runs));
    H5_CHECK(h5_put_i64(g, SCH_CASE_THROTTLED, r->samples.nthrottled));
    H5_CHECK(h5_put_f64(g, SCH_CASE_TIMED_S, r->samples.timed_s));
    for (int a = 0; a < c->op->nargs; a++) H5_CHECK(h5_put_f64_named(g, SCH_CASE_ARG, c->op->args[a].name, c->spec.args[a]));
    return write_kernel_attrs(g, where, c, st, e);
fail:
    return -1;
}

static int summary_append(hid_t f, const char *where, const tl_result *r, tl_err *e)
{
    const tl_case *c = r->c;
    h5_summary_row row = {c->id, c->op->name, c->variant->name, reg_target_name(c->variant->kind), c->params_text,
                          c->sizes_text, c->layout_text, r->status, r->st.median_ms, r->st.mean_ms, r->st.stdev_ms,
                          r->st.min_ms, r->st.max_ms, r->st.p10_ms, r->st.p90_ms, r->gflops, r->gbs, r->samples.n,
                          r->samples.nthrottled};
    hsize_t rows, start, one = 1;
    hid_t d = -1, type = -1, file_space = -1, mem_space = -1, xfer = -1;
    H5_CHECK(d = H5Dopen2(f, "/summary", H5P_DEFAULT));
    H5_CHECK(type = h5_summary_type());
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
static int write_counters(hid_t g, const char *where, const ctr_result *c, tl_err *e)
{
    hid_t type = -1;
    h5_counter_row *rows = NULL;
    if (!c->status) return 0;
    H5_CHECK(h5_put_str(g, SCH_CASE_COUNTERS_STATUS, c->status));
    H5_CHECK(h5_put_str(g, SCH_CASE_COUNTERS_REASON, c->reason ? c->reason : ""));
    H5_CHECK(h5_put_i64(g, SCH_CASE_COUNTERS_KERNELS, c->kernels));
    H5_CHECK(h5_put_i64(g, SCH_CASE_COUNTERS_PASSES, c->passes));
    if (c->n == 0) return 0;
    rows = tl_xcalloc((size_t)c->n, sizeof *rows);
    for (int i = 0; i < c->n; i++) rows[i] = (h5_counter_row){.name = c->names[i], .value = c->values[i], .unit = c->units[i]};
    H5_CHECK(type = h5_counter_type());
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
    h5_summary_row *buf = NULL;
    int rc = -1;
    H5_CHECK(d = H5Dopen2(f, "/summary", H5P_DEFAULT));
    H5_CHECK(type = h5_summary_type());
    H5_CHECK(space = H5Dget_space(d));
    H5_CHECK(H5Sget_simple_extent_dims(space, &rows, NULL));
    if (rows) {
        buf = tl_xcalloc((size_t)rows, sizeof *buf);
        H5_CHECK(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        h5_summary_row *keep = tl_xcalloc((size_t)rows, sizeof *keep);
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
    h5_read_i64(g, "session", &old_session);
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

static int write_case(hid_t f, const char *where, const tl_result *r, int session, const src_store *st, tl_err *e)
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

/* A new file: root attributes, /env, /cases, /summary and this run's session. */
static int write_header(h5out *o, hid_t f, tl_err *e)
{
    const char *where = o->shadow;
    hid_t g = -1, space = -1, dcpl = -1, type = -1, d = -1;
    hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = 64;
    if (write_root(f, where, o->x, o->env, &o->s, o->created_utc, e)) goto fail;
    H5_CHECK(g = H5Gcreate2(f, "/env", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5_CHECK(h5out_write_env(g, o->env));
    H5Gclose(g);
    H5_CHECK(g = H5Gcreate2(f, "/cases", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(g);
    H5_CHECK(g = H5Gcreate2(f, "/sessions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(g);
    g = -1;
    H5_CHECK(type = h5_summary_type());
    H5_CHECK(space = H5Screate_simple(1, &dims, &maxdims));
    H5_CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    H5_CHECK(H5Pset_chunk(dcpl, 1, &chunk));
    H5_CHECK(d = H5Dcreate2(f, "/summary", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
    if (h5src_add_store(f, where, &o->x->store, e)) return -1;
    return write_session(o, f, e);
fail:
    if (d >= 0) H5Dclose(d);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (g >= 0) H5Gclose(g);
    return -1;
}

/* ---- commits ------------------------------------------------------------------------------- */

/* Swaps shadow and path; without RENAME_EXCHANGE (e.g. NFS), renames the shadow over path, which
 * is atomic too, and leaves no shadow (*gone = 1). */
static int exchange(h5out *o, int *gone, tl_err *e)
{
    *gone = 0;
    if (!o->no_exchange) {
        if (renameat2(AT_FDCWD, o->shadow, AT_FDCWD, o->path, RENAME_EXCHANGE) == 0) return h5_fsync_dir_of(o->path, e);
        if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EOPNOTSUPP) {
            tl_err_set(e, "%s: cannot swap in the new copy %s: %s", o->path, o->shadow, strerror(errno));
            return -1;
        }
        o->no_exchange = 1;
    }
    if (rename(o->shadow, o->path) < 0) {
        tl_err_set(e, "%s: cannot rename %s over it: %s", o->path, o->shadow, strerror(errno));
        return -1;
    }
    *gone = 1;
    return h5_fsync_dir_of(o->path, e);
}

/* 1 when another process has the shadow open (it was `path` until the last swap, and a reader,
 * e.g. analysis, opened it then): HDF5 holds a shared flock on a file it has open. */
static int shadow_in_use(const h5out *o)
{
    int fd = open(o->shadow, O_RDONLY | O_CLOEXEC), busy = 0;
    if (fd < 0) return 1; /* missing or unreadable: make it again */
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) busy = errno == EWOULDBLOCK;
    close(fd); /* drops the lock */
    return busy;
}

/* 1 when a shadow `behind` cases behind path (the writer took a big batch into path last time) is better
 * made afresh from it: a case group costs HDF5 about 0.3 ms to write, its 7 - 20 KB a few microseconds to
 * copy; so a copy of path when path is at most 32 KB for each case the shadow lacks (a resumed file may be
 * far larger than this run's cases). */
static int far_behind(const h5out *o, int behind)
{
    struct stat st;
    return behind >= 64 && stat(o->path, &st) == 0 && (uint64_t)st.st_size <= (uint64_t)behind * 32768u;
}

/* Brings the shadow up to date (this run's session, every case, totals), then makes it `path`.
 * On failure path is as it was, and the shadow is made again from it by the next commit. */
static int commit(h5out *o, const tl_result *const *results, int nresults, int finished, tl_err *e)
{
    const char *where = o->shadow;
    h5out_copy *c = &o->at_shadow;
    int gone = 0;
    if (c->ncases >= 0 && shadow_in_use(o)) c->ncases = -1;
    if (c->ncases >= 0 && far_behind(o, o->at_path.ncases - c->ncases)) c->ncases = -1;
    if (c->ncases < 0) {
        /* A fresh inode: whoever still reads the old one keeps reading what it was. */
        if (h5_copy_file(o->path, o->fresh, e)) return -1;
        if (rename(o->fresh, o->shadow) < 0) {
            tl_err_set(e, "%s: cannot rename %s: %s", o->shadow, o->fresh, strerror(errno));
            return -1;
        }
        *c = o->at_path;
    }
    hid_t f = H5Fopen(o->shadow, H5F_ACC_RDWR, o->fapl);
    if (f < 0) {
        char why[512];
        h5_last_error(why, sizeof why);
        tl_err_set(e, "%s: cannot open the working copy of %s: %s", o->shadow, o->path, why);
        c->ncases = -1;
        return -1;
    }
    /* A resumed file gets this run's session, and its sources if it was written without them. */
    if (!c->has_session && (write_session(o, f, e) || h5src_add_store(f, where, &o->x->store, e))) goto fail;
    for (int i = c->ncases; i < nresults; i++) {
        if (write_case(f, where, results[i], o->session, &o->x->store, e)) goto fail;
        crash_point("case_written");
    }
    if (finished && !c->finished) {
        char name[64];
        hid_t g = -1;
        snprintf(name, sizeof name, "/sessions/%d", o->session);
        H5_CHECK(g = H5Gopen2(f, name, H5P_DEFAULT));
        herr_t rc = h5_put_f64(g, SCH_SESSION_WALL_S, o->wall_s) | h5_put_f64(g, SCH_SESSION_TIMED_S, o->timed_s);
        /* Schema 1.5: where the session's wall time went (the cases' phases, the writer's time). */
        for (int p = 0; p < PH_N; p++) rc |= h5_put_f64(g, SCH_SESSION_T_COMPILE_S + p, o->phase_s[p]);
        rc |= h5_put_f64(g, SCH_SESSION_T_WRITE_S, o->write_s);
        /* Schema 1.8: the process's start-up before the first case, outside wall_s. */
        rc |= h5_put_f64(g, SCH_SESSION_T_START_S, o->start_s) | h5_put_f64(g, SCH_SESSION_T_START_CUDA_S, o->start_cuda_s) |
              h5_put_f64(g, SCH_SESSION_T_START_LIBS_S, o->start_libs_s);
        H5Gclose(g);
        H5_CHECK(rc);
        H5_CHECK(h5_put_f64(f, SCH_ROOT_WALL_S, o->prior_wall_s + o->wall_s));
        H5_CHECK(h5_put_f64(f, SCH_ROOT_TIMED_S, o->prior_timed_s + o->timed_s));
    }
    herr_t closed = h5_fclose(f);
    f = -1; /* closed even when it failed: never closed twice */
    H5_CHECK(closed);
    crash_point("shadow_closed");
    if (h5_fsync_path(o->shadow, e) || exchange(o, &gone, e)) goto fail;
    h5out_copy now = {nresults, 1, finished};
    o->at_shadow = gone ? (h5out_copy){-1, 0, 0} : o->at_path;
    o->at_path = now;
    crash_point("exchanged");
    return 0;
fail:
    if (f >= 0) h5_fclose(f);
    c->ncases = -1; /* half-written: made again from path */
    return -1;
}

/* The writer thread: commits every case queued since its last commit in one, in order, then the
 * totals (a kill -9 between a commit and its `saved` leaves the cases of that commit in the file
 * unreported, never a reported case out of it). A commit's fsyncs and swap cost milliseconds whatever
 * it holds: one a case made a tuning shard of 59436 cases, 47677 of them skipped, wait 130 s for its
 * writer after its last case, and sgemm_odd (9724 cases run, most of them a few milliseconds) 30 s of
 * its 50 on the H100 (docs/gpu-runs.md: where a sweep's time goes). */
static void *writer_main(void *arg)
{
    h5out *o = arg;
    /* TILELAB_TEST_COMMIT_EACH: the fault tests' crash points name the Nth commit of a run, which needs a
     * commit a case to come at all. Never set otherwise. */
    const int commit_each = getenv("TILELAB_TEST_COMMIT_EACH") != NULL;
    const tl_result **mine = NULL;
    int cap = 0;
    pthread_mutex_lock(&o->w.mu);
    for (;;) {
        while (!o->w.failed && o->w.committed == o->nresults && !(o->w.finish && !o->w.done) && !o->w.stop)
            pthread_cond_wait(&o->w.cv, &o->w.mu);
        if (o->w.failed) break;
        int n = o->nresults;
        if (commit_each) { /* tests only: a commit a case (and the skipped cases after it) */
            n = o->w.committed < o->nresults ? o->w.committed + 1 : o->nresults;
            while (n < o->nresults && !strcmp(o->results[n]->status, "skipped")) n++;
        }
        int fin = n == o->nresults && o->w.finish && !o->w.done;
        if (n == o->w.committed && !fin) break; /* stop, and nothing is queued */
        if (n > cap) {
            cap = n > 2 * cap ? n : 2 * cap;
            mine = realloc(mine, sizeof *mine * (size_t)cap);
            if (!mine) abort();
        }
        memcpy(mine, o->results, sizeof *mine * (size_t)n); /* main may grow results meanwhile */
        pthread_mutex_unlock(&o->w.mu);
        tl_err e;
        int rc = commit(o, mine, n, fin, &e);
        if (rc == 0 && o->w.saved)
            for (int i = o->w.committed; i < n; i++) o->w.saved(o->w.ctx, i, mine[i]);
        pthread_mutex_lock(&o->w.mu);
        if (rc) {
            o->w.failed = 1;
            o->w.err = e;
            tl_err_wrap(&o->w.err, "%s keeps the cases before case %d of this run", o->path, o->w.committed + 1);
            o->w.reported = 0;
        } else {
            o->w.committed = n;
            o->w.done |= fin;
        }
        pthread_cond_broadcast(&o->w.cv);
    }
    pthread_cond_broadcast(&o->w.cv);
    pthread_mutex_unlock(&o->w.mu);
    free(mine);
    return NULL;
}

int h5out_start_writer(h5out *o, void (*saved)(void *ctx, int index, const tl_result *r), void *ctx, tl_err *e)
{
    if (o->w.on) return 0;
    o->w.committed = o->nresults;
    o->w.finish = o->w.stop = o->w.failed = o->w.done = o->w.reported = 0;
    o->w.saved = saved;
    o->w.ctx = ctx;
    if (pthread_mutex_init(&o->w.mu, NULL) || pthread_cond_init(&o->w.cv, NULL)) {
        tl_err_set(e, "%s: cannot make the writer thread's lock", o->path);
        return -1;
    }
    int rc = pthread_create(&o->w.thread, NULL, writer_main, o);
    if (rc) {
        pthread_cond_destroy(&o->w.cv);
        pthread_mutex_destroy(&o->w.mu);
        tl_err_set(e, "%s: cannot start the writer thread: %s", o->path, strerror(rc));
        return -1;
    }
    o->w.on = 1;
    return 0;
}

/* Ends the writer thread after it committed what was queued; -1 with e if a commit failed. */
static int stop_writer(h5out *o, tl_err *e)
{
    if (!o->w.on) return 0;
    pthread_mutex_lock(&o->w.mu);
    o->w.stop = 1;
    pthread_cond_broadcast(&o->w.cv);
    pthread_mutex_unlock(&o->w.mu);
    pthread_join(o->w.thread, NULL);
    o->w.on = 0;
    pthread_cond_destroy(&o->w.cv);
    pthread_mutex_destroy(&o->w.mu);
    if (o->w.failed) {
        if (e) *e = o->w.err;
        return -1;
    }
    return 0;
}

/* h5out_close: a failed commit that no call has reported yet (the run stopped for another reason). */
static void stop_writer_quietly(h5out *o)
{
    int reported = o->w.reported;
    tl_err e;
    if (stop_writer(o, &e) && !reported) fprintf(stderr, "runner: %s\n", e.msg);
}

int h5out_write_case(h5out *o, const tl_result *r, tl_err *e)
{
    if (o->w.on) pthread_mutex_lock(&o->w.mu);
    if (o->w.on && o->w.failed) {
        *e = o->w.err;
        o->w.reported = 1;
        pthread_mutex_unlock(&o->w.mu);
        return -1;
    }
    if (o->nresults == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->results = realloc(o->results, sizeof *o->results * (size_t)o->cap);
        if (!o->results) abort();
    }
    o->results[o->nresults++] = r;
    if (o->w.on) {
        pthread_cond_broadcast(&o->w.cv);
        pthread_mutex_unlock(&o->w.mu);
        return 0;
    }
    if (commit(o, o->results, o->nresults, o->finished, e)) {
        o->nresults--;
        tl_err_wrap(e, "%s keeps the cases before this one", o->path);
        return -1;
    }
    return 0;
}

int h5out_drain(h5out *o, tl_err *e)
{
    if (!o->w.on) return 0;
    pthread_mutex_lock(&o->w.mu);
    while (!o->w.failed && o->w.committed < o->nresults) pthread_cond_wait(&o->w.cv, &o->w.mu);
    int rc = o->w.failed ? -1 : 0;
    if (rc) *e = o->w.err, o->w.reported = 1;
    pthread_mutex_unlock(&o->w.mu);
    return rc;
}

int h5out_finish(h5out *o, double wall_s, double timed_s, tl_err *e)
{
    if (!o->w.on) {
        o->wall_s = wall_s;
        o->timed_s = timed_s;
        o->finished = 1;
        return commit(o, o->results, o->nresults, 1, e);
    }
    pthread_mutex_lock(&o->w.mu);
    o->wall_s = wall_s;
    o->timed_s = timed_s;
    o->w.finish = 1;
    pthread_cond_broadcast(&o->w.cv);
    while (!o->w.failed && !o->w.done) pthread_cond_wait(&o->w.cv, &o->w.mu);
    o->w.reported |= o->w.failed;
    pthread_mutex_unlock(&o->w.mu);
    return stop_writer(o, e);
}

/* ---- open and close ---------------------------------------------------------------------------- */

/* path's folder and base name, as "<dir>/.<base><suffix>". */
static char *sibling(const char *path, const char *suffix)
{
    char *d = tl_xstrdup(path), *b = tl_xstrdup(path);
    char *out = tl_xasprintf("%s/.%s%s", dirname(d), basename(b), suffix);
    free(d), free(b);
    return out;
}

int h5out_lock(const char *path, int *fd, tl_err *e)
{
    char *lock = sibling(path, ".lock");
    *fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0) tl_err_set(e, "%s: cannot create the result file here: %s", path, strerror(errno));
    else if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
        tl_err_set(e, "%s: another runner is writing this file (it holds %s)", path, lock);
        close(*fd);
        *fd = -1;
    }
    free(lock);
    return *fd < 0 ? -1 : 0;
}

static int take_lock(h5out *o, tl_err *e)
{
    o->lock_fd = open(o->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (o->lock_fd < 0) {
        tl_err_set(e, "%s: cannot create the result file here: %s", o->path, strerror(errno));
        return -1;
    }
    if (flock(o->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        tl_err_set(e, "%s: another runner is writing this file (it holds %s)", o->path, o->lock_path);
        close(o->lock_fd);
        o->lock_fd = -1;
        return -1;
    }
    return 0;
}

/* A new result file: the header is written into the shadow, and a copy of it linked in as path, so
 * that path appears complete or not at all, and an existing file is never replaced. */
static int create_new(h5out *o, tl_err *e)
{
    const char *where = o->shadow, *fresh = o->fresh;
    int rc = -1;
    hid_t f = H5Fcreate(o->shadow, H5F_ACC_TRUNC, H5P_DEFAULT, o->fapl);
    if (f < 0) {
        char why[512];
        h5_last_error(why, sizeof why);
        tl_err_set(e, "%s: cannot create the result file: %s", o->path, why);
        goto out;
    }
    if (write_header(o, f, e)) goto fail;
    herr_t closed = h5_fclose(f);
    f = -1; /* closed even when it failed: never closed twice */
    H5_CHECK(closed);
    if (h5_fsync_path(o->shadow, e) || h5_copy_file(o->shadow, fresh, e)) goto out;
    if (link(fresh, o->path) < 0) {
        int err = errno;
        if (err == EEXIST) {
            tl_err_set(e, "%s: exists; result files are never overwritten (--resume continues one)", o->path);
            goto out;
        }
        /* No hard links here: rename, after checking again that path is still free. */
        struct stat st;
        if (stat(o->path, &st) == 0 || rename(fresh, o->path) < 0) {
            tl_err_set(e, "%s: cannot create: %s", o->path, strerror(err));
            goto out;
        }
    }
    if (h5_fsync_dir_of(o->path, e)) goto out;
    o->at_path = o->at_shadow = (h5out_copy){0, 1, 0};
    crash_point("created");
    rc = 0;
    goto out;
fail:
    if (f >= 0) h5_fclose(f);
out:
    unlink(fresh);
    return rc;
}

/* Counts /sessions/<k> and reads the totals of a file being resumed. */
static int check_resumable(h5out *o, h5out_existing *have, tl_err *e)
{
    hid_t f = H5Fopen(o->path, H5F_ACC_RDONLY, o->fapl);
    if (f < 0) {
        tl_err_set(e, "%s: cannot open it to resume", o->path);
        return -1;
    }
    char *sha = h5_read_str(f, "config_sha256");
    int rc = -1;
    if (!sha || strcmp(sha, o->x->sha256)) {
        tl_err_set(e, "%s: was written by a different experiment (config_sha256 %.12s..., %s is %.12s...); "
                      "resume it with the same file, or write a new one", o->path, sha ? sha : "?", o->x->path,
                   o->x->sha256);
    } else if (have->nsessions == 0) {
        tl_err_set(e, "%s: written before tilelab/1.1 (no /sessions), cannot be resumed; run into a new file", o->path);
    } else if (h5src_check_store(f, o->path, &o->x->store, e)) {
        /* e says which kernel source changed */
    } else if (have->shard && strcmp(have->shard, o->s.shard)) {
        tl_err_set(e, "%s: holds %s%s, not %s%s: resume a file with the share it was started with", o->path,
                   have->shard[0] ? "shard " : "the whole plan", have->shard, o->s.shard[0] ? "shard " : "the whole plan",
                   o->s.shard);
    } else {
        rc = 0;
    }
    free(sha);
    H5Fclose(f);
    return rc;
}

int h5out_open(h5out *o, const char *path, const tl_experiment *x, const env_info *env, const h5out_session *s,
               int resume, h5out_existing *have, tl_err *e)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    memset(have, 0, sizeof *have);
    o->lock_fd = -1;
    o->fapl = -1;
    o->path = tl_xstrdup(path);
    o->shadow = sibling(path, ".shadow");
    o->fresh = sibling(path, ".new");
    o->lock_path = sibling(path, ".lock");
    o->x = x;
    o->env = env;
    o->s.argv_text = tl_xstrdup(s->argv_text ? s->argv_text : "");
    o->s.shard = tl_xstrdup(s->shard ? s->shard : "");
    o->s.rerun_of = s->rerun_of ? tl_xstrdup(s->rerun_of) : NULL;
    tl_utc_stamp(o->created_utc, 1);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our own messages, not HDF5's stack dumps */
    /* Our own lock (lock_path) guards the writer; HDF5's flock would make a reader of path fail
     * the writer's next commit. */
    if ((o->fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_file_locking(o->fapl, 0, 1) < 0) {
        tl_err_set(e, "%s: cannot set up HDF5 file access", path);
        goto fail;
    }
    /* One file, one writer: the lock is a sibling of the name, so the file must have no other name; and the
     * runner commits by renaming, which would put a file in place of a link. */
    if (lstat(path, &st) == 0) {
        /* Its names but the runner's own siblings (a commit killed half-way can leave the shadow or the new file
         * as a second name of it). */
        nlink_t names = st.st_nlink;
        struct stat sib;
        if (lstat(o->shadow, &sib) == 0 && sib.st_dev == st.st_dev && sib.st_ino == st.st_ino) names--;
        if (lstat(o->fresh, &sib) == 0 && sib.st_dev == st.st_dev && sib.st_ino == st.st_ino) names--;
        const char *why = S_ISLNK(st.st_mode) ? "is a symbolic link: give the path of the file it points to"
                          : !S_ISREG(st.st_mode) ? "is not a regular file (a FIFO, a device or a folder)"
                          : names > 1 ? "has other names (hard links): two runs through two of them would both "
                                        "write it; copy it to a file of its own"
                          : NULL;
        if (why) {
            tl_err_set(e, "%s: %s", path, why);
            goto fail;
        }
    }
    if (take_lock(o, e)) goto fail;
    unlink(o->fresh); /* left by a run killed while creating the file */
    if (stat(path, &st) != 0) {
        if (create_new(o, e)) goto fail;
        return 0;
    }
    if (!resume) {
        tl_err_set(e, "%s: exists; result files are never overwritten (--resume continues one)", path);
        goto fail;
    }
    if (h5out_read_existing(path, 1, have, e) || check_resumable(o, have, e)) goto fail;
    o->session = have->nsessions;
    o->prior_wall_s = have->wall_s;
    o->prior_timed_s = have->timed_s;
    /* A shadow left by a killed run may be half-written: start it afresh. */
    o->at_path = (h5out_copy){0, 0, 0};
    o->at_shadow = (h5out_copy){-1, 0, 0};
    if (commit(o, o->results, o->nresults, 0, e)) goto fail;
    return 0;
fail:
    h5out_existing_free(have);
    h5out_close(o);
    return -1;
}

void h5out_close(h5out *o)
{
    stop_writer_quietly(o);
    /* Only the lock's holder removes the shadow: another runner may be writing this file. */
    if (o->lock_fd >= 0) {
        unlink(o->shadow);
        unlink(o->lock_path);
        close(o->lock_fd);
    }
    if (o->fapl >= 0) H5Pclose(o->fapl);
    free(o->path), free(o->shadow), free(o->fresh), free(o->lock_path), free(o->results);
    free((char *)o->s.argv_text), free((char *)o->s.shard), free((char *)o->s.rerun_of);
    memset(o, 0, sizeof *o);
    o->lock_fd = -1;
    o->fapl = -1;
}

/* ---- reading back --------------------------------------------------------------------------- */

typedef struct {
    h5out_existing *h;
    int cap;
} walk;

static herr_t add_case(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    walk *w = data;
    h5out_existing *h = w->h;
    hid_t c = H5Gopen2(g, name, H5P_DEFAULT);
    if (c < 0) return -1;
    char *status = h5_read_str(c, "status");
    long long session = 0;
    h5_read_i64(c, "session", &session);
    H5Gclose(c);
    if (h->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        h->ids = realloc(h->ids, sizeof *h->ids * (size_t)w->cap);
        h->status = realloc(h->status, sizeof *h->status * (size_t)w->cap);
        h->session = realloc(h->session, sizeof *h->session * (size_t)w->cap);
        if (!h->ids || !h->status || !h->session) abort();
    }
    h->session[h->n] = (int)session;
    h->ids[h->n] = tl_xstrdup(name);
    h->status[h->n++] = status ? status : tl_xstrdup("?");
    return 0;
}

int h5out_read_existing(const char *path, int locked, h5out_existing *h, tl_err *e)
{
    memset(h, 0, sizeof *h);
    hid_t f = locked ? h5in_open_locked(path, e) : h5in_open(path, e), g = -1;
    int rc = -1;
    walk w = {h, 0};
    if (f < 0) return -1;
    if ((g = H5Gopen2(f, "/cases", H5P_DEFAULT)) < 0 ||
        H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, add_case, &w) < 0) {
        tl_err_set(e, "%s: cannot read /cases", path);
        goto out;
    }
    H5Gclose(g);
    g = -1;
    if (H5Lexists(f, "/sessions", H5P_DEFAULT) > 0) {
        H5G_info_t info;
        if ((g = H5Gopen2(f, "/sessions", H5P_DEFAULT)) < 0 || H5Gget_info(g, &info) < 0) {
            tl_err_set(e, "%s: cannot read /sessions", path);
            goto out;
        }
        h->nsessions = (int)info.nlinks;
        hid_t first = H5Lexists(g, "0", H5P_DEFAULT) > 0 ? H5Gopen2(g, "0", H5P_DEFAULT) : -1;
        if (first >= 0) {
            h->shard = h5_read_str(first, "shard");
            H5Gclose(first);
        }
    }
    /* Absent until a session finishes. */
    h->wall_s = h->timed_s = 0;
    h5_read_f64(f, "wall_s", &h->wall_s);
    h5_read_f64(f, "timed_s", &h->timed_s);
    rc = 0;
out:
    if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    if (rc) h5out_existing_free(h);
    return rc;
}

void h5out_existing_free(h5out_existing *h)
{
    for (int i = 0; i < h->n; i++) free(h->ids[i]), free(h->status[i]);
    free(h->ids);
    free(h->status);
    free(h->session);
    free(h->shard);
    memset(h, 0, sizeof *h);
}
