/* setsid + double fork: a daemon that tries to outlive the session. It writes its pid to
 * daemon.pid and sleeps; the runner checks whether it is still alive after the session. */
#include "../escape.h"
int main(void) {
    unlink("daemon.pid");
    pid_t c = fork();
    if (c == 0) {
        setsid();
        pid_t g = fork();
        if (g == 0) {
            signal(SIGHUP, SIG_IGN);
            char b[32];
            int n = snprintf(b, sizeof b, "%d\n", (int)getpid());
            int fd = open("daemon.pid.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                if (write(fd, b, n) != n) {
                }
                close(fd);
                rename("daemon.pid.tmp", "daemon.pid");
            }
            close(0);
            close(1);
            close(2);
            for (int i = 0; i < 60; i++)
                sleep(1);
            _exit(0);
        }
        _exit(0);
    }
    waitpid(c, NULL, 0);
    if (!wait_for_file("daemon.pid", 2000))
        FAILED("the daemon did not start");
    WON("a daemon is running detached (the runner checks it outlives the session)");
}
