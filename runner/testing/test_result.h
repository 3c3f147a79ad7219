/* test_result: a result file written by the real writer without a GPU, every case of the plan recorded as
 * skipped: what the tests of /sources, rerun and extract read back (runner/store/sources_test.c,
 * runner/store/data_inputs_test.c). */
#ifndef TILELAB_TEST_RESULT_H
#define TILELAB_TEST_RESULT_H

#include "runner/config/config.h"

/* path of x, its plan's cases as skipped (resume: open path with --resume's checks, and write none). 0, or -1
 * with e. who is the session's command line. */
int test_write_skipped(const char *path, tl_experiment *x, const char *who, int resume, tl_err *e);

#endif
