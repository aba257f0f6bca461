/* The x32 ABI: openat with the x32 bit (nr | 0x40000000). */
#include "../escape.h"
#define X32 0x40000000L
int main(void) {
    long r = syscall(X32 | 39); /* getpid */
    if (r < 0 && errno == ENOSYS)
        NA("the kernel has no x32 ABI (getpid|0x40000000 = ENOSYS natively)");
    long fd = syscall(X32 | 257, AT_FDCWD, secret_path(), O_RDONLY, 0);
    if (fd < 0)
        FAILED("x32 openat: %s", strerror(errno));
    if (fd_has_marker(fd))
        WON("read the secret through an x32 openat");
    FAILED("no secret");
}
