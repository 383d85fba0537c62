/* rsp.h - a client of the GDB remote serial protocol: the one interface that OpenOCD, pyOCD,
 * J-Link GDB Server, Black Magic Probe, st-util, QEMU and gdbserver all serve. Enough of it to
 * read a target's memory and leave the target as it was found, and to write a request into it
 * at the right moment: connect over TCP or a serial tty, qSupported, memory reads (binary "x"
 * where offered, else hex "m") and writes ("X", else "M"), monitor commands, halt, breakpoints,
 * continue and the wait for the stop, registers, auxv for a PIE's load bias, and detach.
 *
 * Every wait has a deadline: a silent or dead server is an error after timeout_ms, never a hang.
 * Errors are negative RSP_E* codes; rsp_error() gives the one-line reason of the last one.
 *
 * The framing and parsing below the connection are pure functions, tested without a socket. */
#ifndef RSP_H
#define RSP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

enum {
    RSP_EIO = -1,          /* the connection failed (read, write, connect) */
    RSP_ETIMEOUT = -2,     /* no answer within the timeout */
    RSP_ECLOSED = -3,      /* the server closed the connection */
    RSP_ECHECKSUM = -4,    /* replies kept arriving with bad checksums */
    RSP_EFRAME = -5,       /* a malformed packet, bad hex, bad run-length encoding */
    RSP_ETOOLONG = -6,     /* a reply longer than the buffer it must fit */
    RSP_EREPLY = -7,       /* the server answered "E NN" */
    RSP_EUNSUPPORTED = -8, /* the server does not know the request (empty reply) */
    RSP_ENOMEM = -9,
    RSP_ESTOPPED = -10, /* the progress callback or the stop flag asked to stop */
};

/* Where to connect, as "--gdb=" gives it: HOST:PORT, or a serial device path[:BAUD]. */
struct rsp_where {
    int serial;     /* 1: path is a tty; 0: host and port are a TCP address */
    char host[256]; /* without IPv6 brackets; "127.0.0.1" when ":PORT" left it out */
    char port[8];
    char path[512];
    unsigned baud; /* serial only; 115200 unless given */
};

/* What a qSupported reply says. */
struct rsp_features {
    size_t packet_size; /* PacketSize (bytes), or 400 when not given */
    int no_ack;         /* QStartNoAckMode+ */
    int binary_upload;  /* binary-upload+: the "x addr,len" read */
    int auxv;           /* qXfer:auxv:read+ */
};

/* Called after each packet of a read: bytes done so far of total. Returns nonzero to stop the
 * read there (RSP_ESTOPPED), e.g. on Ctrl-C, so that the caller can still detach cleanly. */
typedef int (*rsp_progress_fn)(void *arg, uint64_t done, uint64_t total);

/* Called with each piece of console output ("O" packets) a monitor command prints. */
typedef void (*rsp_output_fn)(void *arg, const char *text, size_t len);

struct rsp;

/* Parses a --gdb= argument; 0, or -1 with a reason in err. */
int rsp_parse_where(const char *s, struct rsp_where *w, char *err, size_t errlen);

/* Every wait (connect, send, reply) ends within a tenth of a second once *flag is nonzero
 * (the caller's signal handler sets it on Ctrl-C): the request fails with RSP_ESTOPPED and
 * the reason "interrupted"; rsp_close still detaches, within its own short wait. NULL: none.
 * Process-wide, as signals are. */
void rsp_set_stop(const volatile sig_atomic_t *flag);

/* Connects and asks qSupported; NULL with a one-line reason in err. */
struct rsp *rsp_connect(const char *where, int timeout_ms, char *err, size_t errlen);

/* Returns what the server's qSupported reply said. */
const struct rsp_features *rsp_features(const struct rsp *c);

/* Reads len bytes of target memory at addr into buf, in packets that fit the server; 0 or an
 * RSP_E* code (the reason names the address). progress may be NULL. */
int rsp_read_mem(struct rsp *c, uint64_t addr, void *buf, size_t len, rsp_progress_fn progress,
                 void *arg);

/* Runs a monitor command (qRcmd), handing its console output to out (may be NULL); 0 or an
 * RSP_E* code. */
int rsp_monitor(struct rsp *c, const char *cmd, rsp_output_fn out, void *arg);

/* Attaches to target (or process) n, as Black Magic Probe needs after "monitor swdp_scan":
 * vAttach; 0 or an RSP_E* code. */
int rsp_attach(struct rsp *c, unsigned long n);

/* Interrupts a running target (0x03) and waits for its stop reply: 0 stopped (at once when the
 * connection's '?', or the wait after the last continue, found it stopped), 1 no stop reply
 * within a second (the target was most likely halted already), or an RSP_E* code. */
int rsp_halt(struct rsp *c);

/* Writes len bytes of buf into target memory at addr, in packets that fit the server: binary
 * "X" where the server takes it, else hex "M"; 0 or an RSP_E* code (the reason names the
 * address). */
int rsp_write_mem(struct rsp *c, uint64_t addr, const void *buf, size_t len);

/* Reads register n ('p', or the n-th of size bytes in 'g' where 'p' is unknown): 0 and its
 * little-endian value (size bytes at most 8) in *val, or an RSP_E* code. */
int rsp_read_reg(struct rsp *c, unsigned n, unsigned size, uint64_t *val);

enum { RSP_BP_SOFT = 0, RSP_BP_HARD = 1 }; /* breakpoint types: Z0, Z1 */

/* Inserts (insert = 1) or removes a breakpoint of type RSP_BP_* at addr; kind is the
 * architecture's (2: a Thumb instruction, 4: an ARM or RISC-V one, 1: x86). 0,
 * RSP_EUNSUPPORTED when the server has no such breakpoints, or another RSP_E* code. */
int rsp_breakpoint(struct rsp *c, int type, uint64_t addr, unsigned kind, int insert);

/* Resumes a halted target ('c') without waiting: its stop reply is rsp_wait_stop's. 0 or an
 * RSP_E* code. */
int rsp_continue(struct rsp *c);

/* Waits timeout_ms at most for the stop reply of a target that rsp_continue resumed: 0 and
 * the signal in *sig; RSP_ETIMEOUT (it still runs: rsp_halt stops it), RSP_ESTOPPED (the stop
 * flag), RSP_EREPLY (it exited), or another RSP_E* code. Console output goes where
 * rsp_monitor's went: nowhere. */
int rsp_wait_stop(struct rsp *c, int timeout_ms, int *sig);

/* After Ctrl-C or a failure, to undo what was done (halt, remove a breakpoint) before
 * rsp_close: from now on the stop flag cuts no wait short, and each lasts a second at most. */
void rsp_cleanup(struct rsp *c);

/* Reads the whole auxiliary vector (qXfer:auxv:read) into a malloc'd *buf; 0 or an RSP_E*
 * code (RSP_EUNSUPPORTED when the server does not offer it). */
int rsp_auxv(struct rsp *c, uint8_t **buf, size_t *len);

/* Asks qOffsets for the text section's offset; 0 or an RSP_E* code. */
int rsp_offsets(struct rsp *c, uint64_t *text);

/* Returns the reason of the last error on c. */
const char *rsp_error(const struct rsp *c);

/* Detaches (the target resumes as it was before we came, or goes on running) and closes.
 * NULL is fine. */
void rsp_close(struct rsp *c);

/* --- pure helpers (tests/check_rsp.c) ----------------------------------------------------- */

/* Returns the modulo-256 sum of n bytes: a packet's checksum. */
uint8_t rsp_checksum(const void *p, size_t n);

/* Writes "$data#cs" into out, escaping '$', '#', '}' and '*'; returns the frame's length, or
 * RSP_ETOOLONG when it does not fit in cap. */
long rsp_frame(const void *data, size_t n, char *out, size_t cap);

/* Decodes a packet body as received between '$' and '#': run-length expansion, then '}'
 * unescaping; returns the decoded length or RSP_EFRAME / RSP_ETOOLONG. */
long rsp_decode(const char *body, size_t n, uint8_t *out, size_t cap);

/* Checks and decodes a whole frame "$body#cs"; returns the decoded length, or RSP_EFRAME
 * (no '$', no '#', short or non-hex checksum, bad encoding), RSP_ECHECKSUM, RSP_ETOOLONG. */
long rsp_unframe(const char *frame, size_t n, uint8_t *out, size_t cap);

/* Decodes n hex digits into n/2 bytes; returns n/2, or -1 (odd count, a non-hex digit, or more
 * than cap bytes). */
long rsp_hex_decode(const char *hex, size_t n, uint8_t *out, size_t cap);

/* Encodes n bytes as 2n lower-case hex digits plus a NUL; returns 2n, or -1 if cap is short. */
long rsp_hex_encode(const void *p, size_t n, char *out, size_t cap);

/* Returns NN (0..255) when the reply is an error "E NN" (or "E.text": 0), else -1. */
int rsp_error_code(const char *reply, size_t n);

/* Writes an error reply as the server sent it ("E01", "E.memory error"; printable characters
 * only, 100 at most) into buf: 0, or -1 when the reply is no error. */
int rsp_error_text(const char *reply, size_t n, char *buf, size_t len);

/* Fills f from a qSupported reply; 0, or -1 when a PacketSize is not a hex number. */
int rsp_parse_supported(const char *reply, size_t n, struct rsp_features *f);

/* Finds entry type in an auxiliary vector of word_bytes-wide little-endian pairs; 0 and *val,
 * or -1 when absent. */
int rsp_auxv_find(const uint8_t *auxv, size_t len, unsigned word_bytes, uint64_t type,
                  uint64_t *val);

/* --- for tests (tests/fuzz/fuzz_rsp.c) ------------------------------------------------------ */

/* rsp_connect over a stream socket fd already connected to a server (a socketpair end whose
 * other end holds the replies), named name in messages; takes fd, even on failure. */
struct rsp *rsp_open_fd(int fd, const char *name, int timeout_ms, char *err, size_t errlen);

#endif
