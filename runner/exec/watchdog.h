/* watchdog: a case that runs past its limit (a kernel that never returns, a host variant that spins) costs that
 * case, not the sweep. A thread watches the case the main thread runs; past the limit it writes a marker beside
 * the result file (FILE.timeout: the case, its phase, the limit) and starts the runner again with --resume, as
 * after a lost CUDA context: exec ends the hung process, the GPU's context with it. The new process records the
 * case as `timeout` (watchdog_take_marker) and goes on with the next one. */
#ifndef TILELAB_WATCHDOG_H
#define TILELAB_WATCHDOG_H

#include "runner/util/util.h"

/* The limit of a case without `case_timeout_s:` in the experiment: generous against its timed loop, with a
 * floor for the rest of a case (inputs, reference, counters, trials). */
double watchdog_default_limit(double max_time_s);

/* Starts the thread for the run writing path (argv: how the runner was started, for the restart), and has
 * SIGTERM and SIGINT say how to go on before they end the run as they would have. */
int watchdog_start(const char *path, int argc, char **argv, tl_err *e);
/* The case the main thread starts now, and its limit (0: none). */
void watchdog_arm(const char *case_id, double limit_s);
/* The phase the case is in (runner/exec/result.h's tl_phase). */
void watchdog_phase(int phase);
/* The case ended. */
void watchdog_disarm(void);
void watchdog_stop(void);

typedef struct {
    char case_id[64];
    char phase[32];
    double limit_s;
} watchdog_marker;
/* The marker a timed-out run left beside path, read and removed: 1 with m, 0 when there is none, -1 with e when
 * it cannot be read or removed (a run must not record one case twice). */
int watchdog_take_marker(const char *path, watchdog_marker *m, tl_err *e);

/* exec of the runner with `-o path --resume` (argv as it was started; at most 64 times a run, counted in
 * TILELAB_REEXEC_DEPTH), saying why in one line. Returns only when it cannot. */
void watchdog_reexec_resume(int argc, char **argv, const char *path, const char *why);

#endif
