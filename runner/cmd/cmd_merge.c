/* runner merge: the union of result files of one experiment (the shards of a sweep) in one file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/store/merge.h"

static const char help[] =
    "Writes a new file OUT.h5 whose cases are the union of its inputs', in the experiment's plan\n"
    "order, keeping every input's sessions (a sweep may span machines). Refuses inputs of different\n"
    "experiments (unless --force) and inputs that share a case. Every input is checked first, as\n"
    "every reading command does.\n";

static const cmd_option table[] = {
    CMD_FLAG("--force", merge_opts, force, "merge files of different experiments (the file records it)"),
    CMD_END,
};
static const cmd_option *const options[] = {table, NULL};

static const char notes[] =
    "exit codes: 0 every case of the plan is there and none failed; 1 (the file still written) cases\n"
    "of the plan are in none of the inputs, or some failed; 2 bad input.\n";

static int merge_main(int argc, char **argv, const cmd_line *line)
{
    merge_opts mo = {0};
    char **inputs = tl_xcalloc((size_t)argc + 1, sizeof *inputs);
    char *out = NULL;
    const char **words = tl_xcalloc((size_t)argc + 1, sizeof *words);
    int n = 0, nw = 0, rc = TL_EXIT_BAD_INPUT;
    if (cmd_parse("merge", options, argc, argv, &mo, words, argc, &nw)) goto done;
    if (nw > 0) out = tl_user_path(words[0]);
    for (int i = 1; i < nw; i++) inputs[n++] = tl_user_path(words[i]);
    if (!out || n == 0) {
        fprintf(stderr, "runner merge: give the output file and one or more result files: merge OUT.h5 A.h5 B.h5 ...\n");
        goto done;
    }
    char *argv_text = tl_join_words(line->argc, line->argv);
    mo.argv_text = argv_text;
    merge_report r;
    tl_err e;
    if (merge_files(out, inputs, n, &mo, &r, stderr, &e)) {
        fprintf(stderr, "runner merge: %s\n", e.msg);
    } else {
        printf("merged %d file%s: %d cases", n, n == 1 ? "" : "s", r.ncases);
        if (r.nplan) printf(" of the experiment's %d", r.nplan);
        printf(", %d failed -> %s\n", r.failed, out);
        if (r.missing)
            fprintf(stderr, "runner merge: %d cases of the experiment are in none of the files (a shard that did not "
                            "finish? resume it with --resume, then merge again)\n", r.missing);
        rc = r.missing || r.failed ? TL_EXIT_FAILED : TL_EXIT_OK;
    }
    free(argv_text);
done:
    for (int i = 0; i < n; i++) free(inputs[i]);
    free(inputs), free(words);
    free(out);
    return rc;
}

const cmd_def cmd_merge = {
    .name = "merge",
    .synopsis = "merge OUT.h5 RESULT.h5... [--force]",
    .summary = "one file with the union of the cases of result files of one experiment (shards)",
    .help = help,
    .options = options,
    .notes = notes,
    .main = merge_main,
};
