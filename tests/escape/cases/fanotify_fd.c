/* fanotify: mark the key by PATH (fanotify_mark resolves it in the kernel, no open), then
 * cause any open of the key — even one that is then refused — and take the read-only
 * descriptor the kernel puts in the event. */
#include "../escape.h"
#include <sys/fanotify.h>
int main(void) {
    int fa = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
    if (fa < 0) {
        if (getenv("ESCAPE_NATIVE") && (errno == EPERM || errno == ENOSYS))
            NA("fanotify_init: %s natively (needs CAP_SYS_ADMIN)", strerror(errno));
        FAILED("fanotify_init: %s", strerror(errno));
    }
    if (fanotify_mark(fa, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, secret_path()) != 0)
        FAILED("fanotify_mark: %s", strerror(errno));
    /* Trigger: an open of the key, result ignored (we never read through it). */
    int t = open(secret_path(), O_RDONLY);
    if (t >= 0)
        close(t);
    char buf[4096];
    for (int i = 0; i < 100; i++) {
        ssize_t n = read(fa, buf, sizeof buf);
        if (n > 0) {
            struct fanotify_event_metadata *md = (void *)buf;
            for (; FAN_EVENT_OK(md, n); md = FAN_EVENT_NEXT(md, n)) {
                if (md->fd >= 0) {
                    char c[8192];
                    ssize_t k = pread(md->fd, c, sizeof c, 0);
                    if (k > 0 && has_marker(c, k))
                        WON("read the secret through a fanotify event descriptor (pid %d opened it)", (int)md->pid);
                    close(md->fd);
                }
            }
        }
        msleep(10);
    }
    FAILED("no fanotify event with the key");
}
