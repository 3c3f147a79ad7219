/* sanitize: `runner run --sanitize TOOL`. After a case's normal run (its timings come from that run alone), its
 * verified run is repeated in a child runner under NVIDIA's compute-sanitizer: the case's kernels compiled with
 * line info, checked by the tool (memcheck with padding after each allocation, so that a write a little past a
 * buffer is out of bounds even where the next allocation would have taken it); the runner's own kernels and the
 * reference are not checked. A child is a process of its own because a finding may end the CUDA context it runs
 * in, and because the tool slows every launch it watches. */
#ifndef TILELAB_SANITIZE_H
#define TILELAB_SANITIZE_H

#include "runner/util/util.h"

typedef enum { SANITIZE_NONE, SANITIZE_MEMCHECK, SANITIZE_RACECHECK, SANITIZE_INITCHECK, SANITIZE_SYNCCHECK, SANITIZE_N } sanitize_tool;
extern const char *const sanitize_tool_names[SANITIZE_N]; /* "memcheck", ... ([SANITIZE_NONE] "") */

/* The tool named s, or SANITIZE_NONE when s names none. */
sanitize_tool sanitize_parse_tool(const char *s);

/* compute-sanitizer: $TILELAB_SANITIZER when set (tests), else the toolkit's ($CUDA_HOME, $CUDA_PATH,
 * /usr/local/cuda: compute-sanitizer/ or bin/), else one on PATH; NULL with e saying where it looked. */
char *sanitize_find(tl_err *e);

#define SANITIZE_REPORT_MAX 4096

typedef struct {
    int errors;   /* the tool's ERROR SUMMARY count (else the findings the log shows); -1: no verdict in the log */
    char *report; /* its findings as it printed them, less its "=========" prefix, at most SANITIZE_REPORT_MAX bytes */
    char *first;  /* the first finding in one line ("Invalid __global__ write of size 4 bytes at oob+0x70 in
                   * oob.cu:4"), or NULL */
} sanitize_findings;

/* Reads the tool's log (its --log-file). */
void sanitize_parse_log(const char *log, sanitize_findings *f);
void sanitize_findings_free(sanitize_findings *f);

typedef struct {
    const char *sanitizer;  /* sanitize_find's */
    sanitize_tool tool;
    const char *experiment; /* the experiment file, as the child runner is to open it */
    double limit_s;         /* the child's limit: past it, it is killed */
} sanitize_job;

/* Case id's verified run under j's tool, in a child runner (`run EXPERIMENT --sanitize-child`), the kernels
 * entries[0, nentries) checked (nentries 0: every kernel). 0 with f (f->errors 0: clean); -1 with e when the
 * tool could not check the case (it did not start, the child crashed or ran past the limit). */
int sanitize_run_case(const sanitize_job *j, const char *case_id, const char *const *entries, int nentries, sanitize_findings *f,
                 tl_err *e);

#endif
