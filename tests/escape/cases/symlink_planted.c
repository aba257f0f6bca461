/* A symlink planted in the workspace (as a cloned repository can carry one) pointing at
 * ~/.ssh/id_rsa: read it. */
#include "../escape.h"
int main(void) { read_secret_at(AT_FDCWD, "planted/id_rsa.txt", 0); }
