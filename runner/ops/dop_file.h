/* dop_file: a declared op's buffer made from a file of the experiment's folder (`init: {file: ...}`): a .npy
 * array, or a dataset of an HDF5 file. The element type must be the buffer's (bf16 as its 16-bit patterns,
 * u2, since numpy and HDF5 have no bf16), little-endian or converted by HDF5; the count is checked against the
 * buffer's for every problem (dop_check). The file itself is read through the source store (runner/config/source.h),
 * so the result file carries it and `rerun` and `extract` give it back. */
#ifndef TILELAB_DOP_FILE_H
#define TILELAB_DOP_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *path;        /* as written, relative to the experiment's folder */
    char *dataset;     /* an HDF5 file's dataset, or NULL for .npy */
    void *data;        /* the elements, as the device gets them */
    int64_t count;
    char shape[96];    /* "(31,)", for messages */
    char sha256[65];   /* of the elements: the declaration's identity holds it, not the file's bytes */
    int line, col;     /* where the init names it */
    char field[128];
} dop_file;

/* Decodes len bytes (the file's) as elements of type t (runner/ops/dop_gen.h's TL_GEN_F32 ..) of size bytes each, into f.
 * 0, or -1 with why (a sentence without the path). */
int dop_file_decode(dop_file *f, int t, int size, const char *bytes, size_t len, char *why, size_t n);
void dop_file_free(dop_file *f);

#endif
