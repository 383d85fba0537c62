/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_format.c - the format pinned: CRC vectors, the lap rule, and the record test vectors
 * of docs/FORMAT.md, encoded by the test generator and decoded by the decoder. */
#include <check.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "decode/dec.h"
#include "ringgen.h"
#include "suites.h"

START_TEST(test_format_crc32_vectors)
{
    ck_assert_uint_eq(crc32_update(0, "", 0), 0);
    ck_assert_uint_eq(crc32_update(0, "123456789", 9), 0xcbf43926u);
    ck_assert_uint_eq(crc32_update(0, "The quick brown fox jumps over the lazy dog", 43),
                      0x414fa339u);
    /* continuing a CRC equals one pass */
    ck_assert_uint_eq(crc32_update(crc32_update(0, "12345", 5), "6789", 4), 0xcbf43926u);
    /* where the runtime's seal starts from (cygtrace.c, CYG_MAGIC_CRC) */
    ck_assert_uint_eq(crc32_update(0, CYG_MAGIC, 8), 0x660d6cdbu);
}
END_TEST

START_TEST(test_format_lap_rule)
{
    /* first lap writes 1 over zeroed memory, the second 0, the third 1 again */
    ck_assert_uint_eq(cyg_lap(0, 4), 1);
    ck_assert_uint_eq(cyg_lap(15, 4), 1);
    ck_assert_uint_eq(cyg_lap(16, 4), 0);
    ck_assert_uint_eq(cyg_lap(31, 4), 0);
    ck_assert_uint_eq(cyg_lap(32, 4), 1);
    ck_assert_uint_eq(cyg_lap(0xffffffffu, 31), 0);
}
END_TEST

/* FORMAT.md section 4.1: the lap bit and bits 1..11 of the inverted lap number. */
START_TEST(test_format_lap_tag)
{
    ck_assert_uint_eq(cyg64_lap_tag(0, 4), UINT64_C(0x9ffc000000000000));
    ck_assert_uint_eq(cyg64_lap_tag(15, 4), UINT64_C(0x9ffc000000000000));
    ck_assert_uint_eq(cyg64_lap_tag(16, 4), UINT64_C(0x1ffc000000000000));
    ck_assert_uint_eq(cyg64_lap_tag(32, 4), UINT64_C(0x9ff8000000000000));
    /* 4096 laps later it repeats: the one late store it cannot tell */
    ck_assert_uint_eq(cyg64_lap_tag(4096u << 4, 4), cyg64_lap_tag(0, 4));
    for (uint64_t seq = 0; seq < 4096u << 4; seq += 16) {
        uint64_t t = cyg64_lap_tag(seq, 4);

        ck_assert_uint_eq(t >> 63, cyg_lap(seq, 4));
        ck_assert_uint_eq(t & ~(CYG64_LAP | CYG64_TAG_MASK), 0);
        for (uint64_t k = 1; k < 4 && seq >= k * 16; k++) /* 1..3 laps late: refused */
            ck_assert_uint_ne(cyg64_lap_tag(seq - k * 16, 4), t);
    }
}
END_TEST

START_TEST(test_format_layout)
{
    ck_assert_uint_eq(sizeof(struct cyg_ctl), CYG_HDR_BYTES);
    ck_assert_uint_eq(offsetof(struct cyg_ctl, head), CYG_OFF_HEAD);
    ck_assert_uint_eq(offsetof(struct cyg_ctl, check), CYG_OFF_CHECK);
    ck_assert_uint_eq(memcmp(CYG_MAGIC, "CYGTRACE", 8), 0);
    /* the magic as two little-endian words, as the runtime stores it */
    ck_assert_uint_eq(CYG_MAGIC_LO, (uint32_t)'C' | 'Y' << 8 | 'G' << 16 | (uint32_t)'T' << 24);
    ck_assert_uint_eq(CYG_MAGIC_HI, (uint32_t)'R' | 'A' << 8 | 'C' << 16 | (uint32_t)'E' << 24);
}
END_TEST

/* The test vectors of docs/FORMAT.md, section "Test vectors". */
static const struct vector {
    unsigned word, cap_log2;
    uint64_t seq;
    int exit;
    uint64_t fn, ts;
    unsigned thread;
    uint64_t a, b;
} vectors[] = {
    {8, 4, 0, 0, 0x555555555149, 0x1234, 1, 0x0001555555555149, 0x8000000000001234},
    {8, 4, 1, 1, 0x555555555149, 0x1300, 1, 0x0001555555555149, 0xa000000000001300},
    {4, 4, 16, 1, 0x00000c61, 0x3fffffff, 0, 0x00000c61, 0x3fffffff},
    {4, 4, 0, 0, 0x00000c61, 0x10, 0, 0x00000c60, 0x80000010},
};

START_TEST(test_format_record_vectors)
{
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const struct vector *v = &vectors[i];
        uint64_t a, b;

        rg_encode(v->word, v->cap_log2, v->seq, v->exit, v->fn, v->ts, v->thread, &a, &b);
        ck_assert_msg(a == v->a && b == v->b, "vector %zu: a=%llx b=%llx", i, (unsigned long long)a,
                      (unsigned long long)b);
    }
}
END_TEST

/* Special records, vectors (d) and (f): the bytes a generator writes and what decodes. */
START_TEST(test_format_special_vectors)
{
    static const uint8_t thread_rec[16] = {0x92, 0x10, 0, 0, 0, 0,    0,    0,
                                           0,    0,    0, 0, 0, 0x01, 0x00, 0xc1};
    static const uint8_t context_rec[8] = {0x00, 0x10, 0x00, 0x20, 0x05, 0x00, 0x00, 0xc2};
    struct ringgen g;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE);
    rg_special(&g, CYG_SP_THREAD, 0, 4242, 1);
    ck_assert_mem_eq(g.buf + CYG_HDR_BYTES, thread_rec, 16);
    rg_free(&g);
    rg_init(&g, 4, 4, CYG_F_OVERWRITE);
    g.head = 3;
    rg_special(&g, CYG_SP_CONTEXT, 5, 0x20001000, 0);
    ck_assert_mem_eq(g.buf + CYG_HDR_BYTES + 3 * 8, context_rec, 8);
    rg_free(&g);
}
END_TEST

/* FORMAT.md 7.3: the VALUE data layout and the check bits of a wrapper's address. */
START_TEST(test_format_value_vectors)
{
    ck_assert_uint_eq(cyg_val_check(0x08000abc), 0x0b);
    ck_assert_uint_eq(cyg_val_check(0x08000abd), 0x0b); /* the Thumb bit plays no part */
    ck_assert_uint_eq(cyg_val_check(UINT64_C(0x555555556789)), 0x0a);
    ck_assert_uint_eq(CYG_SP_VALUE, 9);
    /* argument 2, a string's word 3 with 1 byte, the last, cut, for that function */
    ck_assert_uint_eq(2u | CYG_VK_STR << CYG_VAL_KIND_SHIFT | CYG_VAL_LAST |
                          3u << CYG_VAL_PART_SHIFT | 1u << CYG_VAL_LEN_SHIFT | CYG_VAL_TRUNC |
                          cyg_val_check(0x08000abc) << CYG_VAL_CHECK_SHIFT,
                      0x2d13d2);
    ck_assert_uint_le(CYG_VAL_CHECK_MASK << CYG_VAL_CHECK_SHIFT, CYG32_DATA_MASK);
}
END_TEST

Suite *format_suite(void)
{
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_format_crc32_vectors);
    tcase_add_test(tc, test_format_lap_rule);
    tcase_add_test(tc, test_format_lap_tag);
    tcase_add_test(tc, test_format_layout);
    tcase_add_test(tc, test_format_record_vectors);
    tcase_add_test(tc, test_format_special_vectors);
    tcase_add_test(tc, test_format_value_vectors);
    suite_add_tcase(s, tc);
    return s;
}
