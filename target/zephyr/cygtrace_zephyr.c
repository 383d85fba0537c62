/* SPDX-License-Identifier: MIT */
/* cygtrace_zephyr.c - the Zephyr glue (cygtrace_zephyr.h): the runtime's start at boot, its
 * clock, the tracing hooks of CONFIG_TRACING_USER and of the module's tracing_user.h, the
 * fault's entry and the fatal error handler, and the drain (a UART or an RTT channel). Never
 * instrumented (every function is marked, and the module's files are left out of a kernel-wide
 * build): it runs inside the scheduler, at the edges of interrupts and in the fault path, where
 * a call record would land in the wrong context.
 *
 * The glue's state: the context running now (what a switch-in compares with, what a wake names
 * as the waker), the stack of contexts that interrupts preempted, and a small table of the
 * threads that blocked (then who woke them), since struct k_thread has no field for a tracer. */
#include <zephyr/kernel.h>
#include <zephyr/init.h>
#include <zephyr/fatal.h>
#include <zephyr/sys/printk.h>
#include <zephyr/kernel_structs.h>
#ifdef CONFIG_GEN_SW_ISR_TABLE
#include <zephyr/sw_isr_table.h>
#endif
#ifdef CONFIG_CYGTRACE_DRAIN_UART
#include <zephyr/device.h>
#include <zephyr/drivers/uart.h>
#endif
#ifdef CONFIG_CYGTRACE_DRAIN_RTT
#include "cygtrace_rtt.h"
#endif

#include "cygtrace_cm.h"
#include "cygtrace_zephyr.h"

#define CYGZ_NOINSTR __attribute__((no_instrument_function))
#define CYGZ_SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)

/* The host reads it from RAM (the contract in cygtrace_zephyr.h). */
__attribute__((used)) struct cygtrace_zephyr_info cygtrace_zephyr;

CYGZ_NOINSTR static int cygz_init(void)
{
    cygtrace_cm_init((uint32_t)sys_clock_hw_cycles_per_sec());
#ifdef CONFIG_THREAD_NAME
    cygtrace_zephyr.version = CYGTRACE_ZEPHYR_VERSION;
    cygtrace_zephyr.name_off = (uint16_t)offsetof(struct k_thread, name);
    cygtrace_zephyr.name_len = (uint16_t)CONFIG_THREAD_MAX_NAME_LEN;
    __asm__ volatile("" ::: "memory");
    cygtrace_zephyr.magic = CYGTRACE_ZEPHYR_MAGIC;
#endif
    return 0;
}

/* EARLY: before the kernel creates a thread, after .data and .bss are set up. */
SYS_INIT(cygz_init, EARLY, 0);

#ifdef CONFIG_CYGTRACE_CLOCK_CYCLES
CYGZ_NOINSTR uint32_t cygtrace_user_clock(void)
{
    return k_cycle_get_32();
}
#endif

/* PRIMASK set, and what it was: a record and the state it goes with, together. */
CYGZ_NOINSTR static inline uint32_t cygz_lock(void)
{
    uint32_t m;

    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(m)::"memory");
    return m;
}

CYGZ_NOINSTR static inline void cygz_unlock(uint32_t m)
{
    __asm__ volatile("msr primask, %0" ::"r"(m) : "memory");
}

#ifdef CONFIG_CYGTRACE_TASKS

#define CYGZ_BLOCKED 1u
#define CYGZ_WOKEN 2u

/* The context running now (0: before the first thread) and its handle. */
static uint32_t cygz_cur;
static uintptr_t cygz_cur_handle;
/* Interrupts nested now, and what each one preempted. */
static unsigned cygz_nest;
static uint32_t cygz_stack_id[CONFIG_CYGTRACE_TASKS_NEST];
static uintptr_t cygz_stack_handle[CONFIG_CYGTRACE_TASKS_NEST];
/* Threads that blocked: CYGZ_BLOCKED, then CYGZ_WOKEN | the waker's id << CYG_SCHED_ID_SHIFT
 * (0 once it resumed). */
static struct {
    const struct k_thread *thread;
    uint32_t state;
} cygz_wait[CONFIG_CYGTRACE_TASKS_WAITERS];

CYGZ_NOINSTR static uint32_t cygz_id(const struct k_thread *t)
{
    uint32_t id = (uint32_t)((uintptr_t)t >> 2) & 0x7FFFFu;

    return id ? id : 0x7FFFFu;
}

#define CYGZ_GONE ((const struct k_thread *)1) /* a slot whose thread was aborted */
#define CYGZ_NSLOT CONFIG_CYGTRACE_TASKS_WAITERS

/* The thread's slot in the table (CYGZ_NSLOT: none), open addressing from a hash of its address:
 * a slot, once a thread's, stays its own (its state cleared when it resumes), so that a lookup
 * takes one probe or two; with make, a thread that has none takes the first free slot (one an
 * aborted thread left, else an empty one). */
CYGZ_NOINSTR static unsigned cygz_slot(const struct k_thread *t, int make)
{
    unsigned i = (unsigned)((uintptr_t)t >> 3) % CYGZ_NSLOT, k, gone = CYGZ_NSLOT;

    for (k = 0; k < CYGZ_NSLOT; k++, i = i + 1 == CYGZ_NSLOT ? 0 : i + 1) {
        if (cygz_wait[i].thread == t)
            return i;
        if (cygz_wait[i].thread == CYGZ_GONE) {
            if (gone == CYGZ_NSLOT)
                gone = i;
            continue;
        }
        if (!cygz_wait[i].thread)
            break;
    }
    if (!make)
        return CYGZ_NSLOT;
    if (gone < CYGZ_NSLOT)
        i = gone;
    else if (k == CYGZ_NSLOT)
        return CYGZ_NSLOT; /* full */
    cygz_wait[i].thread = t;
    cygz_wait[i].state = 0;
    return i;
}

CYGZ_NOINSTR static void cygz_name(struct k_thread *t)
{
#ifdef CONFIG_THREAD_NAME
    if (t->name[0])
        cygtrace_name(0, cygz_id(t), t->name, CONFIG_THREAD_MAX_NAME_LEN);
#endif
}

CYGZ_NOINSTR void sys_trace_thread_create_user(struct k_thread *thread)
{
    cygz_name(thread);
}

CYGZ_NOINSTR void sys_trace_thread_name_set_user(struct k_thread *thread)
{
    cygz_name(thread);
}

/* An aborted thread's slot goes to the next thread that blocks (its struct may be reused). */
CYGZ_NOINSTR void sys_trace_thread_abort_user(struct k_thread *thread)
{
    uint32_t m = cygz_lock();
    unsigned i = cygz_slot(thread, 0);

    if (i < CYGZ_NSLOT) {
        cygz_wait[i].thread = CYGZ_GONE;
        cygz_wait[i].state = 0;
    }
    cygz_unlock(m);
}

CYGZ_NOINSTR void sys_trace_thread_switched_in_user(void)
{
    struct k_thread *t = _current;
    uint32_t m = cygz_lock(), id = cygz_id(t), s = 0;
    unsigned i;

    /* PendSV runs at the lowest priority: no interrupt is active, whatever the stack says. */
    cygz_nest = 0;
    if (id != cygz_cur) {
        cygz_cur = id;
        cygz_cur_handle = (uintptr_t)t;
        cygtrace_switch(id, (uintptr_t)t);
    }
    /* Woken since it blocked: the other side of the waker's WAKE. The state is cleared either
     * way, so that a block that did not happen leaves nothing stale. */
    if ((i = cygz_slot(t, 0)) < CYGZ_NSLOT) {
        s = cygz_wait[i].state;
        cygz_wait[i].state = 0;
    }
    if (s & CYGZ_WOKEN)
        cygtrace_sched(CYG_SCHED_RESUME, s & (CYG_SCHED_ID_MASK << CYG_SCHED_ID_SHIFT), 0);
    cygz_unlock(m);
}

CYGZ_NOINSTR void sys_trace_thread_sched_ready_user(struct k_thread *thread)
{
    uint32_t m = cygz_lock();
    unsigned i = cygz_slot(thread, 0);

    /* Only a thread that blocked is woken (new threads and the like are made ready too). */
    if (i < CYGZ_NSLOT && (cygz_wait[i].state & CYGZ_BLOCKED)) {
        cygtrace_sched(CYG_SCHED_WAKE, cygz_id(thread) << CYG_SCHED_ID_SHIFT,
                       (uintptr_t)thread);
        cygz_wait[i].state = CYGZ_WOKEN | (cygz_cur & CYG_SCHED_ID_MASK) << CYG_SCHED_ID_SHIFT;
    }
    cygz_unlock(m);
}

CYGZ_NOINSTR void cygtrace_zephyr_block(unsigned type, unsigned op, uintptr_t obj)
{
    uint32_t m = cygz_lock();
    unsigned i;

    cygtrace_sched(CYG_SCHED_BLOCK,
                   (type & CYG_SCHED_OBJ_MASK) << CYG_SCHED_OBJ_SHIFT |
                       (op & CYG_SCHED_OP_MASK) << CYG_SCHED_OP_SHIFT,
                   obj);
    if (!k_is_in_isr() && (i = cygz_slot(_current, 1)) < CYGZ_NSLOT)
        cygz_wait[i].state = CYGZ_BLOCKED;
    cygz_unlock(m);
}

CYGZ_NOINSTR void cygtrace_zephyr_sleep(int64_t ticks)
{
    cygtrace_zephyr_block(CYG_OBJ_DELAY, 0,
                          ticks > 0 && ticks < INT32_MAX ? (uintptr_t)ticks : 0);
}

/* The handler of exception n: an IRQ's ISR from the software table (the vector table holds
 * _isr_wrapper for them all), an exception's from the vector table (ARMv6-M has no VTOR: it is
 * at 0), without the Thumb bit, as call records carry functions. */
CYGZ_NOINSTR static uintptr_t cygz_handler(uint32_t n)
{
#if defined(__ARM_ARCH_6M__)
    const volatile uint32_t *table = (const volatile uint32_t *)0;
#else
    const volatile uint32_t *table = (const volatile uint32_t *)(uintptr_t)CYGZ_SCB_VTOR;
#endif
#ifdef CONFIG_GEN_SW_ISR_TABLE
    if (n >= 16u && n - 16u < IRQ_TABLE_SIZE)
        return (uintptr_t)_sw_isr_table[n - 16u].isr & ~(uintptr_t)1;
#endif
    return (uintptr_t)table[n] & ~(uintptr_t)1;
}

CYGZ_NOINSTR void sys_trace_isr_enter_user(void)
{
    uint32_t m = cygz_lock(), ipsr, id;
    uintptr_t handle;

    if (cygz_nest++ >= CONFIG_CYGTRACE_TASKS_NEST) {
        cygz_unlock(m);
        return;
    }
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    ipsr &= 0x1FFu;
    id = CYGTRACE_ZEPHYR_ISR_ID | ipsr;
    handle = cygz_handler(ipsr);
    cygz_stack_id[cygz_nest - 1] = cygz_cur;
    cygz_stack_handle[cygz_nest - 1] = cygz_cur_handle;
    cygz_cur = id;
    cygz_cur_handle = handle;
    cygtrace_switch(id, handle);
    cygz_unlock(m);
}

CYGZ_NOINSTR void sys_trace_isr_exit_user(void)
{
    uint32_t m = cygz_lock();

    if (cygz_nest != 0 && --cygz_nest < CONFIG_CYGTRACE_TASKS_NEST) {
        cygz_cur = cygz_stack_id[cygz_nest];
        cygz_cur_handle = cygz_stack_handle[cygz_nest];
        cygtrace_switch(cygz_cur, cygz_cur_handle);
    }
    cygz_unlock(m);
}

#ifdef CONFIG_CYGTRACE_DRAIN_UART
#if DT_HAS_CHOSEN(zephyr_cygtrace_uart)
#define CYGZ_UART DT_CHOSEN(zephyr_cygtrace_uart)
#else
#define CYGZ_UART DT_CHOSEN(zephyr_console)
#endif

static const struct device *const cygz_uart = DEVICE_DT_GET(CYGZ_UART);

/* What the UART's FIFO takes now, never waiting. */
CYGZ_NOINSTR static size_t cygz_uart_sink(void *arg, const void *buf, size_t len)
{
    int n;

    ARG_UNUSED(arg);
    n = uart_fifo_fill(cygz_uart, buf, (int)(len > INT32_MAX ? INT32_MAX : len));
    return n > 0 ? (size_t)n : 0;
}

#endif /* CONFIG_CYGTRACE_DRAIN_UART */

#ifdef CONFIG_CYGTRACE_DRAIN
static int cygz_draining;

/* After the drivers: the drain starts with the oldest record, so that the names of the threads
 * made before it are sent too. */
CYGZ_NOINSTR static int cygz_drain_init(void)
{
#ifdef CONFIG_CYGTRACE_DRAIN_RTT
    cygtrace_rtt_init(); /* the control block first: a host finds it at once */
    cygtrace_drain_init(cygtrace_rtt_sink, NULL);
#else
    if (!device_is_ready(cygz_uart))
        return 0;
    cygtrace_drain_init(cygz_uart_sink, NULL);
#endif
    cygz_draining = 1;
    return 0;
}

SYS_INIT(cygz_drain_init, POST_KERNEL, 99);

/* The idle thread drains: whatever the threads and interrupts recorded goes out while nothing
 * else runs. */
CYGZ_NOINSTR void sys_trace_idle_user(void)
{
    if (cygz_draining)
        cygtrace_drain();
}
#endif /* CONFIG_CYGTRACE_DRAIN */

#endif /* CONFIG_CYGTRACE_TASKS */

CYGZ_NOINSTR void cygtrace_zephyr_name(const void *obj, unsigned type, const char *name)
{
    cygtrace_name(CYG_NAME_OBJECT | (type & CYG_NAME_OBJ_MASK) << CYG_NAME_OBJ_SHIFT,
                  (uintptr_t)obj, name, CYG_NAME_MAX_PARTS * sizeof(uintptr_t));
}

/* Set once a fault is recorded: the fatal error handler that follows records nothing more. */
static volatile int cygz_faulted;

CYGZ_NOINSTR static void cygz_fault(uintptr_t pc, uintptr_t lr)
{
    uint32_t ipsr;

    if (cygz_faulted)
        return;
    cygz_faulted = 1;
    /* The exception we are in: a fault's (3..7), or the SVC of k_panic() and k_oops(). */
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    cygtrace_fault(ipsr & 0x1FFu, pc, lr);
}

CYGZ_NOINSTR void cygtrace_zephyr_fatal(unsigned int reason, const void *esf)
{
    const struct arch_esf *f = esf;

    ARG_UNUSED(reason);
    cygz_fault(f ? (uintptr_t)f->basic.pc : 0, f ? (uintptr_t)f->basic.lr : 0);
}

/* The fault's entry: the module links with --wrap=z_arm_fault, so that the fault and the ring's
 * freeze come before Zephyr's fault dump (whose printing, instrumented in a kernel-wide build,
 * would fill the ring), as the Cortex-M runtime's fault handler does. The frame is on the
 * stack EXC_RETURN's bit 2 names: r0 r1 r2 r3 r12 lr pc xpsr. */
void __real_z_arm_fault(uint32_t msp, uint32_t psp, uint32_t exc_return, void *callee_regs);

CYGZ_NOINSTR void __wrap_z_arm_fault(uint32_t msp, uint32_t psp, uint32_t exc_return,
                                     void *callee_regs)
{
    const uint32_t *frame = (const uint32_t *)(uintptr_t)(exc_return & 4u ? psp : msp);

    cygz_fault(frame[6], frame[5]);
    __real_z_arm_fault(msp, psp, exc_return, callee_regs);
}

#ifdef CONFIG_CYGTRACE_FATAL_HANDLER
CYGZ_NOINSTR void k_sys_fatal_error_handler(unsigned int reason, const struct arch_esf *esf)
{
    cygtrace_zephyr_fatal(reason, esf);
#ifdef CONFIG_PRINTK
    printk("cygtrace: trace frozen (fatal error %u)\n", reason);
#endif
    (void)cygz_lock();
    for (;;)
        ;
}
#endif
