#include "runner/h5out.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/build_info.h"

#define H5_CHECK(call)                                                                                     \
    do {                                                                                                   \
        if ((call) < 0) {                                                                                  \
            tl_err_set(e, "%s: HDF5 call failed at %s:%d: %s", o->path, __FILE__, __LINE__, #call);        \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

/* ---- attributes --------------------------------------------------------------------------- */

static herr_t attr_write(hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR), a = -1;
    herr_t rc = -1;
    if (space < 0) return -1;
    if ((a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0) rc = H5Awrite(a, type, value);
    if (a >= 0 && H5Aclose(a) < 0) rc = -1;
    H5Sclose(space);
    return rc;
}

static hid_t str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return -1;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static herr_t attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t t = str_type();
    if (t < 0) return -1;
    const char *v = value ? value : "";
    herr_t rc = attr_write(obj, name, t, &v);
    H5Tclose(t);
    return rc;
}

static herr_t attr_f64(hid_t obj, const char *name, double v)
{
    return attr_write(obj, name, H5T_NATIVE_DOUBLE, &v);
}

static herr_t attr_i64(hid_t obj, const char *name, long long v)
{
    return attr_write(obj, name, H5T_NATIVE_LLONG, &v);
}

static herr_t attr_i64_array(hid_t obj, const char *name, const long long *v, hsize_t n)
{
    hid_t space = H5Screate_simple(1, &n, NULL), a = -1;
    herr_t rc = -1;
    if (space < 0) return -1;
    if ((a = H5Acreate2(obj, name, H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
        rc = H5Awrite(a, H5T_NATIVE_LLONG, v);
    if (a >= 0 && H5Aclose(a) < 0) rc = -1;
    H5Sclose(space);
    return rc;
}

/* ---- /summary ------------------------------------------------------------------------------ */

typedef struct {
    const char *case_id, *op, *variant, *target, *params, *sizes, *layout, *status;
    double median_ms, mean_ms, stdev_ms, min_ms, max_ms, p10_ms, p90_ms, gflops, gbs; /* ms, GFLOP/s, GB/s */
    int reps;      /* samples */
    int throttled; /* samples taken while a clock-event reason slowed the GPU */
} summary_row;

static hid_t summary_type_create(void)
{
    hid_t s = str_type(), t = H5Tcreate(H5T_COMPOUND, sizeof(summary_row));
    if (s < 0 || t < 0) return -1;
    herr_t rc = 0;
#define STR(f) rc |= H5Tinsert(t, #f, offsetof(summary_row, f), s)
#define F64(f) rc |= H5Tinsert(t, #f, offsetof(summary_row, f), H5T_NATIVE_DOUBLE)
    STR(case_id), STR(op), STR(variant), STR(target), STR(params), STR(sizes), STR(layout), STR(status);
    F64(median_ms), F64(mean_ms), F64(stdev_ms), F64(min_ms), F64(max_ms), F64(p10_ms), F64(p90_ms);
    F64(gflops), F64(gbs);
    rc |= H5Tinsert(t, "reps", offsetof(summary_row, reps), H5T_NATIVE_INT);
    rc |= H5Tinsert(t, "throttled", offsetof(summary_row, throttled), H5T_NATIVE_INT);
#undef STR
#undef F64
    H5Tclose(s);
    if (rc < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static int summary_create(h5out *o, tl_err *e)
{
    hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = 64;
    hid_t space = -1, dcpl = -1;
    H5_CHECK(o->summary_type = summary_type_create());
    H5_CHECK(space = H5Screate_simple(1, &dims, &maxdims));
    H5_CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    H5_CHECK(H5Pset_chunk(dcpl, 1, &chunk));
    H5_CHECK(o->summary = H5Dcreate2(o->file, "/summary", o->summary_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H5Pclose(dcpl);
    H5Sclose(space);
    return 0;
fail:
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return -1;
}

static int summary_append(h5out *o, const tl_result *r, tl_err *e)
{
    const tl_case *c = r->c;
    summary_row row = {c->id, c->op->name, c->variant->name, reg_target_name(c->variant->kind), c->params_text,
                       c->sizes_text, c->layout_text, r->status, r->st.median_ms, r->st.mean_ms, r->st.stdev_ms,
                       r->st.min_ms, r->st.max_ms, r->st.p10_ms, r->st.p90_ms, r->gflops, r->gbs, r->samples.n,
                       r->samples.nthrottled};
    hsize_t newsize = o->rows + 1, start = o->rows, one = 1;
    hid_t file_space = -1, mem_space = -1;
    H5_CHECK(H5Dset_extent(o->summary, &newsize));
    H5_CHECK(file_space = H5Dget_space(o->summary));
    H5_CHECK(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, NULL, &one, NULL));
    H5_CHECK(mem_space = H5Screate_simple(1, &one, NULL));
    H5_CHECK(H5Dwrite(o->summary, o->summary_type, mem_space, file_space, H5P_DEFAULT, &row));
    H5Sclose(mem_space);
    H5Sclose(file_space);
    o->rows++;
    return 0;
fail:
    if (mem_space >= 0) H5Sclose(mem_space);
    if (file_space >= 0) H5Sclose(file_space);
    return -1;
}

/* ---- file ---------------------------------------------------------------------------------- */

static int write_root(h5out *o, const tl_experiment *x, const env_info *v, const char *argv_text, tl_err *e)
{
    char now[32];
    tl_utc_stamp(now, 1);
    char *protocol = measure_protocol_text(&x->protocol);
    char tol[128];
    snprintf(tol, sizeof tol, "rtol=%.17g;atol=%.17g", x->tol.rtol, x->tol.atol);
    hid_t f = o->file;
    H5_CHECK(attr_str(f, "schema", H5OUT_SCHEMA));
    H5_CHECK(attr_str(f, "tilelab_version", TL_VERSION));
    H5_CHECK(attr_str(f, "git_commit", tl_build_git_commit));
    H5_CHECK(attr_i64(f, "git_dirty", tl_build_git_dirty));
    H5_CHECK(attr_str(f, "created_utc", now));
    H5_CHECK(attr_str(f, "host", v->host));
    H5_CHECK(attr_str(f, "argv", argv_text));
    H5_CHECK(attr_str(f, "experiment", x->name));
    H5_CHECK(attr_str(f, "description", x->description));
    H5_CHECK(attr_str(f, "config_path", x->path));
    H5_CHECK(attr_str(f, "config_yaml", x->yaml));
    H5_CHECK(attr_str(f, "config_sha256", x->sha256));
    H5_CHECK(attr_str(f, "op", x->op->name));
    H5_CHECK(attr_str(f, "reference", x->reference));
    H5_CHECK(attr_str(f, "tolerance", tol));
    H5_CHECK(attr_str(f, "tolerance_rule", x->op->tol_doc));
    H5_CHECK(attr_str(f, "protocol", protocol));
    H5_CHECK(attr_str(f, "verify", cfg_verify_names[x->verify]));
    H5_CHECK(attr_str(f, "data", reg_dist_names[x->dist]));
    free(protocol);
    return 0;
fail:
    free(protocol);
    return -1;
}

static int write_env(h5out *o, const env_info *v, tl_err *e)
{
    hid_t g = -1;
    H5_CHECK(g = H5Gcreate2(o->file, "/env", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5_CHECK(attr_str(g, "host", v->host));
    H5_CHECK(attr_str(g, "cpu", v->cpu));
    H5_CHECK(attr_i64(g, "cpus", v->cpus));
    H5_CHECK(attr_i64(g, "host_mem_bytes", (long long)v->host_mem_bytes));
    H5_CHECK(attr_str(g, "build_compiler", tl_build_compiler));
    H5_CHECK(attr_i64(g, "have_gpu", v->have_gpu));
    H5_CHECK(attr_str(g, "nvml", v->have_gpu ? v->nvml : "not used (host target)"));
    if (v->have_gpu) {
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", v->cc_major, v->cc_minor);
        H5_CHECK(attr_str(g, "device_name", v->gpu_name));
        H5_CHECK(attr_str(g, "pci_bus_id", v->pci_bus_id));
        H5_CHECK(attr_i64(g, "device_ordinal", v->device));
        H5_CHECK(attr_str(g, "compute_capability", cc));
        H5_CHECK(attr_i64(g, "sms", v->sms));
        H5_CHECK(attr_i64(g, "l2_bytes", v->l2_bytes));
        H5_CHECK(attr_i64(g, "smem_per_block_bytes", (long long)v->smem_per_block));
        H5_CHECK(attr_i64(g, "smem_per_block_optin_bytes", (long long)v->smem_per_block_optin));
        H5_CHECK(attr_i64(g, "smem_per_sm_bytes", (long long)v->smem_per_sm));
        H5_CHECK(attr_i64(g, "regs_per_sm", v->regs_per_sm));
        H5_CHECK(attr_i64(g, "sm_clock_khz", v->sm_clock_khz));
        H5_CHECK(attr_i64(g, "mem_clock_khz", v->mem_clock_khz));
        H5_CHECK(attr_i64(g, "mem_bus_bits", v->mem_bus_bits));
        H5_CHECK(attr_i64(g, "device_mem_bytes", (long long)v->total_mem));
        H5_CHECK(attr_i64(g, "driver_version", v->driver_version));
        H5_CHECK(attr_i64(g, "runtime_version", v->runtime_version));
        H5_CHECK(attr_i64(g, "cublas_version", v->cublas_version));
        H5_CHECK(attr_str(g, "nvrtc_version", v->nvrtc_version));
        H5_CHECK(attr_f64(g, "peak_fp32_gflops", v->peak_fp32_gflops));
        H5_CHECK(attr_f64(g, "peak_dram_gbs", v->peak_dram_gbs));
    }
    H5Gclose(g);
    return 0;
fail:
    if (g >= 0) H5Gclose(g);
    return -1;
}

int h5out_open(h5out *o, const char *path, const tl_experiment *x, const env_info *env, const char *argv_text,
               tl_err *e)
{
    hid_t cases = -1;
    memset(o, 0, sizeof *o);
    o->file = o->summary = o->summary_type = -1;
    o->path = tl_xstrdup(path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our own messages, not HDF5's stack dumps */
    o->file = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (o->file < 0) {
        tl_err_set(e, "%s: cannot create the result file (it exists, or the folder is missing or not writable)", path);
        goto fail;
    }
    if (write_root(o, x, env, argv_text, e) || write_env(o, env, e)) goto fail;
    H5_CHECK(cases = H5Gcreate2(o->file, "/cases", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(cases);
    if (summary_create(o, e)) goto fail;
    H5_CHECK(H5Fflush(o->file, H5F_SCOPE_GLOBAL));
    return 0;
fail:
    {
        /* Never leave a half-written file behind: it was created here, so it goes. */
        int created = o->file >= 0;
        tl_err ignored;
        h5out_close(o, &ignored);
        if (created) remove(path);
    }
    return -1;
}

static int write_dataset(h5out *o, hid_t g, const char *name, hid_t file_type, hid_t mem_type, const void *x,
                         hsize_t n, tl_err *e)
{
    hid_t space = -1, d = -1;
    H5_CHECK(space = H5Screate_simple(1, &n, NULL));
    H5_CHECK(d = H5Dcreate2(g, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (n) H5_CHECK(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, x));
    H5Dclose(d);
    H5Sclose(space);
    return 0;
fail:
    if (d >= 0) H5Dclose(d);
    if (space >= 0) H5Sclose(space);
    return -1;
}

static int write_case_attrs(h5out *o, hid_t g, const tl_result *r, tl_err *e)
{
    const tl_case *c = r->c;
    long long dims[REG_MAX_AXES];
    char tol[128], axes[64] = "";
    for (int a = 0; a < c->op->naxes; a++) {
        dims[a] = c->spec.dims[a];
        snprintf(axes + strlen(axes), sizeof axes - strlen(axes), "%s%s", a ? "," : "", c->op->axes[a]);
    }
    snprintf(tol, sizeof tol, "rtol=%.17g;atol=%.17g", r->tol.rtol, r->tol.atol);
    H5_CHECK(attr_str(g, "case_id", c->id));
    H5_CHECK(attr_str(g, "canonical", c->canonical));
    H5_CHECK(attr_str(g, "op", c->op->name));
    H5_CHECK(attr_str(g, "variant", c->variant->name));
    H5_CHECK(attr_str(g, "kind", reg_kind_name(c->variant->kind)));
    H5_CHECK(attr_str(g, "target", reg_target_name(c->variant->kind)));
    H5_CHECK(attr_str(g, "params", c->params_text));
    H5_CHECK(attr_str(g, "sizes", c->sizes_text));
    H5_CHECK(attr_str(g, "axes", axes));
    H5_CHECK(attr_i64_array(g, "dims", dims, (hsize_t)c->op->naxes));
    H5_CHECK(attr_str(g, "dtype", c->dtype));
    H5_CHECK(attr_str(g, "layouts", c->layout_text));
    H5_CHECK(attr_i64(g, "seed", (long long)c->spec.seed));
    H5_CHECK(attr_str(g, "status", r->status));
    H5_CHECK(attr_str(g, "reason", r->reason));
    H5_CHECK(attr_str(g, "reference", r->reference));
    H5_CHECK(attr_str(g, "tolerance", tol));
    H5_CHECK(attr_f64(g, "max_abs_err", r->max_abs_err));
    H5_CHECK(attr_f64(g, "max_rel_err", r->max_rel_err));
    H5_CHECK(attr_f64(g, "flop", r->flop));
    H5_CHECK(attr_f64(g, "bytes", r->bytes));
    H5_CHECK(attr_i64(g, "regs", r->regs));
    H5_CHECK(attr_i64(g, "smem_bytes", r->smem_bytes));
    H5_CHECK(attr_i64(g, "smem_static_bytes", r->smem_static_bytes));
    H5_CHECK(attr_i64(g, "smem_dynamic_bytes", r->smem_dynamic_bytes));
    H5_CHECK(attr_i64(g, "local_bytes", r->local_bytes));
    H5_CHECK(attr_str(g, "cubin_sha256", r->cubin_sha256));
    H5_CHECK(attr_str(g, "nvrtc_options", r->nvrtc_options));
    long long grid[3] = {r->grid[0], r->grid[1], r->grid[2]}, block[3] = {r->block[0], r->block[1], r->block[2]};
    H5_CHECK(attr_i64_array(g, "grid", grid, 3));
    H5_CHECK(attr_i64_array(g, "block", block, 3));
    H5_CHECK(attr_str(g, "protocol", r->protocol));
    H5_CHECK(attr_str(g, "stopped", r->samples.stopped));
    H5_CHECK(attr_str(g, "verify", r->verify));
    H5_CHECK(attr_str(g, "data", r->data));
    H5_CHECK(attr_i64(g, "warmup_runs", r->samples.warmup_runs));
    H5_CHECK(attr_i64(g, "throttled", r->samples.nthrottled));
    H5_CHECK(attr_f64(g, "timed_s", r->samples.timed_s));
    for (int a = 0; a < c->op->nargs; a++) H5_CHECK(attr_f64(g, c->op->args[a].name, c->spec.args[a]));
    return 0;
fail:
    return -1;
}

int h5out_write_case(h5out *o, const tl_result *r, tl_err *e)
{
    hid_t g = -1;
    char *name = tl_xasprintf("/cases/%s", r->c->id);
    H5_CHECK(g = H5Gcreate2(o->file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (write_case_attrs(o, g, r, e)) goto fail;
    const measure_samples *s = &r->samples;
    hsize_t n = (hsize_t)s->n;
    if (write_dataset(o, g, "time_ms", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->time_ms, n, e)) goto fail;
    if (s->sm_clock_mhz && (write_dataset(o, g, "sm_clock_mhz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->sm_clock_mhz, n, e) ||
                            write_dataset(o, g, "temp_c", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->temp_c, n, e) ||
                            write_dataset(o, g, "power_w", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->power_w, n, e) ||
                            write_dataset(o, g, "throttle_reasons", H5T_STD_U64LE, H5T_NATIVE_UINT64, s->throttle, n, e) ||
                            write_dataset(o, g, "throttled", H5T_STD_U8LE, H5T_NATIVE_UINT8, s->throttled, n, e)))
        goto fail;
    H5Gclose(g);
    g = -1;
    if (summary_append(o, r, e)) goto fail;
    H5_CHECK(H5Fflush(o->file, H5F_SCOPE_GLOBAL));
    free(name);
    return 0;
fail:
    if (g >= 0) H5Gclose(g);
    tl_err_wrap(e, "case %s", r->c->id);
    free(name);
    return -1;
}

int h5out_root_attr(h5out *o, const char *name, const char *value, tl_err *e)
{
    H5_CHECK(attr_str(o->file, name, value));
    return 0;
fail:
    return -1;
}

int h5out_finish(h5out *o, double wall_s, double timed_s, tl_err *e)
{
    H5_CHECK(attr_f64(o->file, "wall_s", wall_s));
    H5_CHECK(attr_f64(o->file, "timed_s", timed_s));
    H5_CHECK(H5Fflush(o->file, H5F_SCOPE_GLOBAL));
    return 0;
fail:
    return -1;
}

int h5out_close(h5out *o, tl_err *e)
{
    int rc = 0;
    if (o->summary >= 0 && H5Dclose(o->summary) < 0) rc = -1;
    if (o->summary_type >= 0 && H5Tclose(o->summary_type) < 0) rc = -1;
    if (o->file >= 0 && H5Fclose(o->file) < 0) rc = -1;
    if (rc) tl_err_set(e, "%s: closing the result file failed", o->path);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->file = o->summary = o->summary_type = -1;
    return rc;
}
