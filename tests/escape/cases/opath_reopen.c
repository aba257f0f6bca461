/* open(key, O_PATH) (no read permission asked), then reopen /proc/self/fd/N for reading. */
#include "../escape.h"
int main(void) {
    int p = open(secret_path(), O_PATH);
    if (p < 0)
        FAILED("O_PATH open: %s", strerror(errno));
    char s[64];
    snprintf(s, sizeof s, "/proc/self/fd/%d", p);
    read_secret_at(AT_FDCWD, s, 0);
}
