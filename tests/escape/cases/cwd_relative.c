/* chdir($HOME/.ssh) (chdir is not trapped), then open("id_rsa") relative to the cwd. */
#include "../escape.h"
int main(void) {
    char p[4096];
    snprintf(p, sizeof p, "%s/.ssh", home());
    if (chdir(p) != 0)
        FAILED("chdir: %s", strerror(errno));
    read_secret_at(AT_FDCWD, "id_rsa", 0);
}
