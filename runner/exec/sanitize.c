#include "runner/exec/sanitize.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char *const sanitize_tool_names[SANITIZE_N] = {"", "memcheck", "racecheck", "initcheck", "synccheck"};

sanitize_tool sanitize_parse_tool(const char *s)
{
    for (int t = 1; s && t < SANITIZE_N; t++)
        if (!strcmp(s, sanitize_tool_names[t])) return (sanitize_tool)t;
    return SANITIZE_NONE;
}

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *sanitize_find(tl_err *e)
{
    const char *own = getenv("TILELAB_SANITIZER");
    if (own && *own) {
        if (executable(own)) return tl_xstrdup(own);
        tl_err_set(e, "TILELAB_SANITIZER=%s: not an executable file", own);
        return NULL;
    }
    tl_buf tried = {0};
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t h = 0; h < sizeof homes / sizeof *homes; h++) {
        if (!homes[h] || !*homes[h]) continue;
        const char *subs[] = {"compute-sanitizer/compute-sanitizer", "bin/compute-sanitizer"};
        for (int k = 0; k < 2; k++) {
            char *p = tl_xasprintf("%s/%s", homes[h], subs[k]);
            if (executable(p)) {
                tl_buf_free(&tried);
                return p;
            }
            tl_buf_printf(&tried, "%s%s", tried.len ? ", " : "", p);
            free(p);
        }
    }
    const char *path = getenv("PATH");
    char *dirs = tl_xstrdup(path ? path : ""), *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char *p = tl_xasprintf("%s/compute-sanitizer", *d ? d : ".");
        if (executable(p)) {
            free(dirs);
            tl_buf_free(&tried);
            return p;
        }
        free(p);
    }
    free(dirs);
    tl_err_set(e, "--sanitize needs NVIDIA's compute-sanitizer (part of the CUDA toolkit): not found at %s nor on "
                  "PATH; install it or set CUDA_HOME", tried.len ? tried.s : "the toolkit's folders");
    tl_buf_free(&tried);
    return NULL;
}

/* ---- the log ------------------------------------------------------------------------------------ */

#define PREFIX "========="

/* The text of a line of the tool's after its prefix (and one blank), or NULL for a line of someone else's. */
static const char *tool_text(const char *line)
{
    if (strncmp(line, PREFIX, strlen(PREFIX))) return NULL;
    line += strlen(PREFIX);
    return *line == ' ' ? line + 1 : line;
}

/* What starts a finding: a line of the tool's at its left margin but its banner, summaries and notes. */
static int finding_head(const char *t)
{
    static const char *const not_findings[] = {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY",
                                               "LEAK SUMMARY", "Warning: Maximum number", "Target application",
                                               "Note:", "Program hit"};
    if (!*t || *t == ' ') return 0;
    for (size_t i = 0; i < sizeof not_findings / sizeof *not_findings; i++)
        if (!strncmp(t, not_findings[i], strlen(not_findings[i]))) return 0;
    return 1;
}

static char *trimmed(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
    char *r = tl_xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

void sanitize_parse_log(const char *log, sanitize_findings *f)
{
    memset(f, 0, sizeof *f);
    f->errors = -1;
    tl_buf rep = {0};
    tl_buf_puts(&rep, "");
    int heads = 0, cut = 0, want_detail = 0;
    for (const char *p = log ? log : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *raw = tl_xmalloc(n + 1);
        memcpy(raw, p, n);
        raw[n] = '\0';
        p += n + (nl != NULL);
        const char *t = tool_text(raw);
        if (!t) {
            free(raw);
            continue;
        }
        const char *sum = strstr(t, "ERROR SUMMARY:"), *race = strstr(t, "RACECHECK SUMMARY:");
        if (sum) {
            f->errors = atoi(sum + strlen("ERROR SUMMARY:"));
        } else if (race && strchr(race, '(') && f->errors < 0) {
            /* racecheck's verdict when it found no hazard, and no ERROR SUMMARY follows: "(0 errors, 0 warnings)" */
            f->errors = atoi(strchr(race, '(') + 1);
            if (!cut) tl_buf_printf(&rep, "%s\n", t);
        } else if (!strncmp(t, "COMPUTE-SANITIZER", 17)) {
            /* the banner */
        } else {
            if (finding_head(t)) {
                heads++;
                if (!f->first) {
                    f->first = trimmed(t, strlen(t));
                    want_detail = 1;
                }
            } else if (want_detail && *t == ' ' && (strstr(t, " at ") || !strncmp(t + strspn(t, " "), "at ", 3) ||
                                                    !strncmp(t + strspn(t, " "), "and ", 4))) {
                /* the first finding's place: "at oob+0x70 in oob.cu:4", racecheck's "and Read access at ..." */
                char *d = trimmed(t, strlen(t));
                char *both = tl_xasprintf("%s %s", f->first, d);
                free(f->first), free(d);
                f->first = both;
                want_detail = 0;
            } else if (!*t) {
                want_detail = 0;
            }
            if (!cut) {
                if (rep.len + strlen(t) + 1 > SANITIZE_REPORT_MAX - 4) {
                    tl_buf_puts(&rep, "...\n");
                    cut = 1;
                } else {
                    tl_buf_printf(&rep, "%s\n", t);
                }
            }
        }
        free(raw);
    }
    if (f->errors < 0 && heads) f->errors = heads; /* the tool ended before its summary */
    /* Blank lines between findings are the tool's; the last is no finding's. */
    while (rep.len && rep.s[rep.len - 1] == '\n' && (rep.len < 2 || rep.s[rep.len - 2] == '\n')) rep.s[--rep.len] = '\0';
    f->report = rep.s;
}

/* s without every occurrence of prefix (the tool makes the names NVRTC was given absolute against its working
 * folder; the user wrote them relative to the experiment's). */
static void drop_all(char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    char *at;
    while (s && n && (at = strstr(s, prefix))) memmove(at, at + n, strlen(at + n) + 1);
}

void sanitize_findings_free(sanitize_findings *f)
{
    free(f->report);
    free(f->first);
    memset(f, 0, sizeof *f);
}

/* ---- the child ---------------------------------------------------------------------------------- */

/* The child's folder, with what it left (its files, the result file's siblings). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *p = tl_xasprintf("%s/%s", dir, de->d_name);
        unlink(p);
        free(p);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* The last line of what the child printed, for a message. */
static char *last_line(const char *path)
{
    tl_err e;
    size_t n = 0;
    char *text = tl_read_file(path, &n, &e);
    if (!text) return tl_xstrdup("");
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
    char *nl = strrchr(text, '\n');
    char *r = tl_xstrdup(nl ? nl + 1 : text);
    free(text);
    return r;
}

int sanitize_run_case(const sanitize_job *j, const char *case_id, const char *const *entries, int nentries, sanitize_findings *f,
                 tl_err *e)
{
    memset(f, 0, sizeof *f);
    f->errors = -1;
    const char *tmp = getenv("TMPDIR");
    char *dir = tl_xasprintf("%s/tilelab-sanitize-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        tl_err_set(e, "compute-sanitizer: cannot make a folder for the child run (%s): %s", dir, strerror(errno));
        free(dir);
        return -1;
    }
    char *ids = tl_xasprintf("%s/ids", dir), *out = tl_xasprintf("%s/case.h5", dir);
    char *logf = tl_xasprintf("%s/tool.log", dir), *child = tl_xasprintf("%s/child.txt", dir);
    int rc = -1;
    FILE *fi = fopen(ids, "w");
    if (!fi || fprintf(fi, "%s\n", case_id) < 0 || fclose(fi)) {
        if (fi) fclose(fi);
        tl_err_set(e, "compute-sanitizer: cannot write %s", ids);
        goto out;
    }
    char *argv[64 + 2 * 4];
    char *filters[4] = {0};
    char self[PATH_MAX];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0) {
        tl_err_set(e, "compute-sanitizer: cannot find the runner's own program: %s", strerror(errno));
        goto out;
    }
    self[sn] = '\0';
    int a = 0;
    argv[a++] = (char *)j->sanitizer;
    argv[a++] = "--tool", argv[a++] = (char *)sanitize_tool_names[j->tool];
    argv[a++] = "--log-file", argv[a++] = logf;
    argv[a++] = "--print-limit", argv[a++] = "20";
    argv[a++] = "--show-backtrace", argv[a++] = "device";
    argv[a++] = "--strip-paths", argv[a++] = "no";
    /* A finding ends the kernel, not the run: the child says how its case went after it. */
    argv[a++] = "--destroy-on-device-error", argv[a++] = "kernel";
    /* The API errors a finding causes are its echo, not more findings; the child's exit code is its verdict. */
    argv[a++] = "--report-api-errors", argv[a++] = "no";
    argv[a++] = "--check-exit-code", argv[a++] = "no";
    if (j->tool == SANITIZE_MEMCHECK) argv[a++] = "--padding", argv[a++] = "1048576";
    for (int k = 0; k < nentries && k < 4; k++) {
        filters[k] = tl_xasprintf("kne=%s", entries[k]);
        argv[a++] = "--kernel-name", argv[a++] = filters[k];
    }
    argv[a++] = self; /* (the tool's own /proc/self/exe is the tool) */
    argv[a++] = "run", argv[a++] = (char *)j->experiment;
    argv[a++] = "-o", argv[a++] = out;
    argv[a++] = "--worker-cases", argv[a++] = ids;
    argv[a++] = "--compile-jobs", argv[a++] = "0";
    argv[a++] = "-q";
    argv[a++] = "--sanitize-child";
    argv[a] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    pid_t pid = 0;
    int err = posix_spawn_file_actions_init(&fa);
    if (!err) err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!err) err = posix_spawn_file_actions_addopen(&fa, 1, child, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!err) err = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (!err) err = posix_spawnattr_init(&at);
    /* Its own process group: a child past its limit is killed with whatever it started. */
    if (!err) err = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    if (!err) err = posix_spawnattr_setpgroup(&at, 0);
    if (!err) err = posix_spawn(&pid, j->sanitizer, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    for (int k = 0; k < 4; k++) free(filters[k]);
    if (err) {
        tl_err_set(e, "compute-sanitizer: cannot start %s: %s", j->sanitizer, strerror(err));
        goto out;
    }
    int st = 0, timed_out = 0;
    double end = tl_now_s() + j->limit_s;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            tl_err_set(e, "compute-sanitizer: lost its process: %s", strerror(errno));
            goto out;
        }
        if (tl_now_s() > end) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
            timed_out = 1;
            break;
        }
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    size_t n = 0;
    tl_err le;
    char *log = tl_read_file(logf, &n, &le);
    sanitize_parse_log(log, f);
    free(log);
    char cwd[PATH_MAX + 1];
    if (getcwd(cwd, sizeof cwd - 1)) {
        strcat(cwd, "/");
        drop_all(f->report, cwd);
        drop_all(f->first, cwd);
    }
    if (timed_out) {
        tl_err_set(e, "compute-sanitizer %s ran past %.0f s checking the case; it was killed", sanitize_tool_names[j->tool],
                   j->limit_s);
    } else if (f->errors > 0) {
        rc = 0; /* findings: whatever the child's case did after them */
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) > 1 || f->errors < 0) {
        char *last = last_line(child);
        char *shown = tl_shown(last);
        if (WIFSIGNALED(st))
            tl_err_set(e, "compute-sanitizer %s could not check the case: it died of signal %d; its run said: %s",
                       sanitize_tool_names[j->tool], WTERMSIG(st), shown);
        else
            tl_err_set(e, "compute-sanitizer %s could not check the case (status %d%s): %s", sanitize_tool_names[j->tool],
                       WIFEXITED(st) ? WEXITSTATUS(st) : -1, f->errors < 0 ? ", no ERROR SUMMARY in its log" : "",
                       shown);
        free(shown), free(last);
    } else {
        rc = 0;
    }
out:
    remove_dir(dir);
    free(dir), free(ids), free(out), free(logf), free(child);
    if (rc) sanitize_findings_free(f), f->errors = -1;
    return rc;
}
