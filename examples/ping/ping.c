/* SPDX-License-Identifier: MIT */
/* ping.c - a traced Linux program that talks to a firmware: it sends a byte to echo.c's UART1
 * (a TCP port QEMU serves) and waits for it back, ROUNDS times, PAUSE_MS apart. Each round's
 * ping_send comes before the firmware's echo_request and its ping_received after echo_reply:
 * merged on one clock (cygtrace export ELF DUMP ELF DUMP), the two traces must show that.
 *
 *     build/examples/ping PORT [ROUNDS [PAUSE_MS]]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int fd = -1;

int ping_send(unsigned char c)
{
    return write(fd, &c, 1) == 1 ? 0 : -1;
}

int ping_received(unsigned char c)
{
    return c;
}

/* One round: the byte out, then what comes back; 0, or -1 when the echo is wrong or missing. */
int ping_round(unsigned char c)
{
    unsigned char got;

    if (ping_send(c) < 0 || read(fd, &got, 1) != 1)
        return -1;
    return ping_received(got) == c ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int rounds = argc > 2 ? atoi(argv[2]) : 20, pause_ms = argc > 3 ? atoi(argv[3]) : 20, one = 1;
    struct timespec ts = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000};

    if (argc < 2) {
        fprintf(stderr, "usage: ping PORT [ROUNDS [PAUSE_MS]]\n");
        return 2;
    }
    a.sin_port = htons((unsigned short)atoi(argv[1]));
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
        connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        perror("ping: connect");
        return 1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (int i = 0; i < rounds; i++) {
        if (ping_round((unsigned char)('a' + i % 26)) < 0) {
            fprintf(stderr, "ping: round %d: no echo\n", i);
            return 1;
        }
        nanosleep(&ts, NULL);
    }
    printf("ping: %d rounds echoed\n", rounds);
    close(fd);
    return 0;
}
