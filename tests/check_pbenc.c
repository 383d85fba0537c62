/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_pbenc.c - the protobuf writer against known bytes: varints from a table, the protobuf
 * documentation's own examples, nested lengths that need one byte or more (back-patched, the
 * message moved up), and out of memory left sticky. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/pbenc.h"
#include "suites.h"

static const struct {
    uint64_t v;
    unsigned n;
    uint8_t b[10];
} varints[] = {
    {0, 1, {0x00}},
    {1, 1, {0x01}},
    {127, 1, {0x7f}},
    {128, 2, {0x80, 0x01}},
    {150, 2, {0x96, 0x01}},
    {300, 2, {0xac, 0x02}},
    {16383, 2, {0xff, 0x7f}},
    {16384, 3, {0x80, 0x80, 0x01}},
    {UINT64_C(0xffffffff), 5, {0xff, 0xff, 0xff, 0xff, 0x0f}},
    {UINT64_C(1) << 63, 10, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {UINT64_MAX, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
    {(uint64_t)-1 /* int32 -1 as protobuf writes it */, 10,
     {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
};

START_TEST(test_pbenc_varints)
{
    for (size_t i = 0; i < sizeof varints / sizeof *varints; i++) {
        uint8_t b[16];

        memset(b, 0xaa, sizeof b);
        ck_assert_uint_eq(pbenc_put_varint(b, varints[i].v), varints[i].n);
        ck_assert_uint_eq(pbenc_varint_size(varints[i].v), varints[i].n);
        ck_assert_mem_eq(b, varints[i].b, varints[i].n);
        ck_assert_uint_eq(b[varints[i].n], 0xaa);
    }
}
END_TEST

/* The buffer's bytes equal want's n. */
static void bytes_eq(const struct pbenc *b, const uint8_t *want, size_t n)
{
    ck_assert_int_eq(b->failed, 0);
    ck_assert_uint_eq(b->n, n);
    ck_assert_mem_eq(b->buf, want, n);
}

/* The encoding guide's examples: field 1 = 150, field 2 = "testing", field 3 = {field 1 =
 * 150}. */
START_TEST(test_pbenc_known_bytes)
{
    static const uint8_t a[] = {0x08, 0x96, 0x01};
    static const uint8_t s[] = {0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'};
    static const uint8_t c[] = {0x1a, 0x03, 0x08, 0x96, 0x01};
    static const uint8_t big[] = {0xa0, 0x06, 0x05}; /* field 100: a two-byte tag */
    struct pbenc b;

    pbenc_init(&b);
    pbenc_varint(&b, 1, 150);
    bytes_eq(&b, a, sizeof a);
    b.n = 0;
    pbenc_string(&b, 2, "testing");
    bytes_eq(&b, s, sizeof s);
    b.n = 0;
    pbenc_begin(&b, 3);
    pbenc_varint(&b, 1, 150);
    pbenc_end(&b);
    bytes_eq(&b, c, sizeof c);
    b.n = 0;
    pbenc_varint(&b, 100, 5);
    bytes_eq(&b, big, sizeof big);
    b.n = 0;
    pbenc_begin(&b, 4); /* an empty message */
    pbenc_end(&b);
    bytes_eq(&b, (const uint8_t[]){0x22, 0x00}, 2);
    pbenc_free(&b);
}
END_TEST

/* Messages of 127, 128, 200 and 20000 bytes, nested two deep: every length is back-patched
 * with as many bytes as it needs, and the contents stay as they were written. */
START_TEST(test_pbenc_nested_lengths)
{
    static const size_t sizes[] = {0, 1, 125, 126, 127, 128, 200, 16380, 20000};

    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k], inner, outer, at = 0;
        uint8_t *data = malloc(n + 1), tmp[10];
        struct pbenc b;

        for (size_t i = 0; i < n; i++)
            data[i] = (uint8_t)(i * 7 + 3);
        pbenc_init(&b);
        pbenc_begin(&b, 1);
        pbenc_varint(&b, 5, 1);
        pbenc_begin(&b, 2);
        pbenc_bytes(&b, 3, data, n);
        pbenc_end(&b);
        pbenc_end(&b);
        ck_assert_int_eq(b.failed, 0);
        ck_assert_uint_eq(b.depth, 0);
        /* 0a LEN(outer) 28 01 12 LEN(inner) 1a LEN(n) data */
        inner = 1 + pbenc_varint_size(n) + n;
        outer = 2 + 1 + pbenc_varint_size(inner) + inner;
        ck_assert_uint_eq(b.n, 1 + pbenc_varint_size(outer) + outer);
        ck_assert_uint_eq(b.buf[at++], 0x0a);
        ck_assert_mem_eq(b.buf + at, tmp, pbenc_put_varint(tmp, outer));
        at += pbenc_varint_size(outer);
        ck_assert_uint_eq(b.buf[at++], 0x28);
        ck_assert_uint_eq(b.buf[at++], 0x01);
        ck_assert_uint_eq(b.buf[at++], 0x12);
        ck_assert_mem_eq(b.buf + at, tmp, pbenc_put_varint(tmp, inner));
        at += pbenc_varint_size(inner);
        ck_assert_uint_eq(b.buf[at++], 0x1a);
        ck_assert_mem_eq(b.buf + at, tmp, pbenc_put_varint(tmp, n));
        at += pbenc_varint_size(n);
        if (n)
            ck_assert_mem_eq(b.buf + at, data, n);
        ck_assert_uint_eq(at + n, b.n);
        pbenc_free(&b);
        free(data);
    }
}
END_TEST

/* flush writes what was encoded and empties the buffer; not while a message is open, nor
 * after too deep a nesting. */
START_TEST(test_pbenc_flush)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    struct pbenc b;

    pbenc_init(&b);
    pbenc_varint(&b, 1, 150);
    ck_assert_int_eq(pbenc_flush(&b, f), 0);
    ck_assert_uint_eq(b.n, 0);
    pbenc_begin(&b, 1);
    ck_assert_int_eq(pbenc_flush(&b, f), -1); /* open */
    pbenc_end(&b);
    ck_assert_int_eq(pbenc_flush(&b, f), 0);
    fclose(f);
    ck_assert_uint_eq(len, 5);
    ck_assert_mem_eq(out, "\x08\x96\x01\x0a\x00", 5);
    free(out);
    for (unsigned i = 0; i <= PBENC_DEPTH; i++)
        pbenc_begin(&b, 1);
    ck_assert_int_eq(b.failed, 1);
    pbenc_end(&b);
    ck_assert_int_eq(pbenc_flush(&b, stdout), -1);
    pbenc_free(&b);
}
END_TEST

Suite *pbenc_suite(void)
{
    Suite *s = suite_create("pbenc");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_pbenc_varints);
    tcase_add_test(tc, test_pbenc_known_bytes);
    tcase_add_test(tc, test_pbenc_nested_lengths);
    tcase_add_test(tc, test_pbenc_flush);
    suite_add_tcase(s, tc);
    return s;
}
