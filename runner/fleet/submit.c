#include "runner/fleet/submit.h"

#include "runner/store/extract.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* 'text' for a POSIX shell. */
static void sh_quote(tl_buf *b, const char *s)
{
    tl_buf_printf(b, "'");
    for (; *s; s++) {
        if (*s == '\'') tl_buf_printf(b, "'\\''");
        else tl_buf_printf(b, "%c", *s);
    }
    tl_buf_printf(b, "'");
}

static void common_directives(tl_buf *b, const submit_opts *o)
{
    if (o->partition) tl_buf_printf(b, "#SBATCH --partition=%s\n", o->partition);
    if (o->account) tl_buf_printf(b, "#SBATCH --account=%s\n", o->account);
    if (o->time) tl_buf_printf(b, "#SBATCH --time=%s\n", o->time);
}

void submit_render(const tl_experiment *x, const submit_opts *o, submit_scripts *s)
{
    tl_buf b = {0};
    s->experiment = tl_xstrdup(x->yaml);

    tl_buf_printf(&b, "#!/bin/bash\n"
                      "# tilelab sweep '%s': one task per shard (written by runner submit).\n"
                      "#SBATCH --job-name=tilelab-%s\n"
                      "#SBATCH --array=0-%d", x->name, x->name, o->shards - 1);
    if (o->max_parallel > 0) tl_buf_printf(&b, "%%%d", o->max_parallel);
    tl_buf_printf(&b, "\n#SBATCH --output=%s/logs/shard-%%a.out\n", o->dir);
    if (o->gres) tl_buf_printf(&b, "#SBATCH --gres=%s\n", o->gres);
    else if (o->gpus_per_task) tl_buf_printf(&b, "#SBATCH --gres=gpu:%d\n", o->gpus_per_task);
    common_directives(&b, o);
    tl_buf_printf(&b, "set -euo pipefail\n"
                      "shards=%d\n"
                      "i=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\n"
                      "# A resubmission of some tasks only (sbatch --array=3 ...) has a smaller count: the shares\n"
                      "# are always those of the %d shards.\n"
                      "if [ \"${SLURM_ARRAY_TASK_COUNT:-$shards}\" != \"$shards\" ]; then\n"
                      "  echo \"tilelab: array of ${SLURM_ARRAY_TASK_COUNT} tasks, running shard $i of $shards\"\n"
                      "fi\n"
                      "echo \"tilelab: shard $i/$shards on $(hostname) at $(date -u +%%FT%%TZ)\"\n"
                      "exec ", o->shards, o->shards);
    sh_quote(&b, o->runner);
    tl_buf_printf(&b, " run ");
    {
        char *exp = tl_xasprintf("%s/experiment/experiment.yaml", o->dir), *out = tl_xasprintf("%s/shard-", o->dir);
        sh_quote(&b, exp);
        tl_buf_printf(&b, " --shard \"$i/$shards\" --resume -o ");
        sh_quote(&b, out);
        tl_buf_printf(&b, "\"$i.h5\"%s\n", o->gpus_per_task ? " --devices all" : "");
        free(exp), free(out);
    }
    s->array = b.s;

    b = (tl_buf){0};
    tl_buf_printf(&b, "#!/bin/bash\n"
                      "# tilelab sweep '%s': merges the shards once every task succeeded (afterok).\n"
                      "#SBATCH --job-name=tilelab-%s-merge\n"
                      "#SBATCH --output=%s/logs/merge.out\n"
                      "#SBATCH --kill-on-invalid-dep=yes\n", x->name, x->name, o->dir);
    common_directives(&b, o);
    tl_buf_printf(&b, "set -euo pipefail\nexec ");
    sh_quote(&b, o->runner);
    tl_buf_printf(&b, " merge ");
    sh_quote(&b, o->output);
    for (int i = 0; i < o->shards; i++) {
        char *shard = tl_xasprintf("%s/shard-%d.h5", o->dir, i);
        tl_buf_printf(&b, " ");
        sh_quote(&b, shard);
        free(shard);
    }
    tl_buf_printf(&b, "\n");
    s->merge = b.s;

    b = (tl_buf){0};
    tl_buf_printf(&b, "#!/bin/sh\n"
                      "# Submits the sweep: the array, then the merge after it. Run it again after a failure:\n"
                      "# every shard resumes its file, and only the missing cases run.\n"
                      "set -eu\n"
                      "cd ");
    sh_quote(&b, o->dir);
    tl_buf_printf(&b, "\n"
                      "array=$(sbatch --parsable array.sbatch)\n"
                      "array=${array%%%%;*}\n"
                      "merge=$(sbatch --parsable --dependency=afterok:$array merge.sbatch)\n"
                      "merge=${merge%%%%;*}\n"
                      "echo \"submitted: array job $array (%d tasks), merge job $merge\"\n"
                      "echo ", o->shards);
    /* Paths single-quoted: a path is never a command, whatever it holds. */
    char *logs = tl_xasprintf("logs: %s/logs/", o->dir), *result = tl_xasprintf("result: %s (once job ", o->output);
    sh_quote(&b, logs);
    tl_buf_printf(&b, "\necho ");
    sh_quote(&b, result);
    tl_buf_printf(&b, "\"$merge\"' has run)'\n");
    free(logs), free(result);
    s->submit = b.s;
}

void submit_scripts_free(submit_scripts *s)
{
    free(s->experiment), free(s->array), free(s->merge), free(s->submit);
    memset(s, 0, sizeof *s);
}

static int write_in(const char *dir, const char *name, const char *text, int exec, tl_err *e)
{
    char *path = tl_xasprintf("%s/%s", dir, name);
    int rc = tl_write_file_atomic(path, text, strlen(text), e);
    if (rc == 0 && exec && chmod(path, 0755) < 0) {
        tl_err_set(e, "%s: chmod failed: %s", path, strerror(errno));
        rc = -1;
    }
    free(path);
    return rc;
}

int submit_sweep(const tl_experiment *x, const submit_opts *o, tl_err *e)
{
    submit_scripts s = {0};
    int rc = -1;
    submit_render(x, o, &s);
    if (o->dry_run) {
        printf("# dry run: nothing written, nothing submitted\n"
               "# %s/experiment/experiment.yaml: the experiment as it is now (%zu bytes, sha256 %s)\n",
               o->dir, x->yaml_len, x->sha256);
        for (int i = 0; i < x->store.n; i++)
            if (x->store.files[i].used && strcmp(x->store.files[i].origin, SOURCE_TILELAB))
                printf("# %s/experiment/%s: a %s of the experiment (sha256 %s)\n", o->dir, x->store.files[i].path,
                       strcmp(x->store.files[i].origin, SOURCE_DATA) ? "kernel source" : "data file",
                       x->store.files[i].sha256);
        printf(
               "# ---- %s/array.sbatch\n%s"
               "# ---- %s/merge.sbatch\n%s"
               "# ---- %s/submit.sh\n%s",
               o->dir, s.array, o->dir, s.merge, o->dir, s.submit);
        rc = 0;
        goto out;
    }
    struct stat st;
    if (stat(o->dir, &st) == 0) {
        tl_err_set(e, "%s: exists; to resubmit that sweep, run sh %s/submit.sh", o->dir, o->dir);
        goto out;
    }
    char *logs = tl_xasprintf("%s/logs", o->dir), *exp = tl_xasprintf("%s/experiment", o->dir);
    /* The experiment folder travels whole: the YAML, the sources of its own variants, its data files. */
    int bad = tl_mkdir_p(logs, e) || tl_mkdir_p(exp, e) || write_in(exp, "experiment.yaml", s.experiment, 0, e) ||
              extract_store_files(&x->store, exp, e) < 0;
    free(logs), free(exp);
    if (bad || write_in(o->dir, "array.sbatch", s.array, 0, e) ||
        write_in(o->dir, "merge.sbatch", s.merge, 0, e) || write_in(o->dir, "submit.sh", s.submit, 1, e))
        goto out;
    printf("sweep folder: %s (%d shards; runner %s)\n", o->dir, o->shards, o->runner);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char *sh = tl_xasprintf("%s/submit.sh", o->dir);
        execl("/bin/sh", "sh", sh, (char *)NULL);
        fprintf(stderr, "runner submit: cannot run %s: %s\n", sh, strerror(errno));
        _exit(127);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        tl_err_set(e, "cannot run %s/submit.sh: %s", o->dir, strerror(errno));
        goto out;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        tl_err_set(e, "%s/submit.sh failed (is sbatch on PATH?); the sweep folder is ready: fix, then run "
                      "sh %s/submit.sh", o->dir, o->dir);
        goto out;
    }
    rc = 0;
out:
    submit_scripts_free(&s);
    return rc;
}
