/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_hdr.c - a ring's control block: parsed field by field, refused with its reason (the
 * one validator, hdr_check, a stream's description goes through too), found in a RAM image
 * with the reason of the first lookalike, and the control area taken from bytes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "decode/hdr.h"
#include "ringgen.h"

static const char *parse_error(const uint8_t *buf, size_t len)
{
    struct dec_ring r;
    static char why[256];

    ck_assert_int_eq(hdr_parse(buf, len, &r, why, sizeof why), -1);
    ck_assert_str_ne(why, "");
    return why;
}

START_TEST(test_hdr_parse_fields)
{
    struct ringgen g;
    struct dec_ring r;
    char why[256] = "";

    rg_init(&g, 8, 4, CYG_F_OVERWRITE | CYG_F_CALLSITES);
    rg_event(&g, 0, 0x1000, 5, 1, 0x2000);
    rg_seal(&g, 3, CYG_S_FROZEN);
    ck_assert_int_eq(hdr_parse(g.buf, g.size, &r, why, sizeof why), 0);
    ck_assert_uint_eq(r.word_bytes, 8);
    ck_assert_uint_eq(r.rec_bytes, 32);
    ck_assert_uint_eq(r.cap, 16);
    ck_assert_uint_eq(r.head, 1);
    ck_assert_uint_eq(r.lost, 3);
    ck_assert_uint_eq(r.state, CYG_S_FROZEN);
    ck_assert_uint_eq(r.machine, 62);
    ck_assert_uint_eq(r.ts_hz, 1000000000u);
    rg_free(&g);
}
END_TEST

START_TEST(test_hdr_parse_rejects)
{
    struct ringgen g;
    uint8_t hdr[CYG_HDR_BYTES];

    rg_init(&g, 8, 4, CYG_F_OVERWRITE);
    rg_seal(&g, 0, CYG_S_RUNNING);
    ck_assert_str_eq(parse_error(g.buf, 0), "empty file");
    ck_assert_ptr_nonnull(strstr(parse_error(g.buf, 100), "too short"));

    memcpy(hdr, g.buf, sizeof hdr);
    hdr[0] = 'X';
    ck_assert_ptr_nonnull(strstr(parse_error(hdr, sizeof hdr), "not a cygtrace dump"));

    memcpy(hdr, g.buf, sizeof hdr);
    hdr[CYG_OFF_CAP_LOG2] ^= 1; /* any change to the sealed part */
    ck_assert_ptr_nonnull(strstr(parse_error(hdr, sizeof hdr), "checksum"));
    rg_free(&g);
}
END_TEST

/* A block that passes the checksum but says something impossible is still refused. */
START_TEST(test_hdr_parse_rejects_sealed_nonsense)
{
    static const struct {
        unsigned off, val;
        const char *why;
    } cases[] = {
        {CYG_OFF_VERSION, CYG_VERSION + 1, "newer"},
        {CYG_OFF_VERSION, 0, "unknown"},
        {CYG_OFF_CHUNK_LOG2, 5, "inconsistent"}, /* more than the ring (2^4) */
        {CYG_OFF_WORD, 2, "word size"},
        {CYG_OFF_REC, 24, "record size"},
        {CYG_OFF_CAP_LOG2, 0, "capacity"},
        {CYG_OFF_CAP_LOG2, 60, "capacity"},
        {CYG_OFF_TS_BITS, 0, "inconsistent"},
        {CYG_OFF_TS_BITS, 62, "inconsistent"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ringgen g;
        uint32_t crc;

        rg_init(&g, 8, 4, CYG_F_OVERWRITE);
        rg_seal(&g, 0, CYG_S_RUNNING);
        g.buf[cases[i].off] = (uint8_t)cases[i].val;
        crc = crc32_update(0, g.buf, CYG_OFF_CHECK);
        memcpy(g.buf + CYG_OFF_CHECK, &crc, 4);
        ck_assert_msg(strstr(parse_error(g.buf, g.size), cases[i].why), "case %zu", i);
        rg_free(&g);
    }
}
END_TEST

/* The hooks' cost (bytes 72..79 and 23, reserved and zero before): read when a runtime wrote it,
 * 0 from a block without it, and never a reason to refuse one. */
START_TEST(test_hdr_parse_hook_cost)
{
    struct ringgen g;
    struct dec_ring r;
    char why[256] = "";
    uint32_t v, crc;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE);
    rg_seal(&g, 0, CYG_S_RUNNING);
    ck_assert_int_eq(hdr_parse(g.buf, g.size, &r, why, sizeof why), 0);
    ck_assert_uint_eq(r.hook_cost, 0); /* an older runtime's block: none known */
    ck_assert_uint_eq(r.page_cost, 0);
    ck_assert_uint_eq(r.page_log2, 0);
    v = 5993u | CYG_HOOK_COST_GIVEN;
    memcpy(g.buf + CYG_OFF_HOOK_COST, &v, 4);
    v = 5252u;
    memcpy(g.buf + CYG_OFF_PAGE_COST, &v, 4);
    g.buf[CYG_OFF_PAGE_LOG2] = 12;
    crc = crc32_update(0, g.buf, CYG_OFF_CHECK);
    memcpy(g.buf + CYG_OFF_CHECK, &crc, 4);
    ck_assert_int_eq(hdr_parse(g.buf, g.size, &r, why, sizeof why), 0);
    ck_assert_uint_eq(r.hook_cost & CYG_HOOK_COST_MASK, 5993u);
    ck_assert(r.hook_cost & CYG_HOOK_COST_GIVEN);
    ck_assert_uint_eq(r.page_cost, 5252u);
    ck_assert_uint_eq(r.page_log2, 12);
    ck_assert_uint_eq(r.word_bytes, 8); /* the rest as before */
    ck_assert_uint_eq(r.cap, 16);
    /* inside the check: a change that was not resealed is refused */
    g.buf[CYG_OFF_HOOK_COST] ^= 1;
    ck_assert_ptr_nonnull(strstr(parse_error(g.buf, g.size), "checksum"));
    rg_free(&g);
}
END_TEST

/* The first lookalike's reason, or the reason at offset 0, naming the input. */
START_TEST(test_hdr_locate_reports_reason)
{
    uint8_t junk[4096];
    struct dec_ring r;
    char why[256] = "";
    struct src *s;

    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 7 + 3);
    s = src_open_mem("junk", junk, sizeof junk, 0);
    ck_assert_int_eq(hdr_locate(s, &r, why, sizeof why), -1);
    ck_assert_str_eq(why, "junk: not a cygtrace dump (no CYGTRACE control block)");
    memcpy(junk + 64, CYG_MAGIC, 8); /* a lookalike: magic, and nothing else right */
    ck_assert_int_eq(hdr_locate(s, &r, why, sizeof why), -1);
    ck_assert_str_eq(why, "junk: control block checksum mismatch (corrupted header)");
    src_close(s);
}
END_TEST

/* The validator alone, as the stream decoder uses it (no message wanted). */
START_TEST(test_hdr_check_limits)
{
    struct dec_ring r = {.word_bytes = 4, .rec_bytes = 8, .cap_log2 = 10, .ts_bits = 24};
    char why[128];

    ck_assert_int_eq(hdr_check(&r, why, sizeof why), 0);
    r.cap_log2 = 29; /* a 32-bit ring holds 2^28 records at most */
    ck_assert_int_eq(hdr_check(&r, why, sizeof why), -1);
    ck_assert_str_eq(why, "control block: capacity out of range");
    r.cap_log2 = 10;
    r.state = CYG_S_FULL + 1;
    ck_assert_int_eq(hdr_check(&r, NULL, 0), -1);
}
END_TEST

/* The control area as a live ring file gives it: hdr_ctrl_parse on bytes. */
START_TEST(test_hdr_ctrl_parse_bytes)
{
    struct ringgen g;
    struct dec_ring r;
    char why[256] = "";

    rg_init(&g, 8, 4, 0);
    rg_trigger(&g, 0, CYG_TRIG_START, 0x1000, 0, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    ck_assert_int_eq(hdr_parse(g.buf, CYG_HDR_BYTES, &r, why, sizeof why), 0);
    ck_assert_uint_eq(r.ctrl_state, DEC_CTRL_NONE); /* not read by hdr_parse */
    ck_assert_uint_eq(dec_ctrl_off(&r), CYG_HDR_BYTES + 16 * 16);
    hdr_ctrl_parse(&r, g.buf + dec_ctrl_off(&r), CYG_CTRL_BYTES, g.size);
    ck_assert_uint_eq(r.ctrl_state, DEC_CTRL_OK);
    ck_assert_uint_eq(r.ctrl.ntrig, 1);
    hdr_ctrl_parse(&r, g.buf + dec_ctrl_off(&r), 0, 400);
    ck_assert_uint_eq(r.ctrl_state, DEC_CTRL_SHORT);
    ck_assert_uint_eq(r.ctrl_end, 400);
    rg_free(&g);
}
END_TEST

Suite *hdr_suite(void)
{
    Suite *s = suite_create("hdr");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_hdr_parse_fields);
    tcase_add_test(tc, test_hdr_parse_hook_cost);
    tcase_add_test(tc, test_hdr_parse_rejects);
    tcase_add_test(tc, test_hdr_parse_rejects_sealed_nonsense);
    tcase_add_test(tc, test_hdr_locate_reports_reason);
    tcase_add_test(tc, test_hdr_check_limits);
    tcase_add_test(tc, test_hdr_ctrl_parse_bytes);
    suite_add_tcase(s, tc);
    return s;
}
