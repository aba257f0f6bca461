/* A child of the tree chdirs to $HOME; its parent opens /proc/<child>/cwd/.ssh/id_rsa. */
#include "../escape.h"
int main(void) {
    int pfd[2];
    if (pipe(pfd) != 0)
        FAILED("pipe");
    pid_t c = fork();
    if (c == 0) {
        if (chdir(home()) != 0)
            _exit(1);
        if (write(pfd[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char b;
    if (read(pfd[0], &b, 1) != 1)
        FAILED("child did not start");
    char p[128];
    snprintf(p, sizeof p, "/proc/%d/cwd/.ssh/id_rsa", (int)c);
    int fd = open(p, O_RDONLY);
    int e = errno;
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    if (fd < 0)
        FAILED("open %s: %s", p, strerror(e));
    if (fd_has_marker(fd))
        WON("read the secret through a child's cwd magic link");
    FAILED("no secret");
}
