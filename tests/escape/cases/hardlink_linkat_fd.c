/* linkat(AT_SYMLINK_FOLLOW) of /proc/self/fd/N where N is an O_PATH descriptor of the key:
 * gives the key a workspace name without naming it in the link call. */
#include "../escape.h"
int main(void) {
    int p = open(secret_path(), O_PATH);
    if (p < 0)
        FAILED("O_PATH open of the key: %s", strerror(errno));
    char src[64];
    snprintf(src, sizeof src, "/proc/self/fd/%d", p);
    unlink("hl2");
    if (linkat(AT_FDCWD, src, AT_FDCWD, "hl2", AT_SYMLINK_FOLLOW) != 0)
        FAILED("linkat: %s", strerror(errno));
    int fd = open("hl2", O_RDONLY);
    int e = errno;
    unlink("hl2");
    if (fd < 0)
        FAILED("open hl2: %s", strerror(e));
    if (fd_has_marker(fd))
        WON("read the secret through a hard link made from an O_PATH fd");
    FAILED("no secret");
}
