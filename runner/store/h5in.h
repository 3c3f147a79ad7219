/* h5in: what the runner reads back from a result file: the embedded experiment and its kernel
 * sources, for `rerun` and `extract`. */
#ifndef TILELAB_H5IN_H
#define TILELAB_H5IN_H

#include <hdf5.h>

#include "runner/config/source.h"

typedef struct {
    char *config_yaml; /* the experiment file, verbatim */
    char *config_path; /* where it was read from */
    char *created_utc; /* when that run started */
    char *host;        /* where it ran */
} h5in_source;

/* Opens a result file read-only after checking it against the schema and itself (h5check.h): the
 * one way the runner reads result files. -1 with e ("FILE: what is wrong") otherwise. */
hid_t h5in_open(const char *path, tl_err *e);
/* The same for a file whose lock (h5out_lock) this process holds, so that no runner changes it between
 * the child's check and the open: checked in the child only (a resume of 14400 host cases spent 15 of
 * its 16 s in the two checks; 11 s with one). */
hid_t h5in_open_locked(const char *path, tl_err *e);

/* The experiment embedded in a file h5in_open opened (path names it in errors). Its kernel sources:
 * h5src_load_store. */
int h5in_read_source(hid_t f, const char *path, h5in_source *s, tl_err *e);
void h5in_source_free(h5in_source *s);

#endif
