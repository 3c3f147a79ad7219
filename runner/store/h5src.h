/* h5src: /sources in result files (schema tilelab/1.2): one dataset of bytes per distinct kernel
 * source, named by the SHA-256 of the bytes, with the paths it was read as ("origin:path", one per
 * line). The writer, merge, resume and rerun share these. */
#ifndef TILELAB_H5SRC_H
#define TILELAB_H5SRC_H

#include <hdf5.h>

#include "runner/config/source.h"

/* Adds the bytes (once) and the path (once) to /sources of f. where names f in errors. text NULL: a data
 * file not carried, named by sha256 and its size len. */
int h5src_add(hid_t f, const char *where, const char *origin, const char *path, const char *text, size_t len,
              const char *sha256, tl_err *e);
/* Adds every used file of the store. */
int h5src_add_store(hid_t f, const char *where, const source_store *s, tl_err *e);

typedef int (*h5src_fn)(void *ctx, const char *origin, const char *path, const char *text, size_t len,
                        const char *sha256, tl_err *e);
/* Calls fn for each (origin, path) of /sources, its bytes checked against their name (text NULL: a data file
 * not carried, of len bytes). *have is 0
 * when the file has no /sources (written before tilelab/1.2). Errors name where. */
int h5src_each(hid_t f, const char *where, h5src_fn fn, void *ctx, int *have, tl_err *e);

/* A store preloaded with a result file's sources (the experiment's, and the runner's own kernels
 * unless local_kernels): what `rerun` and `extract` read. *nfiles counts them. */
int h5src_load_store(hid_t f, const char *where, int local_kernels, source_store *s, int *nfiles, tl_err *e);

/* 0 when f's /sources hold every used file of the store as it is now (or f has no /sources);
 * -1 with e naming the first file that differs (resuming would mix kernels). */
int h5src_check_store(hid_t f, const char *where, const source_store *s, tl_err *e);

#endif
