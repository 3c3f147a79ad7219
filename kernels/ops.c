/* Every op the runner knows, a row each: an op is its folder, kernels/<op>/ (kernels/BUILD takes it), defining
 * `const reg_op <op>_op`, and its row here. */
#include "runner/ops/registry.h"

#define OPS(X) \
    X(sgemm)   \
    X(reduce)  \
    X(copy)    \
    X(transpose)

#define OP_DECLARE(name) extern const reg_op name##_op;
OPS(OP_DECLARE)
#define OP_ROW(name) &name##_op,
const reg_op *const reg_ops[] = {OPS(OP_ROW)};
const int reg_nops = sizeof reg_ops / sizeof *reg_ops;
