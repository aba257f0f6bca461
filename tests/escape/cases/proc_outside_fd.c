/* /proc/<victim>/fd/N: reopen the descriptor of the key that a process OUTSIDE the tree
 * holds. */
#include "../escape.h"
int main(void) {
    char p[128];
    snprintf(p, sizeof p, "/proc/%ld/fd/%ld", env_long("ESCAPE_VICTIM_PID"), env_long("ESCAPE_VICTIM_FD"));
    read_secret_at(AT_FDCWD, p, 0);
}
