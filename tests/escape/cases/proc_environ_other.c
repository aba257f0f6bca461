/* Read /proc/<pid>/environ of a process outside the tree (its environment holds the marker,
 * like a token in a developer's shell). */
#include "../escape.h"
int main(void) {
    char p[128];
    snprintf(p, sizeof p, "/proc/%ld/environ", env_long("ESCAPE_VICTIM_PID"));
    read_secret_at(AT_FDCWD, p, 0);
}
