/* SPDX-License-Identifier: GPL-3.0-or-later */
/* noisy.c - a noisy line for the live-stream tests: flips bits, drops and duplicates bytes.
 *
 *   noisy [--flip=RATE] [--drop=RATE] [--dup=RATE] [--seed=N] [--tcp-proxy=LPORT:HOST:PORT]
 *
 * As a filter, stdin to stdout. Each byte, with its own probability (RATE, 0 to 1): is
 * dropped; or else has one random bit flipped, and is written twice. The same seed gives the
 * same noise. Bytes go out as they come (no buffering), so it can sit on a live pipe.
 *
 * With --tcp-proxy, it listens on 127.0.0.1:LPORT (0: any free port; the port is printed on
 * stderr as "noisy: listening on PORT"), accepts one client, connects to HOST:PORT (the
 * target: QEMU's -serial tcp, ser2net), and passes the target's bytes to the client through
 * the noise and the client's bytes to the target untouched, until either side closes.
 *
 * At the end, on stderr: "noisy: N bytes in, N out, F flipped, D dropped, U duplicated". */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct noise {
    double flip, drop, dup;
    uint64_t state; /* splitmix64 */
    uint64_t in, out, flipped, dropped, duplicated;
};

static uint64_t next(struct noise *n)
{
    uint64_t z = (n->state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A uniform draw in [0, 1), compared with a rate: 53 bits are all a double holds. */
static int chance(struct noise *n, double rate)
{
    return rate > 0 && (double)(next(n) >> 11) * 0x1.0p-53 < rate;
}

/* Passes len bytes of in through the noise into out (room for 2 * len); returns the count. */
static size_t apply(struct noise *n, const uint8_t *in, size_t len, uint8_t *out)
{
    size_t o = 0;

    n->in += len;
    for (size_t i = 0; i < len; i++) {
        uint8_t b = in[i];

        if (chance(n, n->drop)) {
            n->dropped++;
            continue;
        }
        if (chance(n, n->flip)) {
            b ^= (uint8_t)(1u << (next(n) & 7));
            n->flipped++;
        }
        out[o++] = b;
        if (chance(n, n->dup)) {
            out[o++] = b;
            n->duplicated++;
        }
    }
    n->out += o;
    return o;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
    while (len) {
        ssize_t w = write(fd, p, len);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static int filter(struct noise *n)
{
    static uint8_t in[65536], out[2 * sizeof in];

    for (;;) {
        ssize_t r = read(0, in, sizeof in);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            perror("noisy: stdin");
            return 1;
        }
        if (r == 0)
            return 0;
        if (write_all(1, out, apply(n, in, (size_t)r, out)) < 0)
            return 0; /* the reader went away: the end of the line, not an error */
    }
}

static int connect_to(const char *host, const char *port)
{
    struct addrinfo hints = {0}, *res, *ai;
    int fd = -1, rc;

    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "noisy: %s:%s: %s\n", host, port, gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        fprintf(stderr, "noisy: %s:%s: %s\n", host, port, strerror(errno));
    freeaddrinfo(res);
    return fd;
}

/* Listens on 127.0.0.1:port, says which port, accepts one client. */
static int accept_one(unsigned port)
{
    struct sockaddr_in sa = {0};
    socklen_t sl = sizeof sa;
    int one = 1, lfd, fd;

    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) {
        perror("noisy: socket");
        return -1;
    }
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 1) < 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
        fprintf(stderr, "noisy: port %u: %s\n", port, strerror(errno));
        close(lfd);
        return -1;
    }
    fprintf(stderr, "noisy: listening on %u\n", ntohs(sa.sin_port));
    while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (fd < 0)
        perror("noisy: accept");
    close(lfd);
    return fd;
}

static int proxy(struct noise *n, const char *spec)
{
    static uint8_t in[65536], out[2 * sizeof in];
    char host[256], port[32];
    unsigned lport;
    int client, target, rc = 1;

    if (sscanf(spec, "%u:%255[^:]:%31s", &lport, host, port) != 3 || lport > 65535) {
        fprintf(stderr, "noisy: --tcp-proxy=%s: want LISTENPORT:HOST:PORT\n", spec);
        return 2;
    }
    client = accept_one(lport);
    if (client < 0)
        return 1;
    target = connect_to(host, port);
    if (target < 0) {
        close(client);
        return 1;
    }
    for (;;) {
        struct pollfd pf[2] = {{target, POLLIN, 0}, {client, POLLIN, 0}};
        ssize_t r;

        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            perror("noisy: poll");
            break;
        }
        if (pf[0].revents) {
            r = read(target, in, sizeof in);
            if (r <= 0 || write_all(client, out, apply(n, in, (size_t)r, out)) < 0) {
                rc = r < 0 && errno != ECONNRESET;
                break;
            }
        }
        if (pf[1].revents) {
            r = read(client, in, sizeof in);
            if (r <= 0 || write_all(target, in, (size_t)r) < 0) {
                rc = 0;
                break;
            }
        }
    }
    close(client);
    close(target);
    return rc;
}

static int rate(const char *arg, const char *name, double *out)
{
    size_t len = strlen(name);
    char *end;

    if (strncmp(arg, name, len) != 0 || arg[len] != '=')
        return 0;
    *out = strtod(arg + len + 1, &end);
    if (end == arg + len + 1 || *end || !(*out >= 0 && *out <= 1)) {
        fprintf(stderr, "noisy: %s: want a rate from 0 to 1\n", arg);
        exit(2);
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct noise n = {0};
    const char *tcp = NULL;
    int rc;

    n.state = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (rate(a, "--flip", &n.flip) || rate(a, "--drop", &n.drop) ||
            rate(a, "--dup", &n.dup))
            continue;
        if (!strncmp(a, "--seed=", 7)) {
            char *end;

            n.state = strtoull(a + 7, &end, 0);
            if (end == a + 7 || *end) {
                fprintf(stderr, "noisy: %s: want a number\n", a);
                return 2;
            }
        } else if (!strncmp(a, "--tcp-proxy=", 12)) {
            tcp = a + 12;
        } else {
            fprintf(stderr, "usage: noisy [--flip=RATE] [--drop=RATE] [--dup=RATE] "
                            "[--seed=N] [--tcp-proxy=LISTENPORT:HOST:PORT]\n");
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    rc = tcp ? proxy(&n, tcp) : filter(&n);
    fprintf(stderr,
            "noisy: %llu bytes in, %llu out, %llu flipped, %llu dropped, %llu duplicated\n",
            (unsigned long long)n.in, (unsigned long long)n.out,
            (unsigned long long)n.flipped, (unsigned long long)n.dropped,
            (unsigned long long)n.duplicated);
    return rc;
}
