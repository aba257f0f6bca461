/* process_vm_readv of the supervisor. */
#include "../escape.h"
#include <sys/uio.h>
int main(void) {
    pid_t p = getppid();
    char path[64];
    unsigned long addr = 0x1000;
    snprintf(path, sizeof path, "/proc/%d/maps", (int)p);
    FILE *f = fopen(path, "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            unsigned long a, b;
            char perms[8];
            if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3 && perms[0] == 'r') {
                addr = a;
                break;
            }
        }
        fclose(f);
    }
    char buf[64];
    struct iovec l = {buf, sizeof buf}, r = {(void *)addr, sizeof buf};
    ssize_t n = process_vm_readv(p, &l, 1, &r, 1, 0);
    if (n > 0)
        WON("read %zd bytes of the supervisor's memory", n);
    FAILED("process_vm_readv: %s", strerror(errno));
}
