/* extract: a result file's experiment and the kernel sources of its declared variants, written back
 * out as a folder that runs as it is (`runner run DIR/NAME.yaml`, same case ids). The file is
 * untrusted input: every path it names is checked to stay inside DIR. */
#ifndef TILELAB_EXTRACT_H
#define TILELAB_EXTRACT_H

#include "runner/config/source.h"

typedef struct {
    char *yaml;   /* the experiment file written (DIR/<name>.yaml) */
    int nsources; /* kernel source files written beside it */
    int ndata;    /* data files (a declared op's inputs) written beside it */
    int nabsent;  /* data files the result file names but does not carry (too big) */
    char *absent; /* those, "path (size, sha256 ...)" a line each, or NULL */
} extract_report;

/* dir must not exist, or be an empty folder. On failure nothing is left in dir. */
int extract_result(const char *h5, const char *dir, extract_report *r, tl_err *e);
void extract_report_free(extract_report *r);

/* Writes the used files of the experiment's folder a store holds (kernel sources and data files, not
 * those absent) under dir, their paths relative to it: what `submit` copies into its sweep folder.
 * Returns the number written, -1 on failure. */
int extract_store_files(const source_store *s, const char *dir, tl_err *e);

#endif
