/* kill(SIGKILL) of the supervisor: ward is the parent of the tree's root process. */
#include "../escape.h"
int main(void) {
    pid_t p = getppid_at_start();
    open_result_early();
    if (kill(p, SIGKILL) != 0)
        FAILED("kill(%d, SIGKILL): %s", (int)p, strerror(errno));
    for (int i = 0; i < 200 && !process_dead(p); i++)
        msleep(10);
    if (process_dead(p))
        WON("killed the supervisor (%d)", (int)p);
    FAILED("kill returned 0 but the supervisor lives");
}
