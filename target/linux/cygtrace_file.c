/* SPDX-License-Identifier: MIT */
/* cygtrace_file.c - the trace's files and messages, as a library inside someone else's program
 * must handle them.
 *
 * - Private: created 0600 (a trace leaks code addresses and the load bias, as perf.data does),
 *   never opened through a symbolic link at the last component, and an existing file is taken
 *   over only when it is a regular file of this user with a single link. A planted link or
 *   someone else's file is refused with one line on stderr, and the program runs on untraced.
 * - In use: the ring's file carries an exclusive flock. The lock belongs to the open file
 *   description, which the shared mapping keeps alive after the descriptor is closed: it is
 *   held exactly as long as some process maps the ring (released by exit, kill -9 or munmap),
 *   and no descriptor stays open for the program to trip on. A second process finds the lock
 *   and leaves the file alone; nothing is truncated or written before the lock is ours.
 * - Reserved: the blocks are allocated up front (posix_fallocate). A sparse file would fault
 *   (SIGBUS, killing the program) on the first store to a page the full disk cannot back.
 * - Messages go to fd 2 only while it is the stderr the program started with.
 *
 * Only system calls here: these run at a forked child's first event, which may be a signal
 * handler.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cygtrace_linux.h"

static dev_t err_dev;
static ino_t err_ino;
static int err_ok; /* fd 2 was open when noted */

NOINSTR void cyg_file_note_stderr(void)
{
    struct stat st;

    err_ok = fstat(2, &st) == 0;
    err_dev = st.st_dev;
    err_ino = st.st_ino;
}

NOINSTR char *cyg_cat(char *out, size_t len, const char *s)
{
    size_t n = strlen(out);

    while (*s && n + 1 < len)
        out[n++] = *s++;
    out[n] = 0;
    return out;
}

NOINSTR char *cyg_cat_escaped(char *out, size_t len, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(out);

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c >= 0x20 && c < 0x7f && c != '\\') {
            if (n + 1 >= len)
                break;
            out[n++] = (char)c;
            continue;
        }
        if (n + 4 >= len)
            break;
        out[n++] = '\\';
        out[n++] = 'x';
        out[n++] = hex[c >> 4];
        out[n++] = hex[c & 15u];
    }
    out[n] = 0;
    return out;
}

NOINSTR char *cyg_cat_ulong(char *out, size_t len, unsigned long v)
{
    char digits[24];
    size_t i = sizeof digits - 1;

    digits[i] = 0;
    do
        digits[--i] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    return cyg_cat(out, len, digits + i);
}

NOINSTR void cyg_say(const char *what, const char *what2, int err)
{
    char line[1024] = "cygtrace: ";
    struct stat st;

    if (!err_ok || fstat(2, &st) != 0 || st.st_dev != err_dev || st.st_ino != err_ino)
        return;
    /* One byte kept for the newline. */
    cyg_cat(line, sizeof line - 1, what);
    if (what2)
        cyg_cat(cyg_cat(line, sizeof line - 1, ": "), sizeof line - 1, what2);
    if (err) { /* strerrordesc_np: a constant string, no locale, no buffer */
        const char *desc = strerrordesc_np(err);

        cyg_cat(cyg_cat(line, sizeof line - 1, ": "), sizeof line - 1, desc ? desc : "error");
    }
    cyg_cat(line, sizeof line, "\n");
    for (size_t n = strlen(line), off = 0; off < n;) {
        ssize_t w = write(2, line + off, n - off);

        if (w <= 0 && errno != EINTR)
            return;
        off += w > 0 ? (size_t)w : 0;
    }
}

/* Why an existing file at path is not ours to write, or NULL when it is. */
NOINSTR static const char *not_ours(const struct stat *st)
{
    if (!S_ISREG(st->st_mode))
        return "is not a regular file";
    if (st->st_uid != geteuid())
        return "belongs to another user";
    if (st->st_nlink != 1)
        return "has other hard links";
    return NULL;
}

NOINSTR int cyg_file_open_private(const char *path, int access, const char *otherwise)
{
    char what[160];

    for (int tries = 0; tries < 3; tries++) {
        struct stat st;
        const char *why = NULL;
        int fd = open(path, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            break;
        /* O_NONBLOCK: a FIFO planted at the path must not hang the program in open. */
        fd = open(path, access | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT)
            continue; /* removed in between: create it again */
        if (fd < 0 && errno == ELOOP) {
            what[0] = 0;
            cyg_cat(what, sizeof what, "is a symbolic link; not following it, ");
            cyg_say(path, cyg_cat(what, sizeof what, otherwise), 0);
            return -1;
        }
        if (fd < 0)
            break;
        if (fstat(fd, &st) != 0 || (why = not_ours(&st)) != NULL) {
            what[0] = 0;
            cyg_cat(cyg_cat(what, sizeof what, why ? why : "cannot check the file"), sizeof what,
                    "; ");
            cyg_say(path, cyg_cat(what, sizeof what, otherwise), why ? 0 : errno);
            close(fd);
            return -1;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        return fd;
    }
    what[0] = 0;
    cyg_cat(what, sizeof what, "cannot create the file; ");
    cyg_say(path, cyg_cat(what, sizeof what, otherwise), errno);
    return -1;
}

NOINSTR int cyg_file_reopen(const char *path, dev_t dev, ino_t ino)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The pid in the control block of the ring another process holds at fd (0: not written yet). */
NOINSTR static uint32_t owner_of(int fd)
{
    uint32_t pid = 0;

    if (pread(fd, &pid, sizeof pid, CYG_OFF_PID) != (ssize_t)sizeof pid)
        return 0;
    return pid;
}

/* Allocates the ring's blocks, halving from *bytes down to min: returns 0 with *bytes what
 * fitted, or the error of the smallest try. */
NOINSTR static int reserve(int fd, const char *path, size_t *bytes, size_t min)
{
    size_t want = *bytes, size = want;
    int err;

    for (;;) {
        if (ftruncate(fd, 0) != 0)
            return errno;
        err = posix_fallocate(fd, 0, (off_t)(size + CYGTRACE_RING_OVERHEAD));
        if (err == 0)
            break;
        if ((err != ENOSPC && err != EDQUOT && err != EFBIG) || size / 2 < min) {
            ftruncate(fd, 0);
            return err;
        }
        size /= 2;
    }
    if (size != want) {
        char what[160] = "no room for the ";

        cyg_cat_ulong(what, sizeof what, (unsigned long)(want >> 10));
        cyg_cat(what, sizeof what, "K ring; recording into ");
        cyg_cat_ulong(what, sizeof what, (unsigned long)(size >> 10));
        cyg_cat(what, sizeof what, "K (the newest events only)");
        cyg_say(path, what, 0);
    }
    *bytes = size + CYGTRACE_RING_OVERHEAD;
    return 0;
}

NOINSTR struct cyg_file_ring cyg_file_map_ring(const char *path, size_t records_bytes,
                                               size_t min_bytes)
{
    struct cyg_file_ring r = {0};
    struct stat st, at;
    size_t bytes = records_bytes;
    int fd = cyg_file_open_private(path, O_RDWR, "not tracing"), err;

    if (fd < 0)
        return r;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            r.busy = 1;
            r.owner = owner_of(fd);
        } else {
            cyg_say(path, "cannot lock the trace file", errno);
        }
        close(fd);
        return r;
    }
    /* Still the file at path: another run may have replaced it between our open and lock. */
    if (fstat(fd, &st) != 0 || lstat(path, &at) != 0 || st.st_dev != at.st_dev ||
        st.st_ino != at.st_ino) {
        cyg_say(path, "was replaced while it was opened; not tracing", 0);
        close(fd);
        return r;
    }
    if ((err = reserve(fd, path, &bytes, min_bytes)) != 0) {
        cyg_say(path, "no room for the trace on this file system; not tracing", err);
        close(fd);
        return r;
    }
    r.mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file, and with it the lock */
    if (r.mem == MAP_FAILED) {
        cyg_say(path, "cannot map the trace file; not tracing", errno);
        r.mem = NULL;
        return r;
    }
    r.bytes = bytes;
    return r;
}
