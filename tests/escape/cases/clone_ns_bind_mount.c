/* The same bind-mount remap from a child made with clone(CLONE_NEWUSER|CLONE_NEWNS). */
#include "../escape.h"
#include <sched.h>
#include <sys/mount.h>
static char stack[1 << 16];
static int child(void *arg) {
    (void)arg;
    char m[64];
    int fd = open("/proc/self/setgroups", O_WRONLY);
    if (fd >= 0) { (void)!write(fd, "deny", 4); close(fd); }
    fd = open("/proc/self/uid_map", O_WRONLY);
    snprintf(m, sizeof m, "0 0 1");
    if (fd >= 0) { (void)!write(fd, m, strlen(m)); close(fd); }
    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    char src[4096];
    snprintf(src, sizeof src, "%s/.ssh", home());
    if (mount(src, "mnt2", NULL, MS_BIND | MS_REC, NULL) != 0) {
        say("bind mount: %s", strerror(errno));
        return 1;
    }
    fd = open("mnt2/id_rsa", O_RDONLY);
    if (fd < 0) {
        say("open mnt2/id_rsa: %s", strerror(errno));
        return 1;
    }
    return fd_has_marker(fd) ? 0 : 1;
}
int main(void) {
    mkdir("mnt2", 0755);
    if (geteuid() != 0)
        NA("the uid map written here assumes root");
    pid_t c = clone(child, stack + sizeof stack, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, NULL);
    if (c < 0) {
        if (errno == EINVAL || errno == ENOSPC)
            NA("clone(NEWUSER|NEWNS): %s natively", strerror(errno));
        FAILED("clone: %s", strerror(errno));
    }
    int st;
    waitpid(c, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        WON("read the secret through a bind mount made in new namespaces (clone)");
    FAILED("the child did not get the secret");
}
