/* The native stand-in for ward: the parent of a case run without ward, so that cases that
 * attack "their supervisor" (the parent of the tree's root process) have something to attack
 * natively. Runs argv[1..], waits, exits with its status (128+N for a signal). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        execv(argv[1], argv + 1);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
    }
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}
