/* Compiling ahead (no GPU): threads compile a plan's kernels into the run's memo while the "cases"
 * (this thread) ask for the same kernels: every kernel is compiled once, and a case gets the cubin a
 * fresh compile makes.
 * usage (Bazel passes it): compile_ahead_test EXPERIMENT.yaml */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/jit/compile.h"
#include "runner/jit/jit.h"
#include "runner/jit/jit_helper.h"
#include "runner/plan/plan.h"
#include "runner/run/report.h"
#include "runner/testing/testutil.h"
#include "runner/util/util.h"

/* The run's closing line says which kernels NVRTC compiled during the run: a case whose kernel a thread
 * compiled ahead counts as from the cache, so the line adds the threads' compiles. */
static int report_line_checks(void)
{
    static const struct {
        int cached[4], n, ahead;
        const char *want;
    } rows[] = {
        {{1, 1, 1, -1}, 4, 0, "compile 0.50 (3 of 3 kernels from the cache), load 0.00, inputs"},
        {{1, 1, 0, -1}, 4, 2, "compile 0.50 (2 of 3 kernels from the cache; NVRTC compiled 3 during the run, 2 of them ahead),"},
        {{1, 1, 1, 1}, 4, 4, "(4 of 4 kernels from the cache; NVRTC compiled 4 during the run, 4 of them ahead)"},
        {{0, -1, -1, -1}, 4, 0, "(0 of 1 kernels from the cache; NVRTC compiled 1 during the run, 0 of them ahead)"},
        {{-1, -1, -1, -1}, 4, 0, "compile 0.50, load 0.00, inputs"},
        {{-1, -1, -1, -1}, 4, 0, "counters 0.00; write"}, /* no trials: not named */
    };
    int total = 0;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        tl_result res[4];
        double phase_s[PH_N] = {0};
        phase_s[PH_COMPILE] = 0.5;
        memset(res, 0, sizeof res);
        for (int k = 0; k < rows[i].n; k++) res[k].compile_cached = rows[i].cached[k];
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        total += 2;
        CHECK(f != NULL, "open_memstream");
        if (!f) continue;
        report_phases(f, phase_s, 0.0, 1.0, res, rows[i].n, rows[i].ahead);
        fclose(f);
        CHECK(strstr(text, rows[i].want) != NULL, "row %zu: '%s' lacks '%s'", i, text, rows[i].want);
        free(text);
    }
    /* A run with trials names them after the counters, and counts the kernels its trials compiled. */
    tl_result res[1];
    memset(res, 0, sizeof res);
    res[0].compile_cached = 1;
    res[0].trial_compiled = 2;
    double phase_s[PH_N] = {0};
    phase_s[PH_TRIALS] = 0.25;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    total++;
    if (f) {
        report_phases(f, phase_s, 0.0, 1.0, res, 1, 0);
        fclose(f);
        CHECK(strstr(text, "counters 0.00, trials 0.25; write 0.00") != NULL &&
                  strstr(text, "(1 of 1 kernels from the cache; NVRTC compiled 2 during the run, 0 of them ahead)"),
              "trials: '%s'", text);
        free(text);
    } else {
        CHECK(0, "open_memstream");
    }
    return total;
}

/* A kernel that does not compile (smem_tile with BLOCKSIZE 0: its #error) fails once, and then from the memo
 * with the same error (a compile-ahead thread's failure is what the cases then get): a sweep's cases of a
 * broken kernel do not each compile it again (on the H100 machine a tf32x3 error took two minutes a case). */
static int failure_checks(const tl_experiment *x, const tl_plan *p)
{
    int total = 0;
    jit_request rq;
    long values[64];
    int bs = -1;
    for (int i = 0; i < p->ncases && bs < 0; i++) {
        const tl_case *c = &p->cases[i];
        if (c->variant->kind != REG_NVRTC || c->skipped || strcmp(c->variant->name, "smem_tile")) continue;
        jit_request_of_case(x, c, 90, &rq);
        for (int k = 0; k < rq.nparams && k < 64; k++) {
            values[k] = rq.values[k];
            if (!strcmp(rq.params[k].name, "BLOCKSIZE")) bs = k;
        }
    }
    total++;
    CHECK(bs >= 0, "the plan has no smem_tile case with BLOCKSIZE");
    if (bs < 0) return total;
    values[bs] = 0;
    rq.values = values;
    jit_memo memo = {0};
    jit_cubin cb;
    tl_err first, again, bare;
    int rc1 = jit_compile(&rq, NULL, &memo, &cb, &first), rc2 = jit_compile(&rq, NULL, &memo, &cb, &again);
    int rc3 = jit_compile(&rq, NULL, NULL, &cb, &bare);
    total += 4;
    /* The registry's rule, in its words, stops the compile (reg_rule: the plan would skip such a case). */
    CHECK(rc1 != 0 && strstr(first.msg, "smem_tile: BLOCKSIZE = 0 is not 1 .. 32"), "BLOCKSIZE 0 compiled, or said: %s",
          first.msg);
    CHECK(rc2 != 0 && !strcmp(first.msg, again.msg), "asked again: rc %d, '%s'", rc2, again.msg);
    CHECK(rc3 != 0 && !strcmp(first.msg, bare.msg), "without the memo: rc %d, '%s'", rc3, bare.msg);
    CHECK(memo.nfailed == 1 && memo.n == 0 && memo.nbusy == 0, "the memo holds %d failures, %d cubins, %d busy",
          memo.nfailed, memo.n, memo.nbusy);
    jit_memo_free(&memo);
    return total;
}

/* A helper process compiles what this process would, byte for byte, and fails as it would, with the same
 * message; a helper that is gone (killed) leaves the compile to this process; a helper given no job, or a
 * broken one, exits (0 and 1). */
static int helper_checks(const tl_experiment *x, const tl_plan *p, const char *self)
{
    int total = 0;
    const tl_case *c = NULL;
    for (int i = 0; i < p->ncases && !c; i++)
        if (p->cases[i].variant->kind == REG_NVRTC && !p->cases[i].skipped && !strcmp(p->cases[i].variant->name, "smem_tile"))
            c = &p->cases[i];
    total++;
    CHECK(c != NULL, "the plan has no smem_tile case");
    if (!c) return total;
    jit_request rq;
    jit_request_of_case(x, c, 90, &rq);
    tl_err e;
    jit_helper *h = jit_helper_new();
    jit_cubin here, there, after;
    int rc1 = jit_compile(&rq, NULL, NULL, &here, &e);
    total++;
    CHECK(jit_helper_pid(h) == 0, "a helper's process starts with its first job, not before");
    int rc2 = jit_compile_in(&rq, NULL, NULL, h, &there, &e);
    total += 3;
    CHECK(jit_helper_pid(h) > 0, "the helper's process did not start");
    CHECK(rc1 == 0 && rc2 == 0 && here.cubin_len > 0, "compiles: here %d, in the helper %d: %s", rc1, rc2, e.msg);
    CHECK(!strcmp(here.cubin_sha256, there.cubin_sha256) && !strcmp(here.options, there.options) && !there.cached,
          "the helper's cubin differs from this process's");

    long values[64];
    int bs = -1;
    for (int k = 0; k < rq.nparams && k < 64; k++) {
        values[k] = rq.values[k];
        if (!strcmp(rq.params[k].name, "BLOCKSIZE")) bs = k;
    }
    if (bs >= 0) {
        values[bs] = 0;
        jit_request bad = rq;
        bad.values = values;
        jit_cubin b1, b2;
        tl_err e1, e2;
        int f1 = jit_compile(&bad, NULL, NULL, &b1, &e1), f2 = jit_compile_in(&bad, NULL, NULL, h, &b2, &e2);
        total++;
        CHECK(f1 != 0 && f2 != 0 && !strcmp(e1.msg, e2.msg) && jit_helper_pid(h) > 0,
              "a kernel that does not compile: here '%s', in the helper '%s'", e1.msg, e2.msg);
    }
    total++;
    CHECK(bs >= 0, "smem_tile has no BLOCKSIZE");

    if (jit_helper_pid(h) > 0) kill(jit_helper_pid(h), SIGKILL); /* (not 0: that would be this process group) */
    int rc3 = jit_compile_in(&rq, NULL, NULL, h, &after, &e);
    total += 2;
    CHECK(rc3 == 0 && !strcmp(after.cubin_sha256, here.cubin_sha256), "after the helper was killed: %d %s", rc3, e.msg);
    CHECK(jit_helper_pid(h) == 0, "a helper that is gone still has a process");
    jit_helper_stop(h);
    jit_cubin_free(&here), jit_cubin_free(&there), jit_cubin_free(&after);

    char *none = tl_xasprintf("'%s' " JIT_HELPER_ARG " < /dev/null", self);
    char *junk = tl_xasprintf("printf 'no job here' | '%s' " JIT_HELPER_ARG, self);
    int st1 = system(none), st2 = system(junk);
    total += 2;
    CHECK(WIFEXITED(st1) && WEXITSTATUS(st1) == 0, "a helper given no job: status %d", st1);
    CHECK(WIFEXITED(st2) && WEXITSTATUS(st2) == 1, "a helper given a broken job: status %d", st2);
    free(none), free(junk);
    return total;
}

/* The default count of threads follows the CPUs this process may use (a Slurm task's share, not the
 * node's): one CPU allowed, one thread; all of them, more where the machine has more than one. */
static int check_default_threads(void)
{
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) != 0) {
        CHECK(0, "sched_getaffinity failed");
        return 1;
    }
    int first = 0;
    while (!CPU_ISSET(first, &all)) first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    int total = 0, n = compile_default_threads();
    total++;
    CHECK(n >= 1 && n <= CPU_COUNT(&all) && n <= COMPILE_MAX_THREADS, "%d threads for %d CPUs", n, CPU_COUNT(&all));
    if (sched_setaffinity(0, sizeof one, &one) == 0) {
        int pinned = compile_default_threads();
        sched_setaffinity(0, sizeof all, &all);
        total++;
        CHECK(pinned == 1, "one CPU allowed: %d threads", pinned);
        total++;
        CHECK(CPU_COUNT(&all) == 1 || n > 1 || sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) < 2 * COMPILE_BYTES_A_THREAD,
              "%d CPUs allowed: %d threads, as with one", CPU_COUNT(&all), n);
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], JIT_HELPER_ARG)) return jit_helper_main(NULL); /* the pools' helpers */
    if (argc != 2) {
        fprintf(stderr, "usage: compile_ahead_test EXPERIMENT.yaml\n");
        return 2;
    }
    tl_experiment x;
    tl_plan p = {0};
    tl_err e;
    plan_limits lim = {0};
    int total = check_default_threads();
    if (config_load(argv[1], &x, &e) || plan_expand(&x, &lim, &p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    compile_list l = {0};
    compile_collect(&x, &p, NULL, 0, &l);
    int nkernels = l.n;
    total++;
    CHECK(nkernels >= 3, "smem_tile.yaml has %d kernels, the test needs 3 or more", nkernels);

    /* The cases, in plan order, ask while four threads compile: no disk cache, so every cubin comes
     * from NVRTC once, in a thread or here. */
    jit_memo memo = {0};
    compile_ahead *a = compile_ahead_start(&l, 90, NULL, &memo, 4, 1);
    total++;
    CHECK(a != NULL && l.n == 0, "the pool takes the list");
    int asked = 0;
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        if (c->variant->kind != REG_NVRTC || c->skipped) continue;
        jit_request rq;
        jit_cubin cb;
        jit_request_of_case(&x, c, 90, &rq);
        total++;
        CHECK(jit_compile(&rq, NULL, &memo, &cb, &e) == 0, "%s: %s", c->id, e.msg);
        total++;
        CHECK(cb.cubin_len > 0 && strlen(cb.cubin_sha256) == 64, "%s: no cubin", c->id);
        jit_cubin_free(&cb);
        asked++;
    }
    int compiled = compile_ahead_stop(a);
    total += 3;
    CHECK(asked > nkernels, "the plan's cases share kernels (%d cases, %d kernels)", asked, nkernels);
    CHECK(memo.n == nkernels, "the memo holds %d cubins for %d kernels: one compile each", memo.n, nkernels);
    CHECK(memo.nbusy == 0 && compiled <= nkernels, "busy %d, the threads compiled %d", memo.nbusy, compiled);

    /* Asked again after the threads stopped: from the memo, the same bytes. */
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        if (c->variant->kind != REG_NVRTC || c->skipped) continue;
        jit_request rq;
        jit_cubin cb, again;
        jit_request_of_case(&x, c, 90, &rq);
        total++;
        CHECK(jit_compile(&rq, NULL, &memo, &cb, &e) == 0 && cb.cached == 1, "%s: not from the memo", c->id);
        jit_request_of_case(&x, c, 90, &rq);
        total++;
        CHECK(jit_compile(&rq, NULL, NULL, &again, &e) == 0 && !strcmp(again.cubin_sha256, cb.cubin_sha256),
              "%s: the memo's cubin differs from a fresh compile", c->id);
        jit_cubin_free(&cb);
        jit_cubin_free(&again);
        break;
    }
    total++;
    CHECK(memo.n == nkernels, "asking again added nothing (%d)", memo.n);

    total += failure_checks(&x, &p);

    /* compile_run with a memo (run's own variants, before the cases): threads, each NVRTC in a helper, fill
     * this process's memo; the same bytes as in this process. */
    jit_memo memo4 = {0};
    compile_collect(&x, &p, NULL, 0, &l);
    int failed4 = compile_run(&l, 90, 3, NULL, &memo4, stderr);
    compile_list_free(&l);
    total += 2;
    CHECK(failed4 == 0 && memo4.n == nkernels && memo4.nbusy == 0, "compile_run in threads: %d failed, memo %d of %d",
          failed4, memo4.n, nkernels);
    int same = 0;
    for (int k = 0; k < memo4.n; k++)
        for (int j = 0; j < memo.n; j++)
            same += !strcmp(memo4.keys[k], memo.keys[j]) && memo4.cubins[k].cubin_len == memo.cubins[j].cubin_len &&
                    !memcmp(memo4.cubins[k].cubin, memo.cubins[j].cubin, memo.cubins[j].cubin_len);
    CHECK(same == nkernels, "%d of %d cubins the same as the first pool's", same, nkernels);
    jit_memo_free(&memo4);
    total += helper_checks(&x, &p, argv[0]);

    /* Stopping at once: threads finish what they hold and take nothing more; stopping no pool is fine. */
    jit_memo memo2 = {0};
    compile_collect(&x, &p, NULL, 0, &l);
    a = compile_ahead_start(&l, 90, NULL, &memo2, 2, 1);
    compiled = compile_ahead_stop(a);
    total += 2;
    CHECK(compiled <= 2 && memo2.n == compiled, "stopped at once: %d compiled, memo %d", compiled, memo2.n);
    CHECK(compile_ahead_stop(NULL) == 0 && compile_ahead_start(&l, 90, NULL, &memo2, 4, 1) == NULL,
          "an empty list starts no pool");
    jit_memo_free(&memo2);

    /* With a disk cache the cubins go there and the memo keeps none: the cases read them back. */
    char dir[] = "/tmp/tilelab-ahead-XXXXXX";
    total++;
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    jit_memo memo3 = {0};
    compile_collect(&x, &p, NULL, 0, &l);
    a = compile_ahead_start(&l, 90, dir, &memo3, 3, 0);
    int from_disk = 0, files = 0;
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        if (c->variant->kind != REG_NVRTC || c->skipped) continue;
        jit_request rq;
        jit_cubin cb;
        jit_request_of_case(&x, c, 90, &rq);
        if (jit_compile(&rq, dir, &memo3, &cb, &e) == 0 && cb.cached) from_disk++;
        jit_cubin_free(&cb);
    }
    /* What the closing line counts once the cases ran: with the cases' own compiles, every kernel. */
    int so_far = compile_ahead_wait(a);
    total += 3;
    CHECK((asked - from_disk) + so_far == nkernels, "%d cases compiled, the threads %d, for %d kernels",
          asked - from_disk, so_far, nkernels);
    CHECK(compile_ahead_wait(a) == so_far, "waiting again changes nothing");
    CHECK(compile_ahead_wait(NULL) == 0, "no pool compiled nothing");
    compiled = compile_ahead_stop(a);
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));)
        if (strstr(de->d_name, ".cubin")) files++;
    if (d) closedir(d);
    total += 2;
    /* Each kernel compiled once: by a thread (its cases read it back), or by its first case. */
    CHECK(files == nkernels, "%d cache files for %d kernels", files, nkernels);
    CHECK((asked - from_disk) + compiled == nkernels && memo3.n == 0 && memo3.nbusy == 0,
          "%d of %d cases from the cache, %d compiled by the threads, %d kernels, memo %d", from_disk, asked,
          compiled, nkernels, memo3.n);
    jit_memo_free(&memo3);
    total += report_line_checks();
    char *rm = tl_xasprintf("rm -rf '%s'", dir);
    if (system(rm) != 0) fprintf(stderr, "could not remove %s\n", dir);
    free(rm);
    jit_memo_free(&memo);
    plan_free(&p);
    config_free(&x);
    return TEST_REPORT(total);
}
