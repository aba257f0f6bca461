/* /proc/<victim>/cwd/.ssh/id_rsa: the cwd magic link of a process OUTSIDE the tree (it sits
 * in $HOME). */
#include "../escape.h"
int main(void) {
    char p[128];
    snprintf(p, sizeof p, "/proc/%ld/cwd/.ssh/id_rsa", env_long("ESCAPE_VICTIM_PID"));
    read_secret_at(AT_FDCWD, p, 0);
}
