/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ringlock.c - asks the lock that a ring's writer holds (see ringlock.h). */
#include "source/ringlock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

int ringlock_held(const char *path)
{
    int fd, rc, err;

    /* No symlink followed (the runtime's rings are never one), no controlling tty taken, and
     * O_NONBLOCK so that a FIFO does not wait for a writer. */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ELOOP || errno == ENXIO)
            return 0; /* nothing there, a symlink, a socket: no ring a process maps */
        return -1;
    }
    /* A shared lock conflicts with the writer's exclusive one only; ours lasts as long as
     * the question. */
    rc = flock(fd, LOCK_SH | LOCK_NB);
    err = errno;
    close(fd); /* drops our shared lock, if we got it */
    if (rc == 0)
        return 0;
    if (err == EWOULDBLOCK)
        return 1;
    errno = err;
    return -1;
}
