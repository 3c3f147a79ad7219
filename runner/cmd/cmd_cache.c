/* runner cache: the compiled-kernel cache, shown, verified or cleared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/jit/cache.h"

static const char help[] =
    "The kernel cache holds code the runner runs as if it had compiled it, so it is used only when\n"
    "its folder belongs to this user (or root) and nobody else can write it or the folders above it\n"
    "(as ssh trusts its key folder). Each entry holds its key, its length and the SHA-256 of its\n"
    "bytes, checked on every load: a damaged entry is compiled again, never run. Without an option:\n"
    "where the cache is, whether it is used, how many entries.\n";

typedef struct {
    int verify, clear;
} cache_opts;

static const cmd_option table[] = {
    CMD_FLAG("--verify", cache_opts, verify, "checks every entry and names the damaged ones (exit 1 when there are)"),
    CMD_FLAG("--clear", cache_opts, clear, "removes every entry"),
    CMD_END,
};
static const cmd_option *const options[] = {table, NULL};

static int cache_main(int argc, char **argv, const cmd_line *line)
{
    (void)line;
    int entries = 0, damaged = 0, removed = 0, rc = TL_EXIT_OK;
    cache_opts o = {0};
    const char *words[1];
    int nw;
    if (cmd_parse("cache", options, argc, argv, &o, words, 0, &nw)) return TL_EXIT_BAD_INPUT;
    if (o.verify && o.clear) {
        fprintf(stderr, "runner cache: --verify or --clear, not both\n");
        return TL_EXIT_BAD_INPUT;
    }
    int verify = o.verify, clear = o.clear;
    char why[512], *name = cache_dir_name(), *dir = cache_dir(why, sizeof why);
    tl_err e;
    if (!name) {
        fprintf(stderr, "runner cache: no folder can be named: set TILELAB_CACHE_DIR (or HOME)\n");
        return TL_EXIT_BAD_INPUT;
    }
    printf("kernel cache: %s (%s)\n", name, dir ? "used: only this user can write it" : why);
    if (clear) {
        if (cache_clear(name, &removed, &e)) fprintf(stderr, "runner cache: %s\n", e.msg), rc = TL_EXIT_BAD_INPUT;
        else printf("removed %d entries\n", removed);
    } else if (cache_verify(name, verify ? stdout : NULL, &entries, &damaged, &e)) {
        fprintf(stderr, "runner cache: %s\n", e.msg);
        rc = TL_EXIT_BAD_INPUT;
    } else {
        printf("%d entries, %d damaged%s\n", entries, damaged,
               damaged ? " (never run: compiled again when needed; runner cache --clear removes them)" : "");
        rc = verify && damaged ? TL_EXIT_FAILED : TL_EXIT_OK;
    }
    free(name), free(dir);
    return rc;
}

const cmd_def cmd_cache = {
    .name = "cache",
    .synopsis = "cache [--verify | --clear]",
    .summary = "the compiled-kernel cache: where it is, whether it is used; verify or clear it",
    .help = help,
    .options = options,
    .main = cache_main,
};
