/* SPDX-License-Identifier: GPL-3.0-or-later */
/* src.c - dump byte sources: files and memory behind one tiny interface. */
#include "source/src.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct src {
    char *name;
    int fd;            /* -1 for memory */
    unsigned char *mem;
    int owned;
    uint64_t size;     /* at open: what every pass reads */
    uint64_t cut;      /* where a read found the file ended short of size; 0: none did */
    const struct src_view *view; /* reads go through it (src_set_view); NULL: none */
    void *view_ctx;
};

const char *src_not_regular(unsigned mode)
{
    if (S_ISDIR(mode))
        return "is a directory";
    if (S_ISFIFO(mode))
        return "a named pipe, not a file";
    if (S_ISCHR(mode))
        return "a character device, not a file";
    if (S_ISBLK(mode))
        return "a block device, not a file";
    if (S_ISSOCK(mode))
        return "a socket, not a file";
    return S_ISREG(mode) ? NULL : "not a regular file";
}

struct src *src_open_file(const char *path, char *err, size_t errlen)
{
    struct src *s;
    struct stat st;
    const char *why;
    int fd;

    /* The type is checked before the open: opening a named pipe waits for a writer (forever,
     * for a dump given by mistake), and opening a device may act on it (a tty's modem lines).
     * O_NONBLOCK and the second check: the path may have been replaced meanwhile. */
    if (stat(path, &st) < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    if ((why = src_not_regular(st.st_mode))) {
        snprintf(err, errlen, "%s%s", why,
                 S_ISFIFO(st.st_mode) ? "; save what it carries to a file first, or watch it "
                                        "with cygtrace live --file="
                                      : "");
        return NULL;
    }
    fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) < 0 || (why = src_not_regular(st.st_mode))) {
        snprintf(err, errlen, "%s", why ? why : strerror(errno));
        close(fd);
        return NULL;
    }
    s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(path))) {
        free(s);
        close(fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->fd = fd;
    s->size = (uint64_t)st.st_size;
    return s;
}

struct src *src_open_mem(const char *name, void *buf, size_t len, int owned)
{
    struct src *s = calloc(1, sizeof *s);

    if (!s || !(s->name = strdup(name))) {
        free(s);
        return NULL;
    }
    s->fd = -1;
    s->mem = buf;
    s->owned = owned;
    s->size = len;
    return s;
}

void src_set_view(struct src *s, const struct src_view *v, void *ctx)
{
    if (s->view && s->view->free)
        s->view->free(s->view_ctx);
    s->view = v;
    s->view_ctx = ctx;
}

long src_read(struct src *s, uint64_t off, void *buf, size_t len)
{
    return s->view ? s->view->read(s->view_ctx, s, off, buf, len) : src_read_raw(s, off, buf, len);
}

long src_read_raw(struct src *s, uint64_t off, void *buf, size_t len)
{
    size_t done = 0;

    if (off >= s->size)
        return 0;
    if (len > s->size - off)
        len = (size_t)(s->size - off);
    if (s->fd < 0) {
        memcpy(buf, s->mem + off, len);
        return (long)len;
    }
    while (done < len) {
        ssize_t n = pread(s->fd, (char *)buf + done, len - done, (off_t)(off + done));

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) { /* before size: the file shrank since the open */
            if (!s->cut)
                s->cut = off + done;
            return -1;
        }
        done += (size_t)n;
    }
    return (long)done;
}

int src_check(struct src *s, char *err, size_t errlen)
{
    struct stat st;
    uint64_t now;

    if (s->fd < 0 || fstat(s->fd, &st) < 0)
        return 0;
    now = (uint64_t)st.st_size;
    if (now != s->size)
        snprintf(err, errlen, "the file %s from %" PRIu64 " to %" PRIu64 " bytes while it was "
                 "read", now < s->size ? "shrank" : "grew", s->size, now);
    else if (s->cut)
        snprintf(err, errlen, "the file ended at byte %" PRIu64 " of its %" PRIu64 " while it "
                 "was read (cut short, then written again)", s->cut, s->size);
    else
        return 0;
    return -1;
}

uint64_t src_data_bytes(struct src *s, uint64_t off, uint64_t len)
{
    return s->view ? s->view->data(s->view_ctx, s, off, len) : src_data_bytes_raw(s, off, len);
}

uint64_t src_data_bytes_raw(struct src *s, uint64_t off, uint64_t len)
{
    uint64_t end, data = 0;

    if (s->fd < 0 || off >= s->size)
        return len;
    end = len > s->size - off ? s->size : off + len;
    while (off < end) {
        off_t d = lseek(s->fd, (off_t)off, SEEK_DATA), h;

        if (d < 0 && errno == ENXIO)
            break; /* holes up to the end of the file */
        if (d < 0)
            return len; /* no SEEK_DATA here: all of it counts as data */
        if ((uint64_t)d >= end)
            break;
        if ((h = lseek(s->fd, d, SEEK_HOLE)) < 0)
            return len;
        off = (uint64_t)h < end ? (uint64_t)h : end;
        data += off - (uint64_t)d;
    }
    return data;
}

uint64_t src_size(const struct src *s)
{
    return s->view ? s->view->size(s->view_ctx, s) : s->size;
}

uint64_t src_size_raw(const struct src *s)
{
    return s->size;
}

const char *src_name(const struct src *s)
{
    return s->name;
}

void src_close(struct src *s)
{
    if (!s)
        return;
    src_set_view(s, NULL, NULL);
    if (s->fd >= 0)
        close(s->fd);
    if (s->owned)
        free(s->mem);
    free(s->name);
    free(s);
}
