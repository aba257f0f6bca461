/* openat2(dirfd of $HOME, ".ssh/id_rsa", RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS). */
#include "../escape.h"
#include <linux/openat2.h>
int main(void) {
    int d = open(home(), O_RDONLY | O_DIRECTORY);
    if (d < 0)
        FAILED("open $HOME: %s", strerror(errno));
    struct open_how how = {.flags = O_RDONLY, .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS};
    int fd = syscall(SYS_openat2, d, ".ssh/id_rsa", &how, sizeof how);
    if (fd < 0) {
        if (errno == ENOSYS)
            NA("openat2: ENOSYS natively");
        FAILED("openat2: %s", strerror(errno));
    }
    if (fd_has_marker(fd))
        WON("read the secret with openat2 RESOLVE_BENEATH");
    FAILED("no secret");
}
