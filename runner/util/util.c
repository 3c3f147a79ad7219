#include "runner/util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void tl_err_set(tl_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

void tl_err_wrap(tl_err *e, const char *fmt, ...)
{
    char prefix[512];
    char old[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    snprintf(e->msg, sizeof e->msg, "%s: %s", prefix, old);
}

static void out_of_memory(size_t n)
{
    fprintf(stderr, "tilelab: out of host memory (asked for %zu bytes)\n", n);
    abort();
}

void *tl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

void *tl_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory(count * size);
    return p;
}

char *tl_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(tl_xmalloc(n), s, n);
}

char *tl_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = tl_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Room for `more` bytes past the text, and its NUL. */
static void buf_reserve(tl_buf *b, size_t more)
{
    size_t need = b->len + more + 1;
    if (need <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) out_of_memory(cap);
    b->s = s;
    b->cap = cap;
}

void tl_buf_printf(tl_buf *b, const char *fmt, ...)
{
    /* Formatted once where it fits (most calls, once the buffer has grown: plans of 10^5 cases build a
     * few strings each), twice where it does not. */
    buf_reserve(b, 0);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) abort(); /* an invalid format: the caller's bug */
    if ((size_t)n >= b->cap - b->len) {
        buf_reserve(b, (size_t)n);
        va_start(ap, fmt);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

void tl_buf_put(tl_buf *b, const void *p, size_t n)
{
    buf_reserve(b, n);
    if (n) memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = 0;
}

void tl_buf_puts(tl_buf *b, const char *s)
{
    tl_buf_put(b, s, strlen(s));
}

void tl_buf_long(tl_buf *b, long long v)
{
    char d[24], *e = d + sizeof d, *q = e;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do *--q = (char)('0' + u % 10); while (u /= 10);
    if (v < 0) *--q = '-';
    buf_reserve(b, (size_t)(e - q));
    memcpy(b->s + b->len, q, (size_t)(e - q));
    b->len += (size_t)(e - q);
    b->s[b->len] = '\0';
}

void tl_buf_free(tl_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static EVP_MD *sha256_md;

static void sha256_fetch(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

void tl_sha256_hex(const void *data, size_t n, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    pthread_once(&sha256_once, sha256_fetch); /* fetched once: EVP_sha256() looks it up on every digest */
    if (!sha256_md || !EVP_Digest(data, n, md, &mdlen, sha256_md, NULL) || mdlen != 32) {
        fprintf(stderr, "tilelab: OpenSSL SHA-256 failed\n");
        abort();
    }
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < 32; i++) out[2 * i] = hex[md[i] >> 4], out[2 * i + 1] = hex[md[i] & 15];
    out[64] = '\0';
}

char *tl_shown(const char *s)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "%s", "");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n') tl_buf_printf(&b, "\\n");
        else if (c == '\r') tl_buf_printf(&b, "\\r");
        else if (c == '\t') tl_buf_printf(&b, "\\t");
        else if (c < 0x20 || c == 0x7f) tl_buf_printf(&b, "\\x%02x", c);
        else tl_buf_printf(&b, "%c", c);
    }
    return b.s;
}

char *tl_read_file(const char *path, size_t *len, tl_err *e)
{
    /* Opened without blocking, and only a regular file read: a FIFO would wait for a writer for ever. */
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        tl_err_set(e, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        tl_err_set(e, "%s: not a regular file (a FIFO, a device or a folder)", path);
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        tl_err_set(e, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    tl_buf b = {0};
    char chunk[65536];
    size_t got;
    tl_buf_printf(&b, "%s", "");
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + got + 1 > b.cap) {
            size_t cap = b.cap;
            while (cap < b.len + got + 1) cap *= 2;
            char *s = realloc(b.s, cap);
            if (!s) out_of_memory(cap);
            b.s = s;
            b.cap = cap;
        }
        memcpy(b.s + b.len, chunk, got);
        b.len += got;
        b.s[b.len] = '\0';
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        tl_err_set(e, "%s: read error", path);
        tl_buf_free(&b);
        return NULL;
    }
    if (len) *len = b.len;
    return b.s;
}

int tl_write_file_atomic(const char *path, const void *data, size_t n, tl_err *e)
{
    char *tmp = tl_xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        tl_err_set(e, "%s: cannot create: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    int ok = fwrite(data, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        tl_err_set(e, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

int tl_mkdir_p(const char *path, tl_err *e)
{
    char *p = tl_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) goto fail;
        *s = '/';
    }
    if (mkdir(p, 0777) != 0 && errno != EEXIST) goto fail;
    free(p);
    return 0;
fail:
    tl_err_set(e, "%s: cannot create directory: %s", p, strerror(errno));
    free(p);
    return -1;
}

char *tl_user_path(const char *path)
{
    const char *base = getenv("BUILD_WORKING_DIRECTORY");
    if (path[0] == '/' || !base || !*base) return tl_xstrdup(path);
    return tl_xasprintf("%s/%s", base, path);
}

int tl_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

int tl_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

double tl_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double tl_process_age_s(void)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* Field 22, starttime; the name (field 2) may hold spaces and parentheses: count after its last ')'. */
    char *p = strrchr(buf, ')');
    unsigned long long start = 0;
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                     &start) != 1)
        return -1;
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec ts;
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) < 0) return -1;
    double age = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - (double)start / (double)hz;
    return age >= 0 ? age : -1;
}

void tl_utc_stamp(char out[32], int iso)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y%m%dT%H%M%SZ", &tm);
}

char *tl_join_words(int n, char *const *argv)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "%s", "");
    for (int i = 0; i < n; i++) tl_buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
    return b.s;
}
