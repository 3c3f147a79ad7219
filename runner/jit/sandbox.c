#include "runner/jit/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Every access of the first Landlock ABI: each is denied unless a rule allows it. */
#define ALL_FS                                                                                                       \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |                    \
     LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |                 \
     LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |                      \
     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |                   \
     LANDLOCK_ACCESS_FS_MAKE_SYM)
#define READ_FS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

int sandbox_restrict(const char *const *dirs, int n, char *why, size_t len)
{
    struct landlock_ruleset_attr attr = {.handled_access_fs = ALL_FS};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (rs < 0) {
        snprintf(why, len, "Landlock is not available (%s)", strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int fd = open(dirs[i], O_PATH | O_CLOEXEC);
        if (fd < 0) continue; /* a folder that is not there gives nothing to read */
        struct stat st;
        int is_dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode); /* a file's rule takes file rights only */
        struct landlock_path_beneath_attr pb = {
            .allowed_access = is_dir ? READ_FS : LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE,
            .parent_fd = fd};
        long r = syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
        close(fd);
        if (r < 0) {
            snprintf(why, len, "Landlock refused a rule for %s (%s)", dirs[i], strerror(errno));
            close(rs);
            return -1;
        }
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
        snprintf(why, len, "Landlock could not restrict the process (%s)", strerror(errno));
        close(rs);
        return -1;
    }
    close(rs);
    return 0;
}
