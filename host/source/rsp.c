/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rsp.c - the GDB remote serial protocol client: the session (requests, waits, stop replies,
 * cleanup) over a link (wire.h), in packets that rspcodec.h frames and decodes.
 *
 * Each side answers a packet with '+' (good) or '-' (send it again) until both agree on
 * QStartNoAckMode. A server may send console output ("O" + hex) and stop replies between a
 * request and its answer.
 *
 * Every request is: send, then read bytes until a reply frame arrives, with one deadline for
 * the whole wait: console packets do not extend it, or a server that prints every second would
 * keep us forever. A reply with a bad checksum is refused with '-' a bounded number of times; a
 * server that keeps refusing ours is given up on likewise. Nothing waits without a deadline,
 * so a server that goes silent is an error, not a hang; and no wait outlasts the stop flag
 * (Ctrl-C) by more than a poll slice. */
#include "source/rsp.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source/rspcodec.h"
#include "source/rspwhere.h"
#include "source/wire.h"
#include "util/le.h"
#include "util/mono.h"

#define RSP_RETRIES 3       /* resends of one packet, refusals of bad replies */
#define RSP_MIN_BUFFER 4096 /* replies before and besides the bulk reads: qSupported, ... */
#define RSP_DETACH_MS 1000  /* how long "D" may take before we close anyway */
#define RSP_HALT_MS 1000    /* how long a halt may take to be answered */
#define RSP_SLICE_MS 100    /* the longest a wait goes without looking at the stop flag */
#define RSP_ERR_MAX 320     /* a reason, and the one a prefix goes in front of */

/* recv_frame's code for a '-' from the server: resend the request. */
#define RSP_NAK 1

struct rsp {
    struct wire *w;
    int timeout_ms;
    int no_ack;    /* both sides stopped acknowledging */
    int want_stop; /* the request being answered is '?': a stop reply is its answer */
    int halted;    /* the target is known stopped: '?' or the wait after a continue said so,
                      and nothing resumed it since */
    int closing;   /* detaching: the stop flag no longer cuts the (short) wait */
    int no_x;      /* the server does not take binary writes: "M" instead of "X" */
    struct rspcodec_features feat;
    char *raw; /* the body of the frame being received, as sent */
    size_t raw_cap;
    uint8_t *pkt; /* the decoded reply */
    size_t pkt_cap, pkt_len;
    char *tx; /* the framed request */
    size_t tx_cap, tx_len;
    uint8_t in[4096]; /* bytes read from the link, not yet used */
    size_t in_pos, in_len;
    rsp_output_fn out; /* where console output goes during a request, NULL: dropped */
    void *out_arg;
};

/* --- the connection --------------------------------------------------------------------------- */

/* Signals are process-wide, and so is the flag that says one came. */
static const volatile sig_atomic_t *stop_flag;

void rsp_set_stop(const volatile sig_atomic_t *flag)
{
    stop_flag = flag;
}

static int stopped(const struct rsp *c)
{
    return stop_flag && *stop_flag && !(c && c->closing);
}

/* A poll of at most RSP_SLICE_MS: a signal that lands just before it is seen that late. */
static int slice(int64_t left)
{
    return left <= 0 ? 0 : left < RSP_SLICE_MS ? (int)left : RSP_SLICE_MS;
}

/* Writes the reason into err and returns code. */
static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

/* Puts "what: " in front of the reason already in err. */
static int prefix(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int prefix(char *err, size_t errlen, int code, const char *fmt, ...)
{
    char why[RSP_ERR_MAX];
    va_list ap;
    int n;

    snprintf(why, sizeof why, "%s", err);
    va_start(ap, fmt);
    n = vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, ": %s", why);
    return code;
}

/* The timeout as people say it: "2 s", "0.5 s". */
static const char *secs(int ms)
{
    static char buf[32];

    if (ms % 1000)
        snprintf(buf, sizeof buf, "%.1f s", ms / 1000.0);
    else
        snprintf(buf, sizeof buf, "%d s", ms / 1000);
    return buf;
}

/* Sends n bytes within the timeout; 0 or an RSP_E* code. */
static int write_all(struct rsp *c, const void *p, size_t n, char *err, size_t errlen)
{
    const uint8_t *b = p;
    int64_t deadline = mono_ms() + c->timeout_ms;
    char why[RSP_ERR_MAX];

    while (n) {
        long k = wire_write(c->w, b, n, slice(deadline - mono_ms()), why, sizeof why);

        if (k > 0) {
            b += k;
            n -= (size_t)k;
            continue;
        }
        if (k == WIRE_END || k == WIRE_GONE)
            return fail(err, errlen, RSP_ECLOSED, "the server closed the connection");
        if (k < 0)
            return fail(err, errlen, RSP_EIO, "write: %s", why);
        if (stopped(c))
            return fail(err, errlen, RSP_ESTOPPED, "interrupted");
        if (deadline - mono_ms() <= 0)
            return fail(err, errlen, RSP_ETIMEOUT, "could not send within %s", secs(c->timeout_ms));
    }
    return 0;
}

/* The next byte from the server, or an RSP_E* code once the deadline has passed. */
static int get_byte(struct rsp *c, int64_t deadline, char *err, size_t errlen)
{
    char why[RSP_ERR_MAX];

    while (c->in_pos == c->in_len) {
        int64_t left = deadline - mono_ms();
        long k;

        if (stopped(c))
            return fail(err, errlen, RSP_ESTOPPED, "interrupted");
        if (left <= 0)
            return fail(err, errlen, RSP_ETIMEOUT, "no answer within %s", secs(c->timeout_ms));
        k = wire_read(c->w, c->in, sizeof c->in, slice(left), why, sizeof why);
        if (k > 0) {
            c->in_pos = 0;
            c->in_len = (size_t)k;
        } else if (k == WIRE_END || k == WIRE_GONE) {
            return fail(err, errlen, RSP_ECLOSED, "the server closed the connection");
        } else if (k < 0) {
            return fail(err, errlen, RSP_EIO, "read: %s", why);
        }
    }
    return c->in[c->in_pos++];
}

/* Reads up to the next frame and leaves its body in c->raw (NUL-terminated, length in *n).
 * Returns 0, RSP_NAK for a '-', RSP_ECHECKSUM / RSP_EFRAME for a damaged frame (the caller
 * may ask again), or another RSP_E* code. Notifications ('%'...) are read and dropped. */
static int recv_frame(struct rsp *c, int64_t deadline, size_t *n, char *err, size_t errlen)
{
    int ch, hi, lo, notify;
    size_t len;

restart:
    do {
        if ((ch = get_byte(c, deadline, err, errlen)) < 0)
            return ch;
        if (ch == '-')
            return RSP_NAK;
    } while (ch != '$' && ch != '%');
    notify = ch == '%';
    len = 0;
    for (;;) {
        if ((ch = get_byte(c, deadline, err, errlen)) < 0)
            return ch;
        if (ch == '#')
            break;
        if (ch == '$') /* a fresh start: what came before was noise */
            goto restart;
        if (len + 1 >= c->raw_cap)
            return fail(err, errlen, RSP_ETOOLONG, "a reply longer than %zu bytes", c->raw_cap);
        c->raw[len++] = (char)ch;
    }
    if ((hi = get_byte(c, deadline, err, errlen)) < 0)
        return hi;
    if ((lo = get_byte(c, deadline, err, errlen)) < 0)
        return lo;
    c->raw[len] = 0;
    if (notify)
        goto restart;
    *n = len;
    if (rspcodec_hex_digit(hi) < 0 || rspcodec_hex_digit(lo) < 0)
        return fail(err, errlen, RSP_EFRAME, "a reply without a checksum");
    if (rspcodec_checksum(c->raw, len) != (rspcodec_hex_digit(hi) << 4 | rspcodec_hex_digit(lo)))
        return fail(err, errlen, RSP_ECHECKSUM, "a reply with a bad checksum");
    return 0;
}

/* Hands the hex text of the reply from byte from on to the console output callback. */
static void output(struct rsp *c, size_t from)
{
    char text[512];
    size_t n = (c->pkt_len - from) / 2, i = 0;

    while (c->out && i < n) {
        size_t k = n - i < sizeof text ? n - i : sizeof text;

        rspcodec_hex_decode((const char *)c->pkt + from + 2 * i, 2 * k, (uint8_t *)text, k);
        c->out(c->out_arg, text, k);
        i += k;
    }
}

static int is_output(const struct rsp *c)
{
    return rspcodec_is_output((const char *)c->pkt, c->pkt_len);
}

static int is_stop_reply(const struct rsp *c)
{
    return rspcodec_is_stop((const char *)c->pkt, c->pkt_len);
}

/* The next packet, into c->pkt / c->pkt_len (NUL-terminated), with the protocol's
 * acknowledgements: a '-' for what we sent sends tx again (when resend; *naks counts them), a
 * frame with a bad checksum gets a '-' (*bad counts them) and a good one a '+'. A packet that
 * does not decode (RSP_EFRAME, RSP_ETOOLONG: a frame that did not arrive whole is retried
 * here) is returned as its code without a message: the caller says whether that ends the
 * exchange. */
static int next_packet(struct rsp *c, int64_t deadline, int resend, int *naks, int *bad, char *err,
                       size_t errlen)
{
    size_t n;
    long k;
    int rc;

    for (;;) {
        rc = recv_frame(c, deadline, &n, err, errlen);
        if (rc == RSP_NAK) {
            if (!resend || ++*naks > RSP_RETRIES)
                return fail(err, errlen, RSP_ECHECKSUM,
                            "the server refused our packet %d times (a noisy line, or not a "
                            "GDB server)",
                            *naks);
            if ((rc = write_all(c, c->tx, c->tx_len, err, errlen)) < 0)
                return rc;
            continue;
        }
        if (rc == RSP_ECHECKSUM || rc == RSP_EFRAME) {
            if (c->no_ack || ++*bad > RSP_RETRIES)
                return fail(err, errlen, RSP_ECHECKSUM,
                            "%s (a noisy line, a wrong baud rate, or not a GDB server)",
                            c->no_ack ? "a reply with a bad checksum"
                                      : "the replies kept failing their checksum");
            if ((rc = write_all(c, "-", 1, err, errlen)) < 0)
                return rc;
            continue;
        }
        if (rc < 0)
            return rc;
        if (!c->no_ack && (rc = write_all(c, "+", 1, err, errlen)) < 0)
            return rc;
        k = rspcodec_decode(c->raw, n, c->pkt, c->pkt_cap - 1);
        if (k < 0)
            return (int)k;
        c->pkt_len = (size_t)k;
        c->pkt[k] = 0;
        return 0;
    }
}

/* Waits for the answer to what was sent (tx); resends it on a '-'. The reply is decoded into
 * c->pkt / c->pkt_len (NUL-terminated). */
static int await_reply(struct rsp *c, int resend, char *err, size_t errlen)
{
    int64_t deadline = mono_ms() + c->timeout_ms;
    int naks = 0, bad = 0, rc;

    for (;;) {
        rc = next_packet(c, deadline, resend, &naks, &bad, err, errlen);
        if (rc == RSP_ETOOLONG || rc == RSP_EFRAME)
            return fail(err, errlen, rc, "a reply with %s",
                        rc == RSP_ETOOLONG ? "more data than fits in a packet"
                                           : "bad run-length encoding");
        if (rc < 0)
            return rc;
        if (is_output(c)) {
            output(c, 1);
            continue;
        }
        /* A stop reply nobody asked for: QEMU announces that it stopped the machine when we
         * connected, a halt's answer may come late. It answers no request but '?'. */
        if (!c->want_stop && is_stop_reply(c))
            continue;
        return 0;
    }
}

/* Sends the request of n bytes (binary data escaped here) and waits for its answer (in
 * c->pkt). */
static int request_n(struct rsp *c, const void *cmd, size_t n, char *err, size_t errlen)
{
    long k = rspcodec_frame(cmd, n, c->tx, c->tx_cap);
    int rc;

    if (k < 0)
        return fail(err, errlen, RSP_ETOOLONG, "request too long for the server's packets");
    c->tx_len = (size_t)k;
    if ((rc = write_all(c, c->tx, c->tx_len, err, errlen)) < 0)
        return rc;
    return await_reply(c, 1, err, errlen);
}

static int request(struct rsp *c, const char *cmd, char *err, size_t errlen)
{
    return request_n(c, cmd, strlen(cmd), err, errlen);
}

static int reply_is(const struct rsp *c, const char *s)
{
    return c->pkt_len == strlen(s) && !memcmp(c->pkt, s, c->pkt_len);
}

/* Sizes the buffers for the packet size the server announced. */
static int size_buffers(struct rsp *c, size_t packet)
{
    size_t cap = 2 * packet + 64; /* escapes may double a binary reply */
    char *raw = realloc(c->raw, cap), *tx;
    uint8_t *pkt;

    if (raw)
        c->raw = raw;
    pkt = raw ? realloc(c->pkt, cap + 1) : NULL;
    if (pkt)
        c->pkt = pkt;
    tx = pkt ? realloc(c->tx, cap) : NULL;
    if (tx)
        c->tx = tx;
    if (!raw || !pkt || !tx)
        return RSP_ENOMEM;
    c->raw_cap = c->tx_cap = cap;
    c->pkt_cap = cap + 1;
    return 0;
}

/* Closes the link and frees c. */
static void rsp_free(struct rsp *c)
{
    wire_close(c->w);
    free(c->raw);
    free(c->pkt);
    free(c->tx);
    free(c);
}

/* rsp_connect once the link is open: the handshake over w (taken, even on failure). The fuzz
 * tests come in here through rsp_open_fd, with a socketpair instead of a server. */
static struct rsp *handshake(struct wire *w, const char *where, int timeout_ms, char *err,
                             size_t errlen)
{
    char why[RSP_ERR_MAX];
    struct rsp *c;
    int rc;

    if (!(c = calloc(1, sizeof *c))) {
        wire_close(w);
        snprintf(err, errlen, "%s: out of memory", where);
        return NULL;
    }
    c->w = w;
    c->timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
    if (size_buffers(c, RSP_MIN_BUFFER) < 0) {
        rc = fail(why, sizeof why, RSP_ENOMEM, "out of memory");
        goto fail;
    }
    /* GDB starts with a '+': it acknowledges whatever the server may have sent already. */
    if ((rc = write_all(c, "+", 1, why, sizeof why)) < 0 ||
        (rc = request(c, "qSupported", why, sizeof why)) < 0)
        goto fail;
    if (rspcodec_parse_supported((const char *)c->pkt, c->pkt_len, &c->feat) < 0) {
        rc = fail(why, sizeof why, RSP_EFRAME, "a qSupported reply with a bad PacketSize");
        goto fail;
    }
    if (c->feat.packet_size < 32) /* too small to be honest; GDB would not go below either */
        c->feat.packet_size = 32;
    if (c->feat.packet_size > RSP_MIN_BUFFER && size_buffers(c, c->feat.packet_size) < 0) {
        rc = fail(why, sizeof why, RSP_ENOMEM, "out of memory");
        goto fail;
    }
    /* Acknowledgements only slow a reliable link down; the OK is the last packet acked. */
    if (c->feat.no_ack) {
        if ((rc = request(c, "QStartNoAckMode", why, sizeof why)) < 0)
            goto fail;
        c->no_ack = reply_is(c, "OK");
    }
    /* GDB asks why the target stopped before anything else, and gdbserver picks its current
     * process and thread on that question: without it, auxv and detach fail with E01. The
     * answer itself does not matter here. */
    c->want_stop = 1;
    rc = request(c, "?", why, sizeof why);
    c->want_stop = 0;
    if (rc < 0)
        goto fail;
    /* In all-stop mode a server that answers with a stop reply holds the target (QEMU stops it
     * for a client, probes halt at attach): a halt then has nothing to wait for. */
    c->halted = is_stop_reply(c) && strchr("TS", c->pkt[0]);
    return c;
fail:
    snprintf(err, errlen, "%s: %s%s", where, why,
             rc == RSP_ETIMEOUT ? "; is it a GDB server?" : "");
    rsp_free(c);
    return NULL;
}

/* Opens the link w names; 0 and *l, or -1 with the reason in err, in the words of a GDB
 * server's user (a device that is no terminal, a port where no server listens). */
static int open_link(const struct rspwhere *w, int timeout_ms, struct wire **l, char *err,
                     size_t errlen)
{
    char why[RSP_ERR_MAX];
    int rc;

    if (w->serial)
        rc = wire_connect_serial(l, w->path, w->baud, why, sizeof why);
    else
        rc = wire_connect_tcp(l, w->host, w->port, timeout_ms, stop_flag, why, sizeof why);
    if (rc == WIRE_ENOTTY)
        snprintf(err, errlen, "not a serial device (%s)", why);
    else if (rc == WIRE_EREFUSED)
        snprintf(err, errlen,
                 "connection refused; is the GDB server (OpenOCD, pyOCD, "
                 "JLinkGDBServer, QEMU -gdb, gdbserver) running on that port?");
    else if (rc == WIRE_ENOHOST || rc == WIRE_ERESOLVE)
        snprintf(err, errlen, "unknown host (%s)", why);
    else if (rc < 0)
        snprintf(err, errlen, "%s", why);
    return rc < 0 ? -1 : 0;
}

struct rsp *rsp_connect(const char *where, int timeout_ms, char *err, size_t errlen)
{
    struct rspwhere w;
    struct wire *l;
    char why[1024];

    timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
    if (rspwhere_parse(where, &w, why, sizeof why) < 0 ||
        open_link(&w, timeout_ms, &l, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: %s", where, why);
        return NULL;
    }
    return handshake(l, where, timeout_ms, err, errlen);
}

struct rsp *rsp_open_fd(int fd, const char *name, int timeout_ms, char *err, size_t errlen)
{
    struct wire *l = wire_open_socket(fd, name, err, errlen);

    return l ? handshake(l, name, timeout_ms, err, errlen) : NULL;
}

const struct rspcodec_features *rsp_features(const struct rsp *c)
{
    return &c->feat;
}

/* The reply to a memory read: into buf (at most want bytes); the count, or an RSP_E* code. */
static long mem_reply(struct rsp *c, int binary, uint8_t *buf, size_t want, char *err,
                      size_t errlen)
{
    char e[128];
    long got;

    if (rspcodec_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(err, errlen, RSP_EREPLY,
                    "the server answered %s (memory it cannot read: a wrong "
                    "address, or no target attached)",
                    e);
    if (c->pkt_len == 0)
        return RSP_EUNSUPPORTED;
    if (binary) {
        if (c->pkt[0] != 'b')
            return fail(err, errlen, RSP_EFRAME, "a reply to 'x' without its 'b'");
        got = (long)(c->pkt_len - 1);
        if ((size_t)got > want)
            return fail(err, errlen, RSP_EFRAME, "more bytes than asked for");
        memcpy(buf, c->pkt + 1, (size_t)got);
    } else {
        got = rspcodec_hex_decode((const char *)c->pkt, c->pkt_len, buf, want);
        if (got < 0)
            return fail(err, errlen, RSP_EFRAME, "a reply to 'm' that is not %s",
                        c->pkt_len / 2 > want ? "as long as asked for" : "hex");
    }
    if (got == 0)
        return fail(err, errlen, RSP_EREPLY, "the server returned no bytes");
    return got;
}

int rsp_read_mem(struct rsp *c, uint64_t addr, void *buf, size_t len, rsp_progress_fn progress,
                 void *arg, char *err, size_t errlen)
{
    uint8_t *b = buf;
    size_t done = 0, room = c->feat.packet_size - 8; /* '$', "#cs", and a margin */
    int binary = c->feat.binary_upload;
    char cmd[64];

    while (done < len) {
        /* Binary replies carry a byte per byte (the server sends fewer when escapes do not
         * fit); hex replies two characters per byte. */
        size_t n = len - done, chunk = binary ? room : room / 2;
        long got;
        int rc;

        if (n > chunk)
            n = chunk;
        snprintf(cmd, sizeof cmd, "%c%" PRIx64 ",%zx", binary ? 'x' : 'm', addr + done, n);
        if ((rc = request(c, cmd, err, errlen)) < 0)
            return prefix(err, errlen, rc, "reading %zu bytes at 0x%" PRIx64, n, addr + done);
        got = mem_reply(c, binary, b + done, n, err, errlen);
        if (got == RSP_EUNSUPPORTED && binary) {
            binary = c->feat.binary_upload = 0; /* it said binary-upload+ but means no */
            continue;
        }
        if (got == RSP_EUNSUPPORTED)
            return fail(err, errlen, RSP_EUNSUPPORTED,
                        "the server does not read memory ('m' unsupported)");
        if (got < 0)
            return prefix(err, errlen, (int)got, "reading %zu bytes at 0x%" PRIx64, n, addr + done);
        done += (size_t)got;
        if (progress && progress(arg, done, len))
            return fail(err, errlen, RSP_ESTOPPED, "stopped after %zu of %zu bytes at 0x%" PRIx64,
                        done, len, addr);
    }
    return 0;
}

int rsp_monitor(struct rsp *c, const char *cmd, rsp_output_fn out, void *arg, char *err,
                size_t errlen)
{
    size_t n = strlen(cmd);
    char *pkt = malloc(6 + 2 * n + 1), e[128];
    int rc;

    if (!pkt)
        return fail(err, errlen, RSP_ENOMEM, "out of memory");
    memcpy(pkt, "qRcmd,", 6);
    rspcodec_hex_encode(cmd, n, pkt + 6, 2 * n + 1);
    c->out = out;
    c->out_arg = arg;
    rc = request(c, pkt, err, errlen);
    free(pkt);
    /* Some servers send the output as the answer itself instead of 'O' packets. */
    if (rc == 0 && c->pkt_len % 2 == 0 && !reply_is(c, "OK") &&
        rspcodec_is_hex((const char *)c->pkt, c->pkt_len))
        output(c, 0);
    c->out = NULL;
    if (rc < 0)
        return prefix(err, errlen, rc, "monitor %s", cmd);
    if (c->pkt_len == 0)
        return fail(err, errlen, RSP_EUNSUPPORTED, "the server has no monitor commands (qRcmd)");
    if (rspcodec_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(err, errlen, RSP_EREPLY, "monitor %s: the server answered %s", cmd, e);
    return 0;
}

int rsp_attach(struct rsp *c, unsigned long n, char *err, size_t errlen)
{
    char cmd[32], e[128];
    int rc;

    snprintf(cmd, sizeof cmd, "vAttach;%lx", n);
    c->want_stop = 1; /* the answer to an attach is the stop reply of what it stopped */
    rc = request(c, cmd, err, errlen);
    c->want_stop = 0;
    if (rc < 0)
        return prefix(err, errlen, rc, "attach %lu", n);
    if (rspcodec_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(err, errlen, RSP_EREPLY,
                    "attach %lu: the server answered %s (no such target; "
                    "scan first, e.g. --monitor=swdp_scan)",
                    n, e);
    if (c->pkt_len == 0)
        return fail(err, errlen, RSP_EUNSUPPORTED, "the server cannot attach (no vAttach)");
    return 0;
}

int rsp_halt(struct rsp *c, char *err, size_t errlen)
{
    int64_t deadline;
    size_t n;
    int rc;

    if (c->halted)
        return 0;
    /* 0x03 travels bare, outside any packet. A target already stopped that the connection's
     * '?' did not reveal sends no stop reply at all, so the wait is short: a probe halts a core
     * in milliseconds. */
    if ((rc = write_all(c, "\003", 1, err, errlen)) < 0)
        return rc;
    deadline = mono_ms() + (c->timeout_ms < RSP_HALT_MS ? c->timeout_ms : RSP_HALT_MS);
    for (;;) {
        rc = recv_frame(c, deadline, &n, err, errlen);
        if (rc == RSP_ETIMEOUT) /* a late stop reply is dropped by await_reply */
            return 1;
        if (rc == RSP_NAK)
            continue;
        if (rc < 0)
            return rc;
        if (!c->no_ack && (rc = write_all(c, "+", 1, err, errlen)) < 0)
            return rc;
        if (n >= 3 && strchr("TS", c->raw[0])) {
            c->halted = 1;
            return 0;
        }
        if (n >= 1 && strchr("WX", c->raw[0]))
            return fail(err, errlen, RSP_EREPLY, "the target exited when interrupted");
    }
}

/* The answer to a write or a breakpoint: "OK", an error, or empty (not supported). */
static int ok_reply(struct rsp *c, const char *what, char *err, size_t errlen)
{
    char e[128];

    if (rspcodec_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(err, errlen, RSP_EREPLY, "%s: the server answered %s", what, e);
    if (c->pkt_len == 0)
        return RSP_EUNSUPPORTED;
    if (!reply_is(c, "OK"))
        return fail(err, errlen, RSP_EFRAME, "%s: an unexpected reply '%.40s'", what,
                    (const char *)c->pkt);
    return 0;
}

int rsp_write_mem(struct rsp *c, uint64_t addr, const void *buf, size_t len, char *err,
                  size_t errlen)
{
    const uint8_t *b = buf;
    size_t done = 0;
    char what[96];

    while (done < len) {
        /* "Xaddr,len:" then at most twice the bytes (escapes; "M": hex) within the packet; a
         * server whose packets hold less than the header (32 bytes: the least it may say) still
         * gets a few bytes at a time, not the whole at once. */
        size_t n = len - done, o,
               room = c->feat.packet_size > 48 ? (c->feat.packet_size - 40) / 2 : 4;
        uint8_t *pkt;
        int rc;

        if (n > room)
            n = room;
        if (!(pkt = malloc(48 + 2 * n + 1)))
            return fail(err, errlen, RSP_ENOMEM, "out of memory");
        o = (size_t)sprintf((char *)pkt, "%c%" PRIx64 ",%zx:", c->no_x ? 'M' : 'X', addr + done, n);
        if (c->no_x) {
            rspcodec_hex_encode(b + done, n, (char *)pkt + o, 2 * n + 1);
            o += 2 * n;
        } else {
            memcpy(pkt + o, b + done, n);
            o += n;
        }
        snprintf(what, sizeof what, "writing %zu bytes at 0x%" PRIx64, n, addr + done);
        rc = request_n(c, pkt, o, err, errlen);
        free(pkt);
        if (rc < 0)
            return prefix(err, errlen, rc, "%s", what);
        rc = ok_reply(c, what, err, errlen);
        if (rc == RSP_EUNSUPPORTED && !c->no_x) {
            c->no_x = 1; /* GDB's own probe: an empty answer to "X" means "M" */
            continue;
        }
        if (rc == RSP_EUNSUPPORTED)
            return fail(err, errlen, rc, "the server does not write memory ('M' unsupported)");
        if (rc == RSP_EREPLY) {
            size_t used = strlen(err);

            snprintf(err + used, errlen - used,
                     " (memory it cannot write: a wrong address, flash, or no target attached)");
            return rc;
        }
        if (rc < 0)
            return rc;
        done += n;
    }
    return 0;
}

int rsp_read_reg(struct rsp *c, unsigned n, unsigned size, uint64_t *val, char *err, size_t errlen)
{
    uint8_t b[8] = {0};
    const char *hex;
    char cmd[32], e[128];
    size_t have;
    int rc;

    if (size == 0 || size > sizeof b)
        return fail(err, errlen, RSP_EFRAME, "register %u: %u bytes is no register size", n, size);
    snprintf(cmd, sizeof cmd, "p%x", n);
    if ((rc = request(c, cmd, err, errlen)) < 0)
        return prefix(err, errlen, rc, "reading register %u", n);
    hex = (const char *)c->pkt;
    have = c->pkt_len;
    if (have == 0) { /* no 'p': the n-th register of 'g', all of the same size */
        if ((rc = request(c, "g", err, errlen)) < 0)
            return prefix(err, errlen, rc, "reading the registers");
        if (c->pkt_len < 2 * (size_t)size * (n + 1) &&
            rspcodec_error_code((const char *)c->pkt, c->pkt_len) < 0)
            return fail(err, errlen, RSP_EUNSUPPORTED, "the server tells no register %u", n);
        hex = (const char *)c->pkt + 2 * (size_t)size * n;
        have = 2 * (size_t)size;
    }
    if (rspcodec_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(err, errlen, RSP_EREPLY, "register %u: the server answered %s", n, e);
    if (have > 2 * (size_t)size)
        have = 2 * (size_t)size;
    if (have % 2 || rspcodec_hex_decode(hex, have, b, sizeof b) < 0)
        return fail(err, errlen, RSP_EFRAME, "register %u: unavailable, or not hex", n);
    *val = le_get(b, (unsigned)(have / 2));
    return 0;
}

int rsp_breakpoint(struct rsp *c, int type, uint64_t addr, unsigned kind, int insert, char *err,
                   size_t errlen)
{
    const char *what = type == RSP_BP_HARD ? "hardware" : "software";
    char cmd[64], doing[96];
    int rc;

    snprintf(cmd, sizeof cmd, "%c%d,%" PRIx64 ",%x", insert ? 'Z' : 'z', type, addr, kind);
    snprintf(doing, sizeof doing, "%s a %s breakpoint at 0x%" PRIx64,
             insert ? "setting" : "removing", what, addr);
    if ((rc = request(c, cmd, err, errlen)) < 0)
        return prefix(err, errlen, rc, "%s", doing);
    rc = ok_reply(c, doing, err, errlen);
    if (rc == RSP_EUNSUPPORTED)
        return fail(err, errlen, rc, "the server has no %s breakpoints (%c%d unsupported)", what,
                    insert ? 'Z' : 'z', type);
    return rc;
}

int rsp_continue(struct rsp *c, char *err, size_t errlen)
{
    long k = rspcodec_frame("c", 1, c->tx, c->tx_cap);

    c->tx_len = (size_t)k; /* kept: a '-' from the server has it sent again */
    c->halted = 0;
    return write_all(c, c->tx, c->tx_len, err, errlen);
}

int rsp_wait_stop(struct rsp *c, int timeout_ms, int *sig, char *err, size_t errlen)
{
    int64_t deadline = mono_ms() + timeout_ms;
    int naks = 0, bad = 0, rc;

    for (;;) {
        rc = next_packet(c, deadline, 1, &naks, &bad, err,
                         errlen); /* a '-': the continue was refused */
        if (rc == RSP_ETIMEOUT)
            return fail(err, errlen, rc, "the target did not stop within %s", secs(timeout_ms));
        if (rc == RSP_ETOOLONG || rc == RSP_EFRAME || (rc == 0 && is_output(c)))
            continue; /* not a stop reply, whatever it was */
        if (rc < 0)
            return rc;
        if (is_stop_reply(c) && strchr("WX", c->pkt[0]))
            return fail(err, errlen, RSP_EREPLY, "the target exited (%s)", (const char *)c->pkt);
        if (is_stop_reply(c)) {
            *sig = rspcodec_hex_digit(c->pkt[1]) << 4 | rspcodec_hex_digit(c->pkt[2]);
            c->halted = 1;
            return 0;
        }
    }
}

void rsp_cleanup(struct rsp *c)
{
    c->closing = 1;
    if (c->timeout_ms > RSP_DETACH_MS)
        c->timeout_ms = RSP_DETACH_MS;
}

int rsp_auxv(struct rsp *c, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
    size_t have = 0, cap = 0, chunk = c->feat.packet_size - 8;
    uint8_t *data = NULL;
    char cmd[64];
    int rc;

    *buf = NULL;
    *len = 0;
    if (!c->feat.auxv)
        return fail(err, errlen, RSP_EUNSUPPORTED, "the server does not offer qXfer:auxv:read");
    for (;;) {
        snprintf(cmd, sizeof cmd, "qXfer:auxv:read::%zx,%zx", have, chunk);
        if ((rc = request(c, cmd, err, errlen)) < 0)
            goto out;
        if (c->pkt_len == 0 || (c->pkt[0] != 'l' && c->pkt[0] != 'm')) {
            char e[128];

            rc = rspcodec_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0
                     ? fail(err, errlen, RSP_EREPLY, "the server answered %s to qXfer:auxv:read", e)
                     : fail(err, errlen, RSP_EUNSUPPORTED, "no auxiliary vector from the server");
            goto out;
        }
        if (have + c->pkt_len > cap) {
            uint8_t *more = realloc(data, cap = 2 * (have + c->pkt_len));

            if (!more) {
                rc = fail(err, errlen, RSP_ENOMEM, "out of memory");
                goto out;
            }
            data = more;
        }
        memcpy(data + have, c->pkt + 1, c->pkt_len - 1);
        have += c->pkt_len - 1;
        if (c->pkt[0] == 'l')
            break;
        if (c->pkt_len == 1 || have > (1u << 20)) {
            rc = fail(err, errlen, RSP_EFRAME, "an auxiliary vector that never ends");
            goto out;
        }
    }
    *buf = data;
    *len = have;
    return 0;
out:
    free(data);
    return rc;
}

int rsp_offsets(struct rsp *c, uint64_t *text, char *err, size_t errlen)
{
    const char *p;
    char *end;
    int rc;

    if ((rc = request(c, "qOffsets", err, errlen)) < 0)
        return rc;
    p = strstr((const char *)c->pkt, "Text=");
    if (c->pkt_len == 0 || !p)
        return fail(err, errlen, RSP_EUNSUPPORTED, "the server does not answer qOffsets");
    *text = strtoull(p + 5, &end, 16);
    if (end == p + 5)
        return fail(err, errlen, RSP_EFRAME, "a qOffsets reply without a Text offset");
    return 0;
}

void rsp_close(struct rsp *c)
{
    char why[RSP_ERR_MAX];
    long k;

    if (!c)
        return;
    /* Detach: QEMU resumes the machine it stopped when we came, gdbserver lets the process go
     * on. The answer does not matter, so it gets a short wait. */
    k = rspcodec_frame("D", 1, c->tx, c->tx_cap);
    c->closing = 1; /* after Ctrl-C too: a target left halted under its probe is worse */
    c->timeout_ms = c->timeout_ms < RSP_DETACH_MS ? c->timeout_ms : RSP_DETACH_MS;
    c->tx_len = (size_t)k;
    if (k > 0 && write_all(c, c->tx, c->tx_len, why, sizeof why) == 0)
        await_reply(c, 0, why, sizeof why);
    rsp_free(c);
}
