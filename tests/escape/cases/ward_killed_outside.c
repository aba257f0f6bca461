/* Fail-closed: the runner SIGKILLs the supervisor from outside while this case waits; once its
 * parent is gone it reads the key. Under ward nothing may continue unchecked. */
#include "../escape.h"
int main(void) {
    pid_t p = getppid_at_start();
    open_result_early();
    for (int i = 0; i < 1000 && getppid() == p; i++)
        msleep(10);
    if (getppid() == p)
        FAILED("the supervisor was not killed");
    int fd = open(secret_path(), O_RDONLY);
    if (fd < 0)
        FAILED("after the supervisor died: open: %s", strerror(errno));
    if (fd_has_marker(fd))
        WON("read the secret after the supervisor died");
    FAILED("no secret");
}
