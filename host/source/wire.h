/* wire.h - byte links a live stream comes over: a serial port (termios: raw, 8N1, the baud
 * given), a TCP socket (ser2net, QEMU -serial tcp:), a file, named pipe or character device,
 * and an RTT channel that a poller reads through a GDB server (rtt.h). One tiny interface, one
 * implementation per kind. */
#ifndef WIRE_H
#define WIRE_H

#include <stddef.h>

struct wire;

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
 * Returns the bytes read (> 0), 0 when none came in time (or a signal came first), -1 at the
 * end of the stream (EOF, the peer closed), or -2 on an error, with a reason in err ("device
 * disappeared (EIO)", "connection reset"). A serial port has no end: EIO, ENXIO or a hang-up
 * (an adapter pulled out, the other side of a pty closed) is -2 "device disappeared". */
long wire_read(struct wire *l, void *buf, size_t len, int timeout_ms, char *err, size_t errlen);

/* Returns the descriptor to poll() for input alongside others. */
int wire_fd(const struct wire *l);

/* Returns what was opened, for messages ("/dev/ttyUSB0", "127.0.0.1:4444"). */
const char *wire_name(const struct wire *l);

/* Closes the link. NULL is fine. */
void wire_close(struct wire *l);

#endif
