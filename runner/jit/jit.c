#include "runner/jit/jit.h"
#include "runner/jit/jit_helper.h"

#include <ctype.h>
#include <elf.h>
#include <limits.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/jit/cache.h"
#include "runner/jit/sandbox.h"
#include "runner/ops/decl.h"
#include "runner/ops/dop.h"
#include "runner/util/cuda_check.h"

#define JIT_MAX_OPTS (REG_MAX_PARAMS + REG_MAX_OPERANDS + REG_MAX_ARGS + 10)

void jit_nvrtc_version(char out[16])
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) major = minor = -1;
    snprintf(out, 16, "%d.%d", major, minor);
}

void jit_request_of_case(const tl_experiment *x, const tl_case *c, int arch, jit_request *rq)
{
    const reg_variant *v = c->run; /* a dispatching variant's: the rung its table picked */
    const char *entries[REG_MAX_KERNELS];
    int n = decl_entries(v, entries);
    *rq = (jit_request){.op = c->op, .store = &x->store, .src = c->run_src, .entry = v->entry,
                        .params = v->params, .nparams = v->nparams, .values = c->run_params, .spec = &c->spec,
                        .variant = v->rules ? v : NULL, .arch = arch, .arch_specific = v->arch_specific};
    for (int i = 1; i < n; i++) rq->also[i - 1] = entries[i];
}

/* ---- the CUTLASS headers ---------------------------------------------------------------------- */
/* Where the pinned CUTLASS headers are: a folder with include/cute/tensor.hpp and VERSION (what
 * tools/setup.sh unpacks). TILELAB_CUTLASS names one; else the folder cutlass beside the runner (the
 * portable bundle), else its Bazel runfiles (bazel run, bazel test). Looked up once. */
static struct {
    pthread_once_t once;
    char include[PATH_MAX];
    char version[32];
    char *tried; /* where it looked, for the error when none was found */
} cutlass_place = {.once = PTHREAD_ONCE_INIT};

static int cutlass_try(const char *dir, tl_buf *tried)
{
    char path[PATH_MAX + 32];
    struct stat st;
    tl_buf_printf(tried, "%s%s", tried->len ? ", " : "", dir);
    snprintf(path, sizeof path, "%s/include/cute/tensor.hpp", dir);
    if (stat(path, &st) || !S_ISREG(st.st_mode)) return 0;
    snprintf(path, sizeof path, "%s/VERSION", dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char v[sizeof cutlass_place.version] = "";
    int ok = fgets(v, sizeof v, f) != NULL;
    fclose(f);
    v[strcspn(v, " \t\r\n")] = '\0';
    if (!ok || !v[0]) return 0;
    snprintf(cutlass_place.version, sizeof cutlass_place.version, "%s", v);
    snprintf(cutlass_place.include, sizeof cutlass_place.include, "%s/include", dir);
    return 1;
}

static void cutlass_look(void)
{
    tl_buf tried = {0};
    char exe[PATH_MAX], dir[PATH_MAX + 16];
    const char *env = getenv("TILELAB_CUTLASS"), *runfiles = getenv("RUNFILES_DIR");
    ssize_t n;
    if (env && *env) {
        cutlass_try(env, &tried); /* named: the only place looked at */
    } else if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        snprintf(dir, sizeof dir, "%.*s/cutlass", slash ? (int)(slash - exe) : 0, exe);
        if (!cutlass_try(dir, &tried)) {
            snprintf(dir, sizeof dir, "%s.runfiles/cutlass", exe);
            if (!cutlass_try(dir, &tried) && runfiles && *runfiles) {
                snprintf(dir, sizeof dir, "%s/cutlass", runfiles);
                cutlass_try(dir, &tried);
            }
        }
    }
    cutlass_place.tried = tried.s;
}

const char *jit_cutlass_version(void)
{
    pthread_once(&cutlass_place.once, cutlass_look);
    return cutlass_place.version[0] ? cutlass_place.version : NULL;
}

/* The set's CUTLASS include, checked: -1 with the reason when the headers are not here. */
static int cutlass_needed(const jit_request *rq, tl_err *e)
{
    if (!rq->src->cutlass || jit_cutlass_version()) return 0;
    tl_err_set(e, "%s needs the CUTLASS headers, which are not on this machine (looked in %s): tools/setup.sh "
                  "installs the pinned ones, the portable bundle carries them, TILELAB_CUTLASS names a folder "
                  "with include/cute and VERSION", rq->src->cutlass,
               cutlass_place.tried && *cutlass_place.tried ? cutlass_place.tried : "no folder");
    return -1;
}

/* ---- the program NVRTC compiles -------------------------------------------------------------- */

static void upper(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++) dst[i] = (char)toupper((unsigned char)src[i]);
    dst[i] = '\0';
}

/* The toolkit's include folders, for sources that include <...>. */
static const char *cuda_home(void)
{
    const char *d = getenv("CUDA_HOME");
    if (!d || !*d) d = getenv("CUDA_PATH");
    return d && *d ? d : "/usr/local/cuda";
}

/* Options in a fixed order, so that the cache key and the stored text are stable. No file name
 * NVRTC could open itself: every quoted include of the sources is given in memory (and, without
 * <...> includes, --no-source-include keeps NVRTC from searching any folder); the toolkit's folders
 * are searched only for sources that include <...>. */
static int line_info;

void jit_set_line_info(int on)
{
    line_info = on;
}

static int build_options(const jit_request *rq, char **opts)
{
    int n = 0;
    opts[n++] = tl_xasprintf("--gpu-architecture=sm_%d%s", rq->arch, rq->arch_specific ? "a" : "");
    opts[n++] = tl_xstrdup("-std=c++17");
    if (line_info) opts[n++] = tl_xstrdup("-lineinfo");
    if (rq->front_end_only) opts[n++] = tl_xstrdup("--fdevice-syntax-only");
    if (rq->src->angle) {
        /* The toolkit's headers include their siblings by quoted name, which needs the including
         * file's folder searched; every quoted name of the sources is still given in memory. */
        if (rq->src->cutlass) {
            /* CUTLASS has constexpr helpers without __device__, which NVRTC takes for host code. That
             * makes every unannotated variable a __device__ one too: some 3000 static constexpr members
             * (cuda::std::integral_constant<...>::value and the like) that the kernel never reads, each
             * a global of the module with its relocation, 680 KB of cubin that the driver takes ~23 ms
             * to load. So NVRTC writes LTO IR and nvJitLink links it keeping only the entries and
             * the globals the runner binds (link_lto): ~40 KB, the same kernel code. */
            opts[n++] = tl_xstrdup("-default-device");
            if (!rq->front_end_only) opts[n++] = tl_xstrdup("-dlto");
            opts[n++] = tl_xasprintf("-I%s", cutlass_place.include);
        }
        opts[n++] = tl_xasprintf("-I%s/include", cuda_home());
        opts[n++] = tl_xasprintf("-I%s/include/cccl", cuda_home());
    } else {
        opts[n++] = tl_xstrdup("--no-source-include");
    }
    return n;
}

/* The macros the runner gives the kernel (its params, the operands' layouts, the dtype, the args' hints) as
 * "NAME=value" texts, in this order; returns how many. They are #define lines at the top of the wrapper the
 * sources are included from (wrapper_text), not -D options: NVRTC reads its own builtin header before the main
 * file, under every -D macro, so a param named T or N would break the compiler's header instead of reaching the
 * kernel. */
static int build_macros(const jit_request *rq, char **defs)
{
    int n = 0;
    const reg_op *op = rq->op;
    for (int k = 0; k < rq->nparams; k++) defs[n++] = tl_xasprintf("%s=%ld", rq->params[k].name, rq->values[k]);
    for (int o = 0; o < op->noperands; o++) {
        char name[16];
        upper(name, op->operands[o], sizeof name);
        defs[n++] = tl_xasprintf("%s_COL=%d", name, rq->spec->layouts[o] == REG_COL);
    }
    if (op->ndtypes > 1) {
        char name[16];
        upper(name, op->dtypes[rq->spec->dtype], sizeof name);
        defs[n++] = tl_xasprintf("TL_DTYPE_%s=1", name);
    }
    for (int a = 0; a < op->nargs; a++)
        if (op->args[a].nonzero_macro)
            defs[n++] = tl_xasprintf("%s=%d", op->args[a].nonzero_macro, rq->spec->args[a] != 0.0);
    return n;
}

static const char *kind_text(char k)
{
    return k == 'p' ? "a pointer" : k == 'i' ? "a 32-bit integer" : k == 'l' ? "a 64-bit integer" : k == 'd' ? "a double"
                                                                                                   : "a float";
}

/* static_asserts that entry takes the op's arguments: their number, and each one's kind. */
static void signature_check(tl_buf *b, const reg_op *op, const char *entry)
{
    tl_buf_printf(b, "typedef tl_sig<decltype(%s)> tl_sig_%s;\n", entry, entry);
    tl_buf_printf(b, "static_assert(tl_sig_%s::fn, \"tilelab: %s must be a kernel: extern \\\"C\\\" __global__ void "
                     "%s(...)\");\n", entry, entry, entry);
    tl_buf_printf(b, "static_assert(!tl_sig_%s::fn || tl_sig_%s::n == %d, \"tilelab: %s must take the %d arguments of "
                     "%s kernels (", entry, entry, op->nkargs, entry, op->nkargs, op->name);
    for (int i = 0; i < op->nkargs; i++)
        tl_buf_printf(b, "%s%s%s%s", i ? ", " : "", op->kargs[i].type,
                      op->kargs[i].type[strlen(op->kargs[i].type) - 1] == '*' ? "" : " ", op->kargs[i].name);
    tl_buf_printf(b, "); runner list %s explains them\");\n", op->name);
    for (int i = 0; i < op->nkargs; i++) {
        const reg_karg *a = &op->kargs[i];
        int code = a->kind == 'p' ? 1 : a->kind == 'i' ? 2 : a->kind == 'l' ? 3 : a->kind == 'd' ? 5 : 4;
        tl_buf_printf(b, "static_assert(tl_sig_%s::n != %d || tl_sig_%s::at<%d>::kind == %d, \"tilelab: argument %d "
                         "of %s must be %s %s (%s)\");\n", entry, op->nkargs, entry, i, code, i + 1, entry, a->type,
                      a->name, kind_text(a->kind));
        /* A declared op's buffers have an element type: a pointer to elements of another size is the wrong one. */
        int elem = op->decl ? dop_karg_elem_size(op->decl, i) : 0;
        if (elem)
            tl_buf_printf(b, "static_assert(tl_sig_%s::n != %d || tl_sig_%s::at<%d>::kind != 1 || "
                             "tl_sig_%s::at<%d>::elem == %d || tl_sig_%s::at<%d>::elem == 0, \"tilelab: argument %d of "
                             "%s points to elements of %d bytes: %s %s\");\n", entry, op->nkargs, entry, i, entry, i,
                          elem, entry, i, i + 1, entry, elem, a->type, a->name);
    }
}

/* Kinds of argument types: 1 pointer, 2 32-bit integer, 3 64-bit integer, 4 float, 5 double, 0 anything else;
 * elem: the bytes of what a pointer points to (0: void, or not a pointer). */
static const char check_templates[] =
    "template <class tl_T> struct tl_size { enum { n = sizeof(tl_T) }; };\n"
    "template <> struct tl_size<void> { enum { n = 0 }; };\n"
    "template <> struct tl_size<const void> { enum { n = 0 }; };\n"
    "template <class tl_T> struct tl_arg { enum { kind = 0, elem = 0 }; };\n"
    "template <class tl_T> struct tl_arg<tl_T *> { enum { kind = 1, elem = tl_size<tl_T>::n }; };\n"
    "template <> struct tl_arg<int> { enum { kind = 2, elem = 0 }; };\n"
    "template <> struct tl_arg<unsigned> { enum { kind = 2, elem = 0 }; };\n"
    "template <> struct tl_arg<long long> { enum { kind = 3, elem = 0 }; };\n"
    "template <> struct tl_arg<unsigned long long> { enum { kind = 3, elem = 0 }; };\n"
    "template <> struct tl_arg<long> { enum { kind = sizeof(long) == 8 ? 3 : 2, elem = 0 }; };\n"
    "template <> struct tl_arg<unsigned long> { enum { kind = sizeof(long) == 8 ? 3 : 2, elem = 0 }; };\n"
    "template <> struct tl_arg<float> { enum { kind = 4, elem = 0 }; };\n"
    "template <> struct tl_arg<double> { enum { kind = 5, elem = 0 }; };\n"
    "template <int tl_I, class... tl_A> struct tl_nth { enum { kind = -1, elem = 0 }; };\n"
    "template <class tl_H, class... tl_T> struct tl_nth<0, tl_H, tl_T...> { enum { kind = tl_arg<tl_H>::kind, elem = tl_arg<tl_H>::elem }; };\n"
    "template <int tl_I, class tl_H, class... tl_T> struct tl_nth<tl_I, tl_H, tl_T...> {\n"
    "  enum { kind = tl_nth<tl_I - 1, tl_T...>::kind, elem = tl_nth<tl_I - 1, tl_T...>::elem };\n"
    "};\n"
    "template <class tl_F> struct tl_sig {\n"
    "  enum { fn = 0, n = -1 };\n"
    "  template <int tl_I> struct at { enum { kind = -1, elem = 0 }; };\n"
    "};\n"
    "template <class... tl_A> struct tl_sig<void(tl_A...)> {\n"
    "  enum { fn = 1, n = sizeof...(tl_A) };\n"
    "  template <int tl_I> struct at { enum { kind = tl_nth<tl_I, tl_A...>::kind, elem = tl_nth<tl_I, tl_A...>::elem }; };\n"
    "};\n";

/* The variant's rules as the preprocessor reads them, on the -D values of its params: the registry's words
 * when one fails (the plan skips such params, so only a compile outside it gets there). */
static void rule_checks(tl_buf *b, const reg_variant *v, const long *values)
{
    tl_buf_printf(b, "#line 1 \"" JIT_RULES_FILE "\"\n");
    for (int r = 0; v->rules && v->rules[r].expr; r++) {
        char why[256];
        reg_rule_why(v, &v->rules[r], values, why, sizeof why);
        for (char *c = why; *c; c++)
            if (*c == '"' || *c == '\\') *c = '\'';
        tl_buf_printf(b, "#if !(%s)\n#error \"tilelab: %s: %s\"\n#endif\n", v->rules[r].expr, v->name, why);
    }
}

static char *wrapper_text(const jit_request *rq, char **defs, int ndefs)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "%s", "");
    for (int i = 0; i < ndefs; i++) {
        const char *eq = strchr(defs[i], '=');
        tl_buf_printf(&b, "#define %.*s %s\n", (int)(eq - defs[i]), defs[i], eq + 1);
    }
    if (rq->variant) rule_checks(&b, rq->variant, rq->values);
    tl_buf_printf(&b, "#include \"%s\"\n", rq->src->names[0]);
    for (int i = 0; i < ndefs; i++) /* the sources' only: the checks below must not see a param named like theirs */
        tl_buf_printf(&b, "#undef %.*s\n", (int)(strchr(defs[i], '=') - defs[i]), defs[i]);
    tl_buf_printf(&b, "#line 1 \"" JIT_CHECK_FILE "\"\n%s", check_templates);
    signature_check(&b, rq->op, rq->entry);
    for (int i = 0; i < REG_MAX_KERNELS - 1 && rq->also[i]; i++) signature_check(&b, rq->op, rq->also[i]);
    return b.s;
}

static char *cache_key(const jit_request *rq, const char *wrapper, char **opts, int nopts)
{
    char ver[16], hex[65];
    jit_nvrtc_version(ver);
    tl_buf b = {0};
    tl_buf_printf(&b, "tilelab-jit/2\nnvrtc %s\n", ver);
    if (rq->src->cutlass) tl_buf_printf(&b, "cutlass %s\n", jit_cutlass_version());
    for (int i = 0; i < nopts; i++) {
        /* Not the folder the pinned CUTLASS headers lie in (another bundle, another checkout): their
         * version, above, is what makes the kernel. */
        int cutlass_dir =
            rq->src->cutlass && !strncmp(opts[i], "-I", 2) && !strcmp(opts[i] + 2, cutlass_place.include);
        tl_buf_printf(&b, "%s\n", cutlass_dir ? "-I<cutlass>/include" : opts[i]);
    }
    tl_buf_printf(&b, "%s\n", wrapper);
    for (int i = 0; i < rq->src->n; i++)
        tl_buf_printf(&b, "%s %s\n", rq->src->names[i], rq->store->files[rq->src->files[i]].sha256);
    tl_sha256_hex(b.s, b.len, hex);
    tl_buf_free(&b);
    return tl_xstrdup(hex);
}

/* ---- NVRTC's log, as the user reads it -------------------------------------------------------- */

/* "name(12): ..." lines get the file's path as the user knows it. */
static char *rewrite_log(const jit_request *rq, const char *log)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "%s", "");
    for (const char *line = log; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        const char *shown = NULL;
        size_t skip = 0;
        for (int i = 0; i < rq->src->n && !shown; i++) {
            size_t nl2 = strlen(rq->src->names[i]);
            if (len > nl2 && !strncmp(line, rq->src->names[i], nl2) && line[nl2] == '(' && isdigit((unsigned char)line[nl2 + 1]))
                shown = rq->src->names[i], skip = nl2;
        }
        if (shown) {
            int i = 0;
            while (strcmp(rq->src->names[i], shown)) i++;
            char *d = source_display(rq->store, &rq->store->files[rq->src->files[i]]);
            tl_buf_printf(&b, "%s%.*s", d, (int)(len - skip), line + skip);
            free(d);
        } else {
            tl_buf_printf(&b, "%.*s", (int)len, line);
        }
        line += len;
    }
    return b.s;
}

/* 1 when every error of the log is on the wrapper's lines: the sources compiled, the check failed. */
static int only_check_errors(const char *log)
{
    int any = 0;
    for (const char *line = log; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *l = tl_xasprintf("%.*s", (int)len, line);
        if (strstr(l, ": error") || strstr(l, ": catastrophic error")) {
            if (strncmp(l, JIT_CHECK_FILE "(", strlen(JIT_CHECK_FILE) + 1) &&
                strncmp(l, JIT_RULES_FILE "(", strlen(JIT_RULES_FILE) + 1))
                any = -1;
            else if (!any) any = 1;
        }
        free(l);
        line = nl ? nl + 1 : NULL;
    }
    return any == 1;
}

/* What of NVRTC's log an error message holds (tl_err's room, less what the callers put before it: the case's
 * params, the file and the variant). */
#define LOG_ROOM (sizeof ((tl_err *)0)->msg - 640)

/* The first lines of text that fit in room bytes, and how many lines were left out: an error is never cut in
 * the middle of a line of the log (malloc'd). */
static char *whole_lines(const char *text, size_t room)
{
    size_t len = strlen(text), keep = 0;
    if (len < room) return tl_xstrdup(text);
    const char *end = "";
    for (const char *l = text; *l; l = end) {
        end = strchr(l, '\n');
        end = end ? end + 1 : l + strlen(l);
        if ((size_t)(end - text) + 48 > room) break;
        keep = (size_t)(end - text);
    }
    int more = 0;
    for (const char *l = text + keep; *l; l++) more += *l == '\n' || !l[1];
    return tl_xasprintf("%.*s[%d more lines of NVRTC's log]", (int)keep, text, more);
}

/* The error of a failed compile: the signature check's own message when only it failed, else the
 * log with the files named as the user knows them. */
static void compile_error(const jit_request *rq, const char *log, nvrtcResult rc, tl_err *e)
{
    char *main_shown = source_display(rq->store, &rq->store->files[rq->src->files[0]]);
    const char *check = log ? strstr(log, JIT_CHECK_FILE "(") : NULL;
    const char *entries[REG_MAX_KERNELS] = {rq->entry};
    memcpy(entries + 1, rq->also, sizeof rq->also);
    for (int i = 0; i < REG_MAX_KERNELS && check && entries[i] && only_check_errors(log); i++) {
        char undefined[160];
        snprintf(undefined, sizeof undefined, "identifier \"%s\" is undefined", entries[i]);
        if (strstr(check, undefined)) {
            tl_err_set(e, "%s: no function named '%s' (the %s) in it or the files it includes", main_shown, entries[i],
                       i ? "next kernel" : "entry");
            free(main_shown);
            return;
        }
    }
    const char *m = log ? strstr(log, "\"tilelab: ") : NULL;
    if (m && only_check_errors(log)) {
        m += 10;
        size_t len = strcspn(m, "\n");
        if (len && m[len - 1] == '"') len--;
        tl_err_set(e, "%s: %.*s", main_shown, (int)len, m);
    } else {
        char *shown = log ? rewrite_log(rq, log) : NULL, *fit = whole_lines(shown ? shown : "no log", LOG_ROOM);
        tl_err_set(e, "NVRTC could not compile %s (%s):\n%s", main_shown, nvrtcGetErrorString(rc), fit);
        free(shown), free(fit);
    }
    free(main_shown);
}

/* ---- compile, cache ------------------------------------------------------------------------------ */

/* ---- the sandboxed helper -------------------------------------------------------------------------- */

static int helper_here; /* this program answers JIT_HELPER_ARG (the runner, not a test binary) */
static pthread_mutex_t own_mu = PTHREAD_MUTEX_INITIALIZER;
static jit_helper *own; /* the helper this process's own compiles of experiment sources go to */

void jit_helpers_enable(void)
{
    helper_here = 1;
}

int jit_sandbox(char *why, size_t len)
{
    /* NVRTC loads its builtins on its first compile: done here, before the folders close. */
    nvrtcProgram p = NULL;
    const char *opt = "--gpu-architecture=compute_90";
    if (nvrtcCreateProgram(&p, "extern \"C\" __global__ void k() {}\n", "warm.cu", 0, NULL, NULL) == NVRTC_SUCCESS) {
        nvrtcCompileProgram(p, 1, &opt);
        nvrtcDestroyProgram(&p);
    }
    char exe[PATH_MAX] = "", *slash;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    if ((slash = strrchr(exe, '/'))) *slash = '\0';
    jit_cutlass_version(); /* finds the CUTLASS headers, if any */
    /* The toolkit, CUTLASS's headers, the runner's own folder (the bundle's libraries) and the system's
     * libraries (what nvJitLink may load): nothing an experiment names. */
    /* CUTLASS's folder in Bazel's runfiles holds links: the folder they point into too. */
    char probe[PATH_MAX + 32], *real = NULL;
    snprintf(probe, sizeof probe, "%s/cute/tensor.hpp", cutlass_place.include);
    if (cutlass_place.include[0] && (real = realpath(probe, NULL)) && strlen(real) > strlen("/cute/tensor.hpp"))
        real[strlen(real) - strlen("/cute/tensor.hpp")] = '\0';
    const char *dirs[] = {cuda_home(), cutlass_place.include, real ? real : "", exe, "/usr/lib", "/lib", "/usr/lib64",
                          "/lib64", "/etc/ld.so.cache", "/dev/null"};
    int rc = sandbox_restrict(dirs, (int)(sizeof dirs / sizeof *dirs), why, len);
    free(real);
    return rc;
}

/* Whether rq compiles a file of the experiment's folder (or of a result file's), which NVRTC gets only in a
 * sandboxed helper. */
static int has_experiment_files(const jit_request *rq)
{
    for (int i = 0; i < rq->src->n; i++)
        if (strcmp(rq->store->files[rq->src->files[i]].origin, SOURCE_TILELAB)) return 1;
    return 0;
}

/* rq compiled by NVRTC, in h's process when there is one that still runs (else in this one). */
static int nvrtc_build(const jit_request *rq, const char *wrapper, char **opts, int nopts, jit_helper *h,
                       jit_cubin *out, tl_err *e)
{
    int nh = rq->src->n;
    const char **texts = tl_xcalloc((size_t)nh, sizeof *texts);
    for (int i = 0; i < nh; i++) texts[i] = rq->store->files[rq->src->files[i]].text;
    tl_buf also = {0};
    tl_buf_puts(&also, "");
    for (int i = 0; i < REG_MAX_KERNELS - 1 && rq->also[i]; i++) tl_buf_printf(&also, "%s%s", i ? "," : "", rq->also[i]);
    jit_build_job j = {wrapper, opts, nopts, nh, texts, (const char *const *)rq->src->names, rq->arch,
                       rq->arch_specific, rq->entry, also.s, rq->front_end_only};
    int rc;
    if (!h && helper_here && has_experiment_files(rq)) {
        /* An experiment's source never reaches NVRTC in the run's own process: it goes to a helper that cannot
         * read outside the toolkit (jit_sandbox). */
        pthread_mutex_lock(&own_mu);
        if (!own) own = jit_helper_new();
        rc = jit_helper_build(own, &j, out, e);
        if (rc == JIT_HELPER_GONE) {
            jit_helper_stop(own); /* the next compile tries a new one */
            own = NULL;
        }
        pthread_mutex_unlock(&own_mu);
        if (rc == JIT_HELPER_GONE) {
            tl_err_set(e, "the compile helper, which compiles the experiment's own kernels where they cannot read "
                          "files outside the toolkit, stopped or could not start");
            free(texts);
            tl_buf_free(&also);
            return -1;
        }
    } else {
        rc = h ? jit_helper_build(h, &j, out, e) : JIT_HELPER_GONE;
        if (rc == JIT_HELPER_GONE) rc = jit_build_run(&j, out, e); /* (a helper that is gone left out as it was) */
    }
    free(texts);
    tl_buf_free(&also);
    if (rc > 0) compile_error(rq, out->log, (nvrtcResult)rc, e);
    return rc ? -1 : 0;
}

/* Both entries are extern "C" kernels of the cubin. */
static int check_entries(const jit_request *rq, const jit_cubin *cb, tl_err *e)
{
    const char *entries[REG_MAX_KERNELS] = {rq->entry};
    memcpy(entries + 1, rq->also, sizeof rq->also);
    for (int i = 0; i < REG_MAX_KERNELS && entries[i]; i++) {
        char kernels[512];
        int rc = jit_cubin_has_kernel(cb->cubin, cb->cubin_len, entries[i], kernels, sizeof kernels);
        if (rc == 1) continue;
        char *shown = source_display(rq->store, &rq->store->files[rq->src->files[0]]);
        if (rc < 0) tl_err_set(e, "%s: the compiled module is not a readable cubin", shown);
        else
            tl_err_set(e, "%s: '%s' is not an extern \"C\" __global__ function of the compiled module (its kernels: "
                          "%s)%s", shown, entries[i], kernels[0] ? kernels : "none",
                       kernels[0] == '_' && kernels[1] == 'Z' ? "; a name starting _Z is C++'s: declare it extern \"C\"" : "");
        free(shown);
        return -1;
    }
    return 0;
}

static void copy_cubin(jit_cubin *dst, const jit_cubin *src)
{
    dst->cubin = tl_xmalloc(src->cubin_len);
    memcpy(dst->cubin, src->cubin, src->cubin_len);
    dst->cubin_len = src->cubin_len;
}

static void memo_add(jit_memo *m, const char *key, const jit_cubin *c)
{
    m->keys = realloc(m->keys, sizeof *m->keys * (size_t)(m->n + 1));
    m->cubins = realloc(m->cubins, sizeof *m->cubins * (size_t)(m->n + 1));
    if (!m->keys || !m->cubins) abort();
    m->keys[m->n] = tl_xstrdup(key);
    memset(&m->cubins[m->n], 0, sizeof *m->cubins);
    copy_cubin(&m->cubins[m->n++], c);
}

static int memo_get(const jit_memo *m, const char *key, jit_cubin *out)
{
    for (int i = 0; m && i < m->n; i++)
        if (!strcmp(m->keys[i], key)) return copy_cubin(out, &m->cubins[i]), 0;
    return -1;
}

/* Every memo's lock: its lists, and the busy keys threads wait on. */
static pthread_mutex_t memo_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t memo_cv = PTHREAD_COND_INITIALIZER;

static int memo_has(const jit_memo *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->keys[i], key)) return 1;
    return 0;
}

static int memo_busy(const jit_memo *m, const char *key)
{
    for (int i = 0; i < m->nbusy; i++)
        if (!strcmp(m->busy[i], key)) return 1;
    return 0;
}

static const char *memo_failed(const jit_memo *m, const char *key)
{
    for (int i = 0; i < m->nfailed; i++)
        if (!strcmp(m->failed_keys[i], key)) return m->failed_msgs[i];
    return NULL;
}

/* 0: out has key's cubin from the memo. 1: key failed to compile before, e has why. -1: the caller
 * compiles it, key marked busy until memo_done. */
static int memo_claim(jit_memo *m, const char *key, jit_cubin *out, tl_err *e)
{
    if (!m) return -1;
    pthread_mutex_lock(&memo_mu);
    int rc;
    const char *why = NULL;
    while ((rc = memo_get(m, key, out)) != 0 && !(why = memo_failed(m, key)) && memo_busy(m, key))
        pthread_cond_wait(&memo_cv, &memo_mu);
    if (why) {
        tl_err_set(e, "%s", why);
        rc = 1;
    } else if (rc) {
        m->busy = realloc(m->busy, sizeof *m->busy * (size_t)(m->nbusy + 1));
        if (!m->busy) abort();
        m->busy[m->nbusy++] = tl_xstrdup(key);
    }
    pthread_mutex_unlock(&memo_mu);
    return rc;
}

/* The claim on key ends: c joins the memo, or failed (why it could not be compiled); waiting threads wake. */
static void memo_done(jit_memo *m, const char *key, const jit_cubin *c, const char *failed)
{
    if (!m) return;
    pthread_mutex_lock(&memo_mu);
    if (c && !memo_has(m, key)) memo_add(m, key, c);
    if (failed && !memo_failed(m, key)) {
        m->failed_keys = realloc(m->failed_keys, sizeof *m->failed_keys * (size_t)(m->nfailed + 1));
        m->failed_msgs = realloc(m->failed_msgs, sizeof *m->failed_msgs * (size_t)(m->nfailed + 1));
        if (!m->failed_keys || !m->failed_msgs) abort();
        m->failed_keys[m->nfailed] = tl_xstrdup(key);
        m->failed_msgs[m->nfailed++] = tl_xstrdup(failed);
    }
    for (int i = 0; i < m->nbusy; i++)
        if (!strcmp(m->busy[i], key)) {
            free(m->busy[i]);
            m->busy[i] = m->busy[--m->nbusy];
            break;
        }
    pthread_cond_broadcast(&memo_cv);
    pthread_mutex_unlock(&memo_mu);
}

int jit_compile(const jit_request *rq, const char *cache_dir, jit_memo *memo, jit_cubin *out, tl_err *e)
{
    return jit_compile_in(rq, cache_dir, memo, NULL, out, e);
}

int jit_compile_in(const jit_request *rq, const char *cache_dir, jit_memo *memo, jit_helper *h, jit_cubin *out,
                   tl_err *e)
{
    char *opts[JIT_MAX_OPTS], *defs[JIT_MAX_OPTS], *key = NULL, *wrapper = NULL;
    int rc = -1;
    memset(out, 0, sizeof *out);
    if (!rq->src || rq->src->n == 0 || !rq->entry) {
        tl_err_set(e, "a kernel without sources or entry (registry and config disagree)");
        return -1;
    }
    if (cutlass_needed(rq, e)) return -1;
    if (rq->src->cutlass) snprintf(out->cutlass_version, sizeof out->cutlass_version, "%s", jit_cutlass_version());
    if (rq->front_end_only) cache_dir = NULL, memo = NULL; /* it makes no cubin to keep */
    int nopts = build_options(rq, opts), ndefs = build_macros(rq, defs);
    tl_buf ob = {0};
    for (int i = 0; i < nopts; i++) tl_buf_printf(&ob, "%s%s", i ? " " : "", opts[i]);
    for (int i = 0; i < ndefs; i++) tl_buf_printf(&ob, "%s%s", i ? ", " : "; #define ", defs[i]);
    out->options = ob.s;
    wrapper = wrapper_text(rq, defs, ndefs);
    key = cache_key(rq, wrapper, opts, nopts);
    /* The memo keeps a cubin only when the disk cache does not: a long sweep's cubins stay on disk. */
    int claim = memo_claim(memo, key, out, e), claimed = claim < 0, on_disk = 0;
    if (claim > 0) goto out; /* failed before: e says why */
    if (!claimed || (on_disk = cache_get(cache_dir, key, &out->cubin, &out->cubin_len) == 0)) {
        out->cached = 1;
    } else {
        if (nvrtc_build(rq, wrapper, opts, nopts, h, out, e)) goto out;
        on_disk = cache_put(cache_dir, key, out->cubin, out->cubin_len) == 0;
    }
    if (rq->front_end_only) {
        rc = 0;
        goto out;
    }
    if (check_entries(rq, out, e)) goto out;
    tl_sha256_hex(out->cubin, out->cubin_len, out->cubin_sha256);
    rc = 0;
out:
    if (claimed) memo_done(memo, key, rc || on_disk ? NULL : out, rc ? e->msg : NULL);
    for (int i = 0; i < nopts; i++) free(opts[i]);
    for (int i = 0; i < ndefs; i++) free(defs[i]);
    free(key), free(wrapper);
    if (rc) jit_cubin_free(out);
    return rc;
}

void jit_memo_free(jit_memo *m)
{
    for (int i = 0; i < m->n; i++) free(m->keys[i]), jit_cubin_free(&m->cubins[i]);
    for (int i = 0; i < m->nbusy; i++) free(m->busy[i]);
    for (int i = 0; i < m->nfailed; i++) free(m->failed_keys[i]), free(m->failed_msgs[i]);
    free(m->keys), free(m->cubins), free(m->busy), free(m->failed_keys), free(m->failed_msgs);
    memset(m, 0, sizeof *m);
}

/* ---- the cubin's kernels ------------------------------------------------------------------------- */

#define STO_CUDA_ENTRY 0x10 /* st_other bit of a symbol that is a kernel (an entry point) */

/* Calls f(symbol, name, ctx) for each symbol of the cubin until f returns nonzero; that value, 0 when
 * none did, -1 when the cubin is not a readable ELF file. */
static int cubin_symbols(const void *cubin, size_t len, int (*f)(const Elf64_Sym *, const char *, void *), void *ctx)
{
    const unsigned char *b = cubin;
    const Elf64_Ehdr *h = cubin;
    if (len < sizeof *h || memcmp(b, ELFMAG, SELFMAG) || b[EI_CLASS] != ELFCLASS64 || h->e_shentsize != sizeof(Elf64_Shdr) ||
        h->e_shoff > len || (size_t)h->e_shnum * sizeof(Elf64_Shdr) > len - h->e_shoff)
        return -1;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + h->e_shoff);
    for (int i = 0; i < h->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB) continue;
        if (sh[i].sh_link >= h->e_shnum || sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset) return -1;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (str->sh_offset > len || str->sh_size > len - str->sh_offset) return -1;
        const Elf64_Sym *sym = (const Elf64_Sym *)(b + sh[i].sh_offset);
        const char *names = (const char *)(b + str->sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++) {
            if (sym[k].st_name >= str->sh_size || !memchr(names + sym[k].st_name, '\0', str->sh_size - sym[k].st_name))
                return -1;
            int rc = f(&sym[k], names + sym[k].st_name, ctx);
            if (rc) return rc;
        }
    }
    return 0;
}

typedef struct {
    const char *name;
    char *kernels;
    size_t n;
    uint64_t size;
} sym_query;

static int is_kernel(const Elf64_Sym *s, const char *name, void *ctx)
{
    sym_query *q = ctx;
    if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !(s->st_other & STO_CUDA_ENTRY)) return 0;
    if (!strcmp(name, q->name)) return 1;
    snprintf(q->kernels + strlen(q->kernels), q->n - strlen(q->kernels), "%s%s", q->kernels[0] ? ", " : "", name);
    return 0;
}

int jit_cubin_has_kernel(const void *cubin, size_t len, const char *entry, char *kernels, size_t n)
{
    sym_query q = {.name = entry, .kernels = kernels, .n = n};
    kernels[0] = '\0';
    return cubin_symbols(cubin, len, is_kernel, &q);
}

static int is_object(const Elf64_Sym *s, const char *name, void *ctx)
{
    sym_query *q = ctx;
    if (ELF64_ST_TYPE(s->st_info) != STT_OBJECT || s->st_shndx == SHN_UNDEF || strcmp(name, q->name)) return 0;
    q->size = s->st_size;
    return 1;
}

int jit_cubin_has_global(const void *cubin, size_t len, const char *name, uint64_t *size)
{
    sym_query q = {.name = name};
    int rc = cubin_symbols(cubin, len, is_object, &q);
    if (rc == 1 && size) *size = q.size;
    return rc;
}

static int count_object(const Elf64_Sym *s, const char *name, void *ctx)
{
    (void)name;
    *(int *)ctx += ELF64_ST_TYPE(s->st_info) == STT_OBJECT && s->st_shndx != SHN_UNDEF;
    return 0;
}

int jit_cubin_globals(const void *cubin, size_t len)
{
    int n = 0;
    return cubin_symbols(cubin, len, count_object, &n) < 0 ? -1 : n;
}

/* k's kernel entry of its module k->lib, and what it uses. */
static int get_kernel(jit_kernel *k, const char *entry, tl_err *e)
{
    struct cudaFuncAttributes attr;
    CUDA_CHECK(cudaLibraryGetKernel(&k->kernel, k->lib, entry));
    CUDA_CHECK(cudaFuncGetAttributes(&attr, (const void *)k->kernel));
    k->regs = attr.numRegs;
    k->smem_static = attr.sharedSizeBytes;
    k->local_bytes = attr.localSizeBytes;
    k->max_threads = attr.maxThreadsPerBlock;
    return 0;
fail:
    return -1;
}

int jit_load(const jit_cubin *c, const char *entry, jit_kernel *k, tl_err *e)
{
    memset(k, 0, sizeof *k);
    CUDA_CHECK(cudaLibraryLoadData(&k->lib, c->cubin, NULL, NULL, 0, NULL, NULL, 0));
    k->owns_lib = 1;
    if (get_kernel(k, entry, e) == 0) return 0;
fail:
    jit_unload(k);
    return -1;
}

int jit_load_kept(jit_modules *m, const jit_cubin *c, const char *entry, jit_kernel *k, tl_err *e)
{
    memset(k, 0, sizeof *k);
    if (m->cap < 1) m->cap = 1;
    struct jit_kept *hit = NULL;
    for (int i = 0; i < m->n && !hit; i++)
        if (!strcmp(m->e[i].sha256, c->cubin_sha256)) hit = &m->e[i];
    if (!hit) {
        cudaLibrary_t lib = NULL;
        CUDA_CHECK(cudaLibraryLoadData(&lib, c->cubin, NULL, NULL, 0, NULL, NULL, 0));
        m->loads++;
        if (m->n == m->cap) { /* full: the least recently used goes */
            int old = 0;
            for (int i = 1; i < m->n; i++)
                if (m->e[i].used < m->e[old].used) old = i;
            cudaLibraryUnload(m->e[old].lib);
            m->e[old] = m->e[--m->n];
        }
        if (!m->e) m->e = tl_xcalloc((size_t)m->cap, sizeof *m->e);
        hit = &m->e[m->n++];
        snprintf(hit->sha256, sizeof hit->sha256, "%s", c->cubin_sha256);
        hit->lib = lib;
    } else {
        m->hits++;
    }
    hit->used = ++m->clock;
    k->lib = hit->lib;
    if (get_kernel(k, entry, e) == 0) return 0;
fail:
    memset(k, 0, sizeof *k);
    return -1;
}

void jit_modules_drop(jit_modules *m, cudaLibrary_t lib)
{
    for (int i = 0; i < m->n; i++)
        if (m->e[i].lib == lib) {
            cudaLibraryUnload(lib);
            m->e[i] = m->e[--m->n];
            return;
        }
}

void jit_modules_free(jit_modules *m)
{
    for (int i = 0; i < m->n; i++) cudaLibraryUnload(m->e[i].lib);
    free(m->e);
    memset(m, 0, sizeof *m);
}

int jit_load_also(const jit_kernel *k, const char *entry, jit_kernel *k2, tl_err *e)
{
    memset(k2, 0, sizeof *k2);
    k2->lib = k->lib;
    if (get_kernel(k2, entry, e) == 0) return 0;
    memset(k2, 0, sizeof *k2);
    return -1;
}

void jit_unload(jit_kernel *k)
{
    if (k->lib && k->owns_lib) cudaLibraryUnload(k->lib);
    memset(k, 0, sizeof *k);
}
