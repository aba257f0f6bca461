/* A long ../ chain from the workspace: 64 × "../" then the key's absolute path. */
#include "../escape.h"
int main(void) {
    char p[8192] = "";
    for (int i = 0; i < 64; i++)
        strcat(p, "../");
    strcat(p, secret_path() + 1);
    read_secret_at(AT_FDCWD, p, 0);
}
