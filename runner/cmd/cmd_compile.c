/* runner compile: every kernel experiments name, compiled into the kernel cache without a GPU. */
#include "runner/cmd/cmd.h"

static const char help[] =
    "Compiles every kernel the experiments' cases would run with NVRTC, without a GPU, into the\n"
    "kernel cache (TILELAB_CACHE_DIR): e.g. on a login node before a sweep on GPU nodes that share\n"
    "the cache's folder. Each distinct kernel once; a failure names the kernel and quotes NVRTC.\n"
    "\n"
    "options:\n"
    "  --arch sm_NN          the architecture to compile for (default sm_90)\n"
    "  -j N                  compiles at once, each in a process of its own, 1 .. 256 (default 1)\n"
    "\n"
    "exit codes: 0 every kernel compiled; 2 a file is not valid or a kernel does not compile.\n";

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
    .main = compile_main,
};
