/* pidfd_open(ward) + pidfd_send_signal(SIGKILL): the supervisor named by a descriptor. */
#include "../escape.h"
int main(void) {
    pid_t p = getppid_at_start();
    open_result_early();
    int pfd = syscall(SYS_pidfd_open, p, 0);
    if (pfd < 0)
        FAILED("pidfd_open: %s", strerror(errno));
    if (syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) != 0)
        FAILED("pidfd_send_signal: %s", strerror(errno));
    for (int i = 0; i < 200 && !process_dead(p); i++)
        msleep(10);
    if (process_dead(p))
        WON("killed the supervisor through a pidfd");
    FAILED("returned 0 but the supervisor lives");
}
