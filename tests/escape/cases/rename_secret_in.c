/* Move the key into the workspace with rename(2), read it there. (The runner restores the
 * key after every run.) */
#include "../escape.h"
int main(void) {
    unlink("moved");
    if (rename(secret_path(), "moved") != 0)
        FAILED("rename: %s", strerror(errno));
    int fd = open("moved", O_RDONLY);
    int e = errno;
    rename("moved", secret_path());
    if (fd < 0)
        FAILED("open moved: %s", strerror(e));
    if (fd_has_marker(fd))
        WON("read the secret after moving it into the workspace");
    FAILED("no secret");
}
