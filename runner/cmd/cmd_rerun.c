/* runner rerun: the experiment a result file carries, run again on this machine into a new file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/ops/registry_lookup.h"
#include "runner/store/h5in.h"
#include "runner/store/h5src.h"

static const char help[] =
    "Runs the experiment embedded verbatim in a result file on this machine, into a new file with the\n"
    "same case ids (so `compare` pairs them), recording `rerun_of`. It compiles the kernel sources the\n"
    "file carries (/sources: the experiment's own and the runner's), so another tilelab build, or a\n"
    "node with only the bundle, runs the same kernels; where this runner's own kernel files differ\n"
    "from the file's, it says so in one line. A file a search made (`search:`) is measured again at the\n"
    "points its search evaluated, and its baselines: no new search.\n";

static const char notes[] = "exit codes: as run's; 2 also for a file that is not a consistent tilelab result file.\n";

static const cmd_option *const options[] = {cmd_run_table, NULL};

/* The runner's own kernel files that x compiles from the result file but this runner has otherwise
 * (changed or gone), comma-separated; their count. */
static int kernels_differing(const tl_experiment *x, char *list, size_t n)
{
    int count = 0;
    list[0] = '\0';
    for (int i = 0; i < x->store.n; i++) {
        const source_file *f = &x->store.files[i];
        if (!f->used || strcmp(f->origin, SOURCE_TILELAB)) continue;
        const reg_source *mine = reg_find_source(f->path);
        if (mine && mine->len == f->len && !memcmp(mine->text, f->text, f->len)) continue;
        snprintf(list + strlen(list), n - strlen(list), "%skernels/%s%s", count ? ", " : "", f->path, mine ? "" : " (gone)");
        count++;
    }
    return count;
}

/* Parses the experiment of a result file with the kernel sources it carries (or, local, this runner's
 * own kernels), saying in one line where they differ. */
static int load_store(hid_t f, const char *h5, int local, const char *data_dir, source_store *store, tl_err *e)
{
    int nfiles;
    return h5src_load_store(f, h5, local, store, &nfiles, e) || (data_dir && source_store_set_data_dir(store, data_dir, e))
           ? -1 : 0;
}

static int parse_embedded(hid_t f, const char *h5, const char *shown, const h5in_source *src, int local,
                          const char *data_dir, tl_experiment *x, tl_err *e)
{
    source_store store;
    char *label = tl_xasprintf("%s:config_yaml", shown), list[1024];
    int rc = -1;
    /* First with the file's own kernels, to compare them with this runner's. */
    if (load_store(f, h5, 0, data_dir, &store, e) ||
        config_parse_with(label, src->config_yaml, strlen(src->config_yaml), &store, x, e))
        goto out;
    int registry_kernels = 0; /* a host-target run compiles none, and so carries none */
    for (int v = 0; v < x->nvariants; v++)
        registry_kernels |= x->variants[v].v->kind == REG_NVRTC && !x->variants[v].v->decl;
    if (!x->store.tilelab_preloaded && registry_kernels) {
        fprintf(stderr, "runner rerun: %s carries no sources of the runner's own kernels (written before "
                        "tilelab/1.2): compiling this runner's\n", shown);
    } else {
        int differ = kernels_differing(x, list, sizeof list);
        if (differ)
            fprintf(stderr, "runner rerun: %d of this runner's kernel files differ from those %s ran (%s): compiling "
                            "%s\n", differ, shown, list,
                    local ? "this runner's (--local-sources)" : "the file's; --local-sources compiles this runner's");
    }
    if (local) {
        config_free(x);
        if (load_store(f, h5, 1, data_dir, &store, e) ||
            config_parse_with(label, src->config_yaml, strlen(src->config_yaml), &store, x, e))
            goto out;
    }
    rc = 0;
out:
    source_store_free(&store);
    free(label);
    return rc;
}

static int rerun_main(int argc, char **argv, const cmd_line *line)
{
    run_opts o;
    tl_experiment x = {0};
    h5in_source src;
    tl_err e;
    if (cmd_run_options("rerun", argc, argv, &o)) return TL_EXIT_BAD_INPUT;
    char *h5 = tl_user_path(o.yaml);
    int rc = TL_EXIT_BAD_INPUT;
    hid_t f = h5in_open(h5, &e);
    if (f < 0 || h5in_read_source(f, h5, &src, &e)) {
        fprintf(stderr, "runner rerun: %s\n", e.msg);
        if (f >= 0) H5Fclose(f);
        free(h5);
        return rc;
    }
    /* Errors in the embedded text point into it: "<file.h5>:config_yaml:line:col". */
    int bad = parse_embedded(f, h5, o.yaml, &src, o.local_sources, o.data_dir, &x, &e);
    H5Fclose(f);
    if (bad) {
        fprintf(stderr, "runner rerun: %s\n", e.msg);
    } else {
        char *of = tl_xasprintf("%s (run %s on %s from %s)", h5, src.created_utc ? src.created_utc : "?",
                                src.host ? src.host : "?", src.config_path ? src.config_path : "?");
        if (x.search) o.cases_of = h5; /* the points its search evaluated, measured again: no new search */
        rc = run_experiment(&o, &x, line->argc, line->argv, of);
        free(of);
    }
    config_free(&x);
    h5in_source_free(&src);
    free(h5);
    return rc;
}

const cmd_def cmd_rerun = {
    .name = "rerun",
    .synopsis = "rerun RESULT.h5 [-o FILE] [--local-sources] [--data DIR] [run's options]",
    .summary = "run the experiment a result file carries again, on this machine, into a new file",
    .help = help,
    .options = options,
    .notes = notes,
    .main = rerun_main,
};
