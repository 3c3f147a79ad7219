/* cache: compiled kernels on disk, by the hash of what was compiled (jit.c makes the key).
 *
 * A cubin from the cache is run as if this runner had compiled it, so the cache is trusted only as
 * ssh trusts a key folder: the folder must belong to this user (or root) and be writable by nobody
 * else, and so must the folders above it (a sticky one like /tmp excepted); otherwise the runner says
 * why in one line and compiles without it. Each entry carries its key, its length and the SHA-256 of
 * its bytes; an entry that is truncated, swapped for another key's or edited is a miss (compiled
 * again and replaced), never run. */
#ifndef TILELAB_CACHE_H
#define TILELAB_CACHE_H

#include <stddef.h>
#include <stdio.h>

#include "runner/util/util.h"

/* The folder: $TILELAB_CACHE_DIR, else $XDG_CACHE_HOME/tilelab/cubin, else ~/.cache/tilelab/cubin,
 * created (0700) when missing. NULL with why set when it cannot be named, made, or trusted (why is
 * "" when no folder can be named at all). Caller frees. */
char *cache_dir(char *why, size_t whylen);
/* The folder's name without any check (for `runner cache` to report on it). */
char *cache_dir_name(void);

/* 0 with the cubin of key (malloc'd) when the entry is whole and its own; -1 otherwise. */
int cache_get(const char *dir, const char *key, void **cubin, size_t *len);
/* Writes the entry (atomically, 0600); failing to is not an error: the cache is an optimisation.
 * 0 when the entry was written, -1 when not (no folder, or the write failed). */
int cache_put(const char *dir, const char *key, const void *cubin, size_t len);

/* Checks every entry of dir; prints each damaged one to out (unless NULL). The number of entries and of damaged ones. */
int cache_verify(const char *dir, FILE *out, int *nentries, int *nbad, tl_err *e);
/* Removes every entry (and left-over temporary files) of dir; *removed counts them. */
int cache_clear(const char *dir, int *removed, tl_err *e);

#endif
