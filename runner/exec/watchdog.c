#include "runner/exec/watchdog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner/exec/result.h"

#define MAX_REEXEC 64

double watchdog_default_limit(double max_time_s)
{
    return 120.0 + 20.0 * max_time_s;
}

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int running, armed, stop;
    char case_id[64];
    double limit_s;
    struct timespec deadline;
    volatile int phase;
    char *path;
    int argc;
    char **argv;
} wd = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static char *marker_path(const char *path)
{
    return tl_xasprintf("%s.timeout", path);
}

/* Every descriptor but the standard ones closes at the exec: the GPU driver's too, so that the hung context
 * goes with the old process image, and HDF5's, which the new process opens again. */
static void close_on_exec_all(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return;
    int self = dirfd(d);
    struct dirent *de;
    while ((de = readdir(d))) {
        int fd = atoi(de->d_name);
        if (fd > 2 && fd != self) fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
    }
    closedir(d);
}

/* Past the limit: the marker, then the restart (in this thread: the main one is stuck in the case). */
static void fire(void)
{
    char *m = marker_path(wd.path), *tmp = tl_xasprintf("%s.tmp", m), line[256];
    int phase = wd.phase;
    int n = snprintf(line, sizeof line, "%s\t%s\t%.17g\n", wd.case_id,
                     phase >= 0 && phase < PH_N ? tl_phase_names[phase] : "case", wd.limit_s);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int ok = fd >= 0 && write(fd, line, (size_t)n) == n && fsync(fd) == 0;
    if (fd >= 0) close(fd);
    ok = ok && rename(tmp, m) == 0;
    char why[256];
    snprintf(why, sizeof why, "case %s ran past its %.0f s limit (case_timeout_s) in its %s phase",
             wd.case_id, wd.limit_s, phase >= 0 && phase < PH_N ? tl_phase_names[phase] : "case");
    if (!ok) {
        fprintf(stderr, "runner: %s, and %s cannot be written (%s): stopping; continue with --resume -o %s\n", why, m,
                strerror(errno), wd.path);
        fflush(NULL);
        _exit(TL_EXIT_FAILED);
    }
    close_on_exec_all();
    watchdog_reexec_resume(wd.argc, wd.argv, wd.path, why);
    _exit(TL_EXIT_FAILED); /* it could not: the case is in the marker, a --resume records it */
}

static void *watch(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&wd.mu);
    while (!wd.stop) {
        if (!wd.armed) {
            pthread_cond_wait(&wd.cv, &wd.mu);
            continue;
        }
        if (pthread_cond_timedwait(&wd.cv, &wd.mu, &wd.deadline) == ETIMEDOUT && wd.armed && !wd.stop) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec > wd.deadline.tv_sec ||
                (now.tv_sec == wd.deadline.tv_sec && now.tv_nsec >= wd.deadline.tv_nsec))
                fire();
        }
    }
    pthread_mutex_unlock(&wd.mu);
    return NULL;
}

/* What SIGTERM (Slurm's time limit) and SIGINT (Ctrl-C) print before they end the run as they would have: the
 * file holds every case committed, and the command that goes on. Made before, written by write(2) alone. */
static char stop_msg[4096];
static size_t stop_len;

static void on_stop(int sig)
{
    if (write(2, stop_msg, stop_len) < 0) { /* nothing more to do in a handler */ }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_stops(const char *path, int argc, char **argv)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "\nrunner: stopped; %s holds every case reported done. Continue with:", path);
    int had_o = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--resume")) continue;
        had_o |= !strcmp(argv[i], "-o") || !strcmp(argv[i], "--output");
        tl_buf_printf(&b, " %s", argv[i]);
    }
    tl_buf_printf(&b, "%s%s --resume\n", had_o ? "" : " -o ", had_o ? "" : path);
    stop_len = b.len < sizeof stop_msg ? b.len : sizeof stop_msg - 1;
    memcpy(stop_msg, b.s, stop_len);
    free(b.s);
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

int watchdog_start(const char *path, int argc, char **argv, tl_err *e)
{
    pthread_condattr_t ca;
    if (wd.running) return 0;
    wd.path = tl_xstrdup(path), wd.argc = argc, wd.argv = argv, wd.stop = 0, wd.armed = 0, wd.phase = -1;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_destroy(&wd.cv);
    pthread_cond_init(&wd.cv, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&wd.thread, NULL, watch, NULL);
    if (rc) {
        tl_err_set(e, "cannot start the watchdog thread: %s", strerror(rc));
        free(wd.path), wd.path = NULL;
        return -1;
    }
    wd.running = 1;
    catch_stops(path, argc, argv);
    return 0;
}

void watchdog_arm(const char *case_id, double limit_s)
{
    if (!wd.running) return;
    pthread_mutex_lock(&wd.mu);
    snprintf(wd.case_id, sizeof wd.case_id, "%s", case_id);
    wd.limit_s = limit_s;
    wd.phase = -1;
    wd.armed = limit_s > 0;
    clock_gettime(CLOCK_MONOTONIC, &wd.deadline);
    wd.deadline.tv_sec += (time_t)limit_s;
    wd.deadline.tv_nsec += (long)((limit_s - (double)(time_t)limit_s) * 1e9);
    if (wd.deadline.tv_nsec >= 1000000000L) wd.deadline.tv_sec++, wd.deadline.tv_nsec -= 1000000000L;
    pthread_cond_signal(&wd.cv);
    pthread_mutex_unlock(&wd.mu);
}

void watchdog_phase(int phase)
{
    wd.phase = phase;
}

void watchdog_disarm(void)
{
    if (!wd.running) return;
    pthread_mutex_lock(&wd.mu);
    wd.armed = 0;
    pthread_cond_signal(&wd.cv);
    pthread_mutex_unlock(&wd.mu);
}

void watchdog_stop(void)
{
    if (!wd.running) return;
    pthread_mutex_lock(&wd.mu);
    wd.stop = 1, wd.armed = 0;
    pthread_cond_signal(&wd.cv);
    pthread_mutex_unlock(&wd.mu);
    pthread_join(wd.thread, NULL);
    wd.running = 0;
    free(wd.path), wd.path = NULL;
}

int watchdog_take_marker(const char *path, watchdog_marker *m, tl_err *e)
{
    char *mp = marker_path(path), line[256];
    FILE *f = fopen(mp, "re");
    int rc = 0;
    memset(m, 0, sizeof *m);
    if (!f) {
        if (errno != ENOENT) tl_err_set(e, "%s: %s", mp, strerror(errno)), rc = -1;
        free(mp);
        return rc;
    }
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%63[^\t]\t%31[^\t]\t%lf", m->case_id, m->phase, &m->limit_s) != 3) {
        tl_err_set(e, "%s: not a marker of a timed-out case (remove it to go on)", mp);
        rc = -1;
    } else if (unlink(mp) != 0) {
        tl_err_set(e, "%s: cannot remove it: %s", mp, strerror(errno));
        rc = -1;
    } else {
        rc = 1;
    }
    fclose(f);
    free(mp);
    return rc;
}

void watchdog_reexec_resume(int argc, char **argv, const char *path, const char *why)
{
    const char *depth = getenv("TILELAB_REEXEC_DEPTH");
    int d = depth ? atoi(depth) : 0;
    if (d >= MAX_REEXEC) {
        fprintf(stderr, "runner: %s; it started again %d times already: stopping (continue with --resume -o %s)\n",
                why, d, path);
        return;
    }
    char **nv = tl_xcalloc((size_t)argc + 4, sizeof *nv), num[16];
    int n = 0;
    nv[n++] = argv[0]; /* as the user called it; the binary is /proc/self/exe */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--resume")) continue;
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
            i++;
            continue;
        }
        nv[n++] = argv[i];
    }
    nv[n++] = "-o";
    nv[n++] = (char *)path;
    nv[n++] = "--resume";
    snprintf(num, sizeof num, "%d", d + 1);
    setenv("TILELAB_REEXEC_DEPTH", num, 1);
    fprintf(stderr, "runner: %s; starting again with --resume (%d)\n", why, d + 1);
    fflush(NULL);
    if (getenv("NV_SANITIZER_INJECTION_PORT_BASE")) {
        /* Under compute-sanitizer, which follows a process's children but not an exec in its place (an exec'd
         * runner waits for the tool forever): the new runner is a child, started once this process is gone (so
         * that it holds nothing the new one needs: the file's lock, the GPU). */
        pid_t me = getpid(), pid = fork();
        if (pid == 0) {
            while (getppid() == me) {
                struct timespec nap = {0, 5 * 1000 * 1000};
                nanosleep(&nap, NULL);
            }
            execv("/proc/self/exe", nv);
            _exit(TL_EXIT_FAILED);
        }
        if (pid > 0) _exit(TL_EXIT_FAILED); /* a case failed: the exit code the tool passes on */
    }
    execv("/proc/self/exe", nv);
    fprintf(stderr, "runner: cannot re-execute itself: %s; continue with --resume -o %s\n", strerror(errno), path);
    free(nv);
}
