/* tgkill(SIGUSR2) to a process outside the tree. */
#include "../escape.h"
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    if (syscall(SYS_tgkill, v, v, SIGUSR2) != 0)
        FAILED("tgkill: %s", strerror(errno));
    if (wait_for_file(victim_flag(SIGUSR2), 2000))
        WON("signalled a thread outside the tree");
    FAILED("tgkill returned 0 but the victim got nothing");
}
