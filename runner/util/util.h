/* util: error reporting, hashing, strings and paths shared by every runner module. */
#ifndef TILELAB_UTIL_H
#define TILELAB_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define TL_VERSION "0.1.0"

/* Exit codes, as documented in README.md. */
enum { TL_EXIT_OK = 0, TL_EXIT_FAILED = 1, TL_EXIT_BAD_INPUT = 2 };

/* An error a callee fills and its caller prints: library code never exits. */
typedef struct {
    char msg[2048]; /* human-readable, names the input (file:line:col) where there is one */
} tl_err;

void tl_err_set(tl_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefixes the existing message: "<context>: <old message>". */
void tl_err_wrap(tl_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void *tl_xmalloc(size_t n);
void *tl_xcalloc(size_t count, size_t size);
char *tl_xstrdup(const char *s);
char *tl_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable string. */
typedef struct {
    char *s;    /* NUL-terminated text */
    size_t len; /* bytes, without the NUL */
    size_t cap; /* bytes allocated */
} tl_buf;

void tl_buf_printf(tl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tl_buf_puts(tl_buf *b, const char *s); /* appends s */
void tl_buf_put(tl_buf *b, const void *p, size_t n); /* appends n bytes (NULs among them), then the NUL */
void tl_buf_long(tl_buf *b, long long v);   /* appends v in decimal, as %lld */
void tl_buf_free(tl_buf *b);

/* SHA-256 of data as 64 lowercase hex characters plus NUL. */
void tl_sha256_hex(const void *data, size_t n, char out[65]);

/* Reads a whole file; NULL with e set on failure. *len gets its size. */
char *tl_read_file(const char *path, size_t *len, tl_err *e);
/* s as one line of a message: control characters as \n, \r, \t or \xNN (a path that holds a newline stays one
 * line). Caller frees. */
char *tl_shown(const char *s);
/* Writes data to path atomically (temporary file + rename). */
int tl_write_file_atomic(const char *path, const void *data, size_t n, tl_err *e);
/* mkdir -p. */
int tl_mkdir_p(const char *path, tl_err *e);
/* Resolves a user-given path against the directory the user ran `bazel run` from. */
char *tl_user_path(const char *path);
/* argv's n words joined by single spaces (a command line as recorded). */
char *tl_join_words(int n, char *const *argv);

/* Overflow-checked size arithmetic: 0 on overflow. */
int tl_mul_u64(uint64_t a, uint64_t b, uint64_t *out);
int tl_add_u64(uint64_t a, uint64_t b, uint64_t *out);

/* Monotonic clock, seconds. */
double tl_now_s(void);
/* Seconds since this process started (exec; /proc's clock ticks, 10 ms steps), or -1 when unknown. */
double tl_process_age_s(void);
/* UTC time as 20261122T103457Z (for file names) or ISO 8601 (for attributes). */
void tl_utc_stamp(char out[32], int iso);

#endif
