/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_ctrl.c - the ring's control area (host/ctrl.c): bytes to struct and back on both word
 * sizes, what a damaged area is refused for, every form of a trigger spec and every malformed
 * one with its message, exclusion lists, event masks, and the text that describes them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/ctrl.h"
#include "cyg_format.h"
#include "util/le.h"
#include "suites.h"

/* An area as the runtime's init leaves it, and its own fields set as after a trigger fired. */
static void area_init(uint8_t *b)
{
    memset(b, 0, CYG_CTRL_BYTES);
    le_put(b + CYG_CTRL_OFF_MAGIC, CYG_CTRL_MAGIC, 4);
    le_put(b + CYG_CTRL_OFF_EVENTS, UINT32_MAX, 4);
    b[CYG_CTRL_OFF_GATE] = 1;
}

/* A request of every kind of item. */
static void sample(struct ctrl *c)
{
    ctrl_init(c);
    c->gen = 7;
    c->events = 0x0000000fu;
    c->depth = 3;
    c->ntrig = 4;
    c->trig[0] = (struct ctrl_trig){CYG_TRIG_START, UINT64_C(0x555555554000) + 0x1139, 0, 0};
    c->trig[1] = (struct ctrl_trig){CYG_TRIG_STOP, UINT64_C(0x555555554000) + 0x1200, 0, 0};
    c->trig[2] = (struct ctrl_trig){CYG_TRIG_FREEZE, UINT64_C(0x555555554000) + 0x1300, 10, 0};
    c->trig[3] = (struct ctrl_trig){CYG_TRIG_FREEZE_MARK, 7, 100, 0};
    c->nexcl = 2;
    c->excl[0] = UINT64_C(0x555555554000) + 0x1400;
    c->excl[1] = UINT64_C(0x555555554000) + 0x1500;
    c->hide = 2;
}

START_TEST(test_ctrl_init_is_nothing_armed)
{
    struct ctrl c;
    uint8_t b[CYG_CTRL_BYTES];
    char why[256] = "";

    ctrl_init(&c);
    ck_assert_uint_eq(c.events, UINT32_MAX);
    ck_assert_uint_eq(c.gate, 1);
    ck_assert_int_eq(ctrl_armed(&c), 0);
    area_init(b);
    ck_assert_int_eq(ctrl_parse(&c, b, 8, why, sizeof why), 0);
    ck_assert_int_eq(ctrl_armed(&c), 0);
    ck_assert_uint_eq(ctrl_describe(&c, NULL, NULL, "# ", stderr), 0);
    c.depth = 1;
    ck_assert_int_eq(ctrl_armed(&c), 1);
}
END_TEST

/* Stored, then parsed back: the request as it was, on a 64-bit target; the runtime's fields as
 * the area had them. */
START_TEST(test_ctrl_store_parse_round_trip_64)
{
    struct ctrl c, d;
    uint8_t b[CYG_CTRL_BYTES];
    char why[256] = "";

    area_init(b);
    b[CYG_CTRL_OFF_FIRED] = 3;
    b[CYG_CTRL_OFF_NFIRED] = 2;
    b[CYG_CTRL_OFF_GATE] = 0;
    le_put(b + CYG_CTRL_OFF_APPLIED, 6, 4);
    le_put(b + CYG_CTRL_OFF_FIRED_HEAD, 12345, 8);
    le_put(b + CYG_CTRL_OFF_FIRED_TS, UINT64_C(0x123456789a), 8);
    sample(&c);
    ctrl_store(&c, b);
    ck_assert_uint_eq(le_get(b + CYG_CTRL_OFF_MAGIC, 4), CYG_CTRL_MAGIC);
    ck_assert_uint_eq(le_get(b + CYG_CTRL_OFF_GEN, 4), 7);
    ck_assert_uint_eq(b[CYG_CTRL_OFF_NTRIG], 4);
    ck_assert_uint_eq(b[CYG_CTRL_OFF_TRIG + 2 * CYG_CTRL_TRIG_BYTES + CYG_TRIG_OFF_KIND],
                      CYG_TRIG_FREEZE);
    ck_assert_uint_eq(le_get(b + CYG_CTRL_OFF_TRIG + 2 * CYG_CTRL_TRIG_BYTES + CYG_TRIG_OFF_AFTER,
                             4),
                      10);
    ck_assert_uint_eq(le_get(b + CYG_CTRL_OFF_EXCL + 8, 8), UINT64_C(0x555555555500));
    ck_assert_int_eq(ctrl_parse(&d, b, 8, why, sizeof why), 0);
    ck_assert_uint_eq(d.gen, 7);
    ck_assert_uint_eq(d.applied, 6);
    ck_assert_uint_eq(d.events, 0xf);
    ck_assert_uint_eq(d.depth, 3);
    ck_assert_uint_eq(d.ntrig, 4);
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_uint_eq(d.trig[i].kind, c.trig[i].kind);
        ck_assert_uint_eq(d.trig[i].what, c.trig[i].what);
        ck_assert_uint_eq(d.trig[i].after, c.trig[i].after);
    }
    ck_assert_uint_eq(d.nexcl, 2);
    ck_assert_uint_eq(d.excl[0], c.excl[0]);
    ck_assert_uint_eq(d.excl[1], c.excl[1]);
    ck_assert_uint_eq(d.hide, 2);
    ck_assert_uint_eq(d.fired, 3);
    ck_assert_uint_eq(d.nfired, 2);
    ck_assert_uint_eq(d.gate, 0);
    ck_assert_uint_eq(d.fired_head, 12345);
    ck_assert_uint_eq(d.fired_ts, UINT64_C(0x123456789a));
    ck_assert_int_eq(ctrl_armed(&d), 1);
}
END_TEST

/* A 32-bit target uses the low word of each address: whatever the high one holds, it is not
 * part of the address. */
START_TEST(test_ctrl_store_parse_round_trip_32)
{
    struct ctrl c, d;
    uint8_t b[CYG_CTRL_BYTES];
    char why[256] = "";

    area_init(b);
    ctrl_init(&c);
    c.ntrig = 1;
    c.trig[0] = (struct ctrl_trig){CYG_TRIG_FREEZE, 0x00000401, 0, 0};
    c.nexcl = 1;
    c.excl[0] = 0x08000201;
    ctrl_store(&c, b);
    ck_assert_int_eq(ctrl_parse(&d, b, 4, why, sizeof why), 0);
    ck_assert_uint_eq(d.trig[0].what, 0x401);
    ck_assert_uint_eq(d.excl[0], 0x08000201);
    b[CYG_CTRL_OFF_TRIG + 4] = 0xaa; /* the high word of trigger 0's address */
    b[CYG_CTRL_OFF_EXCL + 7] = 0x55;
    ck_assert_int_eq(ctrl_parse(&d, b, 4, why, sizeof why), 0);
    ck_assert_uint_eq(d.trig[0].what, 0x401);
    ck_assert_uint_eq(d.excl[0], 0x08000201);
    ck_assert_int_eq(ctrl_parse(&d, b, 8, why, sizeof why), 0);
    ck_assert_uint_eq(d.trig[0].what, UINT64_C(0xaa00000401));
}
END_TEST

/* Storing a smaller request clears what the larger one left behind, the fired flags of the
 * triggers it replaces too: a new trigger has not fired. */
START_TEST(test_ctrl_store_clears_old_items)
{
    struct ctrl c, d;
    uint8_t b[CYG_CTRL_BYTES];
    char why[256] = "";

    area_init(b);
    sample(&c);
    ctrl_store(&c, b);
    b[CYG_CTRL_OFF_TRIG + CYG_TRIG_OFF_FLAGS] = CYG_TRIGF_FIRED;
    ck_assert_int_eq(ctrl_parse(&d, b, 8, why, sizeof why), 0);
    ck_assert_uint_eq(d.trig[0].fired, CYG_TRIGF_FIRED);
    ctrl_init(&c);
    c.ntrig = 1;
    c.trig[0] = (struct ctrl_trig){CYG_TRIG_STOP, 0x1000, 0, 0};
    ctrl_store(&c, b);
    for (unsigned i = CYG_CTRL_OFF_TRIG + CYG_CTRL_TRIG_BYTES; i < CYG_CTRL_BYTES; i++)
        ck_assert_msg(b[i] == 0, "byte %u", i);
    ck_assert_int_eq(ctrl_parse(&d, b, 8, why, sizeof why), 0);
    ck_assert_uint_eq(d.ntrig, 1);
    ck_assert_uint_eq(d.nexcl, 0);
    ck_assert_uint_eq(d.trig[0].kind, CYG_TRIG_STOP);
}
END_TEST

/* What a damaged area is refused for. */
START_TEST(test_ctrl_parse_refuses)
{
    static const struct {
        unsigned off;
        uint8_t v;
        const char *why;
    } cases[] = {
        {CYG_CTRL_OFF_MAGIC, 0x00, "no magic"},
        {CYG_CTRL_OFF_NTRIG, CYG_CTRL_TRIGS + 1, "more triggers or exclusions"},
        {CYG_CTRL_OFF_NEXCL, CYG_CTRL_EXCLS + 1, "more triggers or exclusions"},
        {CYG_CTRL_OFF_TRIG + CYG_TRIG_OFF_KIND, 0, "unknown kind"},
        {CYG_CTRL_OFF_TRIG + CYG_TRIG_OFF_KIND, CYG_TRIG_KINDS, "unknown kind"},
        {CYG_CTRL_OFF_TRIG + 3 * CYG_CTRL_TRIG_BYTES + CYG_TRIG_OFF_KIND, 0xff, "unknown kind"},
    };
    struct ctrl c, d;
    uint8_t b[CYG_CTRL_BYTES];

    sample(&c);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[256] = "";

        area_init(b);
        ctrl_store(&c, b);
        b[cases[i].off] = cases[i].v;
        ck_assert_msg(ctrl_parse(&d, b, 8, why, sizeof why) == -1, "case %zu", i);
        ck_assert_msg(strstr(why, cases[i].why), "case %zu: %s", i, why);
    }
    /* a fired trigger past the request's triggers: a request written after it fired (a frozen
     * ring never applies it) has lost it, nothing more */
    area_init(b);
    ctrl_store(&c, b);
    b[CYG_CTRL_OFF_FIRED] = 5; /* 1 + trigger 4 of 4 */
    {
        char why[256] = "";

        ck_assert_int_eq(ctrl_parse(&d, b, 8, why, sizeof why), 0);
        ck_assert_uint_eq(d.fired, 0);
    }
    /* the counts at their limits are fine */
    area_init(b);
    b[CYG_CTRL_OFF_NEXCL] = CYG_CTRL_EXCLS;
    {
        char why[256] = "";

        ck_assert_int_eq(ctrl_parse(&d, b, 8, why, sizeof why), 0);
        ck_assert_uint_eq(d.nexcl, CYG_CTRL_EXCLS);
    }
}
END_TEST

/* Every form of a trigger. */
START_TEST(test_ctrl_trigger_forms)
{
    static const struct {
        const char *text;
        unsigned kind;
        const char *name;
        uint32_t mark, after;
    } cases[] = {
        {"start@main", CYG_TRIG_START, "main", 0, 0},
        {"stop@f", CYG_TRIG_STOP, "f", 0, 0},
        {"freeze@boom", CYG_TRIG_FREEZE, "boom", 0, 0},
        {"freeze@boom+10", CYG_TRIG_FREEZE, "boom", 0, 10},
        {"freeze@boom+0", CYG_TRIG_FREEZE, "boom", 0, 0},
        {"freeze@boom+010", CYG_TRIG_FREEZE, "boom", 0, 10}, /* no octal */
        {"freeze@boom+0x10", CYG_TRIG_FREEZE, "boom", 0, 16},
        {"freeze@boom+4294967295", CYG_TRIG_FREEZE, "boom", 0, UINT32_MAX},
        {"freeze@mark:7+100", CYG_TRIG_FREEZE_MARK, "", 7, 100},
        {"freeze@mark:7", CYG_TRIG_FREEZE_MARK, "", 7, 0},
        {"freeze@mark:0x7ffff", CYG_TRIG_FREEZE_MARK, "", CYG_MARK_ID_MASK, 0},
        {"start@mark", CYG_TRIG_START, "mark", 0, 0}, /* a function called mark */
        {"stop@_Z3fooi", CYG_TRIG_STOP, "_Z3fooi", 0, 0},
        {"start@parse.part.0", CYG_TRIG_START, "parse.part.0", 0, 0},
        {"freeze@0x8000123+5", CYG_TRIG_FREEZE, "0x8000123", 0, 5},
    };
    struct ctrl_spec s;
    char err[256];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = 0;
        ck_assert_msg(ctrl_parse_trigger(cases[i].text, &s, err, sizeof err) == 0, "%s: %s",
                      cases[i].text, err);
        ck_assert_int_eq(s.type, CTRL_SPEC_TRIG);
        ck_assert_msg(s.kind == cases[i].kind, "%s: kind %u", cases[i].text, s.kind);
        ck_assert_str_eq(s.name, cases[i].name);
        ck_assert_uint_eq(s.mark, cases[i].mark);
        ck_assert_uint_eq(s.after, cases[i].after);
    }
}
END_TEST

/* Every malformed trigger, with what its message says. */
START_TEST(test_ctrl_trigger_malformed)
{
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"boom", "trigger 'boom': not KIND@WHERE"},
        {"", "not KIND@WHERE"},
        {"halt@f", "trigger 'halt@f': unknown kind 'halt' (start, stop or freeze)"},
        {"@f", "unknown kind ''"},
        {"Start@f", "unknown kind 'Start'"},
        {"start@f+3", "trigger 'start@f+3': only a freeze takes +N"},
        {"stop@f+0", "only a freeze takes +N"},
        {"freeze@f+", "+N is not a number of events (0 to 4294967295)"},
        {"freeze@f+x", "+N is not a number"},
        {"freeze@f+-1", "+N is not a number"},
        {"freeze@f+ 1", "+N is not a number"},
        {"freeze@f+4294967296", "+N is not a number"},
        {"freeze@f+08x", "+N is not a number"},
        {"freeze@f+1+2", "+N is not a number"},
        {"start@mark:3", "trigger 'start@mark:3': only a freeze fires on a mark"},
        {"stop@mark:3", "only a freeze fires on a mark"},
        {"freeze@mark:524288", "the mark id is not a number from 0 to 524287"},
        {"freeze@mark:x", "the mark id is not a number"},
        {"freeze@mark:-1+2", "the mark id is not a number"},
        {"freeze@mark:", "'mark:' is not a function's name"},
        {"freeze@", "'' is not a function's name"},
        {"freeze@+10", "'' is not a function's name"},
        {"start@9lives", "'9lives' is not a function's name"},
        {"start@a b", "'a b' is not a function's name"},
        {"start@f,g", "'f,g' is not a function's name"},
        {"start@0xZZ", "'0xZZ' is not a function's name"},
        {"start@f@g", "'f@g' is not a function's name"},
        {"start@0xffffffffffffffffffff", "not an address from 0x1 to 0xffffffffffffffff"},
        {"freeze@0x10000000000000000+1", "not an address from 0x1"},
        {"freeze@0x0", "trigger 'freeze@0x0': not an address from 0x1"},
        {"stop@0x000", "not an address from 0x1"},
    };
    struct ctrl_spec s;
    char err[256];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = 0;
        ck_assert_msg(ctrl_parse_trigger(cases[i].text, &s, err, sizeof err) == -1, "%s",
                      cases[i].text);
        ck_assert_msg(strstr(err, cases[i].msg), "%s: %s", cases[i].text, err);
        ck_assert_ptr_null(strchr(err, '\n'));
    }
    /* a name longer than the spec holds */
    {
        char text[300] = "start@";

        memset(text + 6, 'a', 200);
        text[206] = 0;
        ck_assert_int_eq(ctrl_parse_trigger(text, &s, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "a function's name of more than 127 bytes"), "%s", err);
        text[6 + 127] = 0; /* the longest it holds */
        ck_assert_int_eq(ctrl_parse_trigger(text, &s, err, sizeof err), 0);
        ck_assert_uint_eq(strlen(s.name), 127);
    }
}
END_TEST

START_TEST(test_ctrl_trigger_lists)
{
    struct ctrl_spec s[CYG_CTRL_TRIGS];
    char err[256];

    ck_assert_int_eq(ctrl_parse_triggers("start@main,freeze@boom+10,freeze@mark:3", s,
                                         CYG_CTRL_TRIGS, err, sizeof err),
                     3);
    ck_assert_uint_eq(s[0].kind, CYG_TRIG_START);
    ck_assert_uint_eq(s[1].after, 10);
    ck_assert_uint_eq(s[2].kind, CYG_TRIG_FREEZE_MARK);
    ck_assert_int_eq(ctrl_parse_triggers("stop@f", s, CYG_CTRL_TRIGS, err, sizeof err), 1);
    ck_assert_int_eq(ctrl_parse_triggers("", s, CYG_CTRL_TRIGS, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "an empty item"), "%s", err);
    ck_assert_int_eq(ctrl_parse_triggers("stop@f,", s, CYG_CTRL_TRIGS, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "an empty item"), "%s", err);
    ck_assert_int_eq(ctrl_parse_triggers("stop@f,,start@g", s, CYG_CTRL_TRIGS, err, sizeof err),
                     -1);
    ck_assert_int_eq(ctrl_parse_triggers("stop@f,hop@g", s, CYG_CTRL_TRIGS, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "trigger 'hop@g': unknown kind"), "%s", err);
    ck_assert_int_eq(ctrl_parse_triggers("stop@a,stop@b,stop@c", s, 2, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "'stop@c': more than 2 triggers"), "%s", err);
}
END_TEST

START_TEST(test_ctrl_excludes)
{
    struct ctrl_spec s[CYG_CTRL_EXCLS];
    char err[256];

    ck_assert_int_eq(ctrl_parse_excludes("noisy,init_tables", 1, s, CYG_CTRL_EXCLS, err,
                                         sizeof err),
                     2);
    ck_assert_int_eq(s[0].type, CTRL_SPEC_EXCL);
    ck_assert_str_eq(s[0].name, "noisy");
    ck_assert_str_eq(s[1].name, "init_tables");
    ck_assert_int_eq(s[1].hide, 1);
    ck_assert_int_eq(ctrl_parse_excludes("noisy", 0, s, CYG_CTRL_EXCLS, err, sizeof err), 1);
    ck_assert_int_eq(s[0].hide, 0);
    ck_assert_int_eq(ctrl_parse_excludes("noisy,3d", 0, s, CYG_CTRL_EXCLS, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "'3d' is not a function's name"), "%s", err);
    ck_assert_int_eq(ctrl_parse_excludes("a,,b", 0, s, CYG_CTRL_EXCLS, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "an empty item"), "%s", err);
    ck_assert_int_eq(ctrl_parse_excludes("a,b,c", 0, s, 2, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "'c': more than 2 excluded functions"), "%s", err);
}
END_TEST

START_TEST(test_ctrl_events)
{
    static const struct {
        const char *text;
        uint32_t mask;
    } good[] = {
        {"all", UINT32_MAX}, {"none", 0},        {"0x0000000f", 0xf},     {"0XFF", 0xff},
        {"0", 1},            {"31", 0x80000000u}, {"0,3-5", 0x39},        {"1-1", 2},
        {"0-31", UINT32_MAX}, {"2,2", 4},         {"0xffffffff", UINT32_MAX},
    };
    static const char *const bad[] = {"",    "32",   "5-3", "0x1ffffffff", "abc", "1,",
                                      "-1",  "1-",   "0x",  "3 ",          "1;2", "0,32-33",
                                      "All", "0xfg"};
    char err[256];
    uint32_t m;

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        m = 0x12345678;
        ck_assert_msg(ctrl_parse_events(good[i].text, &m, err, sizeof err) == 0, "%s",
                      good[i].text);
        ck_assert_msg(m == good[i].mask, "%s: 0x%x", good[i].text, m);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        ck_assert_msg(ctrl_parse_events(bad[i], &m, err, sizeof err) == -1, "%s", bad[i]);
        ck_assert_msg(strstr(err, "events '") && strstr(err, bad[i]), "%s: %s", bad[i], err);
    }
}
END_TEST

/* Adding resolved items, to the area's room. */
START_TEST(test_ctrl_add)
{
    struct ctrl c;
    struct ctrl_spec s;
    char err[256];

    ctrl_init(&c);
    ck_assert_int_eq(ctrl_parse_trigger("freeze@mark:9+4", &s, err, sizeof err), 0);
    ck_assert_int_eq(ctrl_add(&c, &s, 0xdead, err, sizeof err), 0);
    ck_assert_uint_eq(c.trig[0].kind, CYG_TRIG_FREEZE_MARK);
    ck_assert_uint_eq(c.trig[0].what, 9); /* the mark's id, not the address given */
    ck_assert_uint_eq(c.trig[0].after, 4);
    ck_assert_int_eq(ctrl_parse_trigger("start@main", &s, err, sizeof err), 0);
    for (unsigned i = 1; i < CYG_CTRL_TRIGS; i++)
        ck_assert_int_eq(ctrl_add(&c, &s, 0x1000 + i, err, sizeof err), 0);
    ck_assert_uint_eq(c.trig[1].what, 0x1001);
    ck_assert_int_eq(ctrl_add(&c, &s, 0x2000, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "more than 6 triggers"), "%s", err);
    ck_assert_uint_eq(c.ntrig, CYG_CTRL_TRIGS);

    ck_assert_int_eq(ctrl_parse_excludes("a", 0, &s, 1, err, sizeof err), 1);
    ck_assert_int_eq(ctrl_add(&c, &s, 0x3000, err, sizeof err), 0);
    s.hide = 1;
    ck_assert_int_eq(ctrl_add(&c, &s, 0x3100, err, sizeof err), 0);
    ck_assert_uint_eq(c.hide, 2);
    for (unsigned i = 2; i < CYG_CTRL_EXCLS; i++)
        ck_assert_int_eq(ctrl_add(&c, &s, 0x3000 + i, err, sizeof err), 0);
    ck_assert_int_eq(ctrl_add(&c, &s, 0x4000, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "more than 12 excluded functions"), "%s", err);
}
END_TEST

/* Names for the description: the sample's functions. */
static const char *names(void *arg, uint64_t addr)
{
    (void)arg;
    switch (addr - UINT64_C(0x555555554000)) {
    case 0x1139: return "main";
    case 0x1200: return "f";
    case 0x1300: return "boom";
    case 0x1400: return "noisy";
    case 0x1500: return "init_tables";
    default: return NULL;
    }
}

/* ctrl_describe's output, in a string. */
static char *describe(const struct ctrl *c, ctrl_name_fn fn, unsigned *lines)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(f);
    *lines = ctrl_describe(c, fn, NULL, "# control: ", f);
    fclose(f);
    return text;
}

START_TEST(test_ctrl_describe)
{
    struct ctrl c;
    unsigned n;
    char *text, buf[128];

    sample(&c);
    c.trig[2].fired = CYG_TRIGF_FIRED;
    c.fired = 3;
    c.nfired = 1;
    c.fired_head = 1234;
    text = describe(&c, names, &n);
    ck_assert_str_eq(text, "# control: trigger start@main\n"
                           "# control: trigger stop@f\n"
                           "# control: trigger freeze@boom+10 (fired)\n"
                           "# control: trigger freeze@mark:7+100\n"
                           "# control: exclude noisy\n"
                           "# control: hide init_tables (and its callees)\n"
                           "# control: depth 3\n"
                           "# control: events 0x0000000f (classes of marks recorded)\n"
                           "# control: fired freeze@boom+10 at event 1234 (1 trigger fired)\n"
                           "# control: not yet applied by the target (request 7, applied 0)\n");
    ck_assert_uint_eq(n, 10);
    free(text);

    /* without names: addresses; once applied, no such line */
    c.applied = c.gen;
    c.nfired = 2;
    text = describe(&c, NULL, &n);
    ck_assert_msg(strstr(text, "# control: trigger start@0x55555555513") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "# control: exclude 0x555555555400\n") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "(2 triggers fired)") != NULL, "%s", text);
    ck_assert_ptr_null(strstr(text, "not yet applied"));
    ck_assert_uint_eq(n, 9);
    free(text);

    ck_assert_str_eq(ctrl_trig_text(&c, 2, names, NULL, buf, sizeof buf), "freeze@boom+10");
    ck_assert_str_eq(ctrl_trig_text(&c, 3, names, NULL, buf, sizeof buf), "freeze@mark:7+100");
    ck_assert_str_eq(ctrl_trig_text(&c, 1, NULL, NULL, buf, sizeof buf), "stop@0x555555555200");
}
END_TEST

Suite *ctrl_suite(void)
{
    Suite *s = suite_create("ctrl");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_ctrl_init_is_nothing_armed);
    tcase_add_test(tc, test_ctrl_store_parse_round_trip_64);
    tcase_add_test(tc, test_ctrl_store_parse_round_trip_32);
    tcase_add_test(tc, test_ctrl_store_clears_old_items);
    tcase_add_test(tc, test_ctrl_parse_refuses);
    tcase_add_test(tc, test_ctrl_trigger_forms);
    tcase_add_test(tc, test_ctrl_trigger_malformed);
    tcase_add_test(tc, test_ctrl_trigger_lists);
    tcase_add_test(tc, test_ctrl_excludes);
    tcase_add_test(tc, test_ctrl_events);
    tcase_add_test(tc, test_ctrl_add);
    tcase_add_test(tc, test_ctrl_describe);
    suite_add_tcase(s, tc);
    return s;
}
