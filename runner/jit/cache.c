#include "runner/jit/cache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "tilelab-cubin/2\n"
#define MAX_ENTRY (256u << 20) /* no cubin is this large */

char *cache_dir_name(void)
{
    const char *d = getenv("TILELAB_CACHE_DIR");
    if (d && *d) return tl_xstrdup(d);
    d = getenv("XDG_CACHE_HOME");
    if (d && *d) return tl_xasprintf("%s/tilelab/cubin", d);
    d = getenv("HOME");
    if (d && *d) return tl_xasprintf("%s/.cache/tilelab/cubin", d);
    return NULL;
}

/* ---- trust --------------------------------------------------------------------------------------- */

/* Creates the missing folders of path, each 0700 (whatever the umask). */
static int make_private(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0700) == 0) chmod(buf, 0700);
        else if (errno != EEXIST) return -1;
        if (!c) return 0;
        *p = c;
    }
}

/* A folder the runner may take compiled code from: this user's (or root's), writable by nobody else;
 * the folders above it likewise, unless sticky (as /tmp). */
static int trusted(const char *dir, char *why, size_t n)
{
    char *real = realpath(dir, NULL);
    struct stat st;
    uid_t me = geteuid();
    int ok = 0;
    if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, n, "%s is not a folder", dir);
    } else if (st.st_uid != me) {
        snprintf(why, n, "%s belongs to another user (uid %u)", real, (unsigned)st.st_uid);
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, n, "%s is writable by other users (mode %03o)", real, (unsigned)(st.st_mode & 0777));
    } else {
        ok = 1;
        for (char *slash = strrchr(real, '/'); ok && slash; slash = strrchr(real, '/')) {
            *slash = '\0';
            const char *up = real[0] ? real : "/";
            if (stat(up, &st) != 0) break;
            if (st.st_uid != me && st.st_uid != 0) {
                snprintf(why, n, "%s, above it, belongs to another user (uid %u)", up, (unsigned)st.st_uid);
                ok = 0;
            } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
                snprintf(why, n, "%s, above it, is writable by other users (mode %03o)", up, (unsigned)(st.st_mode & 0777));
                ok = 0;
            }
            if (!real[0]) break;
        }
    }
    free(real);
    return ok;
}

char *cache_dir(char *why, size_t whylen)
{
    char *dir = cache_dir_name();
    why[0] = '\0';
    if (!dir) return NULL;
    struct stat st;
    if (stat(dir, &st) != 0 && make_private(dir) != 0) {
        snprintf(why, whylen, "cannot create %s: %s", dir, strerror(errno));
    } else if (trusted(dir, why, whylen)) {
        return dir;
    }
    free(dir);
    return NULL;
}

/* ---- entries ------------------------------------------------------------------------------------- */

static int is_key(const char *s, size_t n)
{
    if (n != 64) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i])) return 0;
    return 1;
}

/* Parses an entry: MAGIC, "key K", "sha256 S", "bytes N", a blank line, then N bytes hashing to S.
 * 0 with the key and the cubin's place in data. */
static int parse_entry(const char *data, size_t len, char key[65], size_t *off, size_t *n)
{
    char sha[65], hex[65], head[256];
    unsigned long long bytes;
    size_t m = strlen(MAGIC), h = 0;
    if (len < m || memcmp(data, MAGIC, m)) return -1;
    while (m + h + 1 < len && h < 200 && !(data[m + h] == '\n' && data[m + h + 1] == '\n')) h++;
    if (m + h + 1 >= len || h >= 200 || memchr(data + m, '\0', h)) return -1;
    memcpy(head, data + m, h + 1);
    head[h + 1] = '\0';
    if (sscanf(head, "key %64s sha256 %64s bytes %llu", key, sha, &bytes) != 3 || !is_key(key, strlen(key)) ||
        !is_key(sha, strlen(sha)))
        return -1;
    *off = m + h + 2;
    if (bytes == 0 || bytes != len - *off) return -1;
    tl_sha256_hex(data + *off, (size_t)bytes, hex);
    if (strcmp(hex, sha)) return -1;
    *n = (size_t)bytes;
    return 0;
}

/* The bytes of a regular file of this user that nobody else can write, at most MAX_ENTRY. */
static char *read_private(const char *path, size_t *len)
{
    /* O_NONBLOCK: a FIFO put in the cache's place is refused below instead of blocking the open. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    char *buf = NULL;
    if (fd < 0) return NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
        st.st_size > 0 && (unsigned long long)st.st_size <= MAX_ENTRY) {
        buf = tl_xmalloc((size_t)st.st_size);
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got != (size_t)st.st_size) free(buf), buf = NULL;
        else *len = got;
    }
    close(fd);
    return buf;
}

int cache_get(const char *dir, const char *key, void **cubin, size_t *len)
{
    if (!dir) return -1;
    char *path = tl_xasprintf("%s/%s.cubin", dir, key), got[65];
    size_t n, off, size;
    char *data = read_private(path, &n);
    free(path);
    if (!data) return -1;
    if (parse_entry(data, n, got, &off, &size) || strcmp(got, key)) {
        free(data);
        return -1;
    }
    memmove(data, data + off, size);
    *cubin = data;
    *len = size;
    return 0;
}

int cache_put(const char *dir, const char *key, const void *cubin, size_t len)
{
    char sha[65];
    if (!dir) return -1;
    char *path = tl_xasprintf("%s/%s.cubin", dir, key), *tmp = tl_xasprintf("%s/.%s.%d.tmp", dir, key, (int)getpid());
    tl_sha256_hex(cubin, len, sha);
    char *head = tl_xasprintf(MAGIC "key %s\nsha256 %s\nbytes %zu\n\n", key, sha, len);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), ok = fd >= 0;
    ok = ok && write(fd, head, strlen(head)) == (ssize_t)strlen(head) && write(fd, cubin, len) == (ssize_t)len;
    if (fd >= 0 && close(fd) != 0) ok = 0;
    if (ok && rename(tmp, path) != 0) ok = 0;
    if (!ok) unlink(tmp);
    free(path), free(tmp), free(head);
    return ok ? 0 : -1;
}

/* ---- runner cache ---------------------------------------------------------------------------------- */

/* Calls fn for each file of dir that is an entry ("<key>.cubin") or a temporary one. */
static int each_entry(const char *dir, int (*fn)(void *, const char *dir, const char *name), void *ctx, tl_err *e)
{
    DIR *d = opendir(dir);
    if (!d) {
        tl_err_set(e, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (struct dirent *de; (de = readdir(d)) && !rc;) {
        size_t n = strlen(de->d_name);
        int entry = n == 70 && !strcmp(de->d_name + 64, ".cubin") && is_key(de->d_name, 64);
        int temp = de->d_name[0] == '.' && n > 4 && !strcmp(de->d_name + n - 4, ".tmp");
        if (entry || temp) rc = fn(ctx, dir, de->d_name);
    }
    closedir(d);
    return rc;
}

typedef struct {
    FILE *out;
    int n, bad;
} verifier;

static int verify_one(void *ctx, const char *dir, const char *name)
{
    verifier *v = ctx;
    char *path = tl_xasprintf("%s/%s", dir, name), key[65];
    size_t len = 0, off, size;
    char *data = name[0] == '.' ? NULL : read_private(path, &len);
    const char *what = NULL;
    v->n++;
    if (name[0] == '.') what = "left over: %s (a write that did not finish)\n";
    else if (!data) what = "damaged: %s (unreadable, not this user's, or writable by others)\n";
    else if (parse_entry(data, len, key, &off, &size) || strncmp(key, name, 64))
        what = "damaged: %s (truncated, edited, or another key's entry)\n";
    if (what) {
        v->bad++;
        if (v->out) fprintf(v->out, what, path);
    }
    free(data), free(path);
    return 0;
}

int cache_verify(const char *dir, FILE *out, int *nentries, int *nbad, tl_err *e)
{
    verifier v = {out, 0, 0};
    int rc = each_entry(dir, verify_one, &v, e);
    *nentries = v.n, *nbad = v.bad;
    return rc;
}

static int remove_one(void *ctx, const char *dir, const char *name)
{
    char *path = tl_xasprintf("%s/%s", dir, name);
    if (unlink(path) == 0) (*(int *)ctx)++;
    free(path);
    return 0;
}

int cache_clear(const char *dir, int *removed, tl_err *e)
{
    *removed = 0;
    return each_entry(dir, remove_one, removed, e);
}
