/* The attacker hard-links ~/.ssh/id_rsa into the workspace (same filesystem) and reads the
 * link: the path says "workspace", the inode is the key. */
#include "../escape.h"
int main(void) {
    unlink("hl");
    if (link(secret_path(), "hl") != 0)
        FAILED("link: %s", strerror(errno));
    int fd = open("hl", O_RDONLY);
    int e = errno;
    unlink("hl");
    if (fd < 0)
        FAILED("open hl: %s", strerror(e));
    if (fd_has_marker(fd))
        WON("read the secret through a hard link made in the workspace");
    FAILED("no secret");
}
