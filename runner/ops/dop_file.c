#include "runner/ops/dop_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/ops/dop_gen.h"
#include "runner/util/util.h"

/* Each type (runner/ops/dop_gen.h's, as dop_type holds them) as the YAML names it, as numpy does, and its
 * array-protocol code ("f4"); bf16 has none of its own: its bits, u2. */
static const struct {
    const char *name, *numpy, *code;
    int is_unsigned;
} npy_names[] = {
    [TL_GEN_F32] = {"f32", "float32", "f4", 0},  [TL_GEN_F64] = {"f64", "float64", "f8", 0},
    [TL_GEN_I32] = {"i32", "int32", "i4", 0},    [TL_GEN_I64] = {"i64", "int64", "i8", 0},
    [TL_GEN_F16] = {"f16", "float16", "f2", 0},  [TL_GEN_BF16] = {"bf16", "uint16 (bf16's bits)", "u2", 1},
    [TL_GEN_I8] = {"i8", "int8", "i1", 0},       [TL_GEN_U8] = {"u8", "uint8", "u1", 1},
    [TL_GEN_I16] = {"i16", "int16", "i2", 0},    [TL_GEN_U16] = {"u16", "uint16", "u2", 1},
    [TL_GEN_U32] = {"u32", "uint32", "u4", 1},   [TL_GEN_U64] = {"u64", "uint64", "u8", 1},
};

static int fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

static int64_t shape_count(const uint64_t *dims, int rank, char *shape, size_t n)
{
    uint64_t count = 1;
    int over = 0;
    size_t len = (size_t)snprintf(shape, n, "(");
    for (int i = 0; i < rank; i++) {
        over |= !tl_mul_u64(count, dims[i], &count) || count > (1ULL << 62);
        if (len < n) len += (size_t)snprintf(shape + len, n - len, "%s%llu", i ? ", " : "", (unsigned long long)dims[i]);
    }
    if (len < n) snprintf(shape + len, n - len, "%s)", rank == 1 ? "," : "");
    return over ? -1 : (int64_t)count;
}

/* ---- .npy ------------------------------------------------------------------------------------- */

/* The value of 'key': in a .npy header (a Python dict literal), or NULL. */
static const char *npy_key(const char *h, const char *key)
{
    char q1[40], q2[40];
    snprintf(q1, sizeof q1, "'%s'", key), snprintf(q2, sizeof q2, "\"%s\"", key);
    const char *p = strstr(h, q1);
    if (!p) p = strstr(h, q2);
    if (!p) return NULL;
    p = strchr(p + strlen(q1), ':');
    if (!p) return NULL;
    for (p++; *p == ' '; p++) {}
    return p;
}

static int npy_decode(dop_file *f, int t, int size, const char *b, size_t len, char *why, size_t n)
{
    if (len < 10 || memcmp(b, "\x93NUMPY", 6)) return fail(why, n, "not a .npy file (no \\x93NUMPY magic)");
    unsigned major = (unsigned char)b[6];
    size_t hlen, start;
    if (major == 1) hlen = (unsigned char)b[8] | (size_t)(unsigned char)b[9] << 8, start = 10;
    else if ((major == 2 || major == 3) && len >= 12)
        hlen = (unsigned char)b[8] | (size_t)(unsigned char)b[9] << 8 | (size_t)(unsigned char)b[10] << 16 |
               (size_t)(unsigned char)b[11] << 24, start = 12;
    else return fail(why, n, ".npy format version %u is not one of 1, 2, 3", major);
    if (hlen > len - start || hlen > 1 << 20) return fail(why, n, "its .npy header runs past the file");
    char *h = tl_xmalloc(hlen + 1);
    memcpy(h, b + start, hlen);
    h[hlen] = '\0';
    int rc = -1;
    const char *descr = npy_key(h, "descr"), *fo = npy_key(h, "fortran_order"), *shp = npy_key(h, "shape");
    char code[16] = "";
    uint64_t dims[32];
    int rank = 0;
    if (!descr || !fo || !shp) {
        fail(why, n, "its .npy header lacks descr, fortran_order or shape");
        goto out;
    }
    if ((*descr != '\'' && *descr != '"') || sscanf(descr + 1, "%15[^'\"]", code) != 1) {
        fail(why, n, "it holds a structured array (descr is not one type)");
        goto out;
    }
    if (*shp != '(') {
        fail(why, n, "its .npy shape is not a tuple");
        goto out;
    }
    for (const char *p = shp + 1; *p && *p != ')';) {
        char *end;
        unsigned long long d = isdigit((unsigned char)*p) ? strtoull(p, &end, 10) : 0; /* strtoull takes "-1024" */
        if (!isdigit((unsigned char)*p)) end = (char *)p;
        if (end == p || rank == 32) {
            fail(why, n, "its .npy shape is not a tuple of sizes");
            goto out;
        }
        dims[rank++] = d;
        for (p = end; *p == ',' || *p == ' '; p++) {}
    }
    /* The byte order: '<' little, '|' not applicable (one byte), '=' native (little on every host tilelab runs on). */
    char order = code[0], *kind = code + (order == '<' || order == '>' || order == '|' || order == '=');
    int want_bits = t == TL_GEN_BF16 && (!strcmp(kind, "u2") || !strcmp(kind, "V2"));
    if (strcmp(kind, npy_names[t].code) && !want_bits) {
        fail(why, n, "it holds '%s', not %s: write it as %s (x.astype(np.%s))", code, npy_names[t].name,
             npy_names[t].numpy, t == TL_GEN_BF16 ? "uint16" : npy_names[t].numpy);
        goto out;
    }
    if (order == '>' && size > 1) {
        fail(why, n, "it is big-endian ('%s'): write it little-endian (x.astype('<%s'))", code, kind);
        goto out;
    }
    if (!strncmp(fo, "True", 4) && rank > 1) {
        fail(why, n, "it is in Fortran order: write it C-ordered (np.ascontiguousarray(x))");
        goto out;
    }
    int64_t count = shape_count(dims, rank, f->shape, sizeof f->shape);
    size_t data = start + hlen, bytes = (size_t)count * (size_t)size;
    if (count <= 0) {
        fail(why, n, "its shape %s holds no elements, or too many", f->shape);
        goto out;
    }
    if (len - data != bytes) {
        fail(why, n, "it holds %zu bytes of data where its shape %s of %s makes %zu (truncated or padded)", len - data,
             f->shape, code, bytes);
        goto out;
    }
    f->data = tl_xmalloc(bytes);
    memcpy(f->data, b + data, bytes);
    f->count = count;
    rc = 0;
out:
    free(h);
    return rc;
}

/* ---- HDF5 ------------------------------------------------------------------------------------- */

/* The memory type of t (HDF5 converts order and, within a class and size, nothing else). */
static hid_t hdf5_mem_type(int t, hid_t file_type)
{
    switch (t) {
    case TL_GEN_F32: return H5Tcopy(H5T_NATIVE_FLOAT);
    case TL_GEN_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case TL_GEN_I8: return H5Tcopy(H5T_NATIVE_INT8);
    case TL_GEN_U8: return H5Tcopy(H5T_NATIVE_UINT8);
    case TL_GEN_I16: return H5Tcopy(H5T_NATIVE_INT16);
    case TL_GEN_U16: case TL_GEN_BF16: return H5Tcopy(H5T_NATIVE_UINT16);
    case TL_GEN_I32: return H5Tcopy(H5T_NATIVE_INT32);
    case TL_GEN_U32: return H5Tcopy(H5T_NATIVE_UINT32);
    case TL_GEN_I64: return H5Tcopy(H5T_NATIVE_INT64);
    case TL_GEN_U64: return H5Tcopy(H5T_NATIVE_UINT64);
    default: { /* f16: the file's own half type, little-endian */
        hid_t m = H5Tcopy(file_type);
        if (m >= 0) H5Tset_order(m, H5T_ORDER_LE);
        return m;
    }
    }
}

/* What a dataset type is, for messages: "float64", "int16", "a string". */
static void hdf5_type_name(hid_t ft, char *out, size_t n)
{
    H5T_class_t cl = H5Tget_class(ft);
    size_t size = H5Tget_size(ft);
    if (cl == H5T_FLOAT) snprintf(out, n, "float%zu", 8 * size);
    else if (cl == H5T_INTEGER) snprintf(out, n, "%sint%zu", H5Tget_sign(ft) == H5T_SGN_NONE ? "u" : "", 8 * size);
    else snprintf(out, n, "%s", cl == H5T_STRING ? "strings" : cl == H5T_COMPOUND ? "compound records" : "another class");
}

/* HDF5 looks for its signature at 0 and at each power of two from 512 on (a user block before it). */
static int hdf5_signed(const char *b, size_t len)
{
    for (size_t at = 0; at + 8 <= len; at = at ? 2 * at : 512)
        if (!memcmp(b + at, "\x89HDF\r\n\x1a\n", 8)) return 1;
    return 0;
}

/* An external link met on the way to the dataset: refused (the traversal fails), and remembered to say so. */
typedef struct {
    char target[256];
} elink_seen;

static herr_t refuse_elink(const char *parent_file, const char *parent_group, const char *child_file,
                           const char *child_object, unsigned *flags, hid_t fapl, void *data)
{
    (void)parent_file, (void)flags, (void)fapl;
    elink_seen *seen = data;
    snprintf(seen->target, sizeof seen->target, " (in %s) to %s:%s", parent_group, child_file, child_object);
    return -1;
}

/* The filters whose output is the dataset's own bytes, each bounded by its chunk: others (an external program's,
 * a plugin's) are refused. */
static int filter_ok(H5Z_filter_t id)
{
    return id == H5Z_FILTER_DEFLATE || id == H5Z_FILTER_SHUFFLE || id == H5Z_FILTER_FLETCHER32;
}

/* A chunk at most this big, or at most the dataset's bytes: a chunk is inflated whole to be read. */
#define H5_MAX_CHUNK_BYTES (4u << 20)

/* Whether dataset d (count elements of size bytes) keeps its elements in this file and bounded: no virtual or
 * external storage, only the standard filters, chunks no larger than the dataset (or 4 MiB) and every one
 * written. 0, or -1 with why. Its metadata only: no element is read. */
static int hdf5_storage_ok(dop_file *f, hid_t d, int64_t count, int size, char *why, size_t n)
{
    hid_t dcpl = H5Dget_create_plist(d);
    int rc = 0, rank;
    if (dcpl < 0) return fail(why, n, "HDF5 cannot read how dataset '%s' is stored", f->dataset);
    H5D_layout_t layout = H5Pget_layout(dcpl);
    uint64_t bytes = (uint64_t)count * (uint64_t)size;
    if (layout == H5D_VIRTUAL) {
        rc = fail(why, n, "dataset '%s' is a virtual dataset (its elements are other datasets'): a data file holds its "
                  "elements itself", f->dataset);
    } else if (H5Pget_external_count(dcpl) != 0) {
        char name[1024] = "";
        off_t off;
        hsize_t sz;
        H5Pget_external(dcpl, 0, sizeof name, name, &off, &sz);
        rc = fail(why, n, "dataset '%s' keeps its elements in an external file ('%s'): a data file holds its elements "
                  "itself", f->dataset, name);
    } else {
        int nf = H5Pget_nfilters(dcpl);
        for (int i = 0; i < nf && !rc; i++) {
            unsigned flags, cd[8];
            size_t ncd = 8;
            char fname[64] = "";
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, NULL);
            if (!filter_ok(id))
                rc = fail(why, n, "dataset '%s' is stored through filter %d ('%s'): only deflate, shuffle and fletcher32 "
                          "are read", f->dataset, (int)id, fname);
        }
    }
    if (!rc && layout == H5D_CHUNKED) {
        hsize_t cdims[32], want = 1, dims[32], nchunks = 0;
        hid_t sp = H5Dget_space(d);
        rank = H5Pget_chunk(dcpl, 32, cdims);
        int srank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
        uint64_t chunk = (uint64_t)size;
        for (int i = 0; i < rank && chunk <= (1ULL << 40); i++) chunk *= cdims[i];
        for (int i = 0; i < srank && i < rank; i++) want *= cdims[i] ? (dims[i] + cdims[i] - 1) / cdims[i] : 0;
        if (rank < 0 || srank != rank) {
            rc = fail(why, n, "HDF5 cannot read dataset '%s''s chunks", f->dataset);
        } else if (chunk > H5_MAX_CHUNK_BYTES && chunk > bytes) {
            rc = fail(why, n, "dataset '%s' is stored in chunks of %llu bytes, more than its %llu bytes of elements: "
                      "write it with smaller chunks (at most 4 MiB)", f->dataset, (unsigned long long)chunk,
                      (unsigned long long)bytes);
        } else if (H5Dget_num_chunks(d, sp, &nchunks) < 0 || nchunks != want) { /* the file's space: not H5S_ALL */
            rc = fail(why, n, "dataset '%s' holds %lld elements (shape %s) in %llu chunks, but %s of them were ever "
                      "written", f->dataset, (long long)count, f->shape, (unsigned long long)want,
                      nchunks ? "only some" : "none");
        }
        if (sp >= 0) H5Sclose(sp);
    } else if (!rc && layout == H5D_CONTIGUOUS && H5Dget_storage_size(d) < bytes) {
        rc = fail(why, n, "dataset '%s' holds %lld elements (shape %s), but its file stores %llu of their %llu bytes "
                  "(never written)", f->dataset, (long long)count, f->shape, (unsigned long long)H5Dget_storage_size(d),
                  (unsigned long long)bytes);
    }
    H5Pclose(dcpl);
    return rc;
}

static int hdf5_decode(dop_file *f, int t, int size, const char *b, size_t len, char *why, size_t n)
{
    hid_t fapl = -1, file = -1, d = -1, ft = -1, space = -1, mt = -1, dapl = -1;
    int rc = -1;
    char have[32];
    elink_seen seen = {""};
    if (!hdf5_signed(b, len)) return fail(why, n, "not an HDF5 file (no HDF5 signature)");
    H5E_BEGIN_TRY {
        /* Opened from the bytes the store holds: the file on disk is never read twice (nor swapped between). Links
         * are followed inside the file only, a few deep: an external link would read another file. */
        if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0 ||
            H5Pset_file_image(fapl, (void *)b, len) < 0 ||
            (file = H5Fopen("tilelab-data-input", H5F_ACC_RDONLY, fapl)) < 0) {
            fail(why, n, "HDF5 cannot open it");
        } else if ((dapl = H5Pcreate(H5P_DATASET_ACCESS)) < 0 || H5Pset_elink_cb(dapl, refuse_elink, &seen) < 0 ||
                   H5Pset_nlinks(dapl, 16) < 0) {
            fail(why, n, "HDF5 cannot make a dataset access list");
        } else if ((d = H5Dopen2(file, f->dataset, dapl)) < 0) {
            if (seen.target[0]) fail(why, n, "dataset '%s' is reached through an external link%s: a data file holds "
                                     "its elements itself", f->dataset, seen.target);
            else fail(why, n, "it has no dataset '%s'", f->dataset);
        } else if ((ft = H5Dget_type(d)) < 0 || (space = H5Dget_space(d)) < 0) {
            fail(why, n, "HDF5 cannot read dataset '%s'", f->dataset);
        } else {
            H5T_class_t cl = H5Tget_class(ft);
            size_t fsize = H5Tget_size(ft);
            int want_float = tl_gen_is_float(t) && t != TL_GEN_BF16;
            int sign_ok = cl != H5T_INTEGER || (H5Tget_sign(ft) == H5T_SGN_NONE) == npy_names[t].is_unsigned;
            int rank = H5Sget_simple_extent_ndims(space);
            hsize_t hd[32];
            uint64_t dims[32];
            hdf5_type_name(ft, have, sizeof have);
            if (cl != (want_float ? H5T_FLOAT : H5T_INTEGER) || fsize != (size_t)size || !sign_ok) {
                fail(why, n, "dataset '%s' holds %s, not %s: write it as %s", f->dataset, have, npy_names[t].name,
                     npy_names[t].numpy);
            } else if (rank < 0 || rank > 32 || H5Sget_simple_extent_type(space) == H5S_NULL ||
                       H5Sget_simple_extent_dims(space, hd, NULL) < 0) {
                fail(why, n, "dataset '%s' has no usable shape", f->dataset);
            } else {
                for (int i = 0; i < rank; i++) dims[i] = hd[i];
                int64_t count = shape_count(dims, rank, f->shape, sizeof f->shape);
                if (rank == 0) snprintf(f->shape, sizeof f->shape, "()"), count = 1;
                if (count <= 0) {
                    fail(why, n, "dataset '%s' of shape %s holds no elements, or too many", f->dataset, f->shape);
                } else if (hdf5_storage_ok(f, d, count, size, why, n)) {
                    /* why says it */
                } else if ((mt = hdf5_mem_type(t, ft)) < 0) {
                    fail(why, n, "HDF5 has no memory type for %s", npy_names[t].name);
                } else {
                    f->data = tl_xmalloc((size_t)count * (size_t)size);
                    if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, f->data) < 0) {
                        fail(why, n, "HDF5 cannot read dataset '%s' (a filter it lacks?)", f->dataset);
                        free(f->data), f->data = NULL;
                    } else {
                        f->count = count, rc = 0;
                    }
                }
            }
        }
        if (mt >= 0) H5Tclose(mt);
        if (space >= 0) H5Sclose(space);
        if (ft >= 0) H5Tclose(ft);
        if (d >= 0) H5Dclose(d);
        if (dapl >= 0) H5Pclose(dapl);
        if (file >= 0) H5Fclose(file);
        if (fapl >= 0) H5Pclose(fapl);
    } H5E_END_TRY;
    return rc;
}

/* A data file travels in result files, so it is untrusted like them: HDF5 first reads it in a child, where a file
 * crafted to crash or hang the library costs only the child. 0 when the child read it (or could not be started:
 * then this process reads it), -1 with why. */
static int hdf5_probe(dop_file *f, int t, int size, const char *bytes, size_t len, char *why, size_t n)
{
#ifdef TL_LIBFUZZER
    (void)f, (void)t, (void)size, (void)bytes, (void)len, (void)why, (void)n;
    return 0;
#else
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2);
        alarm(30);
        char w[8];
        _exit(hdf5_decode(f, t, size, bytes, len, w, sizeof w) == 0 ? 0 : 1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status)) return 0; /* read, or refused: this process says why */
    return fail(why, n, "it crashes or hangs the HDF5 library (%s): not a usable HDF5 file",
                WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "stopped");
#endif
}

int dop_file_decode(dop_file *f, int t, int size, const char *bytes, size_t len, char *why, size_t n)
{
    int rc = f->dataset ? (hdf5_probe(f, t, size, bytes, len, why, n) ? -1 : hdf5_decode(f, t, size, bytes, len, why, n))
                        : npy_decode(f, t, size, bytes, len, why, n);
    if (rc == 0) tl_sha256_hex(f->data, (size_t)f->count * (size_t)size, f->sha256);
    return rc;
}

void dop_file_free(dop_file *f)
{
    free(f->path), free(f->dataset), free(f->data);
    memset(f, 0, sizeof *f);
}
