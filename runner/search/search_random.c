/* random: each point drawn uniformly from those not evaluated yet. The baseline the others must beat. */
#include "runner/search/search_run.h"

#include <stdio.h>

static int random_next(search_run *r, char *why, size_t n)
{
    snprintf(why, n, "random: drawn uniformly from the %d points not evaluated", r->nunvisited);
    return search_random_new(r);
}

const search_strategy search_random = {"random", "every point as likely as any other not yet evaluated: the baseline",
                                   NULL, {random_next, NULL, NULL}};
