/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_crc32.c - the two CRC-32s of common/crc32.c: the table-free one the ring's seal uses
 * (crc32_bits) against the known vectors, and against the nibble-table one that the host and
 * the drain use, over thousands of random inputs. */
#include <check.h>
#include <stdlib.h>

#include "crc32.h"
#include "cyg_format.h"
#include "suites.h"

/* Known CRC-32s (zlib's), and where the runtime's seal starts from (cygtrace.c, CYG_MAGIC_CRC). */
static const struct {
    const char *in;
    size_t len;
    uint32_t crc;
} crc32_vectors[] = {
    {"", 0, 0},
    {"123456789", 9, 0xcbf43926u},
    {"The quick brown fox jumps over the lazy dog", 43, 0x414fa339u},
    {CYG_MAGIC, 8, 0x660d6cdbu},
};

START_TEST(test_crc32_bits_vectors)
{
    for (size_t i = 0; i < sizeof crc32_vectors / sizeof crc32_vectors[0]; i++)
        ck_assert_uint_eq(crc32_bits(0, crc32_vectors[i].in, crc32_vectors[i].len),
                          crc32_vectors[i].crc);
    /* continuing a CRC equals one pass */
    ck_assert_uint_eq(crc32_bits(crc32_bits(0, "12345", 5), "6789", 4), 0xcbf43926u);
}
END_TEST

START_TEST(test_crc32_bits_same_as_table)
{
    unsigned char buf[160];

    srand(18);
    for (int i = 0; i < 5000; i++) {
        size_t len = (size_t)rand() % sizeof buf;
        uint32_t start = (uint32_t)rand() << 16 ^ (uint32_t)rand();

        for (size_t k = 0; k < len; k++)
            buf[k] = (unsigned char)rand();
        ck_assert_uint_eq(crc32_bits(start, buf, len), crc32_update(start, buf, len));
    }
}
END_TEST

Suite *crc32_suite(void)
{
    Suite *s = suite_create("crc32");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_crc32_bits_vectors);
    tcase_add_test(tc, test_crc32_bits_same_as_table);
    suite_add_tcase(s, tc);
    return s;
}
