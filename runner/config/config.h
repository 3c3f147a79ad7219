/* config: a YAML experiment file -> a validated experiment. Every error names file:line:column,
 * the field, and what was expected; unknown keys are errors. */
#ifndef TILELAB_CONFIG_H
#define TILELAB_CONFIG_H

#include "runner/config/experiment.h"

/* Loads and validates path; kernel sources of declared variants are read from path's folder.
 * Returns 0, or -1 with e naming file:line:col (and x zeroed: config_free of it is harmless). */
int config_load(const char *path, tl_experiment *x, tl_err *e);
/* Every counter name x asks for, the experiment's and its variants', against the session's chip: -1 with e
 * naming x's file:line:column. */
int config_check_counters(counters_session *s, const tl_experiment *x, tl_err *e);
/* Same, from text in memory (path names it in messages, and its folder holds the sources). */
int config_parse(const char *path, const char *text, size_t len, tl_experiment *x, tl_err *e);
/* Same, with the kernel sources from store (e.g. preloaded from a result file), which x takes over
 * (also on failure). */
int config_parse_with(const char *path, const char *text, size_t len, source_store *store, tl_experiment *x, tl_err *e);
void config_free(tl_experiment *x);
/* The tolerance a case of spec is checked with: the file's `tolerance:`, else exact for `data: int`,
 * else the op's default for the case's dtype. */
reg_tolerance config_tolerance(const tl_experiment *x, const reg_spec *s);

#endif
