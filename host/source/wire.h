/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wire.h - byte links a live stream comes over: a serial port (termios: raw, 8N1, the baud
 * given), a TCP socket (ser2net, QEMU -serial tcp:), a file, named pipe or character device,
 * and an RTT channel that a poller reads through a GDB server (rtt.h). One tiny interface, one
 * implementation per kind. */
#ifndef WIRE_H
#define WIRE_H

#include <signal.h>
#include <stddef.h>

struct wire;

/* wire_read's and wire_write's ends besides a count. */
enum {
    WIRE_END = -1,   /* the end of the stream: EOF, the peer closed it */
    WIRE_ERROR = -2, /* an error, the reason in err */
    WIRE_GONE = -3,  /* the other side went away: a connection reset, a device unplugged */
};

/* The connecting functions' failures that callers word their own way (their hints); err holds
 * the facts. Any other failure is WIRE_EFAIL with its whole reason in err. */
enum {
    WIRE_EFAIL = -1,
    WIRE_EREFUSED = -2, /* nothing listens there; err: "connection refused" */
    WIRE_ENOHOST = -3,  /* no such host; err: the resolver's words */
    WIRE_ERESOLVE = -4, /* the resolver failed; err: its words */
    WIRE_ENOTTY = -5,   /* the device is no terminal; err: the system's words */
    WIRE_EOPEN = -6,    /* the device did not open; err: the system's words */
};

/* Opens path as a raw 8N1 serial port at baud (one of the rates termios names; the speed is
 * checked after it is set, as a driver may take the other settings and not it): 0 and *l, or a
 * WIRE_E* code with a reason in err. */
int wire_connect_serial(struct wire **l, const char *path, unsigned long baud, char *err,
                        size_t errlen);

/* Connects to host and port (a name or an address, IPv4 or IPv6) within timeout_ms, giving up
 * within a tenth of a second once *stop is nonzero (NULL: no stop flag; err says
 * "interrupted"): 0 and *l, or a WIRE_E* code with a reason in err. */
int wire_connect_tcp(struct wire **l, const char *host, const char *port, int timeout_ms,
                     const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* A link on a connected stream socket (a socketpair end, for tests); takes fd, even on failure.
 * NULL with a reason in err. */
struct wire *wire_open_socket(int fd, const char *name, char *err, size_t errlen);

/* Opens "DEVICE[:BAUD]" (default 115200) as a raw 8N1 serial port; NULL with a one-line reason
 * in err ("no such device", "9601: not a baud rate this system supports", ...). */
struct wire *wire_open_serial(const char *spec, char *err, size_t errlen);

/* Connects to "HOST:PORT" (a name or address, IPv4 or IPv6); NULL with a reason in err. */
struct wire *wire_open_tcp(const char *spec, char *err, size_t errlen);

/* Opens a file, named pipe or character device for reading; NULL with a reason in err. A
 * regular file ends at its end, a pipe when its last writer closes it. */
struct wire *wire_open_file(const char *path, char *err, size_t errlen);

struct rtt_poller;

/* A link on what poller p reads (rtt_poller_fd): it ends when the poller does, at the end of the
 * stream (-1: stopped, the target exited or stopped by itself) or with the poller's error (-2,
 * "the server closed the connection"). Takes p: wire_close frees it, even on failure here;
 * name is for messages. NULL with a reason in err. */
struct wire *wire_open_rtt(struct rtt_poller *p, const char *name, char *err, size_t errlen);

/* Waits up to timeout_ms (0: not at all, -1: for ever) for bytes and reads up to len of them.
 * Returns the bytes read (> 0), 0 when none came in time (or a signal came first), WIRE_END at
 * the end of the stream (EOF, the peer closed), WIRE_GONE when the other side went away
 * ("connection reset", "device disappeared (EIO)") or WIRE_ERROR, with a reason in err. A
 * serial port has no end: EIO, ENXIO or a hang-up (an adapter pulled out, the other side of a
 * pty closed) is WIRE_GONE "device disappeared". */
long wire_read(struct wire *l, void *buf, size_t len, int timeout_ms, char *err, size_t errlen);

/* Writes up to len bytes, waiting up to timeout_ms (-1: for ever) for room when there is none.
 * Returns the bytes written (> 0), 0 when no room came in time (or a signal came first),
 * WIRE_END when the peer closed, WIRE_GONE or WIRE_ERROR, with a reason in err. */
long wire_write(struct wire *l, const void *buf, size_t len, int timeout_ms, char *err,
                size_t errlen);

/* Returns the descriptor to poll() for input alongside others. */
int wire_fd(const struct wire *l);

/* Returns what was opened, for messages ("/dev/ttyUSB0", "127.0.0.1:4444"). */
const char *wire_name(const struct wire *l);

/* Closes the link. NULL is fine. */
void wire_close(struct wire *l);

#endif
