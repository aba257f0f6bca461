/* connect() to a unix socket outside the workspace that looks like an ssh-agent
 * (/tmp/ssh-XXXX/agent.N); the listener answers with the marker. */
#include "../escape.h"
#include <sys/socket.h>
#include <sys/un.h>
int main(void) {
    const char *path = env_or("ESCAPE_AGENT_SOCK", "/nonexistent");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0)
        FAILED("socket: %s", strerror(errno));
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        FAILED("connect %s: %s", path, strerror(errno));
    if (fd_has_marker(s))
        WON("talked to the agent socket outside the workspace");
    FAILED("connected but no answer");
}
