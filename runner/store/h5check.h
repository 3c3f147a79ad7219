/* h5check: a result file is input like a YAML (it travels between machines): before the runner
 * reads one, it checks it against the schema (results/README.md) and against itself:
 *  - the root attributes it needs, as strings, and config_sha256 the hash of config_yaml;
 *  - /env, /cases, /summary (and /sessions from 1.1) of the right kinds;
 *  - every case: named by its id, which is the hash of its canonical text, a known status, its
 *    samples a 1-D float64 dataset (not empty when ok), telemetry of the same length, a session
 *    that exists;
 *  - /summary one row per case, with the case's status and number of samples;
 *  - /sources (1.2): bytes that hash to their names, paths that stay inside a folder, every case's
 *    sources present.
 * The first problem found is the error: "FILE: what is wrong". */
#ifndef TILELAB_H5CHECK_H
#define TILELAB_H5CHECK_H

#include <hdf5.h>

#include "runner/util/util.h"

/* 0 when f (opened from path, schema already checked) is a consistent tilelab/1.x file. */
int h5check_file(hid_t f, const char *path, tl_err *e);

#endif
