/* kill(0, SIGALRM): not SIGKILL or SIGSTOP, but its default action still terminates a process
 * that neither handles nor blocks it. The case ignores SIGALRM itself and aims at the
 * supervisor through the process group they share. */
#include "../escape.h"
int main(void) {
    pid_t p = getppid_at_start();
    open_result_early();
    signal(SIGALRM, SIG_IGN);
    if (kill(0, SIGALRM) != 0)
        FAILED("kill(0, SIGALRM): %s", strerror(errno));
    for (int i = 0; i < 200 && !process_dead(p); i++)
        msleep(10);
    if (process_dead(p))
        WON("kill(0, SIGALRM) took the supervisor down");
    FAILED("the supervisor survived kill(0, SIGALRM)");
}
