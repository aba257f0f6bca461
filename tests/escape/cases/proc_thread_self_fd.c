/* /proc/thread-self/fd/N/.ssh/id_rsa with N a directory descriptor of $HOME. */
#include "../escape.h"
int main(void) {
    int d = open(home(), O_RDONLY | O_DIRECTORY);
    if (d < 0)
        FAILED("open $HOME: %s", strerror(errno));
    char p[128];
    snprintf(p, sizeof p, "/proc/thread-self/fd/%d/.ssh/id_rsa", d);
    read_secret_at(AT_FDCWD, p, 0);
}
