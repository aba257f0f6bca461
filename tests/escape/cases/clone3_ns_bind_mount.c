/* The bind-mount remap from a child made with clone3 (flags in memory, out of the BPF
 * filter's reach). */
#include "../escape.h"
#include <linux/sched.h>
#include <sched.h>
#include <sys/mount.h>
int main(void) {
    mkdir("mnt3", 0755);
    if (geteuid() != 0)
        NA("the uid map written here assumes root");
    struct clone_args ca;
    memset(&ca, 0, sizeof ca);
    ca.flags = CLONE_NEWUSER | CLONE_NEWNS;
    ca.exit_signal = SIGCHLD;
    long c = syscall(SYS_clone3, &ca, sizeof ca);
    if (c < 0) {
        if (errno == ENOSYS && getenv("ESCAPE_NATIVE"))
            NA("clone3: ENOSYS natively");
        FAILED("clone3: %s", strerror(errno));
    }
    if (c == 0) {
        int fd = open("/proc/self/uid_map", O_WRONLY);
        if (fd >= 0) { (void)!write(fd, "0 0 1", 5); close(fd); }
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
        char src[4096];
        snprintf(src, sizeof src, "%s/.ssh", home());
        if (mount(src, "mnt3", NULL, MS_BIND | MS_REC, NULL) != 0)
            _exit(1);
        fd = open("mnt3/id_rsa", O_RDONLY);
        _exit(fd >= 0 && fd_has_marker(fd) ? 0 : 1);
    }
    int st;
    waitpid(c, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        WON("read the secret through a bind mount made in new namespaces (clone3)");
    FAILED("the child did not get the secret");
}
