#include "runner/jit.h"

#include <ctype.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runner/cuda_check.h"

#define JIT_MAX_OPTS (REG_MAX_PARAMS + REG_MAX_OPERANDS + 4)

char *jit_cache_dir(void)
{
    const char *d = getenv("TILELAB_CACHE_DIR");
    if (d && *d) return tl_xstrdup(d);
    d = getenv("XDG_CACHE_HOME");
    if (d && *d) return tl_xasprintf("%s/tilelab/cubin", d);
    d = getenv("HOME");
    if (d && *d) return tl_xasprintf("%s/.cache/tilelab/cubin", d);
    return NULL;
}

void jit_nvrtc_version(char out[16])
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) major = minor = -1;
    snprintf(out, 16, "%d.%d", major, minor);
}

/* Headers every kernel may include by name: the embedded .cuh files of its op's folder. */
static int collect_headers(const reg_variant *v, const char **names, const char **texts, int max)
{
    const char *slash = strrchr(v->source, '/');
    size_t dirlen = slash ? (size_t)(slash - v->source + 1) : 0;
    int n = 0;
    for (int i = 0; i < reg_nsources && n < max; i++) {
        const char *p = reg_sources[i].path;
        size_t len = strlen(p);
        if (len < 4 || strcmp(p + len - 4, ".cuh") || strncmp(p, v->source, dirlen) || strchr(p + dirlen, '/'))
            continue;
        names[n] = p + dirlen;
        texts[n] = reg_sources[i].text;
        n++;
    }
    return n;
}

static void upper(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++) dst[i] = (char)toupper((unsigned char)src[i]);
    dst[i] = '\0';
}

/* Options in a fixed order, so that the cache key and the stored text are stable. */
static int build_options(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s, int arch,
                         char **opts)
{
    int n = 0;
    opts[n++] = tl_xasprintf("--gpu-architecture=sm_%d", arch);
    opts[n++] = tl_xstrdup("-std=c++17");
    for (int k = 0; k < v->nparams; k++) opts[n++] = tl_xasprintf("-D%s=%ld", v->params[k].name, params[k]);
    for (int o = 0; o < op->noperands; o++) {
        char name[16];
        upper(name, op->operands[o], sizeof name);
        opts[n++] = tl_xasprintf("-D%s_COL=%d", name, s->layouts[o] == REG_COL);
    }
    if (op->ndtypes > 1) {
        char name[16];
        upper(name, op->dtypes[s->dtype], sizeof name);
        opts[n++] = tl_xasprintf("-DTL_DTYPE_%s=1", name);
    }
    return n;
}

static char *cache_key(const reg_source *src, const char **htexts, int nh, char **opts, int nopts)
{
    char ver[16], hex[65];
    jit_nvrtc_version(ver);
    tl_buf b = {0};
    tl_buf_printf(&b, "tilelab-jit/1\nnvrtc %s\n", ver);
    for (int i = 0; i < nopts; i++) tl_buf_printf(&b, "%s\n", opts[i]);
    tl_buf_printf(&b, "%s\n", src->text);
    for (int i = 0; i < nh; i++) tl_buf_printf(&b, "%s\n", htexts[i]);
    tl_sha256_hex(b.s, b.len, hex);
    tl_buf_free(&b);
    return tl_xstrdup(hex);
}

static int cache_read(const char *path, jit_cubin *out)
{
    tl_err ignored;
    struct stat st;
    if (!path || stat(path, &st) != 0) return -1;
    out->cubin = tl_read_file(path, &out->cubin_len, &ignored);
    return out->cubin && out->cubin_len > 0 ? 0 : -1;
}

static int nvrtc_build(const reg_source *src, const char **hnames, const char **htexts, int nh, char **opts,
                       int nopts, jit_cubin *out, tl_err *e)
{
    nvrtcProgram prog = NULL;
    size_t loglen = 0;
    NVRTC_CHECK(nvrtcCreateProgram(&prog, src->text, src->path, nh, htexts, hnames));
    nvrtcResult rc = nvrtcCompileProgram(prog, nopts, (const char *const *)opts);
    NVRTC_CHECK(nvrtcGetProgramLogSize(prog, &loglen));
    if (loglen > 1) {
        out->log = tl_xmalloc(loglen);
        NVRTC_CHECK(nvrtcGetProgramLog(prog, out->log));
    }
    if (rc != NVRTC_SUCCESS) {
        tl_err_set(e, "NVRTC could not compile kernels/%s (%s): %s", src->path, nvrtcGetErrorString(rc),
                   out->log ? out->log : "no log");
        goto fail;
    }
    NVRTC_CHECK(nvrtcGetCUBINSize(prog, &out->cubin_len));
    out->cubin = tl_xmalloc(out->cubin_len);
    NVRTC_CHECK(nvrtcGetCUBIN(prog, out->cubin));
    nvrtcDestroyProgram(&prog);
    return 0;
fail:
    if (prog) nvrtcDestroyProgram(&prog);
    return -1;
}

int jit_compile(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s, int arch,
                const char *cache_dir, jit_cubin *out, tl_err *e)
{
    char *opts[JIT_MAX_OPTS], *key = NULL, *path = NULL;
    const char *hnames[16], *htexts[16];
    int rc = -1;
    memset(out, 0, sizeof *out);
    const reg_source *src = reg_find_source(v->source);
    if (!src) {
        tl_err_set(e, "variant '%s': kernels/%s is not embedded in this runner (registry and BUILD disagree)",
                   v->name, v->source);
        return -1;
    }
    int nh = collect_headers(v, hnames, htexts, 16);
    int nopts = build_options(op, v, params, s, arch, opts);
    tl_buf ob = {0};
    for (int i = 0; i < nopts; i++) tl_buf_printf(&ob, "%s%s", i ? " " : "", opts[i]);
    out->options = ob.s;
    key = cache_key(src, htexts, nh, opts, nopts);
    if (cache_dir) path = tl_xasprintf("%s/%s.cubin", cache_dir, key);
    if (cache_read(path, out) == 0) {
        out->cached = 1;
    } else {
        if (nvrtc_build(src, hnames, htexts, nh, opts, nopts, out, e)) goto out;
        /* The cache is an optimisation: failing to write it is not an error. */
        tl_err ignored;
        if (path && tl_mkdir_p(cache_dir, &ignored) == 0) tl_write_file_atomic(path, out->cubin, out->cubin_len, &ignored);
    }
    tl_sha256_hex(out->cubin, out->cubin_len, out->cubin_sha256);
    rc = 0;
out:
    for (int i = 0; i < nopts; i++) free(opts[i]);
    free(key);
    free(path);
    if (rc) jit_cubin_free(out);
    return rc;
}

void jit_cubin_free(jit_cubin *c)
{
    free(c->options);
    free(c->cubin);
    free(c->log);
    memset(c, 0, sizeof *c);
}

int jit_load(const jit_cubin *c, const char *entry, jit_kernel *k, tl_err *e)
{
    struct cudaFuncAttributes attr;
    memset(k, 0, sizeof *k);
    CUDA_CHECK(cudaLibraryLoadData(&k->lib, c->cubin, NULL, NULL, 0, NULL, NULL, 0));
    CUDA_CHECK(cudaLibraryGetKernel(&k->kernel, k->lib, entry));
    CUDA_CHECK(cudaFuncGetAttributes(&attr, (const void *)k->kernel));
    k->regs = attr.numRegs;
    k->smem_static = attr.sharedSizeBytes;
    k->local_bytes = attr.localSizeBytes;
    k->max_threads = attr.maxThreadsPerBlock;
    return 0;
fail:
    jit_unload(k);
    return -1;
}

void jit_unload(jit_kernel *k)
{
    if (k->lib) cudaLibraryUnload(k->lib);
    memset(k, 0, sizeof *k);
}
