/* schema: the result file's layout as one table, a row an attribute, dataset or /summary field: its group,
 * name, type, unit, the schema minor that added it, when it is there, what a reader checks of it, and a line
 * of doc. The writer (h5write.c, h5out.c, merge.c) writes through its rows (h5util.h's h5util_put_*), the checker
 * (h5check.c) and the Python reader (analysis/tilelab_analysis/schema.py, generated) check by them, and
 * results/README.md's tables are generated from them (schema_doc_test fails when a generated file is not
 * current). A new attribute is one row here, and a line of the writer. */
#ifndef TILELAB_SCHEMA_H
#define TILELAB_SCHEMA_H

#define SCH_MINOR 16                  /* what this runner writes: tilelab/1.SCH_MINOR */
#define SCH_VERSION "tilelab/1.16"    /* the root attribute `schema` */

typedef enum {
    SCH_ROOT,    /* attributes of / */
    SCH_ENV,     /* attributes of /env (and of /sessions/<k>/env) */
    SCH_SESSION, /* attributes of /sessions/<k> */
    SCH_CASE,    /* attributes of /cases/<case_id> */
    SCH_DATA,    /* datasets of /cases/<case_id> */
    SCH_SUMMARY, /* fields of /summary's rows */
    SCH_SOURCES, /* attributes of /sources/<sha256> */
    SCH_NGROUPS
} sch_group;

typedef enum {
    SCH_STR,       /* variable-length UTF-8 string */
    SCH_I64,       /* int64 */
    SCH_F64,       /* float64 */
    SCH_I64_ARRAY, /* int64[n] */
    SCH_I32,       /* int32 (a /summary field) */
    SCH_F64_DATA,  /* 1-D float64 dataset, one value a sample */
    SCH_U64_DATA,  /* 1-D uint64 dataset, one value a sample */
    SCH_U8_DATA,   /* 1-D uint8 dataset, one value a sample */
    SCH_ROWS_DATA, /* 1-D compound dataset (its fields in the doc) */
    SCH_NTYPES
} sch_type;

typedef enum {
    SCH_ALWAYS,   /* written whenever its group is (from its `since`) */
    SCH_SOMETIMES /* written where it applies: the doc says when */
} sch_presence;

typedef enum {
    SCH_NOCHECK, /* readers take it as it is */
    SCH_MUST,    /* readers refuse a file without it, or with one of another type */
    SCH_IFTHERE  /* readers refuse one of another type or outside lo .. hi (a string: its length), where it is */
} sch_check;

typedef struct {
    sch_group group;
    const char *name;    /* "status"; "<arg>" stands for each of the op's args */
    sch_type type;
    const char *unit;    /* "s", "ms", "bytes", ... ; "" when none */
    int since;           /* the minor of tilelab/1 that added it */
    sch_presence presence;
    sch_check check;
    double lo, hi;       /* SCH_IFTHERE's bounds */
    const char *what;    /* SCH_IFTHERE: what it must be, for the message "NAME is not WHAT" */
    const char *reader_default; /* the Python reader's value for a case without it (a Python literal), or NULL */
    const char *doc;     /* one line */
} sch_field;

/* Every row, by name: SCH_<GROUP>_<NAME>. The phases' rows are in the order of result.h's PH_*. */
typedef enum {
    SCH_ROOT_SCHEMA, SCH_ROOT_TILELAB_VERSION, SCH_ROOT_GIT_COMMIT, SCH_ROOT_GIT_DIRTY, SCH_ROOT_CREATED_UTC,
    SCH_ROOT_HOST, SCH_ROOT_ARGV, SCH_ROOT_EXPERIMENT, SCH_ROOT_DESCRIPTION, SCH_ROOT_CONFIG_PATH,
    SCH_ROOT_CONFIG_YAML, SCH_ROOT_CONFIG_SHA256, SCH_ROOT_OP, SCH_ROOT_REFERENCE, SCH_ROOT_TOLERANCE,
    SCH_ROOT_TOLERANCE_RULE, SCH_ROOT_PROTOCOL, SCH_ROOT_VERIFY, SCH_ROOT_DATA, SCH_ROOT_WALL_S, SCH_ROOT_TIMED_S,
    SCH_ROOT_RERUN_OF, SCH_ROOT_MERGED_FROM, SCH_ROOT_MERGE_ARGV, SCH_ROOT_MERGE_FORCED, SCH_ROOT_SEARCH,

    SCH_ENV_HOST, SCH_ENV_CPU, SCH_ENV_CPUS, SCH_ENV_HOST_MEM_BYTES, SCH_ENV_BUILD_COMPILER, SCH_ENV_HAVE_GPU,
    SCH_ENV_NVML, SCH_ENV_DEVICE_NAME, SCH_ENV_PCI_BUS_ID, SCH_ENV_DEVICE_ORDINAL, SCH_ENV_COMPUTE_CAPABILITY,
    SCH_ENV_SMS, SCH_ENV_L2_BYTES, SCH_ENV_SMEM_PER_BLOCK_BYTES, SCH_ENV_SMEM_PER_BLOCK_OPTIN_BYTES,
    SCH_ENV_SMEM_PER_SM_BYTES, SCH_ENV_REGS_PER_SM, SCH_ENV_SM_CLOCK_KHZ, SCH_ENV_MEM_CLOCK_KHZ,
    SCH_ENV_MEM_BUS_BITS, SCH_ENV_DEVICE_MEM_BYTES, SCH_ENV_DRIVER_VERSION, SCH_ENV_RUNTIME_VERSION,
    SCH_ENV_CUBLAS_VERSION, SCH_ENV_NVRTC_VERSION, SCH_ENV_PEAK_FP32_GFLOPS, SCH_ENV_PEAK_DRAM_GBS, SCH_ENV_ENERGY_COUNTER,

    SCH_SESSION_CREATED_UTC, SCH_SESSION_HOST, SCH_SESSION_ARGV, SCH_SESSION_SHARD, SCH_SESSION_RESUMED,
    SCH_SESSION_TILELAB_VERSION, SCH_SESSION_GIT_COMMIT, SCH_SESSION_GIT_DIRTY, SCH_SESSION_RERUN_OF,
    SCH_SESSION_WALL_S, SCH_SESSION_TIMED_S, SCH_SESSION_T_COMPILE_S, SCH_SESSION_T_LOAD_S, SCH_SESSION_T_INPUTS_S,
    SCH_SESSION_T_REFERENCE_S, SCH_SESSION_T_VERIFY_S, SCH_SESSION_T_WARMUP_S, SCH_SESSION_T_TIMED_S,
    SCH_SESSION_T_LOOP_S, SCH_SESSION_T_TELEMETRY_S, SCH_SESSION_T_COUNTERS_S, SCH_SESSION_T_TRIALS_S,
    SCH_SESSION_T_ENERGY_S,
    SCH_SESSION_T_WRITE_S, SCH_SESSION_T_START_S, SCH_SESSION_T_START_CUDA_S, SCH_SESSION_T_START_LIBS_S,
    SCH_SESSION_MERGED_FROM, SCH_SESSION_CONFIG_SHA256,

    SCH_CASE_CASE_ID, SCH_CASE_CANONICAL, SCH_CASE_OP, SCH_CASE_VARIANT, SCH_CASE_KIND, SCH_CASE_TARGET,
    SCH_CASE_PARAMS, SCH_CASE_SIZES, SCH_CASE_AXES, SCH_CASE_DIMS, SCH_CASE_DTYPE, SCH_CASE_LAYOUTS, SCH_CASE_SEED,
    SCH_CASE_SESSION, SCH_CASE_STATUS, SCH_CASE_REASON, SCH_CASE_REFERENCE, SCH_CASE_RATE_NAME, SCH_CASE_BASELINE, SCH_CASE_TOLERANCE,
    SCH_CASE_MAX_ABS_ERR, SCH_CASE_MAX_REL_ERR, SCH_CASE_FLOP, SCH_CASE_BYTES, SCH_CASE_REGS, SCH_CASE_SMEM_BYTES,
    SCH_CASE_SMEM_STATIC_BYTES, SCH_CASE_SMEM_DYNAMIC_BYTES, SCH_CASE_LOCAL_BYTES, SCH_CASE_WORKSPACE_BYTES,
    SCH_CASE_CUBIN_SHA256, SCH_CASE_NVRTC_OPTIONS, SCH_CASE_T_COMPILE_S, SCH_CASE_T_LOAD_S, SCH_CASE_T_INPUTS_S,
    SCH_CASE_T_REFERENCE_S, SCH_CASE_T_VERIFY_S, SCH_CASE_T_WARMUP_S, SCH_CASE_T_TIMED_S, SCH_CASE_T_LOOP_S,
    SCH_CASE_T_TELEMETRY_S, SCH_CASE_T_COUNTERS_S, SCH_CASE_T_TRIALS_S, SCH_CASE_T_ENERGY_S, SCH_CASE_COMPILE_CACHED,
    SCH_CASE_CUTLASS_VERSION, SCH_CASE_TENSOR_MAPS, SCH_CASE_DEVICE_ORDINAL, SCH_CASE_DISPATCH,
    SCH_CASE_DISPATCH_TRIALS, SCH_CASE_GRID, SCH_CASE_BLOCK, SCH_CASE_PROTOCOL, SCH_CASE_STOPPED, SCH_CASE_VERIFY,
    SCH_CASE_DATA, SCH_CASE_WARMUP_RUNS, SCH_CASE_THROTTLED, SCH_CASE_TIMED_S, SCH_CASE_ARG, SCH_CASE_VARIANT_ORIGIN,
    SCH_CASE_ENTRY, SCH_CASE_KERNELS, SCH_CASE_ENTRY2, SCH_CASE_ENTRY2_FIRST, SCH_CASE_SOURCES, SCH_CASE_SOURCES_SHA256,
    SCH_CASE_COUNTERS_STATUS, SCH_CASE_COUNTERS_REASON, SCH_CASE_COUNTERS_KERNELS, SCH_CASE_COUNTERS_PASSES,
    SCH_CASE_RETRIED, SCH_CASE_SANITIZE_TOOL, SCH_CASE_SANITIZE_ERRORS, SCH_CASE_SANITIZE_REPORT,
    SCH_CASE_ENERGY_STATUS, SCH_CASE_ENERGY_REASON, SCH_CASE_ENERGY_J, SCH_CASE_ENERGY_POWER_W, SCH_CASE_ENERGY_SPAN_S,
    SCH_CASE_ENERGY_RUNS, SCH_CASE_ENERGY_RESOLUTION_J, SCH_CASE_SEARCH_STEP, SCH_CASE_SEARCH_PROPOSER,
    SCH_CASE_SEARCH_OBJECTIVE, SCH_CASE_SEARCH_BEST,

    SCH_DATA_TIME_MS, SCH_DATA_SM_CLOCK_MHZ, SCH_DATA_TEMP_C, SCH_DATA_POWER_W, SCH_DATA_THROTTLE_REASONS,
    SCH_DATA_THROTTLED, SCH_DATA_COUNTERS,

    SCH_SUMMARY_CASE_ID, SCH_SUMMARY_OP, SCH_SUMMARY_VARIANT, SCH_SUMMARY_TARGET, SCH_SUMMARY_PARAMS,
    SCH_SUMMARY_SIZES, SCH_SUMMARY_LAYOUT, SCH_SUMMARY_STATUS, SCH_SUMMARY_MEDIAN_MS, SCH_SUMMARY_MEAN_MS,
    SCH_SUMMARY_STDEV_MS, SCH_SUMMARY_MIN_MS, SCH_SUMMARY_MAX_MS, SCH_SUMMARY_P10_MS, SCH_SUMMARY_P90_MS,
    SCH_SUMMARY_GFLOPS, SCH_SUMMARY_GBS, SCH_SUMMARY_REPS, SCH_SUMMARY_THROTTLED,

    SCH_SOURCES_PATHS, SCH_SOURCES_BYTES,
    SCH_N
} sch_id;

extern const sch_field sch_fields[SCH_N];
extern const char *const sch_group_names[SCH_NGROUPS]; /* "root", "env", ... (the Python reader's names) */
extern const char *const sch_type_names[SCH_NTYPES];   /* "str", "int64", ... (the doc's) */
/* A case's status: what the runner writes, and all that readers take. */
extern const char *const sch_statuses[];
#define SCH_NSTATUSES 5
/* Whether a case of that status failed (verify_failed, error, timeout): the exit code's 1. */
int sch_status_failed(const char *status);

#endif
