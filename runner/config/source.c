#include "runner/config/source.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runner/ops/registry.h"
#include "runner/ops/registry_lookup.h"

/* ---- the store -------------------------------------------------------------------------------- */

void source_store_init(source_store *s, const char *yaml_path)
{
    memset(s, 0, sizeof *s);
    char *copy = tl_xstrdup(yaml_path);
    s->display = tl_xstrdup(dirname(copy));
    s->dir = realpath(s->display, NULL); /* NULL: reported when a file is needed */
    free(copy);
}

void source_store_init_preloaded(source_store *s, const char *display, int tilelab_preloaded)
{
    memset(s, 0, sizeof *s);
    s->display = tl_xstrdup(display);
    s->experiment_preloaded = 1;
    s->tilelab_preloaded = tilelab_preloaded;
}

void source_store_free(source_store *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->files[i].origin), free(s->files[i].path), free(s->files[i].text);
    }
    free(s->files), free(s->dir), free(s->display), free(s->data_dir), free(s->data_display);
    memset(s, 0, sizeof *s);
}

const source_file *source_store_find(const source_store *s, const char *origin, const char *path)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->files[i].origin, origin) && !strcmp(s->files[i].path, path)) return &s->files[i];
    return NULL;
}

static int find_index(const source_store *s, const char *origin, const char *path)
{
    const source_file *f = source_store_find(s, origin, path);
    return f ? (int)(f - s->files) : -1;
}

/* What a file of each limit is, in messages. */
static const char *limit_what(size_t limit)
{
    return limit == SOURCE_MAX_TABLE_BYTES ? "a dispatch table" : limit == SOURCE_MAX_DATA_BYTES ? "a data file"
                                                                                            : "a kernel source";
}

static int too_big(tl_err *e, const char *path, size_t len, size_t limit)
{
    tl_err_set(e, "%s: %.1f MiB, over the %llu MiB limit for %s", path, len / 1048576.0,
               (unsigned long long)(limit >> 20), limit_what(limit));
    return -1;
}

/* A usable file: text without NUL bytes, at most limit bytes. */
static int text_ok(const char *path, const char *text, size_t len, size_t limit, tl_err *e)
{
    if (len > limit) return too_big(e, path, len, limit);
    if (memchr(text, '\0', len)) {
        tl_err_set(e, "%s: not a text file (it holds a NUL byte)", path);
        return -1;
    }
    return 0;
}

/* Adds a file; text (len bytes, NUL-terminated: a read file's) is taken over when own, else copied. */
static int push_file(source_store *s, const char *origin, const char *path, char *text, size_t len, int own, int preloaded)
{
    s->files = realloc(s->files, sizeof *s->files * (size_t)(s->n + 1));
    if (!s->files) abort();
    source_file *f = &s->files[s->n];
    memset(f, 0, sizeof *f);
    f->origin = tl_xstrdup(origin);
    f->path = tl_xstrdup(path);
    if (own) {
        f->text = text;
    } else {
        f->text = tl_xmalloc(len + 1);
        memcpy(f->text, text, len);
        f->text[len] = '\0';
    }
    f->len = len;
    f->preloaded = preloaded;
    tl_sha256_hex(text, len, f->sha256);
    return s->n++;
}

int source_carried(const source_file *f)
{
    return !f->absent && (strcmp(f->origin, SOURCE_DATA) || f->len <= SOURCE_CARRY_DATA_BYTES);
}

static int is_sha256(const char *s)
{
    size_t n = 0;
    for (; s && isxdigit((unsigned char)s[n]) && !isupper((unsigned char)s[n]); n++) {}
    return s && n == 64 && !s[n];
}

int source_store_add(source_store *s, const char *origin, const char *path, const char *text, size_t len,
                  const char *sha256, tl_err *e)
{
    char norm[PATH_MAX];
    const char *why;
    int data = !strcmp(origin, SOURCE_DATA);
    if (strcmp(origin, SOURCE_EXPERIMENT) && strcmp(origin, SOURCE_TILELAB) && !data) {
        tl_err_set(e, "%s: unknown origin '%s' (expected %s, %s or %s)", path, origin, SOURCE_EXPERIMENT, SOURCE_TILELAB,
                   SOURCE_DATA);
        return -1;
    }
    if (source_join("", path, norm, sizeof norm, &why) || strcmp(norm, path)) {
        tl_err_set(e, "%s: not a usable source path (%s)", path, why ? why : "not normalised");
        return -1;
    }
    if (!text && (!data || !is_sha256(sha256) || len <= SOURCE_CARRY_DATA_BYTES || len > SOURCE_MAX_DATA_BYTES)) {
        tl_err_set(e, "%s:%s: named without its bytes, but it is not a data file over the %llu MiB a result file "
                      "carries (%zu bytes)", origin, path, (unsigned long long)(SOURCE_CARRY_DATA_BYTES >> 20), len);
        return -1;
    }
    if (data && len > SOURCE_MAX_DATA_BYTES) return too_big(e, path, len, SOURCE_MAX_DATA_BYTES);
    if (!data && text_ok(path, text, len, SOURCE_MAX_TABLE_BYTES, e)) return -1;
    if (find_index(s, origin, path) >= 0) {
        tl_err_set(e, "%s:%s: given twice", origin, path);
        return -1;
    }
    if (!text) { /* what run wrote of a file it did not carry: read again from --data, checked by the hash */
        s->files = realloc(s->files, sizeof *s->files * (size_t)(s->n + 1));
        if (!s->files) abort();
        source_file *f = &s->files[s->n++];
        memset(f, 0, sizeof *f);
        f->origin = tl_xstrdup(origin), f->path = tl_xstrdup(path), f->len = len, f->preloaded = 1, f->absent = 1;
        memcpy(f->sha256, sha256, 65);
        return 0;
    }
    push_file(s, origin, path, (char *)text, len, 0, 1);
    return 0;
}

int source_store_set_data_dir(source_store *s, const char *dir, tl_err *e)
{
    struct stat st;
    char *real = realpath(dir, NULL);
    if (!real || stat(real, &st) || !S_ISDIR(st.st_mode)) {
        tl_err_set(e, "--data %s: %s", dir, !real ? strerror(errno) : "not a folder");
        free(real);
        return -1;
    }
    free(s->data_dir), free(s->data_display);
    s->data_dir = real, s->data_display = tl_xstrdup(dir);
    return 0;
}

static char *shown_path(const source_store *s, const char *path);

char *source_display(const source_store *s, const source_file *f)
{
    if (!strcmp(f->origin, SOURCE_TILELAB)) return tl_xasprintf("kernels/%s", f->path);
    return shown_path(s, f->path);
}

/* ---- paths ------------------------------------------------------------------------------------- */

int source_join(const char *dir, const char *name, char *out, size_t outlen, const char **why)
{
    char buf[PATH_MAX * 2];
    *why = NULL;
    if (!name[0]) return *why = "an empty name", -1;
    if (name[0] == '/') return *why = "an absolute path (files are named relative to the experiment's folder)", -1;
    for (const char *p = name; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == '\\') return *why = "a control character or '\\' in the name", -1;
    if (snprintf(buf, sizeof buf, "%s%s%s", dir, dir[0] ? "/" : "", name) >= (int)sizeof buf)
        return *why = "too long", -1;
    /* Components, with . dropped and .. taking one back. */
    char *parts[PATH_MAX / 2];
    int n = 0;
    for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, ".")) continue;
        if (!strcmp(c, "..")) {
            if (n == 0) return *why = "it leaves the experiment's folder", -1;
            n--;
            continue;
        }
        if (n == (int)(sizeof parts / sizeof *parts)) return *why = "too deep", -1;
        parts[n++] = c;
    }
    if (n == 0) return *why = "names a folder, not a file", -1;
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t pl = strlen(parts[i]);
        if (len + pl + 2 > outlen) return *why = "too long", -1;
        if (i) out[len++] = '/';
        memcpy(out + len, parts[i], pl + 1);
        len += pl;
    }
    return 0;
}

/* "folder/path" as messages show it ("path" for the current folder). */
static char *shown_path(const source_store *s, const char *path)
{
    if (!s->display || !strcmp(s->display, ".")) return tl_xstrdup(path);
    return tl_xasprintf("%s/%s", s->display, path);
}

/* Reads path (normalised, relative; shown as shown) from the folder dir: a regular file inside it, also
 * after following links, of at most limit bytes; a source (not binary) holds no NUL. Its bytes, or NULL. */
static char *read_inside(const char *dir, const char *path, const char *shown, size_t limit, int binary,
                         size_t *len, tl_err *e)
{
    char *full = tl_xasprintf("%s/%s", dir, path), *real = realpath(full, NULL), *text = NULL;
    size_t dirlen = strlen(dir);
    struct stat st;
    if (!real) {
        tl_err_set(e, "%s: %s", shown, errno == ENOENT ? "no such file in the experiment's folder" : strerror(errno));
    } else if (strncmp(real, dir, dirlen) || (real[dirlen] != '/' && strcmp(dir, "/"))) {
        tl_err_set(e, "%s: a link to %s, outside the experiment's folder", shown, real);
    } else if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        tl_err_set(e, "%s: not a regular file", shown);
    } else if ((size_t)st.st_size > limit) {
        too_big(e, shown, (size_t)st.st_size, limit);
    } else if (!(text = tl_read_file(real, len, e))) {
        size_t rl = strlen(real); /* named as the user names it, not by its resolved path */
        if (!strncmp(e->msg, real, rl)) {
            char *rest = tl_xstrdup(e->msg + rl);
            tl_err_set(e, "%s%s", shown, rest);
            free(rest);
        }
    } else if (!binary && text_ok(shown, text, *len, limit, e)) {
        free(text), text = NULL;
    }
    free(full), free(real);
    return text;
}

/* Reads path (normalised, relative) from the experiment's folder into the store. */
static int read_experiment_file(source_store *s, const char *origin, const char *path, size_t limit, tl_err *e)
{
    char *shown = shown_path(s, path), *text = NULL;
    size_t len;
    int rc = -1;
    if (!s->dir) {
        tl_err_set(e, s->experiment_preloaded ? "%s: not among the result file's %s" : "%s: cannot open the "
                   "experiment's folder", shown, strcmp(origin, SOURCE_DATA) ? "kernel sources" : "data files");
    } else if ((text = read_inside(s->dir, path, shown, limit, !strcmp(origin, SOURCE_DATA), &len, e))) {
        rc = push_file(s, origin, path, text, len, 1, 0);
    }
    free(shown);
    return rc;
}

/* The store's index of (origin, path), reading it when needed; a file over limit bytes (a preloaded
 * one too) is refused. */
static int get_file(source_store *s, const char *origin, const char *path, size_t limit, tl_err *e)
{
    int i = find_index(s, origin, path);
    if (i >= 0) {
        if (s->files[i].len > limit) {
            char *shown = source_display(s, &s->files[i]);
            too_big(e, shown, s->files[i].len, limit);
            free(shown);
            return -1;
        }
        return i;
    }
    if (strcmp(origin, SOURCE_TILELAB)) return read_experiment_file(s, origin, path, limit, e);
    const reg_source *r = s->tilelab_preloaded ? NULL : reg_find_source(path);
    if (!r) {
        tl_err_set(e, "kernels/%s: not among %s", path,
                   s->tilelab_preloaded ? "the result file's kernel sources" : "this runner's kernels");
        return -1;
    }
    return push_file(s, SOURCE_TILELAB, path, (char *)r->text, r->len, 0, 0);
}

/* ---- #include ---------------------------------------------------------------------------------- */

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Line splices removed; each character keeps its physical line. */
static char *splice(const char *s, size_t n, int **lines, size_t *outn)
{
    char *out = tl_xmalloc(n + 1);
    int *ln = tl_xmalloc(sizeof *ln * (n + 1)), line = 1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') { i++, line++; continue; }
        if (s[i] == '\\' && i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') { i += 2, line++; continue; }
        out[k] = s[i];
        ln[k++] = line;
        if (s[i] == '\n') line++;
    }
    out[k] = '\0';
    ln[k] = line;
    *lines = ln, *outn = k;
    return out;
}

/* 1 when the R at t[i] opens a raw string: R, u8R, uR, UR or LR as a whole identifier, then ". */
static int raw_string_at(const char *t, size_t i, size_t n)
{
    if (i + 1 >= n || t[i + 1] != '"') return 0;
    size_t b = i;
    while (b > 0 && ident_char(t[b - 1])) b--;
    size_t len = i - b;
    return len == 0 || (len == 1 && strchr("uUL", t[b])) || (len == 2 && t[b] == 'u' && t[b + 1] == '8');
}

/* Blanks a raw string R"d(...)d" starting at t[i] (the R); returns the index after it. */
static size_t blank_raw(char *t, size_t i, size_t n)
{
    size_t open = i + 2, d = open;
    while (d < n && t[d] != '(' && d - open < 16) d++;
    if (d >= n || t[d] != '(') return i + 1; /* not a raw string after all */
    size_t dl = d - open, j = d + 1;
    for (; j < n; j++)
        if (t[j] == ')' && j + 1 + dl < n && !strncmp(t + j + 1, t + open, dl) && t[j + 1 + dl] == '"') break;
    size_t end = j < n ? j + dl + 2 : n;
    for (size_t k = i; k < end; k++)
        if (t[k] != '\n') t[k] = ' ';
    return end;
}

/* Comments and raw strings become spaces (newlines kept); quoted literals stay (a header name looks
 * like one), numbers are skipped whole (1'000 is not a character literal). */
static void blank_comments(char *t, size_t n)
{
    size_t i = 0;
    while (i < n) {
        char c = t[i];
        if (c == '/' && i + 1 < n && t[i + 1] == '/') {
            while (i < n && t[i] != '\n') t[i++] = ' ';
        } else if (c == '/' && i + 1 < n && t[i + 1] == '*') {
            t[i] = t[i + 1] = ' ';
            for (i += 2; i < n && !(t[i] == '*' && i + 1 < n && t[i + 1] == '/'); i++)
                if (t[i] != '\n') t[i] = ' ';
            if (i < n) t[i] = t[i + 1] = ' ', i += 2;
        } else if (c == 'R' && raw_string_at(t, i, n)) {
            i = blank_raw(t, i, n);
        } else if (c == '"' || c == '\'') {
            for (i++; i < n && t[i] != c && t[i] != '\n'; i++)
                if (t[i] == '\\' && i + 1 < n && t[i + 1] != '\n') i++;
            i++;
        } else if (isdigit((unsigned char)c) && (i == 0 || !ident_char(t[i - 1]))) {
            /* A pp-number: a ' belongs to it only before a digit or letter (1'000, 0x1'fu), as the compiler
             * reads it: in 1'/ the ' opens a character literal, which may hold a comment's opening. */
            while (i < n && (ident_char(t[i]) || t[i] == '.' ||
                             (t[i] == '\'' && i + 1 < n && ident_char(t[i + 1])) ||
                             ((t[i] == '+' || t[i] == '-') && strchr("eEpP", t[i - 1]))))
                i++;
        } else if (ident_char(c)) {
            while (i < n && ident_char(t[i])) i++;
        } else {
            i++;
        }
    }
}

static void push_include(source_include **v, int *n, int line, char kind, const char *name, size_t len)
{
    *v = realloc(*v, sizeof **v * (size_t)(*n + 1));
    if (!*v) abort();
    (*v)[*n].line = line;
    (*v)[*n].kind = kind;
    (*v)[*n].name = tl_xmalloc(len + 1);
    memcpy((*v)[*n].name, name, len);
    (*v)[*n].name[len] = '\0';
    (*n)++;
}

/* A header name at p ("..." or <...>) up to the end of the line at e: its kind and length. */
static char header_name(const char *p, const char *e, const char **name, size_t *len)
{
    char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
    const char *q = close ? memchr(p + 1, close, (size_t)(e - p - 1)) : NULL;
    if (!q) {
        *name = p, *len = (size_t)(e - p);
        while (*len && isspace((unsigned char)p[*len - 1])) (*len)--;
        return '?';
    }
    *name = p + 1, *len = (size_t)(q - p - 1);
    return *p;
}

static const char *skip_blank(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\v' || *p == '\f' || *p == '\r')) p++;
    return p;
}

/* #include, #include_next and #import directives of one logical line [p, e). */
static void scan_directive(const char *p, const char *e, int line, source_include **v, int *n)
{
    p = skip_blank(p, e);
    if (p < e && *p == '#') p++;
    else if (p + 1 < e && p[0] == '%' && p[1] == ':') p += 2;
    else return;
    p = skip_blank(p, e);
    const char *w = p;
    while (p < e && ident_char(*p)) p++;
    size_t wl = (size_t)(p - w);
    if (!((wl == 7 && !strncmp(w, "include", 7)) || (wl == 12 && !strncmp(w, "include_next", 12)) ||
          (wl == 6 && !strncmp(w, "import", 6))))
        return;
    const char *name;
    size_t len;
    char kind = header_name(skip_blank(p, e), e, &name, &len);
    push_include(v, n, line, kind, name, len);
}

/* __has_include("x") and __has_include(<x>) anywhere in the line [p, e). */
static void scan_has_include(const char *p, const char *e, int line, source_include **v, int *n)
{
    for (const char *q = p; q < e;) {
        const char *hit = memmem(q, (size_t)(e - q), "__has_include", 13);
        if (!hit) return;
        const char *after = hit + 13;
        if (after + 5 <= e && !strncmp(after, "_next", 5)) after += 5;
        q = after;
        if ((hit > p && ident_char(hit[-1])) || (after < e && ident_char(*after))) continue;
        after = skip_blank(after, e);
        if (after >= e || *after != '(') continue;
        const char *name;
        size_t len;
        char kind = header_name(skip_blank(after + 1, e), e, &name, &len);
        push_include(v, n, line, kind == '"' ? 'h' : kind == '<' ? 'H' : '?', name, len);
    }
}

int source_scan_includes(const char *text, size_t len, source_include **out)
{
    int *lines, n = 0;
    size_t tn;
    char *t = splice(text, len, &lines, &tn);
    blank_comments(t, tn);
    *out = NULL;
    for (size_t i = 0; i < tn;) {
        const char *nl = memchr(t + i, '\n', tn - i);
        size_t end = nl ? (size_t)(nl - t) : tn;
        scan_directive(t + i, t + end, lines[i], out, &n);
        scan_has_include(t + i, t + end, lines[i], out, &n);
        i = end + 1;
    }
    free(t);
    free(lines);
    return n;
}

void source_includes_free(source_include *inc, int n)
{
    for (int i = 0; i < n; i++) free(inc[i].name);
    free(inc);
}

/* ---- resolving a compile's files --------------------------------------------------------------- */

static void set_push(source_set *set, int file, const char *name)
{
    set->files = realloc(set->files, sizeof *set->files * (size_t)(set->n + 1));
    set->names = realloc(set->names, sizeof *set->names * (size_t)(set->n + 1));
    if (!set->files || !set->names) abort();
    set->files[set->n] = file;
    set->names[set->n++] = tl_xstrdup(name);
}

/* The set's entry of name, or -1. */
static int set_find_name(const source_set *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->names[i], name)) return i;
    return -1;
}

/* An angle include names a toolkit header: a relative name that stays inside the include folder. */
static int angle_ok(const char *name, const char **why)
{
    char norm[PATH_MAX];
    if (source_join("", name, norm, sizeof norm, why)) return 0;
    if (strstr(name, "..")) return *why = "'..' in a <...> include", 0;
    return 1;
}

/* CUTLASS's own folders: such an include needs the CUTLASS headers beside the toolkit's. */
static int is_cutlass_header(const char *name)
{
    return !strncmp(name, "cute/", 5) || !strncmp(name, "cutlass/", 8);
}

/* The includes of the set's entry i: each quoted one resolved and added, angle ones checked. */
static int resolve_includes(source_store *s, source_set *set, int i, tl_err *e)
{
    source_include *inc = NULL;
    const source_file *f = &s->files[set->files[i]];
    int ninc = source_scan_includes(f->text, f->len, &inc), rc = 0;
    char *origin = tl_xstrdup(f->origin), *dir = tl_xstrdup(f->path), *shown = source_display(s, f);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else dir[0] = '\0';
    for (int k = 0; k < ninc && !rc; k++) {
        const source_include *in = &inc[k];
        char path[PATH_MAX];
        const char *why = NULL;
        if (in->kind == '?') {
            tl_err_set(e, "%s:%d: #include %s: a computed include (a macro) cannot be checked; name the file in "
                          "quotes", shown, in->line, in->name);
            rc = -1;
        } else if (in->kind == '<' || in->kind == 'H') {
            if (!angle_ok(in->name, &why)) tl_err_set(e, "%s:%d: <%s>: %s", shown, in->line, in->name, why), rc = -1;
            else {
                set->angle |= in->kind == '<';
                if (in->kind == '<' && !set->cutlass && is_cutlass_header(in->name))
                    set->cutlass = tl_xasprintf("%s:%d: <%s>", shown, in->line, in->name);
            }
        } else if (source_join(dir, in->name, path, sizeof path, &why)) {
            tl_err_set(e, "%s:%d: \"%s\": %s", shown, in->line, in->name, why);
            rc = -1;
        } else if (in->kind == '"') {
            int at = set_find_name(set, in->name), idx = get_file(s, origin, path, SOURCE_MAX_BYTES, e);
            if (idx < 0) {
                tl_err_wrap(e, "%s:%d: #include \"%s\"", shown, in->line, in->name);
                rc = -1;
            } else if (at >= 0 && set->files[at] != idx) {
                tl_err_set(e, "%s:%d: #include \"%s\" names %s here and %s elsewhere in the same compile; NVRTC "
                              "matches headers by name: rename one", shown, in->line, in->name, path,
                           s->files[set->files[at]].path);
                rc = -1;
            } else if (at < 0) {
                if (set->n == SOURCE_MAX_FILES) {
                    tl_err_set(e, "%s: includes more than %d files", shown, SOURCE_MAX_FILES);
                    rc = -1;
                } else {
                    set_push(set, idx, in->name);
                }
            }
        }
        /* A missing __has_include("x") file is fine: the check only needs the name to stay inside. */
        f = &s->files[set->files[i]]; /* the store may have grown */
    }
    source_includes_free(inc, ninc);
    free(origin), free(dir), free(shown);
    return rc;
}

/* The set's first file: path (normalized) read into the store, at most max bytes; its index or -1. */
static int resolve_first(source_store *s, const char *origin, const char *path, size_t max, source_set *set, tl_err *e)
{
    char norm[PATH_MAX];
    const char *why;
    memset(set, 0, sizeof *set);
    if (source_join("", path, norm, sizeof norm, &why)) {
        char *shown = tl_shown(path); /* a newline in a name stays in a one-line message */
        tl_err_set(e, "%s: %s", shown, why);
        free(shown);
        return -1;
    }
    int i = get_file(s, origin, norm, max, e);
    if (i >= 0) set_push(set, i, norm);
    return i;
}

int source_resolve(source_store *s, const char *origin, const char *path, source_set *set, tl_err *e)
{
    if (resolve_first(s, origin, path, SOURCE_MAX_BYTES, set, e) < 0) return -1;
    /* Breadth first: the set grows while it is walked. */
    for (int i = 0; i < set->n; i++)
        if (resolve_includes(s, set, i, e)) {
            source_set_free(set);
            return -1;
        }
    for (int i = 0; i < set->n; i++) s->files[set->files[i]].used = 1;
    return 0;
}

int source_resolve_table(source_store *s, const char *origin, const char *path, source_set *set, tl_err *e)
{
    int i = resolve_first(s, origin, path, SOURCE_MAX_TABLE_BYTES, set, e);
    if (i < 0) return -1;
    s->files[i].used = 1;
    return 0;
}

/* An absent data file read from the --data folder, checked against the hash the result file holds. */
static int fill_absent(source_store *s, source_file *f, tl_err *e)
{
    char *shown = s->data_dir ? tl_xasprintf("%s/%s", s->data_display, f->path) : NULL, *text = NULL, hex[65];
    size_t len = 0;
    int rc = -1;
    if (!s->data_dir) {
        tl_err_set(e, "%s: not carried in the result file (%.1f MiB, over the %llu MiB a result file carries; sha256 "
                      "%.12s...): give the folder that holds it with --data DIR", f->path, f->len / 1048576.0,
                   (unsigned long long)(SOURCE_CARRY_DATA_BYTES >> 20), f->sha256);
    } else if ((text = read_inside(s->data_dir, f->path, shown, SOURCE_MAX_DATA_BYTES, 1, &len, e))) {
        tl_sha256_hex(text, len, hex);
        if (len != f->len || strcmp(hex, f->sha256)) {
            tl_err_set(e, "%s: not the file the run read (%zu bytes, sha256 %.12s...; it read %zu bytes, %.12s...)",
                       shown, len, hex, f->len, f->sha256);
            free(text);
        } else {
            f->text = text, f->absent = 0, rc = 0;
        }
    }
    free(shown);
    return rc;
}

int source_read_data(source_store *s, const char *path, tl_err *e)
{
    char norm[PATH_MAX];
    const char *why;
    if (source_join("", path, norm, sizeof norm, &why)) {
        char *shown = tl_shown(path);
        tl_err_set(e, "%s: %s", shown, why);
        free(shown);
        return -1;
    }
    int i = find_index(s, SOURCE_DATA, norm);
    if (i >= 0 && s->files[i].absent && fill_absent(s, &s->files[i], e)) return -1;
    if (i < 0 && (i = get_file(s, SOURCE_DATA, norm, SOURCE_MAX_DATA_BYTES, e)) < 0) return -1;
    s->files[i].used = 1;
    return i;
}

void source_set_free(source_set *set)
{
    for (int i = 0; i < set->n; i++) free(set->names[i]);
    free(set->files), free(set->names), free(set->cutlass);
    memset(set, 0, sizeof *set);
}

char *source_set_text(const source_store *s, const source_set *set)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "%s", "");
    for (int i = 0; i < set->n; i++) {
        const source_file *f = &s->files[set->files[i]];
        int dup = 0;
        for (int j = 0; j < i; j++) dup |= set->files[j] == set->files[i];
        if (!dup) tl_buf_printf(&b, "%s%s:%s %s", b.len ? "\n" : "", f->origin, f->path, f->sha256);
    }
    return b.s;
}
