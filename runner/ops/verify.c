#include "runner/ops/verify.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define VERIFY_SHOW 3 /* mismatches quoted in the detail */

void verify_f32(const float *got, const float *want, const float *scale, size_t n, const reg_tolerance *t,
                reg_verify *v)
{
    memset(v, 0, sizeof *v);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i], s = scale ? scale[i] : fabs(w);
        double err = fabs(g - w);
        int finite = isfinite(g);
        if (finite) {
            if (err > v->max_abs_err) v->max_abs_err = err;
            if (s > 0 && err / s > v->max_rel_err) v->max_rel_err = err / s;
        }
        if (finite && err <= t->atol + t->rtol * s) continue;
        if (!finite) v->max_abs_err = v->max_rel_err = INFINITY;
        if (v->bad < VERIFY_SHOW && len < sizeof v->detail)
            len += (size_t)snprintf(v->detail + len, sizeof v->detail - len, "%s[%zu] got %.9g want %.9g",
                                    v->bad ? "; " : "", i, g, w);
        v->bad++;
    }
    v->ok = v->bad == 0;
}
