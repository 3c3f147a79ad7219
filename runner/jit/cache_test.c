/* The kernel cache is untrusted input: a folder others can write (or its parents) is refused, an
 * entry that is truncated, edited, swapped for another key's, or writable by others is a miss and is
 * never returned; the compile path then compiles again and replaces it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/jit/cache.h"
#include "runner/jit/jit.h"
#include "runner/ops/registry_lookup.h"
#include "runner/testing/testutil.h"

static char root[512];

static char *entry_path(const char *dir, const char *key)
{
    return tl_xasprintf("%s/%s.cubin", dir, key);
}

static const char *const KEY_A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char *const KEY_B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static int get_is(const char *dir, const char *key, const char *want)
{
    void *got = NULL;
    size_t n = 0;
    int rc = cache_get(dir, key, &got, &n);
    int ok = want ? rc == 0 && n == strlen(want) && !memcmp(got, want, n) : rc != 0;
    free(got);
    return ok;
}

/* Whole entries come back; damaged or foreign ones never do. */
static int check_entries(void)
{
    char *dir = tl_xasprintf("%s/entries", root), *a = entry_path(dir, KEY_A), *b = entry_path(dir, KEY_B), cmd[2048];
    mkdir(dir, 0700);
    cache_put(dir, KEY_A, "cubin of A", 10);
    cache_put(dir, KEY_B, "cubin of B!", 11);
    CHECK(get_is(dir, KEY_A, "cubin of A") && get_is(dir, KEY_B, "cubin of B!"), "round trip");
    struct stat st;
    CHECK(stat(a, &st) == 0 && (st.st_mode & 0777) == 0600, "entries are 0600: %o", st.st_mode & 0777);
    /* Swapped: A's entry under B's name. */
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", a, b);
    CHECK(system(cmd) == 0, "%s", cmd);
    CHECK(get_is(dir, KEY_B, NULL), "another key's entry was returned");
    /* Truncated, by one byte and to the header. */
    cache_put(dir, KEY_B, "cubin of B!", 11);
    CHECK(truncate(b, (off_t)(st.st_size - 1)) == 0 && get_is(dir, KEY_B, NULL), "a truncated entry was returned");
    CHECK(truncate(b, 20) == 0 && get_is(dir, KEY_B, NULL), "a header alone was returned");
    /* Edited: one byte of the cubin changed. */
    cache_put(dir, KEY_B, "cubin of B!", 11);
    FILE *f = fopen(b, "r+b");
    fseek(f, -1, SEEK_END);
    fputc('?', f);
    fclose(f);
    CHECK(get_is(dir, KEY_B, NULL), "an edited entry was returned");
    /* Writable by others: not trusted, whatever it holds. */
    cache_put(dir, KEY_B, "cubin of B!", 11);
    chmod(b, 0666);
    CHECK(get_is(dir, KEY_B, NULL), "an entry others can write was returned");
    chmod(b, 0600);
    CHECK(get_is(dir, KEY_B, "cubin of B!"), "a whole entry after the checks");
    /* A FIFO in an entry's place: a miss, not an open that waits for a writer for ever. */
    unlink(b);
    CHECK(mkfifo(b, 0600) == 0 && get_is(dir, KEY_B, NULL), "a FIFO was read as an entry");
    unlink(b);
    cache_put(dir, KEY_B, "cubin of B!", 11);
    /* verify sees the damage, clear removes everything of the cache's own and nothing else. */
    char *notes = tl_xasprintf("%s/notes.txt", dir);
    FILE *other = fopen(notes, "w");
    if (other) fclose(other);
    CHECK(truncate(a, 30) == 0, "truncate");
    int n, nbad, removed;
    tl_err e;
    FILE *out = fopen("/dev/null", "w");
    CHECK(cache_verify(dir, out, &n, &nbad, &e) == 0 && n == 2 && nbad == 1, "verify: %d entries, %d bad", n, nbad);
    fclose(out);
    CHECK(cache_clear(dir, &removed, &e) == 0 && removed == 2, "clear removed %d", removed);
    CHECK(stat(notes, &st) == 0, "clear removed a file that is not the cache's");
    free(notes), free(dir), free(a), free(b);
    return 1;
}

/* The folder: created private; refused when others can write it or a folder above it, or it is
 * another user's. */
static int check_trust(void)
{
    char why[512], *dir;
    char *base = tl_xasprintf("%s/trust", root), *leaf = tl_xasprintf("%s/trust/a/b/cubin", root);
    mkdir(base, 0700);
    setenv("TILELAB_CACHE_DIR", leaf, 1);
    dir = cache_dir(why, sizeof why);
    struct stat st;
    CHECK(dir && stat(leaf, &st) == 0 && (st.st_mode & 0777) == 0700, "created private: %s", why);
    free(dir);
    chmod(leaf, 0770);
    CHECK(!(dir = cache_dir(why, sizeof why)) && strstr(why, "writable by other users (mode 770)"), "group-writable: %s", why);
    free(dir);
    chmod(leaf, 0700);
    char *mid = tl_xasprintf("%s/trust/a", root);
    chmod(mid, 0777);
    CHECK(!(dir = cache_dir(why, sizeof why)) && strstr(why, "above it, is writable by other users"), "parent: %s", why);
    free(dir);
    chmod(mid, 01777); /* sticky, as /tmp */
    CHECK((dir = cache_dir(why, sizeof why)) != NULL, "a sticky parent is fine: %s", why);
    free(dir);
    chmod(mid, 0700);
    if (geteuid() == 0 && chown(leaf, 65534, 65534) == 0) { /* root can give the folder away (not in every sandbox) */
        CHECK(!(dir = cache_dir(why, sizeof why)) && strstr(why, "belongs to another user (uid 65534)"), "owner: %s", why);
        free(dir);
        CHECK(chown(leaf, 0, 0) == 0, "chown back");
    }
    char *file = tl_xasprintf("%s/trust/file", root);
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
    setenv("TILELAB_CACHE_DIR", file, 1);
    CHECK(!(dir = cache_dir(why, sizeof why)) && strstr(why, "is not a folder"), "a file: %s", why);
    free(dir);
    unsetenv("TILELAB_CACHE_DIR");
    free(base), free(leaf), free(mid), free(file);
    return 1;
}

/* Through the compiler: a swapped entry is compiled again (not run) and replaced. */
static int check_compile_path(void)
{
    char *dir = tl_xasprintf("%s/jit", root), cmd[2048];
    mkdir(dir, 0700);
    const reg_op *op = reg_find_op("sgemm");
    const reg_variant *v = reg_find_variant(op, "smem_tile");
    source_store st;
    source_set set;
    tl_err e;
    source_store_init(&st, "registry.yaml");
    CHECK(source_resolve(&st, SOURCE_TILELAB, v->source, &set, &e) == 0, "%s", e.msg);
    long p32[REG_MAX_PARAMS] = {32}, p16[REG_MAX_PARAMS] = {16};
    reg_spec s = {.dims = {64, 64, 64}};
    jit_request rq = {.op = op, .store = &st, .src = &set, .entry = v->entry, .params = v->params,
                      .nparams = v->nparams, .values = p32, .spec = &s, .arch = 90};
    jit_cubin a, b, again;
    CHECK(jit_compile(&rq, dir, NULL, &a, &e) == 0, "%s", e.msg);
    rq.values = p16;
    CHECK(jit_compile(&rq, dir, NULL, &b, &e) == 0, "%s", e.msg);
    CHECK(strcmp(a.cubin_sha256, b.cubin_sha256), "two params, one cubin?");
    /* Every entry of the folder becomes BLOCKSIZE=32's: BLOCKSIZE=16 must not get it. */
    snprintf(cmd, sizeof cmd, "cd '%s' && a=$(ls -tr | head -n 1) && for f in *.cubin; do [ \"$f\" = \"$a\" ] || "
                              "cp \"$a\" \"$f\"; done", dir);
    CHECK(system(cmd) == 0, "%s", cmd);
    CHECK(jit_compile(&rq, dir, NULL, &again, &e) == 0, "%s", e.msg);
    CHECK(!again.cached && !strcmp(again.cubin_sha256, b.cubin_sha256), "swapped entry: cached %d, sha %.12s vs %.12s",
          again.cached, again.cubin_sha256, b.cubin_sha256);
    jit_cubin_free(&again);
    CHECK(jit_compile(&rq, dir, NULL, &again, &e) == 0 && again.cached && !strcmp(again.cubin_sha256, b.cubin_sha256),
          "the replaced entry is used");
    jit_cubin_free(&a), jit_cubin_free(&b), jit_cubin_free(&again);
    source_set_free(&set);
    source_store_free(&st);
    free(dir);
    return 1;
}

int main(void)
{
    const char *t = getenv("TEST_TMPDIR");
    snprintf(root, sizeof root, "%s/cache-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(root)) return 1;
    chmod(root, 0700);
    int total = check_entries() + check_trust() + check_compile_path();
    return TEST_REPORT(total);
}
