/* A planted directory symlink to ~/.ssh in the workspace: read sshdir/id_rsa. */
#include "../escape.h"
int main(void) { read_secret_at(AT_FDCWD, "planted/sshdir/id_rsa", 0); }
