/* fchdir to a descriptor of $HOME, then open(".ssh/id_rsa"). */
#include "../escape.h"
int main(void) {
    int d = open(home(), O_RDONLY | O_DIRECTORY);
    if (d < 0 || fchdir(d) != 0)
        FAILED("fchdir $HOME: %s", strerror(errno));
    read_secret_at(AT_FDCWD, ".ssh/id_rsa", 0);
}
