#include "runner/jit/jit_helper.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/util/util.h"

extern char **environ;

/* A message is a count of fields, then each field as its length and its bytes (both counts
 * little-endian as the machine has them: both ends are this program on this machine). A job is
 * wrapper, arch, arch_specific, entry, also ("" for none), front_end_only, nopts, the options, nh, and
 * nh pairs of text and name; an answer is rc, whether there is a log, the log, the cubin, e's message. */
#define MSG_MAX_FIELDS 100000
#define MSG_MAX_FIELD ((uint64_t)1 << 31)
#define JOB_FIXED 7
#define ANSWER_FIELDS 5

static double timeout_s = JIT_COMPILE_TIMEOUT_S;

void jit_helper_set_timeout(double seconds)
{
    timeout_s = seconds > 0 ? seconds : JIT_COMPILE_TIMEOUT_S;
}

struct jit_helper {
    pid_t pid; /* the helper process, 0 before it starts and once it is gone */
    int fd;    /* this end of its socket, -1 likewise */
    int gone;  /* 1: it could not start, or ended: this process compiles */
};

static void put_field(tl_buf *b, const void *p, size_t n)
{
    uint64_t len = n;
    tl_buf_put(b, &len, sizeof len);
    tl_buf_put(b, p, n);
}

static void put_str(tl_buf *b, const char *s)
{
    put_field(b, s ? s : "", s ? strlen(s) : 0);
}

static void put_int(tl_buf *b, long v)
{
    char t[32];
    snprintf(t, sizeof t, "%ld", v);
    put_str(b, t);
}

/* A whole message: its field count first. */
static tl_buf msg_start(uint32_t nfields)
{
    tl_buf b = {0};
    tl_buf_put(&b, &nfields, sizeof nfields);
    return b;
}

static int send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        c += r, n -= (size_t)r;
    }
    return 0;
}

typedef struct {
    uint32_t n;
    char **f;     /* each field, with a NUL after its bytes */
    uint64_t *len;
} msg_in;

static void msg_free(msg_in *m)
{
    for (uint32_t i = 0; m->f && i < m->n; i++) free(m->f[i]);
    free(m->f), free(m->len);
    memset(m, 0, sizeof *m);
}

/* 0: m holds a message; 1: the other end closed before one began; -1: a broken or oversized one. */
static int msg_read(int fd, msg_in *m)
{
    memset(m, 0, sizeof *m);
    uint32_t n;
    ssize_t r;
    while ((r = read(fd, &n, 1)) < 0 && errno == EINTR) {}
    if (r == 0) return 1;
    if (r < 0 || read_all(fd, (char *)&n + 1, sizeof n - 1) || n > MSG_MAX_FIELDS) return -1;
    m->f = tl_xcalloc(n ? n : 1, sizeof *m->f);
    m->len = tl_xcalloc(n ? n : 1, sizeof *m->len);
    for (m->n = 0; m->n < n; m->n++) {
        uint64_t len;
        if (read_all(fd, &len, sizeof len) || len > MSG_MAX_FIELD) return msg_free(m), -1;
        m->f[m->n] = tl_xmalloc((size_t)len + 1);
        m->len[m->n] = len;
        if (read_all(fd, m->f[m->n], (size_t)len)) return free(m->f[m->n]), msg_free(m), -1;
        m->f[m->n][len] = 0;
    }
    return 0;
}

/* ---- the run's side ------------------------------------------------------------------------------ */

jit_helper *jit_helper_new(void)
{
    jit_helper *h = tl_xcalloc(1, sizeof *h);
    h->fd = -1;
    return h;
}

/* 0: h's process runs, h->fd its socket; -1: it could not start (h is gone). */
static int helper_spawn(jit_helper *h)
{
    int sv[2];
    h->gone = 1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) return -1;
    posix_spawn_file_actions_t fa;
    int rc = posix_spawn_file_actions_init(&fa);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, sv[1], 0); /* its stdin, open across the exec */
    char *argv[] = {"runner", JIT_HELPER_ARG, NULL};
    pid_t pid = 0;
    if (!rc) rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc) {
        close(sv[0]);
        return -1;
    }
    h->pid = pid;
    h->fd = sv[0];
    h->gone = 0;
    return 0;
}

static void helper_end(jit_helper *h)
{
    if (h->pid > 0) {
        kill(h->pid, SIGKILL);
        while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (h->fd >= 0) close(h->fd);
    h->pid = 0;
    h->fd = -1;
    h->gone = 1;
}

/* 1 when h's answer has begun within the timeout; 0 when the time ran out first. */
static int answer_begun(const jit_helper *h)
{
    double end = tl_now_s() + timeout_s;
    for (;;) {
        double left = end - tl_now_s();
        if (left <= 0) return 0;
        struct pollfd p = {h->fd, POLLIN, 0};
        int r = poll(&p, 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1);
        if (r > 0) return 1; /* data, or the other end gone: msg_read says which */
        if (r < 0 && errno != EINTR) return 1;
    }
}

/* The job killed h's process (wait status st): e says how; h starts afresh with the next job. */
static int job_failed_status(jit_helper *h, int st, tl_err *e)
{
    h->gone = 0; /* the job's fault, not the helper's: the next job gets a new process */
    h->pid = 0;
    tl_err_set(e, "NVRTC's process died of signal %d (%s) during the compile (a crash, or more than the %llu GiB of "
                  "memory a compile may take)", WTERMSIG(st), strsignal(WTERMSIG(st)), JIT_HELPER_MEMORY_BYTES >> 30);
    return JIT_HELPER_FAILED;
}

/* The job ran past the limit: its process is killed; the next job gets a new one. */
static int job_timed_out(jit_helper *h, tl_err *e)
{
    helper_end(h);
    h->gone = 0;
    tl_err_set(e, "NVRTC ran past the compile limit of %.0f s (compile_timeout_s); its process was killed", timeout_s);
    return JIT_HELPER_FAILED;
}

int jit_helper_pid(const jit_helper *h)
{
    return h ? (int)h->pid : 0;
}

void jit_helper_stop(jit_helper *h)
{
    if (!h) return;
    helper_end(h);
    free(h);
}

int jit_helper_build(jit_helper *h, const jit_build_job *j, jit_cubin *out, tl_err *e)
{
    if (!h || h->gone || (h->pid == 0 && helper_spawn(h))) return JIT_HELPER_GONE;
    tl_buf b = msg_start((uint32_t)(JOB_FIXED + j->nopts + 1 + 2 * j->nh));
    put_str(&b, j->wrapper);
    put_int(&b, j->arch);
    put_int(&b, j->arch_specific);
    put_str(&b, j->entry);
    put_str(&b, j->also ? j->also : "");
    put_int(&b, j->front_end_only);
    put_int(&b, j->nopts);
    for (int i = 0; i < j->nopts; i++) put_str(&b, j->opts[i]);
    put_int(&b, j->nh);
    for (int i = 0; i < j->nh; i++) put_str(&b, j->texts[i]), put_str(&b, j->names[i]);
    int sent = send_all(h->fd, b.s, b.len);
    tl_buf_free(&b);
    msg_in m;
    if (sent) {
        helper_end(h);
        return JIT_HELPER_GONE;
    }
    if (!answer_begun(h)) return job_timed_out(h, e);
    int got = msg_read(h->fd, &m);
    if (got == 1) { /* it ended: a crash (or the memory bound) is the job's; an exit, a helper that cannot serve */
        int st = -1;
        while (h->pid > 0 && waitpid(h->pid, &st, 0) < 0 && errno == EINTR) {}
        h->pid = 0;
        if (st != -1 && WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) { /* SIGKILL: someone else's doing */
            close(h->fd);
            h->fd = -1;
            return job_failed_status(h, st, e);
        }
        helper_end(h);
        return JIT_HELPER_GONE;
    }
    if (got != 0) {
        helper_end(h);
        return JIT_HELPER_GONE;
    }
    char *end = NULL;
    long rc = m.n == ANSWER_FIELDS ? strtol(m.f[0], &end, 10) : 0;
    if (m.n != ANSWER_FIELDS || !end || *end || rc < -1 || (rc == 0 && !j->front_end_only && m.len[3] == 0)) {
        msg_free(&m);
        helper_end(h);
        return JIT_HELPER_GONE;
    }
    if (!strcmp(m.f[1], "1")) out->log = m.f[2], m.f[2] = NULL;
    if (rc == 0 && m.len[3]) {
        out->cubin = m.f[3], out->cubin_len = (size_t)m.len[3];
        m.f[3] = NULL;
    }
    if (rc < 0) tl_err_set(e, "%s", m.f[4]);
    msg_free(&m);
    return (int)rc;
}

/* ---- the helper's side ----------------------------------------------------------------------------- */

/* Only its socket (stdin) and stdout, stderr stay open: the run's other files (its result file's lock)
 * are not the helper's to hold. */
static void close_inherited(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return;
    int keep = dirfd(d);
    struct dirent *de;
    while ((de = readdir(d))) { /* closing as it lists: an fd closed before its entry is read is not listed */
        int fd = atoi(de->d_name);
        if (de->d_name[0] != '.' && fd > 2 && fd != keep) close(fd);
    }
    closedir(d);
}

/* The job m describes, run, answered on fd; -1 when m is no job or the answer cannot be sent. */
static int answer(int fd, const msg_in *m)
{
    if (m->n < JOB_FIXED + 1) return -1;
    long nopts = atol(m->f[6]);
    if (nopts < 0 || (uint64_t)nopts + JOB_FIXED + 1 > m->n) return -1;
    long nh = atol(m->f[JOB_FIXED + nopts]);
    if (nh < 0 || (uint64_t)JOB_FIXED + (uint64_t)nopts + 1 + 2 * (uint64_t)nh != m->n) return -1;
    const char **texts = tl_xcalloc((size_t)nh + 1, sizeof *texts), **names = tl_xcalloc((size_t)nh + 1, sizeof *names);
    for (long i = 0; i < nh; i++) {
        texts[i] = m->f[JOB_FIXED + nopts + 1 + 2 * i];
        names[i] = m->f[JOB_FIXED + nopts + 2 + 2 * i];
    }
    jit_build_job j = {m->f[0], &m->f[JOB_FIXED], (int)nopts, (int)nh, texts, names, atoi(m->f[1]), atoi(m->f[2]),
                       m->f[3], m->f[4][0] ? m->f[4] : NULL, atoi(m->f[5])};
    jit_cubin out = {0};
    tl_err e = {{0}};
    int rc = jit_build_run(&j, &out, &e);
    free(texts), free(names);
    tl_buf b = msg_start(ANSWER_FIELDS);
    put_int(&b, rc);
    put_int(&b, out.log != NULL);
    put_str(&b, out.log);
    put_field(&b, out.cubin, rc == 0 ? out.cubin_len : 0);
    put_str(&b, rc < 0 ? e.msg : "");
    int bad = send_all(fd, b.s, b.len);
    tl_buf_free(&b);
    jit_cubin_free(&out);
    return bad ? -1 : 0;
}

int jit_helper_main(void (*prepare)(void))
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a run that dies takes its helpers' compiles with it */
    close_inherited();
    /* A source that makes NVRTC take all the memory fails its own compile, not the machine. */
    struct rlimit as = {JIT_HELPER_MEMORY_BYTES, JIT_HELPER_MEMORY_BYTES};
    setrlimit(RLIMIT_AS, &as);
    if (prepare) prepare();
    for (;;) {
        msg_in m;
        int got = msg_read(0, &m);
        if (got == 1) return 0; /* the run closed its end: done */
        int bad = got != 0 || answer(0, &m);
        if (got == 0) msg_free(&m);
        if (bad) return 1;
    }
}
