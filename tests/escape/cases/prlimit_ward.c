/* prlimit(ward, RLIMIT_FSIZE, 0): not a signal, not a trace — a resource limit on the
 * supervisor. Its next write to the audit trail raises SIGXFSZ, whose default action ends it.
 * The attack counts as working when the supervisor's limit was changed. */
#include "../escape.h"
#include <sys/resource.h>
int main(void) {
    pid_t p = getppid_at_start();
    open_result_early();
    struct rlimit zero = {0, 0}, now;
    if (prlimit(p, RLIMIT_FSIZE, &zero, NULL) != 0)
        FAILED("prlimit(%d, RLIMIT_FSIZE): %s", (int)p, strerror(errno));
    if (prlimit(p, RLIMIT_FSIZE, NULL, &now) != 0 || now.rlim_max != 0)
        FAILED("the supervisor's limit did not change");
    /* A trapped call: under ward, an event to write. */
    int fd = open("harmless.txt", O_RDONLY);
    if (fd >= 0)
        close(fd);
    for (int i = 0; i < 30 && !process_dead(p); i++)
        msleep(10);
    WON("set the supervisor's RLIMIT_FSIZE to 0%s", process_dead(p) ? "; it died at its next write" : "");
}
