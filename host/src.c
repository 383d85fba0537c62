/* src.c - dump byte sources: files and memory behind one tiny interface. */
#include "src.h"

#include <errno.h>
#include <fcntl.h>
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
    uint64_t size;
};

struct src *src_open_file(const char *path, char *err, size_t errlen)
{
    struct src *s;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s", S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
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

long src_read(struct src *s, uint64_t off, void *buf, size_t len)
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
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (long)done;
}

uint64_t src_size(const struct src *s)
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
    if (s->fd >= 0)
        close(s->fd);
    if (s->owned)
        free(s->mem);
    free(s->name);
    free(s);
}
