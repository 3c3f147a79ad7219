/* sandbox: a process that may read only some folders (Linux Landlock). The compile helpers take it before
 * their first job, so that NVRTC cannot open a file the runner did not hand it, whatever a kernel source
 * says (an absolute #include, one the include scanner missed): only the toolkit's and CUTLASS's headers. */
#ifndef TILELAB_SANDBOX_H
#define TILELAB_SANDBOX_H

#include <stddef.h>

/* From now on this process (and what it starts) reads, lists and runs files under dirs[0..n) only, and
 * writes none anywhere (descriptors already open are untouched). 0; or -1 with why when the kernel cannot
 * (no Landlock: older than Linux 5.13, or turned off), and nothing changed. */
int sandbox_restrict(const char *const *dirs, int n, char *why, size_t len);

#endif
