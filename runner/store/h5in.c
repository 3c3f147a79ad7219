#include "runner/store/h5in.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/store/h5check.h"
#include "runner/store/h5src.h"
#include "runner/store/h5util.h"

/* Opens and checks path in this process. */
static hid_t open_checked(const char *path, tl_err *e)
{
    hid_t f = h5util_open_result(path, e);
    if (f >= 0 && h5check_file(f, path, e)) {
        H5Fclose(f);
        return -1;
    }
    return f;
}

#ifndef TL_LIBFUZZER
/* How long the check of a file may take: far more than a real file of that size needs. */
static unsigned probe_seconds(const char *path)
{
    struct stat st;
    const char *t = getenv("TILELAB_TEST_PROBE_SECONDS"); /* tests only: the fuzz triage's hanging files */
    if (t && atoi(t) > 0) return (unsigned)atoi(t);
    return 30 + (stat(path, &st) == 0 ? (unsigned)(st.st_size >> 20) : 0);
}
#endif

/* A crafted file can crash the HDF5 library itself (1.10 follows some offsets in a file unchecked,
 * e.g. into its global heap), so a file is first opened and checked in a child process: a crash
 * there is an error here, "FILE: ... crashes the HDF5 library", and nothing of this process is lost.
 * 1 when the child checked the file, 0 when no child could run (the caller checks it), -1 with e.
 * The fuzz build skips the child, so that libFuzzer sees every crash. */
static int probe(const char *path, tl_err *e)
{
#ifdef TL_LIBFUZZER
    (void)path, (void)e;
    return 0;
#else
    int fds[2], status;
    unsigned limit = probe_seconds(path);
    if (pipe(fds) != 0) return 0; /* no child: read it here */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        tl_err ce = {{0}};
        close(fds[0]);
        /* What the library (or a sanitizer) prints as it crashes is not for the user: one line is. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2);
        alarm(limit); /* a crafted file can also make HDF5 loop */
        hid_t f = open_checked(path, &ce);
        if (f < 0 && write(fds[1], ce.msg, strlen(ce.msg)) < 0) _exit(3);
        _exit(f < 0 ? 1 : 0); /* no clean-up: the parent's files stay as they are */
    }
    close(fds[1]);
    char msg[sizeof e->msg];
    size_t n = 0;
    for (ssize_t r; n + 1 < sizeof msg && (r = read(fds[0], msg + n, sizeof msg - 1 - n)) > 0;) n += (size_t)r;
    msg[n] = '\0';
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        tl_err_set(e, "%s: reading it did not finish in %u s (damaged in a way that makes the HDF5 library loop); "
                      "not read", path, limit);
        return -1;
    }
    if (WIFSIGNALED(status)) {
        tl_err_set(e, "%s: damaged in a way that crashes the HDF5 library (%s while reading it); not read", path,
                   strsignal(WTERMSIG(status)));
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
        tl_err_set(e, "%s", n ? msg : "cannot read it");
        return -1;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
#endif
}

/* A FIFO or a device would block or never end: only a regular file is read. */
static int regular(const char *path, tl_err *e)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) { /* a folder: said later */
        tl_err_set(e, "%s: not a regular file (a FIFO or a device)", path);
        return -1;
    }
    return 0;
}

hid_t h5in_open(const char *path, tl_err *e)
{
    if (regular(path, e)) return -1;
    /* Checked again here even when the child checked it: the file may have changed in between. */
    if (probe(path, e) < 0) return -1;
    return open_checked(path, e);
}

hid_t h5in_open_locked(const char *path, tl_err *e)
{
    if (regular(path, e)) return -1;
    int checked = probe(path, e);
    if (checked < 0) return -1;
    return checked ? h5util_open_result(path, e) : open_checked(path, e);
}

int h5in_read_source(hid_t f, const char *path, h5in_source *s, tl_err *e)
{
    memset(s, 0, sizeof *s);
    if (!(s->config_yaml = h5util_read_str(f, "config_yaml"))) {
        tl_err_set(e, "%s: has no config_yaml attribute", path);
        return -1;
    }
    s->config_path = h5util_read_str(f, "config_path");
    s->created_utc = h5util_read_str(f, "created_utc");
    s->host = h5util_read_str(f, "host");
    return 0;
}

void h5in_source_free(h5in_source *s)
{
    free(s->config_yaml);
    free(s->config_path);
    free(s->created_utc);
    free(s->host);
    memset(s, 0, sizeof *s);
}
