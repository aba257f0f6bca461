/* The i386 ABI through int 0x80: open/read/close of the key with 32-bit syscall numbers
 * (open = 5), which an x86_64-only filter would not recognise. */
#include "../escape.h"
#include <sys/mman.h>
static long i386_call(long nr, long a, long b, long c) {
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return r;
}
int main(void) {
    char *low = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (low == MAP_FAILED)
        FAILED("mmap MAP_32BIT");
    if (i386_call(20, 0, 0, 0) != getpid()) /* getpid */
        NA("int 0x80 does not work natively (no IA32 emulation)");
    snprintf(low, 4096, "%s", secret_path());
    long fd = i386_call(5, (long)low, O_RDONLY, 0);
    if (fd < 0)
        FAILED("i386 open: %s", strerror(-fd));
    long n = i386_call(3, fd, (long)(low + 4096), 4000);
    if (n > 0 && has_marker(low + 4096, n))
        WON("read the secret through int 0x80");
    FAILED("i386 read gave no secret (%ld)", n);
}
