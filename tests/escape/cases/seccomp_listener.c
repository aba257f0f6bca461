/* A nested seccomp filter with SECCOMP_FILTER_FLAG_NEW_LISTENER on one thread: its openat
 * calls go to OUR listener first, which answers "continue" — ward never sees them. */
#include "../escape.h"
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>

static int listener = -1;
static volatile int installed = 0;
static volatile int result = -1;

static void *victim_thread(void *arg) {
    (void)arg;
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = 4, .filter = f};
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (listener < 0) {
        say("seccomp(NEW_LISTENER): %s", strerror(errno));
        installed = -1;
        return NULL;
    }
    installed = 1;
    int fd = openat(AT_FDCWD, secret_path(), O_RDONLY);
    result = fd >= 0 && fd_has_marker(fd);
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, victim_thread, NULL);
    while (installed == 0)
        msleep(1);
    if (installed < 0) {
        pthread_join(t, NULL);
        FAILED("no nested listener");
    }
    struct seccomp_notif req;
    struct seccomp_notif_resp resp;
    memset(&req, 0, sizeof req);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
        FAILED("NOTIF_RECV: %s", strerror(errno));
    memset(&resp, 0, sizeof resp);
    resp.id = req.id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0)
        FAILED("NOTIF_SEND: %s", strerror(errno));
    pthread_join(t, NULL);
    if (result == 1)
        WON("read the secret past our own nested listener");
    FAILED("the continued openat did not give the secret");
}
