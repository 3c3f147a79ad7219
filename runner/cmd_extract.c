/* runner extract: a result file's experiment and its kernel sources written out as a folder. */
#include <stdio.h>
#include <stdlib.h>

#include "runner/cmd.h"
#include "runner/extract.h"

static const char help[] =
    "Writes the experiment file a result file carries and the kernel sources of its own variants\n"
    "into DIR (new or empty), with their folder layout: a folder that runs as it is\n"
    "(`runner run DIR/<name>.yaml`). The file is checked first, as every reading command does.\n";

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
        printf("extracted %s and %d kernel source%s of its own variants into %s; run it with: runner run %s\n", r.yaml,
               r.nsources, r.nsources == 1 ? "" : "s", dir, r.yaml);
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
