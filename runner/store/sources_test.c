/* /sources round trip, without a GPU: the example experiment with a variant of its own is written to a
 * result file by the real writer (its cases as skipped), then
 *  - /sources holds every file the compiles read, byte for byte, and each case names its files;
 *  - extract writes a folder that validates and plans to the same case ids, with the same bytes;
 *  - the experiment parsed from the file alone (as rerun does) plans to the same ids and sources;
 *  - a damaged source, a path that leaves the folder, a non-empty target are refused;
 *  - resuming with an edited kernel is refused (it would mix kernels in one file);
 *  - a dispatch table of some MiB (a tuning's) is carried, extracted and read back like a source, and
 *    a kernel source over 1 MiB in a result file is refused where a compile would read it. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/ops/registry_lookup.h"
#include "runner/store/extract.h"
#include "runner/store/h5in.h"
#include "runner/store/h5out.h"
#include "runner/store/h5src.h"
#include "runner/testing/test_result.h"
#include "runner/testing/testutil.h"

static char tmp[512];
static char example[600]; /* the example folder, copied out of the runfiles (whose files are links out of it) */

static int plan_of(tl_experiment *x, tl_plan *p)
{
    tl_err e;
    plan_limits lim = {0};
    int rc = plan_expand(x, &lim, p, &e);
    CHECK(rc == 0, "%s", e.msg);
    return rc;
}

static int same_file(const char *a, const char *b)
{
    tl_err e;
    size_t la, lb;
    char *ta = tl_read_file(a, &la, &e), *tb = tl_read_file(b, &lb, &e);
    int same = ta && tb && la == lb && !memcmp(ta, tb, la);
    free(ta), free(tb);
    return same;
}

static int same_ids(tl_experiment *a, tl_experiment *b, const char *what)
{
    tl_plan pa, pb;
    if (plan_of(a, &pa)) return 1;
    if (plan_of(b, &pb) == 0) {
        CHECK(pa.ncases == pb.ncases && pa.ncases > 0, "%s: %d vs %d cases", what, pa.ncases, pb.ncases);
        for (int i = 0; i < pa.ncases && i < pb.ncases; i++) {
            CHECK(!strcmp(pa.cases[i].id, pb.cases[i].id), "%s: case %d: %s vs %s", what, i, pa.cases[i].id, pb.cases[i].id);
            char *sa = source_set_text(&a->store, &pa.cases[i].cv->src), *sb = source_set_text(&b->store, &pb.cases[i].cv->src);
            CHECK(!strcmp(sa, sb), "%s: case %d reads other sources:\n%s\nvs\n%s", what, i, sa, sb);
            free(sa), free(sb);
        }
        plan_free(&pb);
    }
    plan_free(&pa);
    return 1;
}

/* Every file the experiment's compiles read is in /sources, and every NVRTC case names its files. */
/* The kernel sources of a result file, through the one reader. */
static int load_sources(const char *h5, int local, source_store *st, int *n, tl_err *e)
{
    memset(st, 0, sizeof *st);
    hid_t f = h5in_open(h5, e);
    if (f < 0) return -1;
    int rc = h5src_load_store(f, h5, local, st, n, e);
    H5Fclose(f);
    return rc;
}

static int check_file(const char *h5, tl_experiment *x)
{
    source_store st;
    int nfiles;
    tl_err e;
    CHECK(load_sources(h5, 0, &st, &nfiles, &e) == 0, "%s", e.msg);
    int used = 0;
    for (int i = 0; i < x->store.n; i++) {
        const source_file *f = &x->store.files[i];
        if (!f->used) continue;
        used++;
        const source_file *g = source_store_find(&st, f->origin, f->path);
        CHECK(g && g->len == f->len && !memcmp(g->text, f->text, f->len), "%s:%s not in /sources as read", f->origin,
              f->path);
    }
    CHECK(nfiles == used && used >= 6, "/sources holds %d files, the compiles read %d", nfiles, used);
    CHECK(source_store_find(&st, SOURCE_EXPERIMENT, "kernels/my_tiled.cu") && source_store_find(&st, SOURCE_EXPERIMENT, "kernels/tile_load.cuh"),
          "the experiment's own files");
    CHECK(source_store_find(&st, SOURCE_TILELAB, "sgemm/11_hopper.cu") != NULL, "the runner's own kernels too");
    source_store_free(&st);
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    tl_plan p;
    if (f >= 0 && plan_of(x, &p) == 0) {
        for (int i = 0; i < p.ncases; i++) {
            char name[64];
            snprintf(name, sizeof name, "/cases/%s", p.cases[i].id);
            hid_t g = H5Gopen2(f, name, H5P_DEFAULT);
            char *origin = h5util_read_str(g, "variant_origin"), *sources = h5util_read_str(g, "sources"), *entry = h5util_read_str(g, "entry");
            char *want = p.cases[i].run->kind == REG_NVRTC && p.cases[i].run->entry
                             ? source_set_text(&x->store, p.cases[i].run_src) : NULL;
            CHECK(origin && !strcmp(origin, p.cases[i].cv->origin), "case %s origin %s", p.cases[i].id, origin);
            CHECK(!want || (sources && !strcmp(sources, want)), "case %s sources:\n%s\nwant\n%s", p.cases[i].id, sources, want);
            CHECK(!want || (entry && !strcmp(entry, p.cases[i].variant->entry)), "case %s entry %s", p.cases[i].id, entry);
            free(origin), free(sources), free(entry), free(want);
            H5Gclose(g);
        }
        plan_free(&p);
    }
    if (f >= 0) H5Fclose(f);
    return 1;
}

/* extract writes the experiment and its own files; the folder validates to the same cases. */
static int check_extract(const char *h5, tl_experiment *x)
{
    char dir[600], path[700];
    extract_report r;
    tl_err e;
    snprintf(dir, sizeof dir, "%s/extracted", tmp);
    int rc = extract_result(h5, dir, &r, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    CHECK(r.nsources == 2, "%d sources extracted", r.nsources);
    snprintf(path, sizeof path, "%s/user_sgemm.yaml", dir);
    CHECK(!strcmp(r.yaml, path) && same_file(path, example), "extracted yaml %s", r.yaml);
    snprintf(path, sizeof path, "%s/kernels/my_tiled.cu", dir);
    CHECK(same_file(path, "experiments/user_sgemm/kernels/my_tiled.cu"), "my_tiled.cu differs");
    snprintf(path, sizeof path, "%s/user_sgemm.yaml", dir);
    snprintf(path, sizeof path, "%s/kernels/tile_load.cuh", dir);
    CHECK(same_file(path, "experiments/user_sgemm/kernels/tile_load.cuh"), "tile_load.cuh differs");
    tl_experiment y;
    if (config_load(r.yaml, &y, &e) == 0) {
        CHECK(!strcmp(x->sha256, y.sha256), "config sha256");
        same_ids(x, &y, "extracted");
        config_free(&y);
    } else {
        CHECK(0, "the extracted folder does not load: %s", e.msg);
    }
    extract_report_free(&r);
    CHECK(extract_result(h5, dir, &r, &e) != 0 && strstr(e.msg, "not empty"), "a second extract: %s", e.msg);
    return 1;
}

/* What rerun does: the experiment from the file alone, sources preloaded (no folder to read). */
static int check_embedded(const char *h5, tl_experiment *x)
{
    h5in_source src;
    source_store st;
    tl_experiment y;
    tl_err e;
    int nfiles;
    hid_t f = h5in_open(h5, &e);
    CHECK(f >= 0 && h5in_read_source(f, h5, &src, &e) == 0, "%s", e.msg);
    if (f >= 0) H5Fclose(f);
    CHECK(load_sources(h5, 0, &st, &nfiles, &e) == 0, "%s", e.msg);
    CHECK(st.dir == NULL && st.tilelab_preloaded, "a preloaded store reads nothing from disk");
    if (config_parse_with("r.h5:config_yaml", src.config_yaml, strlen(src.config_yaml), &st, &y, &e) == 0) {
        same_ids(x, &y, "from the file");
        config_free(&y);
    } else {
        CHECK(0, "%s", e.msg);
    }
    source_store_free(&st);
    h5in_source_free(&src);
    return 1;
}

/* Damage: a source whose bytes no longer match their hash, a path that leaves the folder. */
static int check_hostile(const char *h5)
{
    char bad[600];
    tl_err e;
    source_store st;
    int n;
    snprintf(bad, sizeof bad, "%s/damaged.h5", tmp);
    CHECK(h5util_copy_file(h5, bad, &e) == 0, "%s", e.msg);
    hid_t f = H5Fopen(bad, H5F_ACC_RDWR, H5P_DEFAULT);
    tl_err ignored;
    const char *text = "// not what ran\n";
    /* The same name, other bytes: replace the dataset of the first source. */
    hid_t g = H5Gopen2(f, "/sources", H5P_DEFAULT);
    char name[80] = "";
    H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, 0, name, sizeof name, H5P_DEFAULT);
    H5Ldelete(g, name, H5P_DEFAULT);
    hsize_t len = strlen(text);
    hid_t sp = H5Screate_simple(1, &len, NULL), d = H5Dcreate2(g, name, H5T_STD_U8LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text);
    h5util_attr_str(d, "paths", "experiment:kernels/my_tiled.cu");
    H5Dclose(d), H5Sclose(sp), H5Gclose(g), H5Fclose(f);
    CHECK(load_sources(bad, 0, &st, &n, &e) != 0 && strstr(e.msg, "damaged or was edited"), "damaged: %s", e.msg);
    source_store_free(&st);
    /* A path that would leave the extraction folder. */
    snprintf(bad, sizeof bad, "%s/escaping.h5", tmp);
    CHECK(h5util_copy_file(h5, bad, &e) == 0, "%s", e.msg);
    f = H5Fopen(bad, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(h5src_add(f, bad, SOURCE_EXPERIMENT, "../../escaped.cu", "x", 1, NULL, &ignored) == 0, "h5src_add");
    H5Fclose(f);
    CHECK(load_sources(bad, 0, &st, &n, &e) != 0 && strstr(e.msg, "not a usable source path"), "escape: %s", e.msg);
    source_store_free(&st);
    char dir[600];
    extract_report r;
    snprintf(dir, sizeof dir, "%s/escape-target/inner", tmp);
    CHECK(extract_result(bad, dir, &r, &e) != 0, "extract of an escaping path succeeded");
    snprintf(dir, sizeof dir, "%s/escaped.cu", tmp);
    struct stat sb;
    CHECK(stat(dir, &sb) != 0, "extract wrote outside its folder");
    return 1;
}

/* Resuming a file after the experiment's kernel changed would mix kernels in one file: refused. */
static int check_resume_refuses_edited_kernel(void)
{
    char cmd[2048], yaml[600], h5[600];
    tl_experiment x;
    tl_err e;
    snprintf(cmd, sizeof cmd, "cp -rL experiments/user_sgemm '%s/copy'", tmp);
    CHECK(system(cmd) == 0, "%s", cmd);
    snprintf(yaml, sizeof yaml, "%s/copy/user_sgemm.yaml", tmp);
    snprintf(h5, sizeof h5, "%s/resume.h5", tmp);
    CHECK(config_load(yaml, &x, &e) == 0, "%s", e.msg);
    CHECK(test_write_skipped(h5, &x, "sources_test", 0, &e) == 0, "%s", e.msg);
    config_free(&x);
    CHECK(config_load(yaml, &x, &e) == 0 && test_write_skipped(h5, &x, "sources_test", 1, &e) == 0,
          "an unchanged resume: %s", e.msg);
    config_free(&x);
    snprintf(cmd, sizeof cmd, "echo '// edited' >> '%s/copy/kernels/tile_load.cuh'", tmp);
    CHECK(system(cmd) == 0, "%s", cmd);
    CHECK(config_load(yaml, &x, &e) == 0, "%s", e.msg);
    CHECK(test_write_skipped(h5, &x, "sources_test", 1, &e) != 0 && strstr(e.msg, "was started with another version of") &&
              strstr(e.msg, "kernels/tile_load.cuh"), "edited resume: %s", e.msg);
    config_free(&x);
    return 1;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(text, 1, len, f) == len && fclose(f) == 0, "writing %s", path);
}

/* A table padded with comment lines past n bytes: the registry's own, which parses. */
static char *padded_table(size_t n, size_t *len)
{
    const reg_source *own = reg_find_source("sgemm/tuned_h100.table");
    CHECK(own != NULL, "the registry's table");
    if (!own) return NULL;
    tl_buf b = {0};
    tl_buf_printf(&b, "%.*s", (int)own->len, own->text);
    while (b.len <= n) tl_buf_printf(&b, "# padding to %zu bytes: a comment line the parser skips\n", n);
    *len = b.len;
    return b.s;
}

/* Writes yaml into dir, its result file, and reads the file back as rerun does: the same cases, and
 * the table at (origin, path) carried as read. */
static int table_round_trip(const char *dir, const char *yaml, const char *origin, const char *table, tl_experiment *x)
{
    char path[700], h5[700];
    tl_experiment y;
    tl_err e;
    snprintf(path, sizeof path, "%s/t.yaml", dir);
    write_text(path, yaml, strlen(yaml));
    if (config_load(path, x, &e)) {
        CHECK(0, "%s: %s", table, e.msg);
        return -1;
    }
    snprintf(h5, sizeof h5, "%s/%s.h5", tmp, origin);
    CHECK(test_write_skipped(h5, x, "sources_test", 0, &e) == 0, "%s", e.msg);
    source_store st;
    int n;
    CHECK(load_sources(h5, 0, &st, &n, &e) == 0, "reading %s back: %s", table, e.msg);
    const source_file *f = source_store_find(&st, origin, table), *g = source_store_find(&x->store, origin, table);
    CHECK(f && g && f->len == g->len && g->len > SOURCE_MAX_BYTES && !memcmp(f->text, g->text, f->len),
          "%s:%s not carried as read", origin, table);
    h5in_source src;
    hid_t hf = h5in_open(h5, &e);
    CHECK(hf >= 0 && h5in_read_source(hf, h5, &src, &e) == 0, "%s", e.msg);
    if (hf >= 0) H5Fclose(hf);
    if (config_parse_with("tables.h5:config_yaml", src.config_yaml, strlen(src.config_yaml), &st, &y, &e) == 0) {
        same_ids(x, &y, table);
        config_free(&y);
    } else {
        CHECK(0, "%s", e.msg);
    }
    h5in_source_free(&src);
    source_store_free(&st);
    if (!strcmp(origin, SOURCE_EXPERIMENT)) {
        extract_report r;
        char out[700], want[700];
        snprintf(out, sizeof out, "%s/tables-extracted", tmp);
        CHECK(extract_result(h5, out, &r, &e) == 0, "extract: %s", e.msg);
        snprintf(path, sizeof path, "%s/%s", out, table);
        snprintf(want, sizeof want, "%s/%s", dir, table);
        CHECK(same_file(path, want), "the extracted %s differs", table);
        extract_report_free(&r);
    }
    return 0;
}

static int check_tables(void)
{
    char dir[600], path[700];
    tl_experiment x;
    tl_err e;
    size_t len;
    snprintf(dir, sizeof dir, "%s/tables", tmp);
    CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
    char *big = padded_table(3u << 20, &len);
    if (!big) return 1;
    snprintf(path, sizeof path, "%s/mine.table", dir);
    write_text(path, big, len);
    free(big);
    if (table_round_trip(dir, "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 4096}\n"
                              "variants: [{name: tuned, table: mine.table}]\n", SOURCE_EXPERIMENT, "mine.table", &x) == 0)
        config_free(&x);
    /* The registry's own table, where it is over a kernel's limit. */
    const reg_source *own = reg_find_source("sgemm/tuned_h100.table");
    if (own && own->len > SOURCE_MAX_BYTES &&
        table_round_trip(dir, "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 4096}\nvariants: [tuned]\n", SOURCE_TILELAB,
                         "sgemm/tuned_h100.table", &x) == 0)
        config_free(&x);
    /* Over the table limit: refused, named. */
    big = padded_table(SOURCE_MAX_TABLE_BYTES, &len);
    snprintf(path, sizeof path, "%s/mine.table", dir);
    write_text(path, big, len);
    free(big);
    const char *yaml = "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 4096}\nvariants: [{name: tuned, table: mine.table}]\n";
    snprintf(path, sizeof path, "%s/t.yaml", dir);
    write_text(path, yaml, strlen(yaml));
    CHECK(config_load(path, &x, &e) != 0 && strstr(e.msg, "mine.table: 16.0 MiB, over the 16 MiB limit for a dispatch table"),
          "a table over 16 MiB: %s", e.msg);
    return 9;
}

/* A preloaded file (what a result file gives rerun) may be a table's size; as a kernel source it is
 * refused where the compile would read it, named. */
static int check_big_preloaded_kernel(void)
{
    source_store st;
    source_set set;
    tl_err e;
    size_t n = 2u << 20;
    char *text = tl_xmalloc(n);
    memset(text, ' ', n);
    memcpy(text, "// a kernel of 2 MiB\n", 21);
    source_store_init_preloaded(&st, "r.h5:/sources", 0);
    CHECK(source_store_add(&st, SOURCE_EXPERIMENT, "kernels/big.cu", text, n, NULL, &e) == 0, "preloading 2 MiB: %s", e.msg);
    CHECK(source_resolve(&st, SOURCE_EXPERIMENT, "kernels/big.cu", &set, &e) != 0 &&
              strstr(e.msg, "kernels/big.cu: 2.0 MiB, over the 1 MiB limit for a kernel source"),
          "a 2 MiB kernel from a result file: %s", e.msg);
    CHECK(source_resolve_table(&st, SOURCE_EXPERIMENT, "kernels/big.cu", &set, &e) == 0, "as a table: %s", e.msg);
    source_set_free(&set);
    source_store_free(&st);
    free(text);
    return 2;
}

int main(void)
{
    const char *t = getenv("TEST_TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/sources-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(tmp)) return 1;
    char h5[600], cmd[1400];
    snprintf(h5, sizeof h5, "%s/r.h5", tmp);
    snprintf(cmd, sizeof cmd, "cp -rL experiments/user_sgemm '%s/example'", tmp);
    if (system(cmd) != 0) return 1;
    snprintf(example, sizeof example, "%s/example/user_sgemm.yaml", tmp);
    tl_experiment x;
    tl_err e;
    int total = 1;
    CHECK(config_load(example, &x, &e) == 0, "%s", e.msg);
    CHECK(test_write_skipped(h5, &x, "sources_test", 0, &e) == 0, "%s", e.msg);
    total += check_file(h5, &x);
    total += check_extract(h5, &x);
    total += check_embedded(h5, &x);
    total += check_hostile(h5);
    total += check_resume_refuses_edited_kernel();
    total += check_big_preloaded_kernel();
    total += check_tables();
    config_free(&x);
    return TEST_REPORT(total);
}
