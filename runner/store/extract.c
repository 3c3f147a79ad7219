#include "runner/store/extract.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/store/h5in.h"
#include "runner/store/h5src.h"
#include "runner/store/h5util.h"

int extract_store_files(const source_store *s, const char *dir, tl_err *e)
{
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        const source_file *f = &s->files[i];
        if (!f->used || !strcmp(f->origin, SOURCE_TILELAB) || f->absent) continue;
        /* Paths in a store are normalised and relative (source_join): they stay inside dir. */
        char *path = tl_xasprintf("%s/%s", dir, f->path), *copy = tl_xstrdup(path);
        int bad = tl_mkdir_p(dirname(copy), e) || tl_write_file_atomic(path, f->text, f->len, e);
        free(path), free(copy);
        if (bad) return -1;
        n++;
    }
    return n;
}

/* 0 when dir is missing or an empty folder. */
static int dir_free(const char *dir, tl_err *e)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) return 0;
        tl_err_set(e, "%s: %s", dir, errno == ENOTDIR ? "exists and is not a folder" : strerror(errno));
        return -1;
    }
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) empty = 0;
    closedir(d);
    if (!empty) tl_err_set(e, "%s: exists and is not empty; extract writes a new folder", dir);
    return empty ? 0 : -1;
}

/* The experiment file's name in the folder: the original's, if it is a plain file name. */
static char *yaml_name(const h5in_source *src)
{
    char *copy = tl_xstrdup(src->config_path ? src->config_path : "");
    const char *b = basename(copy);
    int ok = b[0] && b[0] != '.' && strcmp(b, "/") && strlen(b) < 200;
    for (const char *p = b; *p && ok; p++) ok = *p > 0x20 && *p != '/' && *p != '\\';
    char *name = ok ? tl_xstrdup(b) : tl_xstrdup("experiment.yaml");
    free(copy);
    return name;
}

/* rm -r of what extract made (a fresh folder holds nothing else). */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *child = tl_xasprintf("%s/%s", path, de->d_name);
        remove_tree(child);
        free(child);
    }
    closedir(d);
    rmdir(path);
}

int extract_result(const char *h5, const char *dir, extract_report *r, tl_err *e)
{
    h5in_source src = {0};
    source_store store = {0};
    int rc = -1, made = 0, nfiles;
    memset(r, 0, sizeof *r);
    if (dir_free(dir, e)) goto out;
    hid_t f = h5in_open(h5, e);
    if (f < 0) goto out;
    int bad = h5in_read_source(f, h5, &src, e) || h5src_load_store(f, h5, 1, &store, &nfiles, e);
    H5Fclose(f);
    if (bad) goto out;
    if (tl_mkdir_p(dir, e)) goto out;
    made = 1;
    /* Every experiment file the result holds (the run used them all). */
    for (int i = 0; i < store.n; i++) store.files[i].used = 1;
    char *name = yaml_name(&src);
    r->yaml = tl_xasprintf("%s/%s", dir, name);
    free(name);
    if (source_store_find(&store, SOURCE_EXPERIMENT, r->yaml + strlen(dir) + 1)) {
        tl_err_set(e, "%s: the experiment file's name is also a kernel source's", h5);
        goto out;
    }
    if (tl_write_file_atomic(r->yaml, src.config_yaml, strlen(src.config_yaml), e)) goto out;
    if ((r->nsources = extract_store_files(&store, dir, e)) < 0) goto out;
    tl_buf absent = {0};
    for (int i = 0; i < store.n; i++) {
        const source_file *sf = &store.files[i];
        if (!strcmp(sf->origin, SOURCE_DATA) && !sf->absent) r->ndata++;
        if (sf->absent)
            tl_buf_printf(&absent, "%s%s (%.1f MiB, sha256 %s)", r->nabsent++ ? "\n" : "", sf->path, sf->len / 1048576.0,
                          sf->sha256);
    }
    r->nsources -= r->ndata;
    r->absent = absent.s;
    /* The folder must run as written: the experiment loads from it as `runner run` would load it (a config that
     * names a file outside its folder is refused here, as rerun refuses it). Not when a data file is absent: it
     * loads once that file is put beside it. */
    tl_experiment x;
    if (!r->nabsent && config_load(r->yaml, &x, e)) {
        tl_err_wrap(e, "%s: its experiment does not load from the extracted folder", h5);
        goto out;
    }
    if (!r->nabsent) config_free(&x);
    rc = 0;
out:
    if (rc && made) remove_tree(dir);
    if (rc) extract_report_free(r);
    h5in_source_free(&src);
    source_store_free(&store);
    return rc;
}

void extract_report_free(extract_report *r)
{
    free(r->yaml), free(r->absent);
    memset(r, 0, sizeof *r);
}
