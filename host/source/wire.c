/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wire.c - byte links: a serial port, a TCP socket, a file, named pipe or character device,
 * an RTT channel read by a poller (its socket).
 *
 * Every descriptor is non-blocking and every wait is a poll() with the caller's timeout, so
 * that no open and no read can hang: a FIFO is opened without waiting for its writer, a TCP
 * connect gives up after WIRE_CONNECT_MS. (Looking a host name up takes what the system's
 * resolver takes: a name server that does not answer costs its own timeout, once.)
 *
 * How each kind ends. A file ends at its end and a pipe when its last writer closes it; a
 * socket when the peer closes it: all three are the end of the stream (-1). A serial device
 * has no end: a read that fails with EIO or ENXIO (a USB adapter pulled out, the master side
 * of a pty closed) or finds the port hung up means the device went away, which is an error
 * (-2, "device disappeared"), not the end of what it had to say. An RTT poller's socket ends
 * when the poller does, and the poller says whether that was an end or a failure.
 */
#include "source/wire.h"

#include "source/rtt.h"
#include "util/mono.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define WIRE_DEFAULT_BAUD 115200u
#define WIRE_CONNECT_MS 3000 /* a ser2net or QEMU that is there answers within milliseconds */
#define WIRE_SLICE_MS 100    /* the longest a connect waits without looking at the stop flag */

enum link_kind { LINK_SERIAL, LINK_TCP, LINK_FILE, LINK_RTT };

struct wire {
    int fd;
    enum link_kind kind;
    char *name;
    struct rtt_poller *rtt; /* LINK_RTT: fd is its socket, which it closes */
};

static struct wire *link_new(int fd, enum link_kind kind, const char *name, size_t namelen,
                             char *err, size_t errlen)
{
    struct wire *l = calloc(1, sizeof *l);

    if (!l || !(l->name = strndup(name, namelen))) {
        free(l);
        close(fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->fd = fd;
    l->kind = kind;
    return l;
}

/* The reason an open() failed, said for a device or a file. */
static void open_error(int e, int device, char *err, size_t errlen)
{
    switch (e) {
    case ENOENT:
        snprintf(err, errlen, device ? "no such device" : "no such file");
        break;
    case EACCES:
    case EPERM:
        snprintf(err, errlen,
                 device ? "permission denied; add your user to the device's group "
                          "(dialout on Debian and Ubuntu) and log in again"
                        : "permission denied");
        break;
    case EBUSY:
        snprintf(err, errlen, "device busy (another program has it open?)");
        break;
    case ENXIO:
    case ENODEV:
        snprintf(err, errlen, "no such device (%s)", strerror(e));
        break;
    default:
        snprintf(err, errlen, "%s", strerror(e));
    }
}

/* --- serial --------------------------------------------------------------------------------- */

/* The rates termios names; what the driver then accepts of them is its own business. */
static int baud_speed(unsigned long baud, speed_t *sp)
{
    static const struct {
        unsigned long baud;
        speed_t sp;
    } rates[] = {
        {50, B50},           {75, B75},           {110, B110},         {134, B134},
        {150, B150},         {200, B200},         {300, B300},         {600, B600},
        {1200, B1200},       {1800, B1800},       {2400, B2400},       {4800, B4800},
        {9600, B9600},       {19200, B19200},     {38400, B38400},     {57600, B57600},
        {115200, B115200},   {230400, B230400},   {460800, B460800},   {500000, B500000},
        {576000, B576000},   {921600, B921600},   {1000000, B1000000}, {1152000, B1152000},
        {1500000, B1500000}, {2000000, B2000000}, {2500000, B2500000}, {3000000, B3000000},
        {3500000, B3500000}, {4000000, B4000000},
    };

    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        if (rates[i].baud == baud) {
            *sp = rates[i].sp;
            return 0;
        }
    return -1;
}

static int all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

/* Splits "DEVICE[:BAUD]". Only digits after the last colon are a baud, and a path that exists
 * as given has none, so that the colons of /dev/serial/by-path/ names stay in the name.
 * Returns the length of the device part, or -1 with a reason in err. */
static long split_serial(const char *spec, unsigned long *baud, char *err, size_t errlen)
{
    const char *colon = strrchr(spec, ':');
    struct stat st;
    speed_t sp;
    char *end;

    *baud = WIRE_DEFAULT_BAUD;
    if (!colon || !all_digits(colon + 1) || stat(spec, &st) == 0)
        return (long)strlen(spec);
    errno = 0;
    *baud = strtoul(colon + 1, &end, 10);
    if (errno || baud_speed(*baud, &sp) < 0) {
        snprintf(err, errlen,
                 "%s: not a baud rate this system supports (50 ... 4000000, like "
                 "115200 or 921600)",
                 colon + 1);
        return -1;
    }
    return colon - spec;
}

/* Raw 8N1 at speed sp: no echo, no line editing, no flow control, reads that never wait (the
 * waiting is poll()'s). 0, or a WIRE_E* code with a reason in err. */
static int serial_setup(int fd, speed_t sp, unsigned long baud, char *err, size_t errlen)
{
    struct termios t;

    if (tcgetattr(fd, &t) < 0) {
        int e = errno;

        if (e == ENOTTY || e == EINVAL) {
            snprintf(err, errlen, "%s", strerror(e)); /* the caller's words around the system's */
            return WIRE_ENOTTY;
        }
        snprintf(err, errlen, "cannot read its settings: %s", strerror(e));
        return WIRE_EFAIL;
    }
    cfmakeraw(&t);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (cfsetispeed(&t, sp) < 0 || cfsetospeed(&t, sp) < 0 || tcsetattr(fd, TCSANOW, &t) < 0) {
        snprintf(err, errlen, "cannot set %lu baud: %s", baud, strerror(errno));
        return WIRE_EFAIL;
    }
    /* tcsetattr() succeeds when any of the settings took: check the one that matters. */
    if (tcgetattr(fd, &t) < 0 || cfgetospeed(&t) != sp) {
        snprintf(err, errlen, "%lu: not a baud rate this device supports", baud);
        return WIRE_EFAIL;
    }
    tcflush(fd, TCIFLUSH); /* bytes from before we came belong to nobody's stream */
    return 0;
}

/* wire_connect_serial, and on WIRE_EOPEN the errno in *open_errno, for a caller's words. */
static int serial_open(struct wire **l, const char *path, unsigned long baud, int *open_errno,
                       char *err, size_t errlen)
{
    speed_t sp;
    int fd, rc;

    *l = NULL;
    if (baud_speed(baud, &sp) < 0) {
        snprintf(err, errlen,
                 "%lu: not a baud rate this system supports (50 ... 4000000, like 115200 or "
                 "921600)",
                 baud);
        return WIRE_EFAIL;
    }
    fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *open_errno = errno;
        snprintf(err, errlen, "%s", strerror(errno));
        return WIRE_EOPEN;
    }
    if ((rc = serial_setup(fd, sp, baud, err, errlen)) < 0) {
        close(fd);
        return rc;
    }
    *l = link_new(fd, LINK_SERIAL, path, strlen(path), err, errlen);
    return *l ? 0 : WIRE_EFAIL;
}

int wire_connect_serial(struct wire **l, const char *path, unsigned long baud, char *err,
                        size_t errlen)
{
    int open_errno;

    return serial_open(l, path, baud, &open_errno, err, errlen);
}

struct wire *wire_open_serial(const char *spec, char *err, size_t errlen)
{
    unsigned long baud;
    struct wire *l;
    long n = split_serial(spec, &baud, err, errlen);
    char *path;
    int rc, open_errno;

    if (n < 0)
        return NULL;
    if (n == 0) {
        snprintf(err, errlen, "no device named (DEVICE[:BAUD], like /dev/ttyUSB0:921600)");
        return NULL;
    }
    if (!(path = strndup(spec, (size_t)n))) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    rc = serial_open(&l, path, baud, &open_errno, err, errlen);
    free(path);
    if (rc == WIRE_EOPEN)
        open_error(open_errno, 1, err, errlen);
    else if (rc == WIRE_ENOTTY)
        snprintf(err, errlen, "not a terminal (use --file for files and pipes)");
    return l;
}

/* --- TCP -------------------------------------------------------------------------------------- */

/* Splits "HOST:PORT" or "[V6ADDR]:PORT" into host and port; 0, or -1 with a reason. */
static int split_tcp(const char *spec, char *host, size_t hostlen, char *port, size_t portlen,
                     char *err, size_t errlen)
{
    const char *colon = strrchr(spec, ':'), *h = spec;
    size_t hl;
    char *end;
    unsigned long p;

    if (!colon || colon == spec) {
        snprintf(err, errlen, "not HOST:PORT (like localhost:4444 or [::1]:4444)");
        return -1;
    }
    hl = (size_t)(colon - spec);
    if (spec[0] == '[') {
        if (hl < 3 || spec[hl - 1] != ']') {
            snprintf(err, errlen, "not HOST:PORT (like localhost:4444 or [::1]:4444)");
            return -1;
        }
        h = spec + 1;
        hl -= 2;
    } else if (memchr(spec, ':', hl)) {
        snprintf(err, errlen, "an IPv6 address goes in brackets: [ADDRESS]:PORT");
        return -1;
    }
    errno = 0;
    p = strtoul(colon + 1, &end, 10);
    if (!all_digits(colon + 1) || errno || p == 0 || p > 65535) {
        snprintf(err, errlen, "%s: not a port number (1 ... 65535)", colon + 1);
        return -1;
    }
    if (hl >= hostlen) {
        snprintf(err, errlen, "host name too long");
        return -1;
    }
    memcpy(host, h, hl);
    host[hl] = 0;
    snprintf(port, portlen, "%lu", p);
    return 0;
}

static int stop_asked(const volatile sig_atomic_t *stop)
{
    return stop && *stop;
}

/* Connects a non-blocking socket to ai, waiting until deadline (in slices of WIRE_SLICE_MS,
 * looking at *stop between them); the socket, or -1 with *why (EINTR: stopped). */
static int tcp_try(const struct addrinfo *ai, long long deadline, const volatile sig_atomic_t *stop,
                   int *why)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    struct pollfd pf;
    socklen_t len = sizeof *why;
    int rc;

    if (fd < 0) {
        *why = errno;
        return -1;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        return fd;
    *why = errno;
    while (*why == EINPROGRESS || (*why == EINTR && !stop_asked(stop))) {
        long long left = deadline - mono_ms();

        if (stop_asked(stop)) {
            *why = EINTR;
            break;
        }
        pf = (struct pollfd){.fd = fd, .events = POLLOUT};
        rc = left > 0 ? poll(&pf, 1, left < WIRE_SLICE_MS ? (int)left : WIRE_SLICE_MS) : 0;
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0 && left > WIRE_SLICE_MS)
            continue; /* a slice passed: look at the stop flag */
        if (rc == 0)
            *why = ETIMEDOUT;
        else if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, why, &len) < 0)
            *why = errno;
        if (*why == 0)
            return fd;
    }
    close(fd);
    return -1;
}

int wire_connect_tcp(struct wire **l, const char *host, const char *port, int timeout_ms,
                     const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV},
                    *res, *ai;
    char name[300];
    long long deadline;
    int rc, fd = -1, why = 0, one = 1;

    *l = NULL;
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc) { /* the resolver's own words, for the caller's sentence */
        snprintf(err, errlen, "%s", rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
        return rc == EAI_NONAME || rc == EAI_NODATA || rc == EAI_FAIL ? WIRE_ENOHOST
                                                                      : WIRE_ERESOLVE;
    }
    deadline = mono_ms() + timeout_ms;
    for (ai = res; ai && fd < 0 && why != EINTR; ai = ai->ai_next) {
        int e = 0;

        fd = tcp_try(ai, deadline, stop, &e);
        /* The most telling reason wins: a refusal says more than an unreachable family. */
        if (fd < 0 && (why == 0 || e == ECONNREFUSED || e == ETIMEDOUT || e == EINTR))
            why = e;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        if (why == ECONNREFUSED) {
            snprintf(err, errlen, "connection refused");
            return WIRE_EREFUSED;
        }
        if (why == ETIMEDOUT && timeout_ms % 1000)
            snprintf(err, errlen, "no connection within %.1f s", timeout_ms / 1000.0);
        else if (why == ETIMEDOUT)
            snprintf(err, errlen, "no connection within %d s", timeout_ms / 1000);
        else if (why == EINTR)
            snprintf(err, errlen, "interrupted");
        else
            snprintf(err, errlen, "cannot connect: %s", strerror(why));
        return WIRE_EFAIL;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* one small packet at a time */
    snprintf(name, sizeof name, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
    *l = link_new(fd, LINK_TCP, name, strlen(name), err, errlen);
    return *l ? 0 : WIRE_EFAIL;
}

struct wire *wire_open_tcp(const char *spec, char *err, size_t errlen)
{
    char host[256], port[8];
    struct wire *l;
    int rc;

    if (split_tcp(spec, host, sizeof host, port, sizeof port, err, errlen) < 0)
        return NULL;
    rc = wire_connect_tcp(&l, host, port, WIRE_CONNECT_MS, NULL, err, errlen);
    if (rc == WIRE_ENOHOST)
        snprintf(err, errlen, "no such host");
    else if (rc == WIRE_ERESOLVE) {
        char why[256];

        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "cannot resolve the host: %s", why);
    } else if (rc == WIRE_EREFUSED)
        snprintf(err, errlen,
                 "connection refused; is ser2net or QEMU (-serial "
                 "tcp::%s,server) listening there?",
                 port);
    if (l) { /* named as given, "localhost:4444" */
        char *name = strdup(spec);

        if (!name) {
            wire_close(l);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        free(l->name);
        l->name = name;
    }
    return l;
}

struct wire *wire_open_socket(int fd, const char *name, char *err, size_t errlen)
{
    return link_new(fd, LINK_TCP, name, strlen(name), err, errlen);
}

/* --- files, pipes, character devices -------------------------------------------------------- */

struct wire *wire_open_file(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int fd;

    /* O_NONBLOCK: a FIFO opened for reading would otherwise wait in open() for a writer. */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO && stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
            snprintf(err, errlen, "a UNIX socket; use a FIFO (mkfifo) or TCP");
        else
            open_error(errno, 0, err, errlen);
        return NULL;
    }
    if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s", S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
        close(fd);
        return NULL;
    }
    return link_new(fd, LINK_FILE, path, strlen(path), err, errlen);
}

/* --- RTT ---------------------------------------------------------------------------------------
 */

struct wire *wire_open_rtt(struct rtt_poller *p, const char *name, char *err, size_t errlen)
{
    struct wire *l = calloc(1, sizeof *l);

    if (!l || !(l->name = strdup(name))) {
        free(l);
        rtt_poller_free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->fd = rtt_poller_fd(p);
    l->kind = LINK_RTT;
    l->rtt = p;
    return l;
}

/* --- reading ---------------------------------------------------------------------------------- */

/* A serial read that found nothing although poll() said there was something: either a
 * hung-up port (its settings are gone too) or another reader was quicker. */
static int serial_gone(int fd)
{
    struct termios t;

    return tcgetattr(fd, &t) < 0;
}

/* A failed read's or write's errno: the peer or the device gone, or another error. */
static long io_error(int e, char *err, size_t errlen)
{
    if (e == ECONNRESET) {
        snprintf(err, errlen, "connection reset");
        return WIRE_GONE;
    }
    if (e == EIO || e == ENXIO || e == ENODEV) {
        snprintf(err, errlen, "device disappeared (%s)", e == EIO ? "EIO" : strerror(e));
        return WIRE_GONE;
    }
    snprintf(err, errlen, "%s", strerror(e));
    return WIRE_ERROR;
}

long wire_read(struct wire *l, void *buf, size_t len, int timeout_ms, char *err, size_t errlen)
{
    struct pollfd pf = {.fd = l->fd, .events = POLLIN};
    ssize_t n;
    int rc;

    if (len == 0)
        return 0;
    rc = poll(&pf, 1, timeout_ms < 0 ? -1 : timeout_ms);
    if (rc < 0) {
        if (errno == EINTR) /* a signal (a terminal resize): let the caller see to it */
            return 0;
        snprintf(err, errlen, "poll: %s", strerror(errno));
        return WIRE_ERROR;
    }
    if (rc == 0)
        return 0;
    if (pf.revents & POLLNVAL) {
        snprintf(err, errlen, "not open");
        return WIRE_ERROR;
    }
    /* POLLHUP and POLLERR too: the read says what happened. */
    n = read(l->fd, buf, len);
    if (n > 0)
        return (long)n;
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (l->kind == LINK_SERIAL) {
        if (n == 0 && !serial_gone(l->fd))
            return 0;
        snprintf(err, errlen, "device disappeared (%s)",
                 n == 0         ? "hung up"
                 : errno == EIO ? "EIO"
                                : strerror(errno));
        return WIRE_GONE;
    }
    if (n == 0 && l->kind == LINK_RTT)
        return rtt_poller_end(l->rtt, err, errlen) ? WIRE_END : WIRE_ERROR;
    if (n == 0) {
        snprintf(err, errlen, "%s",
                 l->kind == LINK_TCP ? "the peer closed the connection" : "end of file");
        return WIRE_END;
    }
    return io_error(errno, err, errlen);
}

long wire_write(struct wire *l, const void *buf, size_t len, int timeout_ms, char *err,
                size_t errlen)
{
    struct pollfd pf = {.fd = l->fd, .events = POLLOUT};
    ssize_t n;

    /* Written at once where there is room; the wait is only for a full link. */
    for (int tries = 0; len && tries < 2; tries++) {
        /* MSG_NOSIGNAL: a peer that hung up is an error here, not a SIGPIPE. */
        n = l->kind == LINK_TCP ? send(l->fd, buf, len, MSG_NOSIGNAL) : write(l->fd, buf, len);
        if (n > 0)
            return (long)n;
        if (n < 0 && errno == EPIPE) {
            snprintf(err, errlen, "the peer closed the connection");
            return WIRE_END;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return io_error(errno, err, errlen);
        if (tries == 0 && poll(&pf, 1, timeout_ms < 0 ? -1 : timeout_ms) <= 0)
            break; /* no room in time, or a signal: the caller sees to it */
    }
    return 0;
}

int wire_fd(const struct wire *l)
{
    return l->fd;
}

const char *wire_name(const struct wire *l)
{
    return l->name;
}

void wire_close(struct wire *l)
{
    if (!l)
        return;
    if (l->kind == LINK_RTT)
        rtt_poller_free(l->rtt);
    else
        close(l->fd);
    free(l->name);
    free(l);
}
