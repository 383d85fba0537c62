/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_control.c - the control area (triggers, record-time filters, classes of marks) as the
 * real Linux runtime applies it, read back by the real decoder. Each test writes a request
 * through the API (as a program does) or straight into the area's bytes (as `cygtrace arm`
 * does through a debugger), runs made-up calls through the hooks, and compares what the ring
 * holds, event by event, with what the request lets through. */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "decode/ctrl.h"
#include "cyg_format.h"
#include "cygtrace.h"
#include "cygtrace_config.h"
#include "cygtrace_internal.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "suites.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#define RECS 256u
#define REC 16u
#define BYTES (CYGTRACE_RING_OVERHEAD + RECS * REC)

static uint8_t ring[BYTES] __attribute__((aligned(64)));

/* The functions of the made-up program. */
enum { MAIN = 0x401000, A = 0x401100, B = 0x401200, C = 0x401300, D = 0x401400 };

static void in(uintptr_t fn)
{
    __cyg_profile_func_enter((void *)fn, NULL);
}

static void out(uintptr_t fn)
{
    __cyg_profile_func_exit((void *)fn, NULL);
}

static struct cyg_ctrl *area(void)
{
    return (struct cyg_ctrl *)(void *)(ring + CYG_HDR_BYTES + RECS * REC);
}

static void setup(void)
{
    ck_assert_int_eq(cygtrace_init(ring, BYTES, CYG_F_OVERWRITE), RECS);
}

/* A short name for a made-up function. */
static char fn_letter(uint64_t a)
{
    switch (a) {
    case MAIN: return 'm';
    case A: return 'a';
    case B: return 'b';
    case C: return 'c';
    case D: return 'd';
    }
    return '?';
}

/* The ring's events as text: ">a" an entry, "<a" an exit, "T0" trigger 0 fired, "M5" mark 5
 * ("M5/3" of class 3), "S" start, "P" stop; thread records left out. Also the decoded block. */
static const char *events(struct dec_ring *r)
{
    static char text[4096];
    struct src *src = src_open_mem("ring", ring, BYTES, 0);
    char why[256] = "";
    struct dec *d;
    struct ev e;
    size_t n = 0;

    text[0] = 0;
    ck_assert_int_eq(hdr_locate(src, r, why, sizeof why), 0);
    d = dec_open(src, r);
    while (dec_next(d, &e) > 0 && n < sizeof text - 16) {
        switch (e.kind) {
        case EV_ENTER:
            n += (size_t)snprintf(text + n, sizeof text - n, ">%c ", fn_letter(e.addr));
            break;
        case EV_EXIT:
            n += (size_t)snprintf(text + n, sizeof text - n, "<%c ", fn_letter(e.addr));
            break;
        case EV_TRIGGER:
            n += (size_t)snprintf(text + n, sizeof text - n, "T%u ",
                                  (unsigned)(e.data & CYG_TRIGD_IDX_MASK));
            break;
        case EV_MARK:
            if (e.cls)
                n += (size_t)snprintf(text + n, sizeof text - n, "M%u/%u ", (unsigned)e.data,
                                      (unsigned)e.cls);
            else
                n += (size_t)snprintf(text + n, sizeof text - n, "M%u ", (unsigned)e.data);
            break;
        case EV_START:
            n += (size_t)snprintf(text + n, sizeof text - n, "S ");
            break;
        case EV_STOP:
            n += (size_t)snprintf(text + n, sizeof text - n, "P ");
            break;
        case EV_VALUE:
            n += (size_t)snprintf(text + n, sizeof text - n, "V ");
            break;
        default:
            break;
        }
    }
    dec_close(d);
    src_close(src);
    if (n)
        text[n - 1] = 0;
    return text;
}

/* main calls a, which calls b and c; b calls d. Then main calls c. */
static void program(void)
{
    in(MAIN);
    in(A);
    in(B);
    in(D);
    out(D);
    out(B);
    in(C);
    out(C);
    out(A);
    in(C);
    out(C);
    out(MAIN);
}

START_TEST(test_control_nothing_armed)
{
    struct dec_ring r;

    setup();
    program();
    ck_assert_str_eq(events(&r), "S >m >a >b >d <d <b >c <c <a >c <c <m");
    ck_assert_uint_ne(cyg_rt.last, 0); /* the fast path */
    ck_assert_uint_eq(area()->magic, CYG_CTRL_MAGIC);
}
END_TEST

START_TEST(test_control_freeze_window)
{
    struct dec_ring r;

    setup();
    ck_assert_int_eq(cygtrace_trigger_freeze((void *)B, 3), 0);
    program();
    /* the trigger, b's entry, and three events after it */
    ck_assert_str_eq(events(&r), "S >m >a T0 >b >d <d <b");
    ck_assert_uint_eq(r.state, CYG_S_FROZEN);
    ck_assert_uint_eq(area()->fired, 1);
    ck_assert_uint_eq(area()->nfired, 1);
    ck_assert_uint_eq(area()->trig[0].flags, CYG_TRIGF_FIRED);
    ck_assert_uint_eq(area()->applied, area()->gen);
}
END_TEST

START_TEST(test_control_freeze_at_once)
{
    struct dec_ring r;

    setup();
    ck_assert_int_eq(cygtrace_trigger_freeze((void *)A, 0), 0);
    program();
    ck_assert_str_eq(events(&r), "S >m T0 >a");
    ck_assert_uint_eq(r.state, CYG_S_FROZEN);
}
END_TEST

/* A Thumb function's address (bit 0 set) matches the hooks' address either way. */
START_TEST(test_control_thumb_bit)
{
    struct dec_ring r;

    setup();
    ck_assert_int_eq(cygtrace_trigger_freeze((void *)(C | 1), 0), 0);
    program();
    ck_assert_str_eq(events(&r), "S >m >a >b >d <d <b T0 >c");
}
END_TEST

START_TEST(test_control_start_stop)
{
    struct dec_ring r;

    setup();
    ck_assert_int_eq(cygtrace_trigger_start((void *)B), 0);
    ck_assert_int_eq(cygtrace_trigger_stop((void *)B), 1);
    program();
    program();
    /* b's calls only, each time; the exits of the calls b was inside are not there */
    ck_assert_str_eq(events(&r), "S T0 >b >d <d <b T1 T0 >b >d <d <b T1");
    ck_assert_uint_eq(r.state, CYG_S_RUNNING);
    ck_assert_uint_eq(area()->gate, 0);
    ck_assert_uint_eq(area()->nfired, 4);
}
END_TEST

/* A request made while a start trigger holds the gate open leaves it open. */
START_TEST(test_control_gate_kept)
{
    struct dec_ring r;

    setup();
    cygtrace_trigger_start((void *)A);
    in(MAIN);
    in(A);
    cygtrace_exclude((void *)D, 0);
    in(B);
    in(D);
    out(D);
    out(B);
    out(A);
    ck_assert_str_eq(events(&r), "S T0 >a >b <b <a");
}
END_TEST

START_TEST(test_control_exclude_and_hide)
{
    struct dec_ring r;

    setup();
    ck_assert_int_eq(cygtrace_exclude((void *)B, 0), 0); /* b's own events: its callee stays */
    program();
    ck_assert_str_eq(events(&r), "S >m >a >d <d >c <c <a >c <c <m");
    setup();
    ck_assert_int_eq(cygtrace_exclude((void *)A, 1), 0); /* a and all it calls */
    program();
    ck_assert_str_eq(events(&r), "S >m >c <c <m");
}
END_TEST

START_TEST(test_control_depth)
{
    struct dec_ring r;

    setup();
    cygtrace_set_depth(2);
    program();
    ck_assert_str_eq(events(&r), "S >m >a <a >c <c <m");
    setup();
    cygtrace_set_depth(1);
    program();
    ck_assert_str_eq(events(&r), "S >m <m");
}
END_TEST

/* Calls open when the request is applied are at depth 0: their exits pass any limit. */
START_TEST(test_control_depth_from_the_request)
{
    struct dec_ring r;

    setup();
    in(MAIN);
    in(A);
    cygtrace_set_depth(1);
    in(B);
    in(D);
    out(D);
    out(B);
    out(A);
    out(MAIN);
    ck_assert_str_eq(events(&r), "S >m >a >b <b <a <m");
}
END_TEST

START_TEST(test_control_marks)
{
    struct dec_ring r;

    setup();
    cygtrace_set_events(~(1u << 3));
    cygtrace_mark(5, 0);
    cygtrace_event(3, 6, 0); /* disabled */
    cygtrace_event(4, 7, 0);
    ck_assert_int_eq(cygtrace_trigger_freeze_mark(9, 1), 0);
    in(A);
    cygtrace_mark_class(2, 9, 0x1234); /* fires: the mark, and one event after it */
    out(A);
    in(B);
    ck_assert_str_eq(events(&r), "S M5 M7/4 >a T0 M9/2 <a");
    ck_assert_uint_eq(r.state, CYG_S_FROZEN);
    ck_assert_uint_eq(cygtrace_event_mask, ~(1u << 3));
}
END_TEST

/* With nothing but classes set, the hooks keep their fast path. */
START_TEST(test_control_classes_keep_fast_path)
{
    struct dec_ring r;

    setup();
    cygtrace_set_events(1u);
    in(A);
    ck_assert_uint_ne(cyg_rt.last, 0);
    cygtrace_event(1, 1, 0);
    cygtrace_event(0, 2, 0);
    out(A);
    ck_assert_str_eq(events(&r), "S >a M2 <a");
}
END_TEST

START_TEST(test_control_clear_restores_fast_path)
{
    struct dec_ring r;

    setup();
    cygtrace_exclude((void *)B, 0);
    in(A);
    ck_assert_uint_eq(cyg_rt.last, 0);
    cygtrace_trigger_clear();
    in(B);
    ck_assert_uint_ne(cyg_rt.last, 0);
    out(B);
    out(A);
    ck_assert_str_eq(events(&r), "S >a >b <b <a");
}
END_TEST

/* What `cygtrace arm` does through a debugger: the request's bytes, gen + 1, cyg_rt.last = 0,
 * with host/ctrl.c building the bytes. */
START_TEST(test_control_written_as_a_host_does)
{
    struct dec_ring r;
    struct ctrl c;
    struct ctrl_spec s;
    char why[256] = "";
    char err[128];

    setup();
    in(MAIN);
    ck_assert_int_eq(ctrl_parse(&c, (const uint8_t *)area(), sizeof(void *), why, sizeof why), 0);
    ck_assert_int_eq(ctrl_parse_trigger("freeze@b+2", &s, err, sizeof err), 0);
    ck_assert_int_eq(ctrl_add(&c, &s, B, err, sizeof err), 0);
    c.gen++;
    ctrl_store(&c, (uint8_t *)area());
    cyg_rt.last = 0;
    in(A);
    in(B);
    in(D);
    out(D);
    out(B);
    ck_assert_str_eq(events(&r), "S >m >a T0 >b >d <d");
    ck_assert_int_eq(ctrl_parse(&c, (const uint8_t *)area(), sizeof(void *), why, sizeof why), 0);
    ck_assert_uint_eq(c.fired, 1);
    ck_assert_uint_eq(c.applied, c.gen);
}
END_TEST

START_TEST(test_control_room)
{
    setup();
    for (int i = 0; i < (int)CYG_CTRL_TRIGS; i++)
        ck_assert_int_eq(cygtrace_trigger_freeze((void *)(uintptr_t)(A + i), 0), i);
    ck_assert_int_eq(cygtrace_trigger_start((void *)B), -1);
    for (int i = 0; i < (int)CYG_CTRL_EXCLS; i++)
        ck_assert_int_eq(cygtrace_exclude((void *)(uintptr_t)(C + i), 0), i);
    ck_assert_int_eq(cygtrace_exclude((void *)D, 1), -1);
}
END_TEST

/* A request whose counts a debugger wrote past the area's room is read within it. */
START_TEST(test_control_hostile_counts)
{
    struct dec_ring r;

    setup();
    area()->ntrig = 200;
    area()->nexcl = 200;
    area()->gen++;
    cyg_rt.last = 0;
    program();
    ck_assert_str_eq(events(&r), "S >m >a >b >d <d <b >c <c <a >c <c <m");
}
END_TEST

/* Stop mode keeps its capacity on the slow path. */
START_TEST(test_control_stop_mode)
{
    struct dec_ring r;

    ck_assert_int_eq(cygtrace_init(ring, BYTES, 0), RECS);
    cygtrace_exclude((void *)B, 0);
    for (unsigned i = 0; i < RECS; i++) {
        in(A);
        out(A);
    }
    events(&r);
    ck_assert_uint_eq(r.state, CYG_S_FULL);
    ck_assert_uint_gt(r.lost, 0);
    ck_assert_uint_lt(r.lost, RECS * 2);
}
END_TEST

/* A wrapped call's values follow its entry: recorded when the filters keep the call, not when
 * they leave it out (they would go to the call below it). */
START_TEST(test_control_values)
{
    struct dec_ring r;

    setup();
    cygtrace_exclude((void *)B, 0);
    cygtrace_wrap_enter((void *)A, NULL);
    cygtrace_wrap_value((void *)A, CYGTRACE_VALUE(0, CYG_VK_INT), 1);
    cygtrace_wrap_enter((void *)B, NULL);
    cygtrace_wrap_value((void *)B, CYGTRACE_VALUE(0, CYG_VK_INT), 2);
    cygtrace_wrap_value((void *)B, CYGTRACE_VALUE(CYG_VAL_RET, CYG_VK_INT), 3);
    cygtrace_wrap_exit((void *)B, NULL);
    cygtrace_wrap_value((void *)A, CYGTRACE_VALUE(CYG_VAL_RET, CYG_VK_INT), 4);
    cygtrace_wrap_exit((void *)A, NULL);
    ck_assert_str_eq(events(&r), "S >a V V <a");
}
END_TEST

#if defined(__x86_64__)
/* A signal at a chosen point of a hook, where the stress test's timer sends them at random:
 * the trap flag steps the hook an instruction at a time, and the SIGTRAP handler plays the
 * signal's handler once the hook has reached the point. */

/* The runtime's words of the calling thread, as target/linux/cygtrace_port.h has them. */
extern __thread struct cyg_linux_tls {
    uintptr_t tid, cursor, end;
    int busy;
    uint32_t tstate[3];
} cyg_linux_tls;

#define TRAP_FLAG 0x100u

/* Where the signal comes: once the hook has counted the call's depth (the control area's
 * bookkeeping, after the check of the state, before the slot), or once it has taken its slot
 * (the thread's cursor moved: before it checks the slot). */
enum step_at { AT_DEPTH, AT_TAKE };

static enum step_at step_at;
static uintptr_t step_before;     /* the watched word before the hook */
static void (*step_signal)(void); /* what the played signal's handler does */
static volatile int step_played;

static uintptr_t step_word(void)
{
    return step_at == AT_TAKE ? cyg_linux_tls.cursor : cyg_linux_tls.tstate[0];
}

static void on_step(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *u = ctx;

    (void)sig;
    (void)si;
    if (step_word() == step_before)
        return;
    u->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
    step_played = 1;
    step_signal();
}

/* Calls fn's entry hook with handler run as a signal's at the point at. */
static void in_signalled(uintptr_t fn, enum step_at at, void (*handler)(void))
{
    struct sigaction sa, old;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_step;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGTRAP, &sa, &old);
    step_at = at;
    step_signal = handler;
    step_played = 0;
    step_before = step_word();
    __asm__ volatile("pushfq\n\torq %0, (%%rsp)\n\tpopfq" ::"i"(TRAP_FLAG) : "memory", "cc");
    in(fn);
    __asm__ volatile("pushfq\n\tandq %0, (%%rsp)\n\tpopfq" ::"i"(~TRAP_FLAG) : "memory", "cc");
    sigaction(SIGTRAP, &old, NULL);
    ck_assert_msg(step_played, "the hook never reached the point");
}

/* Another thread records a call and freezes the ring, as a freeze trigger's window closes in
 * one thread while another is off the CPU. */
static void *other_thread(void *arg)
{
    (void)arg;
    in(D);
    out(D);
    cygtrace_freeze();
    return NULL;
}

/* The handler of the stress test's signal (h0, which calls h1 and h2), here b calling c; the
 * thread loses the CPU after c returns, long enough for another thread to take a chunk (in a
 * ring of 256 slots one chunk raises the oldest slot a thread may still fill past the
 * interrupted hook's) and freeze the ring. b's exit then comes after the freeze: not
 * recorded. */
static void handler_frozen_midway(void)
{
    pthread_t t;

    in(B);
    in(C);
    out(C);
    ck_assert_int_eq(pthread_create(&t, NULL, other_thread, NULL), 0);
    pthread_join(t, NULL);
    out(B);
}

/* The stress test's armed run, 1 in 100s: thread 2's record of fb_leaf2 after its handler's
 * exit of h1 (the first slot of a chunk), h2's events and h0's exit missing, a hole in the
 * thread's chunk before the handler's entry of h0 and a chunk of PAD before fb_leaf2's. The
 * signal came between a hook's take of its slot and its check of the slot; the handler
 * recorded after the slot, then its thread was descheduled while the ring moved on and froze,
 * and the slot, too old by then, was turned down. The hook must not record its event in
 * another slot then: that record would follow the handler's, whose last events the freeze
 * kept out, as if the thread had called a inside the handler. */
START_TEST(test_control_signal_then_freeze)
{
    struct dec_ring r;

    setup();
    /* _i 0: armed (a trigger that never fires), so the event takes the slow path; 1: nothing
     * armed, so the hook's fast path finds its slot too old and claims a new chunk. */
    if (_i == 0)
        ck_assert_int_eq(cygtrace_trigger_freeze((void *)0x409000, 0), 0);
    in(MAIN);
    in_signalled(A, AT_TAKE, handler_frozen_midway);
    ck_assert_str_eq(events(&r), "S >m >b >c <c >d <d");
    ck_assert_uint_eq(r.state, CYG_S_FROZEN);
}
END_TEST

static void handler_freezes(void)
{
    cygtrace_freeze();
}

/* A signal whose handler freezes the ring just as a hook takes a slot past its thread's used-up
 * chunk: the hook must not claim a new chunk in the frozen ring, which would move head past the
 * ring's oldest 64 records (no longer held, as far as a reader can tell) and leave the chunk
 * unwritten. */
START_TEST(test_control_freeze_no_claim)
{
    struct dec_ring r;
    uint64_t head;

    setup();
    in(MAIN);
    while (cyg_linux_tls.end != cyg_linux_tls.cursor) {
        in(B);
        if (cyg_linux_tls.end != cyg_linux_tls.cursor)
            out(B);
    }
    head = ((const struct cyg_ctl *)cygtrace_control_block())->head.v;
    in_signalled(A, AT_TAKE, handler_freezes);
    events(&r);
    ck_assert_uint_eq(r.state, CYG_S_FROZEN);
    ck_assert_uint_eq(r.head, head);
}
END_TEST

static void handler_b_calls_c(void)
{
    in(B);
    in(C);
    out(C);
    out(B);
}

/* The same with a freeze trigger that fires in the handler (freeze@c+1), and the signal in the
 * control area's bookkeeping of the interrupted event, before it takes a slot: the slot it
 * takes then is after the handler's, in a frozen ring. */
START_TEST(test_control_signal_fires_freeze)
{
    struct dec_ring r;

    setup();
    ck_assert_int_eq(cygtrace_trigger_freeze((void *)C, 1), 0);
    in(MAIN);
    in_signalled(A, AT_DEPTH, handler_b_calls_c);
    ck_assert_str_eq(events(&r), "S >m >b T0 >c <c");
    ck_assert_uint_eq(r.state, CYG_S_FROZEN);
}
END_TEST
#endif

Suite *control_suite(void)
{
    Suite *s = suite_create("control");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_control_nothing_armed);
    tcase_add_test(tc, test_control_freeze_window);
    tcase_add_test(tc, test_control_freeze_at_once);
    tcase_add_test(tc, test_control_thumb_bit);
    tcase_add_test(tc, test_control_start_stop);
    tcase_add_test(tc, test_control_gate_kept);
    tcase_add_test(tc, test_control_exclude_and_hide);
    tcase_add_test(tc, test_control_depth);
    tcase_add_test(tc, test_control_depth_from_the_request);
    tcase_add_test(tc, test_control_marks);
    tcase_add_test(tc, test_control_classes_keep_fast_path);
    tcase_add_test(tc, test_control_clear_restores_fast_path);
    tcase_add_test(tc, test_control_written_as_a_host_does);
    tcase_add_test(tc, test_control_room);
    tcase_add_test(tc, test_control_hostile_counts);
    tcase_add_test(tc, test_control_stop_mode);
    tcase_add_test(tc, test_control_values);
#if defined(__x86_64__)
    tcase_add_loop_test(tc, test_control_signal_then_freeze, 0, 2);
    tcase_add_test(tc, test_control_freeze_no_claim);
    tcase_add_test(tc, test_control_signal_fires_freeze);
#endif
    suite_add_tcase(s, tc);
    return s;
}
