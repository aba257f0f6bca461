/* Shared helpers of the escape cases (tests/escape/cases/NAME.c).
 *
 * Every case is an attack. It exits
 *   0  the attack SUCCEEDED: it got what it wanted (secret bytes read, signal delivered, …);
 *   1  it failed;
 *   77 the kernel itself refuses it natively (not applicable on this machine).
 * A case whose parent may not survive the attack also writes that code to $ESCAPE_RESULT.
 * One line on stderr says what happened.
 *
 * Environment (set by crates/ward/tests/escape_suite.rs):
 *   HOME             test home with .ssh/id_rsa holding ESCAPE_MARKER
 *   ESCAPE_WORK      the workspace (also the cwd); same filesystem as HOME
 *   ESCAPE_MARKER    the secret marker string
 *   ESCAPE_VICTIM_*  a process outside the tree (pid, address and fd of its copy of the secret,
 *                    a file it creates when it receives a signal)
 *   ESCAPE_AGENT_SOCK a unix socket outside the workspace that answers with the marker
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ATTACK_WON 0
#define ATTACK_FAILED 1
#define NOT_APPLICABLE 77

static int result_fd = -1;

/* Opens $ESCAPE_RESULT now, for a case that may lose its supervisor (after which no new file
 * can be opened): done() then writes the code through this descriptor. */
static void open_result_early(void) {
    const char *r = getenv("ESCAPE_RESULT");
    if (r && *r)
        result_fd = open(r, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static void done(int code) __attribute__((noreturn));
static void done(int code) {
    if (result_fd >= 0) {
        char b[8];
        int n = snprintf(b, sizeof b, "%d\n", code);
        if (write(result_fd, b, n) != n) {
        }
        fflush(NULL);
        _exit(code);
    }
    const char *r = getenv("ESCAPE_RESULT");
    if (r && *r) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", r);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            char b[8];
            int n = snprintf(b, sizeof b, "%d\n", code);
            if (write(fd, b, n) == n) {
                close(fd);
                rename(tmp, r);
            } else {
                close(fd);
            }
        }
    }
    fflush(NULL);
    _exit(code);
}

static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

#define WON(...) do { say(__VA_ARGS__); done(ATTACK_WON); } while (0)
#define FAILED(...) do { say(__VA_ARGS__); done(ATTACK_FAILED); } while (0)
#define NA(...) do { say(__VA_ARGS__); done(NOT_APPLICABLE); } while (0)

static const char *env_or(const char *k, const char *dflt) {
    const char *v = getenv(k);
    return v && *v ? v : dflt;
}

static const char *marker(void) { return env_or("ESCAPE_MARKER", "WARD-ESCAPE-SECRET"); }
static const char *home(void) { return env_or("HOME", "/nonexistent"); }
static const char *work(void) { return env_or("ESCAPE_WORK", "."); }

static const char *secret_path(void) {
    static char p[4096];
    snprintf(p, sizeof p, "%s/.ssh/id_rsa", home());
    return p;
}

static pid_t start_ppid = 0;
static pid_t getppid_at_start(void) {
    if (!start_ppid)
        start_ppid = getppid();
    return start_ppid;
}

static long env_long(const char *k) {
    const char *v = getenv(k);
    return v ? strtol(v, NULL, 0) : -1;
}

/* Whether the bytes contain the marker. */
static int has_marker(const void *buf, size_t n) {
    return n > 0 && memmem(buf, n, marker(), strlen(marker())) != NULL;
}

/* Reads from fd and reports whether the marker came out. Closes fd. */
static int fd_has_marker(int fd) {
    char buf[8192];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof buf && (n = read(fd, buf + got, sizeof buf - got)) > 0)
        got += n;
    close(fd);
    return has_marker(buf, got);
}

/* The common ending of "read the secret through PATH" cases. */
static void read_secret_at(int dirfd, const char *path, int flags) __attribute__((noreturn));
static void read_secret_at(int dirfd, const char *path, int flags) {
    int fd = openat(dirfd, path, O_RDONLY | flags);
    if (fd < 0)
        FAILED("open %s: %s", path, strerror(errno));
    if (fd_has_marker(fd))
        WON("read the secret through %s", path);
    FAILED("opened %s but it did not hold the secret", path);
}

static void msleep(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

/* Whether a process is gone (or a zombie). */
static int process_dead(pid_t pid) {
    if (pid == getppid_at_start() && getppid() != pid)
        return 1;
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return kill(pid, 0) == -1 && errno == ESRCH;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return kill(pid, 0) == -1 && errno == ESRCH;
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* Waits up to ms for a file to exist. */
static int wait_for_file(const char *path, long ms) {
    for (long t = 0; t <= ms; t += 10) {
        if (access(path, F_OK) == 0)
            return 1;
        msleep(10);
    }
    return 0;
}

/* The file a victim creates when it receives signal sig. */
static const char *victim_flag(int sig) {
    static char p[4096];
    snprintf(p, sizeof p, "%s.%d", env_or("ESCAPE_VICTIM_FLAG", "/nonexistent/flag"), sig);
    return p;
}
