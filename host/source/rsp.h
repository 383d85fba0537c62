/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rsp.h - a client of the GDB remote serial protocol: the one interface that OpenOCD, pyOCD,
 * J-Link GDB Server, Black Magic Probe, st-util, QEMU and gdbserver all serve. Enough of it to
 * read a target's memory and leave the target as it was found, and to write a request into it
 * at the right moment: connect over TCP or a serial tty, qSupported, memory reads (binary "x"
 * where offered, else hex "m") and writes ("X", else "M"), monitor commands, halt, breakpoints,
 * continue and the wait for the stop, registers, auxv for a PIE's load bias, and detach.
 *
 * Every wait has a deadline: a silent or dead server is an error after timeout_ms, never a hang.
 * A request that fails returns a negative RSP_E* code and writes its one-line reason into the
 * err it is given (host/README.md).
 *
 * The packets are rspcodec.h's, the link wire.h's, the --gdb= address rspwhere.h's. */
#ifndef RSP_H
#define RSP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "source/rspcodec.h"

enum {
    RSP_EIO = -1,                       /* the connection failed (read, write, connect) */
    RSP_ETIMEOUT = -2,                  /* no answer within the timeout */
    RSP_ECLOSED = -3,                   /* the server closed the connection */
    RSP_ECHECKSUM = RSPCODEC_ECHECKSUM, /* replies kept arriving with bad checksums */
    RSP_EFRAME = RSPCODEC_EFRAME,       /* a malformed packet, bad hex, bad run-length */
    RSP_ETOOLONG = RSPCODEC_ETOOLONG,   /* a reply longer than the buffer it must fit */
    RSP_EREPLY = -7,                    /* the server answered "E NN" */
    RSP_EUNSUPPORTED = -8,              /* the server does not know the request (empty reply) */
    RSP_ENOMEM = -9,
    RSP_ESTOPPED = -10, /* the progress callback or the stop flag asked to stop */
};

/* Called after each packet of a read: bytes done so far of total. Returns nonzero to stop the
 * read there (RSP_ESTOPPED), e.g. on Ctrl-C, so that the caller can still detach cleanly. */
typedef int (*rsp_progress_fn)(void *arg, uint64_t done, uint64_t total);

/* Called with each piece of console output ("O" packets) a monitor command prints. */
typedef void (*rsp_output_fn)(void *arg, const char *text, size_t len);

struct rsp;

/* Every wait (connect, send, reply) ends within a tenth of a second once *flag is nonzero
 * (the caller's signal handler sets it on Ctrl-C): the request fails with RSP_ESTOPPED and
 * the reason "interrupted"; rsp_close still detaches, within its own short wait. NULL: none.
 * Process-wide, as signals are. */
void rsp_set_stop(const volatile sig_atomic_t *flag);

/* Connects to where (rspwhere.h's syntax) and asks qSupported; NULL with a one-line reason in
 * err that names where. */
struct rsp *rsp_connect(const char *where, int timeout_ms, char *err, size_t errlen);

/* Returns what the server's qSupported reply said. */
const struct rspcodec_features *rsp_features(const struct rsp *c);

/* Reads len bytes of target memory at addr into buf, in packets that fit the server; 0 or an
 * RSP_E* code (the reason names the address). progress may be NULL. */
int rsp_read_mem(struct rsp *c, uint64_t addr, void *buf, size_t len, rsp_progress_fn progress,
                 void *arg, char *err, size_t errlen);

/* Runs a monitor command (qRcmd), handing its console output to out (may be NULL); 0 or an
 * RSP_E* code. */
int rsp_monitor(struct rsp *c, const char *cmd, rsp_output_fn out, void *arg, char *err,
                size_t errlen);

/* Attaches to target (or process) n, as Black Magic Probe needs after "monitor swdp_scan":
 * vAttach; 0 or an RSP_E* code. */
int rsp_attach(struct rsp *c, unsigned long n, char *err, size_t errlen);

/* Interrupts a running target (0x03) and waits for its stop reply: 0 stopped (at once when the
 * connection's '?', or the wait after the last continue, found it stopped), 1 no stop reply
 * within a second (the target was most likely halted already), or an RSP_E* code. */
int rsp_halt(struct rsp *c, char *err, size_t errlen);

/* Writes len bytes of buf into target memory at addr, in packets that fit the server: binary
 * "X" where the server takes it, else hex "M"; 0 or an RSP_E* code (the reason names the
 * address). */
int rsp_write_mem(struct rsp *c, uint64_t addr, const void *buf, size_t len, char *err,
                  size_t errlen);

/* Reads register n ('p', or the n-th of size bytes in 'g' where 'p' is unknown): 0 and its
 * little-endian value (size bytes at most 8) in *val, or an RSP_E* code. */
int rsp_read_reg(struct rsp *c, unsigned n, unsigned size, uint64_t *val, char *err, size_t errlen);

enum { RSP_BP_SOFT = 0, RSP_BP_HARD = 1 }; /* breakpoint types: Z0, Z1 */

/* Inserts (insert = 1) or removes a breakpoint of type RSP_BP_* at addr; kind is the
 * architecture's (2: a Thumb instruction, 4: an ARM or RISC-V one, 1: x86). 0,
 * RSP_EUNSUPPORTED when the server has no such breakpoints, or another RSP_E* code. */
int rsp_breakpoint(struct rsp *c, int type, uint64_t addr, unsigned kind, int insert, char *err,
                   size_t errlen);

/* Resumes a halted target ('c') without waiting: its stop reply is rsp_wait_stop's. 0 or an
 * RSP_E* code. */
int rsp_continue(struct rsp *c, char *err, size_t errlen);

/* Waits timeout_ms at most for the stop reply of a target that rsp_continue resumed: 0 and
 * the signal in *sig; RSP_ETIMEOUT (it still runs: rsp_halt stops it), RSP_ESTOPPED (the stop
 * flag), RSP_EREPLY (it exited), or another RSP_E* code. Console output goes where
 * rsp_monitor's went: nowhere. */
int rsp_wait_stop(struct rsp *c, int timeout_ms, int *sig, char *err, size_t errlen);

/* After Ctrl-C or a failure, to undo what was done (halt, remove a breakpoint) before
 * rsp_close: from now on the stop flag cuts no wait short, and each lasts a second at most. */
void rsp_cleanup(struct rsp *c);

/* Reads the whole auxiliary vector (qXfer:auxv:read) into a malloc'd *buf; 0 or an RSP_E*
 * code (RSP_EUNSUPPORTED when the server does not offer it). */
int rsp_auxv(struct rsp *c, uint8_t **buf, size_t *len, char *err, size_t errlen);

/* Asks qOffsets for the text section's offset; 0 or an RSP_E* code. */
int rsp_offsets(struct rsp *c, uint64_t *text, char *err, size_t errlen);

/* Detaches (the target resumes as it was before we came, or goes on running) and closes.
 * NULL is fine. */
void rsp_close(struct rsp *c);

/* --- for tests (tests/fuzz/fuzz_rsp.c) ------------------------------------------------------ */

/* rsp_connect over a stream socket fd already connected to a server (a socketpair end whose
 * other end holds the replies), named name in messages; takes fd, even on failure. */
struct rsp *rsp_open_fd(int fd, const char *name, int timeout_ms, char *err, size_t errlen);

#endif
