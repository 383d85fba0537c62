/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_rsp.c - libFuzzer target: the GDB remote protocol client against a server that says
 * anything at all.
 *
 * Input byte 0 picks the mode, byte 1 is a parameter:
 *   mode bit 0 clear: the pure parsers of rsp.h on the rest: unframing (checksum, escapes,
 *     run-length), hex, "E NN", qSupported, auxv, --gdb= addresses; with two round trips
 *     that must hold (rspcodec_frame then rspcodec_unframe, hex encode then decode: abort if not);
 *   mode bit 0 set: a whole session. The rest is everything the server sends, written into a
 *     socketpair by a server thread that then shuts its sending side and reads whatever the
 *     client sends; the real client (rsp_open_fd: rsp_connect's handshake) asks qSupported,
 *     maybe QStartNoAckMode and '?', then reads memory (hex or binary as the reply offered),
 *     runs a monitor command, reads auxv and qOffsets, halts, attaches, and detaches: every
 *     reply parser of rsp.c in the order a "cygtrace pull" meets them. The end of the input
 *     is the server hanging up, so no wait reaches its deadline. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "source/rsp.h"
#include "source/rspwhere.h"

#define OUT_CAP 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void pure(uint8_t param, const uint8_t *p, size_t n)
{
    static uint8_t out[OUT_CAP];
    static char frame[2 * OUT_CAP + 8], hex[2 * OUT_CAP + 1];
    struct rspcodec_features f;
    struct rspwhere w;
    char err[256], *s;
    uint64_t v;
    long k;
    size_t cap = param & 0x80 ? param & 0x7f : OUT_CAP; /* small: the too-long paths */

    rspcodec_unframe((const char *)p, n, out, cap);
    rspcodec_decode((const char *)p, n, out, cap);
    rspcodec_hex_decode((const char *)p, n, out, cap);
    rspcodec_error_code((const char *)p, n);
    rspcodec_parse_supported((const char *)p, n, &f);
    rspcodec_auxv_find(p, n, param & 1 ? 8 : 4, param >> 1, &v);
    if ((s = malloc(n + 1))) {
        memcpy(s, p, n);
        s[n] = 0;
        rspwhere_parse(s, &w, err, sizeof err);
        free(s);
    }
    if (n > OUT_CAP)
        return;
    /* What we frame, we must read back as it was. */
    k = rspcodec_frame(p, n, frame, sizeof frame);
    if (k < 0 || rspcodec_unframe(frame, (size_t)k, out, OUT_CAP) != (long)n ||
        memcmp(out, p, n))
        abort();
    k = rspcodec_hex_encode(p, n, hex, sizeof hex);
    if (k != (long)(2 * n) || rspcodec_hex_decode(hex, (size_t)k, out, OUT_CAP) != (long)n ||
        memcmp(out, p, n))
        abort();
}

static void on_output(void *arg, const char *text, size_t len)
{
    (void)arg;
    (void)text;
    (void)len;
}

/* The server: sends the replies, hangs up its sending side, and reads (and drops) all the
 * client sends until the client closes. A server that read nothing would fill the socket
 * with the client's requests and acks, and leave the client waiting on a full link. */
struct server {
    int fd;
    const uint8_t *p;
    size_t n;
};

static void *serve(void *arg)
{
    struct server *s = arg;
    char sink[4096];

    while (s->n) {
        ssize_t k = send(s->fd, s->p, s->n, MSG_NOSIGNAL);

        if (k <= 0)
            break; /* the client closed first */
        s->p += k;
        s->n -= (size_t)k;
    }
    shutdown(s->fd, SHUT_WR);
    while (read(s->fd, sink, sizeof sink) > 0)
        ;
    return NULL;
}

static void session(uint8_t param, const uint8_t *p, size_t n)
{
    static uint8_t mem[4096];
    struct server srv = {-1, p, n};
    struct rsp *c;
    pthread_t th;
    uint8_t *auxv;
    size_t auxv_len;
    uint64_t text;
    char err[512];
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return;
    /* rsp_connect's sockets are non-blocking: every wait is a poll with a deadline */
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    srv.fd = sv[1];
    if (pthread_create(&th, NULL, serve, &srv) != 0) {
        close(sv[0]);
        close(sv[1]);
        return;
    }
    c = rsp_open_fd(sv[0], "fuzz", 1000, err, sizeof err); /* closes sv[0] on failure */
    if (c) {
        rsp_read_mem(c, 0x20000000u, mem, 1 + (size_t)param * 16, NULL, NULL, err, sizeof err);
        rsp_monitor(c, "reset halt", on_output, NULL, err, sizeof err);
        if (rsp_auxv(c, &auxv, &auxv_len, err, sizeof err) == 0)
            free(auxv);
        rsp_offsets(c, &text, err, sizeof err);
        rsp_halt(c, err, sizeof err);
        rsp_attach(c, 1, err, sizeof err);
        rsp_close(c); /* closes sv[0]: the server reads to its end */
    }
    pthread_join(th, NULL);
    close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (data[0] & 1)
        session(data[1], data + 2, size - 2);
    else
        pure(data[1], data + 2, size - 2);
    return 0;
}
