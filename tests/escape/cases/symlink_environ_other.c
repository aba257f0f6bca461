/* A workspace symlink to /proc/<pid>/environ of a process outside the tree, read through
 * the link. */
#include "../escape.h"
int main(void) {
    char t[128];
    snprintf(t, sizeof t, "/proc/%ld/environ", env_long("ESCAPE_VICTIM_PID"));
    unlink("env-link");
    if (symlink(t, "env-link") != 0)
        FAILED("symlink: %s", strerror(errno));
    int fd = open("env-link", O_RDONLY);
    int e = errno;
    unlink("env-link");
    if (fd < 0)
        FAILED("open env-link: %s", strerror(e));
    if (fd_has_marker(fd))
        WON("read another process's environment through a symlink");
    FAILED("no secret");
}
