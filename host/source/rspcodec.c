/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rspcodec.c - the GDB remote protocol's packets, without a connection: framing, escaping,
 * run-length decoding, hex, error replies, qSupported and the auxiliary vector.
 *
 * A packet is "$body#cs", cs the modulo-256 sum of body as two hex digits. In replies "X*c"
 * repeats X (c - 29) more times, and "}c" stands for the byte c ^ 0x20 ('$', '#', '}', '*'
 * inside binary data). Everything here is a pure function of its arguments and never writes
 * past the capacity it is given: the fuzzer (tests/fuzz/fuzz_rsp.c) holds it to that. */
#include "source/rspcodec.h"

#include <string.h>

#include "util/le.h"

int rspcodec_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

uint8_t rspcodec_checksum(const void *p, size_t n)
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

long rspcodec_frame(const void *data, size_t n, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *d = data;
    size_t o = 0, start;
    uint8_t sum;

    if (cap < 4)
        return RSPCODEC_ETOOLONG;
    out[o++] = '$';
    start = o;
    for (size_t i = 0; i < n; i++) {
        if (o + (needs_escape(d[i]) ? 2 : 1) + 3 > cap)
            return RSPCODEC_ETOOLONG;
        if (needs_escape(d[i])) {
            out[o++] = '}';
            out[o++] = (char)(d[i] ^ 0x20);
        } else {
            out[o++] = (char)d[i];
        }
    }
    sum = rspcodec_checksum(out + start, o - start);
    out[o++] = '#';
    out[o++] = hex[sum >> 4];
    out[o++] = hex[sum & 15];
    return (long)o;
}

/* One pass: "}c" is one byte c ^ 0x20, "*c" repeats the last decoded byte c - 29 times. The
 * count character is taken as it comes (it may be '}' or '*'). Sane servers never run-length
 * encode an escaped byte, so this agrees with GDB's order (expand, then unescape) on all of
 * them. */
long rspcodec_decode(const char *body, size_t n, uint8_t *out, size_t cap)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)body[i];

        if (c == '}') {
            if (++i >= n)
                return RSPCODEC_EFRAME;
            c = (uint8_t)body[i] ^ 0x20;
        } else if (c == '*') {
            unsigned rep;

            if (o == 0 || ++i >= n)
                return RSPCODEC_EFRAME;
            c = (uint8_t)body[i];
            if (c < 32 || c > 126)
                return RSPCODEC_EFRAME;
            rep = c - 29u;
            if (rep > cap - o)
                return RSPCODEC_ETOOLONG;
            memset(out + o, out[o - 1], rep);
            o += rep;
            continue;
        }
        if (o >= cap)
            return RSPCODEC_ETOOLONG;
        out[o++] = c;
    }
    return (long)o;
}

long rspcodec_unframe(const char *frame, size_t n, uint8_t *out, size_t cap)
{
    const char *hash;
    int hi, lo;

    if (n < 4 || frame[0] != '$')
        return RSPCODEC_EFRAME;
    hash = memchr(frame + 1, '#', n - 1);
    if (!hash || (size_t)(hash - frame) + 3 != n)
        return RSPCODEC_EFRAME;
    hi = rspcodec_hex_digit((uint8_t)hash[1]);
    lo = rspcodec_hex_digit((uint8_t)hash[2]);
    if (hi < 0 || lo < 0)
        return RSPCODEC_EFRAME;
    if (rspcodec_checksum(frame + 1, (size_t)(hash - frame - 1)) != (hi << 4 | lo))
        return RSPCODEC_ECHECKSUM;
    return rspcodec_decode(frame + 1, (size_t)(hash - frame - 1), out, cap);
}

long rspcodec_hex_decode(const char *hex, size_t n, uint8_t *out, size_t cap)
{
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int hi = rspcodec_hex_digit((uint8_t)hex[i]), lo = rspcodec_hex_digit((uint8_t)hex[i + 1]);

        if (hi < 0 || lo < 0)
            return -1;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(n / 2);
}

long rspcodec_hex_encode(const void *p, size_t n, char *out, size_t cap)
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

int rspcodec_error_code(const char *reply, size_t n)
{
    int hi, lo;

    if (n >= 2 && reply[0] == 'E' && reply[1] == '.')
        return 0;
    if (n != 3 || reply[0] != 'E')
        return -1;
    hi = rspcodec_hex_digit((uint8_t)reply[1]);
    lo = rspcodec_hex_digit((uint8_t)reply[2]);
    return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
}

int rspcodec_error_text(const char *reply, size_t n, char *buf, size_t len)
{
    size_t o = 0;

    if (rspcodec_error_code(reply, n) < 0 || len == 0)
        return -1;
    /* As sent: "E.memory error" says more than any number would. Printable only, and short. */
    for (size_t i = 0; i < n && o + 1 < len && o < 100; i++)
        buf[o++] = reply[i] >= 0x20 && reply[i] < 0x7f ? reply[i] : '?';
    buf[o] = 0;
    return 0;
}

int rspcodec_is_hex(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rspcodec_hex_digit((uint8_t)p[i]) < 0)
            return 0;
    return 1;
}

int rspcodec_is_output(const char *reply, size_t n)
{
    return n >= 3 && reply[0] == 'O' && (n - 1) % 2 == 0 && rspcodec_is_hex(reply + 1, n - 1);
}

int rspcodec_is_stop(const char *reply, size_t n)
{
    return n >= 3 && strchr("TSWX", reply[0]) && rspcodec_is_hex(reply + 1, 2);
}

static int feature_is(const char *f, size_t n, const char *name)
{
    return strlen(name) == n && !memcmp(f, name, n);
}

int rspcodec_parse_supported(const char *reply, size_t n, struct rspcodec_features *f)
{
    const char *p = reply, *end = reply + n;

    memset(f, 0, sizeof *f);
    f->packet_size = RSPCODEC_DEFAULT_PACKET;
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        size_t len = (size_t)((semi ? semi : end) - p);

        if (len > 11 && !memcmp(p, "PacketSize=", 11)) {
            uint64_t v = 0;

            for (size_t i = 11; i < len; i++) {
                int d = rspcodec_hex_digit((uint8_t)p[i]);

                if (d < 0)
                    return -1;
                if (v <= RSPCODEC_MAX_PACKET) /* saturates: a huge size is clamped, never wraps */
                    v = v << 4 | (unsigned)d;
            }
            f->packet_size = v > RSPCODEC_MAX_PACKET ? RSPCODEC_MAX_PACKET : (size_t)v;
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

int rspcodec_auxv_find(const uint8_t *auxv, size_t len, unsigned word_bytes, uint64_t type,
                       uint64_t *val)
{
    if (word_bytes != 4 && word_bytes != 8)
        return -1;
    for (size_t o = 0; o + 2 * word_bytes <= len; o += 2 * word_bytes) {
        uint64_t t = le_get(auxv + o, word_bytes), v = le_get(auxv + o + word_bytes, word_bytes);

        if (t == 0) /* AT_NULL ends the vector */
            break;
        if (t == type) {
            *val = v;
            return 0;
        }
    }
    return -1;
}
