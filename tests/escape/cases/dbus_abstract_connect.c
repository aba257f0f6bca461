/* connect() to an abstract unix socket named like the D-Bus session bus (@/tmp/dbus-…): no
 * file, no path, only a name. The listener answers with the marker. */
#include "../escape.h"
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
int main(void) {
    const char *name = env_or("ESCAPE_DBUS_NAME", "/tmp/dbus-none");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0)
        FAILED("socket: %s", strerror(errno));
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(a.sun_path + 1, name, n);
    if (connect(s, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path) + 1 + n) != 0)
        FAILED("connect @%s: %s", name, strerror(errno));
    if (fd_has_marker(s))
        WON("talked to the abstract D-Bus socket");
    FAILED("connected but no answer");
}
