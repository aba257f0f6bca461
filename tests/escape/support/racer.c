/* The race of the acceptance test: one thread opens and reads the path in `buf` again and
 * again, another flips `buf` between a harmless workspace file and ~/.ssh/id_rsa.
 *
 *   racer TRIES
 *
 * Prints "tries=N harmless=H secret=S denied=D other=O first_win=K" and exits 0 if the
 * secret was read (the attack won), 1 if not. Natively nothing checks the path, so the secret
 * comes out within a few tries; under ward every open the flip sends to the key must be
 * denied, and a flip after ward read the path cannot redirect ward's own open. */
#include "../escape.h"
#include <sched.h>
#include <pthread.h>

static char harmless[4096], secret[4096];
static char buf[4096];
static volatile int stop, started;

static void *flipper(void *arg) {
    (void)arg;
    size_t hl = strlen(harmless) + 1, sl = strlen(secret) + 1;
    unsigned r = 12345;
    while (!stop) {
        memcpy(buf, secret, sl);
        __asm__ volatile("" ::: "memory");
        started = 1;
        r = r * 1103515245 + 12345;
        for (volatile unsigned i = 0; i < 200 + (r >> 20) % 800; i++) {
        }
        memcpy(buf, harmless, hl);
        __asm__ volatile("" ::: "memory");
        r = r * 1103515245 + 12345;
        for (volatile unsigned i = 0; i < 200 + (r >> 20) % 800; i++) {
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    long tries = argc > 1 ? atol(argv[1]) : 20;
    snprintf(harmless, sizeof harmless, "%s/harmless.txt", work());
    snprintf(secret, sizeof secret, "%s", secret_path());
    memcpy(buf, harmless, strlen(harmless) + 1);
    pthread_t t;
    pthread_create(&t, NULL, flipper, NULL);
    while (!started)
        sched_yield();
    long h = 0, s = 0, d = 0, o = 0, first = 0;
    char data[8192];
    for (long i = 1; i <= tries; i++) {
        /* A short pause: where both threads share a CPU, the flipper runs meanwhile and the
         * wake-up preempts it at a random point of its cycle. */
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
        int fd = open(buf, O_RDONLY);
        if (fd < 0) {
            if (errno == EACCES)
                d++;
            else
                o++;
            continue;
        }
        ssize_t n = read(fd, data, sizeof data);
        close(fd);
        if (n > 0 && has_marker(data, n)) {
            s++;
            if (!first)
                first = i;
        } else {
            h++;
        }
    }
    stop = 1;
    pthread_join(t, NULL);
    printf("tries=%ld harmless=%ld secret=%ld denied=%ld other=%ld first_win=%ld\n", tries, h, s, d, o, first);
    return s > 0 ? 0 : 1;
}
