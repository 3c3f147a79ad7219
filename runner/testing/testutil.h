/* Minimal test helpers: checks always on, a count of failures, a non-zero exit when any failed. */
#ifndef TILELAB_TESTUTIL_H
#define TILELAB_TESTUTIL_H

#include <stdio.h>
#include <string.h>

static int test_failures;

#define CHECK(cond, ...)                                                                                   \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                       \
            fprintf(stderr, __VA_ARGS__);                                                                  \
            fputc('\n', stderr);                                                                           \
            test_failures++;                                                                               \
        }                                                                                                  \
    } while (0)

/* The plain closing line CI reads: "N passed, N failed". */
#define TEST_REPORT(total)                                                                                 \
    (printf("%d passed, %d failed\n", (total) - test_failures, test_failures), test_failures ? 1 : 0)

#endif
