/* Read the supervisor's environment through /proc/<ward>/environ. The case first scrubs the
 * tag from its OWN environment block, so reading itself by mistake does not count. */
#include "../escape.h"
extern char **environ;
int main(void) {
    pid_t p = getppid();
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "ESCAPE_PARENT_TAG=", 18) == 0)
            memset(*e, 'x', strlen(*e));
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)p);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        FAILED("open %s: %s", path, strerror(errno));
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0 && memmem(buf, n, "ESCAPE_PARENT_TAG=", 18))
        WON("read the supervisor's environment");
    FAILED("read gave nothing useful");
}
