#include "runner/store/schema.h"

#include <stddef.h>
#include <string.h>

const char *const sch_group_names[SCH_NGROUPS] = {"root", "env", "session", "case", "data", "summary", "sources"};
const char *const sch_type_names[SCH_NTYPES] = {"string", "int64", "float64", "int64[n]", "int32",
                                                "float64[reps]", "uint64[reps]", "uint8[reps]", "compound[n]"};
const char *const sch_statuses[SCH_NSTATUSES + 1] = {"ok", "verify_failed", "skipped", "error", "timeout", NULL};

int sch_status_failed(const char *status)
{
    return status && strcmp(status, "ok") && strcmp(status, "skipped");
}

/* Rows: A(group, name, type, unit, since, presence, doc) for what readers take as it is; M(...) for what they
 * refuse a file without; C(group, name, type, unit, since, presence, lo, hi, what, default, doc) for what they
 * check where it is there. */
#define A(g, n, t, u, since, p, doc) {SCH_##g, n, SCH_##t, u, since, SCH_##p, SCH_NOCHECK, 0, 0, NULL, NULL, doc}
#define M(g, n, t, u, since, p, doc) {SCH_##g, n, SCH_##t, u, since, SCH_##p, SCH_MUST, 0, 0, NULL, NULL, doc}
#define C(g, n, t, u, since, p, lo, hi, what, dflt, doc) {SCH_##g, n, SCH_##t, u, since, SCH_##p, SCH_IFTHERE, lo, hi, what, dflt, doc}

/* A phase of a case's (or a session's) wall time. */
#define CASE_PHASE(id, n, since, doc) [id] = C(CASE, n, F64, "s", since, ALWAYS, 0, 1e9, "a number of seconds", NULL, doc)
#define SESSION_PHASE(id, n, since, doc) [id] = A(SESSION, n, F64, "s", since, SOMETIMES, "the session's cases' " doc)

const sch_field sch_fields[SCH_N] = {
    /* / */
    [SCH_ROOT_SCHEMA] = M(ROOT, "schema", STR, "", 0, ALWAYS,
                          "`tilelab/1.N`, the version the runner wrote; readers take any `tilelab/1.x`"),
    [SCH_ROOT_TILELAB_VERSION] = A(ROOT, "tilelab_version", STR, "", 0, ALWAYS, "the runner's version"),
    [SCH_ROOT_GIT_COMMIT] = A(ROOT, "git_commit", STR, "", 0, ALWAYS, "the commit the runner was built from (Bazel stamping)"),
    [SCH_ROOT_GIT_DIRTY] = A(ROOT, "git_dirty", I64, "", 0, ALWAYS, "1 if tracked files differed from that commit"),
    [SCH_ROOT_CREATED_UTC] = M(ROOT, "created_utc", STR, "", 0, ALWAYS, "when the first run into the file started, ISO 8601"),
    [SCH_ROOT_HOST] = M(ROOT, "host", STR, "", 0, ALWAYS, "the hostname of that run"),
    [SCH_ROOT_ARGV] = A(ROOT, "argv", STR, "", 0, ALWAYS, "its command line (each run's is in `/sessions`)"),
    [SCH_ROOT_EXPERIMENT] = M(ROOT, "experiment", STR, "", 0, ALWAYS, "the experiment's `name`"),
    [SCH_ROOT_DESCRIPTION] = A(ROOT, "description", STR, "", 0, ALWAYS, "its `description`"),
    [SCH_ROOT_CONFIG_PATH] = A(ROOT, "config_path", STR, "", 0, ALWAYS, "the experiment file's path"),
    [SCH_ROOT_CONFIG_YAML] = M(ROOT, "config_yaml", STR, "", 0, ALWAYS, "its text, verbatim"),
    [SCH_ROOT_CONFIG_SHA256] = M(ROOT, "config_sha256", STR, "", 0, ALWAYS,
                                 "SHA-256 of its bytes (readers check it against `config_yaml`)"),
    [SCH_ROOT_OP] = M(ROOT, "op", STR, "", 0, ALWAYS, "the op"),
    [SCH_ROOT_REFERENCE] = A(ROOT, "reference", STR, "", 0, ALWAYS, "the reference outputs were compared with"),
    [SCH_ROOT_TOLERANCE] = A(ROOT, "tolerance", STR, "", 0, ALWAYS, "`rtol=...;atol=...`"),
    [SCH_ROOT_TOLERANCE_RULE] = A(ROOT, "tolerance_rule", STR, "", 0, ALWAYS, "the rule the tolerance is applied under"),
    [SCH_ROOT_PROTOCOL] = A(ROOT, "protocol", STR, "", 0, ALWAYS,
                            "`warmup=...;warmup_s=...;min_reps=...;max_reps=...;max_noise=...;max_time_s=...;"
                            "l2_flush=0|1;batch=...` (experiment-wide; each case stores its own)"),
    [SCH_ROOT_VERIFY] = A(ROOT, "verify", STR, "", 0, ALWAYS, "verification mode: `off`, `once`, `every`"),
    [SCH_ROOT_DATA] = A(ROOT, "data", STR, "", 0, ALWAYS, "input distribution: `uniform`, `normal`, `int`"),
    [SCH_ROOT_WALL_S] = A(ROOT, "wall_s", F64, "s", 0, SOMETIMES,
                          "written at the end of each run: the wall time of all runs into the file"),
    [SCH_ROOT_TIMED_S] = A(ROOT, "timed_s", F64, "s", 0, SOMETIMES,
                           "written with `wall_s`: the sum of their timed regions (the overhead is the rest)"),
    [SCH_ROOT_RERUN_OF] = A(ROOT, "rerun_of", STR, "", 0, SOMETIMES,
                            "only in files made by `runner rerun`: the source file, when and where it ran"),
    [SCH_ROOT_MERGED_FROM] = A(ROOT, "merged_from", STR, "", 1, SOMETIMES,
                               "only in files made by `runner merge`: its inputs, one per line (the other root "
                               "attributes and `/env` are the first input's)"),
    [SCH_ROOT_MERGE_ARGV] = A(ROOT, "merge_argv", STR, "", 1, SOMETIMES, "only in merged files: the merge's command line"),
    [SCH_ROOT_MERGE_FORCED] = A(ROOT, "merge_forced", I64, "", 1, SOMETIMES,
                                "only in merged files: 1 if `--force` mixed experiments"),
    [SCH_ROOT_SEARCH] = A(ROOT, "search", STR, "", 15, SOMETIMES,
                          "only for an experiment with `search:`: `strategy=...;budget=cases|fraction|seconds:N;"
                          "objective=time|energy|<metric>;better=lower|higher;seed=N`"),

    /* /env */
    [SCH_ENV_HOST] = A(ENV, "host", STR, "", 0, ALWAYS, "the hostname"),
    [SCH_ENV_CPU] = A(ENV, "cpu", STR, "", 0, ALWAYS, "the CPU's model name"),
    [SCH_ENV_CPUS] = A(ENV, "cpus", I64, "", 0, ALWAYS, "CPUs online"),
    [SCH_ENV_HOST_MEM_BYTES] = A(ENV, "host_mem_bytes", I64, "bytes", 0, ALWAYS, "the host's memory"),
    [SCH_ENV_BUILD_COMPILER] = A(ENV, "build_compiler", STR, "", 0, ALWAYS, "the C compiler that built the runner"),
    [SCH_ENV_HAVE_GPU] = A(ENV, "have_gpu", I64, "", 0, ALWAYS, "1 when the run used a GPU"),
    [SCH_ENV_NVML] = A(ENV, "nvml", STR, "", 0, ALWAYS, "`ok`, or why telemetry is unavailable"),
    [SCH_ENV_DEVICE_NAME] = A(ENV, "device_name", STR, "", 0, SOMETIMES, "with a GPU: its name"),
    [SCH_ENV_PCI_BUS_ID] = A(ENV, "pci_bus_id", STR, "", 0, SOMETIMES, "with a GPU: its PCI bus id"),
    [SCH_ENV_DEVICE_ORDINAL] = A(ENV, "device_ordinal", I64, "", 1, SOMETIMES, "with a GPU: its CUDA ordinal"),
    [SCH_ENV_COMPUTE_CAPABILITY] = A(ENV, "compute_capability", STR, "", 0, SOMETIMES, "with a GPU: `9.0`"),
    [SCH_ENV_SMS] = A(ENV, "sms", I64, "", 0, SOMETIMES, "with a GPU: its SMs"),
    [SCH_ENV_L2_BYTES] = A(ENV, "l2_bytes", I64, "bytes", 0, SOMETIMES, "with a GPU: its L2 cache"),
    [SCH_ENV_SMEM_PER_BLOCK_BYTES] = A(ENV, "smem_per_block_bytes", I64, "bytes", 0, SOMETIMES,
                                       "with a GPU: shared memory a block gets without opting in"),
    [SCH_ENV_SMEM_PER_BLOCK_OPTIN_BYTES] = A(ENV, "smem_per_block_optin_bytes", I64, "bytes", 0, SOMETIMES,
                                             "with a GPU: shared memory a block may opt in to"),
    [SCH_ENV_SMEM_PER_SM_BYTES] = A(ENV, "smem_per_sm_bytes", I64, "bytes", 0, SOMETIMES, "with a GPU: shared memory an SM has"),
    [SCH_ENV_REGS_PER_SM] = A(ENV, "regs_per_sm", I64, "", 0, SOMETIMES, "with a GPU: 32-bit registers an SM has"),
    [SCH_ENV_SM_CLOCK_KHZ] = A(ENV, "sm_clock_khz", I64, "kHz", 0, SOMETIMES, "with a GPU: its peak SM clock"),
    [SCH_ENV_MEM_CLOCK_KHZ] = A(ENV, "mem_clock_khz", I64, "kHz", 0, SOMETIMES, "with a GPU: its peak memory clock"),
    [SCH_ENV_MEM_BUS_BITS] = A(ENV, "mem_bus_bits", I64, "bits", 0, SOMETIMES, "with a GPU: its memory bus width"),
    [SCH_ENV_DEVICE_MEM_BYTES] = A(ENV, "device_mem_bytes", I64, "bytes", 0, SOMETIMES, "with a GPU: its memory"),
    [SCH_ENV_DRIVER_VERSION] = A(ENV, "driver_version", I64, "", 0, SOMETIMES, "with a GPU: CUDA's driver version (13000)"),
    [SCH_ENV_RUNTIME_VERSION] = A(ENV, "runtime_version", I64, "", 0, SOMETIMES, "with a GPU: the CUDA runtime's version"),
    [SCH_ENV_CUBLAS_VERSION] = A(ENV, "cublas_version", I64, "", 0, SOMETIMES,
                                 "with a GPU: cuBLAS's, major*10000 + minor*100 + patch"),
    [SCH_ENV_NVRTC_VERSION] = A(ENV, "nvrtc_version", STR, "", 0, SOMETIMES,
                                "with a GPU: NVRTC's, `13.0` (it names the toolkit headers kernels compiled with)"),
    [SCH_ENV_PEAK_FP32_GFLOPS] = A(ENV, "peak_fp32_gflops", F64, "GFLOP/s", 0, SOMETIMES,
                                   "with a GPU: SMs x FP32 lanes x 2 x peak clock"),
    [SCH_ENV_PEAK_DRAM_GBS] = A(ENV, "peak_dram_gbs", F64, "GB/s", 0, SOMETIMES, "with a GPU: 2 x memory clock x bus width"),
    [SCH_ENV_ENERGY_COUNTER] = A(ENV, "energy_counter", STR, "", 15, SOMETIMES,
                                 "with a GPU: where energy per case comes from, `nvml total energy (mJ; it moves a few "
                                 "times a second: each case says the resolution it got)`, or why there is none"),

    /* /sessions/<k> */
    [SCH_SESSION_CREATED_UTC] = A(SESSION, "created_utc", STR, "", 1, ALWAYS, "when the run started, ISO 8601"),
    [SCH_SESSION_HOST] = A(SESSION, "host", STR, "", 1, ALWAYS, "where it ran"),
    [SCH_SESSION_ARGV] = A(SESSION, "argv", STR, "", 1, ALWAYS, "its command line"),
    [SCH_SESSION_SHARD] = A(SESSION, "shard", STR, "", 1, ALWAYS, "`I/N`, or `\"\"`"),
    [SCH_SESSION_RESUMED] = A(SESSION, "resumed", I64, "", 1, ALWAYS, "1 for a `--resume` (or the runner's own restart)"),
    [SCH_SESSION_TILELAB_VERSION] = A(SESSION, "tilelab_version", STR, "", 1, ALWAYS, "the runner's version"),
    [SCH_SESSION_GIT_COMMIT] = A(SESSION, "git_commit", STR, "", 1, ALWAYS, "the commit it was built from"),
    [SCH_SESSION_GIT_DIRTY] = A(SESSION, "git_dirty", I64, "", 1, ALWAYS, "1 if tracked files differed"),
    [SCH_SESSION_RERUN_OF] = A(SESSION, "rerun_of", STR, "", 1, SOMETIMES, "rerun only: the source file"),
    [SCH_SESSION_WALL_S] = A(SESSION, "wall_s", F64, "s", 1, SOMETIMES, "once the run ended normally: its wall time"),
    [SCH_SESSION_TIMED_S] = A(SESSION, "timed_s", F64, "s", 1, SOMETIMES, "with `wall_s`: the sum of its timed regions"),
    SESSION_PHASE(SCH_SESSION_T_COMPILE_S, "t_compile_s", 5, "seconds in NVRTC or the cache"),
    SESSION_PHASE(SCH_SESSION_T_LOAD_S, "t_load_s", 11, "seconds loading modules"),
    SESSION_PHASE(SCH_SESSION_T_INPUTS_S, "t_inputs_s", 5, "seconds making inputs"),
    SESSION_PHASE(SCH_SESSION_T_REFERENCE_S, "t_reference_s", 5, "seconds making references"),
    SESSION_PHASE(SCH_SESSION_T_VERIFY_S, "t_verify_s", 5, "seconds in verified runs"),
    SESSION_PHASE(SCH_SESSION_T_WARMUP_S, "t_warmup_s", 5, "seconds in untimed runs"),
    SESSION_PHASE(SCH_SESSION_T_TIMED_S, "t_timed_s", 5, "seconds inside the timed regions"),
    SESSION_PHASE(SCH_SESSION_T_LOOP_S, "t_loop_s", 5, "seconds in the rest of the timing loops"),
    SESSION_PHASE(SCH_SESSION_T_TELEMETRY_S, "t_telemetry_s", 5, "seconds reading NVML"),
    SESSION_PHASE(SCH_SESSION_T_COUNTERS_S, "t_counters_s", 5, "seconds in the counters' passes"),
    SESSION_PHASE(SCH_SESSION_T_TRIALS_S, "t_trials_s", 10, "seconds in dispatching cases' trials"),
    SESSION_PHASE(SCH_SESSION_T_ENERGY_S, "t_energy_s", 15, "seconds in the energy runs"),
    [SCH_SESSION_T_WRITE_S] = A(SESSION, "t_write_s", F64, "s", 5, SOMETIMES,
                                "what the run waited for the writer (queueing a case, the last commits at the end; "
                                "the commits themselves run beside the next case)"),
    [SCH_SESSION_T_START_S] = A(SESSION, "t_start_s", F64, "s", 8, SOMETIMES,
                                "from the runner's start (exec) to the first case, outside `wall_s` (-1 when the "
                                "system does not say when the process started)"),
    [SCH_SESSION_T_START_CUDA_S] = A(SESSION, "t_start_cuda_s", F64, "s", 8, SOMETIMES,
                                     "of `t_start_s`, the CUDA context (0 on the host)"),
    [SCH_SESSION_T_START_LIBS_S] = A(SESSION, "t_start_libs_s", F64, "s", 8, SOMETIMES,
                                     "of `t_start_s`, the GPU set-up: cuBLAS, streams, buffers, NVML"),
    [SCH_SESSION_MERGED_FROM] = A(SESSION, "merged_from", STR, "", 1, SOMETIMES, "in merged files: the input file"),
    [SCH_SESSION_CONFIG_SHA256] = A(SESSION, "config_sha256", STR, "", 1, SOMETIMES,
                                    "in merged files: the input's experiment's `config_sha256`"),

    /* /cases/<case_id> */
    [SCH_CASE_CASE_ID] = M(CASE, "case_id", STR, "", 0, ALWAYS, "first 16 hex digits of SHA-256 of `canonical`"),
    [SCH_CASE_CANONICAL] = M(CASE, "canonical", STR, "", 0, ALWAYS,
                             "`tilelab-case/2;op=...;variant=...;target=...;params=...;sizes=...;dtype=...;layout=...;"
                             "args=...;seed=...;data=...`, the case's identity"),
    [SCH_CASE_OP] = M(CASE, "op", STR, "", 0, ALWAYS, "the op"),
    [SCH_CASE_VARIANT] = M(CASE, "variant", STR, "", 0, ALWAYS, "the variant"),
    [SCH_CASE_KIND] = A(CASE, "kind", STR, "", 0, ALWAYS, "`nvrtc`, `library` or `host`"),
    [SCH_CASE_TARGET] = A(CASE, "target", STR, "", 0, ALWAYS, "`cuda` or `host`"),
    [SCH_CASE_PARAMS] = A(CASE, "params", STR, "", 0, ALWAYS, "`NAME=value,...` in registry order (`\"\"` when none)"),
    [SCH_CASE_SIZES] = A(CASE, "sizes", STR, "", 0, ALWAYS, "`m=..,n=..,k=..`"),
    [SCH_CASE_AXES] = A(CASE, "axes", STR, "", 0, ALWAYS, "the op's axis names, comma-separated"),
    [SCH_CASE_DIMS] = A(CASE, "dims", I64_ARRAY, "", 0, ALWAYS, "the sizes, one an axis"),
    [SCH_CASE_DTYPE] = A(CASE, "dtype", STR, "", 0, ALWAYS, "`f32`, `tf32`, `bf16` (sgemm), `f16` (reduce)"),
    [SCH_CASE_LAYOUTS] = A(CASE, "layouts", STR, "", 0, ALWAYS, "`a=row,b=col` (`\"\"` for ops without layouts)"),
    [SCH_CASE_SEED] = A(CASE, "seed", I64, "", 0, ALWAYS, "the input seed"),
    [SCH_CASE_SESSION] = M(CASE, "session", I64, "", 1, ALWAYS, "the `/sessions/<k>` that ran it"),
    [SCH_CASE_STATUS] = M(CASE, "status", STR, "", 0, ALWAYS, "`ok`, `verify_failed`, `skipped`, `error` or (1.13) `timeout` (past `case_timeout_s`; the runner started again)"),
    [SCH_CASE_REASON] = A(CASE, "reason", STR, "", 0, ALWAYS,
                          "why not ok: the skip reason, the first mismatches (index, got, want), the CUDA message"),
    [SCH_CASE_REFERENCE] = A(CASE, "reference", STR, "", 0, ALWAYS, "what the output was compared with"),
    [SCH_CASE_RATE_NAME] = A(CASE, "rate_name", STR, "", 12, ALWAYS,
                             "what the op is judged by: `GB/s` or `GFLOP/s` (a declared op's `work.rate`)"),
    [SCH_CASE_BASELINE] = A(CASE, "baseline", STR, "", 16, SOMETIMES,
                            "the variant the case's speed is compared with: the op's first library variant (a declared "
                            "op's: its reference variant); absent when the op has none"),
    [SCH_CASE_TOLERANCE] = A(CASE, "tolerance", STR, "", 0, ALWAYS, "under which tolerance, `rtol=...;atol=...`"),
    [SCH_CASE_MAX_ABS_ERR] = A(CASE, "max_abs_err", F64, "", 0, ALWAYS, "largest `|got - want|`; NaN when not verified"),
    [SCH_CASE_MAX_REL_ERR] = A(CASE, "max_rel_err", F64, "", 0, ALWAYS,
                               "largest `|got - want|` over the op's error scale; NaN when not verified"),
    [SCH_CASE_FLOP] = A(CASE, "flop", F64, "", 0, ALWAYS, "the op's model: operations of one run"),
    [SCH_CASE_BYTES] = A(CASE, "bytes", F64, "bytes", 0, ALWAYS, "the op's model: fewest bytes one run moves"),
    [SCH_CASE_REGS] = A(CASE, "regs", I64, "", 0, ALWAYS, "registers a thread; -1 when not a compiled kernel"),
    [SCH_CASE_SMEM_BYTES] = A(CASE, "smem_bytes", I64, "bytes", 0, ALWAYS,
                              "static + dynamic shared memory a block; -1 when not a compiled kernel"),
    [SCH_CASE_SMEM_STATIC_BYTES] = A(CASE, "smem_static_bytes", I64, "bytes", 0, ALWAYS, "the static part of `smem_bytes`"),
    [SCH_CASE_SMEM_DYNAMIC_BYTES] = A(CASE, "smem_dynamic_bytes", I64, "bytes", 0, ALWAYS,
                                      "the dynamic part of `smem_bytes`"),
    [SCH_CASE_LOCAL_BYTES] = A(CASE, "local_bytes", I64, "bytes", 0, ALWAYS,
                               "local memory (spills, stack) a thread; of a two-kernel variant, the larger"),
    [SCH_CASE_WORKSPACE_BYTES] = A(CASE, "workspace_bytes", I64, "bytes", 9, SOMETIMES,
                                   "device scratch the case's kernels used (`packed`: A and B padded; `hopper` with "
                                   "`SKPAR`: the slices' partial tiles); absent: none"),
    [SCH_CASE_CUBIN_SHA256] = A(CASE, "cubin_sha256", STR, "", 0, ALWAYS, "the compiled kernel's SHA-256"),
    [SCH_CASE_NVRTC_OPTIONS] = A(CASE, "nvrtc_options", STR, "", 0, ALWAYS,
                                  "every option NVRTC got, then `; #define` and the macros defined before the sources"),
    CASE_PHASE(SCH_CASE_T_COMPILE_S, "t_compile_s", 5,
               "where the case's wall time went: NVRTC or the kernel cache (before 1.11 also the module's load)"),
    CASE_PHASE(SCH_CASE_T_LOAD_S, "t_load_s", 11,
               "loading the module into the GPU's context, binding its TMA maps and workspace, unloading it (a "
               "registry kernel's module stays loaded for the run's later cases, which pay only the binding)"),
    CASE_PHASE(SCH_CASE_T_INPUTS_S, "t_inputs_s", 5, "making the inputs (the first case of a problem pays them)"),
    CASE_PHASE(SCH_CASE_T_REFERENCE_S, "t_reference_s", 5, "making the reference (likewise)"),
    CASE_PHASE(SCH_CASE_T_VERIFY_S, "t_verify_s", 5, "the poisoned, verified run"),
    CASE_PHASE(SCH_CASE_T_WARMUP_S, "t_warmup_s", 5, "the untimed runs"),
    CASE_PHASE(SCH_CASE_T_TIMED_S, "t_timed_s", 5, "inside the timed regions"),
    CASE_PHASE(SCH_CASE_T_LOOP_S, "t_loop_s", 5, "the rest of the timing loop (L2 flushes, resets, waits)"),
    CASE_PHASE(SCH_CASE_T_TELEMETRY_S, "t_telemetry_s", 5, "NVML reads"),
    CASE_PHASE(SCH_CASE_T_COUNTERS_S, "t_counters_s", 5, "the hardware counters' pass"),
    CASE_PHASE(SCH_CASE_T_TRIALS_S, "t_trials_s", 10, "a dispatching case's trials (its candidates loaded and timed)"),
    CASE_PHASE(SCH_CASE_T_ENERGY_S, "t_energy_s", 15, "the energy runs (`energy_s`), 0 without them"),
    [SCH_CASE_COMPILE_CACHED] = A(CASE, "compile_cached", I64, "", 5, ALWAYS,
                                  "1 the kernel came from the cache (on disk or compiled earlier in the run), 0 NVRTC "
                                  "compiled it, -1 not a compiled kernel"),
    [SCH_CASE_CUTLASS_VERSION] = C(CASE, "cutlass_version", STR, "", 4, SOMETIMES, 1, 31, "a version string", "\"\"",
                                   "only for a case whose sources include `<cute/...>` or `<cutlass/...>`: the version "
                                   "of the CUTLASS headers it compiled with (their text is not in `/sources`)"),
    [SCH_CASE_TENSOR_MAPS] = C(CASE, "tensor_maps", STR, "", 6, SOMETIMES, 1, 255, "a line of text", "\"\"",
                               "only for a case whose kernel asks for TMA tensor maps: what the runner gave it, per "
                               "request, e.g. `a 32x128 sw128; b not encoded: rows of 3108 bytes, ...`"),
    [SCH_CASE_DEVICE_ORDINAL] = C(CASE, "device_ordinal", I64, "", 7, ALWAYS, -1, 1023, "a device number", "-2",
                                  "the CUDA ordinal of the GPU that ran the case (with `run --devices`, the worker's, "
                                  "also for host-target cases); -1 when the run used no GPU"),
    [SCH_CASE_DISPATCH] = C(CASE, "dispatch", STR, "", 7, SOMETIMES, 1, 4096, "a line of text", "\"\"",
                            "only for a dispatching variant (`tuned`): the rung and params that ran and the table's "
                            "line; `entry`, `sources`, registers and the launch are that rung's"),
    [SCH_CASE_DISPATCH_TRIALS] = C(CASE, "dispatch_trials", STR, "", 10, SOMETIMES, 1, 65536, "text", "\"\"",
                                   "only for a dispatching case with trials: a line a candidate, `<rung params "
                                   "(table:line)>: <median> ms (<runs> runs)` or `: not run: <why>`, the one that "
                                   "ran marked `* `"),
    [SCH_CASE_GRID] = A(CASE, "grid", I64_ARRAY, "", 0, ALWAYS, "the launch's blocks, [3] (of a two-kernel variant, the first's)"),
    [SCH_CASE_BLOCK] = A(CASE, "block", I64_ARRAY, "", 0, ALWAYS, "its threads a block, [3]"),
    [SCH_CASE_PROTOCOL] = A(CASE, "protocol", STR, "", 0, ALWAYS, "the case's measurement protocol"),
    [SCH_CASE_STOPPED] = A(CASE, "stopped", STR, "", 0, ALWAYS,
                           "why the repetitions stopped: `noise`, `max_reps`, `max_time`, `verify_failed`"),
    [SCH_CASE_VERIFY] = A(CASE, "verify", STR, "", 0, ALWAYS, "its verification mode"),
    [SCH_CASE_DATA] = A(CASE, "data", STR, "", 0, ALWAYS, "its input distribution"),
    [SCH_CASE_WARMUP_RUNS] = A(CASE, "warmup_runs", I64, "", 0, ALWAYS, "untimed runs done"),
    [SCH_CASE_THROTTLED] = A(CASE, "throttled", I64, "", 0, ALWAYS, "samples flagged throttled"),
    [SCH_CASE_TIMED_S] = A(CASE, "timed_s", F64, "s", 0, ALWAYS, "the sum of the case's timed regions"),
    [SCH_CASE_ARG] = A(CASE, "<arg>", F64, "", 0, SOMETIMES, "each of the op's args, one attribute each (sgemm: `alpha`, `beta`)"),
    [SCH_CASE_VARIANT_ORIGIN] = A(CASE, "variant_origin", STR, "", 2, ALWAYS,
                                  "`tilelab` (a variant of the runner's registry) or `experiment` (declared in the "
                                  "experiment file with `source:`)"),
    [SCH_CASE_ENTRY] = A(CASE, "entry", STR, "", 2, SOMETIMES, "compiled variants: the kernel launched"),
    [SCH_CASE_KERNELS] = A(CASE, "kernels", STR, "", 12, SOMETIMES,
                           "a declared variant of several kernels: their entries, comma-separated, in launch order"),
    [SCH_CASE_ENTRY2] = A(CASE, "entry2", STR, "", 2, SOMETIMES, "compiled variants with a second kernel: its name"),
    [SCH_CASE_ENTRY2_FIRST] = A(CASE, "entry2_first", I64, "", 9, SOMETIMES,
                                "1 when `entry2` runs before `entry` (a pass that prepares the operands, such as "
                                "`packed`'s pack); absent: after"),
    [SCH_CASE_SOURCES] = A(CASE, "sources", STR, "", 2, SOMETIMES,
                           "compiled variants: every file the compile read, one `origin:path sha256` line each, the "
                           "main source first; each is in `/sources/<sha256>`"),
    [SCH_CASE_SOURCES_SHA256] = A(CASE, "sources_sha256", STR, "", 2, SOMETIMES,
                                  "SHA-256 of `sources`: two cases compiled the same files when these are equal"),
    [SCH_CASE_COUNTERS_STATUS] = C(CASE, "counters_status", STR, "", 3, SOMETIMES, 0, 31, "a short string", "\"\"",
                                   "only for a case whose variant asked for `counters:`: `ok`, or why there are none: "
                                   "`not_permitted`, `cupti_missing`, `unavailable`, `no_kernels`, `not_run`, "
                                   "`unsupported`, `error`"),
    [SCH_CASE_COUNTERS_REASON] = A(CASE, "counters_reason", STR, "", 3, SOMETIMES, "what stopped them (`\"\"` when ok)"),
    [SCH_CASE_COUNTERS_KERNELS] = A(CASE, "counters_kernels", I64, "", 3, SOMETIMES,
                                    "kernels one run launched (the counters combine over them)"),
    [SCH_CASE_COUNTERS_PASSES] = A(CASE, "counters_passes", I64, "", 3, SOMETIMES, "the replays of the run the metrics needed"),
    [SCH_CASE_RETRIED] = A(CASE, "retried", STR, "", 14, SOMETIMES,
                           "a case `--retry-failed` ran again: the status and session of the attempt it replaced "
                           "(`timeout in session 0`); that attempt is kept under `/retried/<case_id>/<session>`"),
    [SCH_CASE_SANITIZE_TOOL] = A(CASE, "sanitize_tool", STR, "", 14, SOMETIMES,
                                 "`--sanitize`: the compute-sanitizer tool its verified run was repeated under "
                                 "(`memcheck`, `racecheck`, `initcheck`, `synccheck`)"),
    [SCH_CASE_SANITIZE_ERRORS] = A(CASE, "sanitize_errors", I64, "", 14, SOMETIMES,
                                   "with `sanitize_tool`: the errors it reported in the variant's kernels (more than 0: "
                                   "the case is `verify_failed`); -1 when it could not check the case (`reason` says "
                                   "why)"),
    [SCH_CASE_SANITIZE_REPORT] = A(CASE, "sanitize_report", STR, "", 14, SOMETIMES,
                                   "with `sanitize_tool`: its first reports as it printed them, at most 4 KB"),
    [SCH_CASE_ENERGY_STATUS] = A(CASE, "energy_status", STR, "", 15, SOMETIMES,
                                 "only for a case whose protocol has `energy_s`: `ok`, or `unavailable` (then "
                                 "`energy_reason` says why)"),
    [SCH_CASE_ENERGY_REASON] = A(CASE, "energy_reason", STR, "", 15, SOMETIMES, "with `energy_status`: why there is no "
                                 "energy (`\"\"` when ok)"),
    [SCH_CASE_ENERGY_J] = A(CASE, "energy_j", F64, "J", 15, SOMETIMES,
                            "with `energy_status` ok: the energy of one run, from the GPU's energy counter over runs back "
                            "to back (no reset, no L2 flush) between two of its moves `energy_span_s` apart"),
    [SCH_CASE_ENERGY_POWER_W] = A(CASE, "energy_power_w", F64, "W", 15, SOMETIMES, "with `energy_j`: the mean power over "
                                  "those runs"),
    [SCH_CASE_ENERGY_SPAN_S] = A(CASE, "energy_span_s", F64, "s", 15, SOMETIMES, "with `energy_j`: the time between the "
                                 "counter's two moves"),
    [SCH_CASE_ENERGY_RUNS] = A(CASE, "energy_runs", I64, "", 15, SOMETIMES, "with `energy_j`: the runs between them"),
    [SCH_CASE_ENERGY_RESOLUTION_J] = A(CASE, "energy_resolution_j", F64, "J", 15, SOMETIMES,
                                       "with `energy_j`: how far it may be off (a batch of runs' energy at each end, "
                                       "over the runs)"),
    [SCH_CASE_SEARCH_STEP] = A(CASE, "search_step", I64, "", 15, SOMETIMES,
                               "only for a case a search evaluated: its evaluation's number in its search (problem and "
                               "variant entry), from 1; 0 for a point the device could not run (not counted)"),
    [SCH_CASE_SEARCH_PROPOSER] = A(CASE, "search_proposer", STR, "", 15, SOMETIMES,
                                   "with `search_step`: what proposed the point (`genetic: a child of steps 4 and 9`)"),
    [SCH_CASE_SEARCH_OBJECTIVE] = A(CASE, "search_objective", F64, "", 15, SOMETIMES,
                                    "with `search_step`: the case's objective (its median ms, J a run, or the counter); "
                                    "NaN when it failed"),
    [SCH_CASE_SEARCH_BEST] = A(CASE, "search_best", F64, "", 15, SOMETIMES,
                               "with `search_step`: the best objective of its search so far, this case included (NaN "
                               "before an ok one)"),

    /* datasets of /cases/<case_id>, one element a timed repetition */
    [SCH_DATA_TIME_MS] = M(DATA, "time_ms", F64_DATA, "ms", 0, ALWAYS,
                           "each repetition's duration (per launch in batch mode); empty when the case was not measured"),
    [SCH_DATA_SM_CLOCK_MHZ] = A(DATA, "sm_clock_mhz", F64_DATA, "MHz", 0, SOMETIMES,
                                "the SM clock after the repetition (NVML; NaN when a read failed); the telemetry "
                                "datasets exist for GPU cases measured with NVML (`/env/nvml`)"),
    [SCH_DATA_TEMP_C] = A(DATA, "temp_c", F64_DATA, "deg C", 0, SOMETIMES, "the GPU's temperature"),
    [SCH_DATA_POWER_W] = A(DATA, "power_w", F64_DATA, "W", 0, SOMETIMES, "board power"),
    [SCH_DATA_THROTTLE_REASONS] = A(DATA, "throttle_reasons", U64_DATA, "", 0, SOMETIMES, "NVML's clock-event reason bits"),
    [SCH_DATA_THROTTLED] = A(DATA, "throttled", U8_DATA, "", 0, SOMETIMES,
                             "1 when power cap (0x4), HW slowdown (0x8), SW/HW thermal (0x20/0x40) or power brake "
                             "(0x80) held the clock"),
    [SCH_DATA_COUNTERS] = A(DATA, "counters", ROWS_DATA, "", 3, SOMETIMES,
                            "(`name` string, `value` float64, `unit` string): the hardware counters of one run, only "
                            "when `counters_status` is `ok`; each metric asked for, then `gpu__time_duration.sum`"),

    /* /summary: one row a case, in run order (plan order in merged files) */
    [SCH_SUMMARY_CASE_ID] = M(SUMMARY, "case_id", STR, "", 0, ALWAYS, "the case"),
    [SCH_SUMMARY_OP] = A(SUMMARY, "op", STR, "", 0, ALWAYS, "its op"),
    [SCH_SUMMARY_VARIANT] = A(SUMMARY, "variant", STR, "", 0, ALWAYS, "its variant"),
    [SCH_SUMMARY_TARGET] = A(SUMMARY, "target", STR, "", 0, ALWAYS, "`cuda` or `host`"),
    [SCH_SUMMARY_PARAMS] = A(SUMMARY, "params", STR, "", 0, ALWAYS, "its params"),
    [SCH_SUMMARY_SIZES] = A(SUMMARY, "sizes", STR, "", 0, ALWAYS, "its sizes"),
    [SCH_SUMMARY_LAYOUT] = A(SUMMARY, "layout", STR, "", 0, ALWAYS, "its layouts"),
    [SCH_SUMMARY_STATUS] = M(SUMMARY, "status", STR, "", 0, ALWAYS, "its status (readers check it against the case's)"),
    [SCH_SUMMARY_MEDIAN_MS] = A(SUMMARY, "median_ms", F64, "ms", 0, ALWAYS, "the samples' median; NaN when not measured"),
    [SCH_SUMMARY_MEAN_MS] = A(SUMMARY, "mean_ms", F64, "ms", 0, ALWAYS, "their mean"),
    [SCH_SUMMARY_STDEV_MS] = A(SUMMARY, "stdev_ms", F64, "ms", 0, ALWAYS, "their standard deviation"),
    [SCH_SUMMARY_MIN_MS] = A(SUMMARY, "min_ms", F64, "ms", 0, ALWAYS, "the fastest"),
    [SCH_SUMMARY_MAX_MS] = A(SUMMARY, "max_ms", F64, "ms", 0, ALWAYS, "the slowest"),
    [SCH_SUMMARY_P10_MS] = A(SUMMARY, "p10_ms", F64, "ms", 0, ALWAYS,
                             "the 10th percentile (linear between order statistics, numpy's default)"),
    [SCH_SUMMARY_P90_MS] = A(SUMMARY, "p90_ms", F64, "ms", 0, ALWAYS, "the 90th percentile"),
    [SCH_SUMMARY_GFLOPS] = A(SUMMARY, "gflops", F64, "GFLOP/s", 0, ALWAYS, "`flop` over the median"),
    [SCH_SUMMARY_GBS] = A(SUMMARY, "gbs", F64, "GB/s", 0, ALWAYS, "`bytes` over the median"),
    [SCH_SUMMARY_REPS] = M(SUMMARY, "reps", I32, "", 0, ALWAYS, "samples (readers check it against `time_ms`)"),
    [SCH_SUMMARY_THROTTLED] = A(SUMMARY, "throttled", I32, "", 0, ALWAYS, "samples flagged throttled"),

    /* /sources/<sha256>: a kernel source's or a data file's bytes (uint8[n], named by their SHA-256) */
    [SCH_SOURCES_PATHS] = A(SOURCES, "paths", STR, "", 2, ALWAYS,
                            "one `origin:path` line per path it was read as; origins: `experiment` (the experiment's "
                            "folder), `tilelab` (the runner's kernels), `data` (a declared op's input file)"),
    [SCH_SOURCES_BYTES] = A(SOURCES, "bytes", I64, "bytes", 13, SOMETIMES,
                            "only for a data file over the 64 MiB a result file carries: its size; the dataset is then "
                            "empty, still named by the file's SHA-256 (`rerun --data DIR` reads it, checked)"),
};
