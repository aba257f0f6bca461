/* PTRACE_ATTACH to the supervisor (then detach). */
#include "../escape.h"
#include <sys/ptrace.h>
int main(void) {
    pid_t p = getppid();
    if (ptrace(PTRACE_ATTACH, p, 0, 0) != 0)
        FAILED("PTRACE_ATTACH %d: %s", (int)p, strerror(errno));
    waitpid(p, NULL, __WALL);
    ptrace(PTRACE_DETACH, p, 0, 0);
    WON("attached to the supervisor with ptrace");
}
