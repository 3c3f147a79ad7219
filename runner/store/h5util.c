#include "runner/store/h5util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int h5util_schema_ok(const char *schema)
{
    if (!schema || strncmp(schema, "tilelab/1", 9)) return 0;
    if (schema[9] == '\0') return 1;
    if (schema[9] != '.' || !schema[10]) return 0;
    for (const char *p = schema + 10; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

typedef struct {
    char *buf;
    size_t n;
    int have_errno; /* buf holds a system error */
} last_error;

static herr_t take_error(unsigned k, const H5E_error2_t *err, void *data)
{
    last_error *l = data;
    (void)k;
    if (!err->desc || !err->desc[0] || l->have_errno) return 0;
    /* From the innermost frame out: the first with a system error (errno = ..., error message =
     * '...'), else the innermost with any description. */
    const char *m = strstr(err->desc, "error message = '");
    if (m) {
        m += strlen("error message = '");
        snprintf(l->buf, l->n, "%.*s", (int)strcspn(m, "'"), m);
        l->have_errno = 1;
    } else if (!l->buf[0]) {
        snprintf(l->buf, l->n, "%s", err->desc);
    }
    return 0;
}

void h5util_last_error(char *buf, size_t n)
{
    last_error l = {buf, n, 0};
    buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_error, &l);
    H5Eclear2(H5E_DEFAULT);
}

int h5util_close_failed;

herr_t h5util_fclose(hid_t f)
{
    herr_t rc = H5Fclose(f);
    if (rc < 0) h5util_close_failed = 1;
    return rc;
}

int h5util_left_open(void)
{
    return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) > 0;
}

hid_t h5util_open_result(const char *path, tl_err *e)
{
    struct stat st;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (stat(path, &st) != 0) {
        tl_err_set(e, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        tl_err_set(e, "%s: a folder, not a result file", path);
        return -1;
    }
    if (H5Fis_hdf5(path) <= 0) {
        tl_err_set(e, "%s: not a readable HDF5 file", path);
        return -1;
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        char why[512];
        h5util_last_error(why, sizeof why);
        tl_err_set(e, "%s: not a complete HDF5 file (truncated or damaged%s%s)", path, why[0] ? ": " : "", why);
        return -1;
    }
    char *schema = h5util_read_str(f, "schema");
    int ok = h5util_schema_ok(schema);
    if (!schema && H5Aexists(f, "schema") > 0)
        tl_err_set(e, "%s: its root attribute 'schema' is not one string: not a tilelab result file", path);
    else if (!ok && (!schema || strncmp(schema, "tilelab/", 8)))
        tl_err_set(e, "%s: not a tilelab result file (no schema attribute tilelab/N)", path);
    else if (!ok)
        tl_err_set(e, "%s: schema %s, this runner reads tilelab/1.x", path, schema);
    free(schema);
    if (ok) return f;
    H5Fclose(f);
    return -1;
}

hid_t h5util_str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return -1;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* Creates (or replaces) attribute name of obj with the given type, space and value. */
static herr_t attr_put(hid_t obj, const char *name, hid_t type, hid_t space, const void *value)
{
    hid_t a = -1;
    herr_t rc = -1;
    htri_t have = H5Aexists(obj, name);
    if (have < 0 || (have > 0 && H5Adelete(obj, name) < 0)) return -1;
    if ((a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0) rc = H5Awrite(a, type, value);
    if (a >= 0 && H5Aclose(a) < 0) rc = -1;
    return rc;
}

static herr_t attr_scalar(hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    if (space < 0) return -1;
    herr_t rc = attr_put(obj, name, type, space, value);
    H5Sclose(space);
    return rc;
}

herr_t h5util_attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t t = h5util_str_type();
    if (t < 0) return -1;
    const char *v = value ? value : "";
    herr_t rc = attr_scalar(obj, name, t, &v);
    H5Tclose(t);
    return rc;
}

herr_t h5util_attr_f64(hid_t obj, const char *name, double v)
{
    return attr_scalar(obj, name, H5T_NATIVE_DOUBLE, &v);
}

herr_t h5util_attr_i64(hid_t obj, const char *name, long long v)
{
    return attr_scalar(obj, name, H5T_NATIVE_LLONG, &v);
}

herr_t h5util_attr_i64_array(hid_t obj, const char *name, const long long *v, hsize_t n)
{
    hid_t space = H5Screate_simple(1, &n, NULL);
    if (space < 0) return -1;
    herr_t rc = attr_put(obj, name, H5T_NATIVE_LLONG, space, v);
    H5Sclose(space);
    return rc;
}

int h5util_attr_shape(hid_t a, hssize_t *n, int *rank)
{
    hid_t sp = H5Aget_space(a);
    if (sp < 0) return -1;
    H5S_class_t cl = H5Sget_simple_extent_type(sp);
    *rank = cl == H5S_SCALAR ? 0 : H5Sget_simple_extent_ndims(sp);
    *n = cl == H5S_NULL ? 0 : H5Sget_simple_extent_npoints(sp);
    H5Sclose(sp);
    return *rank < 0 || *n < 0 ? -1 : 0;
}

/* Attribute name of obj when it holds one value (a scalar, or an array of one) of class cl, else -1: a reader
 * never reads an array into room for one value. */
static hid_t attr_open_one(hid_t obj, const char *name, H5T_class_t cl, H5T_class_t cl2, hid_t *type)
{
    hid_t a, t = -1;
    hssize_t n;
    int rank;
    *type = -1;
    if (H5Aexists(obj, name) <= 0 || (a = H5Aopen(obj, name, H5P_DEFAULT)) < 0) return -1;
    if (h5util_attr_shape(a, &n, &rank) == 0 && n == 1 && (t = H5Aget_type(a)) >= 0 &&
        (H5Tget_class(t) == cl || H5Tget_class(t) == cl2)) {
        *type = t;
        return a;
    }
    if (t >= 0) H5Tclose(t);
    H5Aclose(a);
    return -1;
}

/* The most a fixed-length string attribute may take: a crafted size is not an allocation. */
#define H5_MAX_FIXED_STR (64u << 20)

char *h5util_read_str(hid_t obj, const char *name)
{
    char *out = NULL;
    hid_t a = -1, t = -1, mt = -1;
    if ((a = attr_open_one(obj, name, H5T_STRING, H5T_STRING, &t)) < 0) goto out;
    if (H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        if ((mt = h5util_str_type()) < 0 || H5Aread(a, mt, &v) < 0) goto out;
        out = tl_xstrdup(v ? v : "");
        H5free_memory(v);
    } else {
        size_t n = H5Tget_size(t);
        if (n == 0 || n > H5_MAX_FIXED_STR) goto out;
        out = tl_xcalloc(n + 1, 1);
        if (H5Aread(a, t, out) < 0) {
            free(out);
            out = NULL;
        }
    }
out:
    if (mt >= 0) H5Tclose(mt);
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return out;
}

int h5util_read_i64(hid_t obj, const char *name, long long *v)
{
    hid_t a = -1, t = -1;
    int rc = -1;
    if ((a = attr_open_one(obj, name, H5T_INTEGER, H5T_INTEGER, &t)) >= 0 && H5Aread(a, H5T_NATIVE_LLONG, v) >= 0)
        rc = 0;
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return rc;
}

int h5util_read_f64(hid_t obj, const char *name, double *v)
{
    hid_t a = -1, t = -1;
    int rc = -1;
    if ((a = attr_open_one(obj, name, H5T_FLOAT, H5T_INTEGER, &t)) >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0)
        rc = 0;
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return rc;
}

hid_t h5util_summary_type(void)
{
    hid_t s = h5util_str_type(), t = H5Tcreate(H5T_COMPOUND, sizeof(h5util_summary_row));
    if (s < 0 || t < 0) {
        if (s >= 0) H5Tclose(s);
        if (t >= 0) H5Tclose(t);
        return -1;
    }
    herr_t rc = 0;
#define STR(f) rc |= H5Tinsert(t, #f, offsetof(h5util_summary_row, f), s)
#define F64(f) rc |= H5Tinsert(t, #f, offsetof(h5util_summary_row, f), H5T_NATIVE_DOUBLE)
    STR(case_id), STR(op), STR(variant), STR(target), STR(params), STR(sizes), STR(layout), STR(status);
    F64(median_ms), F64(mean_ms), F64(stdev_ms), F64(min_ms), F64(max_ms), F64(p10_ms), F64(p90_ms);
    F64(gflops), F64(gbs);
    rc |= H5Tinsert(t, "reps", offsetof(h5util_summary_row, reps), H5T_NATIVE_INT);
    rc |= H5Tinsert(t, "throttled", offsetof(h5util_summary_row, throttled), H5T_NATIVE_INT);
#undef STR
#undef F64
    H5Tclose(s);
    if (rc < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

hid_t h5util_counter_type(void)
{
    hid_t s = h5util_str_type(), t = H5Tcreate(H5T_COMPOUND, sizeof(h5util_counter_row));
    herr_t rc = s < 0 || t < 0 ? -1 : 0;
    if (!rc) {
        rc |= H5Tinsert(t, "name", offsetof(h5util_counter_row, name), s);
        rc |= H5Tinsert(t, "value", offsetof(h5util_counter_row, value), H5T_NATIVE_DOUBLE);
        rc |= H5Tinsert(t, "unit", offsetof(h5util_counter_row, unit), s);
    }
    if (s >= 0) H5Tclose(s);
    if (rc < 0) {
        if (t >= 0) H5Tclose(t);
        return -1;
    }
    return t;
}

/* Reads attribute name of from in full (a variable-length value's heap objects too) and, when *data is an
 * object (not -1), writes it there. */
static herr_t copy_attr(hid_t from, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    hid_t to = *(hid_t *)data, a = -1, ftype = -1, mtype = -1, space = -1;
    void *buf = NULL;
    herr_t rc = -1;
    if ((a = H5Aopen(from, name, H5P_DEFAULT)) < 0 || (ftype = H5Aget_type(a)) < 0 ||
        (mtype = H5Tget_native_type(ftype, H5T_DIR_DEFAULT)) < 0 || (space = H5Aget_space(a)) < 0)
        goto out;
    hssize_t n = H5Sget_simple_extent_npoints(space);
    size_t size = H5Tget_size(mtype);
    if (n < 0 || size == 0) goto out;
    buf = tl_xcalloc((size_t)n + 1, size);
    if (H5Aread(a, mtype, buf) < 0) goto out;
    rc = to < 0 ? 0 : attr_put(to, name, mtype, space, buf);
    if (H5Tdetect_class(mtype, H5T_VLEN) > 0 || H5Tis_variable_str(mtype) > 0)
        H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf);
out:
    free(buf);
    if (space >= 0) H5Sclose(space);
    if (mtype >= 0) H5Tclose(mtype);
    if (ftype >= 0) H5Tclose(ftype);
    if (a >= 0) H5Aclose(a);
    return rc;
}

int h5util_copy_attrs(hid_t from, hid_t to)
{
    hsize_t idx = 0;
    return H5Aiterate2(from, H5_INDEX_NAME, H5_ITER_INC, &idx, copy_attr, &to) < 0 ? -1 : 0;
}

int h5util_read_attrs(hid_t loc)
{
    hid_t none = -1;
    hsize_t idx = 0;
    return H5Aiterate2(loc, H5_INDEX_NAME, H5_ITER_INC, &idx, copy_attr, &none) < 0 ? -1 : 0;
}

int h5util_copy_file(const char *src, const char *dst, tl_err *e)
{
    int in = -1, out = -1, rc = -1;
    char buf[1 << 16];
    if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0) {
        tl_err_set(e, "%s: cannot read: %s", src, strerror(errno));
        goto done;
    }
    if ((out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        tl_err_set(e, "%s: cannot create: %s", dst, strerror(errno));
        goto done;
    }
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            tl_err_set(e, "%s: read failed: %s", src, strerror(errno));
            goto done;
        }
        if (n == 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                tl_err_set(e, "%s: write failed: %s", dst, strerror(errno));
                goto done;
            }
            off += w;
        }
    }
    if (fsync(out) < 0) {
        tl_err_set(e, "%s: fsync failed: %s", dst, strerror(errno));
        goto done;
    }
    rc = 0;
done:
    if (in >= 0) close(in);
    if (out >= 0 && close(out) < 0 && rc == 0) {
        tl_err_set(e, "%s: close failed: %s", dst, strerror(errno));
        rc = -1;
    }
    return rc;
}

int h5util_fsync_path(const char *path, tl_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) < 0) {
        tl_err_set(e, "%s: fsync failed: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

int h5util_fsync_dir_of(const char *path, tl_err *e)
{
    char *copy = tl_xstrdup(path);
    const char *dir = dirname(copy);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
    /* Some file systems refuse fsync on a folder (EINVAL): the rename still happened. */
    if (fd < 0 || (fsync(fd) < 0 && errno != EINVAL)) {
        tl_err_set(e, "%s: fsync of the folder failed: %s", dir, strerror(errno));
        rc = -1;
    }
    if (fd >= 0) close(fd);
    free(copy);
    return rc;
}

/* ---- writing by the schema's rows ------------------------------------------------------------------ */

static const char *put_name(sch_id id, sch_type type)
{
    if ((int)id < 0 || id >= SCH_N || sch_fields[id].type != type || sch_fields[id].name[0] == '<') {
        fprintf(stderr, "tilelab: the writer puts schema row %d as %s, which it is not (runner/store/schema.c)\n", (int)id,
                sch_type_names[type]);
        abort();
    }
    return sch_fields[id].name;
}

herr_t h5util_put_str(hid_t obj, sch_id id, const char *value)
{
    return h5util_attr_str(obj, put_name(id, SCH_STR), value);
}

herr_t h5util_put_f64(hid_t obj, sch_id id, double v)
{
    return h5util_attr_f64(obj, put_name(id, SCH_F64), v);
}

herr_t h5util_put_i64(hid_t obj, sch_id id, long long v)
{
    return h5util_attr_i64(obj, put_name(id, SCH_I64), v);
}

herr_t h5util_put_i64_array(hid_t obj, sch_id id, const long long *v, hsize_t n)
{
    return h5util_attr_i64_array(obj, put_name(id, SCH_I64_ARRAY), v, n);
}

herr_t h5util_put_f64_named(hid_t obj, sch_id id, const char *name, double v)
{
    if ((int)id < 0 || id >= SCH_N || sch_fields[id].type != SCH_F64 || sch_fields[id].name[0] != '<') {
        fprintf(stderr, "tilelab: the writer puts '%s' under schema row %d, which stands for no family\n", name, (int)id);
        abort();
    }
    return h5util_attr_f64(obj, name, v);
}
