/* openat from a workspace dirfd with ./ and ../ noise: planted/./../../home/./.ssh//id_rsa. */
#include "../escape.h"
int main(void) {
    int d = open("planted", O_RDONLY | O_DIRECTORY);
    if (d < 0)
        FAILED("open planted: %s", strerror(errno));
    read_secret_at(d, "./../../home/./.ssh//id_rsa", 0);
}
