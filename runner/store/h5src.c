#include "runner/store/h5src.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "runner/store/h5util.h"

static int ensure_group(hid_t f, const char *where, tl_err *e)
{
    hid_t g = -1;
    if (H5Lexists(f, "/sources", H5P_DEFAULT) > 0) return 0;
    H5_CHECK(g = H5Gcreate2(f, "/sources", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(g);
    return 0;
fail:
    return -1;
}

/* 1 when text holds line as one of its lines. */
static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, line, n) && (p[n] == '\n' || p[n] == '\0')) return 1;
    return 0;
}

int h5src_add(hid_t f, const char *where, const char *origin, const char *path, const char *text, size_t len,
              const char *sha256, tl_err *e)
{
    char sha[65], name[80];
    hid_t d = -1, space = -1;
    char *line = tl_xasprintf("%s:%s", origin, path), *paths = NULL, *joined = NULL;
    if (text) tl_sha256_hex(text, len, sha);
    else snprintf(sha, sizeof sha, "%s", sha256);
    snprintf(name, sizeof name, "/sources/%s", sha);
    if (ensure_group(f, where, e)) goto fail;
    if (H5Lexists(f, name, H5P_DEFAULT) > 0) {
        H5_CHECK(d = H5Dopen2(f, name, H5P_DEFAULT));
        paths = h5util_read_str(d, "paths");
        if (!paths || !has_line(paths, line)) {
            joined = paths && *paths ? tl_xasprintf("%s\n%s", paths, line) : tl_xstrdup(line);
            H5_CHECK(h5util_put_str(d, SCH_SOURCES_PATHS, joined));
        }
    } else {
        hsize_t n = text ? (hsize_t)len : 0; /* a file not carried: no bytes, its size */
        H5_CHECK(space = H5Screate_simple(1, &n, NULL));
        H5_CHECK(d = H5Dcreate2(f, name, H5T_STD_U8LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        if (n) H5_CHECK(H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text));
        H5_CHECK(h5util_put_str(d, SCH_SOURCES_PATHS, line));
        if (!text) H5_CHECK(h5util_put_i64(d, SCH_SOURCES_BYTES, (long long)len));
    }
    H5Dclose(d);
    if (space >= 0) H5Sclose(space);
    free(line), free(paths), free(joined);
    return 0;
fail:
    if (d >= 0) H5Dclose(d);
    if (space >= 0) H5Sclose(space);
    free(line), free(paths), free(joined);
    return -1;
}

int h5src_add_store(hid_t f, const char *where, const source_store *s, tl_err *e)
{
    for (int i = 0; i < s->n; i++) {
        const source_file *sf = &s->files[i];
        if (sf->used && h5src_add(f, where, sf->origin, sf->path, source_carried(sf) ? sf->text : NULL, sf->len,
                                  sf->sha256, e))
            return -1;
    }
    return 0;
}

/* ---- reading ------------------------------------------------------------------------------------ */

typedef struct {
    char **names;
    int n;
} link_list;

static herr_t collect(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g, (void)info;
    link_list *l = data;
    l->names = realloc(l->names, sizeof *l->names * (size_t)(l->n + 1));
    if (!l->names) abort();
    l->names[l->n++] = tl_xstrdup(name);
    return 0;
}

static int is_sha(const char *s)
{
    if (strlen(s) != 64) return 0;
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s)) return 0;
    return 1;
}

/* The bytes of /sources/<sha>, checked: a 1-D dataset of bytes whose SHA-256 is its name; or, for a data file
 * not carried, an empty one with its size (*absent, NULL returned with e unset). */
static char *read_bytes(hid_t g, const char *where, const char *sha, size_t *len, char **paths, int *absent,
                        tl_err *e)
{
    hid_t d = -1, space = -1, t = -1;
    char *buf = NULL, hex[65];
    hsize_t n = 0;
    long long size;
    *absent = 0;
    if (!is_sha(sha)) {
        tl_err_set(e, "%s: /sources/%s: not named by a SHA-256", where, sha);
        return NULL;
    }
    if ((d = H5Dopen2(g, sha, H5P_DEFAULT)) < 0 || (space = H5Dget_space(d)) < 0 || (t = H5Dget_type(d)) < 0 ||
        H5Sget_simple_extent_ndims(space) != 1 || H5Tget_class(t) != H5T_INTEGER || H5Tget_size(t) != 1 ||
        H5Sget_simple_extent_dims(space, &n, NULL) < 0 || n > SOURCE_CARRY_DATA_BYTES) {
        tl_err_set(e, "%s: /sources/%s: not a dataset of at most %llu bytes", where, sha,
                   (unsigned long long)SOURCE_CARRY_DATA_BYTES);
        goto out;
    }
    if (H5Aexists(d, "bytes") > 0) {
        if (n != 0 || h5util_read_i64(d, "bytes", &size) || size <= 0 || !(*paths = h5util_read_str(d, "paths"))) {
            tl_err_set(e, "%s: /sources/%s: a file not carried is an empty dataset with its size and paths", where, sha);
        } else {
            *absent = 1, *len = (size_t)size;
        }
        goto out;
    }
    buf = tl_xmalloc((size_t)n + 1);
    if (n && H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        tl_err_set(e, "%s: /sources/%s: cannot read it", where, sha);
        free(buf), buf = NULL;
        goto out;
    }
    buf[n] = '\0';
    tl_sha256_hex(buf, (size_t)n, hex);
    if (strcmp(hex, sha)) {
        tl_err_set(e, "%s: /sources/%s: its bytes hash to %.12s...: the file is damaged or was edited", where, sha, hex);
        free(buf), buf = NULL;
        goto out;
    }
    if (!(*paths = h5util_read_str(d, "paths"))) {
        tl_err_set(e, "%s: /sources/%s: %s", where, sha, H5Aexists(d, "paths") > 0 ? "its paths attribute is not one "
                   "string (the file is damaged or was edited)" : "has no paths attribute");
        free(buf), buf = NULL;
        goto out;
    }
    *len = (size_t)n;
out:
    if (t >= 0) H5Tclose(t);
    if (space >= 0) H5Sclose(space);
    if (d >= 0) H5Dclose(d);
    return buf;
}

/* fn for each "origin:path" line of paths. */
static int each_path(const char *where, const char *sha, char *paths, const char *text, size_t len, h5src_fn fn,
                     void *ctx, tl_err *e)
{
    for (char *save = NULL, *line = strtok_r(paths, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (!colon) {
            tl_err_set(e, "%s: /sources/%s: path '%s' is not origin:path", where, sha, line);
            return -1;
        }
        *colon = '\0';
        if (fn(ctx, line, colon + 1, text, len, sha, e)) return -1;
    }
    return 0;
}

int h5src_each(hid_t f, const char *where, h5src_fn fn, void *ctx, int *have, tl_err *e)
{
    link_list l = {0};
    hid_t g = -1;
    int rc = -1;
    *have = H5Lexists(f, "/sources", H5P_DEFAULT) > 0;
    if (!*have) return 0;
    if ((g = H5Gopen2(f, "/sources", H5P_DEFAULT)) < 0 ||
        H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, collect, &l) < 0) {
        tl_err_set(e, "%s: cannot read /sources", where);
        goto out;
    }
    for (int i = 0; i < l.n; i++) {
        size_t len = 0;
        int absent;
        char *paths = NULL, *text = read_bytes(g, where, l.names[i], &len, &paths, &absent, e);
        int bad = (!text && !absent) || each_path(where, l.names[i], paths, text, len, fn, ctx, e);
        free(text), free(paths);
        if (bad) goto out;
    }
    rc = 0;
out:
    for (int i = 0; i < l.n; i++) free(l.names[i]);
    free(l.names);
    if (g >= 0) H5Gclose(g);
    return rc;
}

/* ---- rerun, extract, resume --------------------------------------------------------------------- */

typedef struct {
    source_store *s;
    int local_kernels;
    int n;
} loader;

static int load_one(void *ctx, const char *origin, const char *path, const char *text, size_t len, const char *sha,
                    tl_err *e)
{
    (void)sha;
    loader *l = ctx;
    if (l->local_kernels && !strcmp(origin, SOURCE_TILELAB)) return 0;
    const source_file *had = source_store_find(l->s, origin, path);
    if (had) {
        tl_err_set(e, "%s:%s: the file holds two versions of it (%.12s..., %.12s...): a merge of runs with other "
                      "sources; rerun one of its inputs", origin, path, had->sha256, sha);
        return -1;
    }
    l->n++;
    return source_store_add(l->s, origin, path, text, len, sha, e);
}

int h5src_load_store(hid_t f, const char *where, int local_kernels, source_store *s, int *nfiles, tl_err *e)
{
    char *display = tl_xasprintf("%s:/sources", where);
    int have;
    loader l = {s, local_kernels, 0};
    source_store_init_preloaded(s, display, 0);
    free(display);
    if (h5src_each(f, where, load_one, &l, &have, e)) {
        tl_err_wrap(e, "%s", where);
        return -1;
    }
    /* The runner's own kernels from the file, unless asked not to or the file has none of them. */
    int tilelab_files = 0;
    for (int i = 0; i < s->n; i++) tilelab_files += !strcmp(s->files[i].origin, SOURCE_TILELAB);
    s->tilelab_preloaded = !local_kernels && tilelab_files > 0;
    *nfiles = l.n;
    return 0;
}

typedef struct {
    const source_store *s;
    char **lines; /* "origin:path sha" held by the file */
    int n;
} holder;

static int hold_one(void *ctx, const char *origin, const char *path, const char *text, size_t len, const char *sha,
                    tl_err *e)
{
    (void)text, (void)len, (void)e;
    holder *h = ctx;
    h->lines = realloc(h->lines, sizeof *h->lines * (size_t)(h->n + 1));
    if (!h->lines) abort();
    h->lines[h->n++] = tl_xasprintf("%s:%s %s", origin, path, sha);
    return 0;
}

int h5src_check_store(hid_t f, const char *where, const source_store *s, tl_err *e)
{
    holder h = {s, NULL, 0};
    int have, rc = -1;
    if (h5src_each(f, where, hold_one, &h, &have, e)) goto out;
    rc = 0;
    for (int i = 0; have && i < s->n && rc == 0; i++) {
        const source_file *sf = &s->files[i];
        if (!sf->used) continue;
        char *want = tl_xasprintf("%s:%s %s", sf->origin, sf->path, sf->sha256);
        int found = 0;
        for (int k = 0; k < h.n && !found; k++) found = !strcmp(h.lines[k], want);
        if (!found) {
            char *shown = source_display(s, sf);
            tl_err_set(e, "%s: was started with another version of %s (sha256 now %.12s...): resuming would mix "
                          "kernels; resume with the sources it was started with, or write a new file", where, shown,
                       sf->sha256);
            free(shown);
            rc = -1;
        }
        free(want);
    }
out:
    for (int k = 0; k < h.n; k++) free(h.lines[k]);
    free(h.lines);
    return rc;
}
