/* inguard: a problem's inputs kept as they were made. Inputs are made once per problem and shared by its
 * cases, so a kernel that writes to one (through a `const float *` cast away, or a pointer it was never meant
 * to write) would pass its own verified run and then feed its changes to every case after it. The guard takes
 * each input's state when the problem is made, tells after a case's runs whether one changed and where, and
 * puts it back.
 *
 * The state is a pristine copy beside the input (on the device for a GPU problem) where memory allows, which
 * also names the first changed element and restores by a copy; else a 64-bit fingerprint, and a changed input
 * is remade with its problem (exec drops the problem). */
#ifndef TILELAB_INGUARD_H
#define TILELAB_INGUARD_H

#include <stddef.h>
#include <stdint.h>

#include "runner/ops/registry.h"

typedef struct {
    int n;
    reg_input in[REG_MAX_INPUTS];
    void *copy[REG_MAX_INPUTS]; /* the input as made, or NULL: fingerprint only */
    uint64_t hash[REG_MAX_INPUTS];
    int on_device;
    void *stream;   /* cudaStream_t the checks go to */
    void *scratch;  /* 8 bytes of device memory */
} inguard;

/* A guard over p's inputs as they are now (op->inputs; none when the op lists none). on_device: they are device
 * memory, checked on stream. */
int inguard_take(inguard *g, const reg_op *op, reg_problem *p, int on_device, void *stream, tl_err *e);
/* The same, copying the inputs only when they take at most copy_limit bytes together (else fingerprints):
 * inguard_take's limit is a share of the device's free memory, none on the host. */
int inguard_take_within(inguard *g, const reg_op *op, reg_problem *p, int on_device, void *stream, size_t copy_limit,
                        tl_err *e);
/* After runs: 1 when an input changed (*which its index in g->in, *elem the first changed element, or -1 when
 * only a fingerprint was kept), 0 when none did, -1 with e on an error. */
int inguard_check(inguard *g, int *which, long long *elem, tl_err *e);
/* Puts input i back as it was made: 0, or 1 when no copy was kept (the problem must be made again), or -1. */
int inguard_restore(inguard *g, int i, tl_err *e);
/* "wrote to its input x (first changed element i)": what a case that changed input i is told. */
char *inguard_reason(const inguard *g, int which, long long elem);
void inguard_free(inguard *g);

#endif
