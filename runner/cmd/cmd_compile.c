/* runner compile: every kernel experiments name, compiled into the kernel cache without a GPU. */
#include "runner/cmd/cmd.h"

static const char help[] =
    "Compiles every kernel the experiments' cases would run with NVRTC, without a GPU, into the\n"
    "kernel cache (TILELAB_CACHE_DIR): e.g. on a login node before a sweep on GPU nodes that share\n"
    "the cache's folder. Each distinct kernel once; a failure names the kernel and quotes NVRTC.\n";

static const cmd_option *const options[] = {cmd_check_table, NULL};

static int compile_main(int argc, char **argv, const cmd_line *line)
{
    (void)line;
    return cmd_check_main("compile", argc, argv);
}

const cmd_def cmd_compile = {
    .name = "compile",
    .synopsis = "compile EXPERIMENT.yaml... [--arch sm_90] [-j N]",
    .summary = "compile every kernel the experiments name into the kernel cache, without a GPU",
    .help = help,
    .options = options,
    .notes = "exit codes: 0 every kernel compiled; 2 a file is not valid or a kernel does not compile.\n",
    .main = compile_main,
};
