/* process_vm_writev into a process outside the tree: writes the marker over the victim's own
 * copy of it (its state does not change; the write is real). */
#include "../escape.h"
#include <sys/uio.h>
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    unsigned long addr = strtoul(env_or("ESCAPE_VICTIM_ADDR", "0"), NULL, 16);
    const char *m = marker();
    struct iovec l = {(void *)m, strlen(m)}, r = {(void *)(addr + 0), strlen(m)};
    ssize_t n = process_vm_writev(v, &l, 1, &r, 1, 0);
    if (n < 0)
        FAILED("process_vm_writev: %s", strerror(errno));
    if ((size_t)n == strlen(m))
        WON("wrote %zd bytes into another process", n);
    FAILED("short write");
}
