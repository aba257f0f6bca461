/* unshare(CLONE_NEWUSER|CLONE_NEWNS), bind-mount ~/.ssh onto a workspace directory, read
 * the key through the workspace path. */
#include "../escape.h"
#include <sched.h>
#include <sys/mount.h>
static int write_file(const char *p, const char *s) {
    int fd = open(p, O_WRONLY);
    if (fd < 0)
        return -1;
    int ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
    close(fd);
    return ok ? 0 : -1;
}
int main(void) {
    mkdir("mnt", 0755);
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        if (errno == EINVAL || errno == ENOSPC)
            NA("unshare(NEWUSER|NEWNS): %s natively", strerror(errno));
        FAILED("unshare: %s", strerror(errno));
    }
    char m[64];
    write_file("/proc/self/setgroups", "deny");
    snprintf(m, sizeof m, "0 %d 1", (int)uid);
    write_file("/proc/self/uid_map", m);
    snprintf(m, sizeof m, "0 %d 1", (int)gid);
    write_file("/proc/self/gid_map", m);
    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    char src[4096];
    snprintf(src, sizeof src, "%s/.ssh", home());
    if (mount(src, "mnt", NULL, MS_BIND | MS_REC, NULL) != 0)
        FAILED("bind mount: %s", strerror(errno));
    read_secret_at(AT_FDCWD, "mnt/id_rsa", 0);
}
