/* A process OUTSIDE the supervised tree, started natively by the runner: it holds a copy of
 * the secret in memory, keeps the secret file open, sits in $HOME, and creates
 * "$ESCAPE_VICTIM_FLAG.<sig>" when it receives a signal. It writes "pid addr fd" to argv[1]. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char flag_base[4000];

static void on_signal(int sig) {
    char p[4096];
    snprintf(p, sizeof p, "%s.%d", flag_base, sig);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    const char *home = getenv("HOME");
    snprintf(flag_base, sizeof flag_base, "%s", getenv("ESCAPE_VICTIM_FLAG"));
    char path[4096];
    snprintf(path, sizeof path, "%s/.ssh/id_rsa", home);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 3;
    char *copy = calloc(1, 4096);
    if (pread(fd, copy, 4095, 0) <= 0)
        return 4;
    if (chdir(home) != 0)
        return 5;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    for (int s = 1; s < 32; s++)
        if (s != SIGKILL && s != SIGSTOP && s != SIGTERM && s != SIGCHLD)
            sigaction(s, &sa, NULL);
    char info[256];
    int n = snprintf(info, sizeof info, "%d %p %d\n", (int)getpid(), (void *)copy, fd);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || write(out, info, n) != n)
        return 6;
    close(out);
    rename(tmp, argv[1]);
    for (;;)
        pause();
}
