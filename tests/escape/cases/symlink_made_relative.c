/* The attacker makes a symlink with a RELATIVE target (so the target text names no secret)
 * from the workspace to ../home/.ssh/id_rsa, then reads it. */
#include "../escape.h"
int main(void) {
    unlink("rel-link");
    if (symlink("../home/.ssh/id_rsa", "rel-link") != 0)
        FAILED("symlink: %s", strerror(errno));
    int fd = open("rel-link", O_RDONLY);
    int e = errno;
    unlink("rel-link");
    if (fd < 0)
        FAILED("open rel-link: %s", strerror(e));
    if (fd_has_marker(fd))
        WON("read the secret through a relative symlink");
    FAILED("no secret");
}
