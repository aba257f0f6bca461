/* No kill call: F_SETOWN(supervisor) + F_SETSIG(SIGKILL) + O_ASYNC on a pipe, then a write —
 * the kernel itself delivers SIGKILL to the owner. fcntl is not a trapped call. */
#include "../escape.h"
int main(void) {
    pid_t p = getppid_at_start();
    open_result_early();
    int fds[2];
    if (pipe(fds) != 0)
        FAILED("pipe");
    if (fcntl(fds[0], F_SETOWN, p) != 0)
        FAILED("F_SETOWN: %s", strerror(errno));
    if (fcntl(fds[0], F_SETSIG, SIGKILL) != 0)
        FAILED("F_SETSIG: %s", strerror(errno));
    if (fcntl(fds[0], F_SETFL, O_ASYNC | O_NONBLOCK) != 0)
        FAILED("O_ASYNC: %s", strerror(errno));
    if (write(fds[1], "x", 1) != 1)
        FAILED("write");
    for (int i = 0; i < 200 && !process_dead(p); i++)
        msleep(10);
    if (process_dead(p))
        WON("the kernel SIGKILLed the supervisor for us (SIGIO ownership)");
    FAILED("the supervisor lives");
}
