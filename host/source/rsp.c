/* rsp.c - the GDB remote serial protocol client: framing, transports, requests.
 *
 * A packet is "$body#cs", cs the modulo-256 sum of body as two hex digits. Each side answers a
 * packet with '+' (good) or '-' (send it again) until both agree on QStartNoAckMode. In replies
 * "X*c" repeats X (c - 29) more times, and "}c" stands for the byte c ^ 0x20 ('$', '#', '}',
 * '*' inside binary data). A server may send console output ("O" + hex) and stop replies
 * between a request and its answer.
 *
 * Every request is: send, then read bytes until a reply frame arrives, with one deadline for
 * the whole wait: console packets do not extend it, or a server that prints every second would
 * keep us forever. A reply with a bad checksum is refused with '-' a bounded number of times; a
 * server that keeps refusing ours is given up on likewise. Nothing waits without a deadline,
 * so a server that goes silent is an error, not a hang; and no wait outlasts the stop flag
 * (Ctrl-C) by more than a poll slice. */
#include "source/rsp.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define RSP_RETRIES 3          /* resends of one packet, refusals of bad replies */
#define RSP_DEFAULT_PACKET 400 /* GDB's own assumption when qSupported says nothing */
#define RSP_MAX_PACKET (1u << 20)
#define RSP_MIN_BUFFER 4096 /* replies before and besides the bulk reads: qSupported, ... */
#define RSP_DETACH_MS 1000  /* how long "D" may take before we close anyway */
#define RSP_HALT_MS 1000    /* how long a halt may take to be answered */
#define RSP_SLICE_MS 100    /* the longest a wait goes without looking at the stop flag */

/* recv_frame's code for a '-' from the server: resend the request. */
#define RSP_NAK 1

struct rsp {
    int fd;
    int serial;
    int timeout_ms;
    int no_ack;    /* both sides stopped acknowledging */
    int want_stop; /* the request being answered is '?': a stop reply is its answer */
    int halted;    /* the target is known stopped: '?' or the wait after a continue said so,
                      and nothing resumed it since */
    int closing;   /* detaching: the stop flag no longer cuts the (short) wait */
    int no_x;      /* the server does not take binary writes: "M" instead of "X" */
    struct rsp_features feat;
    char *raw; /* the body of the frame being received, as sent */
    size_t raw_cap;
    uint8_t *pkt; /* the decoded reply */
    size_t pkt_cap, pkt_len;
    char *tx; /* the framed request */
    size_t tx_cap, tx_len;
    uint8_t in[4096]; /* bytes read from fd, not yet used */
    size_t in_pos, in_len;
    rsp_output_fn out; /* where console output goes during a request, NULL: dropped */
    void *out_arg;
    char err[320];
};

/* --- pure helpers ----------------------------------------------------------------------------- */

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

uint8_t rsp_checksum(const void *p, size_t n)
{
    const uint8_t *b = p;
    unsigned sum = 0;

    for (size_t i = 0; i < n; i++)
        sum += b[i];
    return (uint8_t)sum;
}

static int needs_escape(uint8_t c)
{
    return c == '$' || c == '#' || c == '}' || c == '*';
}

long rsp_frame(const void *data, size_t n, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *d = data;
    size_t o = 0, start;
    uint8_t sum;

    if (cap < 4)
        return RSP_ETOOLONG;
    out[o++] = '$';
    start = o;
    for (size_t i = 0; i < n; i++) {
        if (o + (needs_escape(d[i]) ? 2 : 1) + 3 > cap)
            return RSP_ETOOLONG;
        if (needs_escape(d[i])) {
            out[o++] = '}';
            out[o++] = (char)(d[i] ^ 0x20);
        } else {
            out[o++] = (char)d[i];
        }
    }
    sum = rsp_checksum(out + start, o - start);
    out[o++] = '#';
    out[o++] = hex[sum >> 4];
    out[o++] = hex[sum & 15];
    return (long)o;
}

/* One pass: "}c" is one byte c ^ 0x20, "*c" repeats the last decoded byte c - 29 times. The
 * count character is taken as it comes (it may be '}' or '*'). Sane servers never run-length
 * encode an escaped byte, so this agrees with GDB's order (expand, then unescape) on all of
 * them. */
long rsp_decode(const char *body, size_t n, uint8_t *out, size_t cap)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)body[i];

        if (c == '}') {
            if (++i >= n)
                return RSP_EFRAME;
            c = (uint8_t)body[i] ^ 0x20;
        } else if (c == '*') {
            unsigned rep;

            if (o == 0 || ++i >= n)
                return RSP_EFRAME;
            c = (uint8_t)body[i];
            if (c < 32 || c > 126)
                return RSP_EFRAME;
            rep = c - 29u;
            if (rep > cap - o)
                return RSP_ETOOLONG;
            memset(out + o, out[o - 1], rep);
            o += rep;
            continue;
        }
        if (o >= cap)
            return RSP_ETOOLONG;
        out[o++] = c;
    }
    return (long)o;
}

long rsp_unframe(const char *frame, size_t n, uint8_t *out, size_t cap)
{
    const char *hash;
    int hi, lo;

    if (n < 4 || frame[0] != '$')
        return RSP_EFRAME;
    hash = memchr(frame + 1, '#', n - 1);
    if (!hash || (size_t)(hash - frame) + 3 != n)
        return RSP_EFRAME;
    hi = hexval((uint8_t)hash[1]);
    lo = hexval((uint8_t)hash[2]);
    if (hi < 0 || lo < 0)
        return RSP_EFRAME;
    if (rsp_checksum(frame + 1, (size_t)(hash - frame - 1)) != (hi << 4 | lo))
        return RSP_ECHECKSUM;
    return rsp_decode(frame + 1, (size_t)(hash - frame - 1), out, cap);
}

long rsp_hex_decode(const char *hex, size_t n, uint8_t *out, size_t cap)
{
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int hi = hexval((uint8_t)hex[i]), lo = hexval((uint8_t)hex[i + 1]);

        if (hi < 0 || lo < 0)
            return -1;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(n / 2);
}

long rsp_hex_encode(const void *p, size_t n, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *b = p;

    if (cap < 2 * n + 1)
        return -1;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[2 * n] = 0;
    return (long)(2 * n);
}

int rsp_error_code(const char *reply, size_t n)
{
    int hi, lo;

    if (n >= 2 && reply[0] == 'E' && reply[1] == '.')
        return 0;
    if (n != 3 || reply[0] != 'E')
        return -1;
    hi = hexval((uint8_t)reply[1]);
    lo = hexval((uint8_t)reply[2]);
    return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
}

int rsp_error_text(const char *reply, size_t n, char *buf, size_t len)
{
    size_t o = 0;

    if (rsp_error_code(reply, n) < 0 || len == 0)
        return -1;
    /* As sent: "E.memory error" says more than any number would. Printable only, and short. */
    for (size_t i = 0; i < n && o + 1 < len && o < 100; i++)
        buf[o++] = reply[i] >= 0x20 && reply[i] < 0x7f ? reply[i] : '?';
    buf[o] = 0;
    return 0;
}

static int feature_is(const char *f, size_t n, const char *name)
{
    return strlen(name) == n && !memcmp(f, name, n);
}

int rsp_parse_supported(const char *reply, size_t n, struct rsp_features *f)
{
    const char *p = reply, *end = reply + n;

    memset(f, 0, sizeof *f);
    f->packet_size = RSP_DEFAULT_PACKET;
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        size_t len = (size_t)((semi ? semi : end) - p);

        if (len > 11 && !memcmp(p, "PacketSize=", 11)) {
            uint64_t v = 0;

            for (size_t i = 11; i < len; i++) {
                int d = hexval((uint8_t)p[i]);

                if (d < 0)
                    return -1;
                if (v <= RSP_MAX_PACKET) /* saturates: a huge size is clamped, never wraps */
                    v = v << 4 | (unsigned)d;
            }
            f->packet_size = v > RSP_MAX_PACKET ? RSP_MAX_PACKET : (size_t)v;
        } else if (len == 11 && !memcmp(p, "PacketSize=", 11)) {
            return -1;
        } else if (feature_is(p, len, "QStartNoAckMode+")) {
            f->no_ack = 1;
        } else if (feature_is(p, len, "binary-upload+")) {
            f->binary_upload = 1;
        } else if (feature_is(p, len, "qXfer:auxv:read+")) {
            f->auxv = 1;
        }
        p += len + 1;
    }
    return 0;
}

int rsp_auxv_find(const uint8_t *auxv, size_t len, unsigned word_bytes, uint64_t type,
                  uint64_t *val)
{
    if (word_bytes != 4 && word_bytes != 8)
        return -1;
    for (size_t o = 0; o + 2 * word_bytes <= len; o += 2 * word_bytes) {
        uint64_t t = 0, v = 0;

        for (unsigned i = word_bytes; i-- > 0;) {
            t = t << 8 | auxv[o + i];
            v = v << 8 | auxv[o + word_bytes + i];
        }
        if (t == 0) /* AT_NULL ends the vector */
            break;
        if (t == type) {
            *val = v;
            return 0;
        }
    }
    return -1;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int parse_serial(const char *s, struct rsp_where *w, char *err, size_t errlen)
{
    const char *colon = strrchr(s, ':');
    struct stat st;
    size_t plen = strlen(s);

    w->serial = 1;
    w->baud = 115200;
    /* A path that exists as given wins: /dev/serial/by-path names hold colons of their own. */
    if (colon && stat(s, &st) != 0 && all_digits(colon + 1, strlen(colon + 1))) {
        unsigned long b = strtoul(colon + 1, NULL, 10);

        if (strlen(colon + 1) > 8 || b == 0) {
            snprintf(err, errlen, "%s: not a baud rate", colon + 1);
            return -1;
        }
        w->baud = (unsigned)b;
        plen = (size_t)(colon - s);
    }
    if (plen >= sizeof w->path) {
        snprintf(err, errlen, "device path too long");
        return -1;
    }
    memcpy(w->path, s, plen);
    w->path[plen] = 0;
    return 0;
}

int rsp_parse_where(const char *s, struct rsp_where *w, char *err, size_t errlen)
{
    const char *colon, *host;
    size_t hlen;
    unsigned long port;

    memset(w, 0, sizeof *w);
    if (!s || !*s) {
        snprintf(err, errlen, "empty address");
        return -1;
    }
    if (s[0] == '/')
        return parse_serial(s, w, err, errlen);
    if (!strncmp(s, "tcp:", 4))
        s += 4;
    colon = strrchr(s, ':');
    if (!colon) {
        snprintf(err, errlen, "not HOST:PORT or a serial device path");
        return -1;
    }
    host = s;
    hlen = (size_t)(colon - s);
    if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
        host++;
        hlen -= 2;
    } else if (memchr(host, ':', hlen)) {
        snprintf(err, errlen, "write an IPv6 address in brackets: [ADDR]:PORT");
        return -1;
    }
    port = all_digits(colon + 1, strlen(colon + 1)) && strlen(colon + 1) <= 5
               ? strtoul(colon + 1, NULL, 10)
               : 0;
    if (port == 0 || port > 65535) {
        snprintf(err, errlen, "'%s' is not a port number (1..65535)", colon + 1);
        return -1;
    }
    if (hlen >= sizeof w->host) {
        snprintf(err, errlen, "host name too long");
        return -1;
    }
    if (hlen == 0) {
        strcpy(w->host, "127.0.0.1");
    } else {
        memcpy(w->host, host, hlen);
        w->host[hlen] = 0;
    }
    snprintf(w->port, sizeof w->port, "%lu", port);
    return 0;
}

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

static int fail(struct rsp *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct rsp *c, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return code;
}

/* Puts "what: " in front of the reason already in c->err. */
static int prefix(struct rsp *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int prefix(struct rsp *c, int code, const char *fmt, ...)
{
    char why[sizeof c->err];
    va_list ap;
    int n;

    memcpy(why, c->err, sizeof why);
    va_start(ap, fmt);
    n = vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof c->err)
        snprintf(c->err + n, sizeof c->err - (size_t)n, ": %s", why);
    return code;
}

static int64_t now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
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

static int write_all(struct rsp *c, const void *p, size_t n)
{
    const uint8_t *b = p;
    int64_t deadline = now_ms() + c->timeout_ms;

    while (n) {
        /* MSG_NOSIGNAL: a server that hung up is an error here, not a SIGPIPE. */
        ssize_t k = c->serial ? write(c->fd, b, n) : send(c->fd, b, n, MSG_NOSIGNAL);

        if (k > 0) {
            b += k;
            n -= (size_t)k;
            continue;
        }
        if (stopped(c))
            return fail(c, RSP_ESTOPPED, "interrupted");
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = {c->fd, POLLOUT, 0};
            int64_t left = deadline - now_ms();

            if (left <= 0)
                return fail(c, RSP_ETIMEOUT, "could not send within %s", secs(c->timeout_ms));
            poll(&pf, 1, slice(left));
            continue;
        }
        if (k < 0 && (errno == EPIPE || errno == ECONNRESET))
            return fail(c, RSP_ECLOSED, "the server closed the connection");
        return fail(c, RSP_EIO, "write: %s", strerror(errno));
    }
    return 0;
}

/* The next byte from the server, or an RSP_E* code once the deadline has passed. */
static int get_byte(struct rsp *c, int64_t deadline)
{
    while (c->in_pos == c->in_len) {
        struct pollfd pf = {c->fd, POLLIN, 0};
        int64_t left = deadline - now_ms();
        ssize_t k;
        int r;

        if (stopped(c))
            return fail(c, RSP_ESTOPPED, "interrupted");
        if (left <= 0)
            return fail(c, RSP_ETIMEOUT, "no answer within %s", secs(c->timeout_ms));
        r = poll(&pf, 1, slice(left));
        if (r < 0 && errno != EINTR)
            return fail(c, RSP_EIO, "poll: %s", strerror(errno));
        if (r <= 0)
            continue;
        k = read(c->fd, c->in, sizeof c->in);
        if (k > 0) {
            c->in_pos = 0;
            c->in_len = (size_t)k;
        } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
            if (k == 0 || errno == ECONNRESET || errno == EIO)
                return fail(c, RSP_ECLOSED, "the server closed the connection");
            return fail(c, RSP_EIO, "read: %s", strerror(errno));
        }
    }
    return c->in[c->in_pos++];
}

/* Reads up to the next frame and leaves its body in c->raw (NUL-terminated, length in *n).
 * Returns 0, RSP_NAK for a '-', RSP_ECHECKSUM / RSP_EFRAME for a damaged frame (the caller
 * may ask again), or another RSP_E* code. Notifications ('%'...) are read and dropped. */
static int recv_frame(struct rsp *c, int64_t deadline, size_t *n)
{
    int ch, hi, lo, notify;
    size_t len;

restart:
    do {
        if ((ch = get_byte(c, deadline)) < 0)
            return ch;
        if (ch == '-')
            return RSP_NAK;
    } while (ch != '$' && ch != '%');
    notify = ch == '%';
    len = 0;
    for (;;) {
        if ((ch = get_byte(c, deadline)) < 0)
            return ch;
        if (ch == '#')
            break;
        if (ch == '$') /* a fresh start: what came before was noise */
            goto restart;
        if (len + 1 >= c->raw_cap)
            return fail(c, RSP_ETOOLONG, "a reply longer than %zu bytes", c->raw_cap);
        c->raw[len++] = (char)ch;
    }
    if ((hi = get_byte(c, deadline)) < 0)
        return hi;
    if ((lo = get_byte(c, deadline)) < 0)
        return lo;
    c->raw[len] = 0;
    if (notify)
        goto restart;
    *n = len;
    if (hexval(hi) < 0 || hexval(lo) < 0)
        return fail(c, RSP_EFRAME, "a reply without a checksum");
    if (rsp_checksum(c->raw, len) != (hexval(hi) << 4 | hexval(lo)))
        return fail(c, RSP_ECHECKSUM, "a reply with a bad checksum");
    return 0;
}

static int is_hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (hexval(p[i]) < 0)
            return 0;
    return 1;
}

/* Console output: 'O' and hex digits (and not "OK", which is a plain answer). */
static int is_output(const struct rsp *c)
{
    return c->pkt_len >= 3 && c->pkt[0] == 'O' && (c->pkt_len - 1) % 2 == 0 &&
           is_hex(c->pkt + 1, c->pkt_len - 1);
}

static void output(struct rsp *c)
{
    char text[512];
    size_t n = (c->pkt_len - 1) / 2, i = 0;

    while (c->out && i < n) {
        size_t k = n - i < sizeof text ? n - i : sizeof text;

        rsp_hex_decode((const char *)c->pkt + 1 + 2 * i, 2 * k, (uint8_t *)text, k);
        c->out(c->out_arg, text, k);
        i += k;
    }
}

static int is_stop_reply(const struct rsp *c)
{
    return c->pkt_len >= 3 && strchr("TSWX", c->pkt[0]) && is_hex(c->pkt + 1, 2);
}

/* The next packet, into c->pkt / c->pkt_len (NUL-terminated), with the protocol's
 * acknowledgements: a '-' for what we sent sends tx again (when resend; *naks counts them), a
 * frame with a bad checksum gets a '-' (*bad counts them) and a good one a '+'. A packet that
 * does not decode (RSP_EFRAME, RSP_ETOOLONG: a frame that did not arrive whole is retried
 * here) is returned as its code without a message: the caller says whether that ends the
 * exchange. */
static int next_packet(struct rsp *c, int64_t deadline, int resend, int *naks, int *bad)
{
    size_t n;
    long k;
    int rc;

    for (;;) {
        rc = recv_frame(c, deadline, &n);
        if (rc == RSP_NAK) {
            if (!resend || ++*naks > RSP_RETRIES)
                return fail(c, RSP_ECHECKSUM,
                            "the server refused our packet %d times (a noisy line, or not a "
                            "GDB server)",
                            *naks);
            if ((rc = write_all(c, c->tx, c->tx_len)) < 0)
                return rc;
            continue;
        }
        if (rc == RSP_ECHECKSUM || rc == RSP_EFRAME) {
            if (c->no_ack || ++*bad > RSP_RETRIES)
                return fail(c, RSP_ECHECKSUM,
                            "%s (a noisy line, a wrong baud rate, or not a GDB server)",
                            c->no_ack ? "a reply with a bad checksum"
                                      : "the replies kept failing their checksum");
            if ((rc = write_all(c, "-", 1)) < 0)
                return rc;
            continue;
        }
        if (rc < 0)
            return rc;
        if (!c->no_ack && (rc = write_all(c, "+", 1)) < 0)
            return rc;
        k = rsp_decode(c->raw, n, c->pkt, c->pkt_cap - 1);
        if (k < 0)
            return (int)k;
        c->pkt_len = (size_t)k;
        c->pkt[k] = 0;
        return 0;
    }
}

/* Waits for the answer to what was sent (tx); resends it on a '-'. The reply is decoded into
 * c->pkt / c->pkt_len (NUL-terminated). */
static int await_reply(struct rsp *c, int resend)
{
    int64_t deadline = now_ms() + c->timeout_ms;
    int naks = 0, bad = 0, rc;

    for (;;) {
        rc = next_packet(c, deadline, resend, &naks, &bad);
        if (rc == RSP_ETOOLONG || rc == RSP_EFRAME)
            return fail(c, rc, "a reply with %s",
                        rc == RSP_ETOOLONG ? "more data than fits in a packet"
                                           : "bad run-length encoding");
        if (rc < 0)
            return rc;
        if (is_output(c)) {
            output(c);
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
static int request_n(struct rsp *c, const void *cmd, size_t n)
{
    long k = rsp_frame(cmd, n, c->tx, c->tx_cap);
    int rc;

    if (k < 0)
        return fail(c, RSP_ETOOLONG, "request too long for the server's packets");
    c->tx_len = (size_t)k;
    if ((rc = write_all(c, c->tx, c->tx_len)) < 0)
        return rc;
    return await_reply(c, 1);
}

static int request(struct rsp *c, const char *cmd)
{
    return request_n(c, cmd, strlen(cmd));
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

static int tcp_open(const struct rsp_where *w, int timeout_ms, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    int rc = getaddrinfo(w->host, w->port, &hints, &res), fd = -1, why = 0, one = 1;

    if (rc) {
        snprintf(err, errlen, "unknown host (%s)",
                 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        struct pollfd pf;
        socklen_t len = sizeof why;

        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            why = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        why = errno;
        if (why == EINPROGRESS) {
            int64_t deadline = now_ms() + timeout_ms;

            pf = (struct pollfd){fd, POLLOUT, 0};
            do
                rc = stopped(NULL) ? -2 : poll(&pf, 1, slice(deadline - now_ms()));
            while ((rc == 0 && now_ms() < deadline) || (rc < 0 && rc != -2 && errno == EINTR));
            why = rc == 0 ? ETIMEDOUT : rc == -2 ? EINTR : rc < 0 ? errno : 0;
            if (rc > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &why, &len) < 0)
                why = errno;
            if (!why)
                break;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        if (why == ECONNREFUSED)
            snprintf(err, errlen,
                     "connection refused; is the GDB server (OpenOCD, pyOCD, "
                     "JLinkGDBServer, QEMU -gdb, gdbserver) running on that port?");
        else if (why == ETIMEDOUT)
            snprintf(err, errlen, "no connection within %s", secs(timeout_ms));
        else if (why == EINTR && stopped(NULL))
            snprintf(err, errlen, "interrupted");
        else
            snprintf(err, errlen, "cannot connect: %s", strerror(why));
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* one small packet at a time */
    return fd;
}

static int baud_constant(unsigned baud, speed_t *sp)
{
    static const struct {
        unsigned baud;
        speed_t sp;
    } rates[] = {{9600, B9600},       {19200, B19200},     {38400, B38400},     {57600, B57600},
                 {115200, B115200},   {230400, B230400},   {460800, B460800},   {500000, B500000},
                 {576000, B576000},   {921600, B921600},   {1000000, B1000000}, {1500000, B1500000},
                 {2000000, B2000000}, {3000000, B3000000}, {4000000, B4000000}};

    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        if (rates[i].baud == baud) {
            *sp = rates[i].sp;
            return 0;
        }
    return -1;
}

static int serial_open(const struct rsp_where *w, char *err, size_t errlen)
{
    struct termios t;
    speed_t sp;
    int fd;

    if (baud_constant(w->baud, &sp) < 0) {
        snprintf(err, errlen, "%u: not a baud rate this host supports (9600 ... 4000000)", w->baud);
        return -1;
    }
    fd = open(w->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (tcgetattr(fd, &t) < 0) {
        snprintf(err, errlen, "not a serial device (%s)", strerror(errno));
        close(fd);
        return -1;
    }
    cfmakeraw(&t); /* 8 bits, no parity, no echo, no line editing */
    t.c_cflag &= ~(CSTOPB | CRTSCTS);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    cfsetispeed(&t, sp);
    cfsetospeed(&t, sp);
    if (tcsetattr(fd, TCSANOW, &t) < 0) {
        snprintf(err, errlen, "cannot set %u baud: %s", w->baud, strerror(errno));
        close(fd);
        return -1;
    }
    tcflush(fd, TCIOFLUSH); /* what the probe said before we came is not for us */
    return fd;
}

/* rsp_connect once the link is open: the handshake over fd (taken, even on failure). The
 * fuzz tests come in here through rsp_open_fd, with a socketpair instead of a server. */
static struct rsp *handshake(int fd, int serial, const char *where, int timeout_ms, char *err,
                             size_t errlen)
{
    struct rsp *c;
    int rc;

    c = calloc(1, sizeof *c);
    if (c)
        c->fd = fd;
    if (!c || size_buffers(c, RSP_MIN_BUFFER) < 0) {
        snprintf(err, errlen, "%s: out of memory", where);
        if (!c)
            close(fd);
        goto fail;
    }
    c->timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
    c->serial = serial;
    /* GDB starts with a '+': it acknowledges whatever the server may have sent already. */
    if ((rc = write_all(c, "+", 1)) < 0 || (rc = request(c, "qSupported")) < 0)
        goto fail_rsp;
    if (rsp_parse_supported((const char *)c->pkt, c->pkt_len, &c->feat) < 0) {
        rc = fail(c, RSP_EFRAME, "a qSupported reply with a bad PacketSize");
        goto fail_rsp;
    }
    if (c->feat.packet_size < 32) /* too small to be honest; GDB would not go below either */
        c->feat.packet_size = 32;
    if (c->feat.packet_size > RSP_MIN_BUFFER && size_buffers(c, c->feat.packet_size) < 0) {
        rc = fail(c, RSP_ENOMEM, "out of memory");
        goto fail_rsp;
    }
    /* Acknowledgements only slow a reliable link down; the OK is the last packet acked. */
    if (c->feat.no_ack) {
        if ((rc = request(c, "QStartNoAckMode")) < 0)
            goto fail_rsp;
        c->no_ack = reply_is(c, "OK");
    }
    /* GDB asks why the target stopped before anything else, and gdbserver picks its current
     * process and thread on that question: without it, auxv and detach fail with E01. The
     * answer itself does not matter here. */
    c->want_stop = 1;
    rc = request(c, "?");
    c->want_stop = 0;
    if (rc < 0)
        goto fail_rsp;
    /* In all-stop mode a server that answers with a stop reply holds the target (QEMU stops it
     * for a client, probes halt at attach): a halt then has nothing to wait for. */
    c->halted = is_stop_reply(c) && strchr("TS", c->pkt[0]);
    return c;
fail_rsp:
    snprintf(err, errlen, "%s: %s%s", where, c->err,
             rc == RSP_ETIMEOUT ? "; is it a GDB server?" : "");
fail:
    if (c && c->fd >= 0)
        close(c->fd);
    if (c) {
        free(c->raw);
        free(c->pkt);
        free(c->tx);
    }
    free(c);
    return NULL;
}

struct rsp *rsp_connect(const char *where, int timeout_ms, char *err, size_t errlen)
{
    struct rsp_where w;
    char why[1024];
    int fd;

    if (rsp_parse_where(where, &w, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: %s", where, why);
        return NULL;
    }
    timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
    fd = w.serial ? serial_open(&w, why, sizeof why) : tcp_open(&w, timeout_ms, why, sizeof why);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", where, why);
        return NULL;
    }
    return handshake(fd, w.serial, where, timeout_ms, err, errlen);
}

struct rsp *rsp_open_fd(int fd, const char *name, int timeout_ms, char *err, size_t errlen)
{
    return handshake(fd, 0, name, timeout_ms, err, errlen);
}

const struct rsp_features *rsp_features(const struct rsp *c)
{
    return &c->feat;
}

const char *rsp_error(const struct rsp *c)
{
    return c->err;
}

/* The reply to a memory read: into buf (at most want bytes); the count, or an RSP_E* code. */
static long mem_reply(struct rsp *c, int binary, uint8_t *buf, size_t want)
{
    char e[128];
    long got;

    if (rsp_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(c, RSP_EREPLY,
                    "the server answered %s (memory it cannot read: a wrong "
                    "address, or no target attached)",
                    e);
    if (c->pkt_len == 0)
        return RSP_EUNSUPPORTED;
    if (binary) {
        if (c->pkt[0] != 'b')
            return fail(c, RSP_EFRAME, "a reply to 'x' without its 'b'");
        got = (long)(c->pkt_len - 1);
        if ((size_t)got > want)
            return fail(c, RSP_EFRAME, "more bytes than asked for");
        memcpy(buf, c->pkt + 1, (size_t)got);
    } else {
        got = rsp_hex_decode((const char *)c->pkt, c->pkt_len, buf, want);
        if (got < 0)
            return fail(c, RSP_EFRAME, "a reply to 'm' that is not %s",
                        c->pkt_len / 2 > want ? "as long as asked for" : "hex");
    }
    if (got == 0)
        return fail(c, RSP_EREPLY, "the server returned no bytes");
    return got;
}

int rsp_read_mem(struct rsp *c, uint64_t addr, void *buf, size_t len, rsp_progress_fn progress,
                 void *arg)
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
        if ((rc = request(c, cmd)) < 0)
            return prefix(c, rc, "reading %zu bytes at 0x%" PRIx64, n, addr + done);
        got = mem_reply(c, binary, b + done, n);
        if (got == RSP_EUNSUPPORTED && binary) {
            binary = c->feat.binary_upload = 0; /* it said binary-upload+ but means no */
            continue;
        }
        if (got == RSP_EUNSUPPORTED)
            return fail(c, RSP_EUNSUPPORTED, "the server does not read memory ('m' unsupported)");
        if (got < 0)
            return prefix(c, (int)got, "reading %zu bytes at 0x%" PRIx64, n, addr + done);
        done += (size_t)got;
        if (progress && progress(arg, done, len))
            return fail(c, RSP_ESTOPPED, "stopped after %zu of %zu bytes at 0x%" PRIx64, done, len,
                        addr);
    }
    return 0;
}

int rsp_monitor(struct rsp *c, const char *cmd, rsp_output_fn out, void *arg)
{
    size_t n = strlen(cmd);
    char *pkt = malloc(6 + 2 * n + 1), e[128];
    int rc;

    if (!pkt)
        return fail(c, RSP_ENOMEM, "out of memory");
    memcpy(pkt, "qRcmd,", 6);
    rsp_hex_encode(cmd, n, pkt + 6, 2 * n + 1);
    c->out = out;
    c->out_arg = arg;
    rc = request(c, pkt);
    c->out = NULL;
    free(pkt);
    if (rc < 0)
        return prefix(c, rc, "monitor %s", cmd);
    if (c->pkt_len == 0)
        return fail(c, RSP_EUNSUPPORTED, "the server has no monitor commands (qRcmd)");
    if (rsp_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(c, RSP_EREPLY, "monitor %s: the server answered %s", cmd, e);
    /* Some servers send the output as the answer itself instead of 'O' packets. */
    if (!reply_is(c, "OK") && c->pkt_len % 2 == 0 && is_hex(c->pkt, c->pkt_len) && out) {
        char text[512];
        size_t i = 0, total = c->pkt_len / 2;

        while (i < total) {
            size_t k = total - i < sizeof text ? total - i : sizeof text;

            rsp_hex_decode((const char *)c->pkt + 2 * i, 2 * k, (uint8_t *)text, k);
            out(arg, text, k);
            i += k;
        }
    }
    return 0;
}

int rsp_attach(struct rsp *c, unsigned long n)
{
    char cmd[32], e[128];
    int rc;

    snprintf(cmd, sizeof cmd, "vAttach;%lx", n);
    c->want_stop = 1; /* the answer to an attach is the stop reply of what it stopped */
    rc = request(c, cmd);
    c->want_stop = 0;
    if (rc < 0)
        return prefix(c, rc, "attach %lu", n);
    if (rsp_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(c, RSP_EREPLY,
                    "attach %lu: the server answered %s (no such target; "
                    "scan first, e.g. --monitor=swdp_scan)",
                    n, e);
    if (c->pkt_len == 0)
        return fail(c, RSP_EUNSUPPORTED, "the server cannot attach (no vAttach)");
    return 0;
}

int rsp_halt(struct rsp *c)
{
    int64_t deadline;
    size_t n;
    int rc;

    if (c->halted)
        return 0;
    /* 0x03 travels bare, outside any packet. A target already stopped that the connection's
     * '?' did not reveal sends no stop reply at all, so the wait is short: a probe halts a core
     * in milliseconds. */
    if ((rc = write_all(c, "\003", 1)) < 0)
        return rc;
    deadline = now_ms() + (c->timeout_ms < RSP_HALT_MS ? c->timeout_ms : RSP_HALT_MS);
    for (;;) {
        rc = recv_frame(c, deadline, &n);
        if (rc == RSP_ETIMEOUT) /* a late stop reply is dropped by await_reply */
            return 1;
        if (rc == RSP_NAK)
            continue;
        if (rc < 0)
            return rc;
        if (!c->no_ack && (rc = write_all(c, "+", 1)) < 0)
            return rc;
        if (n >= 3 && strchr("TS", c->raw[0])) {
            c->halted = 1;
            return 0;
        }
        if (n >= 1 && strchr("WX", c->raw[0]))
            return fail(c, RSP_EREPLY, "the target exited when interrupted");
    }
}

/* The answer to a write or a breakpoint: "OK", an error, or empty (not supported). */
static int ok_reply(struct rsp *c, const char *what)
{
    char e[128];

    if (rsp_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(c, RSP_EREPLY, "%s: the server answered %s", what, e);
    if (c->pkt_len == 0)
        return RSP_EUNSUPPORTED;
    if (!reply_is(c, "OK"))
        return fail(c, RSP_EFRAME, "%s: an unexpected reply '%.40s'", what, (const char *)c->pkt);
    return 0;
}

int rsp_write_mem(struct rsp *c, uint64_t addr, const void *buf, size_t len)
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
            return fail(c, RSP_ENOMEM, "out of memory");
        o = (size_t)sprintf((char *)pkt, "%c%" PRIx64 ",%zx:", c->no_x ? 'M' : 'X', addr + done, n);
        if (c->no_x) {
            rsp_hex_encode(b + done, n, (char *)pkt + o, 2 * n + 1);
            o += 2 * n;
        } else {
            memcpy(pkt + o, b + done, n);
            o += n;
        }
        snprintf(what, sizeof what, "writing %zu bytes at 0x%" PRIx64, n, addr + done);
        rc = request_n(c, pkt, o);
        free(pkt);
        if (rc < 0)
            return prefix(c, rc, "%s", what);
        rc = ok_reply(c, what);
        if (rc == RSP_EUNSUPPORTED && !c->no_x) {
            c->no_x = 1; /* GDB's own probe: an empty answer to "X" means "M" */
            continue;
        }
        if (rc == RSP_EUNSUPPORTED)
            return fail(c, rc, "the server does not write memory ('M' unsupported)");
        if (rc == RSP_EREPLY) {
            char why[sizeof c->err];

            memcpy(why, c->err, sizeof why);
            return fail(c, rc,
                        "%s (memory it cannot write: a wrong address, flash, or no "
                        "target attached)",
                        why);
        }
        if (rc < 0)
            return rc;
        done += n;
    }
    return 0;
}

int rsp_read_reg(struct rsp *c, unsigned n, unsigned size, uint64_t *val)
{
    uint8_t b[8] = {0};
    const char *hex;
    char cmd[32], e[128];
    size_t have;
    int rc;

    if (size == 0 || size > sizeof b)
        return fail(c, RSP_EFRAME, "register %u: %u bytes is no register size", n, size);
    snprintf(cmd, sizeof cmd, "p%x", n);
    if ((rc = request(c, cmd)) < 0)
        return prefix(c, rc, "reading register %u", n);
    hex = (const char *)c->pkt;
    have = c->pkt_len;
    if (have == 0) { /* no 'p': the n-th register of 'g', all of the same size */
        if ((rc = request(c, "g")) < 0)
            return prefix(c, rc, "reading the registers");
        if (c->pkt_len < 2 * (size_t)size * (n + 1) &&
            rsp_error_code((const char *)c->pkt, c->pkt_len) < 0)
            return fail(c, RSP_EUNSUPPORTED, "the server tells no register %u", n);
        hex = (const char *)c->pkt + 2 * (size_t)size * n;
        have = 2 * (size_t)size;
    }
    if (rsp_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0)
        return fail(c, RSP_EREPLY, "register %u: the server answered %s", n, e);
    if (have > 2 * (size_t)size)
        have = 2 * (size_t)size;
    if (have % 2 || rsp_hex_decode(hex, have, b, sizeof b) < 0)
        return fail(c, RSP_EFRAME, "register %u: unavailable, or not hex", n);
    *val = 0;
    for (size_t i = have / 2; i-- > 0;)
        *val = *val << 8 | b[i];
    return 0;
}

int rsp_breakpoint(struct rsp *c, int type, uint64_t addr, unsigned kind, int insert)
{
    const char *what = type == RSP_BP_HARD ? "hardware" : "software";
    char cmd[64], doing[96];
    int rc;

    snprintf(cmd, sizeof cmd, "%c%d,%" PRIx64 ",%x", insert ? 'Z' : 'z', type, addr, kind);
    snprintf(doing, sizeof doing, "%s a %s breakpoint at 0x%" PRIx64,
             insert ? "setting" : "removing", what, addr);
    if ((rc = request(c, cmd)) < 0)
        return prefix(c, rc, "%s", doing);
    rc = ok_reply(c, doing);
    if (rc == RSP_EUNSUPPORTED)
        return fail(c, rc, "the server has no %s breakpoints (%c%d unsupported)", what,
                    insert ? 'Z' : 'z', type);
    return rc;
}

int rsp_continue(struct rsp *c)
{
    long k = rsp_frame("c", 1, c->tx, c->tx_cap);

    c->tx_len = (size_t)k; /* kept: a '-' from the server has it sent again */
    c->halted = 0;
    return write_all(c, c->tx, c->tx_len);
}

int rsp_wait_stop(struct rsp *c, int timeout_ms, int *sig)
{
    int64_t deadline = now_ms() + timeout_ms;
    int naks = 0, bad = 0, rc;

    for (;;) {
        rc = next_packet(c, deadline, 1, &naks, &bad); /* a '-': the continue was refused */
        if (rc == RSP_ETIMEOUT)
            return fail(c, rc, "the target did not stop within %s", secs(timeout_ms));
        if (rc == RSP_ETOOLONG || rc == RSP_EFRAME || (rc == 0 && is_output(c)))
            continue; /* not a stop reply, whatever it was */
        if (rc < 0)
            return rc;
        if (is_stop_reply(c) && strchr("WX", c->pkt[0]))
            return fail(c, RSP_EREPLY, "the target exited (%s)", (const char *)c->pkt);
        if (is_stop_reply(c)) {
            *sig = hexval(c->pkt[1]) << 4 | hexval(c->pkt[2]);
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

int rsp_auxv(struct rsp *c, uint8_t **buf, size_t *len)
{
    size_t have = 0, cap = 0, chunk = c->feat.packet_size - 8;
    uint8_t *data = NULL;
    char cmd[64];
    int rc;

    *buf = NULL;
    *len = 0;
    if (!c->feat.auxv)
        return fail(c, RSP_EUNSUPPORTED, "the server does not offer qXfer:auxv:read");
    for (;;) {
        snprintf(cmd, sizeof cmd, "qXfer:auxv:read::%zx,%zx", have, chunk);
        if ((rc = request(c, cmd)) < 0)
            goto out;
        if (c->pkt_len == 0 || (c->pkt[0] != 'l' && c->pkt[0] != 'm')) {
            char e[128];

            rc = rsp_error_text((const char *)c->pkt, c->pkt_len, e, sizeof e) == 0
                     ? fail(c, RSP_EREPLY, "the server answered %s to qXfer:auxv:read", e)
                     : fail(c, RSP_EUNSUPPORTED, "no auxiliary vector from the server");
            goto out;
        }
        if (have + c->pkt_len > cap) {
            uint8_t *more = realloc(data, cap = 2 * (have + c->pkt_len));

            if (!more) {
                rc = fail(c, RSP_ENOMEM, "out of memory");
                goto out;
            }
            data = more;
        }
        memcpy(data + have, c->pkt + 1, c->pkt_len - 1);
        have += c->pkt_len - 1;
        if (c->pkt[0] == 'l')
            break;
        if (c->pkt_len == 1 || have > (1u << 20)) {
            rc = fail(c, RSP_EFRAME, "an auxiliary vector that never ends");
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

int rsp_offsets(struct rsp *c, uint64_t *text)
{
    const char *p;
    char *end;
    int rc;

    if ((rc = request(c, "qOffsets")) < 0)
        return rc;
    p = strstr((const char *)c->pkt, "Text=");
    if (c->pkt_len == 0 || !p)
        return fail(c, RSP_EUNSUPPORTED, "the server does not answer qOffsets");
    *text = strtoull(p + 5, &end, 16);
    if (end == p + 5)
        return fail(c, RSP_EFRAME, "a qOffsets reply without a Text offset");
    return 0;
}

void rsp_close(struct rsp *c)
{
    if (!c)
        return;
    /* Detach: QEMU resumes the machine it stopped when we came, gdbserver lets the process go
     * on. The answer does not matter, so it gets a short wait. */
    if (c->fd >= 0) {
        long k = rsp_frame("D", 1, c->tx, c->tx_cap);

        c->closing = 1; /* after Ctrl-C too: a target left halted under its probe is worse */
        c->timeout_ms = c->timeout_ms < RSP_DETACH_MS ? c->timeout_ms : RSP_DETACH_MS;
        c->tx_len = (size_t)k;
        if (k > 0 && write_all(c, c->tx, c->tx_len) == 0)
            await_reply(c, 0);
        close(c->fd);
    }
    free(c->raw);
    free(c->pkt);
    free(c->tx);
    free(c);
}
