/* /proc/self/root/<home>/.ssh/id_rsa: the root magic link. */
#include "../escape.h"
int main(void) {
    char p[8192];
    snprintf(p, sizeof p, "/proc/self/root%s", secret_path());
    read_secret_at(AT_FDCWD, p, 0);
}
