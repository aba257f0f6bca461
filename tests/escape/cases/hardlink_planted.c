/* A hard link to ~/.ssh/id_rsa that already exists in the workspace when the session starts
 * (made by someone before ward ran): read it. */
#include "../escape.h"
int main(void) { read_secret_at(AT_FDCWD, "planted/hardlink", 0); }
