/* result: a case's outcome (runner/exec/result.h), owned by the case that filled it. The phases' names are here
 * rather than in the executor that times them, so that the watchdog and the writer name phases without it. */
#include "runner/exec/result.h"

#include <stdlib.h>
#include <string.h>

const char *const tl_phase_names[PH_N] = {"compile", "load", "inputs", "reference", "verify", "warmup",
                                           "timed", "loop", "telemetry", "counters", "trials", "energy"};

void result_free(tl_result *r)
{
    free(r->reason);
    free(r->nvrtc_options);
    free(r->trials);
    free(r->protocol);
    free(r->retried);
    free(r->sanitize_report);
    free(r->search_proposer);
    measure_energy_free(&r->energy);
    measure_samples_free(&r->samples);
    counters_result_free(&r->counters);
    memset(r, 0, sizeof *r);
}
