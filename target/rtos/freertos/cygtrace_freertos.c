/* SPDX-License-Identifier: MIT */
/* cygtrace_freertos.c - what the trace macros of cygtrace_freertos.h call. Built without
 * -finstrument-functions (every function is also marked): it runs inside the scheduler and at
 * the edges of interrupts, where a call record would land in the wrong context.
 *
 * The kernel keeps no state for us but each TCB's uxTaskNumber: blocked, woken by whom. The
 * glue's own state is the context running now (what a switch-in compares with, what a wake
 * names as the waker) and the stack of contexts that interrupts preempted. */
#include "FreeRTOS.h"
#include "queue.h"
#include "cygtrace_internal.h" /* cygtrace.h, and NOINSTR */

#define CYGF_SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)

/* tasks.c defines it as TCB_t *volatile; the glue only needs its value and the layout the
 * first creation taught it. */
extern void *volatile pxCurrentTCB;

/* The host reads it from RAM (the contract in cygtrace_freertos.h): kept by being written. */
__attribute__((used)) struct cygtrace_freertos_info cygtrace_freertos;

/* The context running now (0: main, before the scheduler starts) and its handle. */
static uint32_t cygf_cur;
static uintptr_t cygf_cur_handle;
/* Interrupts nested now, and what each one preempted (only the first CYGTRACE_FREERTOS_NEST). */
static unsigned cygf_nest;
static uint32_t cygf_stack_id[CYGTRACE_FREERTOS_NEST];
static uintptr_t cygf_stack_handle[CYGTRACE_FREERTOS_NEST];

_Static_assert(sizeof(UBaseType_t) >= 4, "uxTaskNumber holds a 20-bit id in bits 23..4");

/* PRIMASK set, and what it was: a switch's bookkeeping and records go together, so that an
 * interrupt coming in between finds them both done or both not. A few dozen instructions. */
NOINSTR static inline uint32_t cygf_lock(void)
{
    uint32_t m;

    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(m)::"memory");
    return m;
}

NOINSTR static inline void cygf_unlock(uint32_t m)
{
    __asm__ volatile("msr primask, %0" ::"r"(m) : "memory");
}

/* The state kept in the current task's uxTaskNumber, through the layout learned at creation;
 * NULL before the scheduler runs a task. */
NOINSTR static UBaseType_t *cygf_current_state(void)
{
    char *tcb = pxCurrentTCB;

    if (tcb == NULL || cygtrace_freertos.magic != CYGTRACE_FREERTOS_MAGIC)
        return NULL;
    return (UBaseType_t *)(void *)(tcb + cygtrace_freertos.tasknumber_off);
}

NOINSTR void cygtrace_freertos_create(void *tcb, uint32_t number, unsigned name_off,
                                      unsigned name_len, unsigned number_off,
                                      unsigned number_bytes, unsigned tasknumber_off)
{
    struct cygtrace_freertos_info *f = &cygtrace_freertos;

    if (f->magic != CYGTRACE_FREERTOS_MAGIC) {
        f->version = CYGTRACE_FREERTOS_VERSION;
        f->name_off = (uint16_t)name_off;
        f->name_len = (uint16_t)name_len;
        f->number_off = (uint16_t)number_off;
        f->number_bytes = (uint16_t)number_bytes;
        f->tasknumber_off = (uint16_t)tasknumber_off;
        /* The magic last: a host that sees it sees the offsets. */
        __asm__ volatile("" ::: "memory");
        f->magic = CYGTRACE_FREERTOS_MAGIC;
    }
    *(UBaseType_t *)(void *)((char *)tcb + tasknumber_off) = 0;
    cygtrace_name(0, CYGTRACE_FREERTOS_TASK_ID(number), (const char *)tcb + name_off, name_len);
}

NOINSTR void cygtrace_freertos_switched_in(void *tcb, uint32_t number, void *tasknumber)
{
    uint32_t id = CYGTRACE_FREERTOS_TASK_ID(number);
    UBaseType_t *state = tasknumber, s;

    /* PendSV runs at the lowest priority: no interrupt is active, whatever the stack says (an
     * exit that never came, one past the stack's depth). */
    cygf_nest = 0;
    if (id != cygf_cur) {
        cygf_cur = id;
        cygf_cur_handle = (uintptr_t)tcb;
        cygtrace_switch(id, (uintptr_t)tcb);
    }
    /* Woken since it blocked: the other side of the waker's WAKE. Cleared either way, so that a
     * block that did not happen (no wake came through the ready list) leaves nothing stale. */
    s = *state;
    if (s != 0) {
        *state = 0;
        if (s & CYGTRACE_FREERTOS_WOKEN)
            cygtrace_sched(CYG_SCHED_RESUME,
                           (uint32_t)s & (CYG_SCHED_ID_MASK << CYG_SCHED_ID_SHIFT), 0);
    }
}

NOINSTR void cygtrace_freertos_block(unsigned obj, unsigned op, uintptr_t a)
{
    UBaseType_t *state = cygf_current_state();

    cygtrace_sched(CYG_SCHED_BLOCK,
                   (obj & CYG_SCHED_OBJ_MASK) << CYG_SCHED_OBJ_SHIFT |
                       (op & CYG_SCHED_OP_MASK) << CYG_SCHED_OP_SHIFT,
                   a);
    if (state != NULL)
        *state = CYGTRACE_FREERTOS_BLOCKED;
}

/* ucQueueType (queue.h's queueQUEUE_TYPE_*) as an object type. */
NOINSTR static unsigned cygf_queue_obj(unsigned queue_type)
{
    switch (queue_type) {
    case queueQUEUE_TYPE_MUTEX:
    case queueQUEUE_TYPE_RECURSIVE_MUTEX:
        return CYG_OBJ_MUTEX;
    case queueQUEUE_TYPE_COUNTING_SEMAPHORE:
    case queueQUEUE_TYPE_BINARY_SEMAPHORE:
        return CYG_OBJ_SEMAPHORE;
    default: /* a queue, a queue set */
        return CYG_OBJ_QUEUE;
    }
}

NOINSTR void cygtrace_freertos_block_queue(const void *queue, unsigned queue_type, unsigned op)
{
    cygtrace_freertos_block(cygf_queue_obj(queue_type), op, (uintptr_t)queue);
}

NOINSTR void cygtrace_freertos_wake(void *tcb, uint32_t number, void *tasknumber)
{
    uint32_t id = CYGTRACE_FREERTOS_TASK_ID(number);

    cygtrace_sched(CYG_SCHED_WAKE, id << CYG_SCHED_ID_SHIFT, (uintptr_t)tcb);
    /* For the RESUME at its switch-in: the waker's id where that record carries it. */
    *(UBaseType_t *)tasknumber =
        CYGTRACE_FREERTOS_WOKEN | (cygf_cur & CYG_SCHED_ID_MASK) << CYG_SCHED_ID_SHIFT;
}

NOINSTR void cygtrace_freertos_queue_name(const void *queue, unsigned queue_type,
                                          const char *name)
{
    cygtrace_name(CYG_NAME_OBJECT | cygf_queue_obj(queue_type) << CYG_NAME_OBJ_SHIFT,
                  (uintptr_t)queue, name, CYG_NAME_MAX_PARTS * sizeof(uintptr_t));
}

/* The handler of exception n, from the vector table (ARMv6-M has no VTOR: the table is at 0),
 * without the Thumb bit, as call records carry functions. */
NOINSTR static uintptr_t cygf_handler(uint32_t n)
{
#if defined(__ARM_ARCH_6M__)
    const volatile uint32_t *table = (const volatile uint32_t *)0;
#else
    const volatile uint32_t *table = (const volatile uint32_t *)(uintptr_t)CYGF_SCB_VTOR;
#endif
    return (uintptr_t)table[n] & ~(uintptr_t)1;
}

NOINSTR void cygtrace_freertos_isr_enter(void)
{
    uint32_t m = cygf_lock(), ipsr, id;
    uintptr_t handle;

    /* Past the stack's depth the interrupt's calls stay in the context it preempted, and its
     * exit finds nothing to go back to. */
    if (cygf_nest++ >= CYGTRACE_FREERTOS_NEST) {
        cygf_unlock(m);
        return;
    }
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    ipsr &= 0x1FFu;
    id = CYGTRACE_FREERTOS_ISR_ID | ipsr;
    handle = cygf_handler(ipsr);
    cygf_stack_id[cygf_nest - 1] = cygf_cur;
    cygf_stack_handle[cygf_nest - 1] = cygf_cur_handle;
    cygf_cur = id;
    cygf_cur_handle = handle;
    cygtrace_switch(id, handle);
    cygf_unlock(m);
}

NOINSTR void cygtrace_freertos_isr_exit(void)
{
    uint32_t m = cygf_lock();

    if (cygf_nest != 0 && --cygf_nest < CYGTRACE_FREERTOS_NEST) {
        cygf_cur = cygf_stack_id[cygf_nest];
        cygf_cur_handle = cygf_stack_handle[cygf_nest];
        cygtrace_switch(cygf_cur, cygf_cur_handle);
    }
    cygf_unlock(m);
}
