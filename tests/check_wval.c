/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_wval.c - a wrapped call's values: VALUE words put back together (wval.c), the
 * signature table (wsig.c), and the tree builder giving values to their call (tree.c). The
 * words are made here as the runtime makes them (FORMAT.md 7.3); check_runtime.c has the
 * runtime write them for real. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "model/tree.h"
#include "symbols/wsig.h"
#include "decode/wval.h"

#define FN 0x401230u /* a wrapper's address */

/* The data of word part of a value of argument idx, kind k; W-byte words. */
static uint32_t vdata(unsigned idx, unsigned k, unsigned part, unsigned len, int last,
                      uint64_t fn)
{
    return idx | k << CYG_VAL_KIND_SHIFT | part << CYG_VAL_PART_SHIFT |
           len << CYG_VAL_LEN_SHIFT | (last ? CYG_VAL_LAST : 0) |
           cyg_val_check(fn) << CYG_VAL_CHECK_SHIFT;
}

static void add_ok(struct wval_set *s, uint32_t data, uint64_t word)
{
    ck_assert_int_eq(wval_add(s, FN, data, word), 0);
}

/* Adds the string str as a 32-bit (w 4) or 64-bit (w 8) runtime writes it, cut at limit. */
static void add_string(struct wval_set *s, unsigned idx, const char *str, unsigned w,
                       unsigned limit)
{
    size_t n = strlen(str), at = 0;
    unsigned part = 0;

    for (;;) {
        uint64_t word = 0;
        unsigned k = 0;

        for (; k < w && at < n && at < limit; k++, at++)
            word |= (uint64_t)(unsigned char)str[at] << (8 * k);
        if (k < w || at == limit) {
            uint32_t d = vdata(idx, CYG_VK_STR, part, k, 1, FN);

            add_ok(s, at < n ? d | CYG_VAL_TRUNC : d, word);
            return;
        }
        add_ok(s, vdata(idx, CYG_VK_STR, part++, k, 0, FN), word);
    }
}

static const char *args(const struct wval_set *s, const struct wsig_fn *sig)
{
    static char buf[512];

    wval_args_text(s, sig, buf, sizeof buf);
    return buf;
}

static const char *ret(const struct wval_set *s, const struct wsig_fn *sig)
{
    static char buf[256];
    const struct wval *r = wval_ret(s);

    if (!r)
        return "(none)";
    wval_text(r, sig ? &sig->ret : NULL, buf, sizeof buf);
    return buf;
}

START_TEST(test_wval_numbers_32)
{
    struct wval_set s;
    double d = -2.5;
    float f = 1.5f;
    uint64_t u;
    uint32_t fu;

    memcpy(&u, &d, 8);
    memcpy(&fu, &f, 4);
    wval_reset(&s);
    add_ok(&s, vdata(0, CYG_VK_INT, 0, 4, 1, FN), 0xfffffff9u);        /* -7 */
    add_ok(&s, vdata(1, CYG_VK_UINT, 0, 4, 1, FN), 0xfffffff9u);       /* 4294967289 */
    add_ok(&s, vdata(2, CYG_VK_F64, 0, 4, 0, FN), (uint32_t)u);        /* two words */
    add_ok(&s, vdata(2, CYG_VK_F64, 1, 4, 1, FN), (uint32_t)(u >> 32));
    add_ok(&s, vdata(3, CYG_VK_F32, 0, 4, 1, FN), fu);
    add_ok(&s, vdata(4, CYG_VK_INT, 0, 4, 0, FN), 0x0);                /* -5000000000 */
    add_ok(&s, vdata(4, CYG_VK_INT, 1, 4, 1, FN), 0xfffffffeu);
    add_ok(&s, vdata(5, CYG_VK_PTR, 0, 4, 1, FN), 0x20001000u);
    add_ok(&s, vdata(6, CYG_VK_PTR, 0, 4, 1, FN), 0);
    add_ok(&s, vdata(7, CYG_VK_BOOL, 0, 4, 1, FN), 1);
    add_ok(&s, vdata(8, CYG_VK_CHAR, 0, 4, 1, FN), '\n');
    add_ok(&s, vdata(9, CYG_VK_CHAR, 0, 4, 1, FN), 'q');
    add_ok(&s, vdata(CYG_VAL_RET, CYG_VK_INT, 0, 4, 1, FN), 5);
    ck_assert_str_eq(args(&s, NULL), "-7, 4294967289, -2.5, 1.5, -8589934592, 0x20001000, NULL, "
                                     "true, '\\n', 'q'");
    ck_assert_str_eq(ret(&s, NULL), "5");
}
END_TEST

START_TEST(test_wval_numbers_64)
{
    struct wval_set s;

    wval_reset(&s);
    /* a 64-bit word is sign-extended by the runtime already: 0xffffffff is 4294967295 */
    add_ok(&s, vdata(0, CYG_VK_INT, 0, 8, 1, FN), 0xffffffffu);
    add_ok(&s, vdata(1, CYG_VK_INT, 0, 8, 1, FN), (uint64_t)-3);
    add_ok(&s, vdata(2, CYG_VK_PTR, 0, 8, 1, FN), 0x7ffd12345678u);
    ck_assert_str_eq(args(&s, NULL), "4294967295, -3, 0x7ffd12345678");
    ck_assert_str_eq(ret(&s, NULL), "(none)");
}
END_TEST

START_TEST(test_wval_strings)
{
    static const unsigned words[] = {4, 8};

    for (unsigned i = 0; i < 2; i++) {
        struct wval_set s;
        unsigned w = words[i];

        wval_reset(&s);
        add_string(&s, 0, "two", w, 32);
        add_string(&s, 1, "", w, 32);
        add_string(&s, 2, "abcdefgh", w, 32); /* a multiple of the word: an empty last word */
        add_string(&s, 3, "a string that is longer than thirty-two bytes", w, 32);
        add_string(&s, 4, "q\"\\\t\x01\xff", w, 32);
        add_ok(&s, vdata(5, CYG_VK_STR, 0, 0, 1, FN) | CYG_VAL_NULL, 0);
        add_string(&s, CYG_VAL_RET, "ok", w, 32);
        ck_assert_str_eq(args(&s, NULL), "\"two\", \"\", \"abcdefgh\", "
                                         "\"a string that is longer than thi\"..., "
                                         "\"q\\\"\\\\\\t\\x01\\xff\", NULL");
        ck_assert_str_eq(ret(&s, NULL), "\"ok\"");
    }
}
END_TEST

/* Words that are not this call's: another function's check bits, out of order, lost words. */
START_TEST(test_wval_refuses_strays)
{
    struct wval_set s;
    uint64_t other = FN + 0x40;

    ck_assert_uint_ne(cyg_val_check(other), cyg_val_check(FN));
    wval_reset(&s);
    ck_assert_int_eq(wval_add(&s, FN, vdata(0, CYG_VK_INT, 0, 4, 1, other), 1), -1);
    add_ok(&s, vdata(1, CYG_VK_INT, 0, 4, 1, FN), 1);
    /* an argument before the one that came, or the same again */
    ck_assert_int_eq(wval_add(&s, FN, vdata(0, CYG_VK_INT, 0, 4, 1, FN), 1), -1);
    ck_assert_int_eq(wval_add(&s, FN, vdata(1, CYG_VK_INT, 0, 4, 1, FN), 1), -1);
    /* a second word with no first, a word for a value that is done */
    ck_assert_int_eq(wval_add(&s, FN, vdata(2, CYG_VK_F64, 1, 4, 1, FN), 1), -1);
    add_ok(&s, vdata(2, CYG_VK_F64, 0, 4, 0, FN), 0);
    /* a new value while the last still waits for a word */
    ck_assert_int_eq(wval_add(&s, FN, vdata(3, CYG_VK_INT, 0, 4, 1, FN), 1), -1);
    ck_assert_int_eq(wval_add(&s, FN, vdata(2, CYG_VK_INT, 1, 4, 1, FN), 1), -1); /* kind */
    /* a third word of a number, a length beyond a word */
    ck_assert_int_eq(wval_add(&s, FN, vdata(2, CYG_VK_F64, 2, 4, 1, FN), 1), -1);
    ck_assert_int_eq(wval_add(&s, FN, vdata(3, CYG_VK_STR, 0, 9, 1, FN), 1), -1);
    /* argument 0 never came, 2 is incomplete */
    ck_assert_str_eq(args(&s, NULL), "?, 1, ?");
}
END_TEST

/* Sixteen words of string at most, whatever comes. */
START_TEST(test_wval_long_string_bounded)
{
    struct wval_set s;
    unsigned part;

    wval_reset(&s);
    for (part = 0; part < 40; part++)
        if (wval_add(&s, FN, vdata(0, CYG_VK_STR, part, 8, 0, FN), 0x4141414141414141u) < 0)
            break;
    ck_assert_uint_eq(part, CYG_VAL_MAX_PARTS);
    ck_assert_str_eq(args(&s, NULL), "?");
}
END_TEST

static const char table[] = "cygtrace-wrap 1\n"
                            "F\tvend_add\t2\tint\t-\tint\n"
                            "P\t0\ta\tint\t-\tint\n"
                            "P\t1\tb\tint\t-\tint\n"
                            "F\tvend_mode\t1\tint\te1\tenum vend_mode\n"
                            "P\t0\tm\tint\te1\tenum vend_mode\n"
                            "E\te1\t1\tVEND_SLOW\n"
                            "E\te1\t-2\tVEND_BACK\n"
                            "F\tvend_reset\t0\tvoid\t-\tvoid\n"
                            "cygtrace-wrap 1\n"
                            "E\te1\t1\tOTHER_BLOCKS_ONE\n"
                            "F\tput\t1\tvoid\t-\tvoid\n"
                            "P\t0\ts\tstr\t-\tconst char *\n";

START_TEST(test_wsig_table)
{
    struct wsig *w = wsig_parse(table, sizeof table - 1);
    const struct wsig_fn *add, *mode, *put;
    struct wval_set s;

    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(wsig_count(w), 4);
    ck_assert_uint_eq(wsig_bad_lines(w), 0);
    add = wsig_find(w, "vend_add");
    mode = wsig_find(w, "vend_mode");
    put = wsig_find(w, "put");
    ck_assert_ptr_nonnull(add);
    ck_assert_ptr_nonnull(mode);
    ck_assert_ptr_null(wsig_find(w, "vend_sub"));
    ck_assert_uint_eq(add->n, 2);
    ck_assert_str_eq(add->p[1].name, "b");
    ck_assert_str_eq(mode->ret.type, "enum vend_mode");
    ck_assert_ptr_nonnull(mode->p[0].en);
    ck_assert_uint_eq(mode->p[0].en->n, 2); /* the second block's e1 is its own */
    ck_assert_ptr_null(put->p[0].en);

    wval_reset(&s);
    add_ok(&s, vdata(0, CYG_VK_INT, 0, 4, 1, FN), 2);
    add_ok(&s, vdata(1, CYG_VK_INT, 0, 4, 1, FN), 3);
    ck_assert_str_eq(args(&s, add), "a=2, b=3");
    wval_reset(&s);
    add_ok(&s, vdata(0, CYG_VK_INT, 0, 4, 1, FN), 0xfffffffeu);
    add_ok(&s, vdata(CYG_VAL_RET, CYG_VK_INT, 0, 4, 1, FN), 7);
    ck_assert_str_eq(args(&s, mode), "m=VEND_BACK");
    ck_assert_str_eq(ret(&s, mode), "7"); /* not an enumerator: the number */
    /* a signature with more parameters than values came: the rest are unknown */
    wval_reset(&s);
    ck_assert_str_eq(args(&s, add), "a=?, b=?");
    ck_assert_str_eq(wsig_wrapped_name("__wrap_vend_add"), "vend_add");
    ck_assert_ptr_null(wsig_wrapped_name("__wrap_"));
    ck_assert_ptr_null(wsig_wrapped_name("vend_add"));
    wsig_free(w);
}
END_TEST

/* A later block's function of the same name wins (a second wrap run); bad lines are skipped,
 * counted, and the rest kept. */
START_TEST(test_wsig_bad_lines)
{
    static const char bad[] = "F\tbefore_any_block\t0\tvoid\t-\tvoid\n"
                              "cygtrace-wrap 1\n"
                              "F\tf\t1\tint\t-\tint\n"
                              "P\t0\tx\tint\t-\tint\n"
                              "P\t0\tx\tint\t-\tint\n"      /* twice */
                              "P\t1\ty\tint\t-\tint\n"      /* beyond its count */
                              "P\t0\tz\tvoid\t-\tvoid\n"    /* a void parameter */
                              "F\tg\t16\tint\t-\tint\n"     /* too many parameters */
                              "F\tg\t1\tnumber\t-\tint\n"   /* no such kind */
                              "F\tg\tx\tint\t-\tint\n"
                              "E\te1\tten\tTEN\n"
                              "Q\n"
                              "F\tshort\n"
                              "\n"
                              "cygtrace-wrap 1\n"
                              "F\tf\t0\tuint\t-\tunsigned\n";
    struct wsig *w = wsig_parse(bad, sizeof bad - 1);
    char nul[] = "cygtrace-wrap 1\nF\tf\0g\t0\tint\t-\tint\nF\th\t0\tint\t-\tint";

    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(wsig_bad_lines(w), 10);
    ck_assert_uint_eq(wsig_count(w), 2);
    ck_assert_uint_eq(wsig_find(w, "f")->n, 0);
    wsig_free(w);
    /* a NUL inside a line spoils that line only; the last line needs no newline */
    w = wsig_parse(nul, sizeof nul - 1);
    ck_assert_uint_eq(wsig_bad_lines(w), 1);
    ck_assert_ptr_nonnull(wsig_find(w, "h"));
    wsig_free(w);
}
END_TEST

/* ---- the tree gives values to their call ---- */

struct vlog {
    char text[1024];
};

static void vl_add(struct vlog *l, const char *s)
{
    size_t n = strlen(l->text);

    snprintf(l->text + n, sizeof l->text - n, "%s", s);
}

static void vl_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    char b[600];

    snprintf(b, sizeof b, "+%llX(%s) ", (unsigned long long)f->addr,
             f->vals ? args(f->vals, NULL) : "-");
    vl_add(arg, b);
    (void)depth;
}

static void vl_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t,
                    enum tree_exit_how how)
{
    char b[600];

    snprintf(b, sizeof b, "-%llX=%s ", (unsigned long long)f->addr,
             f->vals ? ret(f->vals, NULL) : "-");
    vl_add(arg, b);
    (void)depth, (void)t, (void)how;
}

static void vl_special(void *arg, const struct ev *e, unsigned depth)
{
    char b[32];

    snprintf(b, sizeof b, "*%u ", e->kind);
    vl_add(arg, b);
    (void)depth;
}

static void vl_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    (void)arg, (void)stack, (void)n;
}

static void vl_values(void *arg, const struct tree_frame *f, unsigned depth)
{
    vl_add(arg, "v ");
    (void)f, (void)depth;
}

static struct ev call(int exit, uint64_t fn)
{
    return (struct ev){.kind = exit ? EV_EXIT : EV_ENTER, .addr = fn};
}

static struct ev value(unsigned idx, uint64_t v, uint64_t fn)
{
    return (struct ev){.kind = EV_VALUE, .addr = v,
                       .data = vdata(idx, CYG_VK_INT, 0, 8, 1, fn)};
}

START_TEST(test_tree_values)
{
    struct vlog l = {""};
    struct tree_sink sink = {&l, vl_enter, vl_exit, vl_special, vl_finish, vl_values};
    struct tree *t = tree_new(&sink, 1, NULL, NULL);
    const uint64_t A = 0xA10, W = FN, V = FN + 0x40;
    const struct ev evs[] = {
        value(0, 1, W),  /* before any call the trace shows: nobody's */
        call(0, A),
        value(0, 9, V),  /* the values of a call whose entry was lost: not A's */
        call(0, W), value(0, 2, W), value(1, 3, W),
        call(0, A), call(1, A), /* a callee of the real function (an interrupt, a callback) */
        value(CYG_VAL_RET, 5, W), call(1, W),
        call(0, W), {.kind = EV_MARK}, call(1, W), /* values lost: none */
        call(1, A),
    };

    for (size_t i = 0; i < sizeof evs / sizeof *evs; i++)
        ck_assert_int_eq(tree_feed(t, &evs[i]), 0);
    tree_finish(t);
    /* the return value comes after the callee was told: the values callback says so */
    ck_assert_str_eq(l.text, "+A10(-) +401230(2, 3) +A10(-) -A10=- v -401230=5 "
                             "+401230(-) *5 -401230=- -A10=- ");
    ck_assert_uint_eq(tree_stray_values(t), 2);
    tree_free(t);
}
END_TEST

/* Synced (a live view): the enter is told at once, the values after it. */
START_TEST(test_tree_values_synced)
{
    struct vlog l = {""};
    struct tree_sink sink = {&l, vl_enter, vl_exit, vl_special, vl_finish, vl_values};
    struct tree *t = tree_new(&sink, 0, NULL, NULL);
    const struct ev evs[] = {call(0, FN), value(0, 2, FN), value(CYG_VAL_RET, 4, FN),
                             call(1, FN)};

    for (size_t i = 0; i < sizeof evs / sizeof *evs; i++) {
        ck_assert_int_eq(tree_feed(t, &evs[i]), 0);
        tree_sync(t);
    }
    ck_assert_str_eq(l.text, "+401230(-) v v -401230=4 ");
    tree_free(t);
    /* addresses made link-time: the check is of the recorded ones */
    memset(&l, 0, sizeof l);
    t = tree_new(&sink, 0, NULL, NULL);
    tree_set_value_bias(t, 0x1000);
    ck_assert_int_eq(tree_feed(t, &(struct ev){.kind = EV_ENTER, .addr = FN - 0x1000}), 0);
    ck_assert_int_eq(tree_feed(t, &(struct ev){.kind = EV_VALUE, .addr = 6,
                                               .data = vdata(0, CYG_VK_INT, 0, 8, 1, FN)}),
                     0);
    tree_finish(t);
    ck_assert_str_eq(l.text, "+400230(6) ");
    ck_assert_uint_eq(tree_stray_values(t), 0);
    tree_free(t);
}
END_TEST

Suite *wval_suite(void)
{
    Suite *s = suite_create("wval");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_wval_numbers_32);
    tcase_add_test(tc, test_wval_numbers_64);
    tcase_add_test(tc, test_wval_strings);
    tcase_add_test(tc, test_wval_refuses_strays);
    tcase_add_test(tc, test_wval_long_string_bounded);
    tcase_add_test(tc, test_wsig_table);
    tcase_add_test(tc, test_wsig_bad_lines);
    tcase_add_test(tc, test_tree_values);
    tcase_add_test(tc, test_tree_values_synced);
    suite_add_tcase(s, tc);
    return s;
}
