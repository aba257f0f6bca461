// The floor under ward's per-call cost: a minimal seccomp user-notification supervisor (one
// thread, sync wake-up on) serving a child that times N openat calls, as openat_bench.c does.
//   notif_floor MODE N FILE     MODE: continue | addfd | addfd-send
// continue:   answer SECCOMP_USER_NOTIF_FLAG_CONTINUE (the kernel does the open);
// addfd:      read the path, open it here, SECCOMP_IOCTL_NOTIF_ADDFD, then NOTIF_SEND (ward's way);
// addfd-send: the same with SECCOMP_ADDFD_FLAG_SEND (install and answer in one ioctl).
// Prints the child's JSON line ({"median_us":…}). No checks, no event: just the mechanism.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int send_fd(int sock, int fd) {
    char c = 0;
    struct iovec iov = {&c, 1};
    char buf[CMSG_SPACE(sizeof(int))];
    memset(buf, 0, sizeof buf);
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    return sendmsg(sock, &m, 0) < 0 ? -1 : 0;
}
static int recv_fd(int sock) {
    char c;
    struct iovec iov = {&c, 1};
    char buf[CMSG_SPACE(sizeof(int))];
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf};
    if (recvmsg(sock, &m, 0) <= 0) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
    return fd;
}

static int child(int sock, long n, const char *path) {
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return perror("prctl"), 1;
    int lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (lfd < 0) return perror("seccomp"), 1;
    if (send_fd(sock, lfd)) return perror("sendmsg"), 1;
    close(lfd);
    char c;
    if (read(sock, &c, 1) != 1) return 1;  // the supervisor is ready
    double *t = malloc(sizeof(double) * n);
    for (long i = 0; i < n; i++) {
        double a = now_us();
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        double b = now_us();
        if (fd < 0) return perror("openat"), 1;
        close(fd);
        t[i] = b - a;
    }
    double sum = 0;
    for (long i = 0; i < n; i++) sum += t[i];
    qsort(t, n, sizeof(double), cmp);
    printf("{\"n\":%ld,\"median_us\":%.3f,\"mean_us\":%.3f,\"p90_us\":%.3f}\n", n, t[n / 2], sum / n,
           t[(n * 9) / 10]);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s continue|addfd|addfd-send N FILE\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    long n = atol(argv[2]);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return perror("socketpair"), 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        _exit(child(sv[1], n, argv[3]));
    }
    close(sv[1]);
    int lfd = recv_fd(sv[0]);
    if (lfd < 0) return fprintf(stderr, "no listener\n"), 1;
    if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP))
        perror("sync wake-up (continuing without)");
    if (write(sv[0], "g", 1) != 1) return 1;
    int m = !strcmp(mode, "continue") ? 0 : !strcmp(mode, "addfd") ? 1 : 2;
    for (;;) {
        struct seccomp_notif req;
        struct seccomp_notif_resp resp;
        memset(&req, 0, sizeof req);
        if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req)) {
            if (errno == EINTR) continue;
            break;  // the child is gone
        }
        memset(&resp, 0, sizeof resp);
        resp.id = req.id;
        if (m == 0) {
            resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
            ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
            continue;
        }
        char path[4096];
        struct iovec local = {path, sizeof path - 1}, remote = {(void *)req.data.args[1], sizeof path - 1};
        ssize_t got = process_vm_readv(req.pid, &local, 1, &remote, 1, 0);
        path[got > 0 ? got : 0] = 0;
        int fd = open(path, (int)req.data.args[2] & ~O_CLOEXEC);
        if (fd < 0) {
            resp.error = -errno;
            ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
            continue;
        }
        struct seccomp_notif_addfd add = {.id = req.id, .srcfd = fd,
                                          .newfd_flags = (req.data.args[2] & O_CLOEXEC) ? O_CLOEXEC : 0};
        if (m == 2) add.flags = SECCOMP_ADDFD_FLAG_SEND;
        int newfd = ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
        close(fd);
        if (m == 1) {
            resp.val = newfd;
            resp.error = newfd < 0 ? -errno : 0;
            ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
        }
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
