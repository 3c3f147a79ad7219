/* NVRTC cannot read outside the toolkit in a compile helper, whatever a source says: a source that includes a
 * file by its absolute path (handed to NVRTC without the include scanner, as if the scanner had missed it)
 * compiles in this process, which shows what NVRTC would open on its own, and fails in a helper, whose
 * sandbox refuses the file; a kernel that includes the toolkit's headers still compiles there. */
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runner/jit/jit.h"
#include "runner/jit/jit_helper.h"
#include "runner/ops/registry.h"
#include "runner/ops/registry_lookup.h"
#include "runner/testing/testutil.h"

static void sandbox(void)
{
    char why[256];
    if (jit_sandbox(why, sizeof why)) fprintf(stderr, "sandbox_test helper: %s\n", why);
}

static int compile_text(const char *text, jit_helper *h, tl_err *e)
{
    source_store st;
    source_store_init_preloaded(&st, "t.yaml", 0);
    CHECK(source_store_add(&st, SOURCE_EXPERIMENT, "k.cu", text, strlen(text), NULL, e) == 0, "%s", e->msg);
    int file = 0;
    char *name = "k.cu";
    int angle = strstr(text, "#include <") != NULL;
    source_set set = {.files = &file, .names = &name, .n = 1, .angle = angle}; /* no scan: as if it missed the include */
    reg_spec cs = {.dims = {1024}};
    jit_request rq = {.op = reg_find_op("copy"), .store = &st, .src = &set, .entry = "k", .spec = &cs, .arch = 90,
                      .front_end_only = 1};
    jit_cubin cb;
    int rc = jit_compile_in(&rq, NULL, NULL, h, &cb, e);
    if (rc == 0) jit_cubin_free(&cb);
    source_store_free(&st);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], JIT_HELPER_ARG)) return jit_helper_main(sandbox); /* sandboxed as the runner's */
    const char *t = getenv("TEST_TMPDIR");
    char dir[512], secret[600], text[1200];
    snprintf(dir, sizeof dir, "%s/sandbox-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(dir)) return 1;
    snprintf(secret, sizeof secret, "%s/secret.cuh", dir);
    FILE *f = fopen(secret, "w");
    if (!f) return 1;
    fputs("#define SECRET 42.0f\n", f);
    fclose(f);
    snprintf(text, sizeof text, "#include \"%s\"\nextern \"C\" __global__ void k(const float *x, float *y, long long n) "
                                "{ y[0] = x[0] + SECRET; }\n", secret);
    tl_err e = {{0}};
    int total = 0;
    CHECK(compile_text(text, NULL, &e) == 0, "in this process, NVRTC opens the file itself: %s", e.msg);
    total++;
    struct landlock_ruleset_attr probe = {0};
    if (syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) < 0) {
        (void)probe;
        printf("Landlock is not available here: the helper's sandbox is not tested\n");
        return TEST_REPORT(total);
    }
    jit_helper *h = jit_helper_new();
    int rc = compile_text(text, h, &e);
    CHECK(rc != 0 && strstr(e.msg, "secret.cuh"), "in the helper, the file cannot be opened: %s", rc ? e.msg : "compiled");
    const char *fp16 = "#include <cuda_fp16.h>\nextern \"C\" __global__ void k(const float *x, float *y, long long n) "
                       "{ y[0] = __half2float(__float2half(x[0])); }\n";
    CHECK(compile_text(fp16, h, &e) == 0, "the toolkit's headers still compile in the helper: %s", e.msg);
    jit_helper_stop(h);
    total += 2;
    return TEST_REPORT(total);
}
