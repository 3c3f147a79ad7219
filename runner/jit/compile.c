#include "runner/jit/compile.h"
#include "runner/jit/jit_helper.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int compile_default_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) cpus = CPU_COUNT(&set);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double by_memory = pages > 0 && page > 0 ? (double)pages * (double)page / COMPILE_BYTES_A_THREAD : (double)cpus;
    double n = (double)cpus < by_memory ? (double)cpus : by_memory;
    return n < 1 ? 1 : n > COMPILE_MAX_THREADS ? COMPILE_MAX_THREADS : (int)n;
}

/* Sizes do not change the code: a kernel is its variant, params, layouts, dtype and the op's hints of which
 * args are 0 (reg_arg.nonzero_macro: sgemm's beta), which may differ between experiments compiled together. */
static int same_kernel(const tl_case *a, const tl_case *b)
{
    /* What compiles: a dispatching variant's case compiles the rung its table picked. */
    if (a->run != b->run || memcmp(a->run_params, b->run_params, sizeof a->run_params) ||
        strcmp(a->layout_text, b->layout_text) || strcmp(a->dtype, b->dtype))
        return 0;
    for (int k = 0; k < a->op->nargs; k++)
        if (a->op->args[k].nonzero_macro && (a->spec.args[k] != 0) != (b->spec.args[k] != 0)) return 0;
    return 1;
}

void compile_collect(const tl_experiment *x, const tl_plan *p, const unsigned char *mine, int only_declared,
                     compile_list *l)
{
    for (int i = 0; i < p->ncases; i++) {
        const tl_case *pc = &p->cases[i];
        if (pc->skipped || (mine && !mine[i]) || (only_declared && !pc->variant->decl)) continue;
        /* A case with trials compiles every candidate it tries (the first is its own pick). */
        for (int t = 0; t < (pc->ntrials ? pc->ntrials : 1); t++) {
            const tl_case *c = pc->ntrials ? &pc->trial[t] : pc;
            if (c->run->kind != REG_NVRTC) continue;
            int dup = 0;
            for (int j = 0; j < l->n && !dup; j++) dup = same_kernel(l->items[j].c, c);
            if (dup) continue;
            l->items = realloc(l->items, sizeof *l->items * (size_t)(l->n + 1));
            if (!l->items) abort();
            l->items[l->n++] = (compile_item){x, c};
        }
    }
}

void compile_list_free(compile_list *l)
{
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Worker w of nw compiles items w, w + nw, ... (NVRTC in helper h's process when h is not NULL); returns
 * the number that failed. */
static int compile_share(const compile_list *l, int w, int nw, int arch, const char *cache, jit_memo *memo,
                         jit_helper *h, FILE *log)
{
    int bad = 0;
    for (int i = w; i < l->n; i += nw) {
        const tl_case *c = l->items[i].c;
        jit_request rq;
        jit_cubin cb;
        tl_err e;
        jit_request_of_case(l->items[i].x, c, arch, &rq);
        if (jit_compile_in(&rq, cache, memo, h, &cb, &e)) {
            /* Where the experiment declares the variant, then what the compile says of its files. */
            fprintf(log, "FAILED %s%s%s%s%s: %s:%d:%d: variant %s: %s\n", c->variant->name, c->params_text[0] ? " " : "",
                    c->params_text, c->layout_text[0] ? " " : "", c->layout_text, l->items[i].x->path, c->cv->line,
                    c->cv->col, c->variant->name, e.msg);
            fflush(log);
            bad++;
        } else {
            jit_cubin_free(&cb);
        }
    }
    return bad;
}

typedef struct {
    const compile_list *l;
    int w, nw, arch;
    const char *cache;
    jit_memo *memo;
    FILE *log;
    int failed;
} share_thread;

static void *share_worker(void *arg)
{
    share_thread *s = arg;
    jit_helper *h = jit_helper_new();
    s->failed = compile_share(s->l, s->w, s->nw, s->arch, s->cache, s->memo, h, s->log);
    jit_helper_stop(h);
    return NULL;
}

/* The memo is this process's: `jobs` threads fill it, each with its NVRTC in a helper process. */
static int compile_threads(const compile_list *l, int arch, int jobs, const char *cache, jit_memo *memo, FILE *log)
{
    share_thread *s = tl_xcalloc((size_t)jobs, sizeof *s);
    pthread_t *t = tl_xcalloc((size_t)jobs, sizeof *t);
    char *started = tl_xcalloc((size_t)jobs, 1);
    int failed = 0;
    for (int w = 0; w < jobs; w++) {
        s[w] = (share_thread){l, w, jobs, arch, cache, memo, log, 0};
        started[w] = pthread_create(&t[w], NULL, share_worker, &s[w]) == 0;
    }
    for (int w = 0; w < jobs; w++) {
        if (started[w]) pthread_join(t[w], NULL);
        else s[w].failed = compile_share(l, w, jobs, arch, cache, memo, NULL, log); /* no thread: here */
        failed += s[w].failed;
    }
    free(s), free(t), free(started);
    return failed;
}

int compile_run(const compile_list *l, int arch, int jobs, const char *cache, jit_memo *memo, FILE *log)
{
    if (jobs < 1) jobs = 1;
    if (jobs > l->n) jobs = l->n > 0 ? l->n : 1;
    if (memo && jobs > 1) return compile_threads(l, arch, jobs, cache, memo, log);
    fflush(NULL);
    pid_t *pid = tl_xcalloc((size_t)jobs, sizeof *pid);
    int failed = 0, status;
    for (int w = 1; w < jobs; w++) {
        pid[w] = fork();
        if (pid[w] == 0) _exit(compile_share(l, w, jobs, arch, cache, NULL, NULL, log) ? 1 : 0);
        if (pid[w] < 0) failed += compile_share(l, w, jobs, arch, cache, memo, NULL, log); /* no process: here */
    }
    failed += compile_share(l, 0, jobs, arch, cache, memo, NULL, log);
    /* Only the workers forked here: the sandboxed compile helper is a child too, and lives until the end. */
    for (int w = 1; w < jobs; w++)
        if (pid[w] > 0) {
            pid_t got;
            while ((got = waitpid(pid[w], &status, 0)) < 0 && errno == EINTR) {}
            failed += got < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        }
    free(pid);
    return failed;
}

/* ---- ahead of the cases ----------------------------------------------------------------------- */

typedef struct {
    compile_ahead *pool;
    jit_helper *helper; /* the process this thread's compiles run in; NULL: in this one */
} ahead_thread;

struct compile_ahead {
    compile_list list;
    int arch;
    char *cache;
    jit_memo *memo;
    pthread_mutex_t mu;
    int next, stop, done;
    pthread_t *threads;
    ahead_thread *each;
    int nthreads;
};

static void *ahead_worker(void *arg)
{
    ahead_thread *me = arg;
    compile_ahead *a = me->pool;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        int i = a->stop || a->next >= a->list.n ? -1 : a->next++;
        pthread_mutex_unlock(&a->mu);
        if (i < 0) return NULL;
        jit_request rq;
        jit_cubin cb;
        tl_err e;
        jit_request_of_case(a->list.items[i].x, a->list.items[i].c, a->arch, &rq);
        if (jit_compile_in(&rq, a->cache, a->memo, me->helper, &cb, &e) == 0) {
            pthread_mutex_lock(&a->mu);
            a->done += !cb.cached;
            pthread_mutex_unlock(&a->mu);
            jit_cubin_free(&cb);
        }
    }
}

compile_ahead *compile_ahead_start(compile_list *l, int arch, const char *cache, jit_memo *memo, int threads,
                                   int helpers)
{
    if (threads < 1 || l->n == 0) {
        compile_list_free(l);
        return NULL;
    }
    compile_ahead *a = tl_xcalloc(1, sizeof *a);
    a->list = *l;
    memset(l, 0, sizeof *l);
    a->arch = arch;
    a->cache = cache ? tl_xstrdup(cache) : NULL;
    a->memo = memo;
    pthread_mutex_init(&a->mu, NULL);
    if (threads > a->list.n) threads = a->list.n;
    a->threads = tl_xcalloc((size_t)threads, sizeof *a->threads);
    a->each = tl_xcalloc((size_t)threads, sizeof *a->each);
    for (int t = 0; t < threads; t++) {
        ahead_thread *me = &a->each[a->nthreads];
        me->pool = a;
        me->helper = helpers ? jit_helper_new() : NULL; /* (none: this thread compiles in the run's process) */
        if (pthread_create(&a->threads[a->nthreads], NULL, ahead_worker, me) != 0) { /* fewer threads */
            jit_helper_stop(me->helper);
            break;
        }
        a->nthreads++;
    }
    return a;
}

int compile_ahead_wait(compile_ahead *a)
{
    if (!a) return 0;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_mutex_unlock(&a->mu);
    for (int t = 0; t < a->nthreads; t++) {
        pthread_join(a->threads[t], NULL);
        jit_helper_stop(a->each[t].helper);
    }
    a->nthreads = 0; /* joined: a later wait or stop has none to join */
    return a->done;
}

int compile_ahead_stop(compile_ahead *a)
{
    if (!a) return 0;
    int done = compile_ahead_wait(a);
    pthread_mutex_destroy(&a->mu);
    compile_list_free(&a->list);
    free(a->threads);
    free(a->each);
    free(a->cache);
    free(a);
    return done;
}
