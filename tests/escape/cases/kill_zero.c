/* kill(0, SIGKILL): the caller's own process group, which it shares with the supervisor. A
 * witness child in a group of its own reports whether the supervisor died. */
#include "../escape.h"
int main(void) {
    pid_t p = getppid_at_start();
    int pfd[2];
    if (pipe(pfd) != 0)
        FAILED("pipe");
    pid_t w = fork();
    if (w == 0) {
        setpgid(0, 0);
        open_result_early();
        close(pfd[1]);
        char b;
        ssize_t n = read(pfd[0], &b, 1); /* 'F': the kill failed; EOF: the caller died */
        if (n == 1 && b == 'F')
            done(ATTACK_FAILED);
        for (int i = 0; i < 200 && !process_dead(p); i++)
            msleep(10);
        if (process_dead(p))
            WON("kill(0, SIGKILL) took the supervisor down");
        FAILED("the supervisor survived kill(0, SIGKILL)");
    }
    close(pfd[0]);
    msleep(50); /* the witness is in its own group */
    if (kill(0, SIGKILL) != 0) {
        say("kill(0, SIGKILL): %s", strerror(errno));
        if (write(pfd[1], "F", 1) != 1) {
        }
        int st;
        waitpid(w, &st, 0);
        _exit(ATTACK_FAILED);
    }
    pause();
    return 1;
}
