/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rspcodec.h - the GDB remote protocol's packets as bytes: framing and checksums, escapes and
 * run-length encoding, hex, error replies, qSupported, the auxiliary vector. Pure functions,
 * tested against vectors (tests/check_rsp.c) and fuzzed; the session that sends and waits is
 * rsp.h. */
#ifndef RSPCODEC_H
#define RSPCODEC_H

#include <stddef.h>
#include <stdint.h>

/* The codes a packet that does not decode returns; rsp.h's RSP_E* of the same names. */
enum {
    RSPCODEC_ECHECKSUM = -4, /* the checksum does not match */
    RSPCODEC_EFRAME = -5,    /* a malformed packet, bad hex, bad run-length encoding */
    RSPCODEC_ETOOLONG = -6,  /* longer than the buffer it must fit */
};

#define RSPCODEC_DEFAULT_PACKET 400 /* GDB's own assumption when qSupported says nothing */
#define RSPCODEC_MAX_PACKET (1u << 20)

/* What a qSupported reply says. */
struct rspcodec_features {
    size_t packet_size; /* PacketSize (bytes), or 400 when not given */
    int no_ack;         /* QStartNoAckMode+ */
    int binary_upload;  /* binary-upload+: the "x addr,len" read */
    int auxv;           /* qXfer:auxv:read+ */
};

/* Returns the value of hex digit c (either case), or -1. */
int rspcodec_hex_digit(int c);

/* Returns the modulo-256 sum of n bytes: a packet's checksum. */
uint8_t rspcodec_checksum(const void *p, size_t n);

/* Writes "$data#cs" into out, escaping '$', '#', '}' and '*'; returns the frame's length, or
 * RSPCODEC_ETOOLONG when it does not fit in cap. */
long rspcodec_frame(const void *data, size_t n, char *out, size_t cap);

/* Decodes a packet body as received between '$' and '#': run-length expansion, then '}'
 * unescaping; returns the decoded length or RSPCODEC_EFRAME / RSPCODEC_ETOOLONG. */
long rspcodec_decode(const char *body, size_t n, uint8_t *out, size_t cap);

/* Checks and decodes a whole frame "$body#cs"; returns the decoded length, or RSPCODEC_EFRAME
 * (no '$', no '#', short or non-hex checksum, bad encoding), RSPCODEC_ECHECKSUM,
 * RSPCODEC_ETOOLONG. */
long rspcodec_unframe(const char *frame, size_t n, uint8_t *out, size_t cap);

/* Decodes n hex digits into n/2 bytes; returns n/2, or -1 (odd count, a non-hex digit, or more
 * than cap bytes). */
long rspcodec_hex_decode(const char *hex, size_t n, uint8_t *out, size_t cap);

/* Encodes n bytes as 2n lower-case hex digits plus a NUL; returns 2n, or -1 if cap is short. */
long rspcodec_hex_encode(const void *p, size_t n, char *out, size_t cap);

/* Returns NN (0..255) when the reply is an error "E NN" (or "E.text": 0), else -1. */
int rspcodec_error_code(const char *reply, size_t n);

/* Writes an error reply as the server sent it ("E01", "E.memory error"; printable characters
 * only, 100 at most) into buf: 0, or -1 when the reply is no error. */
int rspcodec_error_text(const char *reply, size_t n, char *buf, size_t len);

/* Returns 1 when all n characters are hex digits, else 0. */
int rspcodec_is_hex(const char *p, size_t n);

/* Returns 1 when the reply is console output: 'O' and hex digits (not "OK", a plain answer). */
int rspcodec_is_output(const char *reply, size_t n);

/* Returns 1 when the reply is a stop reply: 'T' or 'S' and a signal, 'W' or 'X' and a status. */
int rspcodec_is_stop(const char *reply, size_t n);

/* Fills f from a qSupported reply; 0, or -1 when a PacketSize is not a hex number. */
int rspcodec_parse_supported(const char *reply, size_t n, struct rspcodec_features *f);

/* Finds entry type in an auxiliary vector of word_bytes-wide little-endian pairs; 0 and *val,
 * or -1 when absent. */
int rspcodec_auxv_find(const uint8_t *auxv, size_t len, unsigned word_bytes, uint64_t type,
                       uint64_t *val);

#endif
