/* extract: a result file's experiment and the kernel sources of its declared variants, written back
 * out as a folder that runs as it is (`runner run DIR/NAME.yaml`, same case ids). The file is
 * untrusted input: every path it names is checked to stay inside DIR. */
#ifndef TILELAB_EXTRACT_H
#define TILELAB_EXTRACT_H

#include "runner/source.h"

typedef struct {
    char *yaml;   /* the experiment file written (DIR/<name>.yaml) */
    int nsources; /* kernel source files written beside it */
} extract_report;

/* dir must not exist, or be an empty folder. On failure nothing is left in dir. */
int extract_result(const char *h5, const char *dir, extract_report *r, tl_err *e);
void extract_report_free(extract_report *r);

/* Writes the used experiment-origin files of a store under dir (their paths relative to it):
 * what `submit` copies into its sweep folder. Returns the number written, -1 on failure. */
int extract_store_files(const src_store *s, const char *dir, tl_err *e);

#endif
