/* source: the files a kernel compile reads, each read once and kept as read. NVRTC gets exactly
 * these bytes (never a file name it could open itself), and the result file stores them.
 *
 * Three origins: "experiment" files are read from the experiment file's folder (nothing outside it:
 * absolute paths, `..` that leaves it and links out of it are refused); "tilelab" files are the
 * runner's own kernels (kernels/, embedded in the binary); "data" files are a declared op's inputs
 * (.npy, HDF5), binary, read from the experiment's folder as its sources are. A result file can
 * preload all three, so that `rerun` compiles and feeds what the original run did; a data file over
 * SOURCE_CARRY_DATA_BYTES is recorded by its hash and size only, and read again from a folder named
 * for it (source_store.data_dir, checked against the hash). Every quoted #include is resolved here against
 * the including file's folder; <...> includes name the CUDA toolkit's headers. */
#ifndef TILELAB_SOURCE_H
#define TILELAB_SOURCE_H

#include <stddef.h>

#include "runner/util/util.h"

#define SOURCE_MAX_BYTES (1 << 20)        /* a kernel source or header, bytes */
#define SOURCE_MAX_TABLE_BYTES (16 << 20) /* a dispatch table (sgemm's tuning writes some MiB), bytes */
#define SOURCE_MAX_FILES 256       /* files one compile may read */
#define SOURCE_MAX_DATA_BYTES (1ULL << 36)    /* a data file: 64 GiB, what a GPU's memory could hold */
#define SOURCE_CARRY_DATA_BYTES (64ULL << 20) /* a data file the result file carries; above it, its hash and size */
#define SOURCE_EXPERIMENT "experiment"
#define SOURCE_TILELAB "tilelab"
#define SOURCE_DATA "data"

typedef struct {
    char *origin;    /* SOURCE_EXPERIMENT, SOURCE_TILELAB or SOURCE_DATA */
    char *path;      /* normalised, relative to its origin's folder: "kernels/my.cu", "sgemm/03_smem_tile.cu" */
    char *text;      /* the bytes, NUL-terminated (a source holds no NUL; a data file may); NULL when absent */
    size_t len;      /* bytes */
    char sha256[65]; /* of the bytes */
    int absent;      /* a data file a result file names by hash and size only (not carried): text is NULL */
    int used;        /* a variant of the experiment compiles it */
    int preloaded;   /* given by the caller (a result file), not read here */
} source_file;

typedef struct {
    source_file *files;
    int n;
    char *dir;            /* the experiment's folder, resolved; NULL: its files are only the preloaded ones */
    char *display;        /* how messages name the experiment's files: a folder as the user gave it, or
                           * "RESULT.h5:/sources" */
    int experiment_preloaded; /* the experiment's files are only the preloaded ones (dir is NULL) */
    int tilelab_preloaded;/* the runner's own kernels come from the preloaded files, not from this binary */
    char *data_dir;       /* where an absent data file is read from (rerun --data), resolved; or NULL */
    char *data_display;   /* data_dir as the user gave it */
} source_store;

/* One compile's files: entry 0 is the main source (named by its path), the others are headers with
 * the name they are included by (NVRTC matches headers by that name); one file may appear under
 * two names. */
typedef struct {
    int *files;   /* indices into the store */
    char **names;
    int n;
    int angle;    /* some file includes <...> (the toolkit's headers) */
    char *cutlass;/* the first <cute/...> or <cutlass/...> include, as "file:line: <name>" (the CUTLASS
                   * headers are then searched too), or NULL */
} source_set;

/* A store reading experiment files from the folder of yaml_path. */
void source_store_init(source_store *s, const char *yaml_path);
/* A store that reads nothing from disk: its files are preloaded with source_store_add. */
void source_store_init_preloaded(source_store *s, const char *display, int tilelab_preloaded);
void source_store_free(source_store *s);
/* Preloads a file (from a result file). -1 when it is not a usable file (a source with a NUL byte or
 * over SOURCE_MAX_TABLE_BYTES, a path that is not normalised and relative); a kernel source's own limit
 * is checked where a compile uses it. text NULL: an absent data file of len bytes and hash sha256. */
int source_store_add(source_store *s, const char *origin, const char *path, const char *text, size_t len,
                  const char *sha256, tl_err *e);
/* Absent data files are read from dir (rerun --data DIR); -1 when it is not a folder. */
int source_store_set_data_dir(source_store *s, const char *dir, tl_err *e);
/* Whether a used file goes into the result file with its bytes (else by its hash and size). */
int source_carried(const source_file *f);
/* The file of (origin, path), or NULL. */
const source_file *source_store_find(const source_store *s, const char *origin, const char *path);

/* Reads (origin, path) and every file it includes, transitively, into set; marks them used. Errors
 * name the file and line of a bad #include. */
int source_resolve(source_store *s, const char *origin, const char *path, source_set *set, tl_err *e);
/* Reads (origin, path) as a dispatch table: one file (no includes), at most SOURCE_MAX_TABLE_BYTES. */
int source_resolve_table(source_store *s, const char *origin, const char *path, source_set *set, tl_err *e);
/* A data file of the experiment's folder (path as written, relative to it), binary, at most
 * SOURCE_MAX_DATA_BYTES; marked used. Its index in the store, or -1 with e naming it and why. */
int source_read_data(source_store *s, const char *path, tl_err *e);
void source_set_free(source_set *set);
/* Stable text naming a set's files and their hashes, one "origin:path sha256" line each, main first. */
char *source_set_text(const source_store *s, const source_set *set);

/* How messages name a file: "experiments/x/kernels/my.cu", "kernels/sgemm/03_smem_tile.cu". */
char *source_display(const source_store *s, const source_file *f);

/* name, relative to the folder dir (itself relative to the root, "" for the root), as a normalised
 * path under the root. -1 with why set when name is absolute or leaves the root. */
int source_join(const char *dir, const char *name, char *out, size_t outlen, const char **why);

/* An #include (or __has_include) of a source. */
typedef struct {
    int line;   /* 1-based, physical */
    char kind;  /* '"' quoted, '<' angle, '?' computed (a macro), 'h' a quoted __has_include, 'H' an angle one */
    char *name; /* as written between the delimiters; the rest of the line for '?' */
} source_include;

/* Every #include of text, as a preprocessor would find it (line splices, comments and raw strings
 * handled); conditionals are not evaluated, so an include in #if 0 counts too. Caller frees. */
int source_scan_includes(const char *text, size_t len, source_include **out);
void source_includes_free(source_include *inc, int n);

#endif
