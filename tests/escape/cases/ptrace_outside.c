/* PTRACE_ATTACH to a process outside the tree and PEEKDATA its copy of the secret. */
#include "../escape.h"
#include <sys/ptrace.h>
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    unsigned long addr = strtoul(env_or("ESCAPE_VICTIM_ADDR", "0"), NULL, 16);
    if (ptrace(PTRACE_ATTACH, v, 0, 0) != 0)
        FAILED("PTRACE_ATTACH %d: %s", (int)v, strerror(errno));
    waitpid(v, NULL, __WALL);
    char buf[256];
    size_t got = 0;
    for (; got + sizeof(long) <= sizeof buf; got += sizeof(long)) {
        errno = 0;
        long w = ptrace(PTRACE_PEEKDATA, v, addr + got, 0);
        if (errno)
            break;
        memcpy(buf + got, &w, sizeof w);
    }
    ptrace(PTRACE_DETACH, v, 0, 0);
    if (has_marker(buf, got))
        WON("read the secret out of another process with ptrace");
    FAILED("attached but read no secret");
}
