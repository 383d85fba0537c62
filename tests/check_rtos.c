/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_rtos.c - names from a FreeRTOS or Zephyr target's memory (host/rtos.c), against a fake target:
 * this program's own symbols stand for the glue's table and the queue registry, and a small
 * map of regions for the memory a GDB server would serve. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "cyg_format.h"
#include "symbols/names.h"
#include "source/rtos.h"
#include "suites.h"
#include "symbols/sym.h"

/* The symbols rtos.c looks for (their contents are served by the fake, not read from here). */
__attribute__((used)) uint8_t cygtrace_freertos[16];
__attribute__((used)) uint32_t xQueueRegistry[2 * 4];
__attribute__((used)) uint8_t cygtrace_zephyr[12];

#define TCB_A 0x20001000u
#define TCB_B 0x20002000u
#define NAME_OFF 52u
#define NUM_OFF 68u

struct region {
    uint64_t addr;
    uint8_t bytes[64];
    size_t len;
};

struct fake {
    struct region r[12];
    unsigned n;
    unsigned reads;
};

static void put(struct fake *f, uint64_t addr, const void *p, size_t len)
{
    ck_assert_uint_lt(f->n, 12);
    f->r[f->n].addr = addr;
    memcpy(f->r[f->n].bytes, p, len);
    f->r[f->n++].len = len;
}

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
    struct fake *f = arg;

    f->reads++;
    for (unsigned i = 0; i < f->n; i++)
        if (addr >= f->r[i].addr && addr + len <= f->r[i].addr + f->r[i].len) {
            memcpy(buf, f->r[i].bytes + (addr - f->r[i].addr), len);
            return 0;
        }
    return -1;
}

static void le16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
    le16(p, v & 0xffff);
    le16(p + 2, v >> 16);
}

static struct sym_table *self(uint64_t *info, uint64_t *reg)
{
    char err[256];
    struct sym_table *t = sym_open("/proc/self/exe", err, sizeof err);

    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_int_eq(sym_find(t, "cygtrace_freertos", info, NULL), 0);
    ck_assert_int_eq(sym_find(t, "xQueueRegistry", reg, NULL), 0);
    return t;
}

/* The glue's table: version 1, a 16-byte name at NAME_OFF, a 4-byte number at NUM_OFF. */
static void info(struct fake *f, uint64_t at, uint32_t magic, unsigned version)
{
    uint8_t b[16] = {0};

    le32(b, magic);
    le16(b + 4, version);
    le16(b + 6, NAME_OFF);
    le16(b + 8, 16);
    le16(b + 10, NUM_OFF);
    le16(b + 12, 4);
    put(f, at, b, sizeof b);
}

/* A TCB's name and number, as the kernel keeps them. */
static void tcb(struct fake *f, uint32_t at, const char *name, uint32_t number)
{
    uint8_t b[NUM_OFF - NAME_OFF + 4] = {0};

    strncpy((char *)b, name, 16);
    le32(b + NUM_OFF - NAME_OFF, number);
    put(f, at + NAME_OFF, b, sizeof b);
}

START_TEST(test_tcb_names)
{
    uint64_t ia, ra;
    struct sym_table *t = self(&ia, &ra);
    struct fake f = {0};
    struct names *n = names_new();
    uint32_t ids[] = {1, 2, 3};
    uint64_t handles[] = {TCB_A, TCB_B, 0};
    char why[256] = "";

    info(&f, ia, RTOS_FREERTOS_MAGIC, 1);
    tcb(&f, TCB_A, "producer", 1);
    tcb(&f, TCB_B, "consumer", 2);
    ck_assert_int_eq(rtos_freertos_names(t, fake_read, &f, ids, handles, 3, n, why, sizeof why),
                     2);
    ck_assert_str_eq(names_ctx(n, 1), "producer");
    ck_assert_str_eq(names_ctx(n, 2), "consumer");
    ck_assert_ptr_null(names_ctx(n, 3));
    names_free(n);
    sym_close(t);
}
END_TEST

/* A name the ring's records gave stays; a TCB whose number is not the context's (freed and
 * reused by another task) names nobody; a name that is not printable is no name. */
START_TEST(test_tcb_checked)
{
    uint64_t ia, ra;
    struct sym_table *t = self(&ia, &ra);
    struct fake f = {0};
    struct names *n = names_new();
    uint32_t ids[] = {1, 2, 4};
    uint64_t handles[] = {TCB_A, TCB_B, 0x20003000u};
    char why[256] = "";

    info(&f, ia, RTOS_FREERTOS_MAGIC, 1);
    tcb(&f, TCB_A, "stale", 1);
    tcb(&f, TCB_B, "reused", 7);
    tcb(&f, 0x20003000u, "bad\x01name", 4);
    ck_assert_int_eq(names_set_ctx(n, 1, "producer"), 0);
    ck_assert_int_eq(rtos_freertos_names(t, fake_read, &f, ids, handles, 3, n, why, sizeof why),
                     0);
    ck_assert_str_eq(names_ctx(n, 1), "producer");
    ck_assert_ptr_null(names_ctx(n, 2));
    ck_assert_ptr_null(names_ctx(n, 4));
    names_free(n);
    sym_close(t);
}
END_TEST

/* The registry: named slots, empty ones, a name that cannot be read. */
START_TEST(test_registry)
{
    uint64_t ia, ra;
    struct sym_table *t = self(&ia, &ra);
    struct fake f = {0};
    struct names *n = names_new();
    uint8_t reg[32] = {0};
    char why[256] = "";
    unsigned type = 99, w = sym_word_bytes(t); /* the registry's slots: two words */

    info(&f, ia, RTOS_FREERTOS_MAGIC, 1);
    le32(reg, 0x00004000u); /* "jobs" */
    le32(reg + w, 0x20004000u);
    le32(reg + 2 * w, 0x00004100u); /* nowhere */
    le32(reg + 3 * w, 0x20004100u);
    put(&f, ra, reg, sizeof reg);
    put(&f, 0x00004000u, "jobs\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32);
    ck_assert_int_eq(rtos_freertos_names(t, fake_read, &f, NULL, NULL, 0, n, why, sizeof why), 1);
    ck_assert_str_eq(names_obj(n, 0x20004000u, &type), "jobs");
    ck_assert_ptr_null(names_obj(n, 0x20004100u, NULL));
    names_free(n);
    sym_close(t);
}
END_TEST

/* A table not filled in yet, of another version, of a layout no kernel has, or unreadable: one
 * line saying so, and no read beyond it. */
START_TEST(test_bad_table)
{
    static const struct {
        uint32_t magic;
        unsigned version;
        const char *why;
    } cases[] = {
        {0, 1, "not filled in"},
        {RTOS_FREERTOS_MAGIC, 2, "version 2"},
    };
    uint64_t ia, ra;
    struct sym_table *t = self(&ia, &ra);
    uint32_t ids[] = {1};
    uint64_t handles[] = {TCB_A};
    char why[256];

    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fake f = {0};
        struct names *n = names_new();

        info(&f, ia, cases[i].magic, cases[i].version);
        tcb(&f, TCB_A, "producer", 1);
        why[0] = 0;
        ck_assert_int_eq(rtos_freertos_names(t, fake_read, &f, ids, handles, 1, n, why,
                                             sizeof why), -1);
        ck_assert_msg(strstr(why, cases[i].why), "case %u: %s", i, why);
        ck_assert_uint_eq(f.reads, 1);
        ck_assert_ptr_null(names_ctx(n, 1));
        names_free(n);
    }
    {
        struct fake f = {0};
        struct names *n = names_new();
        uint8_t b[16] = {0};

        le32(b, RTOS_FREERTOS_MAGIC);
        le16(b + 4, 1);
        le16(b + 6, 60000); /* a name 60000 bytes into a TCB */
        le16(b + 8, 16);
        le16(b + 12, 4);
        put(&f, ia, b, sizeof b);
        ck_assert_int_eq(rtos_freertos_names(t, fake_read, &f, ids, handles, 1, n, why,
                                             sizeof why), -1);
        ck_assert_msg(strstr(why, "layout"), "%s", why);
        names_free(n);
    }
    {
        struct fake f = {0}; /* nothing readable */
        struct names *n = names_new();

        ck_assert_int_eq(rtos_freertos_names(t, fake_read, &f, ids, handles, 1, n, why,
                                             sizeof why), -1);
        ck_assert_msg(strstr(why, "cannot be read"), "%s", why);
        names_free(n);
    }
    sym_close(t);
}
END_TEST

/* Zephyr: the glue's table (magic, version, where a k_thread's name is); a context is named from
 * its handle only when the handle gives the context's id (address >> 2, 19 bits). */
START_TEST(test_zephyr_names)
{
    char err[256], why[256] = "";
    struct sym_table *t = sym_open("/proc/self/exe", err, sizeof err);
    uint64_t za;
    struct fake f = {0};
    struct names *n = names_new();
    uint8_t b[12] = {0};
    /* producer's k_thread at TCB_A (id 0x400), consumer's at TCB_B (id 0x800); the third
     * context's handle is TCB_A, which does not give its id: not its k_thread. */
    uint32_t ids[] = {0x400, 0x800, 0x401, 0x80013};
    uint64_t handles[] = {TCB_A, TCB_B, TCB_A, 0x1234};

    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_int_eq(sym_find(t, "cygtrace_zephyr", &za, NULL), 0);
    ck_assert(rtos_has_zephyr(t));
    le32(b, RTOS_ZEPHYR_MAGIC);
    le16(b + 4, 1);
    le16(b + 6, NAME_OFF);
    le16(b + 8, 32);
    put(&f, za, b, sizeof b);
    put(&f, TCB_A + NAME_OFF, "producer\0.......................", 32);
    put(&f, TCB_B + NAME_OFF, "consumer\0.......................", 32);
    ck_assert_int_eq(rtos_zephyr_names(t, fake_read, &f, ids, handles, 4, n, why, sizeof why), 2);
    ck_assert_str_eq(names_ctx(n, 0x400), "producer");
    ck_assert_str_eq(names_ctx(n, 0x800), "consumer");
    ck_assert_ptr_null(names_ctx(n, 0x401));
    ck_assert_ptr_null(names_ctx(n, 0x80013));
    names_free(n);
    /* Not filled in, another version: no names, and why. */
    for (unsigned i = 0; i < 2; i++) {
        n = names_new();
        le32(f.r[0].bytes, i ? RTOS_ZEPHYR_MAGIC : 0);
        le16(f.r[0].bytes + 4, i ? 2 : 1);
        ck_assert_int_eq(rtos_zephyr_names(t, fake_read, &f, ids, handles, 4, n, why, sizeof why),
                         -1);
        ck_assert_msg(strstr(why, i ? "version 2" : "not filled in"), "%s", why);
        ck_assert_ptr_null(names_ctx(n, 0x400));
        names_free(n);
    }
    sym_close(t);
}
END_TEST

Suite *rtos_suite(void)
{
    Suite *s = suite_create("rtos");
    TCase *tc = tcase_create("freertos");

    tcase_add_test(tc, test_tcb_names);
    tcase_add_test(tc, test_tcb_checked);
    tcase_add_test(tc, test_registry);
    tcase_add_test(tc, test_bad_table);
    tcase_add_test(tc, test_zephyr_names);
    suite_add_tcase(s, tc);
    return s;
}
