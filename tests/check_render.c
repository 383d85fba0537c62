/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_render.c - the text styles, driven through the tree builder with hand-written events.
 * Without an ELF, functions print as their addresses (0xa, 0xb, ...). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "output/fmt.h"
#include "output/render.h"
#include "suites.h"

/* Runs "+A -A +B ..." (with "+B/A": called from 0xA5, "f" a fault at 0xB2 from 0xA7, "m" mark
 * 7 = 0x2a, "k" the same of class 3, "t" trigger 2 (a freeze) fired at 0xB, "T" trigger 1 (a
 * freeze at a mark) fired at a mark of value 0x2a, and "vN=D" value D, a digit, of argument N,
 * a digit or r for the return value, of the innermost open call, "s" a setjmp and "j" a longjmp
 * of one buffer, "H" a hole in the context's chunk) through a renderer; each event
 * is 1000 ticks of a 1 GHz clock after the previous one. */
static char *render_script(const char *script, struct render_opts o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct render *r = render_new(f, &o, NULL, 0);
    struct tree *t = tree_new(render_sink(r), 0, NULL, NULL);
    uint64_t time = 0, open[16];
    unsigned n = 0;

    render_header(r);
    for (const char *p = script; *p; p++) {
        struct ev e = {0};

        if (*p == ' ')
            continue;
        if (*p == 'v') {
            unsigned idx = p[1] == 'r' ? CYG_VAL_RET : (unsigned)(p[1] - '0');

            e = (struct ev){.kind = EV_VALUE, .time = time, .addr = (uint64_t)(p[3] - '0'),
                            .data = idx | CYG_VAL_LAST | 8u << CYG_VAL_LEN_SHIFT |
                                    cyg_val_check(n ? open[n - 1] : 0) << CYG_VAL_CHECK_SHIFT};
            tree_feed(t, &e);
            p += 3;
            continue;
        }
        e.time = time += 1000;
        if (*p == 'm' || *p == 'k' || *p == 't' || *p == 'T') {
            e.kind = *p == 'm' || *p == 'k' ? EV_MARK : EV_TRIGGER;
            e.addr = *p == 't' ? 0xb : 0x2a;
            e.data = *p == 't'   ? 2 | CYG_TRIG_FREEZE << CYG_TRIGD_KIND_SHIFT
                     : *p == 'T' ? 1 | CYG_TRIG_FREEZE_MARK << CYG_TRIGD_KIND_SHIFT
                                 : 7;
            e.cls = *p == 'k' ? 3 : 0;
            tree_feed(t, &e);
            continue;
        }
        if (*p == 'H') {
            e.kind = EV_HOLE;
            tree_feed(t, &e);
            continue;
        }
        if (*p == 's' || *p == 'j') { /* a setjmp, a longjmp, of buffer 0x7ff0 */
            e.kind = *p == 's' ? EV_SETJMP : EV_LONGJMP, e.addr = 0x7ff0;
            tree_feed(t, &e);
            continue;
        }
        if (*p == 'f') {
            e.kind = EV_FAULT, e.data = CYG_FAULT_HARD, e.addr = 0xb2;
            tree_feed(t, &e);
            e.kind = EV_FAULT_LR, e.addr = 0xa7;
            tree_feed(t, &e);
            continue;
        }
        e.kind = *p == '+' ? EV_ENTER : EV_EXIT;
        e.addr = (uint64_t)(*++p - 'A' + 10);
        if (e.kind == EV_ENTER && n < 16)
            open[n++] = e.addr;
        else if (e.kind == EV_EXIT && n)
            n--;
        if (p[1] == '/') {
            e.site = (uint64_t)(p[2] - 'A' + 10) << 4 | 5;
            p += 2;
        }
        tree_feed(t, &e);
    }
    tree_finish(t);
    tree_free(t);
    render_free(r);
    fclose(f);
    return text;
}

static struct render_opts style(enum render_style s)
{
    return (struct render_opts){.style = s, .collapse = 1, .ts_hz = 1000000000u,
                                .has_time = 1, .addr_width = 8};
}

#define CHECK_RENDER(script, opts, expected)                                                       \
    do {                                                                                           \
        char *got = render_script(script, opts);                                                   \
        ck_assert_str_eq(got, expected);                                                           \
        free(got);                                                                                 \
    } while (0)

START_TEST(test_render_etrace_collapses_repeats)
{
    CHECK_RENDER("+A +B -B +B -B +B -B +C +D -D -C +B -B -A", style(RENDER_ETRACE),
                 "0xa\n"
                 "|   0xb\n"
                 "|   0xb (total: 3 times)\n"
                 "|   0xc\n"
                 "|   |   0xd\n"
                 "|   0xb\n");
}
END_TEST

START_TEST(test_render_etrace_no_collapse)
{
    struct render_opts o = style(RENDER_ETRACE);

    o.collapse = 0;
    CHECK_RENDER("+A +B -B +B -B -A", o, "0xa\n|   0xb\n|   0xb\n");
}
END_TEST

/* Repeated calls that have callees of their own are not folded (their lines differ). */
START_TEST(test_render_etrace_repeated_callers_not_folded)
{
    CHECK_RENDER("+A +B +C -C -B +B +C -C -B -A", style(RENDER_ETRACE),
                 "0xa\n|   0xb\n|   |   0xc\n|   0xb\n|   |   0xc\n");
}
END_TEST

/* Cortex-M: a handler that the ELF's vector table names says what it handles. The ARM
 * fixture (tests/fixtures/symsrc.c) puts sym_static_fn in SysTick's slot (exception 15) and
 * sym_global_fn in IRQ 1's; main is in no slot. */
START_TEST(test_render_marks_handlers)
{
    const char *dir = getenv("CYGTRACE_BUILD");
    char path[512], err[256], *text = NULL;
    const char *names[] = {"main", "sym_global_fn", "sym_static_fn"};
    uint64_t a[3], size;
    size_t len = 0;
    struct sym_table *sym;
    struct render_opts o = style(RENDER_TREE);
    FILE *f;
    struct render *r;
    struct tree *t;

    snprintf(path, sizeof path, "%s/tests/fixtures/sym_arm", dir && *dir ? dir : "build");
    if (!(sym = sym_open(path, err, sizeof err)))
        return; /* no arm-none-eabi-gcc: check_sym says so */
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(sym_find(sym, names[k], &a[k], &size), 0);
    f = open_memstream(&text, &len);
    r = render_new(f, &o, sym, 0);
    t = tree_new(render_sink(r), 0, NULL, NULL);
    render_header(r);
    for (int k = 0; k < 6; k++) {
        struct ev e = {.kind = k < 3 ? EV_ENTER : EV_EXIT, .addr = a[k < 3 ? k : 5 - k] & ~1u,
                       .time = 1000u * (unsigned)(k + 1)};

        tree_feed(t, &e);
    }
    tree_finish(t);
    tree_free(t);
    render_free(r);
    fclose(f);
    ck_assert_str_eq(text, "    DURATION  FUNCTION\n"
                           "              main() {\n"
                           "                sym_global_fn() [interrupt 1] {\n"
                           "    1.000 us      sym_static_fn() [exception 15];\n"
                           "    3.000 us    } /* sym_global_fn */\n"
                           "    5.000 us  } /* main */\n");
    free(text);
    sym_close(sym);
}
END_TEST

/* The fault line names a caller only when LR is one: in the ARM fixture, LR inside the
 * faulting function itself (where its call of the entry hook returned) or EXC_RETURN (a
 * handler that made no call) names none; LR in another function does. Without symbols, LR is
 * shown as it is, but EXC_RETURN. */
START_TEST(test_render_fault_caller)
{
    const char *dir = getenv("CYGTRACE_BUILD");
    char path[512], err[256], buf[600];
    uint64_t fn, fn_size, caller, size;
    struct sym_table *sym;
    struct ev fault = {.kind = EV_FAULT, .data = CYG_FAULT_HARD}, lr = {.kind = EV_FAULT_LR};

    fault.addr = 0xb04;
    lr.addr = 0xa09;
    fmt_fault(NULL, 0, 8, &fault, &lr, buf, sizeof buf);
    ck_assert_str_eq(buf, "*** HardFault at 0xb04, called from 0xa08");
    lr.addr = 0xfffffff9;
    fmt_fault(NULL, 0, 8, &fault, &lr, buf, sizeof buf);
    ck_assert_str_eq(buf, "*** HardFault at 0xb04");

    snprintf(path, sizeof path, "%s/tests/fixtures/sym_arm", dir && *dir ? dir : "build");
    if (!(sym = sym_open(path, err, sizeof err)))
        return; /* no arm-none-eabi-gcc: check_sym says so */
    ck_assert_int_eq(sym_find(sym, "sym_global_fn", &fn, &fn_size), 0);
    ck_assert_int_eq(sym_find(sym, "main", &caller, &size), 0);
    fn &= ~(uint64_t)1;
    caller &= ~(uint64_t)1;
    ck_assert_uint_ge(fn_size, 8);
    fault.addr = fn + 6;
    lr.addr = (fn + 4) | 1; /* the hook's return, in the faulting function */
    fmt_fault(sym, 0, 8, &fault, &lr, buf, sizeof buf);
    ck_assert_str_eq(buf, "*** HardFault at sym_global_fn+0x6");
    lr.addr = 0xfffffffd; /* EXC_RETURN: thread mode, PSP */
    fmt_fault(sym, 0, 8, &fault, &lr, buf, sizeof buf);
    ck_assert_str_eq(buf, "*** HardFault at sym_global_fn+0x6");
    lr.addr = (caller + 4) | 1; /* a function that made no call: its caller's return address */
    fmt_fault(sym, 0, 8, &fault, &lr, buf, sizeof buf);
    ck_assert_str_eq(buf, "*** HardFault at sym_global_fn+0x6, called from main+0x4");
    sym_close(sym);
}
END_TEST

START_TEST(test_render_tree_durations)
{
    CHECK_RENDER("+A +B -B +B -B +C +D -D -C -A", style(RENDER_TREE),
                 "    DURATION  FUNCTION\n"
                 "              0xa() {\n"
                 "    2.000 us    0xb(); x2\n"
                 "                0xc() {\n"
                 "    1.000 us      0xd();\n"
                 "    3.000 us    } /* 0xc */\n"
                 "    9.000 us  } /* 0xa */\n");
}
END_TEST

/* Wrapped calls: arguments on the call's line, the return value after them or on the closing
 * line; never folded (their values differ); --no-args hides them. */
START_TEST(test_render_tree_values)
{
    struct render_opts o = style(RENDER_TREE);

    CHECK_RENDER("+A +B v0=2 v1=3 vr=5 -B +B v0=2 v1=3 vr=5 -B +C v0=1 +D -D vr=4 -C -A", o,
                 "    DURATION  FUNCTION\n"
                 "              0xa() {\n"
                 "    1.000 us    0xb(2, 3) = 5;\n"
                 "    1.000 us    0xb(2, 3) = 5;\n"
                 "                0xc(1) {\n"
                 "    1.000 us      0xd();\n"
                 "    3.000 us    } = 4; /* 0xc */\n"
                 "    9.000 us  } /* 0xa */\n");
    o.show = RENDER_NO_ARGS;
    CHECK_RENDER("+A +B v0=2 v1=3 vr=5 -B +B v0=2 v1=3 vr=5 -B -A", o,
                 "    DURATION  FUNCTION\n"
                 "              0xa() {\n"
                 "    2.000 us    0xb(); x2\n"
                 "    5.000 us  } /* 0xa */\n");
}
END_TEST

START_TEST(test_render_tree_without_time)
{
    struct render_opts o = style(RENDER_TREE);

    o.has_time = 0;
    CHECK_RENDER("+A +B -B -A", o, "0xa() {\n  0xb();\n} /* 0xa */\n");
}
END_TEST

/* Below the depth limit a caller is shown as a leaf, with its whole time. */
START_TEST(test_render_tree_depth_limit)
{
    struct render_opts o = style(RENDER_TREE);

    o.max_depth = 2;
    CHECK_RENDER("+A +B +C -C -B +D -D -A", o,
                 "    DURATION  FUNCTION\n"
                 "              0xa() {\n"
                 "    3.000 us    0xb();\n"
                 "    1.000 us    0xd();\n"
                 "    7.000 us  } /* 0xa */\n");
}
END_TEST

START_TEST(test_render_tree_open_frames_and_abandoned)
{
    struct render_opts o = style(RENDER_TREE);

    o.has_time = 0;
    CHECK_RENDER("+A +B +C +D -B +E", o,
                 "0xa() {\n"
                 "  0xb() {\n"
                 "    0xc() {\n"
                 "      0xd();  (never returned: longjmp or unwound)\n"
                 "    } /* 0xc */  (never returned: longjmp or unwound)\n"
                 "  } /* 0xb */\n"
                 "  0xe() {\n"
                 "# call stack at the end of the trace (innermost first):\n"
                 "#   0   0xe\n"
                 "#   1   0xa\n");
}
END_TEST

/* A longjmp out of three calls to A's setjmp: they never returned, for that reason, and the
 * call after it is A's. A longjmp whose setjmp the trace does not hold says so. */
START_TEST(test_render_tree_longjmp)
{
    struct render_opts o = style(RENDER_TREE);

    o.has_time = 0;
    CHECK_RENDER("+A s +B +C +D j +E -E -A +F j", o,
                 "0xa() {\n"
                 "  0xb() {\n"
                 "    0xc() {\n"
                 "      0xd();  (never returned: longjmp)\n"
                 "    } /* 0xc */  (never returned: longjmp)\n"
                 "  } /* 0xb */  (never returned: longjmp)\n"
                 "  0xe();\n"
                 "} /* 0xa */\n"
                 "0xf() {\n"
                 "  # longjmp to a setjmp before the trace: the calls it skipped stay open\n"
                 "# call stack at the end of the trace (innermost first):\n"
                 "#   0   0xf\n");
}
END_TEST

/* A hole in the context's chunk: a call open then, which closes without its exit, may have lost
 * the exit there; it is not said to be unwound. */
START_TEST(test_render_tree_exit_in_hole)
{
    struct render_opts o = style(RENDER_TREE);

    o.has_time = 0;
    CHECK_RENDER("+A +B +C H -B +D +E -A", o,
                 "0xa() {\n"
                 "  0xb() {\n"
                 "    0xc();  (exit lost in a hole)\n"
                 "  } /* 0xb */\n"
                 "  0xd() {\n"
                 "    0xe();  (never returned: longjmp or unwound)\n"
                 "  } /* 0xd */  (never returned: longjmp or unwound)\n"
                 "} /* 0xa */\n");
}
END_TEST

/* Marks (with their class when it is not 0) and triggers, where they happened; a trigger is
 * named from the ring's control area when that still holds it as the record says. */
START_TEST(test_render_marks_and_triggers)
{
    struct render_opts o = style(RENDER_TREE);
    struct ctrl c;

    o.has_time = 0;
    CHECK_RENDER("+A m +B k t -B T -A", o,
                 "0xa() {\n"
                 "  # mark 7 = 0x2a\n"
                 "  0xb() {\n"
                 "    # mark 7 class 3 = 0x2a\n"
                 "    # trigger 2 (freeze) fired at 0xb\n"
                 "  } /* 0xb */\n"
                 "  # trigger 1 (freeze at a mark) fired: mark value 0x2a\n"
                 "} /* 0xa */\n");
    ctrl_init(&c);
    c.ntrig = 3;
    c.trig[0] = (struct ctrl_trig){CYG_TRIG_START, 0xa, 0, 0};
    c.trig[1] = (struct ctrl_trig){CYG_TRIG_FREEZE_MARK, 7, 100, 0};
    c.trig[2] = (struct ctrl_trig){CYG_TRIG_FREEZE, 0xb, 10, CYG_TRIGF_FIRED};
    o.ctrl = &c;
    CHECK_RENDER("+A +B t -B T -A", o,
                 "0xa() {\n"
                 "  0xb() {\n"
                 "    # trigger freeze@0xb+10 fired\n"
                 "  } /* 0xb */\n"
                 "  # trigger freeze@mark:7+100 fired (mark value 0x2a)\n"
                 "} /* 0xa */\n");
    /* an area that holds other triggers now: the record's own words */
    c.trig[2].what = 0xc;
    c.trig[1].kind = CYG_TRIG_STOP;
    CHECK_RENDER("+A t T -A", o,
                 "0xa() {\n"
                 "  # trigger 2 (freeze) fired at 0xb\n"
                 "  # trigger 1 (freeze at a mark) fired: mark value 0x2a\n"
                 "} /* 0xa */\n");
    /* the other styles keep their exact format */
    CHECK_RENDER("+A m t -A", style(RENDER_ETRACE), "0xa\n");
}
END_TEST

START_TEST(test_render_fault_line)
{
    struct render_opts o = style(RENDER_TREE);

    o.has_time = 0;
    CHECK_RENDER("+A +B f", o,
                 "0xa() {\n"
                 "  0xb() {\n"
                 "*** HardFault at 0xb2, called from 0xa6\n"
                 "# call stack at the end of the trace (innermost first):\n"
                 "#   0   0xb\n"
                 "#   1   0xa\n");
}
END_TEST

/* The Poor Man's Trace lines: call site and function, then names (??? without symbols). */
START_TEST(test_render_braces)
{
    CHECK_RENDER("+A/A +B/A -B/A -A/A", style(RENDER_BRACES),
                 "{ 000000A5->0000000A ?\?\?->0xa\n"
                 " { 000000A5->0000000B ?\?\?->0xb\n"
                 " } 000000A5<-0000000B ?\?\?<-0xb\n"
                 "} 000000A5<-0000000A ?\?\?<-0xa\n");
}
END_TEST

START_TEST(test_render_duration_units)
{
    char b[32];

    fmt_duration(1234, 1000000000u, b, sizeof b);
    ck_assert_str_eq(b, "1.234 us");
    fmt_duration(2500000, 1000000000u, b, sizeof b);
    ck_assert_str_eq(b, "2.500 ms");
    fmt_duration(3000000000u, 1000000000u, b, sizeof b);
    ck_assert_str_eq(b, "3.000 s");
    fmt_duration(77, 0, b, sizeof b);
    ck_assert_str_eq(b, "77 ticks");
    fmt_duration(48, 48000000u, b, sizeof b); /* a 48 MHz Cortex-M cycle counter */
    ck_assert_str_eq(b, "1.000 us");
}
END_TEST

/* What the scheduler's records say (FORMAT.md 7.5), with and without names. */
START_TEST(test_render_sched_texts)
{
    struct names *n = names_new();
    char buf[256];
    static const struct {
        unsigned data;
        uint64_t a;
        const char *want;
    } v[] = {
        {CYG_SCHED_BLOCK | CYG_OBJ_QUEUE << 4, 0x20001000, "blocked on queue \"jobs\" (receive)"},
        {CYG_SCHED_BLOCK | CYG_OBJ_QUEUE << 4 | CYG_OP_SEND << 8, 0x20001000,
         "blocked on queue \"jobs\" (send)"},
        {CYG_SCHED_BLOCK | CYG_OBJ_STREAM << 4 | CYG_OP_PEEK << 8, 0x20001100,
         "blocked on stream buffer 0x20001100 (peek)"},
        {CYG_SCHED_BLOCK | CYG_OBJ_SEMAPHORE << 4, 0x20001234, "blocked on semaphore 0x20001234 (take)"},
        {CYG_SCHED_BLOCK | CYG_OBJ_MUTEX << 4, 0x20002000, "blocked on mutex \"lock\" (take)"},
        {CYG_SCHED_BLOCK | CYG_OBJ_EVENTS << 4, 0x20003000, "blocked on event group 0x20003000"},
        {CYG_SCHED_BLOCK | CYG_OBJ_NONE << 4, 0x20001000, "blocked on queue \"jobs\" (receive)"},
        {CYG_SCHED_BLOCK | CYG_OBJ_DELAY << 4, 10, "delay 10 ticks"},
        {CYG_SCHED_BLOCK | CYG_OBJ_DELAY << 4, 1, "delay 1 tick"},
        {CYG_SCHED_BLOCK | CYG_OBJ_DELAY << 4, 0, "delay"},
        {CYG_SCHED_BLOCK | CYG_OBJ_NOTIFY << 4, 0, "blocked on a notification"},
        {CYG_SCHED_BLOCK | CYG_OBJ_SUSPEND << 4, 0, "suspended"},
        {CYG_SCHED_WAKE | 3u << 4, 0x20004000, "wakes consumer"},
        {CYG_SCHED_WAKE | 5u << 4, 0x20005000, "wakes context 5"},
        {CYG_SCHED_RESUME | 3u << 4, 0x20004000, "woken by consumer"},
        {CYG_SCHED_RESUME | 524303u << 4, 0, "woken by context 524303"},
        {9, 0, "scheduler record of unknown kind 9"},
    };

    ck_assert_int_eq(names_set_ctx(n, 3, "consumer"), 0);
    ck_assert_int_eq(names_set_obj(n, 0x20001000, CYG_OBJ_QUEUE, "jobs"), 0);
    ck_assert_int_eq(names_set_obj(n, 0x20002000, CYG_OBJ_NONE, "lock"), 0);
    for (unsigned i = 0; i < sizeof v / sizeof *v; i++) {
        struct ev e = {.kind = EV_SCHED, .data = v[i].data, .addr = v[i].a};

        fmt_sched(n, NULL, 0, &e, buf, sizeof buf);
        ck_assert_str_eq(buf, v[i].want);
    }
    {
        struct ev e = {.kind = EV_SCHED, .data = CYG_SCHED_WAKE | 3u << 4};

        fmt_sched(NULL, NULL, 0, &e, buf, sizeof buf);
        ck_assert_str_eq(buf, "wakes context 3");
    }
    ck_assert_ptr_null(names_ctx_called(n, NULL, 0, 4, 0x1000, buf, sizeof buf));
    ck_assert_str_eq(names_ctx_called(n, NULL, 0, 3, 0, buf, sizeof buf), "consumer");
    names_free(n);
}
END_TEST

/* A SCHED line in the tree, at the depth where it happened; a switch to the tree's own context
 * is no line: the context resumes where it was. */
START_TEST(test_render_sched_lines)
{
    struct render_opts o = style(RENDER_TREE);
    struct names *n = names_new();
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct render *r;
    struct tree *t;

    names_set_ctx(n, 3, "consumer");
    names_set_obj(n, 0x20001000, CYG_OBJ_QUEUE, "jobs");
    o.names = n;
    r = render_new(f, &o, NULL, 0);
    t = tree_new(render_sink(r), 0, NULL, NULL);
    tree_feed(t, &(struct ev){.kind = EV_ENTER, .addr = 0x10});
    tree_feed(t, &(struct ev){.kind = EV_ENTER, .addr = 0x20});
    tree_feed(t, &(struct ev){.kind = EV_SCHED, .data = CYG_SCHED_BLOCK | CYG_OBJ_QUEUE << 4,
                              .addr = 0x20001000});
    tree_feed(t, &(struct ev){.kind = EV_CONTEXT, .data = 3, .addr = 0x20004000});
    tree_feed(t, &(struct ev){.kind = EV_EXIT, .addr = 0x20});
    tree_feed(t, &(struct ev){.kind = EV_EXIT, .addr = 0x10});
    tree_finish(t);
    tree_free(t);
    render_free(r);
    fclose(f);
    ck_assert_str_eq(text, "              0x10() {\n"
                           "                0x20() {\n"
                           "                  -- blocked on queue \"jobs\" (receive)\n"
                           "                } /* 0x20 */\n"
                           "              } /* 0x10 */\n");
    free(text);
    names_free(n);
}
END_TEST

Suite *render_suite(void)
{
    Suite *s = suite_create("render");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_render_etrace_collapses_repeats);
    tcase_add_test(tc, test_render_etrace_no_collapse);
    tcase_add_test(tc, test_render_etrace_repeated_callers_not_folded);
    tcase_add_test(tc, test_render_tree_durations);
    tcase_add_test(tc, test_render_tree_values);
    tcase_add_test(tc, test_render_marks_handlers);
    tcase_add_test(tc, test_render_fault_caller);
    tcase_add_test(tc, test_render_marks_and_triggers);
    tcase_add_test(tc, test_render_tree_without_time);
    tcase_add_test(tc, test_render_tree_depth_limit);
    tcase_add_test(tc, test_render_tree_open_frames_and_abandoned);
    tcase_add_test(tc, test_render_tree_longjmp);
    tcase_add_test(tc, test_render_tree_exit_in_hole);
    tcase_add_test(tc, test_render_fault_line);
    tcase_add_test(tc, test_render_braces);
    tcase_add_test(tc, test_render_duration_units);
    tcase_add_test(tc, test_render_sched_texts);
    tcase_add_test(tc, test_render_sched_lines);
    suite_add_tcase(s, tc);
    return s;
}
