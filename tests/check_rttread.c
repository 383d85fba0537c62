/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_rttread.c - the host's RTT reader (host/rtt.c): the layout's offsets as FORMAT.md 13
 * documents them, the control block's checks against a table of good and bad ones, the finder
 * (by symbol, by a scan whose ID straddles two chunks, the channel by its name, channel 0 for
 * want of it) and the reads that wrap around, against memory held here; a writer and the
 * reader taking turns for many rounds (read + dropped == written, in order); and the poller
 * against tests/fake_gdb's RTT target: the bytes in order, the end when the target exits,
 * stops by itself, corrupts its block, or the server hangs up. */
#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cyg_rtt.h"
#include "fakegdb.h"
#include "source/rsp.h"
#include "source/rtt.h"
#include "suites.h"
#include "testdir.h"
#include "util/le.h"

/* --- memory held here --------------------------------------------------------------------------
 */

#define MEM_ADDR 0x20000000u
#define MEM_BYTES 16384u

struct mem {
    uint8_t b[MEM_BYTES];
    uint64_t bad_lo, bad_hi; /* reads in [lo, hi) answer RTT_MEM_BAD */
    int fail;                /* every access fails (a dead server) */
    unsigned reads, writes;
};

/* The reasons a GDB server would give. */
static int mem_fail(const struct mem *m, int rc, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", m->fail ? "the server closed the connection" : "E01");
    return rc;
}

static int mem_read(void *arg, uint64_t addr, void *buf, size_t len, char *err, size_t errlen)
{
    struct mem *m = arg;

    m->reads++;
    if (m->fail)
        return mem_fail(m, RTT_MEM_FAIL, err, errlen);
    if (addr < MEM_ADDR || addr + len > MEM_ADDR + MEM_BYTES ||
        (addr < m->bad_hi && addr + len > m->bad_lo))
        return mem_fail(m, RTT_MEM_BAD, err, errlen);
    memcpy(buf, m->b + (addr - MEM_ADDR), len);
    return 0;
}

static int mem_write(void *arg, uint64_t addr, const void *buf, size_t len, char *err,
                     size_t errlen)
{
    struct mem *m = arg;

    m->writes++;
    if (m->fail)
        return mem_fail(m, RTT_MEM_FAIL, err, errlen);
    if (addr < MEM_ADDR || addr + len > MEM_ADDR + MEM_BYTES)
        return mem_fail(m, RTT_MEM_BAD, err, errlen);
    memcpy(m->b + (addr - MEM_ADDR), buf, len);
    return 0;
}

static struct mem *mem_new(struct rtt_mem *rm)
{
    struct mem *m = calloc(1, sizeof *m);

    ck_assert_ptr_nonnull(m);
    *rm = (struct rtt_mem){mem_read, mem_write, m};
    return m;
}

static uint8_t *at(struct mem *m, uint64_t addr)
{
    return m->b + (addr - MEM_ADDR);
}

/* Lays out a control block at addr with nup up buffers (names[i], NULL: none; sizes[i] bytes
 * each, from bufs) and one down buffer of no bytes; 4-byte pointers. */
static void block_make(struct mem *m, uint64_t addr, unsigned nup, const char *const *names,
                       const uint32_t *sizes, uint64_t bufs)
{
    uint8_t *b = at(m, addr);
    uint64_t name_at = addr + 1024;

    memset(b, 0, CYG_RTT_OFF_BUFFERS + (nup + 1) * CYG_RTT_DESC_BYTES(4));
    memcpy(b, CYG_RTT_ID, sizeof CYG_RTT_ID);
    le_put(b + CYG_RTT_OFF_MAX_UP, nup, 4);
    le_put(b + CYG_RTT_OFF_MAX_DOWN, 1, 4);
    for (unsigned i = 0; i < nup; i++) {
        uint8_t *d = b + CYG_RTT_OFF_BUFFERS + i * CYG_RTT_DESC_BYTES(4);

        if (names[i]) {
            strcpy((char *)at(m, name_at), names[i]);
            le_put(d + CYG_RTT_DESC_NAME(4), name_at, 4);
            name_at += strlen(names[i]) + 1;
        }
        le_put(d + CYG_RTT_DESC_BUFFER(4), sizes[i] ? bufs : 0, 4);
        le_put(d + CYG_RTT_DESC_SIZE(4), sizes[i], 4);
        le_put(d + CYG_RTT_DESC_FLAGS(4), CYG_RTT_MODE_TRIM, 4);
        bufs += sizes[i];
    }
}

static uint8_t *desc_of(struct mem *m, uint64_t block, unsigned i)
{
    return at(m, block) + CYG_RTT_OFF_BUFFERS + i * CYG_RTT_DESC_BYTES(4);
}

/* --- the layout --------------------------------------------------------------------------------
 */

/* FORMAT.md 13: the ID at 0 (16 bytes), max_up at 16, max_down at 20, the descriptors at 24:
 * name, buffer (W each), size, wr_off, rd_off, flags (4 each). */
START_TEST(test_rtt_layout_offsets)
{
    static const struct {
        unsigned w, name, buffer, size, wr, rd, flags, bytes;
    } v[] = {{4, 0, 4, 8, 12, 16, 20, 24}, {8, 0, 8, 16, 20, 24, 28, 32}};

    ck_assert_uint_eq(CYG_RTT_ID_BYTES, 16);
    ck_assert_uint_eq(sizeof CYG_RTT_ID, 11); /* the string and its NUL fit with room */
    ck_assert_uint_eq(CYG_RTT_OFF_MAX_UP, 16);
    ck_assert_uint_eq(CYG_RTT_OFF_MAX_DOWN, 20);
    ck_assert_uint_eq(CYG_RTT_OFF_BUFFERS, 24);
    for (unsigned i = 0; i < 2; i++) {
        ck_assert_uint_eq(CYG_RTT_DESC_NAME(v[i].w), v[i].name);
        ck_assert_uint_eq(CYG_RTT_DESC_BUFFER(v[i].w), v[i].buffer);
        ck_assert_uint_eq(CYG_RTT_DESC_SIZE(v[i].w), v[i].size);
        ck_assert_uint_eq(CYG_RTT_DESC_WR_OFF(v[i].w), v[i].wr);
        ck_assert_uint_eq(CYG_RTT_DESC_RD_OFF(v[i].w), v[i].rd);
        ck_assert_uint_eq(CYG_RTT_DESC_FLAGS(v[i].w), v[i].flags);
        ck_assert_uint_eq(CYG_RTT_DESC_BYTES(v[i].w), v[i].bytes);
    }
    ck_assert_uint_eq(CYG_RTT_MODE_SKIP, 0);
    ck_assert_uint_eq(CYG_RTT_MODE_TRIM, 1);
    ck_assert_uint_eq(CYG_RTT_MODE_BLOCK, 2);
}
END_TEST

START_TEST(test_rtt_check_header)
{
    static const struct {
        const char *id;
        int32_t up, down;
        int rc;
    } v[] = {
        {"SEGGER RTT", 1, 1, 0},         {"SEGGER RTT", 3, 3, 0},
        {"SEGGER RTT", 32, 0, 0},        {"SEGGER RTT", 0, 1, RTT_EBAD},
        {"SEGGER RTT", 33, 1, RTT_EBAD}, {"SEGGER RTT", -1, 1, RTT_EBAD},
        {"SEGGER RTT", 1, -5, RTT_EBAD}, {"SEGGER RTT", 1, 1000, RTT_EBAD},
        {"SEGGER RTS", 1, 1, RTT_ENONE}, {"SEGGER RTTX", 1, 1, RTT_ENONE}, /* no NUL after the ID */
        {"", 1, 1, RTT_ENONE},
    };
    uint8_t h[CYG_RTT_OFF_BUFFERS];
    unsigned up, down;
    char why[256];

    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
        memset(h, 0, sizeof h);
        memcpy(h, v[i].id, strlen(v[i].id));
        le_put(h + 16, (uint32_t)v[i].up, 4);
        le_put(h + 20, (uint32_t)v[i].down, 4);
        ck_assert_int_eq(rtt_check_header(h, &up, &down, why, sizeof why), v[i].rc);
        if (v[i].rc == 0) {
            ck_assert_uint_eq(up, (unsigned)v[i].up);
            ck_assert_uint_eq(down, (unsigned)v[i].down);
        }
    }
}
END_TEST

START_TEST(test_rtt_check_desc)
{
    static const struct {
        uint64_t buffer;
        uint32_t size, wr, rd;
        unsigned w;
        int rc;
    } v[] = {
        {0x20000400, 1024, 0, 0, 4, 1},
        {0x20000400, 1024, 1023, 5, 4, 1},
        {0, 1024, 0, 0, 4, 0},
        {0x20000400, 0, 0, 0, 4, 0},
        {0x20000400, 1024, 1024, 0, 4, RTT_EBAD},
        {0x20000400, 1024, 0, 1024, 4, RTT_EBAD},
        {0x20000400, 1024, 0xffffffff, 0, 4, RTT_EBAD},
        {0x20000400, 1, 0, 0, 4, RTT_EBAD},
        {0x20000400, RTT_MAX_SIZE + 1, 0, 0, 4, RTT_EBAD},
        {0xfffffc00, 1024, 0, 0, 4, 1},
        {0xfffffc01, 1024, 0, 0, 4, RTT_EBAD},
        {0x100000000ull, 64, 3, 2, 8, 1},
    };
    uint8_t d[CYG_RTT_DESC_BYTES(8)];
    struct rtt_chan ch;
    uint32_t wr, rd;
    char why[256];

    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
        unsigned w = v[i].w;
        int rc;

        memset(d, 0, sizeof d);
        memset(&ch, 0, sizeof ch);
        le_put(d + CYG_RTT_DESC_BUFFER(w), v[i].buffer, w);
        le_put(d + CYG_RTT_DESC_SIZE(w), v[i].size, 4);
        le_put(d + CYG_RTT_DESC_WR_OFF(w), v[i].wr, 4);
        le_put(d + CYG_RTT_DESC_RD_OFF(w), v[i].rd, 4);
        rc = rtt_check_desc(d, w, &ch, &wr, &rd, why, sizeof why);
        ck_assert_msg(rc == v[i].rc, "vector %u: %d, not %d", i, rc, v[i].rc);
        ck_assert_uint_eq(wr, v[i].wr);
        ck_assert_uint_eq(rd, v[i].rd);
        if (rc == 1) {
            ck_assert_uint_eq(ch.buffer, v[i].buffer);
            ck_assert_uint_eq(ch.size, v[i].size);
        }
    }
}
END_TEST

/* --- finding -----------------------------------------------------------------------------------
 */

START_TEST(test_rtt_find_symbol_named)
{
    static const char *const names[] = {"Terminal", NULL, "cygtrace"};
    static const uint32_t sizes[] = {64, 0, 512};
    struct rtt_mem rm;
    struct mem *m = mem_new(&rm);
    struct rtt_chan ch;
    uint64_t cand[2] = {MEM_ADDR + 0x100, MEM_ADDR + 0x800};
    char err[512];

    block_make(m, cand[1], 3, names, sizes, MEM_ADDR + 0x2000);
    /* the first symbol's block is not set up (no ID): the second one's is taken */
    ck_assert_int_eq(rtt_find(&rm, 4, cand, 2, NULL, 0, &ch, err, sizeof err), 0);
    ck_assert_uint_eq(ch.block, cand[1]);
    ck_assert_uint_eq(ch.index, 2);
    ck_assert_int_eq(ch.named, 1);
    ck_assert_int_eq(ch.scanned, 0);
    ck_assert_str_eq(ch.name, "cygtrace");
    ck_assert_uint_eq(ch.size, 512);
    ck_assert_uint_eq(ch.buffer, MEM_ADDR + 0x2000 + 64);
    ck_assert_uint_eq(ch.desc, cand[1] + 24 + 2 * 24);
    ck_assert_uint_eq(ch.max_up, 3);
    ck_assert_uint_eq(ch.max_down, 1);
    free(m);
}
END_TEST

START_TEST(test_rtt_find_channel0)
{
    static const char *const names[] = {"Terminal", "Other"};
    static const uint32_t sizes[] = {256, 64};
    struct rtt_mem rm;
    struct mem *m = mem_new(&rm);
    struct rtt_chan ch;
    uint64_t cand = MEM_ADDR + 0x100;
    char err[512];

    block_make(m, cand, 2, names, sizes, MEM_ADDR + 0x2000);
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), 0);
    ck_assert_int_eq(ch.named, 0);
    ck_assert_uint_eq(ch.index, 0);
    ck_assert_str_eq(ch.name, "Terminal");
    /* channel 0 unused and no "cygtrace": nothing to read */
    le_put(desc_of(m, cand, 0) + CYG_RTT_DESC_SIZE(4), 0, 4);
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), RTT_EBAD);
    ck_assert_ptr_nonnull(strstr(err, "no up buffer \"cygtrace\""));
    free(m);
}
END_TEST

/* Bad blocks where the symbol says: one clear reason, no guess. */
START_TEST(test_rtt_find_bad)
{
    static const char *const names[] = {"cygtrace"};
    static const uint32_t sizes[] = {1024};
    struct rtt_mem rm;
    struct mem *m = mem_new(&rm);
    struct rtt_chan ch;
    uint64_t cand = MEM_ADDR + 0x100;
    char err[512];

    block_make(m, cand, 1, names, sizes, MEM_ADDR + 0x2000);
    le_put(desc_of(m, cand, 0) + CYG_RTT_DESC_WR_OFF(4), 1024, 4);
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), RTT_EBAD);
    ck_assert_msg(strstr(err, "wr_off 1024") != NULL, "%s", err);
    le_put(desc_of(m, cand, 0) + CYG_RTT_DESC_WR_OFF(4), 0, 4);
    le_put(at(m, cand) + CYG_RTT_OFF_MAX_UP, 1000, 4);
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), RTT_EBAD);
    ck_assert_msg(strstr(err, "1000 up") != NULL, "%s", err);
    le_put(at(m, cand) + CYG_RTT_OFF_MAX_UP, 1, 4);
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), 0);
    /* the named channel's descriptor is broken: not channel 0 instead */
    le_put(desc_of(m, cand, 0) + CYG_RTT_DESC_SIZE(4), 1, 4);
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), RTT_EBAD);
    ck_assert_msg(strstr(err, "\"cygtrace\"") != NULL, "%s", err);
    /* a dead server */
    m->fail = 1;
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), RTT_EMEM);
    ck_assert_str_eq(err, "the server closed the connection");
    free(m);
}
END_TEST

/* The scan: an ID across the boundary of two chunks of the scan (4096 bytes), after a range
 * the target cannot read and a stray "SEGGER RTT" that is no block. */
START_TEST(test_rtt_find_scan)
{
    static const char *const names[] = {"cygtrace"};
    static const uint32_t sizes[] = {256};
    struct rtt_range ram[2] = {{MEM_ADDR + 0x0, 0x100}, {MEM_ADDR + 0x101, 0x3000}};
    struct rtt_mem rm;
    struct mem *m = mem_new(&rm);
    struct rtt_chan ch;
    uint64_t blk = MEM_ADDR + 0x104 + 4096 - 8; /* 4-aligned, straddles the first chunk's end */
    char err[512];

    m->bad_lo = MEM_ADDR;
    m->bad_hi = MEM_ADDR + 0x100;
    memcpy(at(m, MEM_ADDR + 0x200), "SEGGER RTT\0\0\0\0\0\0\xff\xff\xff\xff", 20); /* no block */
    block_make(m, blk, 1, names, sizes, MEM_ADDR + 0x3000);
    ck_assert_int_eq(rtt_find(&rm, 4, NULL, 0, ram, 2, &ch, err, sizeof err), 0);
    ck_assert_uint_eq(ch.block, blk);
    ck_assert_int_eq(ch.scanned, 1);
    ck_assert_int_eq(ch.named, 1);
    /* not at a 4-byte boundary: not a block */
    memset(at(m, blk), 0, 16);
    memcpy(at(m, blk + 2), CYG_RTT_ID, sizeof CYG_RTT_ID);
    ck_assert_int_eq(rtt_find(&rm, 4, NULL, 0, ram, 2, &ch, err, sizeof err), RTT_EBAD);
    memset(at(m, MEM_ADDR + 0x200), 0, 20);
    ck_assert_int_eq(rtt_find(&rm, 4, NULL, 0, ram, 2, &ch, err, sizeof err), RTT_ENONE);
    ck_assert_msg(strstr(err, "12321 bytes of RAM scanned") != NULL, "%s", err);
    free(m);
}
END_TEST

/* --- reading -----------------------------------------------------------------------------------
 */

static void set_offs(struct mem *m, const struct rtt_chan *ch, uint32_t wr, uint32_t rd)
{
    le_put(at(m, ch->desc) + CYG_RTT_DESC_WR_OFF(4), wr, 4);
    le_put(at(m, ch->desc) + CYG_RTT_DESC_RD_OFF(4), rd, 4);
}

static uint32_t rd_of(struct mem *m, const struct rtt_chan *ch)
{
    return (uint32_t)le_get(at(m, ch->desc) + CYG_RTT_DESC_RD_OFF(4), 4);
}

START_TEST(test_rtt_read_wrap)
{
    static const char *const names[] = {"cygtrace"};
    static const uint32_t sizes[] = {16};
    struct rtt_mem rm;
    struct mem *m = mem_new(&rm);
    struct rtt_chan ch;
    struct rtt_read_info info;
    uint64_t cand = MEM_ADDR;
    uint8_t buf[64];
    char err[512];

    block_make(m, cand, 1, names, sizes, MEM_ADDR + 0x400);
    for (unsigned i = 0; i < 16; i++)
        at(m, MEM_ADDR + 0x400)[i] = (uint8_t)(0xa0 + i);
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), 0);
    /* empty: nothing read, nothing written */
    set_offs(m, &ch, 7, 7);
    m->writes = 0;
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, sizeof buf, &info, err, sizeof err), 0);
    ck_assert_uint_eq(m->writes, 0);
    /* 12..15 then 0..4: two pieces, rd_off at 5 */
    set_offs(m, &ch, 5, 12);
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, sizeof buf, &info, err, sizeof err), 9);
    ck_assert_uint_eq(info.avail, 9);
    for (unsigned i = 0; i < 9; i++)
        ck_assert_uint_eq(buf[i], 0xa0 + (12 + i) % 16);
    ck_assert_uint_eq(rd_of(m, &ch), 5);
    /* the budget: 3 of them, rd_off at 15 */
    set_offs(m, &ch, 5, 12);
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, 3, &info, err, sizeof err), 3);
    ck_assert_uint_eq(rd_of(m, &ch), 15);
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, 3, &info, err, sizeof err), 3);
    ck_assert_uint_eq(rd_of(m, &ch), 2);
    ck_assert_uint_eq(buf[0], 0xaf);
    ck_assert_uint_eq(buf[1], 0xa0);
    /* full: size - 1 */
    set_offs(m, &ch, 3, 4);
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, sizeof buf, &info, err, sizeof err), 15);
    ck_assert_int_eq(info.full, 1);
    ck_assert_uint_eq(rd_of(m, &ch), 3);
    /* corrupt: wr_off beyond the size; the buffer is not read past its end */
    set_offs(m, &ch, 16, 0);
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, sizeof buf, &info, err, sizeof err), RTT_EBAD);
    ck_assert_msg(strstr(err, "wr_off 16") != NULL, "%s", err);
    /* not set up (a reset wiped the ID): nothing, and no error */
    set_offs(m, &ch, 3, 0);
    at(m, cand)[0] = 0;
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, sizeof buf, &info, err, sizeof err), 0);
    ck_assert_int_eq(info.not_set_up, 1);
    at(m, cand)[0] = 'S';
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, sizeof buf, &info, err, sizeof err), 3);
    m->fail = 1;
    ck_assert_int_eq(rtt_read(&rm, &ch, buf, sizeof buf, &info, err, sizeof err), RTT_EMEM);
    free(m);
}
END_TEST

/* A writer (what fits, as the target's sink) and the reader taking turns with random amounts:
 * every byte read is the next one written that was not dropped. */
START_TEST(test_rtt_read_rounds)
{
    static const char *const names[] = {"x", "cygtrace"};
    static const uint32_t sizes[] = {8, 61};
    struct rtt_mem rm;
    struct mem *m = mem_new(&rm);
    struct rtt_chan ch;
    struct rtt_read_info info;
    uint64_t cand = MEM_ADDR, written = 0, dropped = 0, got = 0, queued = 0;
    uint8_t buf[64], *data, *expect = malloc(1 << 21);
    unsigned seed = 12345;
    char err[512];

    block_make(m, cand, 2, names, sizes, MEM_ADDR + 0x400);
    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), 0);
    data = at(m, ch.buffer);
    for (unsigned round = 0; round < 20000; round++) {
        uint32_t wr = (uint32_t)le_get(at(m, ch.desc) + CYG_RTT_DESC_WR_OFF(4), 4);
        uint32_t rd = rd_of(m, &ch), room = (rd > wr ? rd - wr : ch.size - wr + rd) - 1;
        unsigned n = (seed = seed * 1103515245 + 12345) >> 16 & 63;
        long k;

        for (unsigned i = 0; i < n; i++, written++) {
            if (!room) {
                dropped += n - i; /* the rest of this write: a lost record */
                written += n - i;
                break;
            }
            data[wr] = (uint8_t)written;
            expect[queued++ % (1 << 21)] = (uint8_t)written;
            wr = (wr + 1) % ch.size;
            room--;
        }
        le_put(at(m, ch.desc) + CYG_RTT_DESC_WR_OFF(4), wr, 4);
        k = rtt_read(&rm, &ch, buf, (seed >> 8 & 31) + 1, &info, err, sizeof err);
        ck_assert_int_ge(k, 0);
        for (long i = 0; i < k; i++, got++)
            ck_assert_uint_eq(buf[i], expect[got % (1 << 21)]);
    }
    /* what is still in the channel */
    for (long k; (k = rtt_read(&rm, &ch, buf, sizeof buf, &info, err, sizeof err)) > 0;)
        for (long i = 0; i < k; i++, got++)
            ck_assert_uint_eq(buf[i], expect[got % (1 << 21)]);
    ck_assert_uint_eq(got, queued);
    ck_assert_uint_eq(got + dropped, written);
    ck_assert_uint_eq(rd_of(m, &ch), le_get(at(m, ch.desc) + CYG_RTT_DESC_WR_OFF(4), 4));
    ck_assert_uint_gt(dropped, 0);
    ck_assert_uint_gt(got, 0);
    free(expect);
    free(m);
}
END_TEST

START_TEST(test_rtt_ram_ranges)
{
    struct rtt_range r[RTT_MAX_RANGES];
    char names[256], err[256];
    int n;

    /* the runner itself: .data and .bss, writable and allocated */
    n = rtt_ram_ranges("/proc/self/exe", r, RTT_MAX_RANGES, names, sizeof names, err, sizeof err);
    ck_assert_msg(n >= 1, "%s", err);
    ck_assert_msg(strstr(names, ".data") && strstr(names, ".bss"), "%s", names);
    ck_assert_ptr_null(strstr(names, ".text"));
    ck_assert_ptr_null(strstr(names, ".init_array"));
    ck_assert_int_eq(
        rtt_ram_ranges("/nonexistent", r, RTT_MAX_RANGES, names, sizeof names, err, sizeof err),
        -1);
    ck_assert_int_eq(rtt_ram_ranges("/proc/self/status", r, RTT_MAX_RANGES, names, sizeof names,
                                    err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "not a little-endian ELF file");
}
END_TEST

/* --- the poller against tests/fake_gdb ---------------------------------------------------------
 */

#define FAKE_RTT_BYTES 4096u /* the image: the block, its name and channel */
#define FAKE_CHAN 1024u      /* as the target's default */

static void fake_setup(void)
{
    testdir_make("rttread");
}

static void fake_teardown(void)
{
    testdir_remove();
}

/* Starts fake_gdb MODE serving a control block at FAKE_ADDR + 0x100, channel "cygtrace" of
 * FAKE_CHAN bytes, and connects. */
static void fake_rtt_start(struct fake *f, const char *mode)
{
    static const char *const names[] = {"cygtrace"};
    static const uint32_t sizes[] = {FAKE_CHAN};
    struct rtt_mem rm;
    struct mem *m = mem_new(&rm);

    block_make(m, FAKE_ADDR + 0x100, 1, names, sizes, FAKE_ADDR + 0x800);
    fake_start_n(f, mode, m->b, FAKE_RTT_BYTES);
    free(m);
}

/* Polls for ms milliseconds (stops then, ms > 0), reads all that comes until the end, checks
 * that the bytes are a counter with gaps only where the target dropped; returns the end's
 * clean flag, the reason in why, the bytes in *got. */
static int poll_run(struct fake *f, unsigned hz, int ms, char *why, size_t whylen, uint64_t *got,
                    struct rtt_stats *st)
{
    struct rtt_mem rm = rtt_mem_rsp(f->c);
    struct rtt_chan ch;
    struct rtt_poller *p;
    uint64_t cand = FAKE_ADDR + 0x100;
    uint8_t buf[4096], expect = 0;
    char err[512];
    int clean, stopped = ms <= 0;
    struct timespec t0, t;

    ck_assert_int_eq(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), 0);
    p = rtt_poller_start(f->c, &ch, hz, err, sizeof err);
    ck_assert_msg(p != NULL, "%s", err);
    *got = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct pollfd pf = {rtt_poller_fd(p), POLLIN, 0};
        ssize_t n;

        clock_gettime(CLOCK_MONOTONIC, &t);
        if (!stopped && (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= ms) {
            rtt_poller_stop(p);
            stopped = 1;
        }
        ck_assert_int_lt(t.tv_sec - t0.tv_sec, 10);
        if (poll(&pf, 1, 20) <= 0)
            continue;
        n = read(pf.fd, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0)
            continue;
        /* the fake drops none while the channel has room (100 bytes a poll, 1023 of room) */
        for (ssize_t i = 0; i < n; i++, expect++)
            ck_assert_msg(buf[i] == expect, "byte %" PRIu64 ": %u, not %u", *got + (uint64_t)i,
                          buf[i], expect);
        *got += (uint64_t)n;
    }
    clean = rtt_poller_end(p, why, whylen);
    rtt_poller_stats(p, st);
    rtt_poller_free(p);
    return clean;
}

START_TEST(test_rtt_poller_bytes)
{
    struct fake f;
    struct rtt_stats st;
    uint64_t got;
    char why[512];

    fake_rtt_start(&f, "ok,rtt=100");
    ck_assert_int_eq(poll_run(&f, 200, 300, why, sizeof why, &got, &st), 1);
    ck_assert_str_eq(why, "");
    ck_assert_uint_gt(st.polls, 10);
    ck_assert_uint_eq(st.bytes, got);
    ck_assert_uint_le(st.max_bytes, 100);
    ck_assert_uint_eq(st.full, 0);
    ck_assert(st.halt_median_ms > 0 && st.halt_median_ms <= st.halt_max_ms + 0.01);
    ck_assert_uint_ge(got, 100 * (st.polls - 1));
    ck_assert_int_eq(fake_end(&f), 0); /* the detach came, to a halted target */
}
END_TEST

START_TEST(test_rtt_poller_ends)
{
    static const struct {
        const char *mode;
        int clean;
        const char *why;
    } v[] = {
        {"ok,rtt=100,rttexit=5", 1, "the target exited"},
        {"ok,rtt=100,rttstop=4", 1, "the target stopped (signal 5)"},
        {"ok,rtt=100,rttbad=4", 0, "wr_off 1031"},
        {"close,rtt=100", 0, "closed the connection"},
        {"e01,rtt=100", 0, "E01"},
    };
    struct fake f;
    struct rtt_stats st;
    uint64_t got;
    char why[512];

    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
        struct rtt_mem rm;
        struct rtt_chan ch;
        uint64_t cand = FAKE_ADDR + 0x100;
        char err[512];

        fake_rtt_start(&f, v[i].mode);
        rm = rtt_mem_rsp(f.c);
        if (i == 4) { /* the server fails the finder already */
            ck_assert_int_ne(rtt_find(&rm, 4, &cand, 1, NULL, 0, &ch, err, sizeof err), 0);
            fake_end(&f);
            continue;
        }
        ck_assert_int_eq(poll_run(&f, 200, 0, why, sizeof why, &got, &st), v[i].clean);
        ck_assert_msg(strstr(why, v[i].why) != NULL, "%s: %s", v[i].mode, why);
        fake_end(&f);
    }
}
END_TEST

Suite *rttread_suite(void)
{
    Suite *s = suite_create("rttread");
    TCase *tc = tcase_create("core"), *tf = tcase_create("fake_gdb");

    tcase_add_test(tc, test_rtt_layout_offsets);
    tcase_add_test(tc, test_rtt_check_header);
    tcase_add_test(tc, test_rtt_check_desc);
    tcase_add_test(tc, test_rtt_find_symbol_named);
    tcase_add_test(tc, test_rtt_find_channel0);
    tcase_add_test(tc, test_rtt_find_bad);
    tcase_add_test(tc, test_rtt_find_scan);
    tcase_add_test(tc, test_rtt_read_wrap);
    tcase_add_test(tc, test_rtt_read_rounds);
    tcase_add_test(tc, test_rtt_ram_ranges);
    suite_add_tcase(s, tc);
    tcase_add_checked_fixture(tf, fake_setup, fake_teardown);
    tcase_set_timeout(tf, 30);
    tcase_add_test(tf, test_rtt_poller_bytes);
    tcase_add_test(tf, test_rtt_poller_ends);
    suite_add_tcase(s, tf);
    return s;
}
