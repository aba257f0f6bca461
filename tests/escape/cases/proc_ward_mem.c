/* Read the supervisor's memory through /proc/<ward>/mem (address from /proc/<ward>/maps).
 * Reading our own maps and memory by mistake does not count. */
#include "../escape.h"
static ssize_t slurp(const char *path, char *buf, size_t n) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    size_t got = 0;
    ssize_t k;
    while (got < n && (k = read(fd, buf + got, n - got)) > 0)
        got += k;
    close(fd);
    return got;
}
int main(void) {
    pid_t p = getppid();
    char path[64];
    unsigned long addr = 0;
    static char theirs[65536], mine[65536];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)p);
    ssize_t n1 = slurp(path, theirs, sizeof theirs - 1);
    ssize_t n2 = slurp("/proc/self/maps", mine, sizeof mine - 1);
    if (n1 < 0)
        FAILED("open %s: %s", path, strerror(errno));
    if (n1 == n2 && memcmp(theirs, mine, n1) == 0)
        FAILED("%s gave our OWN maps (the open was redirected to ourselves)", path);
    theirs[n1] = 0;
    {
        unsigned long a, b;
        char perms[8];
        for (char *line = theirs; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
            if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3 && perms[0] == 'r') {
                addr = a;
                break;
            }
    }
    snprintf(path, sizeof path, "/proc/%d/mem", (int)p);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        FAILED("open %s: %s", path, strerror(errno));
    char buf[64];
    ssize_t n = pread(fd, buf, sizeof buf, addr);
    if (n > 0)
        WON("read %zd bytes of the supervisor's memory", n);
    FAILED("pread: %s", strerror(errno));
}
