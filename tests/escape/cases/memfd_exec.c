/* memfd_create, copy /bin/true into it, execveat(fd, "", AT_EMPTY_PATH): a program that has
 * no path at all. Exit 0 = the memfd program ran. */
#include "../escape.h"
#include <sys/mman.h>
int main(void) {
    int src = open("/bin/true", O_RDONLY);
    if (src < 0)
        FAILED("open /bin/true: %s", strerror(errno));
    int m = memfd_create("payload", MFD_CLOEXEC);
    if (m < 0)
        FAILED("memfd_create: %s", strerror(errno));
    char buf[65536];
    ssize_t n;
    while ((n = read(src, buf, sizeof buf)) > 0)
        if (write(m, buf, n) != n)
            FAILED("write memfd");
    close(src);
    char *argv[] = {"payload", NULL};
    syscall(SYS_execveat, m, "", argv, environ, AT_EMPTY_PATH);
    FAILED("execveat: %s", strerror(errno));
}
