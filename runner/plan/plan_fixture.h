/* plan_fixture: an experiment's text read and planned, for the plan's tests (header only, test-only). */
#ifndef TILELAB_PLAN_FIXTURE_H
#define TILELAB_PLAN_FIXTURE_H

#include <string.h>

#include "runner/plan/plan.h"
#include "runner/testing/testutil.h"

/* yaml read as t.yaml and planned for a device of device_bytes (0: no limit): 0, or -1 after a failed CHECK. */
static inline int load(const char *yaml, tl_experiment *x, tl_plan *p, uint64_t device_bytes)
{
    tl_err e;
    plan_limits lim = {device_bytes, 0, NULL};
    if (config_parse("t.yaml", yaml, strlen(yaml), x, &e)) {
        CHECK(0, "config: %s", e.msg);
        return -1;
    }
    if (plan_expand(x, &lim, p, &e)) {
        CHECK(0, "plan: %s", e.msg);
        config_free(x);
        return -1;
    }
    return 0;
}

static inline void unload(tl_experiment *x, tl_plan *p)
{
    plan_free(p);
    config_free(x);
}

#endif
