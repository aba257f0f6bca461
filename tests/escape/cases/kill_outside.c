/* kill(SIGUSR1) to a process outside the tree (it records the signal in a flag file). */
#include "../escape.h"
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    if (kill(v, SIGUSR1) != 0)
        FAILED("kill: %s", strerror(errno));
    if (wait_for_file(victim_flag(SIGUSR1), 2000))
        WON("signalled a process outside the tree");
    FAILED("kill returned 0 but the victim got nothing");
}
