/* runner: the tilelab command line. The commands are a table (runner/cmd/cmd.c, each in runner/cmd/cmd_<name>.c);
 * main finds the one a command line names and hands it the rest. Only main exits; everything else returns a status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/cmd/cmd.h"
#include "runner/jit/jit.h"
#include "runner/jit/jit_helper.h"
#include "runner/store/h5util.h"

static const char environment[] =
    "environment:\n"
    "  TILELAB_CACHE_DIR     compiled-kernel cache (default $XDG_CACHE_HOME/tilelab/cubin or\n"
    "                        ~/.cache/tilelab/cubin), used only when this user alone can write it\n"
    "                        and the folders above it (as ssh with its keys)\n"
    "  TILELAB_DEVICE        CUDA device ordinal (default 0)\n"
    "  CUDA_HOME             the CUDA toolkit whose headers <...> includes of kernels find\n"
    "                        (default /usr/local/cuda)\n"
    "  TILELAB_CUTLASS       a folder with the CUTLASS headers (include/, VERSION) for kernels that\n"
    "                        include <cute/...> (default: cutlass/ beside the runner, then its Bazel\n"
    "                        runfiles)\n"
    "  TILELAB_TEST_CRASH_AT=POINT:N\n"
    "                        tests only: SIGKILL the N-th time the writer passes POINT (created,\n"
    "                        case_written, shadow_closed, exchanged), for the fault tests\n"
    "  TILELAB_TEST_PROBE_SECONDS=N\n"
    "                        tests only: reading a result file gives up after N s (default 30 + its\n"
    "                        size in MiB), for the fuzz triage's files that make HDF5 loop\n"
    "  TILELAB_TEST_DEVICES=N\n"
    "                        tests only: --devices sees N devices without CUDA (host-target cases)\n"
    "  TILELAB_TEST_HOST_TIMING=MS:NOISE:SEED\n"
    "                        tests only: host-target times become MS * (1 + NOISE * z), z normal from\n"
    "                        SEED and the case; the variants still run and are verified\n";

static void usage(FILE *f)
{
    fprintf(f, "tilelab runner " TL_VERSION ": run CUDA kernel experiments from YAML, verify, time, write HDF5\n\n"
               "usage: runner COMMAND [ARGS]     (runner COMMAND --help: that command's usage and options)\n"
               "       runner EXPERIMENT.yaml [ARGS]   (the same as runner run EXPERIMENT.yaml)\n\ncommands:\n");
    for (int i = 0; i < cmd_ncommands; i++)
        fprintf(f, "  %-12s %s\n", cmd_commands[i]->name, cmd_commands[i]->summary);
    fprintf(f, "\n%s\nexit codes: 0 every case ok or skipped; 1 a case failed verification or errored; 2 bad input\n"
               "(including a kernel of the experiment that does not compile)\n", environment);
}

/* A word that names an experiment file: `runner x.yaml` runs it. */
static int is_experiment_path(const char *w)
{
    size_t n = strlen(w);
    return (n > 5 && !strcmp(w + n - 5, ".yaml")) || (n > 4 && !strcmp(w + n - 4, ".yml"));
}

static int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    return 0;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return TL_EXIT_BAD_INPUT;
    }
    const char *word = argv[1];
    if (!strcmp(word, "-h") || !strcmp(word, "--help")) {
        usage(stdout);
        return TL_EXIT_OK;
    }
    if (!strcmp(word, "--version")) {
        printf("tilelab runner %s\n", TL_VERSION);
        return TL_EXIT_OK;
    }
    if (!strcmp(word, "help")) {
        if (argc < 3) {
            usage(stdout);
            return TL_EXIT_OK;
        }
        const cmd_def *c = cmd_find(argv[2]);
        if (c) {
            cmd_print_help(stdout, c);
            return TL_EXIT_OK;
        }
        word = argv[2];
    }
    const cmd_def *c = cmd_find(word);
    cmd_line line = {argc, argv};
    if (c) {
        if (wants_help(argc - 2, argv + 2)) {
            cmd_print_help(stdout, c);
            return TL_EXIT_OK;
        }
        return c->main(argc - 2, argv + 2, &line);
    }
    if (is_experiment_path(word)) {
        const cmd_def *run = cmd_find("run");
        if (wants_help(argc - 1, argv + 1)) {
            cmd_print_help(stdout, run);
            return TL_EXIT_OK;
        }
        return run->main(argc - 1, argv + 1, &line);
    }
    fprintf(stderr, "runner: '%s' is not a command (", word);
    for (int i = 0; i < cmd_ncommands; i++) fprintf(stderr, "%s%s", i ? ", " : "", cmd_commands[i]->name);
    fprintf(stderr, ") nor an experiment file (.yaml); runner --help says what each does\n");
    return TL_EXIT_BAD_INPUT;
}

/* A compile helper's sandbox; where the kernel has none, the include scanner alone keeps the compiles inside the
 * experiment's folder, and the helper says so. */
static void sandbox(void)
{
    char why[256];
    if (jit_sandbox(why, sizeof why))
        fprintf(stderr, "tilelab: the compile helper runs without a sandbox (%s): only the include scanner keeps the "
                        "compiles inside the experiment's folder\n", why);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], JIT_HELPER_ARG)) return jit_helper_main(sandbox); /* a compile helper */
    jit_helpers_enable();
    int rc = dispatch(argc, argv);
    if (h5util_left_open() || h5util_close_failed) {
        /* See h5util.h: skip HDF5's atexit clean-up, which would crash. */
        fflush(NULL);
        _exit(rc);
    }
    return rc;
}
