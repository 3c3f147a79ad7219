/* cublas_lazy: a program linked with the runner's libraries starts without libcublas mapped (the 0.2 s and
 * 200 MB that each start of the runner paid); the first cuBLAS call opens it and is cuBLAS's own answer;
 * the status strings are cuBLAS's. No GPU: cublasGetProperty needs none. */
#include <cublas_v2.h>
#include <stdlib.h>

#include "runner/testing/testutil.h"
#include "runner/util/util.h"

/* 1 when the process maps a file whose name holds lib. */
static int mapped(const char *lib)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) found = strstr(line, lib) != NULL;
    if (f) fclose(f);
    return found;
}

int main(void)
{
    int total = 0, major = -1, minor = -1;
    CHECK(!mapped("/libcublas.so.") && !mapped("/libcublasLt.so."),
          "libcublas is mapped before any cuBLAS call: a dependency links it again");
    total++;
    CHECK(cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS, "cublasGetProperty failed: %s",
          cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED));
    CHECK(cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS, "cublasGetProperty failed");
    CHECK(major == CUBLAS_VER_MAJOR && minor == CUBLAS_VER_MINOR, "cuBLAS %d.%d where the headers are %d.%d", major,
          minor, CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR);
    total++;
    CHECK(mapped("/libcublas.so."), "the first call did not open libcublas");
    total++;
    const char *s = cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE);
    CHECK(s && *s && !strstr(s, "could not be loaded") && !strstr(s, "has no"), "status string: %s", s ? s : "(null)");
    total++;
    return TEST_REPORT(total);
}
