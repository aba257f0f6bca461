/* chroot($HOME), then open("/.ssh/id_rsa"): an absolute path that means something else. */
#include "../escape.h"
int main(void) {
    if (chroot(home()) != 0) {
        if (errno == EPERM && geteuid() != 0)
            NA("chroot needs CAP_SYS_CHROOT (not root)");
        FAILED("chroot: %s", strerror(errno));
    }
    read_secret_at(AT_FDCWD, "/.ssh/id_rsa", 0);
}
