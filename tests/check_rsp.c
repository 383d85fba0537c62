/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_rsp.c - the GDB remote protocol's framing and parsing, without a socket: test vectors
 * (the ones in GDB's manual among them), malformed input that must be refused without writing
 * past a buffer, and random round trips. The requests that change a target (memory writes,
 * breakpoints, continue, the wait for the stop) against tests/fake_gdb (under
 * $CYGTRACE_BUILD), in its good and bad modes. The transports are tested end to end against
 * real servers (tests/e2e/pull_*.sh, fw_arm.sh). */
#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakegdb.h"
#include "source/rsp.h"
#include "source/rspwhere.h"
#include "suites.h"
#include "testdir.h"

#define GUARD 0xA5

/* A buffer of cap bytes followed by guard bytes that must survive whatever is decoded. */
struct guarded {
    uint8_t b[64 + 16];
};

static void guard_init(struct guarded *g, size_t cap)
{
    memset(g->b, 0, sizeof g->b);
    memset(g->b + cap, GUARD, sizeof g->b - cap);
}

static void guard_check(const struct guarded *g, size_t cap)
{
    for (size_t i = cap; i < sizeof g->b; i++)
        ck_assert_uint_eq(g->b[i], GUARD);
}

static long decode_str(const char *body, uint8_t *out, size_t cap)
{
    return rspcodec_decode(body, strlen(body), out, cap);
}

START_TEST(test_rspcodec_checksum)
{
    ck_assert_uint_eq(rspcodec_checksum("qSupported", 10), 0x37);
    ck_assert_uint_eq(rspcodec_checksum("OK", 2), 0x9a);
    ck_assert_uint_eq(rspcodec_checksum("", 0), 0);
    ck_assert_uint_eq(rspcodec_checksum("\xff\xff", 2), 0xfe); /* modulo 256 */
}
END_TEST

START_TEST(test_rspcodec_frame_plain)
{
    char out[32];
    long n = rspcodec_frame("m0,4", 4, out, sizeof out);

    ck_assert_int_eq(n, 8);
    out[n] = 0;
    ck_assert_str_eq(out, "$m0,4#fd");
    n = rspcodec_frame("", 0, out, sizeof out);
    out[n] = 0;
    ck_assert_str_eq(out, "$#00");
}
END_TEST

START_TEST(test_rspcodec_frame_escapes)
{
    char out[32];
    long n = rspcodec_frame("a$b#c}d*", 8, out, sizeof out);

    ck_assert_int_eq(n, 1 + 12 + 3);
    ck_assert(!memcmp(out,
                      "$a}\x04"
                      "b}\x03"
                      "c}]d}\x0a#ec",
                      (size_t)n));
}
END_TEST

START_TEST(test_rspcodec_frame_too_small)
{
    char out[16];

    memset(out, GUARD, sizeof out);
    ck_assert_int_eq(rspcodec_frame("0123456789", 10, out, 12), RSP_ETOOLONG);
    ck_assert_int_eq(rspcodec_frame("##", 2, out, 7), RSP_ETOOLONG); /* 2 escapes need 8 */
    ck_assert_int_eq(rspcodec_frame("", 0, out, 3), RSP_ETOOLONG);
    for (size_t i = 12; i < sizeof out; i++)
        ck_assert_uint_eq((uint8_t)out[i], GUARD);
    ck_assert_int_eq(rspcodec_frame("##", 2, out, 8), 8);
}
END_TEST

/* GDB's manual: "0* " means "0000" (' ' is 32: three more). */
START_TEST(test_rspcodec_decode_rle)
{
    uint8_t out[128];

    ck_assert_int_eq(decode_str("0* ", out, sizeof out), 4);
    ck_assert(!memcmp(out, "0000", 4));
    ck_assert_int_eq(decode_str("ab*!c", out, sizeof out), 7); /* '!' is 33: four more */
    ck_assert(!memcmp(out, "abbbbbc", 7));
    ck_assert_int_eq(decode_str("x*~", out, sizeof out), 98); /* '~' is 126: 97 more */
    for (int i = 0; i < 98; i++)
        ck_assert_uint_eq(out[i], 'x');
    /* The count character is taken as it comes, even '}' or '*'. */
    ck_assert_int_eq(decode_str("0*}", out, sizeof out), 97);
    ck_assert_int_eq(decode_str("0**", out, sizeof out), 14);
    /* A run of a run: the last byte decoded repeats. */
    ck_assert_int_eq(decode_str("7* * ", out, sizeof out), 7);
    ck_assert(!memcmp(out, "7777777", 7));
}
END_TEST

START_TEST(test_rspcodec_decode_escapes)
{
    uint8_t out[16];

    ck_assert_int_eq(decode_str("}]}\x03}\x04}\x0a", out, sizeof out), 4);
    ck_assert(!memcmp(out, "}#$*", 4));
    /* An escaped byte repeated: "}\x03" is '#', and '*' repeats it. */
    ck_assert_int_eq(decode_str("}\x03* ", out, sizeof out), 4);
    ck_assert(!memcmp(out, "####", 4));
    ck_assert_int_eq(decode_str("", out, sizeof out), 0);
}
END_TEST

START_TEST(test_rspcodec_decode_malformed)
{
    struct guarded g;

    guard_init(&g, 8);
    ck_assert_int_eq(decode_str("* ", g.b, 8), RSP_EFRAME);     /* nothing to repeat */
    ck_assert_int_eq(decode_str("a*", g.b, 8), RSP_EFRAME);     /* no count */
    ck_assert_int_eq(decode_str("a}", g.b, 8), RSP_EFRAME);     /* escape at the end */
    ck_assert_int_eq(decode_str("a*\x1f", g.b, 8), RSP_EFRAME); /* count below ' ' */
    ck_assert_int_eq(decode_str("a*\x7f", g.b, 8), RSP_EFRAME); /* count above '~' */
    guard_check(&g, 8);
}
END_TEST

START_TEST(test_rspcodec_decode_overflow)
{
    struct guarded g;

    /* A run that would spill past the buffer is refused before a byte is written. */
    guard_init(&g, 10);
    ck_assert_int_eq(decode_str("0*~", g.b, 10), RSP_ETOOLONG);
    guard_check(&g, 10);
    guard_init(&g, 4);
    ck_assert_int_eq(decode_str("0* ", g.b, 4), 4); /* exactly full */
    guard_check(&g, 4);
    ck_assert_int_eq(decode_str("0*!", g.b, 4), RSP_ETOOLONG);
    ck_assert_int_eq(decode_str("01234", g.b, 4), RSP_ETOOLONG);
    ck_assert_int_eq(decode_str("0123}]", g.b, 4), RSP_ETOOLONG);
    guard_check(&g, 4);
    ck_assert_int_eq(decode_str("a", g.b, 0), RSP_ETOOLONG);
}
END_TEST

START_TEST(test_rspcodec_unframe)
{
    uint8_t out[32];

    ck_assert_int_eq(rspcodec_unframe("$OK#9a", 6, out, sizeof out), 2);
    ck_assert(!memcmp(out, "OK", 2));
    ck_assert_int_eq(rspcodec_unframe("$OK#9A", 6, out, sizeof out), 2); /* either case */
    ck_assert_int_eq(rspcodec_unframe("$#00", 4, out, sizeof out), 0);
    ck_assert_int_eq(rspcodec_unframe("$0* #7a", 7, out, sizeof out), 4);
    ck_assert(!memcmp(out, "0000", 4));
}
END_TEST

START_TEST(test_rspcodec_unframe_malformed)
{
    struct guarded g;

    guard_init(&g, 8);
    ck_assert_int_eq(rspcodec_unframe("OK#9a", 5, g.b, 8), RSP_EFRAME); /* no '$' */
    ck_assert_int_eq(rspcodec_unframe("$OK9a", 5, g.b, 8), RSP_EFRAME); /* no '#' */
    ck_assert_int_eq(rspcodec_unframe("$OK#9", 5, g.b, 8), RSP_EFRAME); /* short checksum */
    ck_assert_int_eq(rspcodec_unframe("$OK#", 4, g.b, 8), RSP_EFRAME);
    ck_assert_int_eq(rspcodec_unframe("$OK#zz", 6, g.b, 8), RSP_EFRAME);  /* not hex */
    ck_assert_int_eq(rspcodec_unframe("$OK#9ax", 7, g.b, 8), RSP_EFRAME); /* junk after */
    ck_assert_int_eq(rspcodec_unframe("$OK#9b", 6, g.b, 8), RSP_ECHECKSUM);
    ck_assert_int_eq(rspcodec_unframe("$a*#8b", 6, g.b, 8), RSP_EFRAME); /* bad RLE, good sum */
    ck_assert_int_eq(rspcodec_unframe("$", 1, g.b, 8), RSP_EFRAME);
    ck_assert_int_eq(rspcodec_unframe("", 0, g.b, 8), RSP_EFRAME);
    ck_assert_int_eq(rspcodec_unframe("$0*~#d8", 7, g.b, 8), RSP_ETOOLONG);
    guard_check(&g, 8);
}
END_TEST

/* Whatever the bytes, framing then unframing gives them back. */
START_TEST(test_rspcodec_frame_round_trip)
{
    uint8_t data[64], back[64];
    char frame[2 * 64 + 4];

    srand(12345);
    for (int t = 0; t < 5000; t++) {
        size_t n = (size_t)rand() % sizeof data;
        long k, m;

        for (size_t i = 0; i < n; i++)
            data[i] = (uint8_t)(t % 3 ? rand() : "$#}*0"[rand() % 5]);
        k = rspcodec_frame(data, n, frame, sizeof frame);
        ck_assert_int_gt(k, 0);
        ck_assert_ptr_null(memchr(frame + 1, '$', (size_t)k - 1)); /* nothing a frame ends on */
        ck_assert_ptr_eq(memchr(frame, '#', (size_t)k), frame + k - 3);
        m = rspcodec_unframe(frame, (size_t)k, back, sizeof back);
        ck_assert_int_eq(m, (long)n);
        ck_assert(!memcmp(data, back, n));
    }
}
END_TEST

START_TEST(test_rspcodec_hex)
{
    uint8_t out[8];
    char text[17];

    ck_assert_int_eq(rspcodec_hex_decode("00ff7fA0", 8, out, sizeof out), 4);
    ck_assert(!memcmp(out, "\x00\xff\x7f\xa0", 4));
    ck_assert_int_eq(rspcodec_hex_decode("", 0, out, sizeof out), 0);
    ck_assert_int_eq(rspcodec_hex_decode("0", 1, out, sizeof out), -1);  /* odd */
    ck_assert_int_eq(rspcodec_hex_decode("0g", 2, out, sizeof out), -1); /* not hex */
    ck_assert_int_eq(rspcodec_hex_decode("0 ", 2, out, sizeof out), -1);
    ck_assert_int_eq(rspcodec_hex_decode("000000", 6, out, 2), -1); /* too long */
    ck_assert_int_eq(rspcodec_hex_encode("\x00\xff\x10", 3, text, sizeof text), 6);
    ck_assert_str_eq(text, "00ff10");
    ck_assert_int_eq(rspcodec_hex_encode("abcd", 4, text, 8), -1); /* no room for NUL */
}
END_TEST

START_TEST(test_rspcodec_error_code)
{
    ck_assert_int_eq(rspcodec_error_code("E01", 3), 1);
    ck_assert_int_eq(rspcodec_error_code("EFF", 3), 255);
    ck_assert_int_eq(rspcodec_error_code("E0e", 3), 14);
    ck_assert_int_eq(rspcodec_error_code("E.no such memory", 16), 0);
    ck_assert_int_eq(rspcodec_error_code("E1", 2), -1);
    ck_assert_int_eq(rspcodec_error_code("E0g", 3), -1);
    ck_assert_int_eq(rspcodec_error_code("E010", 4), -1); /* two bytes of hex data, not an error */
    ck_assert_int_eq(rspcodec_error_code("e01", 3), -1);
    ck_assert_int_eq(rspcodec_error_code("OK", 2), -1);
    ck_assert_int_eq(rspcodec_error_code("", 0), -1);
}
END_TEST

/* An error as the server said it: "E.memory error" is not "E00". */
START_TEST(test_rspcodec_error_text)
{
    char buf[128];

    ck_assert_int_eq(rspcodec_error_text("E01", 3, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "E01");
    ck_assert_int_eq(rspcodec_error_text("E.memory error", 14, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "E.memory error");
    ck_assert_int_eq(rspcodec_error_text("E.bad\nline\x01", 11, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "E.bad?line?");
    ck_assert_int_eq(rspcodec_error_text("E.long text", 11, buf, 5), 0);
    ck_assert_str_eq(buf, "E.lo");
    ck_assert_int_eq(rspcodec_error_text("OK", 2, buf, sizeof buf), -1);
    ck_assert_int_eq(rspcodec_error_text("E010", 4, buf, sizeof buf), -1);
}
END_TEST

/* What is answer and what comes between: console output, stop replies. */
START_TEST(test_rspcodec_classify)
{
    static const struct {
        const char *reply;
        int output, stop;
    } v[] = {
        {"O68690a", 1, 0}, {"OK", 0, 0},  {"O6", 0, 0},  {"O6869g0", 0, 0},       {"T05", 0, 1},
        {"S02", 0, 1},     {"W00", 0, 1}, {"X0f", 0, 1}, {"T05thread:01;", 0, 1}, {"T5", 0, 0},
        {"Tzz", 0, 0},     {"E01", 0, 0}, {"", 0, 0},
    };

    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t n = strlen(v[i].reply);

        ck_assert_msg(rspcodec_is_output(v[i].reply, n) == v[i].output, "%s", v[i].reply);
        ck_assert_msg(rspcodec_is_stop(v[i].reply, n) == v[i].stop, "%s", v[i].reply);
    }
    ck_assert_int_eq(rspcodec_is_hex("09afAF", 6), 1);
    ck_assert_int_eq(rspcodec_is_hex("0x", 2), 0);
}
END_TEST

START_TEST(test_rspcodec_parse_supported)
{
    static const char gdbserver[] =
        "PacketSize=47ff;QPassSignals+;QProgramSignals+;qXfer:libraries-svr4:read+;"
        "qXfer:auxv:read+;qXfer:features:read+;QStartNoAckMode+;qXfer:auxv:readx+";
    struct rspcodec_features f;

    ck_assert_int_eq(rspcodec_parse_supported(gdbserver, strlen(gdbserver), &f), 0);
    ck_assert_uint_eq(f.packet_size, 0x47ff);
    ck_assert_int_eq(f.no_ack, 1);
    ck_assert_int_eq(f.auxv, 1);
    ck_assert_int_eq(f.binary_upload, 0);
    ck_assert_int_eq(rspcodec_parse_supported("PacketSize=1000;binary-upload+", 30, &f), 0);
    ck_assert_uint_eq(f.packet_size, 0x1000);
    ck_assert_int_eq(f.binary_upload, 1);
    ck_assert_int_eq(f.no_ack, 0);
    ck_assert_int_eq(rspcodec_parse_supported("binary-upload-;QStartNoAckMode-", 31, &f), 0);
    ck_assert_int_eq(f.binary_upload + f.no_ack, 0);
    ck_assert_int_eq(rspcodec_parse_supported("", 0, &f), 0);
    ck_assert_uint_eq(f.packet_size, 400); /* GDB's default */
    /* A size past any sane packet is clamped; its digits never wrap around. */
    ck_assert_int_eq(rspcodec_parse_supported("PacketSize=ffffffffffffffffffff", 31, &f), 0);
    ck_assert_uint_eq(f.packet_size, 1u << 20);
    ck_assert_int_eq(rspcodec_parse_supported("PacketSize=zz", 13, &f), -1);
    ck_assert_int_eq(rspcodec_parse_supported("PacketSize=", 11, &f), -1);
    ck_assert_int_eq(rspcodec_parse_supported("PacketSize=10 ;x", 16, &f), -1);
}
END_TEST

START_TEST(test_rspcodec_auxv_find)
{
    /* AT_PHDR (3), AT_ENTRY (9), AT_NULL, then garbage that must not be read as an entry. */
    static const uint8_t v64[] = {3, 0, 0, 0, 0, 0, 0, 0, 0x40, 0,    0,    0,    0,    0,    0, 0,
                                  9, 0, 0, 0, 0, 0, 0, 0, 0x60, 0x10, 0x34, 0x12, 0x55, 0x55, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0,    0,    0,    0,    0,    0,    0, 0,
                                  7, 0, 0, 0, 0, 0, 0, 0, 1,    0,    0,    0,    0,    0,    0, 0};
    static const uint8_t v32[] = {9, 0, 0, 0, 0x01, 0x80, 0, 0x08, 0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t v = 0;

    ck_assert_int_eq(rspcodec_auxv_find(v64, sizeof v64, 8, 9, &v), 0);
    ck_assert_uint_eq(v, 0x555512341060ull);
    ck_assert_int_eq(rspcodec_auxv_find(v64, sizeof v64, 8, 3, &v), 0);
    ck_assert_uint_eq(v, 0x40);
    ck_assert_int_eq(rspcodec_auxv_find(v64, sizeof v64, 8, 7, &v), -1); /* after AT_NULL */
    ck_assert_int_eq(rspcodec_auxv_find(v64, 23, 8, 9, &v), -1);         /* cut inside an entry */
    ck_assert_int_eq(rspcodec_auxv_find(v32, sizeof v32, 4, 9, &v), 0);
    ck_assert_uint_eq(v, 0x08008001u);
    ck_assert_int_eq(rspcodec_auxv_find(v32, sizeof v32, 2, 9, &v), -1);
    ck_assert_int_eq(rspcodec_auxv_find(NULL, 0, 8, 9, &v), -1);
}
END_TEST

START_TEST(test_rspwhere_parse)
{
    struct rspwhere w;
    char err[128];

    ck_assert_int_eq(rspwhere_parse("127.0.0.1:3333", &w, err, sizeof err), 0);
    ck_assert_int_eq(w.serial, 0);
    ck_assert_str_eq(w.host, "127.0.0.1");
    ck_assert_str_eq(w.port, "3333");
    ck_assert_int_eq(rspwhere_parse(":3333", &w, err, sizeof err), 0);
    ck_assert_str_eq(w.host, "127.0.0.1");
    ck_assert_int_eq(rspwhere_parse("[::1]:2331", &w, err, sizeof err), 0);
    ck_assert_str_eq(w.host, "::1");
    ck_assert_str_eq(w.port, "2331");
    ck_assert_int_eq(rspwhere_parse("tcp:probe.local:1234", &w, err, sizeof err), 0);
    ck_assert_str_eq(w.host, "probe.local");
    ck_assert_int_eq(rspwhere_parse("/dev/ttyACM0", &w, err, sizeof err), 0);
    ck_assert_int_eq(w.serial, 1);
    ck_assert_str_eq(w.path, "/dev/ttyACM0");
    ck_assert_uint_eq(w.baud, 115200);
    ck_assert_int_eq(rspwhere_parse("/dev/ttyACM0:921600", &w, err, sizeof err), 0);
    ck_assert_str_eq(w.path, "/dev/ttyACM0");
    ck_assert_uint_eq(w.baud, 921600);
    /* A path that exists keeps its colons. */
    ck_assert_int_eq(rspwhere_parse("/dev/null", &w, err, sizeof err), 0);
    ck_assert_str_eq(w.path, "/dev/null");

    ck_assert_int_eq(rspwhere_parse("foo", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("host:", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("host:0", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("host:65536", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("host:12ab", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("host:-1", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("::1:3333", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("/dev/ttyACM0:0", &w, err, sizeof err), -1);
    ck_assert_int_eq(rspwhere_parse("/dev/ttyACM0:123456789", &w, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "baud"));
}
END_TEST

/* Nothing listens on a port of 127.0.0.1 just released: a clear "refused", quickly. */
START_TEST(test_rsp_connect_errors)
{
    char err[512];

    ck_assert_ptr_null(rsp_connect("127.0.0.1:1", 2000, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "127.0.0.1:1: connection refused"));
    ck_assert_ptr_null(rsp_connect("nohost", 2000, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not HOST:PORT"));
    ck_assert_ptr_null(rsp_connect("/nonexistent/tty", 2000, err, sizeof err));
    ck_assert_str_eq(err, "/nonexistent/tty: No such file or directory");
    ck_assert_ptr_null(rsp_connect("/dev/null", 2000, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "not a serial device"));
    rsp_close(NULL);
}
END_TEST

/* --- against tests/fake_gdb ----------------------------------------------------------------- */

static void fake_setup(void)
{
    testdir_make("rsp");
}

static void fake_teardown(void)
{
    testdir_remove();
}

static long ms_since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Written, read back: binary "X" and hex "M", acknowledged or not, in one packet or many
 * (small packets), with the bytes "X" must escape. */
START_TEST(test_rsp_write_mem)
{
    static const char *modes[] = {"ok", "ok,nox", "ok,hex,ack", "ok,small", "ok,small,nox,ack"};
    uint8_t want[600], got[600];

    for (size_t i = 0; i < sizeof want; i++)
        want[i] = "$#}*\0\x03+-"[i % 8] ^ (uint8_t)(i / 8);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        struct fake f;

        fake_start(&f, modes[m], NULL);
        ck_assert_msg(rsp_write_mem(f.c, FAKE_ADDR + 100, want, sizeof want, f.err, sizeof f.err) ==
                          0,
                      "%s: %s", modes[m], f.err);
        ck_assert_int_eq(rsp_write_mem(f.c, FAKE_ADDR, want, 0, f.err, sizeof f.err), 0);
        memset(got, 0, sizeof got);
        ck_assert_int_eq(
            rsp_read_mem(f.c, FAKE_ADDR + 100, got, sizeof got, NULL, NULL, f.err, sizeof f.err),
            0);
        ck_assert_msg(!memcmp(got, want, sizeof want), "%s: read back other bytes", modes[m]);
        ck_assert_int_eq(rsp_read_mem(f.c, FAKE_ADDR + 99, got, 1, NULL, NULL, f.err, sizeof f.err),
                         0);
        ck_assert_uint_eq(got[0], 99); /* the byte before is as it was */
        ck_assert_int_eq(fake_end(&f), 0);
    }
}
END_TEST

/* A server whose packets hold 32 bytes, the least it may say (less than a write's header and
 * margin): the writes go a few bytes at a time, each packet within its size, never the whole
 * buffer in one (the per-packet room once wrapped below zero). */
START_TEST(test_rsp_write_mem_tiny_packets)
{
    uint8_t want[100], got[100];
    struct fake f;

    for (size_t i = 0; i < sizeof want; i++)
        want[i] = (uint8_t)(i * 7 + 1);
    fake_start(&f, "ok,tiny", NULL);
    ck_assert_uint_eq(rsp_features(f.c)->packet_size, 32);
    ck_assert_msg(rsp_write_mem(f.c, FAKE_ADDR + 10, want, sizeof want, f.err, sizeof f.err) == 0,
                  "%s", f.err);
    ck_assert_int_eq(
        rsp_read_mem(f.c, FAKE_ADDR + 10, got, sizeof got, NULL, NULL, f.err, sizeof f.err), 0);
    ck_assert_mem_eq(got, want, sizeof want);
    ck_assert_int_eq(fake_end(&f), 0);
}
END_TEST

/* A write the server refuses names the address and what the server said. */
START_TEST(test_rsp_write_mem_errors)
{
    struct fake f;
    uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8};

    fake_start(&f, "ewrite", NULL);
    ck_assert_int_eq(rsp_write_mem(f.c, FAKE_ADDR + 4, b, sizeof b, f.err, sizeof f.err),
                     RSP_EREPLY);
    ck_assert_ptr_nonnull(strstr(f.err, "writing 8 bytes at 0x20000004"));
    ck_assert_ptr_nonnull(strstr(f.err, "E01"));
    ck_assert_int_eq(fake_end(&f), 0);

    fake_start(&f, "ok,nox", NULL);
    ck_assert_int_eq(rsp_write_mem(f.c, FAKE_ADDR - 8, b, sizeof b, f.err, sizeof f.err),
                     RSP_EREPLY);
    ck_assert_ptr_nonnull(strstr(f.err, "0x1ffffff8"));
    ck_assert_int_eq(fake_end(&f), 0);
}
END_TEST

/* Z1, c, the stop at the breakpoint, the pc there, z1: the dance `cygtrace arm` does. */
START_TEST(test_rsp_breakpoint_stop)
{
    static const char *modes[] = {"ok", "ok,ack"};

    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        struct fake f;
        uint64_t pc = 1;
        int sig = -1;

        fake_start(&f, modes[m], NULL);
        ck_assert_int_eq(rsp_read_reg(f.c, 15, 4, &pc, f.err, sizeof f.err), 0);
        ck_assert_uint_eq(pc, 0);
        ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_HARD, 0x1234, 2, 1, f.err, sizeof f.err), 0);
        ck_assert_int_eq(rsp_continue(f.c, f.err, sizeof f.err), 0);
        ck_assert_msg(rsp_wait_stop(f.c, 2000, &sig, f.err, sizeof f.err) == 0, "%s", f.err);
        ck_assert_int_eq(sig, 5);
        ck_assert_int_eq(rsp_read_reg(f.c, 15, 4, &pc, f.err, sizeof f.err), 0);
        ck_assert_uint_eq(pc, 0x1234);
        ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_HARD, 0x1234, 2, 0, f.err, sizeof f.err), 0);
        ck_assert_int_eq(fake_end(&f), 0);
    }
}
END_TEST

/* No Z1: RSP_EUNSUPPORTED, and Z0 still works; no breakpoints at all; a register that is not. */
START_TEST(test_rsp_breakpoint_unsupported)
{
    struct fake f;
    uint64_t v;

    fake_start(&f, "ok,noz1", NULL);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_HARD, 0x1234, 2, 1, f.err, sizeof f.err),
                     RSP_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(f.err, "no hardware breakpoints"));
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_SOFT, 0x1234, 2, 1, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_SOFT, 0x1234, 2, 0, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_read_reg(f.c, 99, 4, &v, f.err, sizeof f.err), RSP_EREPLY);
    ck_assert_int_eq(fake_end(&f), 0);

    fake_start(&f, "ok,nobp", NULL);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_SOFT, 0x1234, 2, 1, f.err, sizeof f.err),
                     RSP_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(f.err, "no software breakpoints"));
    ck_assert_int_eq(fake_end(&f), 0);
}
END_TEST

/* A target that never reaches its breakpoint: the wait ends at its timeout, a halt stops the
 * target, and the connection still serves requests. */
START_TEST(test_rsp_wait_stop_timeout)
{
    struct timespec t0;
    struct fake f;
    uint8_t b[4];
    int sig = -1;

    fake_start(&f, "ok,norun", NULL);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_HARD, 0x1234, 2, 1, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_continue(f.c, f.err, sizeof f.err), 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(rsp_wait_stop(f.c, 300, &sig, f.err, sizeof f.err), RSP_ETIMEOUT);
    ck_assert_int_lt(ms_since(&t0), 1000);
    ck_assert_ptr_nonnull(strstr(f.err, "did not stop within 0.3 s"));
    ck_assert_int_eq(rsp_halt(f.c, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_HARD, 0x1234, 2, 0, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_read_mem(f.c, FAKE_ADDR + 4, b, sizeof b, NULL, NULL, f.err, sizeof f.err),
                     0);
    ck_assert_uint_eq(b[0], 4);
    ck_assert_int_eq(fake_end(&f), 0);
}
END_TEST

/* Ctrl-C while the target runs: the wait ends within a poll slice, and after rsp_cleanup the
 * halt, the breakpoint's removal and the detach still go through. */
START_TEST(test_rsp_wait_stop_interrupted)
{
    static volatile sig_atomic_t flag;
    struct timespec t0;
    struct fake f;
    int sig = -1;

    flag = 0;
    fake_start(&f, "ok,norun", NULL);
    rsp_set_stop(&flag);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_SOFT, 0x1234, 2, 1, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_continue(f.c, f.err, sizeof f.err), 0);
    flag = SIGINT;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(rsp_wait_stop(f.c, 5000, &sig, f.err, sizeof f.err), RSP_ESTOPPED);
    ck_assert_int_lt(ms_since(&t0), 500);
    rsp_cleanup(f.c);
    ck_assert_int_eq(rsp_halt(f.c, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_SOFT, 0x1234, 2, 0, f.err, sizeof f.err), 0);
    ck_assert_int_eq(fake_end(&f), 0);
    rsp_set_stop(NULL);
}
END_TEST

/* Held at reset (boot): memory is zeros and writes are lost until the target stops at the
 * breakpoint, where its start-up has laid the image out. */
START_TEST(test_rsp_boot)
{
    struct fake f;
    uint8_t b[4], x = 0xEE;
    int sig;

    fake_start(&f, "ok,boot", NULL);
    ck_assert_int_eq(rsp_read_mem(f.c, FAKE_ADDR + 8, b, sizeof b, NULL, NULL, f.err, sizeof f.err),
                     0);
    ck_assert_uint_eq(b[0] | b[1] | b[2] | b[3], 0);
    ck_assert_int_eq(rsp_write_mem(f.c, FAKE_ADDR + 8, &x, 1, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_HARD, 0x1234, 2, 1, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_continue(f.c, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_wait_stop(f.c, 2000, &sig, f.err, sizeof f.err), 0);
    ck_assert_int_eq(rsp_read_mem(f.c, FAKE_ADDR + 8, b, sizeof b, NULL, NULL, f.err, sizeof f.err),
                     0);
    ck_assert_uint_eq(b[0], 8);
    ck_assert_uint_eq(b[3], 11);
    ck_assert_int_eq(rsp_breakpoint(f.c, RSP_BP_HARD, 0x1234, 2, 0, f.err, sizeof f.err), 0);
    ck_assert_int_eq(fake_end(&f), 0);
}
END_TEST

Suite *rsp_suite(void)
{
    Suite *s = suite_create("rsp");
    TCase *tc = tcase_create("core"), *tf = tcase_create("fake_gdb");

    tcase_add_test(tc, test_rspcodec_checksum);
    tcase_add_test(tc, test_rspcodec_frame_plain);
    tcase_add_test(tc, test_rspcodec_frame_escapes);
    tcase_add_test(tc, test_rspcodec_frame_too_small);
    tcase_add_test(tc, test_rspcodec_decode_rle);
    tcase_add_test(tc, test_rspcodec_decode_escapes);
    tcase_add_test(tc, test_rspcodec_decode_malformed);
    tcase_add_test(tc, test_rspcodec_decode_overflow);
    tcase_add_test(tc, test_rspcodec_unframe);
    tcase_add_test(tc, test_rspcodec_unframe_malformed);
    tcase_add_test(tc, test_rspcodec_frame_round_trip);
    tcase_add_test(tc, test_rspcodec_hex);
    tcase_add_test(tc, test_rspcodec_error_code);
    tcase_add_test(tc, test_rspcodec_error_text);
    tcase_add_test(tc, test_rspcodec_classify);
    tcase_add_test(tc, test_rspcodec_parse_supported);
    tcase_add_test(tc, test_rspcodec_auxv_find);
    tcase_add_test(tc, test_rspwhere_parse);
    tcase_add_test(tc, test_rsp_connect_errors);
    suite_add_tcase(s, tc);
    tcase_add_checked_fixture(tf, fake_setup, fake_teardown);
    tcase_set_timeout(tf, 30);
    tcase_add_test(tf, test_rsp_write_mem);
    tcase_add_test(tf, test_rsp_write_mem_tiny_packets);
    tcase_add_test(tf, test_rsp_write_mem_errors);
    tcase_add_test(tf, test_rsp_breakpoint_stop);
    tcase_add_test(tf, test_rsp_breakpoint_unsupported);
    tcase_add_test(tf, test_rsp_wait_stop_timeout);
    tcase_add_test(tf, test_rsp_wait_stop_interrupted);
    tcase_add_test(tf, test_rsp_boot);
    suite_add_tcase(s, tf);
    return s;
}
