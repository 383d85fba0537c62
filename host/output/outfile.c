/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outfile.c - outputs written beside their place and renamed into it. */
#include "output/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct outfile {
    FILE *f;
    int direct;   /* not a regular file: written in place, nothing to rename */
    char *target; /* what the temporary file becomes: path, or where its symbolic link points */
    char *tmp;
};

/* The temporary file a signal must remove before the process ends. Static because signals are
 * process-wide: one outfile at a time. */
static const int cleanup_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSIGS (sizeof cleanup_sigs / sizeof cleanup_sigs[0])
static char cleanup_path[PATH_MAX + 32];
static volatile sig_atomic_t cleanup_armed;
static struct sigaction cleanup_old[NSIGS];
static int cleanup_caught[NSIGS];

static void on_signal(int sig)
{
    if (cleanup_armed)
        unlink(cleanup_path);
    cleanup_armed = 0;
    for (size_t i = 0; i < NSIGS; i++)
        if (cleanup_sigs[i] == sig)
            sigaction(sig, &cleanup_old[i], NULL);
    raise(sig); /* delivered once the handler returns: the process ends as the signal meant */
}

/* Only signals left at their default action: a program that handles (or ignores, nohup) one
 * itself has its own plan for it. */
static void cleanup_arm(const char *tmp)
{
    struct sigaction sa;

    snprintf(cleanup_path, sizeof cleanup_path, "%s", tmp);
    cleanup_armed = 1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGS; i++)
        cleanup_caught[i] = sigaction(cleanup_sigs[i], NULL, &cleanup_old[i]) == 0 &&
                            cleanup_old[i].sa_handler == SIG_DFL &&
                            sigaction(cleanup_sigs[i], &sa, NULL) == 0;
}

static void cleanup_disarm(void)
{
    cleanup_armed = 0;
    for (size_t i = 0; i < NSIGS; i++)
        if (cleanup_caught[i]) {
            sigaction(cleanup_sigs[i], &cleanup_old[i], NULL);
            cleanup_caught[i] = 0;
        }
}

/* The index of the input that is the file out describes, or -1. */
static int input_of(const struct stat *out, const char *const *inputs, size_t n)
{
    struct stat in;

    for (size_t i = 0; i < n; i++)
        if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == out->st_dev &&
            in.st_ino == out->st_ino)
            return (int)i;
    return -1;
}

int outfile_same(const char *path, const char *const *inputs, size_t n)
{
    struct stat out;

    /* a file that does not exist yet is no input */
    return stat(path, &out) == 0 ? input_of(&out, inputs, n) : -1;
}

int outfile_fd_same(int fd, const char *const *inputs, size_t n)
{
    struct stat out;

    return fstat(fd, &out) == 0 && S_ISREG(out.st_mode) ? input_of(&out, inputs, n) : -1;
}

static void outfile_free(struct outfile *o)
{
    free(o->target);
    free(o->tmp);
    free(o);
}

static struct outfile *open_direct(struct outfile *o, const char *path, char *err, size_t errlen)
{
    o->direct = 1;
    if (!(o->f = fopen(path, "w"))) {
        snprintf(err, errlen, "cannot write: %s", strerror(errno));
        outfile_free(o);
        return NULL;
    }
    return o;
}

struct outfile *outfile_open(const char *path, char *err, size_t errlen)
{
    struct outfile *o = calloc(1, sizeof *o);
    struct stat st, lst;
    sigset_t block, old;
    const char *slash;
    mode_t mode, mask;
    int exists = stat(path, &st) == 0, fd, e;
    size_t dirlen;

    if (!o) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (exists && !S_ISREG(st.st_mode))
        return open_direct(o, path, err, errlen);
    /* A symbolic link stays one: the file it points at is replaced. A dangling one is written
     * through, as any program writing to it would. */
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        if (!exists)
            return open_direct(o, path, err, errlen);
        o->target = realpath(path, NULL);
    } else {
        o->target = strdup(path);
    }
    if (!o->target) {
        snprintf(err, errlen, "%s", strerror(errno));
        outfile_free(o);
        return NULL;
    }
    slash = strrchr(o->target, '/');
    dirlen = slash ? (size_t)(slash - o->target) + 1 : 0;
    if (!(o->tmp = malloc(strlen(o->target) + 16))) {
        snprintf(err, errlen, "out of memory");
        outfile_free(o);
        return NULL;
    }
    /* ".NAME.XXXXXX" in the same directory: the rename stays within one file system. The
     * signals wait while it is made and the handler learns its name: a Ctrl-C in between
     * would leave it behind. */
    sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dirlen, o->target, o->target + dirlen);
    sigemptyset(&block);
    for (size_t i = 0; i < NSIGS; i++)
        sigaddset(&block, cleanup_sigs[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    fd = mkostemp(o->tmp, O_CLOEXEC);
    e = errno;
    if (fd >= 0)
        cleanup_arm(o->tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    if (fd < 0) {
        /* A file we may write in a directory we may not: in place, as before, rather than
         * not at all. */
        if ((errno == EACCES || errno == EPERM) && exists && access(o->target, W_OK) == 0) {
            free(o->tmp);
            o->tmp = NULL;
            return open_direct(o, o->target, err, errlen);
        }
        snprintf(err, errlen, "cannot write: %s", strerror(errno));
        outfile_free(o);
        return NULL;
    }
    mask = umask(0);
    umask(mask);
    mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
    if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "cannot write: %s", strerror(errno));
        close(fd);
        o->f = NULL;
        outfile_abort(o);
        return NULL;
    }
    return o;
}

FILE *outfile_stream(struct outfile *o)
{
    return o->f;
}

const char *outfile_tmpname(const struct outfile *o)
{
    return o->direct ? NULL : o->tmp;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
    int bad, rc = 0;

    errno = 0;
    bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad) {
        snprintf(err, errlen, "cannot write: %s", errno ? strerror(errno) : "write error");
        rc = -1;
    } else if (!o->direct && rename(o->tmp, o->target) != 0) {
        snprintf(err, errlen, "cannot write: %s", strerror(errno));
        rc = -1;
    }
    if (rc < 0 && !o->direct)
        unlink(o->tmp);
    if (!o->direct)
        cleanup_disarm();
    outfile_free(o);
    return rc;
}

void outfile_abort(struct outfile *o)
{
    if (!o)
        return;
    if (o->f)
        fclose(o->f);
    if (!o->direct) {
        unlink(o->tmp);
        cleanup_disarm();
    }
    outfile_free(o);
}
