/* Every op the runner knows: add a line here when kernels/<op>/<op>.c is added. */
#include "runner/ops/registry.h"

extern const reg_op sgemm_op, reduce_op, copy_op, transpose_op;

const reg_op *const reg_ops[] = {&sgemm_op, &reduce_op, &copy_op, &transpose_op};
const int reg_nops = sizeof reg_ops / sizeof *reg_ops;
