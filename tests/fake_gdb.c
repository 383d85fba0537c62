/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fake_gdb.c - a tiny GDB remote protocol server for the tests of "cygtrace pull" and "cygtrace
 * arm": the bad servers no real one can be made to be (one that answers E01, hangs up in the
 * middle of a read, garbles every checksum, goes silent), and a good one that serves a file as
 * memory, takes writes into it, breakpoints, continue and interrupt.
 *
 *   fake_gdb PORTFILE MODE[,OPTION...] [IMAGE_FILE ADDR]
 *
 * Listens on 127.0.0.1, port 0, writes the port it got to PORTFILE, serves one client, and
 * exits when the client detaches (status 0; 4 when it left a breakpoint set) or leaves without
 * a detach (status 3), or after 30 s whatever happens. IMAGE_FILE is memory at ADDR; a read
 * elsewhere answers E01, as a real server does.
 *
 * MODE:   ok      answers like a real server
 *         e01     every memory read answers E01
 *         close   hangs up in the middle of the fourth memory read (in the records)
 *         badsum  every reply carries a wrong checksum
 *         silent  never answers a memory read
 *         noctl   memory is all zeros, everywhere
 *         chatty  never answers a memory read, but sends console output ("O" packets) every
 *                 second meanwhile, as a busy probe does
 *         etext   every memory read answers "E.memory error" (an error with text)
 *         ewrite  reads as ok, but every memory write answers E01
 * OPTION: pty     serve on a pseudo-terminal instead; PORTFILE gets its path
 *         hex     do not offer binary-upload: the client must read with 'm'
 *         ack     do not offer QStartNoAckMode: every packet is acknowledged
 *         small   PacketSize=100 (hex): many small reads, binary replies cut short by escapes
 *         tiny    PacketSize=20 (hex), the least a server may say: writes a few bytes a packet
 *         slow    takes a millisecond over each memory read: a long read on any machine
 *         nox     does not know binary writes ("X"): the client must write with 'M'
 *         noz1    has no hardware breakpoints (Z1): the client must fall back to Z0
 *         nobp    has no breakpoints at all
 *         norun   a continued target never reaches a breakpoint: only an interrupt stops it
 *         boot    the target is held at reset: memory reads as zeros (and writes are lost)
 *                 until it first stops at a breakpoint, where its start-up has set it up
 *         pc=HEX  the program counter (register 15) until the target stops at a breakpoint
 *         rtt=N   the image holds an RTT control block (its ID at a 4-byte boundary, pointers of
 *                 4 bytes): while it runs, the target writes N bytes into up buffer 0 (a
 *                 counter, byte k is k & 0xff) each time it is interrupted, as much as fits
 *                 (the rest is dropped, and the counter goes on past it); a block whose
 *                 offsets are out of range takes nothing
 *         rttexit=K  at the K-th interrupt the target exits instead (W00, then the server goes)
 *         rttbad=K   at the K-th interrupt the target corrupts its wr_off (size + 7)
 *         rttstop=K  at the K-th continue the target stops by itself at once (T05)
 *
 * The target: halted; 'c' resumes it, and it stops at a breakpoint (the first set) 100 ms
 * later, with T05 and its pc there, or when interrupted (0x03: T02). Without a breakpoint it
 * runs until interrupted.
 *
 * Replies are run-length encoded where a byte repeats, and binary replies escaped, as real
 * servers do, so that the client's decoding is tested against a second implementation. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

enum mode { M_OK, M_E01, M_CLOSE, M_BADSUM, M_SILENT, M_NOCTL, M_CHATTY, M_ETEXT, M_EWRITE };

static enum mode mode;
static int opt_pty, opt_hex, opt_ack, opt_small, opt_tiny, opt_slow, opt_nox, opt_noz1, opt_nobp,
    opt_norun, opt_boot;
static uint64_t pc;
static int running, booted;
static unsigned rtt_feed, rtt_exit, rtt_bad, rtt_stop, rtt_stops, rtt_resumes;
static uint64_t rtt_written, rtt_dropped;
static uint64_t bp_addr;
static int bp_type = -1; /* -1: none set */
static const char *image_path;

static void load_image(const char *path, const char *addr);
static int fd = -1;
static int no_ack;
static uint8_t *image;
static size_t image_len;
static uint64_t image_addr;
static unsigned reads;

static size_t packet_size(void)
{
    return opt_tiny ? 0x20 : opt_small ? 0x100 : 0x1000;
}

static void die(const char *what)
{
    fprintf(stderr, "fake_gdb: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void put(const void *p, size_t n)
{
    const uint8_t *b = p;

    while (n) {
        ssize_t k = write(fd, b, n);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            exit(3); /* the client left without a detach */
        b += k;
        n -= (size_t)k;
    }
}

/* Bytes read from the client and not yet used: the chatty mode looks at them too. */
static uint8_t in_buf[4096];
static size_t in_pos, in_len;

static int get(void)
{
    while (in_pos == in_len) {
        ssize_t k = read(fd, in_buf, sizeof in_buf);

        if (k < 0 && (errno == EINTR || errno == EAGAIN)) {
            struct pollfd pf = {fd, POLLIN, 0};
            poll(&pf, 1, 100);
            continue;
        }
        if (k <= 0)
            exit(3);
        in_pos = 0;
        in_len = (size_t)k;
    }
    return in_buf[in_pos++];
}

/* Frames body (already escaped) with run-length encoding of plain repeated characters. */
static void reply_raw(const char *body, size_t n)
{
    char *out = malloc(n + 4);
    size_t o = 0;
    unsigned sum = 0;

    out[o++] = '$';
    for (size_t i = 0; i < n;) {
        size_t run = 1;

        /* Never run-length encode an escape or the byte after it, and stay below 98
         * repeats; counts that would be '#' or '$' (6, 7 more) are not allowed. */
        if (body[i] == '}') {
            out[o++] = body[i++];
            out[o++] = body[i++];
            continue;
        }
        while (i + run < n && body[i + run] == body[i] && run < 98)
            run++;
        out[o++] = body[i];
        if (run >= 4) {
            size_t more = run - 1;

            if (more == 6 || more == 7)
                more = 5;
            out[o++] = '*';
            out[o++] = (char)(more + 29);
            i += 1 + more;
        } else {
            i++;
        }
    }
    for (size_t i = 1; i < o; i++)
        sum += (uint8_t)out[i];
    if (mode == M_BADSUM)
        sum++;
    out[o++] = '#';
    out[o++] = "0123456789abcdef"[sum >> 4 & 15];
    out[o++] = "0123456789abcdef"[sum & 15];
    for (;;) {
        int c;

        put(out, o); /* in one write: a frame split in two waits on Nagle and delayed acks */
        if (no_ack)
            break;
        c = get(); /* the client's verdict */
        if (c != '-')
            break;
    }
    free(out);
}

static void reply(const char *s)
{
    reply_raw(s, strlen(s));
}

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

/* Memory at addr, len bytes: a pointer into the image, zeros (noctl), or NULL (E01). The
 * length is cut where the image ends. */
static const uint8_t *memory(uint64_t addr, size_t *len)
{
    static uint8_t *zeros;

    if (mode == M_NOCTL || (opt_boot && !booted)) {
        zeros = realloc(zeros, *len ? *len : 1);
        memset(zeros, 0, *len);
        return zeros;
    }
    if (!image || addr < image_addr || addr - image_addr >= image_len)
        return NULL;
    if (*len > image_len - (addr - image_addr))
        *len = image_len - (addr - image_addr);
    return image + (addr - image_addr);
}

static void read_memory(const char *req, int binary)
{
    uint64_t addr;
    size_t len;
    const uint8_t *m;
    char *body;
    size_t o = 0, room = packet_size() - 5;

    if (sscanf(req + 1, "%" SCNx64 ",%zx", &addr, &len) != 2) {
        reply("E02");
        return;
    }
    reads++;
    if (mode == M_SILENT)
        return;
    if (mode == M_CHATTY) {
        /* Busy, says the console, every second; the answer never comes. Back to the packets
         * as soon as the client sends one (its detach). */
        struct pollfd pf = {fd, POLLIN, 0};
        char out[128] = "O";

        for (const char *p = "fake_gdb: still busy\n"; *p; p++)
            sprintf(out + strlen(out), "%02x", (uint8_t)*p);
        while (in_pos == in_len && poll(&pf, 1, 1000) == 0)
            reply(out);
        return;
    }
    if (mode == M_ETEXT) {
        reply("E.memory error");
        return;
    }
    if (opt_slow)
        usleep(1000);
    if (mode == M_E01 || !(m = memory(addr, &len))) {
        reply("E01");
        return;
    }
    if (mode == M_CLOSE && reads == 4) {
        put("$0000", 5); /* half a reply, then gone */
        close(fd);
        exit(0);
    }
    body = malloc(2 * len + 2);
    if (binary) {
        body[o++] = 'b';
        for (size_t i = 0; i < len; i++) {
            int esc = m[i] == '$' || m[i] == '#' || m[i] == '}' || m[i] == '*';

            if (o + 1 + esc > room) /* what does not fit comes in the next read */
                break;
            if (esc) {
                body[o++] = '}';
                body[o++] = (char)(m[i] ^ 0x20);
            } else {
                body[o++] = (char)m[i];
            }
        }
    } else {
        if (2 * len > room)
            len = room / 2;
        for (size_t i = 0; i < len; i++)
            o += (size_t)sprintf(body + o, "%02x", m[i]);
    }
    reply_raw(body, o);
    free(body);
}

/* "Maddr,len:hex" or "Xaddr,len:bytes" (escaped, n bytes of packet in all). */
static void write_memory(const char *req, size_t n, int binary)
{
    const char *colon = memchr(req, ':', n);
    uint8_t *data = malloc(n + 1);
    uint64_t addr;
    size_t len, got = 0, room;
    const uint8_t *m;

    if (!colon || !data || sscanf(req + 1, "%" SCNx64 ",%zx", &addr, &len) != 2) {
        free(data);
        reply("E02");
        return;
    }
    for (const char *p = colon + 1; p < req + n && got <= n; p++) {
        if (binary && *p == '}' && p + 1 < req + n)
            data[got++] = (uint8_t)(*++p ^ 0x20);
        else if (binary)
            data[got++] = (uint8_t)*p;
        else if (p + 1 < req + n && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
            data[got++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
            p++;
        }
    }
    room = len;
    m = len ? memory(addr, &room) : NULL;
    if (got != len) {
        reply("E03");
    } else if (mode == M_EWRITE || (len && (!m || room < len))) {
        reply("E01");
    } else {
        if (len && !(opt_boot && !booted)) /* held at reset: the start-up wipes it anyway */
            memcpy((uint8_t *)m, data, len);
        reply("OK");
    }
    free(data);
}

/* Z/z TYPE,ADDR,KIND: one breakpoint at a time. */
static void breakpoint(const char *req)
{
    unsigned type, kind;
    uint64_t addr;

    if (sscanf(req + 1, "%u,%" SCNx64 ",%x", &type, &addr, &kind) != 3 || type > 4) {
        reply("E02");
        return;
    }
    if (type > 1 || opt_nobp || (type == 1 && opt_noz1)) {
        reply("");
        return;
    }
    if (req[0] == 'Z') {
        if (bp_type >= 0 && bp_addr != addr) {
            reply("E0e"); /* no room for a second one */
            return;
        }
        bp_type = (int)type;
        bp_addr = addr;
    } else if (bp_type >= 0 && bp_addr == addr) {
        bp_type = -1;
    }
    reply("OK");
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

/* The RTT control block's up buffer 0 descriptor in the image, or NULL. */
static uint8_t *rtt_desc(void)
{
    for (size_t i = 0; i + 48 <= image_len; i += 4)
        if (!memcmp(image + i, "SEGGER RTT", 11))
            return image + i + 24;
    return NULL;
}

/* The target ran until this interrupt: it wrote into its channel. Returns 1 when it exited. */
static int rtt_interrupt(void)
{
    uint8_t *d = rtt_desc();
    uint32_t size, wr, rd, room;
    uint64_t buf;

    rtt_stops++;
    if (rtt_exit && rtt_stops == rtt_exit) {
        reply("W00");
        return 1;
    }
    if (!d)
        return 0;
    buf = get32(d + 4);
    size = get32(d + 8);
    wr = get32(d + 12);
    rd = get32(d + 16);
    if (rtt_bad && rtt_stops == rtt_bad) {
        put32(d + 12, size + 7);
        return 0;
    }
    if (!size || wr >= size || rd >= size || buf < image_addr ||
        buf - image_addr + size > image_len)
        return 0;
    room = (rd > wr ? rd - wr : size - wr + rd) - 1;
    for (unsigned i = 0; i < rtt_feed; i++) {
        if (!room) {
            rtt_dropped += rtt_feed - i;
            break;
        }
        image[buf - image_addr + wr] = (uint8_t)(rtt_written + rtt_dropped);
        wr = (wr + 1) % size;
        room--;
        rtt_written++;
    }
    put32(d + 12, wr);
    return 0;
}

/* 'c': runs to the breakpoint, or until interrupted (the serve loop sees the 0x03). */
static void resume(void)
{
    struct pollfd pf = {fd, POLLIN, 0};

    running = 1;
    if (rtt_feed && rtt_stop && ++rtt_resumes == rtt_stop) {
        running = 0;
        reply("T05thread:01;");
        return;
    }
    if (bp_type < 0 || opt_norun)
        return;
    if (in_pos == in_len && poll(&pf, 1, 100) == 0) {
        running = 0;
        pc = bp_addr;
        if (opt_boot && !booted) {
            booted = 1; /* the start-up has run: the image is what it set up */
            free(image);
            load_image(image_path, NULL);
        }
        reply("T05thread:01;");
    }
}

/* 'p N': the pc is register 15, every other one is 0; 'g': 16 of them. */
static void registers(const char *req)
{
    char out[16 * 8 + 1];
    unsigned n;

    for (unsigned i = 0; i < 16; i++)
        for (unsigned b = 0; b < 4; b++)
            sprintf(out + 8 * i + 2 * b, "%02x", i == 15 ? (unsigned)(pc >> 8 * b & 0xff) : 0u);
    if (req[0] == 'g') {
        reply(out);
    } else if (sscanf(req + 1, "%x", &n) == 1 && n < 16) {
        out[8 * n + 8] = 0;
        reply(out + 8 * n);
    } else {
        reply("E00");
    }
}

static void monitor(const char *hex)
{
    char text[256], out[600];
    size_t n = 0;
    int k;

    while (hex[0] && hex[1] && n < 100) {
        text[n++] = (char)(hexval(hex[0]) << 4 | hexval(hex[1]));
        hex += 2;
    }
    text[n] = 0;
    k = snprintf(out, sizeof out, "O");
    for (const char *p = "fake_gdb: monitor "; *p; p++)
        k += snprintf(out + k, sizeof out - (size_t)k, "%02x", (uint8_t)*p);
    for (size_t i = 0; i < n; i++)
        k += snprintf(out + k, sizeof out - (size_t)k, "%02x", (uint8_t)text[i]);
    snprintf(out + k, sizeof out - (size_t)k, "0a");
    reply(out);
    reply("OK");
}

static void serve(void)
{
    static char pkt[1 << 16];

    for (;;) {
        size_t n = 0;
        int c = get();

        if (c == 3) {
            if (running && rtt_feed && rtt_interrupt())
                exit(0); /* the target exited: so does the server, as QEMU */
            running = 0;
            reply("T02");
            continue;
        }
        if (c != '$')
            continue; /* acks and noise */
        while ((c = get()) != '#' && n + 1 < sizeof pkt)
            pkt[n++] = (char)c;
        pkt[n] = 0;
        get();
        get(); /* the client's checksum is trusted: it is the client under test */
        if (!no_ack)
            put("+", 1);
        if (n + 4 > packet_size()) { /* "$#cs" and the body: more than it said it takes */
            reply("E0E");
            continue;
        }
        if (!strncmp(pkt, "qSupported", 10)) {
            char r[128];

            snprintf(r, sizeof r, "PacketSize=%zx%s%s", packet_size(),
                     opt_ack ? "" : ";QStartNoAckMode+", opt_hex ? "" : ";binary-upload+");
            reply(r);
        } else if (!strcmp(pkt, "QStartNoAckMode")) {
            reply("OK");
            no_ack = 1;
        } else if (!strcmp(pkt, "?")) {
            reply("S05");
        } else if (!strncmp(pkt, "vAttach;", 8)) {
            reply(strtoul(pkt + 8, NULL, 16) == 1 ? "T05" : "E01");
        } else if (!strcmp(pkt, "qOffsets")) {
            reply("Text=0;Data=0;Bss=0");
        } else if (!strncmp(pkt, "qRcmd,", 6)) {
            monitor(pkt + 6);
        } else if (pkt[0] == 'm' || pkt[0] == 'x') {
            read_memory(pkt, pkt[0] == 'x');
        } else if ((pkt[0] == 'X' && !opt_nox) || pkt[0] == 'M') {
            write_memory(pkt, n, pkt[0] == 'X');
        } else if (pkt[0] == 'Z' || pkt[0] == 'z') {
            breakpoint(pkt);
        } else if (!strcmp(pkt, "c")) {
            resume();
        } else if (pkt[0] == 'p' || !strcmp(pkt, "g")) {
            registers(pkt);
        } else if (!strcmp(pkt, "D")) {
            reply("OK");
            exit(bp_type >= 0 ? 4 : 0);
        } else {
            reply("");
        }
    }
}

static void load_image(const char *path, const char *addr)
{
    FILE *f = fopen(path, "rb");
    long n;

    if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0)
        die(path);
    image_len = (size_t)n;
    image = malloc(image_len ? image_len : 1);
    if (!image || fread(image, 1, image_len, f) != image_len)
        die(path);
    fclose(f);
    if (addr)
        image_addr = strtoull(addr, NULL, 0);
}

/* Writes what the client needs to find us, atomically: the test polls for the file. */
static void announce(const char *portfile, const char *what)
{
    char tmp[4096];
    FILE *f;

    snprintf(tmp, sizeof tmp, "%s.tmp", portfile);
    f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", what) < 0 || fclose(f) != 0 || rename(tmp, portfile) < 0)
        die(portfile);
}

static void open_pty(const char *portfile)
{
    struct termios t;
    int slave;

    fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (fd < 0 || grantpt(fd) < 0 || unlockpt(fd) < 0)
        die("pty");
    /* Held open (and raw) so that the line neither echoes nor hangs up before the client. */
    slave = open(ptsname(fd), O_RDWR | O_NOCTTY);
    if (slave < 0 || tcgetattr(slave, &t) < 0)
        die(ptsname(fd));
    cfmakeraw(&t);
    tcsetattr(slave, TCSANOW, &t);
    announce(portfile, ptsname(fd));
}

static void open_tcp(const char *portfile)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    char port[16];
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;

    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 1) < 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) < 0)
        die("socket");
    snprintf(port, sizeof port, "%u", ntohs(a.sin_port));
    announce(portfile, port);
    fd = accept(s, NULL, NULL);
    if (fd < 0)
        die("accept");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    close(s);
}

int main(int argc, char **argv)
{
    static const char *modes[] = {"ok",    "e01",    "close", "badsum", "silent",
                                  "noctl", "chatty", "etext", "ewrite"};
    char *opts, *tok;
    int found = 0;

    if (argc != 3 && argc != 5) {
        fprintf(stderr,
                "usage: fake_gdb PORTFILE MODE[,pty,hex,ack,small,tiny,slow,nox,noz1,nobp,norun,"
                "boot,pc=HEX,rtt=N,rttexit=K,rttbad=K,rttstop=K] [IMAGE_FILE ADDR]\n");
        return 2;
    }
    opts = strdup(argv[2]);
    tok = strtok(opts, ",");
    for (size_t i = 0; tok && i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(tok, modes[i])) {
            mode = (enum mode)i;
            found = 1;
        }
    if (!found) {
        fprintf(stderr, "fake_gdb: %s: not a mode\n", argv[2]);
        return 2;
    }
    while ((tok = strtok(NULL, ","))) {
        opt_pty |= !strcmp(tok, "pty");
        opt_hex |= !strcmp(tok, "hex");
        opt_ack |= !strcmp(tok, "ack");
        opt_small |= !strcmp(tok, "small");
        opt_tiny |= !strcmp(tok, "tiny");
        opt_slow |= !strcmp(tok, "slow");
        opt_nox |= !strcmp(tok, "nox");
        opt_noz1 |= !strcmp(tok, "noz1");
        opt_nobp |= !strcmp(tok, "nobp");
        opt_norun |= !strcmp(tok, "norun");
        opt_boot |= !strcmp(tok, "boot");
        if (!strncmp(tok, "pc=", 3))
            pc = strtoull(tok + 3, NULL, 16);
        if (!strncmp(tok, "rtt=", 4))
            rtt_feed = (unsigned)strtoul(tok + 4, NULL, 0);
        if (!strncmp(tok, "rttexit=", 8))
            rtt_exit = (unsigned)strtoul(tok + 8, NULL, 0);
        if (!strncmp(tok, "rttbad=", 7))
            rtt_bad = (unsigned)strtoul(tok + 7, NULL, 0);
        if (!strncmp(tok, "rttstop=", 8))
            rtt_stop = (unsigned)strtoul(tok + 8, NULL, 0);
    }
    if (argc == 5) {
        image_path = argv[3];
        load_image(argv[3], argv[4]);
    }
    alarm(30); /* whatever happens, never outlive the test */
    if (opt_pty)
        open_pty(argv[1]);
    else
        open_tcp(argv[1]);
    serve();
    return 0;
}
