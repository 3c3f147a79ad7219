/* runner extract: a result file's experiment and its kernel sources written out as a folder. */
#include <stdio.h>
#include <stdlib.h>

#include "runner/cmd/cmd.h"
#include "runner/store/extract.h"

static const char help[] =
    "Writes the experiment file a result file carries, the kernel sources of its own variants and\n"
    "the data files of a declared op's inputs into DIR (new or empty), with their folder layout: a\n"
    "folder that runs as it is (`runner run DIR/<name>.yaml`). A data file over the 64 MiB a result\n"
    "file carries is named with its size and SHA-256, to be copied in by hand. The file is checked\n"
    "first, as every reading command does.\n";

static int extract_main(int argc, char **argv, const cmd_line *line)
{
    (void)line;
    if (argc != 2 || argv[0][0] == '-' || argv[1][0] == '-') {
        fprintf(stderr, "runner extract: usage: extract RESULT.h5 DIR (DIR new or empty)\n");
        return TL_EXIT_BAD_INPUT;
    }
    char *h5 = tl_user_path(argv[0]), *dir = tl_user_path(argv[1]);
    extract_report r;
    tl_err e;
    int rc = TL_EXIT_BAD_INPUT;
    if (extract_result(h5, dir, &r, &e)) {
        fprintf(stderr, "runner extract: %s\n", e.msg);
    } else {
        printf("extracted %s, %d kernel source%s of its own variants and %d data file%s into %s; run it with: runner "
               "run %s\n", r.yaml, r.nsources, r.nsources == 1 ? "" : "s", r.ndata, r.ndata == 1 ? "" : "s", dir, r.yaml);
        if (r.nabsent)
            printf("not carried in the file (too big), to be copied into %s before a run:\n%s\n", dir, r.absent);
        rc = TL_EXIT_OK;
        extract_report_free(&r);
    }
    free(h5), free(dir);
    return rc;
}

const cmd_def cmd_extract = {
    .name = "extract",
    .synopsis = "extract RESULT.h5 DIR",
    .summary = "write a result file's experiment and its kernel sources to DIR, a folder that runs as it is",
    .help = help,
    .main = extract_main,
};
