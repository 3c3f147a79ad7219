/* Result files under fuzzing: any bytes -> a file -> what `rerun` reads of it (h5in_open, which
 * checks the file against the schema and itself; the embedded experiment; its kernel sources; the
 * experiment parsed with them and planned). Whatever the bytes, the reader returns an error that says
 * what is wrong, or a file whose experiment plans; our code never crashes, leaks or reads out of
 * bounds (AddressSanitizer + UBSan; the HDF5 library itself is not instrumented).
 *
 * Built with clang and libFuzzer (bazel build --config=fuzz //fuzz:result_fuzz; tools/fuzz.sh 600 1
 * result runs it on a few valid files, fuzz/corpus_results). Built plainly it is a replay driver
 * (replay.c); //fuzz:result_fuzz_regression replays that corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/config.h"
#include "runner/h5in.h"
#include "runner/h5src.h"
#include "runner/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char fuzz_target_name[] = "result_fuzz";

/* What rerun does with a file: read it, parse its experiment with its sources, plan it. */
static void read_like_rerun(const char *path)
{
    h5in_source src;
    src_store store;
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
    src_store_free(&store);
    h5in_source_free(&src);
}

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
