#include "runner/measure/counters.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime.h>
/* CUDA 13's cupti_profiler_host.h includes <string> though it declares only C: third_party/cupti_c
 * supplies an empty one, so that C code can use the header. */
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

/* ---- the sets ------------------------------------------------------------------------------- */

const counters_set_metric counters_sets[] = {
    {"memory", "dram__bytes_read.sum", "bytes read from DRAM (device memory) by the run"},
    {"memory", "dram__bytes_write.sum", "bytes written to DRAM by the run"},
    {"memory", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global load requests (one per warp instruction)"},
    {"memory", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "32-byte sectors those loads fetched"},
    {"memory", "sm__sass_data_bytes_mem_global_op_ld.sum",
     "bytes the global loads asked for: sector efficiency = this / (sectors x 32)"},
    {"memory", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global store requests"},
    {"memory", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "32-byte sectors those stores wrote"},
    {"memory", "sm__sass_data_bytes_mem_global_op_st.sum", "bytes the global stores asked for"},
    {"smem", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
     "shared-memory bank conflicts, all instructions (LDS, STS, LDSM, LDGSTS, ...)"},
    {"smem", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "bank conflicts of shared loads"},
    {"smem", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "bank conflicts of shared stores"},
    {"smem", "smsp__inst_executed_op_shared_ld.sum", "shared load warp instructions (LDS): the requests"},
    {"smem", "smsp__inst_executed_op_shared_st.sum", "shared store warp instructions (STS)"},
    {"smem", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
     "shared-memory wavefronts: one per request when conflict-free, more with conflicts"},
    {"occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active",
     "achieved occupancy: warps resident per active cycle, % of the SM's maximum"},
    {"occupancy", "sm__warps_active.avg.per_cycle_active", "warps resident per SM per active cycle"},
    {"occupancy", "smsp__warps_eligible.avg.per_cycle_active",
     "warps ready to issue per scheduler per cycle (under 1: latency is not hidden)"},
    {"occupancy", "smsp__issue_active.avg.pct_of_peak_sustained_active", "cycles a scheduler issued, %"},
    {"occupancy", "sm__cycles_active.avg", "cycles an SM had work, averaged over SMs"},
    {"roofline", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "FP32 fused multiply-adds (2 flop each)"},
    {"roofline", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "FP32 adds (1 flop)"},
    {"roofline", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "FP32 multiplies (1 flop)"},
    {"roofline", "dram__bytes_read.sum", "bytes read from DRAM"},
    {"roofline", "dram__bytes_write.sum", "bytes written to DRAM"},
    {"roofline", COUNTERS_DURATION, "the kernels' time under the profiler, ns (every collection has it)"},
};
const int counters_nsets = (int)(sizeof counters_sets / sizeof *counters_sets);

static int is_set(const char *name)
{
    for (int i = 0; i < counters_nsets; i++)
        if (!strcmp(counters_sets[i].set, name)) return 1;
    return 0;
}

int counters_name_ok(const char *name)
{
    size_t n = strlen(name);
    const char *sep = strstr(name, "__");
    if (n == 0 || n > 200 || !sep || sep == name || !islower((unsigned char)name[0])) return 0;
    for (const char *p = name; *p; p++) {
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_' || *p == '.')) return 0;
        if (*p == '.' && (p < sep || p[1] == '.' || p[1] == '\0')) return 0;
    }
    return sep[2] != '\0' && sep[2] != '.';
}

static void list_push(counters_list *l, const char *name, int line, int col)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name)) return;
    l->names = realloc(l->names, (size_t)(l->n + 1) * sizeof *l->names);
    l->line = realloc(l->line, (size_t)(l->n + 1) * sizeof *l->line);
    l->col = realloc(l->col, (size_t)(l->n + 1) * sizeof *l->col);
    if (!l->names || !l->line || !l->col) abort();
    l->names[l->n] = tl_xstrdup(name);
    l->line[l->n] = line;
    l->col[l->n] = col;
    l->n++;
}

int counters_list_add(counters_list *l, const char *item, int line, int col, tl_err *e)
{
    if (is_set(item)) {
        for (int i = 0; i < counters_nsets; i++)
            if (!strcmp(counters_sets[i].set, item)) list_push(l, counters_sets[i].metric, line, col);
    } else if (counters_name_ok(item)) {
        list_push(l, item, line, col);
    } else {
        tl_err_set(e, "'%s' is neither a set (memory, smem, occupancy, roofline) nor a metric name like "
                      "dram__bytes_read.sum (unit__counter.rollup, lower case)", item);
        return -1;
    }
    if (l->n > COUNTERS_MAX) {
        tl_err_set(e, "more than %d metrics", COUNTERS_MAX);
        return -1;
    }
    char *t = tl_xasprintf("%s%s%s", l->text ? l->text : "", l->text && *l->text ? ", " : "", item);
    free(l->text);
    l->text = t;
    return 0;
}

void counters_list_copy(counters_list *dst, const counters_list *src)
{
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < src->n; i++) list_push(dst, src->names[i], src->line[i], src->col[i]);
    dst->text = src->text ? tl_xstrdup(src->text) : NULL;
}

void counters_list_free(counters_list *l)
{
    for (int i = 0; i < l->n; i++) free(l->names[i]);
    free(l->names);
    free(l->line);
    free(l->col);
    free(l->text);
    memset(l, 0, sizeof *l);
}

counters_combine counters_combine_of(const char *name)
{
    const char *dot = strchr(name, '.');
    if (!dot) return COUNTERS_WEIGHTED;
    if (!strcmp(dot, ".sum")) return COUNTERS_SUM;
    if (!strcmp(dot, ".max")) return COUNTERS_MAX_OF;
    if (!strcmp(dot, ".min")) return COUNTERS_MIN_OF;
    return COUNTERS_WEIGHTED;
}

double counters_combine_values(counters_combine how, const double *values, size_t stride, const double *weights, int nkernels)
{
    if (nkernels <= 0) return NAN;
    double acc = how == COUNTERS_SUM || how == COUNTERS_WEIGHTED ? 0 : values[0], wsum = 0;
    for (int k = 0; k < nkernels; k++) {
        double v = values[(size_t)k * stride];
        if (how == COUNTERS_SUM) acc += v;
        else if (how == COUNTERS_MAX_OF) acc = v > acc ? v : acc;
        else if (how == COUNTERS_MIN_OF) acc = v < acc ? v : acc;
        else acc += v * weights[k], wsum += weights[k];
    }
    if (how != COUNTERS_WEIGHTED) return acc;
    if (wsum > 0) return acc / wsum;
    /* No durations (cannot happen with COUNTERS_DURATION collected): the plain mean. */
    acc = 0;
    for (int k = 0; k < nkernels; k++) acc += values[(size_t)k * stride];
    return acc / nkernels;
}

void counters_result_free(counters_result *r)
{
    free(r->reason);
    for (int i = 0; i < r->n; i++) free(r->names[i]), free(r->units[i]);
    free(r->names);
    free(r->units);
    free(r->values);
    memset(r, 0, sizeof *r);
}

void counters_result_unavailable(counters_result *r, const char *status, const char *why)
{
    counters_result_free(r);
    r->status = status;
    r->reason = tl_xstrdup(why);
}

/* A CUPTI parameter block: zeroed, with its size (the API's version check). */
#define PARAMS(type, var)                                                                                              \
    type var;                                                                                                          \
    memset(&var, 0, sizeof var);                                                                                       \
    var.structSize = type##_STRUCT_SIZE

/* ---- CUPTI, loaded at run time ----------------------------------------------------------------- */

#define CUPTI_FUNCS(X)                                                                                                 \
    X(cuptiGetResultString)                                                                                            \
    X(cuptiProfilerInitialize)                                                                                         \
    X(cuptiProfilerDeInitialize)                                                                                       \
    X(cuptiDeviceGetChipName)                                                                                          \
    X(cuptiProfilerGetCounterAvailability)                                                                             \
    X(cuptiProfilerHostInitialize)                                                                                     \
    X(cuptiProfilerHostGetSupportedChips)                                                                              \
    X(cuptiProfilerHostDeinitialize)                                                                                   \
    X(cuptiProfilerHostGetBaseMetrics)                                                                                 \
    X(cuptiProfilerHostGetSubMetrics)                                                                                  \
    X(cuptiProfilerHostGetMetricProperties)                                                                            \
    X(cuptiProfilerHostConfigAddMetrics)                                                                               \
    X(cuptiProfilerHostGetConfigImageSize)                                                                             \
    X(cuptiProfilerHostGetConfigImage)                                                                                 \
    X(cuptiProfilerHostGetNumOfPasses)                                                                                 \
    X(cuptiProfilerHostEvaluateToGpuValues)                                                                            \
    X(cuptiRangeProfilerEnable)                                                                                        \
    X(cuptiRangeProfilerDisable)                                                                                       \
    X(cuptiRangeProfilerSetConfig)                                                                                     \
    X(cuptiRangeProfilerStart)                                                                                         \
    X(cuptiRangeProfilerStop)                                                                                          \
    X(cuptiRangeProfilerDecodeData)                                                                                    \
    X(cuptiRangeProfilerGetCounterDataSize)                                                                            \
    X(cuptiRangeProfilerCounterDataImageInitialize)                                                                    \
    X(cuptiRangeProfilerGetCounterDataInfo)

struct counters_session {
    void *lib;
    char *lib_path;
    char why[512];      /* why the session cannot collect; "" when it can */
    const char *why_status; /* the cases' status then: cupti_missing, not_permitted, unavailable */
    int device;         /* CUDA ordinal, -1: host side only */
    char chip[64];
    int profiler_up;    /* cuptiProfilerInitialize done */
    int denied;         /* profiling was refused once: the rest is not tried */
    unsigned char *avail;   /* counter availability image of the device */
    CUresult (*ctx_current)(CUcontext *);
#define X(f) __typeof__(f) *f;
    CUPTI_FUNCS(X)
#undef X
};

static const char *cupti_msg(counters_session *s, CUptiResult rc)
{
    const char *m = NULL;
    if (s->cuptiGetResultString && s->cuptiGetResultString(rc, &m) == CUPTI_SUCCESS && m) return m;
    return "unknown CUPTI error";
}

#define CUPTI_TRY(call)                                                                                                \
    do {                                                                                                               \
        CUptiResult rc_ = (call);                                                                                      \
        if (rc_ != CUPTI_SUCCESS) {                                                                                    \
            last = rc_;                                                                                                \
            tl_err_set(e, "%s: %s (CUPTI error %d)", strstr(#call, "cupti"), cupti_msg(s, rc_), (int)rc_);                               \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

static CUpti_Profiler_Host_Object *host_open(counters_session *s, const unsigned char *avail, tl_err *e);
static void host_close(counters_session *s, CUpti_Profiler_Host_Object *h);

static void *open_lib(char **path)
{
    const char *env = getenv("TILELAB_CUPTI");
    const char *home = getenv("CUDA_HOME");
    char buf[4096];
    const char *tries[8] = {"libcupti.so.13", "libcupti.so"};
    int n = 2;
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h) *path = tl_xstrdup(env);
        return h; /* named explicitly: nothing else is tried */
    }
    static const char *const dirs[] = {"extras/CUPTI/lib64", "lib64", "lib"};
    static char alt[8][4096];
    for (int base = 0; base < 2; base++) {
        const char *root = base ? "/usr/local/cuda" : home;
        if (!root || !*root) continue;
        for (int d = 0; d < 3 && n < 8; d++) { /* 2 names + 2 roots x 3 folders */
            snprintf(alt[n], sizeof alt[n], "%s/%s/libcupti.so", root, dirs[d]);
            tries[n] = alt[n];
            n++;
        }
    }
    for (int i = 0; i < n; i++) {
        void *h = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        if (dlinfo(h, RTLD_DI_ORIGIN, buf) == 0) *path = tl_xasprintf("%s/%s", buf, strrchr(tries[i], '/') ?
                                                                                     strrchr(tries[i], '/') + 1 : tries[i]);
        else *path = tl_xstrdup(tries[i]);
        return h;
    }
    return NULL;
}

static int load_funcs(counters_session *s)
{
#define X(f)                                                                                                           \
    *(void **)&s->f = dlsym(s->lib, #f);                                                                               \
    if (!s->f) {                                                                                                       \
        snprintf(s->why, sizeof s->why, "%s has no %s (CUDA 13's range profiler)", s->lib_path, #f);                  \
        s->why_status = "cupti_missing";                                                                               \
        return -1;                                                                                                     \
    }
    CUPTI_FUNCS(X)
#undef X
    return 0;
}

static int init_device(counters_session *s)
{
    tl_err err, *e = &err;
    CUptiResult last = CUPTI_SUCCESS;
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&s->ctx_current, 12000, cudaEnableDefault, &q) !=
            cudaSuccess || q != cudaDriverEntryPointSuccess) {
        cudaGetLastError();
        snprintf(s->why, sizeof s->why, "the driver has no cuCtxGetCurrent");
        s->why_status = "unavailable";
        return -1;
    }
    PARAMS(CUpti_Profiler_Initialize_Params, ip);
    CUPTI_TRY(s->cuptiProfilerInitialize(&ip));
    s->profiler_up = 1;
    PARAMS(CUpti_Device_GetChipName_Params, cn);
    cn.deviceIndex = (size_t)s->device;
    CUPTI_TRY(s->cuptiDeviceGetChipName(&cn));
    snprintf(s->chip, sizeof s->chip, "%s", cn.pChipName);
    return 0;
fail:
    snprintf(s->why, sizeof s->why, "%s", e->msg);
    s->why_status = last == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "not_permitted" : "unavailable";
    return -1;
}

counters_session *counters_open(int device, const char *chip)
{
    counters_session *s = tl_xcalloc(1, sizeof *s);
    s->device = device;
    if (!(s->lib = open_lib(&s->lib_path))) {
        snprintf(s->why, sizeof s->why, "no libcupti.so found (set TILELAB_CUPTI to its path; it ships with the CUDA "
                                        "toolkit, in lib64 or extras/CUPTI/lib64)");
        s->why_status = "cupti_missing";
        return s;
    }
    if (load_funcs(s)) return s;
    if (device >= 0) {
        init_device(s);
        return s;
    }
    snprintf(s->chip, sizeof s->chip, "%s", chip ? chip : "");
    tl_err e;
    CUpti_Profiler_Host_Object *h = host_open(s, NULL, &e);
    if (!h) {
        char chips[400] = "";
        PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params, sc);
        if (s->cuptiProfilerHostGetSupportedChips(&sc) == CUPTI_SUCCESS)
            for (size_t i = 0; i < sc.numChips; i++)
                snprintf(chips + strlen(chips), sizeof chips - strlen(chips), "%s%s", i ? " " : "", sc.ppChipNames[i]);
        snprintf(s->why, sizeof s->why, "not a chip this CUPTI knows (it knows: %s)", chips);
        s->why_status = "unavailable";
    }
    host_close(s, h);
    return s;
}

void counters_close(counters_session *s)
{
    if (!s) return;
    if (s->profiler_up) {
        PARAMS(CUpti_Profiler_DeInitialize_Params, p);
        s->cuptiProfilerDeInitialize(&p);
    }
    free(s->avail);
    free(s->lib_path);
    /* libcupti stays loaded: it registers callbacks with the driver that outlive a dlclose. */
    free(s);
}

const char *counters_session_why(const counters_session *s)
{
    return s->why[0] ? s->why : NULL;
}

const char *counters_chip(const counters_session *s)
{
    return s->chip[0] ? s->chip : NULL;
}

const char *counters_library(const counters_session *s)
{
    return s->lib_path;
}

/* ---- metric names ------------------------------------------------------------------------------ */

static CUpti_Profiler_Host_Object *host_open(counters_session *s, const unsigned char *avail, tl_err *e)
{
    CUptiResult last = CUPTI_SUCCESS;
    PARAMS(CUpti_Profiler_Host_Initialize_Params, hi);
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = s->chip;
    hi.pCounterAvailabilityImage = avail;
    CUPTI_TRY(s->cuptiProfilerHostInitialize(&hi));
    return hi.pHostObject;
fail:
    (void)last;
    return NULL;
}

static void host_close(counters_session *s, CUpti_Profiler_Host_Object *h)
{
    if (!h) return;
    PARAMS(CUpti_Profiler_Host_Deinitialize_Params, p);
    p.pHostObject = h;
    s->cuptiProfilerHostDeinitialize(&p);
}

/* Levenshtein distance, capped: near names are a few edits away. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 255 || lb > 255) return 1000;
    int row[256];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* Up to three known names nearest to name (its base against the chip's base metrics; a bad rollup
 * against the base's own). */
static void near_names(counters_session *s, CUpti_Profiler_Host_Object *h, const char *name, char *out, size_t cap)
{
    char base[256];
    snprintf(base, sizeof base, "%s", name);
    char *dot = strchr(base, '.');
    const char *rollup = dot ? name + (dot - base) : "";
    if (dot) *dot = '\0';
    const char *best[3] = {0};
    int bestd[3] = {1 << 30, 1 << 30, 1 << 30}, known_base = 0;
    for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT && !known_base; t++) {
        PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, bm);
        bm.pHostObject = h;
        bm.metricType = (CUpti_MetricType)t;
        if (s->cuptiProfilerHostGetBaseMetrics(&bm) != CUPTI_SUCCESS) continue;
        for (size_t i = 0; i < bm.numMetrics; i++) {
            const char *m = bm.ppMetricNames[i];
            if (strchr(m, '.')) continue; /* the triage aliases ("CTC.TriageCompute.ctc__...") */
            if (!strcmp(m, base)) {
                /* The base is right, the rollup is not: offer the base's submetrics. */
                known_base = 1;
                PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params, sm);
                sm.pHostObject = h;
                sm.metricType = (CUpti_MetricType)t;
                sm.pMetricName = m;
                out[0] = '\0';
                if (s->cuptiProfilerHostGetSubMetrics(&sm) != CUPTI_SUCCESS) return;
                best[0] = best[1] = best[2] = NULL;
                bestd[0] = bestd[1] = bestd[2] = 1 << 30;
                for (size_t j = 0; j < sm.numOfSubmetrics; j++) {
                    int d = distance(rollup, sm.ppSubMetrics[j]);
                    for (int k = 0; k < 3; k++)
                        if (d < bestd[k]) {
                            for (int q = 2; q > k; q--) best[q] = best[q - 1], bestd[q] = bestd[q - 1];
                            best[k] = sm.ppSubMetrics[j], bestd[k] = d;
                            break;
                        }
                }
                for (int k = 0; k < 3 && best[k]; k++)
                    snprintf(out + strlen(out), cap - strlen(out), "%s%s%s", k ? ", " : "", base, best[k]);
                return;
            }
            int d = distance(base, m);
            for (int k = 0; k < 3; k++)
                if (d < bestd[k]) {
                    for (int q = 2; q > k; q--) best[q] = best[q - 1], bestd[q] = bestd[q - 1];
                    best[k] = m, bestd[k] = d;
                    break;
                }
        }
        /* Names are valid until the host object goes: copy now. */
        out[0] = '\0';
        for (int k = 0; k < 3 && best[k]; k++)
            snprintf(out + strlen(out), cap - strlen(out), "%s%s%s", k ? ", " : "", best[k], rollup);
    }
}

static int known(counters_session *s, CUpti_Profiler_Host_Object *h, const char *name, const char **unit)
{
    PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, mp);
    mp.pHostObject = h;
    mp.pMetricName = name;
    if (s->cuptiProfilerHostGetMetricProperties(&mp) != CUPTI_SUCCESS) return 0;
    if (unit) *unit = mp.pDimUnit;
    return 1;
}

int counters_check(counters_session *s, const counters_list *l, const char *path, tl_err *e)
{
    if (!l->n || !s->lib || !s->cuptiProfilerHostInitialize || !s->chip[0]) return 0;
    CUpti_Profiler_Host_Object *h = host_open(s, NULL, e);
    if (!h) return 0; /* no list to check against: each case says why */
    for (int i = 0; i < l->n; i++) {
        if (known(s, h, l->names[i], NULL)) continue;
        char near[1024] = "";
        near_names(s, h, l->names[i], near, sizeof near);
        tl_err_set(e, "%s:%d:%d: counters: '%s' is not a metric of %s%s%s%s", path, l->line[i], l->col[i], l->names[i],
                   s->chip,
                   near[0] ? " (near names: " : "", near, near[0] ? ")" : "");
        host_close(s, h);
        return -1;
    }
    host_close(s, h);
    return 0;
}

/* ---- collection -------------------------------------------------------------------------------- */

static int availability(counters_session *s, CUcontext ctx, tl_err *e)
{
    CUptiResult last = CUPTI_SUCCESS;
    if (s->avail) return 0;
    PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ca);
    ca.ctx = ctx;
    CUPTI_TRY(s->cuptiProfilerGetCounterAvailability(&ca));
    s->avail = tl_xmalloc(ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = s->avail;
    CUPTI_TRY(s->cuptiProfilerGetCounterAvailability(&ca));
    return 0;
fail:
    free(s->avail);
    s->avail = NULL;
    if (last == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) s->denied = 1;
    return -1;
}

static void refuse(counters_session *s, counters_result *r, CUptiResult last, const char *msg)
{
    if (last == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
        s->denied = 1;
        counters_result_unavailable(r, "not_permitted",
                               "profiling is not permitted for this user (the driver's RmProfilingAdminOnly; run as "
                               "root or set NVreg_RestrictProfilingToAdminUsers=0)");
    } else {
        counters_result_unavailable(r, last == CUPTI_ERROR_NOT_SUPPORTED ? "unsupported" : "error", msg);
    }
}

/* The names a collection asks CUPTI for: the list's, then the duration that weighs kernels. */
static const char **ask_names(const counters_list *l, int *n)
{
    const char **names = tl_xcalloc((size_t)l->n + 1, sizeof *names);
    int have = 0;
    for (int i = 0; i < l->n; i++) {
        names[i] = l->names[i];
        have |= !strcmp(l->names[i], COUNTERS_DURATION);
    }
    *n = l->n + !have;
    if (!have) names[l->n] = COUNTERS_DURATION;
    return names;
}

static int evaluate(counters_session *s, CUpti_Profiler_Host_Object *h, const unsigned char *data, size_t size,
                    const char **names, int n, counters_result *r, tl_err *e)
{
    CUptiResult last = CUPTI_SUCCESS;
    double *per = NULL;
    PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, di);
    di.pCounterDataImage = data;
    di.counterDataImageSize = size;
    CUPTI_TRY(s->cuptiRangeProfilerGetCounterDataInfo(&di));
    int nk = (int)di.numTotalRanges;
    r->kernels = nk;
    if (nk == 0) return 0; /* the caller says so */
    per = tl_xcalloc((size_t)nk * (size_t)n, sizeof *per);
    for (int k = 0; k < nk; k++) {
        PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
        ev.pHostObject = h;
        ev.pCounterDataImage = data;
        ev.counterDataImageSize = size;
        ev.rangeIndex = (size_t)k;
        ev.ppMetricNames = names;
        ev.numMetrics = (size_t)n;
        ev.pMetricValues = per + (size_t)k * (size_t)n;
        CUPTI_TRY(s->cuptiProfilerHostEvaluateToGpuValues(&ev));
    }
    double *w = tl_xcalloc((size_t)nk, sizeof *w);
    for (int k = 0; k < nk; k++) w[k] = per[(size_t)k * (size_t)n + (size_t)(n - 1)];
    /* The duration is the last name unless the list has it: find it. */
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], COUNTERS_DURATION))
            for (int k = 0; k < nk; k++) w[k] = per[(size_t)k * (size_t)n + (size_t)i];
    r->n = n;
    r->names = tl_xcalloc((size_t)n, sizeof *r->names);
    r->units = tl_xcalloc((size_t)n, sizeof *r->units);
    r->values = tl_xcalloc((size_t)n, sizeof *r->values);
    for (int i = 0; i < n; i++) {
        const char *unit = "";
        known(s, h, names[i], &unit);
        r->names[i] = tl_xstrdup(names[i]);
        r->units[i] = tl_xstrdup(unit ? unit : "");
        r->values[i] = counters_combine_values(counters_combine_of(names[i]), per + i, (size_t)n, w, nk);
    }
    free(w);
    free(per);
    return 0;
fail:
    (void)last;
    free(per);
    return -1;
}

typedef struct {
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *rp;
    unsigned char *config;
    unsigned char *data;
    size_t data_size;
    int enabled;
} collection;

static void collection_end(counters_session *s, collection *c)
{
    if (c->enabled) {
        PARAMS(CUpti_RangeProfiler_Disable_Params, d);
        d.pRangeProfilerObject = c->rp;
        s->cuptiRangeProfilerDisable(&d);
    }
    host_close(s, c->host);
    free(c->config);
    free(c->data);
}

/* Host object and config image for names; the range profiler enabled on ctx with a counter-data image
 * of `ranges` ranges (one per kernel of the run). */
static int collection_begin(counters_session *s, CUcontext ctx, const char **names, int n, int ranges, collection *c,
                            CUptiResult *lastp, tl_err *e)
{
    CUptiResult last = CUPTI_SUCCESS;
    if (!(c->host = host_open(s, s->avail, e))) goto fail;
    PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, am);
    am.pHostObject = c->host;
    am.ppMetricNames = names;
    am.numMetrics = (size_t)n;
    CUPTI_TRY(s->cuptiProfilerHostConfigAddMetrics(&am));
    PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, cs);
    cs.pHostObject = c->host;
    CUPTI_TRY(s->cuptiProfilerHostGetConfigImageSize(&cs));
    c->config = tl_xmalloc(cs.configImageSize);
    PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, ci);
    ci.pHostObject = c->host;
    ci.configImageSize = cs.configImageSize;
    ci.pConfigImage = c->config;
    CUPTI_TRY(s->cuptiProfilerHostGetConfigImage(&ci));

    PARAMS(CUpti_RangeProfiler_Enable_Params, en);
    en.ctx = ctx;
    CUPTI_TRY(s->cuptiRangeProfilerEnable(&en));
    c->rp = en.pRangeProfilerObject;
    c->enabled = 1;
    PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, ds);
    ds.pRangeProfilerObject = c->rp;
    ds.pMetricNames = names;
    ds.numMetrics = (size_t)n;
    ds.maxNumOfRanges = (size_t)ranges;
    ds.maxNumRangeTreeNodes = (size_t)ranges;
    CUPTI_TRY(s->cuptiRangeProfilerGetCounterDataSize(&ds));
    c->data_size = ds.counterDataSize;
    c->data = tl_xmalloc(c->data_size);
    PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, di);
    di.pRangeProfilerObject = c->rp;
    di.counterDataSize = c->data_size;
    di.pCounterData = c->data;
    CUPTI_TRY(s->cuptiRangeProfilerCounterDataImageInitialize(&di));
    /* One range per kernel (auto range), replayed by the runner (user replay): a pass runs the whole
     * run as the timed loop does, outputs reset and L2 flushed before it, outside the range. */
    PARAMS(CUpti_RangeProfiler_SetConfig_Params, sc);
    sc.pRangeProfilerObject = c->rp;
    sc.configSize = cs.configImageSize;
    sc.pConfig = c->config;
    sc.counterDataImageSize = c->data_size;
    sc.pCounterDataImage = c->data;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_UserReplay;
    sc.maxRangesPerPass = (size_t)ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CUPTI_TRY(s->cuptiRangeProfilerSetConfig(&sc));
    return 0;
fail:
    *lastp = last;
    return -1;
}

/* One collection of names over the run, with room for `ranges` kernels: r's status, -1 only when the
 * run failed. */
static int collect_once(counters_session *s, CUcontext cu, const char **names, int n, int ranges, counters_step prepare,
                        counters_step run, void *ctx, counters_result *r, tl_err *e)
{
    CUptiResult last = CUPTI_SUCCESS;
    collection c = {0};
    tl_err why;
    int run_failed = 0;
    if (collection_begin(s, cu, names, n, ranges, &c, &last, &why)) {
        refuse(s, r, last, why.msg);
        goto out;
    }
    int done = 0;
    for (r->passes = 0; !done && r->passes < COUNTERS_MAX_PASSES; r->passes++) {
        if (prepare(ctx, e)) goto run_fail;
        PARAMS(CUpti_RangeProfiler_Start_Params, st);
        st.pRangeProfilerObject = c.rp;
        if ((last = s->cuptiRangeProfilerStart(&st)) != CUPTI_SUCCESS) {
            char m[256];
            snprintf(m, sizeof m, "cuptiRangeProfilerStart: %s", cupti_msg(s, last));
            refuse(s, r, last, m);
            goto out;
        }
        int rc = run(ctx, e);
        PARAMS(CUpti_RangeProfiler_Stop_Params, sp);
        sp.pRangeProfilerObject = c.rp;
        CUptiResult stop = s->cuptiRangeProfilerStop(&sp);
        if (rc) goto run_fail;
        if (stop != CUPTI_SUCCESS) {
            refuse(s, r, stop, cupti_msg(s, stop));
            goto out;
        }
        done = sp.isAllPassSubmitted;
    }
    if (!done) {
        counters_result_unavailable(r, "error", "the metrics need more than 64 replays of the run");
        goto out;
    }
    PARAMS(CUpti_RangeProfiler_DecodeData_Params, dd);
    dd.pRangeProfilerObject = c.rp;
    if ((last = s->cuptiRangeProfilerDecodeData(&dd)) != CUPTI_SUCCESS) {
        refuse(s, r, last, cupti_msg(s, last));
        goto out;
    }
    if (dd.numOfRangeDropped) {
        char *m = tl_xasprintf("the run launched more than %d kernels: %zu were not profiled", ranges,
                               dd.numOfRangeDropped);
        counters_result_unavailable(r, "error", m);
        free(m);
        goto out;
    }
    long passes = r->passes;
    if (evaluate(s, c.host, c.data, c.data_size, names, n, r, &why)) {
        counters_result_unavailable(r, "error", why.msg);
        goto out;
    }
    if (r->kernels == 0) {
        counters_result_unavailable(r, "no_kernels", "the run launched no kernel (a copy engine transfer such as "
                                                "cudaMemcpy has no SM or L1 counters)");
        goto out;
    }
    r->passes = passes;
    r->status = "ok";
    goto out;
run_fail:
    run_failed = 1;
out:
    collection_end(s, &c);
    return run_failed ? -1 : 0;
}

int counters_collect(counters_session *s, const counters_list *l, int kernels, counters_step prepare, counters_step run, void *ctx,
                counters_result *r, tl_err *e)
{
    tl_err why;
    counters_result_free(r);
    if (s->why[0]) {
        counters_result_unavailable(r, s->why_status, s->why);
        return 0;
    }
    if (s->denied) {
        refuse(s, r, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "");
        return 0;
    }
    CUcontext cu = NULL;
    if (s->ctx_current(&cu) != CUDA_SUCCESS || !cu) {
        counters_result_unavailable(r, "error", "no current CUDA context");
        return 0;
    }
    if (availability(s, cu, &why)) {
        refuse(s, r, s->denied ? CUPTI_ERROR_INSUFFICIENT_PRIVILEGES : CUPTI_ERROR_UNKNOWN, why.msg);
        return 0;
    }
    /* The range profiler's device-side room for ranges is written at every pass and dirties the L2,
     * whose lines the measured kernel then writes back to DRAM: on the H100, room for 256 kernels put
     * about 2 MB into dram__bytes_write.sum that Nsight Compute does not see, room for 1 about 0.5 MB.
     * So the room is exactly the run's kernels: counted first, in a pass of one metric, when the
     * caller cannot say. */
    if (kernels <= 0) {
        const char *duration[] = {COUNTERS_DURATION};
        if (collect_once(s, cu, duration, 1, COUNTERS_MAX_KERNELS, prepare, run, ctx, r, e)) return -1;
        if (strcmp(r->status, "ok")) return 0;
        kernels = (int)r->kernels;
        counters_result_free(r);
    }
    int n;
    const char **names = ask_names(l, &n);
    int rc = collect_once(s, cu, names, n, kernels, prepare, run, ctx, r, e);
    free(names);
    return rc;
}
