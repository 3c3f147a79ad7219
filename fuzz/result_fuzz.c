/* Result files under fuzzing: any bytes -> a file -> what `rerun` reads of it (h5in_open, which
 * checks the file against the schema and itself; the embedded experiment; its kernel sources; the
 * experiment parsed with them and planned). Whatever the bytes, the reader returns an error that says
 * what is wrong, or a file whose experiment plans; our code never crashes, leaks or reads out of
 * bounds (AddressSanitizer + UBSan; the HDF5 library itself is not instrumented). Half its mutations replace
 * an attribute's shape or type through HDF5 (LLVMFuzzerCustomMutator, below), the rest are libFuzzer's own.
 *
 * Built with clang and libFuzzer (bazel build --config=fuzz //fuzz:result_fuzz; tools/fuzz.sh 600 1
 * result runs it on a few valid files, fuzz/corpus_results). Built plainly it is a replay driver
 * (replay.c); //fuzz:result_fuzz_regression replays that corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/plan/plan.h"
#include "runner/store/h5in.h"
#include "runner/store/h5src.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char fuzz_target_name[] = "result_fuzz";

/* What rerun does with a file: read it, parse its experiment with its sources, plan it. */
static void read_like_rerun(const char *path)
{
    h5in_source src;
    source_store store;
    tl_experiment x;
    tl_plan p;
    tl_err e = {{0}};
    int nfiles;
    hid_t f = h5in_open(path, &e);
    if (f < 0 || h5in_read_source(f, path, &src, &e)) {
        if (!e.msg[0]) abort(); /* an error must say what is wrong */
        if (f >= 0) H5Fclose(f);
        return;
    }
    if (h5src_load_store(f, path, 0, &store, &nfiles, &e) == 0) {
        if (config_parse_with("fuzz.h5:config_yaml", src.config_yaml, strlen(src.config_yaml), &store, &x, &e) == 0) {
            plan_limits lim = {1ull << 30, 1ull << 30, NULL};
            if (plan_expand(&x, &lim, &p, &e) == 0) plan_free(&p);
            config_free(&x);
        }
    }
    H5Fclose(f);
    source_store_free(&store);
    h5in_source_free(&src);
}

/* ---- attribute shapes: a mutator that knows the file is HDF5 -------------------------------------
 * Byte flips seldom turn a scalar attribute into an array or a string into one of another length, yet those
 * are what crashed the readers (config_path as 1,500 strings). Half the mutations open the input with HDF5
 * and replace one attribute of the root, /env, /sessions/0, a case or a /sources entry by another shape or
 * type: arrays of 2 - 2000 strings, numbers or floats where one value stands, strings of every length up to
 * 64 KiB, fixed-length strings, a 2-D array, an empty dataspace. Only in the libFuzzer build. */
#ifdef TL_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

typedef struct {
    char obj[96], name[64];
    int n;
    unsigned pick;
} attr_pick;

static herr_t pick_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc, (void)info;
    attr_pick *p = data;
    if (p->n++ == (int)p->pick) snprintf(p->name, sizeof p->name, "%s", name);
    return 0;
}

/* A replacement for attribute name of obj, of the kind rnd picks. 0, or -1. */
static int put_odd_attr(hid_t obj, const char *name, unsigned rnd)
{
    static const size_t lens[] = {0, 1, 2, 15, 16, 255, 256, 1023, 4096, 65535, 65536};
    hsize_t n = 2 + rnd / 16 % 1999, dims2[2] = {3, 2};
    size_t len = lens[rnd / 8 % (sizeof lens / sizeof *lens)];
    hid_t space = -1, type = -1, a = -1;
    void *buf = NULL;
    int rc = -1;
    if (H5Aexists(obj, name) > 0 && H5Adelete(obj, name) < 0) return -1;
    switch (rnd % 8) {
    case 0: { /* n variable-length strings */
        char **v = calloc(n, sizeof *v);
        for (hsize_t i = 0; i < n; i++) v[i] = "x";
        buf = v, space = H5Screate_simple(1, &n, NULL), type = H5Tcopy(H5T_C_S1), H5Tset_size(type, H5T_VARIABLE);
        break;
    }
    case 1: { /* one variable-length string of len bytes */
        char **v = calloc(1, sizeof *v);
        v[0] = calloc(len + 1, 1);
        memset(v[0], 'a' + (int)(rnd % 26), len);
        buf = v, space = H5Screate(H5S_SCALAR), type = H5Tcopy(H5T_C_S1), H5Tset_size(type, H5T_VARIABLE);
        break;
    }
    case 2: /* a fixed-length string of len + 1 bytes */
        buf = calloc(len + 1, 1), memset(buf, 'b', len);
        space = H5Screate(H5S_SCALAR), type = H5Tcopy(H5T_C_S1), H5Tset_size(type, len + 1);
        break;
    case 3: /* n integers */
        buf = calloc(n, 8), space = H5Screate_simple(1, &n, NULL), type = H5Tcopy(H5T_NATIVE_LLONG);
        break;
    case 4: /* n doubles */
        buf = calloc(n, 8), space = H5Screate_simple(1, &n, NULL), type = H5Tcopy(H5T_NATIVE_DOUBLE);
        break;
    case 5: /* a 3 x 2 array of integers */
        buf = calloc(6, 8), space = H5Screate_simple(2, dims2, NULL), type = H5Tcopy(H5T_NATIVE_LLONG);
        break;
    case 6: /* an integer where a string stands, or the reverse */
        buf = calloc(1, 8), space = H5Screate(H5S_SCALAR), type = H5Tcopy(H5T_NATIVE_LLONG);
        break;
    default: /* no value at all */
        space = H5Screate(H5S_NULL), type = H5Tcopy(H5T_NATIVE_DOUBLE);
        break;
    }
    if (space >= 0 && type >= 0 && (a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
        rc = !buf || H5Awrite(a, type, buf) >= 0 ? 0 : -1;
    if (rnd % 8 == 1 && buf) free(((char **)buf)[0]);
    free(buf);
    if (a >= 0) H5Aclose(a);
    if (type >= 0) H5Tclose(type);
    if (space >= 0) H5Sclose(space);
    return rc;
}

/* The input, a result file, with one attribute replaced: its new size, or 0 when that could not be done. */
static size_t mutate_attribute(uint8_t *data, size_t size, size_t max, unsigned seed)
{
    char path[4096];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/tilelab-result-mutate-%d.h5", dir && *dir ? dir : "/tmp", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t out = fwrite(data, 1, size, f) == size ? 1 : 0;
    fclose(f);
    hid_t h = -1, o = -1;
    H5E_BEGIN_TRY {
        if (out && (h = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) >= 0) {
            static const char *const objs[] = {"/", "/env", "/sessions/0"};
            attr_pick p = {.pick = seed / 8 % 64};
            int which = (int)(seed % 5);
            if (which < 3) {
                snprintf(p.obj, sizeof p.obj, "%s", objs[which]);
            } else { /* the first case, or the first /sources entry */
                const char *grp = which == 3 ? "/cases" : "/sources";
                char first[64] = "";
                hid_t g = H5Gopen2(h, grp, H5P_DEFAULT);
                if (g >= 0 && H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, 0, first, sizeof first,
                                                 H5P_DEFAULT) > 0)
                    snprintf(p.obj, sizeof p.obj, "%s/%s", grp, first);
                if (g >= 0) H5Gclose(g);
            }
            hsize_t idx = 0;
            if (p.obj[0] && (o = H5Oopen(h, p.obj, H5P_DEFAULT)) >= 0) {
                H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, &idx, pick_attr, &p);
                if (!p.name[0] && p.n) { /* fewer attributes than the pick: wrap around */
                    p.pick %= (unsigned)p.n;
                    p.n = 0, idx = 0;
                    H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, &idx, pick_attr, &p);
                }
                out = p.name[0] && put_odd_attr(o, p.name, seed / 512) == 0;
                H5Oclose(o);
            } else {
                out = 0;
            }
            if (H5Fclose(h) < 0) out = 0;
        } else {
            out = 0;
        }
    } H5E_END_TRY;
    if (out) {
        f = fopen(path, "rb");
        out = 0;
        if (f) {
            size_t n = fread(data, 1, max, f);
            out = n < max && fgetc(f) == EOF ? n : 0; /* a file past max is no input */
            fclose(f);
        }
    }
    unlink(path);
    return out;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
    size_t n = seed % 2 ? mutate_attribute(data, size, max, seed / 2) : 0;
    return n ? n : LLVMFuzzerMutate(data, size, max);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* In the test's or the fuzzing's folder (tools/fuzz.sh sets TMPDIR to its work folder): an input
     * that crashes HDF5 leaves its file behind, and /tmp is no place to collect those. */
    static char path[4096];
    if (!path[0]) {
        const char *dir = getenv("TEST_TMPDIR");
        if (!dir || !dir[0]) dir = getenv("TMPDIR");
        if (!dir || !dir[0]) dir = "/tmp";
        if (snprintf(path, sizeof path, "%s/tilelab-result-fuzz-%d.h5", dir, (int)getpid()) >= (int)sizeof path) abort();
    }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    read_like_rerun(path);
    unlink(path);
    return 0;
}
