/* merge: shard files (or any result files of one experiment) -> one result file whose cases are
 * their union, in the experiment's plan order. Each input's sessions are kept (renumbered), with
 * the file they came from, so a sweep that spanned several machines says which case ran where. */
#ifndef TILELAB_MERGE_H
#define TILELAB_MERGE_H

#include <stdio.h>

#include "runner/plan/plan.h"
#include "runner/util/util.h"

typedef struct {
    int force;             /* merge files of different experiments (config_sha256), first case wins */
    int first_wins;        /* a case in several inputs: the first input's copy (same experiment only) */
    const char *argv_text; /* the merge command line, recorded */
    int trusted;           /* the inputs are files this process's own workers wrote and closed (they exited)
                              moments ago: opened without h5in.h's checks, which guard against files that
                              are damaged or crafted and read every case twice, and the output begins as a
                              copy of the first (needs first_wins) */
    const tl_plan *plan;   /* the plan of the experiment the inputs embed, where the caller has it (a
                              --devices run): the cases' order without parsing and expanding it again; NULL:
                              planned from the first input */
} merge_opts;

typedef struct {
    int ncases;   /* cases written */
    int nplan;    /* cases of the experiment's plan (0 when its config could not be planned) */
    int missing;  /* cases of the plan in no input */
    int failed;   /* cases whose status is verify_failed or error */
} merge_report;

/* Writes out (never overwriting; it appears complete or not at all). Messages go to log. */
int merge_files(const char *out, char **inputs, int n, const merge_opts *o, merge_report *r, FILE *log, tl_err *e);

#endif
