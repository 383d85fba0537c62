/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_names.c - the names of contexts and objects: NAME words put back together per writing
 * context, CONTEXT bindings, and the lookups. */
#include <check.h>
#include <string.h>

#include "cyg_format.h"
#include "decode/dec.h"
#include "symbols/names.h"
#include "symbols/sym.h"
#include "suites.h"

/* Feeds a NAME word: part, last, len bytes, the word; writer ctx. */
static void word(struct names *n, uint32_t ctx, unsigned data, uint64_t a, unsigned w)
{
    struct ev e = {.kind = EV_NAME, .ctx = ctx, .data = data, .addr = a};

    names_feed(n, &e, w);
}

#define PART(i, len, last) ((i) | (len) << CYG_NAME_LEN_SHIFT | ((last) ? CYG_NAME_LAST : 0))

/* "consumer" on a 32-bit target: the key, then two words of 4 bytes. */
static void consumer(struct names *n, uint32_t writer, uint32_t id)
{
    word(n, writer, PART(0, 0, 0), id, 4);
    word(n, writer, PART(1, 4, 0), 0x736e6f63, 4); /* "cons" */
    word(n, writer, PART(2, 4, 1), 0x72656d75, 4); /* "umer" */
}

START_TEST(test_names_reassembles)
{
    struct names *n = names_new();

    ck_assert_ptr_nonnull(n);
    consumer(n, 0, 3);
    ck_assert_str_eq(names_ctx(n, 3), "consumer");
    ck_assert_ptr_null(names_ctx(n, 4));
    /* 64-bit words, a NUL before the word's end; an object of type queue */
    word(n, 1, PART(0, 0, 0) | CYG_NAME_OBJECT | CYG_OBJ_QUEUE << CYG_NAME_OBJ_SHIFT,
         0x7fff00001000u, 8);
    word(n, 1, PART(1, 8, 1), 0x000000736272u /* "rbs" */, 8);
    {
        unsigned t = 99;

        ck_assert_str_eq(names_obj(n, 0x7fff00001000u, &t), "rbs");
        ck_assert_uint_eq(t, CYG_OBJ_QUEUE);
    }
    /* a later name wins */
    word(n, 0, PART(0, 0, 0), 3, 4);
    word(n, 0, PART(1, 3, 1), 0x00626f6a, 4);
    ck_assert_str_eq(names_ctx(n, 3), "job");
    names_free(n);
}
END_TEST

START_TEST(test_names_out_of_order_and_cut)
{
    struct names *n = names_new();

    /* a word skipped: dropped, and its last word commits nothing */
    word(n, 0, PART(0, 0, 0), 5, 4);
    word(n, 0, PART(2, 4, 1), 0x72656d75, 4);
    ck_assert_ptr_null(names_ctx(n, 5));
    /* the key overwritten (the ring starts in the middle of the name) */
    word(n, 0, PART(1, 4, 0), 0x736e6f63, 4);
    word(n, 0, PART(2, 4, 1), 0x72656d75, 4);
    ck_assert_ptr_null(names_ctx(n, 0x736e6f63));
    ck_assert_uint_eq(names_ctx_count(n), 0);
    /* cut at the end: never committed */
    word(n, 0, PART(0, 0, 0), 6, 4);
    word(n, 0, PART(1, 4, 0), 0x736e6f63, 4);
    ck_assert_ptr_null(names_ctx(n, 6));
    /* a new key restarts it */
    consumer(n, 0, 7);
    ck_assert_str_eq(names_ctx(n, 7), "consumer");
    ck_assert_ptr_null(names_ctx(n, 6));
    /* more bytes than a word holds: malformed */
    word(n, 0, PART(0, 0, 0), 8, 4);
    word(n, 0, PART(1, 5, 1), 0x736e6f63, 4);
    ck_assert_ptr_null(names_ctx(n, 8));
    /* a loss drops the names in flight */
    word(n, 0, PART(0, 0, 0), 9, 4);
    names_feed(n, &(struct ev){.kind = EV_LOST, .addr = 3}, 4);
    word(n, 0, PART(1, 4, 1), 0x736e6f63, 4);
    ck_assert_ptr_null(names_ctx(n, 9));
    names_free(n);
}
END_TEST

/* Two writers, one preempting the other mid-name: each name is its writer's. */
START_TEST(test_names_interleaved_writers)
{
    struct names *n = names_new();

    word(n, 1, PART(0, 0, 0), 10, 4);
    word(n, 1, PART(1, 4, 0), 0x736e6f63, 4);
    consumer(n, 2, 11);
    word(n, 1, PART(2, 2, 1), 0x6161, 4);
    ck_assert_str_eq(names_ctx(n, 10), "consaa");
    ck_assert_str_eq(names_ctx(n, 11), "consumer");
    names_free(n);
}
END_TEST

static void collect(void *arg, uint32_t id, const char *name)
{
    char *buf = arg;
    size_t k = strlen(buf);

    snprintf(buf + k, 256 - k, "%u=%s;", id, name);
}

START_TEST(test_names_handles_and_lookups)
{
    struct names *n = names_new();
    char buf[256] = "";
    uint32_t id = 0;

    names_feed(n, &(struct ev){.kind = EV_CONTEXT, .data = 4, .addr = 0x2000}, 4);
    ck_assert_uint_eq(names_handle(n, 4), 0x2000);
    ck_assert_ptr_null(names_ctx(n, 4)); /* a handle alone is no name */
    names_feed(n, &(struct ev){.kind = EV_CONTEXT, .data = 4, .addr = 0x3000}, 4);
    ck_assert_uint_eq(names_handle(n, 4), 0x3000);
    ck_assert_uint_eq(names_handle(n, 5), 0);
    ck_assert_int_eq(names_set_ctx(n, 9, "tab\there\x7f"), 0);
    ck_assert_str_eq(names_ctx(n, 9), "tab?here?");
    ck_assert_int_eq(names_set_ctx(n, 2, "idle"), 0);
    ck_assert_uint_eq(names_handle(n, 2), 0);
    names_each_ctx(n, collect, buf);
    ck_assert_str_eq(buf, "2=idle;9=tab?here?;");
    ck_assert_int_eq(names_find_ctx(n, "idle", &id), 1);
    ck_assert_uint_eq(id, 2);
    ck_assert_int_eq(names_find_ctx(n, "nobody", &id), 0);
    ck_assert_int_eq(names_set_ctx(n, 3, "idle"), 0);
    ck_assert_int_eq(names_find_ctx(n, "idle", &id), -1);
    /* long names are cut */
    {
        char longname[200];

        memset(longname, 'x', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        names_set_obj(n, 0x10, CYG_OBJ_MUTEX, longname);
        ck_assert_uint_eq(strlen(names_obj(n, 0x10, NULL)), NAMES_MAX);
    }
    /* many keys: the table grows */
    for (uint32_t i = 100; i < 5000; i++)
        ck_assert_int_eq(names_set_handle(n, i, i * 16), 0);
    for (uint32_t i = 100; i < 5000; i++)
        ck_assert_uint_eq(names_handle(n, i), i * 16);
    ck_assert_ptr_null(names_ctx(NULL, 1));
    names_free(n);
}
END_TEST

/* A name without a type (the queue registry's, read from the target) takes the type of the
 * object a task blocked on; a BLOCK says nothing of an object that has a type. */
START_TEST(test_names_type_from_block)
{
    struct names *n = names_new();
    struct ev b = {.kind = EV_SCHED, .ctx = 2, .addr = 0x20000180,
                   .data = CYG_SCHED_BLOCK | CYG_OBJ_SEMAPHORE << CYG_SCHED_OBJ_SHIFT};
    unsigned t = 99;

    names_feed(n, &b, 4);
    ck_assert_ptr_null(names_obj(n, 0x20000180, NULL)); /* a type is no name */
    ck_assert_int_eq(names_set_obj(n, 0x20000180, CYG_OBJ_NONE, "tick_sem"), 0);
    ck_assert_str_eq(names_obj(n, 0x20000180, &t), "tick_sem");
    ck_assert_uint_eq(t, CYG_OBJ_SEMAPHORE);
    ck_assert_int_eq(names_set_obj(n, 0x20000200, CYG_OBJ_MUTEX, "results"), 0);
    b.addr = 0x20000200;
    names_feed(n, &b, 4);
    ck_assert_str_eq(names_obj(n, 0x20000200, &t), "results");
    ck_assert_uint_eq(t, CYG_OBJ_MUTEX);
    b.data = CYG_SCHED_BLOCK | CYG_OBJ_DELAY << CYG_SCHED_OBJ_SHIFT; /* a = ticks: no object */
    b.addr = 0x20000300;
    names_feed(n, &b, 4);
    ck_assert_int_eq(names_set_obj(n, 0x20000300, CYG_OBJ_NONE, "x"), 0);
    ck_assert_str_eq(names_obj(n, 0x20000300, &t), "x");
    ck_assert_uint_eq(t, CYG_OBJ_NONE);
    names_free(n);
}
END_TEST

/* A statically defined object (Zephyr's K_MSGQ_DEFINE(jobs, ...)): a block on it names it by
 * its data symbol, the load bias taken off; an address no data symbol starts at stays unnamed;
 * a NAME record still wins. */
__attribute__((used)) uint32_t names_test_jobs[4];

START_TEST(test_names_from_symbols)
{
    char err[256];
    struct sym_table *sym = sym_open("/proc/self/exe", err, sizeof err);
    struct names *n = names_new();
    uint64_t at, bias = 0x10000;
    unsigned t = 99;
    struct ev b = {.kind = EV_SCHED, .ctx = 2,
                   .data = CYG_SCHED_BLOCK | CYG_OBJ_K_MSGQ << CYG_SCHED_OBJ_SHIFT};

    ck_assert_msg(sym != NULL, "%s", err);
    ck_assert_int_eq(sym_find(sym, "names_test_jobs", &at, NULL), 0);
    b.addr = at + bias;
    names_feed(n, &b, 8); /* no symbols yet: a type, no name */
    ck_assert_ptr_null(names_obj(n, b.addr, NULL));
    names_set_symbols(n, sym, bias);
    names_feed(n, &b, 8);
    ck_assert_str_eq(names_obj(n, b.addr, &t), "names_test_jobs");
    ck_assert_uint_eq(t, CYG_OBJ_K_MSGQ);
    b.addr = at + bias + 4; /* inside it: not its start */
    names_feed(n, &b, 8);
    ck_assert_ptr_null(names_obj(n, b.addr, NULL));
    ck_assert_int_eq(names_set_obj(n, at + bias, CYG_OBJ_NONE, "jobs"), 0);
    ck_assert_str_eq(names_obj(n, at + bias, NULL), "jobs");
    names_free(n);
    sym_close(sym);
}
END_TEST

/* Every output heads a context with one label: its name quoted, else its handle's function (an
 * interrupt's handler, from the test runner's own symbols here), then its OS thread. */
START_TEST(test_names_label)
{
    char err[256], buf[512];
    struct sym_table *sym = sym_open("/proc/self/exe", err, sizeof err);
    struct names *n = names_new();
    uint64_t addr, size;

    ck_assert_msg(sym != NULL, "%s", err);
    ck_assert_int_eq(sym_find(sym, "names_new", &addr, &size), 0);
    ck_assert_int_eq(names_set_ctx(n, 1, "producer"), 0);
    names_feed(n, &(struct ev){.kind = EV_CONTEXT, .data = 524303, .addr = addr + 0x1000}, 4);
    ck_assert_int_eq(names_ctx_label(n, sym, 0x1000, 4, 1, 0, 0, buf, sizeof buf), 1);
    ck_assert_str_eq(buf, "context 1 \"producer\"");
    ck_assert_int_eq(names_ctx_label(n, sym, 0x1000, 4, 524303, 0, 0, buf, sizeof buf), 1);
    ck_assert_str_eq(buf, "context 524303 \"names_new\"");
    ck_assert_int_eq(names_ctx_label(n, sym, 0x1000, 4, 0, 0, 0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "context 0");
    ck_assert_int_eq(names_ctx_label(n, NULL, 0, 8, 2, 7739, 0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "thread 2 (tid 7739)");
    ck_assert_int_eq(names_ctx_label(n, NULL, 0, 8, 1, 7735, 0, buf, sizeof buf), 1);
    ck_assert_str_eq(buf, "thread 1 \"producer\" (tid 7735)");
    names_ctx_label(NULL, NULL, 0, 8, 3, 812, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "thread 3 (vfork child, pid 812)");
    /* what a sentence says of the same contexts: the name alone */
    names_ctx_text(n, sym, 0x1000, 524303, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "names_new");
    names_ctx_text(n, sym, 0x1000, 9, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "context 9");
    /* cut to the buffer, terminated */
    names_ctx_label(n, sym, 0x1000, 4, 1, 0, 0, buf, 12);
    ck_assert_str_eq(buf, "context 1 \"");
    names_free(n);
    sym_close(sym);
}
END_TEST

Suite *names_suite(void)
{
    Suite *s = suite_create("names");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_names_reassembles);
    tcase_add_test(tc, test_names_out_of_order_and_cut);
    tcase_add_test(tc, test_names_interleaved_writers);
    tcase_add_test(tc, test_names_handles_and_lookups);
    tcase_add_test(tc, test_names_type_from_block);
    tcase_add_test(tc, test_names_label);
    tcase_add_test(tc, test_names_from_symbols);
    suite_add_tcase(s, tc);
    return s;
}
