/* process_vm_readv of a process outside the tree: its copy of the secret. */
#include "../escape.h"
#include <sys/uio.h>
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    unsigned long addr = strtoul(env_or("ESCAPE_VICTIM_ADDR", "0"), NULL, 16);
    char buf[256];
    struct iovec l = {buf, sizeof buf}, r = {(void *)addr, sizeof buf};
    ssize_t n = process_vm_readv(v, &l, 1, &r, 1, 0);
    if (n < 0)
        FAILED("process_vm_readv: %s", strerror(errno));
    if (has_marker(buf, n))
        WON("read another process's memory");
    FAILED("no secret");
}
