/* rt_sigqueueinfo(SIGWINCH) to a process outside the tree. */
#include "../escape.h"
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGWINCH;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    if (syscall(SYS_rt_sigqueueinfo, v, SIGWINCH, &si) != 0)
        FAILED("rt_sigqueueinfo: %s", strerror(errno));
    if (wait_for_file(victim_flag(SIGWINCH), 2000))
        WON("queued a signal to a process outside the tree");
    FAILED("returned 0 but the victim got nothing");
}
