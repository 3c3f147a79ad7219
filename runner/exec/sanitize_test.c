/* --sanitize's reading of compute-sanitizer's log: logs as the tool printed them on an H200 (compute-sanitizer
 * 2025.3.1, CUDA 13.0) for memcheck and racecheck, a log the tool did not finish, one with more findings than a
 * report keeps, and none at all; the tool's names; where the tool is looked for. */
#include <stdlib.h>
#include <string.h>

#include "runner/exec/sanitize.h"
#include "runner/testing/testutil.h"

static const char memcheck_log[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at oob+0x90 in /tmp/x/kernels/oob.cu:4\n"
    "=========     by thread (0,0,0) in block (0,0,0)\n"
    "=========     Address 0x7f1423e01000 is out of bounds\n"
    "=========     and is 4,097 bytes after the nearest allocation at 0x7f1423a00000 of size 4,194,304 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: cuLaunchKernel [0x39fb94] in libcuda.so.1\n"
    "========= \n"
    "========= ERROR SUMMARY: 1 error\n";

static const char racecheck_log[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Error: Race reported between Write access at race+0x4a0 in race.cu:5\n"
    "=========     and Read access at race+0x4b0 in race.cu:6 [1048576 hazards]\n"
    "========= \n"
    "========= Error: Race reported between Write access at race+0x540 in race.cu:5\n"
    "=========     and Read access at race+0x550 in race.cu:6 [1048576 hazards]\n"
    "========= \n"
    "========= Warning: Maximum number of hazards reached. Environment variable "
    "NV_COMPUTE_SANITIZER_MAX_RACECHECK_HAZARDS can be used to increase this count.\n"
    "========= \n"
    "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n"
    "========= ERROR SUMMARY: 2 errors\n";

/* Killed before its summary; the child runner's own lines are interleaved (they are not the tool's). */
static const char unfinished_log[] =
    "========= COMPUTE-SANITIZER\n"
    "tilelab: compiling 1 kernels of the experiment's own variants\n"
    "========= Invalid __shared__ read of size 4 bytes\n"
    "=========     at k+0x10 in k.cu:9\n"
    "========= \n"
    "========= Invalid __shared__ read of size 4 bytes\n"
    "=========     at k+0x10 in k.cu:9\n";

/* What racecheck printed on an H200 for a kernel without hazards: its summary, and no ERROR SUMMARY. */
static const char racecheck_clean_log[] =
    "========= COMPUTE-SANITIZER\n"
    "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";

static const char clean_log[] = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n";

int main(void)
{
    int total = 0;
    sanitize_findings f;

    sanitize_parse_log(memcheck_log, &f);
    total += 4;
    CHECK(f.errors == 1, "memcheck: %d errors", f.errors);
    CHECK(f.first && !strcmp(f.first, "Invalid __global__ write of size 4 bytes at oob+0x90 in /tmp/x/kernels/oob.cu:4"),
          "memcheck's first finding: %s", f.first ? f.first : "(none)");
    CHECK(f.report && !strncmp(f.report, "Invalid __global__ write of size 4 bytes\n    at oob+0x90", 53) &&
              strstr(f.report, "4,097 bytes after the nearest allocation") && !strstr(f.report, "=========") &&
              !strstr(f.report, "COMPUTE-SANITIZER") && !strstr(f.report, "ERROR SUMMARY"),
          "memcheck's report: %s", f.report ? f.report : "(none)");
    CHECK(f.report && f.report[strlen(f.report) - 1] == '\n' && f.report[strlen(f.report) - 2] != '\n',
          "the report ends in one newline: '%s'", f.report);
    sanitize_findings_free(&f);

    sanitize_parse_log(racecheck_log, &f);
    total += 3;
    CHECK(f.errors == 2, "racecheck: %d errors", f.errors);
    CHECK(f.first && !strcmp(f.first, "Error: Race reported between Write access at race+0x4a0 in race.cu:5 and Read "
                                      "access at race+0x4b0 in race.cu:6 [1048576 hazards]"),
          "racecheck's first finding: %s", f.first ? f.first : "(none)");
    CHECK(f.report && strstr(f.report, "race+0x550") && strstr(f.report, "RACECHECK SUMMARY"), "racecheck's report: %s",
          f.report ? f.report : "(none)");
    sanitize_findings_free(&f);

    sanitize_parse_log(unfinished_log, &f);
    total += 2;
    CHECK(f.errors == 2, "a log without its summary counts its findings: %d", f.errors);
    CHECK(f.report && !strstr(f.report, "tilelab:"), "the child's own lines are not the tool's: %s", f.report);
    sanitize_findings_free(&f);

    sanitize_parse_log(racecheck_clean_log, &f);
    total++;
    CHECK(f.errors == 0 && !f.first, "racecheck without hazards: %d errors", f.errors);
    sanitize_findings_free(&f);

    sanitize_parse_log(clean_log, &f);
    total += 2;
    CHECK(f.errors == 0 && !f.first, "a clean log: %d errors, first %s", f.errors, f.first ? f.first : "(none)");
    CHECK(f.report && !strcmp(f.report, ""), "a clean log's report: '%s'", f.report);
    sanitize_findings_free(&f);

    sanitize_parse_log("", &f);
    total++;
    CHECK(f.errors == -1, "an empty log has no verdict: %d", f.errors);
    sanitize_findings_free(&f);
    sanitize_parse_log(NULL, &f);
    total++;
    CHECK(f.errors == -1, "no log has no verdict: %d", f.errors);
    sanitize_findings_free(&f);

    /* Many findings: the report keeps the first ones, cut at a line, and says it was cut; the count is the tool's. */
    size_t cap = 200 * 120 + 64, len = 0;
    char *many = malloc(cap);
    len += (size_t)snprintf(many + len, cap - len, "========= COMPUTE-SANITIZER\n");
    for (int i = 0; i < 200; i++)
        len += (size_t)snprintf(many + len, cap - len, "========= Invalid __global__ read of size 4 bytes\n"
                                                       "=========     at k+0x%x in k.cu:%d\n========= \n", i, i);
    snprintf(many + len, cap - len, "========= ERROR SUMMARY: 200 errors\n");
    sanitize_parse_log(many, &f);
    total += 3;
    CHECK(f.errors == 200, "many: %d errors", f.errors);
    CHECK(f.report && strlen(f.report) <= SANITIZE_REPORT_MAX, "many: the report is %zu bytes", f.report ? strlen(f.report) : 0);
    CHECK(f.report && strstr(f.report, "k.cu:0\n") && !strstr(f.report, "k.cu:199") &&
              !strcmp(f.report + strlen(f.report) - 4, "...\n"),
          "many: the report is the first findings and says it was cut");
    sanitize_findings_free(&f);
    free(many);

    total += 4;
    CHECK(sanitize_parse_tool("memcheck") == SANITIZE_MEMCHECK && sanitize_parse_tool("racecheck") == SANITIZE_RACECHECK &&
              sanitize_parse_tool("initcheck") == SANITIZE_INITCHECK && sanitize_parse_tool("synccheck") == SANITIZE_SYNCCHECK,
          "the four tools");
    CHECK(sanitize_parse_tool("leakcheck") == SANITIZE_NONE && sanitize_parse_tool("") == SANITIZE_NONE && sanitize_parse_tool(NULL) == SANITIZE_NONE,
          "no other names");
    tl_err e;
    setenv("TILELAB_SANITIZER", "/nonexistent/compute-sanitizer", 1);
    char *p = sanitize_find(&e);
    CHECK(!p && strstr(e.msg, "TILELAB_SANITIZER=/nonexistent/compute-sanitizer: not an executable file"),
          "an override that is no program: %s", p ? p : e.msg);
    free(p);
    unsetenv("TILELAB_SANITIZER");
    setenv("CUDA_HOME", "/nonexistent", 1);
    setenv("CUDA_PATH", "/nonexistent", 1);
    setenv("PATH", "/nonexistent-bin", 1);
    p = sanitize_find(&e);
    /* /usr/local/cuda may have one (the GPU machine): then it is found there, else the message names the places. */
    CHECK(p ? strstr(p, "/usr/local/cuda/") == p
            : strstr(e.msg, "/nonexistent/compute-sanitizer/compute-sanitizer") && strstr(e.msg, "nor on PATH"),
          "the toolkit's places: %s", p ? p : e.msg);
    free(p);
    return TEST_REPORT(total);
}
