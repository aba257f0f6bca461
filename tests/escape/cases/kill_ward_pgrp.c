/* Leave the supervisor's process group, then kill(-pgrp, SIGKILL) it. */
#include "../escape.h"
int main(void) {
    pid_t p = getppid_at_start();
    pid_t pg = getpgid(0);
    open_result_early();
    if (setpgid(0, 0) != 0)
        FAILED("setpgid: %s", strerror(errno));
    if (kill(-pg, SIGKILL) != 0)
        FAILED("kill(-%d, SIGKILL): %s", (int)pg, strerror(errno));
    for (int i = 0; i < 200 && !process_dead(p); i++)
        msleep(10);
    if (process_dead(p))
        WON("killed the supervisor's process group");
    FAILED("kill returned 0 but the supervisor lives");
}
