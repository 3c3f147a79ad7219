/* The replay driver of the fuzz targets: built plainly (gcc, no libFuzzer), a target is a program
 * that feeds each argument (a file, or a folder of files) through LLVMFuzzerTestOneInput once; the
 * regression tests replay the corpora that way. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern const char fuzz_target_name[];

#ifndef TL_LIBFUZZER
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot read %s\n", fuzz_target_name, path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) abort();
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            for (struct dirent *de; d && (de = readdir(d));) {
                if (de->d_name[0] == '.') continue;
                char path[4096];
                struct stat sub;
                snprintf(path, sizeof path, "%s/%s", argv[i], de->d_name);
                if (stat(path, &sub) == 0 && S_ISDIR(sub.st_mode)) continue; /* named on its own */
                bad |= replay_file(path) != 0;
                n++;
            }
            if (d) closedir(d);
        } else {
            bad |= replay_file(argv[i]) != 0;
            n++;
        }
    }
    printf("%s: replayed %d inputs\n", fuzz_target_name, n);
    return bad || n == 0;
}
#endif
