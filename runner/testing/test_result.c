#include "runner/testing/test_result.h"

#include <math.h>
#include <stdlib.h>

#include "runner/exec/env.h"
#include "runner/plan/plan.h"
#include "runner/store/h5out.h"

int test_write_skipped(const char *path, tl_experiment *x, const char *who, int resume, tl_err *e)
{
    tl_plan p;
    env_info env;
    h5out out;
    h5out_existing have;
    h5out_session ses = {who, "", NULL};
    plan_limits lim = {0};
    if (plan_expand(x, &lim, &p, e)) return -1;
    env_host(&env);
    tl_result *res = tl_xcalloc((size_t)p.ncases, sizeof *res);
    int rc = h5out_open(&out, path, x, &env, &ses, resume, &have, e);
    for (int i = 0; rc == 0 && !resume && i < p.ncases; i++) { /* a resume finds them all held */
        tl_result *r = &res[i];
        r->c = &p.cases[i];
        r->status = "skipped";
        r->reason = tl_xstrdup("no GPU in this test");
        r->regs = -1, r->smem_bytes = r->local_bytes = r->smem_static_bytes = r->smem_dynamic_bytes = -1;
        r->max_abs_err = r->max_rel_err = r->gflops = r->gbs = NAN;
        rc = h5out_write_case(&out, r, e);
    }
    if (rc == 0) rc = h5out_finish(&out, 0, 0, e);
    if (out.path) h5out_close(&out);
    h5out_existing_free(&have);
    for (int i = 0; i < p.ncases; i++) result_free(&res[i]);
    free(res);
    plan_free(&p);
    return rc;
}
