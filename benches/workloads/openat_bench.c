// One trapped syscall, measured: N × (openat + close) of one file, timed per call.
// Prints one JSON line: {"n":N,"median_us":…,"mean_us":…,"p90_us":…} where the times are of
// the openat alone (close is not trapped by ward).
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s N FILE\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    const char *path = argv[2];
    double *t = malloc(sizeof(double) * n);
    if (!t) return 1;
    double total0 = now_us();
    for (long i = 0; i < n; i++) {
        double a = now_us();
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        double b = now_us();
        if (fd < 0) {
            perror("openat");
            return 1;
        }
        close(fd);
        t[i] = b - a;
    }
    double total = now_us() - total0;
    double sum = 0;
    for (long i = 0; i < n; i++) sum += t[i];
    qsort(t, n, sizeof(double), cmp);
    printf("{\"n\":%ld,\"median_us\":%.3f,\"mean_us\":%.3f,\"p90_us\":%.3f,\"pair_mean_us\":%.3f}\n",
           n, t[n / 2], sum / n, t[(n * 9) / 10], total / n);
    free(t);
    return 0;
}
