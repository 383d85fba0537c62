/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_wire.c - the byte links against the real thing: a pseudo-terminal pair for the serial
 * port, a listening socket on a free port of the loopback, a FIFO and a file in a temporary
 * directory. Every wait is bounded; each test closes what it opened. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "source/wire.h"
#include "suites.h"

static char dir[64]; /* made by the fixture in the runner, removed after the last test */

static void dir_setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/cygtrace-link-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
    static const char *names[] = {"fifo", "file", "plain"};
    char p[128];

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

static const char *in_dir(const char *name)
{
    static char p[128];

    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static long long now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads exactly n bytes from l within 5 s. */
static void read_exactly(struct wire *l, uint8_t *buf, size_t n)
{
    char err[256] = "";
    size_t got = 0;
    long long end = now_ms() + 5000;

    while (got < n && now_ms() < end) {
        long r = wire_read(l, buf + got, n - got, 200, err, sizeof err);

        ck_assert_msg(r >= 0, "wire_read: %ld (%s)", r, err);
        got += (size_t)r;
    }
    ck_assert_uint_eq(got, n);
}

/* Every byte value, the ones a cooked terminal would eat or change among them: ^C (ISIG),
 * ^Q/^S (IXON), CR (ICRNL), DEL, 0x00, 0xff (PARMRK). */
static void all_bytes(uint8_t *b)
{
    for (int i = 0; i < 256; i++)
        b[i] = (uint8_t)(255 - i);
}

START_TEST(test_wire_serial_pty_raw)
{
    int m, s;
    char name[256], spec[300], err[256] = "";
    uint8_t out[256], in[256];
    struct termios t;
    struct wire *l;
    long long t0;

    ck_assert_int_eq(openpty(&m, &s, name, NULL, NULL), 0);
    snprintf(spec, sizeof spec, "%s:921600", name);
    l = wire_open_serial(spec, err, sizeof err);
    ck_assert_msg(l != NULL, "%s", err);
    ck_assert_str_eq(wire_name(l), name);
    ck_assert_int_ge(wire_fd(l), 0);
    ck_assert_int_eq(tcgetattr(s, &t), 0); /* the settings belong to the terminal */
    ck_assert_uint_eq(cfgetospeed(&t), B921600);
    ck_assert_uint_eq(t.c_cflag & CSIZE, CS8);
    ck_assert_uint_eq(t.c_cflag & (PARENB | CSTOPB | CRTSCTS), 0);
    ck_assert_uint_eq(t.c_lflag & (ICANON | ECHO | ISIG), 0);
    ck_assert_uint_eq(t.c_iflag & (IXON | IXOFF | ICRNL), 0);
    close(s);

    /* Nothing sent: 0 after the timeout, not before. */
    t0 = now_ms();
    ck_assert_int_eq(wire_read(l, in, sizeof in, 150, err, sizeof err), 0);
    ck_assert_int_ge(now_ms() - t0, 140);

    all_bytes(out);
    ck_assert_int_eq(write(m, out, sizeof out), (ssize_t)sizeof out);
    read_exactly(l, in, sizeof in);
    ck_assert_mem_eq(in, out, sizeof out);

    /* The other end goes away: an error at once, even when asked to wait for ever. */
    close(m);
    t0 = now_ms();
    ck_assert_int_eq(wire_read(l, in, sizeof in, -1, err, sizeof err), WIRE_GONE);
    ck_assert_msg(strstr(err, "device disappeared") != NULL, "%s", err);
    ck_assert_int_lt(now_ms() - t0, 1000);
    ck_assert_int_eq(wire_read(l, in, sizeof in, -1, err, sizeof err), WIRE_GONE);
    wire_close(l);
}
END_TEST

/* The default rate, and the rates around 921600 the table must know. */
START_TEST(test_wire_serial_bauds)
{
    static const struct {
        const char *suffix;
        speed_t sp;
    } cases[] = {{"", B115200}, {":9600", B9600}, {":1000000", B1000000}, {":3000000", B3000000}};
    char name[256], spec[300], err[256] = "";

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct termios t;
        struct wire *l;
        int m, s;

        ck_assert_int_eq(openpty(&m, &s, name, NULL, NULL), 0);
        snprintf(spec, sizeof spec, "%s%s", name, cases[i].suffix);
        l = wire_open_serial(spec, err, sizeof err);
        ck_assert_msg(l != NULL, "%s: %s", spec, err);
        ck_assert_int_eq(tcgetattr(s, &t), 0);
        ck_assert_uint_eq(cfgetispeed(&t), cases[i].sp);
        wire_close(l);
        close(s);
        close(m);
    }
}
END_TEST

START_TEST(test_wire_serial_errors)
{
    char name[256], spec[300], err[256];
    int m, s;

    ck_assert_ptr_null(wire_open_serial("/nonexistent/ttyUSB9", err, sizeof err));
    ck_assert_str_eq(err, "no such device");
    ck_assert_ptr_null(wire_open_serial("/nonexistent/ttyUSB9:921600", err, sizeof err));
    ck_assert_str_eq(err, "no such device");
    ck_assert_ptr_null(wire_open_serial("/dev/null", err, sizeof err));
    ck_assert_str_eq(err, "not a terminal (use --file for files and pipes)");
    ck_assert_ptr_null(wire_open_serial("/dev/null:115200", err, sizeof err));
    ck_assert_str_eq(err, "not a terminal (use --file for files and pipes)");
    ck_assert_ptr_null(wire_open_serial("", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "no device named"));

    ck_assert_int_eq(openpty(&m, &s, name, NULL, NULL), 0);
    snprintf(spec, sizeof spec, "%s:9601", name);
    ck_assert_ptr_null(wire_open_serial(spec, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "9601: not a baud rate this system supports"));
    snprintf(spec, sizeof spec, "%s:99999999999999999999", name);
    ck_assert_ptr_null(wire_open_serial(spec, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not a baud rate"));
    close(s);
    close(m);
}
END_TEST

/* A listening socket on a free port of addr (IPv4 or IPv6 loopback); -1 when the family is not
 * there. */
static int listener(int family, unsigned *port)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

    if (fd < 0)
        return -1;
    memset(&ss, 0, sizeof ss);
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;

        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        len = sizeof *a;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        len = sizeof *a;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4) < 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                    : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

/* Bytes across, then the peer's close is the end of the stream. */
static void tcp_round(int family, const char *host)
{
    char spec[128], err[256] = "";
    uint8_t out[256], in[256];
    unsigned port;
    int ls = listener(family, &port), c;
    struct wire *l;

    if (ls < 0 && family == AF_INET6)
        return; /* no IPv6 here */
    ck_assert_int_ge(ls, 0);
    snprintf(spec, sizeof spec, "%s:%u", host, port);
    l = wire_open_tcp(spec, err, sizeof err);
    ck_assert_msg(l != NULL, "%s: %s", spec, err);
    ck_assert_str_eq(wire_name(l), spec);
    c = accept(ls, NULL, NULL);
    ck_assert_int_ge(c, 0);
    ck_assert_int_eq(wire_read(l, in, sizeof in, 100, err, sizeof err), 0);
    all_bytes(out);
    ck_assert_int_eq(write(c, out, sizeof out), (ssize_t)sizeof out);
    read_exactly(l, in, sizeof in);
    ck_assert_mem_eq(in, out, sizeof out);
    close(c);
    ck_assert_int_eq(wire_read(l, in, sizeof in, 2000, err, sizeof err), WIRE_END);
    wire_close(l);
    close(ls);
}

START_TEST(test_wire_tcp_bytes_and_eof)
{
    tcp_round(AF_INET, "127.0.0.1");
    tcp_round(AF_INET, "localhost");
    tcp_round(AF_INET6, "[::1]");
}
END_TEST

/* A link to a listener on the IPv4 loopback, and the peer's end of it (*c); *ls listens. */
static struct wire *tcp_pair(int *ls, int *c)
{
    char spec[64], err[256] = "";
    unsigned port;
    struct wire *l;

    *ls = listener(AF_INET, &port);
    ck_assert_int_ge(*ls, 0);
    snprintf(spec, sizeof spec, "127.0.0.1:%u", port);
    l = wire_open_tcp(spec, err, sizeof err);
    ck_assert_msg(l != NULL, "%s", err);
    *c = accept(*ls, NULL, NULL);
    ck_assert_int_ge(*c, 0);
    return l;
}

/* A peer that aborts the connection (RST) is an error, not the end of the stream. */
START_TEST(test_wire_tcp_reset)
{
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    char err[256] = "";
    uint8_t in[16];
    int ls, c;
    struct wire *l = tcp_pair(&ls, &c);

    setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(c);
    ck_assert_int_eq(wire_read(l, in, sizeof in, 2000, err, sizeof err), WIRE_GONE);
    ck_assert_str_eq(err, "connection reset");
    wire_close(l);
    close(ls);
}
END_TEST

START_TEST(test_wire_tcp_errors)
{
    char spec[64], err[256];
    unsigned port;
    int fd = listener(AF_INET, &port);
    long long t0;

    /* A port that was just free and has nothing listening on it now. */
    ck_assert_int_ge(fd, 0);
    close(fd);
    snprintf(spec, sizeof spec, "127.0.0.1:%u", port);
    t0 = now_ms();
    ck_assert_ptr_null(wire_open_tcp(spec, err, sizeof err));
    ck_assert_msg(strncmp(err, "connection refused", 18) == 0, "%s", err);
    ck_assert_int_lt(now_ms() - t0, 1000);

    ck_assert_ptr_null(wire_open_tcp("nohost.invalid:4444", err, sizeof err));
    ck_assert_msg(!strcmp(err, "no such host") || !strncmp(err, "cannot resolve", 14), "%s", err);
    ck_assert_ptr_null(wire_open_tcp("localhost", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not HOST:PORT"));
    ck_assert_ptr_null(wire_open_tcp(":4444", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not HOST:PORT"));
    ck_assert_ptr_null(wire_open_tcp("localhost:0", err, sizeof err));
    ck_assert_str_eq(err, "0: not a port number (1 ... 65535)");
    ck_assert_ptr_null(wire_open_tcp("localhost:65536", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not a port number"));
    ck_assert_ptr_null(wire_open_tcp("localhost:-1", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not a port number"));
    ck_assert_ptr_null(wire_open_tcp("::1:4444", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "brackets"));
    ck_assert_ptr_null(wire_open_tcp("[::1:4444", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not HOST:PORT"));
}
END_TEST

/* Opening a FIFO does not wait for a writer; no writer yet is not the end; the writer's close
 * is. */
START_TEST(test_wire_fifo)
{
    const char *path = in_dir("fifo");
    char err[256] = "";
    uint8_t out[256], in[256];
    struct wire *l;
    long long t0;
    int w;

    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    t0 = now_ms();
    l = wire_open_file(path, err, sizeof err);
    ck_assert_msg(l != NULL, "%s", err);
    ck_assert_int_lt(now_ms() - t0, 1000);
    ck_assert_int_eq(wire_read(l, in, sizeof in, 100, err, sizeof err), 0);
    w = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    ck_assert_int_ge(w, 0);
    all_bytes(out);
    ck_assert_int_eq(write(w, out, sizeof out), (ssize_t)sizeof out);
    read_exactly(l, in, sizeof in);
    ck_assert_mem_eq(in, out, sizeof out);
    ck_assert_int_eq(wire_read(l, in, sizeof in, 100, err, sizeof err), 0); /* writer still there */
    close(w);
    ck_assert_int_eq(wire_read(l, in, sizeof in, 2000, err, sizeof err), -1);
    wire_close(l);
    unlink(path);
}
END_TEST

START_TEST(test_wire_file)
{
    const char *path = in_dir("file");
    char err[256] = "";
    uint8_t out[256], in[300];
    struct wire *l;
    size_t got = 0;
    long r;
    FILE *fp = fopen(path, "wb");

    all_bytes(out);
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(out, 1, sizeof out, fp), sizeof out);
    fclose(fp);
    l = wire_open_file(path, err, sizeof err);
    ck_assert_msg(l != NULL, "%s", err);
    ck_assert_str_eq(wire_name(l), path);
    while ((r = wire_read(l, in + got, sizeof in - got, 100, err, sizeof err)) > 0)
        got += (size_t)r;
    ck_assert_int_eq(r, -1);
    ck_assert_uint_eq(got, sizeof out);
    ck_assert_mem_eq(in, out, sizeof out);
    ck_assert_int_eq(wire_read(l, in, sizeof in, 100, err, sizeof err), -1);
    wire_close(l);
    wire_close(NULL);
    unlink(path);

    /* A character device reads like a file. */
    l = wire_open_file("/dev/zero", err, sizeof err);
    ck_assert_msg(l != NULL, "%s", err);
    ck_assert_int_eq(wire_read(l, in, 16, 100, err, sizeof err), 16);
    wire_close(l);
}
END_TEST

START_TEST(test_wire_file_errors)
{
    char err[256];

    ck_assert_ptr_null(wire_open_file(in_dir("missing"), err, sizeof err));
    ck_assert_str_eq(err, "no such file");
    ck_assert_ptr_null(wire_open_file(dir, err, sizeof err));
    ck_assert_str_eq(err, "is a directory");
    if (geteuid() != 0) {
        const char *path = in_dir("plain");
        FILE *fp = fopen(path, "w");

        ck_assert_ptr_nonnull(fp);
        fclose(fp);
        chmod(path, 0);
        ck_assert_ptr_null(wire_open_file(path, err, sizeof err));
        ck_assert_str_eq(err, "permission denied");
        unlink(path);
    }
}
END_TEST

/* The serial transport GDB servers are reached by too: a rate given as a number, the speed
 * checked; a device that is no terminal is a code, for the caller's own words. */
START_TEST(test_wire_connect_serial)
{
    char name[256], err[256];
    struct termios t;
    struct wire *l;
    int m, s;

    ck_assert_int_eq(openpty(&m, &s, name, NULL, NULL), 0);
    ck_assert_int_eq(wire_connect_serial(&l, name, 460800, err, sizeof err), 0);
    ck_assert_str_eq(wire_name(l), name);
    ck_assert_int_eq(tcgetattr(s, &t), 0);
    ck_assert_uint_eq(cfgetospeed(&t), B460800);
    wire_close(l);
    ck_assert_int_eq(wire_connect_serial(&l, name, 9601, err, sizeof err), WIRE_EFAIL);
    ck_assert_ptr_null(l);
    ck_assert_ptr_nonnull(strstr(err, "9601: not a baud rate this system supports"));
    ck_assert_int_eq(wire_connect_serial(&l, "/dev/null", 115200, err, sizeof err), WIRE_ENOTTY);
    ck_assert_ptr_null(l);
    ck_assert_int_eq(wire_connect_serial(&l, "/nonexistent/tty", 115200, err, sizeof err),
                     WIRE_EOPEN);
    ck_assert_str_eq(err, "No such file or directory");
    close(s);
    close(m);
}
END_TEST

/* Writes go out at once while there is room, wait at most their timeout when there is none,
 * and a peer that went away is an error, not a SIGPIPE. */
START_TEST(test_wire_write)
{
    static uint8_t big[1 << 16];
    char err[256] = "";
    uint8_t in[8];
    int ls, c;
    struct wire *l = tcp_pair(&ls, &c);
    long long t0;
    long k = 1;

    ck_assert_int_eq(wire_write(l, "abcd", 4, 100, err, sizeof err), 4);
    ck_assert_int_eq(read(c, in, sizeof in), 4);
    ck_assert_mem_eq(in, "abcd", 4);
    /* nobody reads: the buffers fill, and then a write waits its 100 ms and returns 0 */
    for (int i = 0; i < 10000 && k > 0; i++) {
        t0 = now_ms();
        k = wire_write(l, big, sizeof big, 100, err, sizeof err);
    }
    ck_assert_int_eq(k, 0);
    ck_assert_int_ge(now_ms() - t0, 90);
    close(c);
    for (int i = 0; i < 100 && k >= 0; i++)
        k = wire_write(l, big, sizeof big, 50, err, sizeof err);
    ck_assert_msg(k == WIRE_END || k == WIRE_GONE, "%ld: %s", k, err);
    wire_close(l);
    close(ls);
}
END_TEST

/* A connect that gets no answer ends at its deadline, and at once when the stop flag is up; a
 * refusal is a code, for the caller's own hint. */
START_TEST(test_wire_connect_tcp_deadline)
{
    static volatile sig_atomic_t stop;
    char port[16], err[256];
    struct wire *l, *q[8];
    unsigned p;
    int ls = listener(AF_INET, &p), n = 0, rc = 0;
    long long t0;

    ck_assert_int_ge(ls, 0);
    snprintf(port, sizeof port, "%u", p);
    /* a backlog that nobody accepts from: once full, a SYN gets no answer */
    ck_assert_int_eq(listen(ls, 0), 0);
    while (n < 8 &&
           (rc = wire_connect_tcp(&q[n], "127.0.0.1", port, 300, NULL, err, sizeof err)) == 0)
        n++;
    ck_assert_msg(rc < 0, "the backlog never filled");
    ck_assert_str_eq(err, "no connection within 0.3 s");
    t0 = now_ms();
    ck_assert_int_eq(wire_connect_tcp(&l, "127.0.0.1", port, 2000, NULL, err, sizeof err),
                     WIRE_EFAIL);
    ck_assert_str_eq(err, "no connection within 2 s");
    ck_assert_int_ge(now_ms() - t0, 1900);
    stop = 1;
    t0 = now_ms();
    ck_assert_int_eq(wire_connect_tcp(&l, "127.0.0.1", port, 5000, &stop, err, sizeof err),
                     WIRE_EFAIL);
    ck_assert_str_eq(err, "interrupted");
    ck_assert_int_lt(now_ms() - t0, 500);
    ck_assert_ptr_null(l);
    while (n > 0)
        wire_close(q[--n]);
    close(ls);

    ls = listener(AF_INET, &p); /* free, then closed: nothing listens there */
    close(ls);
    snprintf(port, sizeof port, "%u", p);
    ck_assert_int_eq(wire_connect_tcp(&l, "127.0.0.1", port, 2000, NULL, err, sizeof err),
                     WIRE_EREFUSED);
    ck_assert_str_eq(err, "connection refused");
    ck_assert_int_eq(wire_connect_tcp(&l, "nohost.invalid", "1", 2000, NULL, err, sizeof err) < 0,
                     1);
}
END_TEST

Suite *wire_suite(void)
{
    Suite *s = suite_create("wire");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 20);
    tcase_add_unchecked_fixture(tc, dir_setup, dir_teardown);
    tcase_add_test(tc, test_wire_serial_pty_raw);
    tcase_add_test(tc, test_wire_serial_bauds);
    tcase_add_test(tc, test_wire_serial_errors);
    tcase_add_test(tc, test_wire_tcp_bytes_and_eof);
    tcase_add_test(tc, test_wire_tcp_reset);
    tcase_add_test(tc, test_wire_tcp_errors);
    tcase_add_test(tc, test_wire_fifo);
    tcase_add_test(tc, test_wire_file);
    tcase_add_test(tc, test_wire_file_errors);
    tcase_add_test(tc, test_wire_connect_serial);
    tcase_add_test(tc, test_wire_write);
    tcase_add_test(tc, test_wire_connect_tcp_deadline);
    suite_add_tcase(s, tc);
    return s;
}
