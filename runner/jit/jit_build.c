#include "runner/jit/jit_build.h"

#include <nvJitLink.h>
#include <nvrtc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/registry.h"
#include "runner/util/cuda_check.h"

#define NVJITLINK_CHECK(call)                                                                        \
    do {                                                                                             \
        nvJitLinkResult r_ = (call);                                                                 \
        if (r_ != NVJITLINK_SUCCESS) {                                                               \
            link_error(h, r_, #call, e);                                                             \
            goto fail;                                                                               \
        }                                                                                            \
    } while (0)

static void link_error(nvJitLinkHandle h, nvJitLinkResult r, const char *call, tl_err *e)
{
    size_t n = 0;
    char *log = NULL;
    if (h && nvJitLinkGetErrorLogSize(h, &n) == NVJITLINK_SUCCESS && n > 1) {
        log = tl_xmalloc(n);
        if (nvJitLinkGetErrorLog(h, log) != NVJITLINK_SUCCESS) log[0] = 0;
    }
    tl_err_set(e, "nvJitLink: %s failed (%d)%s%s", call, (int)r, log && *log ? ":\n" : "", log ? log : "");
    free(log);
}

/* NVRTC's LTO IR of a CuTe kernel linked into a cubin that keeps the entries and the globals the
 * runner binds, and drops the rest (build_options says why). */
static int link_lto(const jit_build_job *j, const char *ir, size_t len, jit_cubin *out, tl_err *e)
{
    nvJitLinkHandle h = NULL;
    char *lopts[8 + REG_MAX_KERNELS];
    int n = 0;
    lopts[n++] = tl_xasprintf("-arch=sm_%d%s", j->arch, j->arch_specific ? "a" : "");
    lopts[n++] = tl_xstrdup("-lto");
    lopts[n++] = tl_xasprintf("-kernels-used=%s", j->entry);
    for (const char *a = j->also; a && *a && n < 3 + REG_MAX_KERNELS;) {
        size_t len = strcspn(a, ",");
        lopts[n++] = tl_xasprintf("-kernels-used=%.*s", (int)len, a);
        a += len + (a[len] == ',');
    }
    lopts[n++] = tl_xstrdup("-variables-used=" REG_WORKSPACE_SYMBOL);
    lopts[n++] = tl_xstrdup("-variables-used=" REG_TMA_REQUESTS_SYMBOL);
    lopts[n++] = tl_xstrdup("-variables-used=" REG_TMA_MAPS_SYMBOL);
    int rc = -1;
    NVJITLINK_CHECK(nvJitLinkCreate(&h, (uint32_t)n, (const char **)lopts));
    NVJITLINK_CHECK(nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir, len, "kernel.ltoir"));
    NVJITLINK_CHECK(nvJitLinkComplete(h));
    NVJITLINK_CHECK(nvJitLinkGetLinkedCubinSize(h, &out->cubin_len));
    out->cubin = tl_xmalloc(out->cubin_len);
    NVJITLINK_CHECK(nvJitLinkGetLinkedCubin(h, out->cubin));
    rc = 0;
fail:
    if (h) nvJitLinkDestroy(&h);
    for (int i = 0; i < n; i++) free(lopts[i]);
    return rc;
}

int jit_build_run(const jit_build_job *j, jit_cubin *out, tl_err *e)
{
    nvrtcProgram prog = NULL;
    size_t loglen = 0;
    NVRTC_CHECK(nvrtcCreateProgram(&prog, j->wrapper, JIT_CHECK_FILE ".cu", j->nh, j->texts, j->names));
    nvrtcResult rc = nvrtcCompileProgram(prog, j->nopts, (const char *const *)j->opts);
    NVRTC_CHECK(nvrtcGetProgramLogSize(prog, &loglen));
    if (loglen > 1) {
        out->log = tl_xmalloc(loglen);
        NVRTC_CHECK(nvrtcGetProgramLog(prog, out->log));
    }
    if (rc != NVRTC_SUCCESS) {
        nvrtcDestroyProgram(&prog);
        return (int)rc;
    }
    int lto = 0;
    for (int i = 0; i < j->nopts; i++) lto |= !strcmp(j->opts[i], "-dlto");
    if (lto) {
        size_t len = 0;
        NVRTC_CHECK(nvrtcGetLTOIRSize(prog, &len));
        char *ir = tl_xmalloc(len);
        nvrtcResult got = nvrtcGetLTOIR(prog, ir);
        if (got != NVRTC_SUCCESS) tl_err_set(e, "NVRTC: nvrtcGetLTOIR: %s", nvrtcGetErrorString(got));
        int bad = got != NVRTC_SUCCESS || link_lto(j, ir, len, out, e);
        free(ir);
        if (bad) goto fail;
    } else if (!j->front_end_only) {
        NVRTC_CHECK(nvrtcGetCUBINSize(prog, &out->cubin_len));
        out->cubin = tl_xmalloc(out->cubin_len);
        NVRTC_CHECK(nvrtcGetCUBIN(prog, out->cubin));
    }
    nvrtcDestroyProgram(&prog);
    return 0;
fail:
    if (prog) nvrtcDestroyProgram(&prog);
    return -1;
}

void jit_cubin_free(jit_cubin *c)
{
    free(c->options);
    free(c->cubin);
    free(c->log);
    memset(c, 0, sizeof *c);
}
