/* socket(AF_PACKET, SOCK_RAW): sees and forges every frame, past ward's connect/send view. */
#include "../escape.h"
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <sys/socket.h>
int main(void) {
    int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    if (s < 0) {
        if (getenv("ESCAPE_NATIVE") && (errno == EPERM || errno == EAFNOSUPPORT))
            NA("AF_PACKET: %s natively (needs CAP_NET_RAW)", strerror(errno));
        FAILED("socket(AF_PACKET): %s", strerror(errno));
    }
    WON("opened a packet socket");
}
