/* h5write: what a new result file and each case look like inside it (results/README.md): the root attributes,
 * /env and a session; a case's group, its samples and counters, its /summary row. Written into the open shadow
 * copy that runner/store/h5out.c commits; where names that copy in errors. */
#ifndef TILELAB_H5WRITE_H
#define TILELAB_H5WRITE_H

#include "runner/config/config.h"
#include "runner/exec/env.h"
#include "runner/exec/result.h"
#include "runner/store/h5util.h"

/* What one run of the runner says about itself: one /sessions/<k> group per run into the file. */
typedef struct {
    const char *argv_text; /* the command line */
    const char *shard;     /* "i/N", or "" */
    const char *rerun_of;  /* the file `rerun` read, or NULL */
} h5out_session;

/* What a new file's header and a session's group take of the run that writes them. */
typedef struct {
    const char *where;        /* the copy written, named in errors */
    const tl_experiment *x;
    const env_info *env;
    h5out_session s;
    int session;              /* this run's /sessions index */
    const char *created_utc;
} h5write_run;

/* A new file: root attributes, /env, /cases, /summary and the run's session. */
int h5write_header(const h5write_run *o, hid_t f, tl_err *e);
/* /sessions/<k>: who ran which cases, where (a resumed or merged file has several). */
int h5write_session(const h5write_run *o, hid_t f, tl_err *e);
/* Case r as /cases/<id> (an earlier attempt of the same id set aside) and its /summary row. */
int h5write_case(hid_t f, const char *where, const tl_result *r, int session, const source_store *st, tl_err *e);

#endif
