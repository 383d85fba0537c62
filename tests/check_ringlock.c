/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_ringlock.c - the probe that tells a ring a running process still writes: a process
 * that holds the lock as the Linux runtime does (taken, the ring mapped, the descriptor
 * closed), then killed by SIGKILL; files nobody holds; what is no ring. Children die with the
 * test (PR_SET_PDEATHSIG) and are killed and reaped by pid. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "source/ringlock.h"
#include "suites.h"
#include "testdir.h"

static void dir_setup(void)
{
    testdir_make("ringlock");
}

static void dir_teardown(void)
{
    testdir_remove();
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* Starts a process that locks path as the runtime does: LOCK_EX, the file mapped, the
 * descriptor closed (the lock stays with the mapping). Returns once it holds it. */
static pid_t holder_start(const char *path)
{
    int p[2];
    pid_t pid;
    struct pollfd pf;
    char k;

    ck_assert_int_eq(pipe(p), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd;
        void *m;

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(p[0]);
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
            _exit(1);
        m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            _exit(1);
        close(fd);
        if (write(p[1], "k", 1) != 1)
            _exit(1);
        for (int i = 0; i < 300; i++) /* 30 s at most, unless killed before */
            usleep(100000);
        _exit(0);
    }
    close(p[1]);
    pf.fd = p[0];
    pf.events = POLLIN;
    ck_assert_int_eq(poll(&pf, 1, 5000), 1);
    ck_assert_int_eq(read(p[0], &k, 1), 1);
    close(p[0]);
    return pid;
}

/* A process holds the ring: 1, and the file is as it was; killed by SIGKILL, it holds it no
 * more. */
START_TEST(test_ringlock_held_by_a_process)
{
    const char *ring = testdir_path("ring");
    struct stat before, after;
    pid_t pid;
    int st;

    write_file(ring, "a ring\n");
    ck_assert_int_eq(truncate(ring, 4096), 0);
    ck_assert_int_eq(ringlock_held(ring), 0);
    pid = holder_start(ring);
    ck_assert_int_eq(stat(ring, &before), 0);
    ck_assert_int_eq(ringlock_held(ring), 1);
    ck_assert_int_eq(ringlock_held(ring), 1); /* our probe left no lock behind */
    ck_assert_int_eq(stat(ring, &after), 0);
    ck_assert_uint_eq(after.st_ino, before.st_ino);
    ck_assert_int_eq(after.st_size, 4096);
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_int_eq(ringlock_held(ring), 0);
    unlink(ring);
}
END_TEST

/* What is no ring being written: no file, a symlink (even to a held ring), a FIFO (at once,
 * without waiting for a writer), a directory. */
START_TEST(test_ringlock_not_a_ring)
{
    const char *ring = testdir_path("ring"), *link = testdir_path("link"), *fifo = testdir_path("fifo");
    pid_t pid;
    int st;

    ck_assert_int_eq(ringlock_held(testdir_path("nothing")), 0);
    write_file(ring, "");
    ck_assert_int_eq(truncate(ring, 4096), 0);
    pid = holder_start(ring);
    ck_assert_int_eq(symlink(ring, link), 0);
    ck_assert_int_eq(ringlock_held(link), 0);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(ringlock_held(fifo), 0);
    ck_assert_int_eq(ringlock_held(testdir()), 0);
    unlink(link);
    unlink(fifo);
    unlink(ring);
}
END_TEST

/* A file it may not read: it cannot tell, and says why. */
START_TEST(test_ringlock_cannot_tell)
{
    const char *secret = testdir_path("secret");

    if (geteuid() == 0)
        return; /* root reads it anyway */
    write_file(secret, "x");
    ck_assert_int_eq(chmod(secret, 0200), 0);
    errno = 0;
    ck_assert_int_eq(ringlock_held(secret), -1);
    ck_assert_int_eq(errno, EACCES);
    unlink(secret);
}
END_TEST

Suite *ringlock_suite(void)
{
    Suite *s = suite_create("ringlock");
    TCase *tc = tcase_create("core");

    tcase_add_unchecked_fixture(tc, dir_setup, dir_teardown);
    tcase_add_test(tc, test_ringlock_held_by_a_process);
    tcase_add_test(tc, test_ringlock_not_a_ring);
    tcase_add_test(tc, test_ringlock_cannot_tell);
    suite_add_tcase(s, tc);
    return s;
}
