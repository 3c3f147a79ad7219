/* h5out: the result file, schema tilelab/1 (results/README.md). The file is flushed after every case,
 * so a crash loses at most the case in flight. */
#ifndef TILELAB_H5OUT_H
#define TILELAB_H5OUT_H

#include <hdf5.h>

#include "runner/config.h"
#include "runner/env.h"
#include "runner/result.h"

#define H5OUT_SCHEMA "tilelab/1"

typedef struct {
    hid_t file;          /* open file */
    hid_t summary;       /* /summary dataset */
    hid_t summary_type;  /* its compound type */
    hsize_t rows;        /* rows written to /summary */
    char *path;
} h5out;

/* Creates path (never overwrites) and writes the root and /env attributes. */
int h5out_open(h5out *o, const char *path, const tl_experiment *x, const env_info *env, const char *argv_text,
               tl_err *e);
int h5out_write_case(h5out *o, const tl_result *r, tl_err *e);
/* One more string attribute on the root group (e.g. rerun_of). */
int h5out_root_attr(h5out *o, const char *name, const char *value, tl_err *e);
/* Run totals (overhead: wall time against the sum of timed regions), as root attributes. */
int h5out_finish(h5out *o, double wall_s, double timed_s, tl_err *e);
int h5out_close(h5out *o, tl_err *e);

#endif
