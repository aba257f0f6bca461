/* openat(dirfd of $HOME, ".ssh/id_rsa"). */
#include "../escape.h"
int main(void) {
    int d = open(home(), O_RDONLY | O_DIRECTORY);
    if (d < 0)
        FAILED("open $HOME: %s", strerror(errno));
    read_secret_at(d, ".ssh/id_rsa", 0);
}
