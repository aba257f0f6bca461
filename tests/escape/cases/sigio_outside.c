/* No kill call at all: F_SETOWN(victim) + F_SETSIG(SIGURG) + O_ASYNC on a pipe, then write to
 * the pipe — the KERNEL sends the signal to the owner. fcntl is not a trapped call. */
#include "../escape.h"
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    int p[2];
    if (pipe(p) != 0)
        FAILED("pipe");
    if (fcntl(p[0], F_SETOWN, v) != 0)
        FAILED("F_SETOWN: %s", strerror(errno));
    if (fcntl(p[0], F_SETSIG, SIGURG) != 0)
        FAILED("F_SETSIG: %s", strerror(errno));
    if (fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK) != 0)
        FAILED("O_ASYNC: %s", strerror(errno));
    if (write(p[1], "x", 1) != 1)
        FAILED("write");
    if (wait_for_file(victim_flag(SIGURG), 2000))
        WON("made the kernel signal a process outside the tree (SIGIO ownership)");
    FAILED("the victim got nothing");
}
