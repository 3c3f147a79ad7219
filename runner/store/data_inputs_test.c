/* A declared op's buffers from data files of the experiment's folder (.npy, an HDF5 dataset), without a GPU:
 *  - every element type reads back as written, from .npy and from HDF5 (a big-endian dataset converted);
 *  - every bad file is an error at file:line:column before any GPU work: type, order, shape, size, count per
 *    problem, a path that leaves the folder, a link out of it, a missing file or dataset;
 *  - a case id holds the data, not the file's name or format;
 *  - the result file carries the data file: the experiment parsed from the file alone (as rerun does) plans to
 *    the same ids, and extract writes the same bytes back;
 *  - a file over the 64 MiB a result file carries is recorded by hash and size: extract names it, rerun
 *    without --data says so, with --data reads it (checked against the hash) and refuses another file. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/ops/dop.h"
#include "runner/plan/plan.h"
#include "runner/store/extract.h"
#include "runner/store/h5in.h"
#include "runner/store/h5src.h"
#include "runner/store/h5util.h"
#include "runner/testing/test_result.h"
#include "runner/testing/testutil.h"

static char tmp[512];

static void put(const char *dir, const char *rel, const void *data, size_t len)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fwrite(data, 1, len, f);
    fclose(f);
}

/* A .npy of format 1.0: the header dict padded so the data start at a multiple of 64. */
static void put_npy(const char *dir, const char *rel, const char *descr, int fortran, const char *shape,
                    const void *data, size_t len)
{
    char h[256];
    int n = snprintf(h, sizeof h, "{'descr': %s, 'fortran_order': %s, 'shape': %s, }", descr,
                     fortran ? "True" : "False", shape);
    while ((10 + n + 1) % 64) h[n++] = ' ';
    h[n++] = '\n';
    unsigned char *b = malloc(10 + (size_t)n + len);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)(n & 0xff), b[9] = (unsigned char)(n >> 8);
    memcpy(b + 10, h, (size_t)n);
    memcpy(b + 10 + n, data, len);
    put(dir, rel, b, 10 + (size_t)n + len);
    free(b);
}

static char *slurp(const char *path, size_t *len)
{
    tl_err e;
    return tl_read_file(path, len, &e);
}

static int same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *ta = slurp(a, &la), *tb = slurp(b, &lb);
    int same = ta && tb && la == lb && !memcmp(ta, tb, la);
    free(ta), free(tb);
    return same;
}

/* dir/e.yaml: a declared op of axis k whose buffer w (type, count k) is made by init, checked through y. */
static const char *yaml_of(const char *dir, const char *type, const char *init, const char *ks)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "name: t\nseed: 3\nop:\n  name: mine\n  axes: [k]\n  buffers:\n"
             "    w: {type: %s, count: k, init: %s}\n"
             "    y: {type: f32, count: k, out: true}\n"
             "  signature: [w, y, k]\n  reference: r\n"
             "sizes: {k: %s}\nvariants:\n  - {name: r, source: k.cu, block: [32], grid: [1]}\n", type, init, ks);
    put(dir, "e.yaml", text, strlen(text));
    static char path[1200];
    snprintf(path, sizeof path, "%s/e.yaml", dir);
    return path;
}

static int load(const char *path, tl_experiment *x, tl_plan *p, tl_err *e)
{
    plan_limits lim = {0};
    memset(p, 0, sizeof *p);
    if (config_load(path, x, e)) return -1;
    if (plan_expand(x, &lim, p, e)) {
        config_free(x);
        return -1;
    }
    return 0;
}

static char *folder(const char *name)
{
    char *d = tl_xasprintf("%s/%s", tmp, name);
    mkdir(d, 0700);
    put(d, "k.cu", "extern \"C\" __global__ void r(const float *w, float *y, long long k) {}\n", 71);
    return d;
}

static hid_t hdf5_create(const char *dir, const char *name)
{
    char *path = tl_xasprintf("%s/%s", dir, name);
    hid_t h = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(h >= 0, "cannot create %s", path);
    free(path);
    return h;
}

/* ---- every type reads back --------------------------------------------------------------------- */

static const struct {
    const char *type, *npy;
    int size;
} types[] = {
    {"f32", "'<f4'", 4}, {"f64", "'<f8'", 8}, {"f16", "'<f2'", 2}, {"bf16", "'<u2'", 2}, {"i8", "'|i1'", 1},
    {"u8", "'|u1'", 1},  {"i16", "'<i2'", 2}, {"u16", "'<u2'", 2}, {"i32", "'<i4'", 4}, {"u32", "'<u4'", 4},
    {"i64", "'<i8'", 8}, {"u64", "'<u8'", 8},
};
#define NTYPES (int)(sizeof types / sizeof *types)

/* Bytes of 5 elements of type i that are not zeros, nor one value repeated. */
static void pattern(int i, unsigned char *out)
{
    for (int k = 0; k < 5 * types[i].size; k++) out[k] = (unsigned char)(0x11 * (k % 7 + 1) + i);
    if (!strcmp(types[i].type, "f32") || !strcmp(types[i].type, "f64") || !strcmp(types[i].type, "f16"))
        for (int k = 0; k < 5; k++) { /* finite values */
            if (types[i].size == 4) ((float *)out)[k] = 1.5f * (float)(k + 1) - 4.0f;
            else if (types[i].size == 8) ((double *)out)[k] = -2.25 * (k + 1) + 0.125;
            else ((uint16_t *)out)[k] = (uint16_t)(0x3c00 + 0x155 * k); /* 1.0 and up */
        }
}

/* buffer w of x's op as its bytes. */
static int fill_matches(tl_experiment *x, tl_plan *p, const unsigned char *want, size_t len)
{
    unsigned char got[64];
    memset(got, 0xee, sizeof got);
    dop_fill(x->dop, 0, &p->cases[0].spec, 5, got);
    return !memcmp(got, want, len) && got[len] == 0xee;
}

static int test_types(void)
{
    char *d = folder("types");
    hid_t h = hdf5_create(d, "all.h5");
    for (int i = 0; i < NTYPES; i++) {
        unsigned char data[40];
        char rel[32], init[128];
        pattern(i, data);
        snprintf(rel, sizeof rel, "%s.npy", types[i].type);
        put_npy(d, rel, types[i].npy, 0, "(5,)", data, 5 * (size_t)types[i].size);
        snprintf(init, sizeof init, "{file: %s}", rel);
        tl_experiment x;
        tl_plan p;
        tl_err e;
        if (load(yaml_of(d, types[i].type, init, "5"), &x, &p, &e)) {
            CHECK(0, "%s from .npy: %s", types[i].type, e.msg);
            continue;
        }
        CHECK(fill_matches(&x, &p, data, 5 * (size_t)types[i].size), "%s from .npy: other bytes", types[i].type);
        plan_free(&p), config_free(&x);
        /* The same elements as an HDF5 dataset (f16 has no HDF5 type of its own before 1.14.4). */
        if (!strcmp(types[i].type, "f16")) continue;
        /* HDF5's type ids are run-time values (macros of function calls). */
        hid_t ft[] = {H5T_IEEE_F32BE, H5T_IEEE_F64LE, -1, H5T_STD_U16LE, H5T_STD_I8LE, H5T_STD_U8LE,
                      H5T_STD_I16BE, H5T_STD_U16LE, H5T_STD_I32LE, H5T_STD_U32LE, H5T_STD_I64LE, H5T_STD_U64BE};
        hid_t mt[] = {H5T_NATIVE_FLOAT, H5T_NATIVE_DOUBLE, -1, H5T_NATIVE_UINT16, H5T_NATIVE_INT8, H5T_NATIVE_UINT8,
                      H5T_NATIVE_INT16, H5T_NATIVE_UINT16, H5T_NATIVE_INT32, H5T_NATIVE_UINT32, H5T_NATIVE_INT64,
                      H5T_NATIVE_UINT64};
        hsize_t dims[2] = {1, 5}; /* a 2-D dataset: its elements in C order */
        hid_t sp = H5Screate_simple(2, dims, NULL);
        char name[64];
        snprintf(name, sizeof name, "d_%s", types[i].type);
        hid_t ds = H5Dcreate2(h, name, ft[i], sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(ds >= 0 && H5Dwrite(ds, mt[i], H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, "writing %s", name);
        H5Dclose(ds), H5Sclose(sp);
    }
    H5Fclose(h);
    for (int i = 0; i < NTYPES; i++) {
        if (!strcmp(types[i].type, "f16")) continue;
        unsigned char data[40];
        char init[128];
        pattern(i, data);
        snprintf(init, sizeof init, "{file: {path: all.h5, dataset: d_%s}}", types[i].type);
        tl_experiment x;
        tl_plan p;
        tl_err e;
        if (load(yaml_of(d, types[i].type, init, "5"), &x, &p, &e)) {
            CHECK(0, "%s from HDF5: %s", types[i].type, e.msg);
            continue;
        }
        CHECK(fill_matches(&x, &p, data, 5 * (size_t)types[i].size), "%s from HDF5: other values", types[i].type);
        CHECK(strstr(x.dop->kargs[0].doc, "file all.h5:d_") != NULL, "list shows %s", x.dop->kargs[0].doc);
        plan_free(&p), config_free(&x);
    }
    free(d);
    return 2 * NTYPES - 1;
}

/* ---- bad files ---------------------------------------------------------------------------------- */

static int test_bad(void)
{
    char *d = folder("bad"), *out = tl_xasprintf("%s/outside.npy", tmp), *link = tl_xasprintf("%s/out.npy", d);
    float f[5] = {1, 2, 3, 4, 5};
    double g[5] = {1, 2, 3, 4, 5};
    put_npy(d, "ok.npy", "'<f4'", 0, "(5,)", f, sizeof f);
    put_npy(d, "f8.npy", "'<f8'", 0, "(5,)", g, sizeof g);
    put_npy(d, "be.npy", "'>f4'", 0, "(5,)", f, sizeof f);
    put_npy(d, "fortran.npy", "'<f4'", 1, "(1, 5)", f, sizeof f);
    put_npy(d, "short.npy", "'<f4'", 0, "(5,)", f, sizeof f - 4);
    put_npy(d, "rec.npy", "[('a', '<f4')]", 0, "(5,)", f, sizeof f);
    put(d, "plain.npy", "not a numpy file, a text", 24);
    put(d, "fake.h5", "\x93NUMPY not HDF5", 15);
    put_npy(tmp, "outside.npy", "'<f4'", 0, "(5,)", f, sizeof f);
    CHECK(symlink(out, link) == 0, "symlink");
    char *sub = tl_xasprintf("%s/sub.npy", d);
    mkdir(sub, 0700);
    hid_t h = hdf5_create(d, "w.h5");
    hsize_t five = 5;
    hid_t sp = H5Screate_simple(1, &five, NULL);
    short s[5] = {1, 2, 3, 4, 5};
    hid_t ds = H5Dcreate2(h, "i16", H5T_STD_I16LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_SHORT, H5S_ALL, H5S_ALL, H5P_DEFAULT, s), H5Dclose(ds);
    ds = H5Dcreate2(h, "u16", H5T_STD_U16LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_SHORT, H5S_ALL, H5S_ALL, H5P_DEFAULT, s), H5Dclose(ds);
    H5Sclose(sp), H5Fclose(h);
    static const struct {
        const char *type, *init, *ks, *want;
    } rows[] = {
        {"f32", "{file: f8.npy}", "5", "e.yaml:7:43: op.buffers.w.init.file.path: f8.npy: it holds '<f8', not f32"},
        {"f32", "{file: be.npy}", "5", "be.npy: it is big-endian ('>f4')"},
        {"f32", "{file: fortran.npy}", "5", "fortran.npy: it is in Fortran order"},
        {"f32", "{file: short.npy}", "5", "short.npy: it holds 16 bytes of data where its shape (5,) of <f4 makes 20"},
        {"f32", "{file: rec.npy}", "5", "rec.npy: it holds a structured array"},
        {"f32", "{file: plain.npy}", "5", "plain.npy: not a .npy file"},
        {"f32", "{file: ok.npy}", "[5, 6]", "e.yaml:7:43: op.buffers.w.init.file.path: ok.npy holds 5 elements (shape "
                                            "(5,)), but buffer w's count 'k' is 6 at k=6"},
        {"f32", "{file: missing.npy}", "5", "missing.npy: no such file in the experiment's folder"},
        {"f32", "{file: ../outside.npy}", "5", "../outside.npy: it leaves the experiment's folder"},
        {"f32", "{file: /etc/passwd.npy}", "5", "an absolute path"},
        {"f32", "{file: out.npy}", "5", "out.npy: a link to"},
        {"f32", "{file: sub.npy}", "5", "sub.npy: not a regular file"},
        {"f32", "{file: {path: w.h5, dataset: nope}}", "5", "e.yaml:7:65: op.buffers.w.init.file.dataset: w.h5: it "
                                                            "has no dataset 'nope'"},
        {"f32", "{file: {path: w.h5, dataset: i16}}", "5", "w.h5: dataset 'i16' holds int16, not f32"},
        {"i16", "{file: {path: w.h5, dataset: u16}}", "5", "w.h5: dataset 'u16' holds uint16, not i16"},
        {"f32", "{file: {path: fake.h5, dataset: x}}", "5", "fake.h5: not an HDF5 file"},
        {"f32", "{file: w.h5}", "5", "'w.h5' is an HDF5 file: name its dataset"},
        {"f32", "{file: {path: ok.npy, dataset: x}}", "5", "`dataset:` belongs to HDF5 files"},
        {"f32", "{file: {dataset: x}}", "5", "file needs `path:`"},
        {"f32", "{file: w.txt}", "5", "a data file is a .npy, or an HDF5 file"},
        {"f32", "file", "5", "file needs a path"},
    };
    int n = (int)(sizeof rows / sizeof *rows);
    for (int i = 0; i < n; i++) {
        tl_experiment x;
        tl_plan p;
        tl_err e = {{0}};
        int rc = load(yaml_of(d, rows[i].type, rows[i].init, rows[i].ks), &x, &p, &e);
        CHECK(rc == -1, "row %d (%s): accepted", i, rows[i].init);
        if (rc == 0) {
            plan_free(&p), config_free(&x);
            continue;
        }
        CHECK(strstr(e.msg, rows[i].want) != NULL, "row %d:\n  got  %s\n  want %s", i, e.msg, rows[i].want);
    }
    free(d), free(out), free(link), free(sub);
    return n;
}

/* ---- case ids ------------------------------------------------------------------------------------ */

static void first_id(const char *yaml, char *id)
{
    tl_experiment x;
    tl_plan p;
    tl_err e;
    id[0] = '\0';
    if (load(yaml, &x, &p, &e)) {
        CHECK(0, "%s", e.msg);
        return;
    }
    snprintf(id, 17, "%s", p.cases[0].id);
    plan_free(&p), config_free(&x);
}

static int test_ids(void)
{
    char *d = folder("ids"), a[17], b[17], c[17], h5[17];
    float f[5] = {0.5f, -1, 2, 7, 3}, g[5] = {0.5f, -1, 2, 7, 3.0000002f};
    put_npy(d, "a.npy", "'<f4'", 0, "(5,)", f, sizeof f);
    put_npy(d, "renamed.npy", "'<f4'", 0, "(5,)", f, sizeof f);
    put_npy(d, "other.npy", "'<f4'", 0, "(5,)", g, sizeof g);
    hid_t h = hdf5_create(d, "a.h5");
    hsize_t five = 5;
    hid_t sp = H5Screate_simple(1, &five, NULL), ds = H5Dcreate2(h, "x", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT,
                                                                 H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, f), H5Dclose(ds), H5Sclose(sp), H5Fclose(h);
    first_id(yaml_of(d, "f32", "{file: a.npy}", "5"), a);
    first_id(yaml_of(d, "f32", "{file: renamed.npy}", "5"), b);
    first_id(yaml_of(d, "f32", "{file: {path: a.h5, dataset: x}}", "5"), h5);
    first_id(yaml_of(d, "f32", "{file: other.npy}", "5"), c);
    CHECK(a[0] && !strcmp(a, b), "another name for the same data: %s vs %s", a, b);
    CHECK(!strcmp(a, h5), "the same data from HDF5: %s vs %s", a, h5);
    CHECK(c[0] && strcmp(a, c), "other data kept the id %s", a);
    free(d);
    return 3;
}

/* ---- the result file carries them ---------------------------------------------------------------- */

/* The case ids of x's plan, joined. */
static char *ids_of(tl_experiment *x)
{
    tl_plan p;
    tl_err e;
    plan_limits lim = {0};
    tl_buf b = {0};
    tl_buf_printf(&b, "%s", "");
    if (plan_expand(x, &lim, &p, &e)) {
        CHECK(0, "%s", e.msg);
        return b.s;
    }
    for (int i = 0; i < p.ncases; i++) tl_buf_printf(&b, "%s ", p.cases[i].id);
    plan_free(&p);
    return b.s;
}

/* The experiment of a result file, parsed from the file alone as rerun does (data_dir: rerun --data). */
static int parse_embedded(const char *h5, const char *data_dir, tl_experiment *y, tl_err *e)
{
    h5in_source src = {0};
    source_store st;
    int n, rc = -1;
    hid_t f = h5in_open(h5, e);
    if (f < 0) return -1;
    if (h5in_read_source(f, h5, &src, e) == 0 && h5src_load_store(f, h5, 0, &st, &n, e) == 0) {
        rc = data_dir ? source_store_set_data_dir(&st, data_dir, e) : 0;
        if (rc == 0) rc = config_parse_with("r.h5:config_yaml", src.config_yaml, strlen(src.config_yaml), &st, y, e);
        source_store_free(&st);
    }
    H5Fclose(f);
    h5in_source_free(&src);
    return rc;
}

/* The example folder with a .npy: carried, given back by the file alone and by extract. */
static int test_carried(void)
{
    char cmd[1400], *h5 = tl_xasprintf("%s/conv1d.h5", tmp), *dir = tl_xasprintf("%s/conv1d-extracted", tmp);
    snprintf(cmd, sizeof cmd, "cp -rL experiments/ops/conv1d '%s/conv1d'", tmp);
    CHECK(system(cmd) == 0, "%s", cmd);
    char *yaml = tl_xasprintf("%s/conv1d/conv1d.yaml", tmp), *npy = tl_xasprintf("%s/conv1d/lowpass.npy", tmp);
    tl_experiment x, y;
    tl_err e;
    if (config_load(yaml, &x, &e) || test_write_skipped(h5, &x, "data_inputs_test", 0, &e)) {
        CHECK(0, "%s", e.msg);
        return 1;
    }
    char *want = ids_of(&x);
    CHECK(parse_embedded(h5, NULL, &y, &e) == 0, "from the file alone: %s", e.msg);
    if (!test_failures) {
        const source_file *f = source_store_find(&y.store, SOURCE_DATA, "lowpass.npy");
        size_t len;
        char *bytes = slurp(npy, &len);
        CHECK(f && f->used && f->text && f->len == len && !memcmp(f->text, bytes, len), "/sources holds lowpass.npy");
        char *got = ids_of(&y);
        CHECK(!strcmp(got, want), "ids from the file:\n%s\nwant\n%s", got, want);
        free(got), free(bytes);
        config_free(&y);
    }
    extract_report r;
    CHECK(extract_result(h5, dir, &r, &e) == 0, "%s", e.msg);
    if (!test_failures) {
        char *back = tl_xasprintf("%s/lowpass.npy", dir);
        CHECK(r.ndata == 1 && r.nsources == 2 && r.nabsent == 0, "extracted %d data, %d sources, %d absent", r.ndata,
              r.nsources, r.nabsent);
        CHECK(same_file(back, npy), "extracted lowpass.npy differs");
        CHECK(config_load(r.yaml, &y, &e) == 0, "%s", e.msg);
        char *got = ids_of(&y);
        CHECK(!strcmp(got, want), "ids of the extracted folder:\n%s\nwant\n%s", got, want);
        free(got), free(back);
        config_free(&y);
        extract_report_free(&r);
    }
    free(want), free(yaml), free(npy), free(h5), free(dir);
    config_free(&x);
    return 4;
}

/* A data file over the carry limit: its hash and size only. */
static int test_not_carried(void)
{
    enum { N = 17000000 }; /* 68 MB of f32: over 64 MiB */
    char *d = folder("big"), *other = folder("big-other"), *h5 = tl_xasprintf("%s/big.h5", tmp);
    char *dir = tl_xasprintf("%s/big-extracted", tmp), ks[32];
    float *v = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) v[i] = (float)(i % 1000) * 0.25f - 100.0f;
    put_npy(d, "big.npy", "'<f4'", 0, "(17000000,)", v, sizeof(float) * N);
    v[12345] += 1.0f;
    put_npy(other, "big.npy", "'<f4'", 0, "(17000000,)", v, sizeof(float) * N);
    free(v);
    snprintf(ks, sizeof ks, "%d", N);
    tl_experiment x, y;
    tl_err e;
    if (config_load(yaml_of(d, "f32", "{file: big.npy}", ks), &x, &e) ||
        test_write_skipped(h5, &x, "data_inputs_test", 0, &e)) {
        CHECK(0, "%s", e.msg);
        return 1;
    }
    const source_file *f = source_store_find(&x.store, SOURCE_DATA, "big.npy");
    CHECK(f && !source_carried(f), "a 68 MB file is not carried");
    /* In the file: an empty dataset named by its hash, with its size. */
    hid_t hf = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    char *name = tl_xasprintf("/sources/%s", f ? f->sha256 : "");
    hid_t ds = H5Dopen2(hf, name, H5P_DEFAULT), sp = H5Dget_space(ds);
    long long bytes = 0;
    CHECK(ds >= 0 && H5Sget_simple_extent_npoints(sp) == 0 && h5util_read_i64(ds, "bytes", &bytes) == 0 &&
              f && bytes == (long long)f->len, "/sources holds its size only (%lld bytes)", bytes);
    H5Sclose(sp), H5Dclose(ds), H5Fclose(hf);
    char *want = ids_of(&x);
    CHECK(parse_embedded(h5, NULL, &y, &e) != 0 && strstr(e.msg, "big.npy: not carried in the result file") &&
              strstr(e.msg, "--data DIR"), "rerun without --data: %s", e.msg);
    CHECK(parse_embedded(h5, other, &y, &e) != 0 && strstr(e.msg, "not the file the run read"), "another file: %s",
          e.msg);
    if (parse_embedded(h5, d, &y, &e) == 0) {
        char *got = ids_of(&y);
        CHECK(!strcmp(got, want), "ids with --data:\n%s\nwant\n%s", got, want);
        free(got);
        config_free(&y);
    } else {
        CHECK(0, "with --data: %s", e.msg);
    }
    extract_report r;
    CHECK(extract_result(h5, dir, &r, &e) == 0, "%s", e.msg);
    if (r.yaml) {
        char *back = tl_xasprintf("%s/big.npy", dir);
        struct stat st;
        CHECK(r.nabsent == 1 && r.absent && strstr(r.absent, "big.npy (64.8 MiB, sha256 ") && stat(back, &st) != 0,
              "extract names what it does not have: %d, %s", r.nabsent, r.absent);
        free(back);
        extract_report_free(&r);
    }
    free(want), free(name), free(d), free(other), free(h5), free(dir);
    config_free(&x);
    return 5;
}

int main(void)
{
    const char *t = getenv("TEST_TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/data-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(tmp)) return 1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int total = 0;
    total += test_types();
    total += test_bad();
    total += test_ids();
    total += test_carried();
    total += test_not_carried();
    return TEST_REPORT(total);
}
