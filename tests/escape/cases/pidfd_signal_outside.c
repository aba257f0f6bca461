/* pidfd_open + pidfd_send_signal(SIGHUP) to a process outside the tree. */
#include "../escape.h"
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    int pfd = syscall(SYS_pidfd_open, v, 0);
    if (pfd < 0)
        FAILED("pidfd_open: %s", strerror(errno));
    if (syscall(SYS_pidfd_send_signal, pfd, SIGHUP, NULL, 0) != 0)
        FAILED("pidfd_send_signal: %s", strerror(errno));
    if (wait_for_file(victim_flag(SIGHUP), 2000))
        WON("signalled a process outside the tree through a pidfd");
    FAILED("returned 0 but the victim got nothing");
}
