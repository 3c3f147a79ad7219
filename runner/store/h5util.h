/* h5util: the pieces of the result-file schema that the writer, the reader and merge share:
 * attributes, the /summary row type, schema versions, and whole-file copies. */
#ifndef TILELAB_H5UTIL_H
#define TILELAB_H5UTIL_H

#include <hdf5.h>

#include "runner/store/schema.h"
#include "runner/util/util.h"

/* Checks an HDF5 call inside a function with `const char *where` (the file, for the message),
 * `tl_err *e` and a `fail:` label: the message names the call and HDF5's innermost reason. */
#define H5_CHECK(call)                                                                                     \
    do {                                                                                                   \
        if ((call) < 0) {                                                                                  \
            char why_[512];                                                                                \
            h5util_last_error(why_, sizeof why_);                                                              \
            tl_err_set(e, "%s: HDF5 call failed at %s:%d: %s%s%s", where, __FILE__, __LINE__, #call,       \
                       why_[0] ? ": " : "", why_);                                                         \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

/* Written into new files (runner/store/schema.h). Readers take any tilelab/1 or tilelab/1.N (N additions only). */
#define H5_SCHEMA SCH_VERSION

/* 1 when schema names a version this runner reads. */
int h5util_schema_ok(const char *schema);
/* Opens a tilelab result file read-only and checks its schema; -1 with e naming path when it is not
 * readable HDF5, cannot be opened, or is not a tilelab/1.x file. */
hid_t h5util_open_result(const char *path, tl_err *e);

/* The innermost message of HDF5's error stack (e.g. the system error behind a failed write), or "";
 * clears the stack. */
void h5util_last_error(char *buf, size_t n);

/* H5Fclose, remembering a failure: HDF5 1.10 then crashes in its own atexit clean-up (it tries to
 * close that file again), so main leaves with _exit once the file on disk is safe. */
herr_t h5util_fclose(hid_t f);
extern int h5util_close_failed;
/* 1 when HDF5 still holds an open file or object of one: a file whose close went wrong without failing
 * (a crafted file, found by fuzzing `runner merge`), which HDF5's atexit clean-up would crash on. */
int h5util_left_open(void);

/* Variable-length UTF-8 string type; -1 on failure. */
hid_t h5util_str_type(void);
/* Scalar attributes, created or replaced. */
herr_t h5util_attr_str(hid_t obj, const char *name, const char *value);
herr_t h5util_attr_f64(hid_t obj, const char *name, double v);
herr_t h5util_attr_i64(hid_t obj, const char *name, long long v);
herr_t h5util_attr_i64_array(hid_t obj, const char *name, const long long *v, hsize_t n);
/* The attribute of schema row id (runner/store/schema.h), of the row's type: how the writer names what it writes.
 * h5util_put_f64_named: a row that stands for several (the op's args, "<arg>"), under name. A row of another type
 * is the writer's own mistake: it aborts. */
herr_t h5util_put_str(hid_t obj, sch_id id, const char *value);
herr_t h5util_put_f64(hid_t obj, sch_id id, double v);
herr_t h5util_put_i64(hid_t obj, sch_id id, long long v);
herr_t h5util_put_i64_array(hid_t obj, sch_id id, const long long *v, hsize_t n);
herr_t h5util_put_f64_named(hid_t obj, sch_id id, const char *name, double v);
/* The checked accessors: each reads an attribute that holds one value (a scalar, or an array of one) of its
 * class, and answers anything else as absent, so that a crafted shape or type is never read into room for one
 * value. The result-file check (h5check.h) names what a schema attribute holds instead.
 * A string attribute (variable or fixed length), malloc'd; NULL when absent, not one string, or a fixed length
 * past 64 MiB. */
char *h5util_read_str(hid_t obj, const char *name);
/* An attribute's shape: *n values, in *rank dimensions (0: a scalar). 0, or -1. */
int h5util_attr_shape(hid_t a, hssize_t *n, int *rank);
/* A floating-point attribute; 0 with *v set, -1 when absent or not a number. */
int h5util_read_f64(hid_t obj, const char *name, double *v);
/* An integer attribute; 0 with *v set, -1 when absent or not an integer. */
int h5util_read_i64(hid_t obj, const char *name, long long *v);

/* One row of /summary, as written and read. */
typedef struct {
    const char *case_id, *op, *variant, *target, *params, *sizes, *layout, *status;
    double median_ms, mean_ms, stdev_ms, min_ms, max_ms, p10_ms, p90_ms, gflops, gbs; /* ms, GFLOP/s, GB/s */
    int reps;      /* samples */
    int throttled; /* samples taken while a clock-event reason slowed the GPU */
} h5util_summary_row;

/* The compound type of h5util_summary_row (file and memory); -1 on failure. */
hid_t h5util_summary_type(void);

/* One row of /cases/<id>/counters (schema 1.3): a metric, its value over one run, CUPTI's unit. */
typedef struct {
    const char *name;
    double value;     /* over one run of the case */
    const char *unit;
} h5util_counter_row;

/* The compound type of h5util_counter_row; -1 on failure. */
hid_t h5util_counter_type(void);

/* Copies every attribute of object from to object to (replacing ones of the same name). */
int h5util_copy_attrs(hid_t from, hid_t to);

/* Reads every attribute of loc in full, as h5util_copy_attrs does: 0, or -1 when one cannot be read. The file
 * check reads what a merge copies, so that a value that crashes the HDF5 library does so in the check's
 * child process (h5in.c), not in the merge. */
int h5util_read_attrs(hid_t loc);

/* Copies src to dst (created, or truncated) and fsyncs it. */
int h5util_copy_file(const char *src, const char *dst, tl_err *e);
/* fsync of a file, and of the folder that holds path (so a rename in it is durable). */
int h5util_fsync_path(const char *path, tl_err *e);
int h5util_fsync_dir_of(const char *path, tl_err *e);

#endif
