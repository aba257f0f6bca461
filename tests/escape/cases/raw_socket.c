/* socket(AF_INET, SOCK_RAW, IPPROTO_ICMP): raw IP past ward's connect/send view. */
#include "../escape.h"
#include <netinet/in.h>
#include <sys/socket.h>
int main(void) {
    int s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
    if (s < 0) {
        if (getenv("ESCAPE_NATIVE") && errno == EPERM)
            NA("SOCK_RAW: EPERM natively (needs CAP_NET_RAW)");
        FAILED("socket(SOCK_RAW): %s", strerror(errno));
    }
    WON("opened a raw IP socket");
}
