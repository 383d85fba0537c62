/* SPDX-License-Identifier: MIT */
/* cygtrace_freertos.h - FreeRTOS glue: the kernel's trace macros record context switches,
 * interrupts, blocking and waking, and the names of tasks and registered queues into the ring
 * (docs/FORMAT.md 7.5), so that `cygtrace tree` and `pull` show a call tree per task and per
 * interrupt with who woke whom. Cortex-M ports (ARM_CM0, ARM_CM3, ARM_CM4F, ARM_CM33_NTZ), one
 * core. The three lines a firmware adds:
 *
 *   1. at the END of FreeRTOSConfig.h:      #include "cygtrace_freertos.h"
 *   2. in the Makefile, after setting FREERTOS_DIR and FREERTOS_PORT (GCC/ARM_CM3, ...):
 *          include <cygtrace>/target/rtos/freertos/freertos.mk
 *      then build $(CYGTRACE_FREERTOS_KERNEL_SRC) with $(CYGTRACE_FREERTOS_KERNEL_CFLAGS) and
 *      $(CYGTRACE_FREERTOS_PORT_SRC) without -finstrument-functions;
 *   3. link target/rtos/freertos/cygtrace_freertos.c (built without -finstrument-functions)
 *      with the runtime.
 * An interrupt handler of yours that calls the FreeRTOS API calls traceISR_ENTER() first and
 * traceISR_EXIT() (or portYIELD_FROM_ISR()) last, so that its calls form a context of their own.
 *
 * Contexts: a task is context uxTCBNumber & 0x7FFFF (its handle: the TCB), an interrupt
 * 0x80000 | its exception number (its handle: its handler's address from the vector table, the
 * Thumb bit cleared, as call records carry functions). Deeper than CYGTRACE_FREERTOS_NEST
 * nested interrupts, an interrupt's calls go to the one it preempted.
 *
 * The glue takes over each TCB's uxTaskNumber (vTaskSetTaskNumber(), uxTaskGetTaskNumber():
 * the field FreeRTOS keeps "for use by third party trace code"): it holds whether the task is
 * blocked, and who woke it.
 *
 * The host's contract (tools that read target RAM rely on it): the glue exports, in RAM,
 *
 *   struct cygtrace_freertos_info cygtrace_freertos;   (symbol name exactly this)
 *   offset  0  u32 magic          0x46475943 ("CYGF"), written last, once the rest is filled
 *                                 (at the first task's creation; 0 before)
 *   offset  4  u16 version        1
 *   offset  6  u16 name_off       offset of pcTaskName in a TCB
 *   offset  8  u16 name_len       configMAX_TASK_NAME_LEN (the name may fill it, no NUL)
 *   offset 10  u16 number_off     offset of uxTCBNumber (the context id, & 0x7FFFF)
 *   offset 12  u16 number_bytes   sizeof(UBaseType_t)
 *   offset 14  u16 tasknumber_off offset of uxTaskNumber (the glue's state)
 * so that a host whose ring wrapped past a task's NAME records reads the name from the TCB at
 * the task's handle + name_off.
 */
#ifndef CYGTRACE_FREERTOS_H
#define CYGTRACE_FREERTOS_H

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

#include "cyg_format.h"

/* Nested interrupts the glue follows (each costs two words of RAM). Default: 8. */
#ifndef CYGTRACE_FREERTOS_NEST
#define CYGTRACE_FREERTOS_NEST 8
#endif

#define CYGTRACE_FREERTOS_MAGIC 0x46475943u /* "CYGF" as a little-endian word */
#define CYGTRACE_FREERTOS_VERSION 1u

struct cygtrace_freertos_info {
    uint32_t magic;          /* the glue, last, at the first task's creation */
    uint16_t version;        /* the glue, with the rest */
    uint16_t name_off;
    uint16_t name_len;
    uint16_t number_off;
    uint16_t number_bytes;
    uint16_t tasknumber_off;
};

extern struct cygtrace_freertos_info cygtrace_freertos;

/* uxTaskNumber, as the glue keeps it: a task that blocked, then one that was woken (by the
 * context in bits 23..4, where a SCHED record carries an id). 0: neither. */
#define CYGTRACE_FREERTOS_BLOCKED 1u
#define CYGTRACE_FREERTOS_WOKEN 2u
#define CYGTRACE_FREERTOS_TASK_ID(n) ((uint32_t)(n) & 0x7FFFFu)
#define CYGTRACE_FREERTOS_ISR_ID 0x80000u

/* What the macros below call: cygtrace_freertos.c, not instrumented. Fields of a TCB, which
 * only tasks.c sees, come as arguments; tasknumber is the address of the TCB's uxTaskNumber. */

/* A task was created: learns the TCB's layout (once), names the task, clears its state. */
void cygtrace_freertos_create(void *tcb, uint32_t number, unsigned name_off, unsigned name_len,
                              unsigned number_off, unsigned number_bytes, unsigned tasknumber_off);

/* The scheduler switched tcb in: a switch (unless it runs already), then who woke it. */
void cygtrace_freertos_switched_in(void *tcb, uint32_t number, void *tasknumber);

/* The current task blocks on an object of type obj (CYG_OBJ_*), for op (CYG_OP_*); a: the
 * object's handle, or as CYG_OBJ_* says. */
void cygtrace_freertos_block(unsigned obj, unsigned op, uintptr_t a);

/* The same on a queue, a semaphore or a mutex: queue_type is its ucQueueType. */
void cygtrace_freertos_block_queue(const void *queue, unsigned queue_type, unsigned op);

/* tcb, which blocked, is made ready by the current context. */
void cygtrace_freertos_wake(void *tcb, uint32_t number, void *tasknumber);

/* A queue (semaphore, mutex) was registered under name. */
void cygtrace_freertos_queue_name(const void *queue, unsigned queue_type, const char *name);

/* An interrupt handler starts, or ends (its exit: whatever it interrupted runs again). */
void cygtrace_freertos_isr_enter(void);
void cygtrace_freertos_isr_exit(void);

/* The kernel needs these three for uxTCBNumber, uxTaskNumber and ucQueueType. */
#undef configUSE_TRACE_FACILITY
#define configUSE_TRACE_FACILITY 1

/* tasks.c: pxCurrentTCB and the TCB's fields are in scope. */
#define traceTASK_SWITCHED_IN()                                                              \
    cygtrace_freertos_switched_in(pxCurrentTCB, (uint32_t)pxCurrentTCB->uxTCBNumber,         \
                                  (void *)&pxCurrentTCB->uxTaskNumber)
#define traceTASK_CREATE(pxNewTCB)                                                           \
    cygtrace_freertos_create(                                                                \
        (pxNewTCB), (uint32_t)(pxNewTCB)->uxTCBNumber,                                       \
        (unsigned)((char *)&(pxNewTCB)->pcTaskName[0] - (char *)(pxNewTCB)),                  \
        (unsigned)configMAX_TASK_NAME_LEN,                                                   \
        (unsigned)((char *)&(pxNewTCB)->uxTCBNumber - (char *)(pxNewTCB)),                    \
        (unsigned)sizeof((pxNewTCB)->uxTCBNumber),                                           \
        (unsigned)((char *)&(pxNewTCB)->uxTaskNumber - (char *)(pxNewTCB)))
/* Only a task that blocked is woken: the test inline, since every task made ready comes here
 * (new ones, priority changes). */
#define traceMOVED_TASK_TO_READY_STATE(pxTCB)                                                \
    do {                                                                                     \
        if ((pxTCB)->uxTaskNumber & CYGTRACE_FREERTOS_BLOCKED)                               \
            cygtrace_freertos_wake((pxTCB), (uint32_t)(pxTCB)->uxTCBNumber,                  \
                                   (void *)&(pxTCB)->uxTaskNumber);                          \
    } while (0)
#define traceTASK_DELAY() cygtrace_freertos_block(CYG_OBJ_DELAY, 0, (uintptr_t)xTicksToDelay)
/* x is the tick to wake at (xTaskDelayUntil, and a timer task's wait): the ticks asked for are
 * what is left of them now. */
#define traceTASK_DELAY_UNTIL(x)                                                             \
    cygtrace_freertos_block(CYG_OBJ_DELAY, 0, (uintptr_t)((x) - xTickCount))
#define traceTASK_NOTIFY_TAKE_BLOCK(uxIndexToWait)                                           \
    cygtrace_freertos_block(CYG_OBJ_NOTIFY, 0, (uintptr_t)(uxIndexToWait))
#define traceTASK_NOTIFY_WAIT_BLOCK(uxIndexToWait)                                           \
    cygtrace_freertos_block(CYG_OBJ_NOTIFY, 0, (uintptr_t)(uxIndexToWait))
/* vTaskSuspend(): only a task that suspends itself blocks. */
#define traceTASK_SUSPEND(pxTaskToSuspend)                                                   \
    do {                                                                                     \
        if ((pxTaskToSuspend) == pxCurrentTCB)                                               \
            cygtrace_freertos_block(CYG_OBJ_SUSPEND, 0, 0);                                  \
    } while (0)

/* Cortex-M ports: xPortSysTickHandler and portEND_SWITCHING_ISR. */
#define traceISR_ENTER() cygtrace_freertos_isr_enter()
#define traceISR_EXIT() cygtrace_freertos_isr_exit()
#define traceISR_EXIT_TO_SCHEDULER() cygtrace_freertos_isr_exit()

/* queue.c: the queue is in scope, the TCB is not (the glue finds the current one). */
#define traceBLOCKING_ON_QUEUE_RECEIVE(pxQueue)                                              \
    cygtrace_freertos_block_queue((pxQueue), (pxQueue)->ucQueueType, CYG_OP_RECEIVE)
#define traceBLOCKING_ON_QUEUE_SEND(pxQueue)                                                 \
    cygtrace_freertos_block_queue((pxQueue), (pxQueue)->ucQueueType, CYG_OP_SEND)
#define traceBLOCKING_ON_QUEUE_PEEK(pxQueue)                                                 \
    cygtrace_freertos_block_queue((pxQueue), (pxQueue)->ucQueueType, CYG_OP_PEEK)
#define traceQUEUE_REGISTRY_ADD(xQueue, pcQueueName)                                         \
    cygtrace_freertos_queue_name((xQueue), (xQueue)->ucQueueType, (pcQueueName))

/* stream_buffer.c, event_groups.c */
#define traceBLOCKING_ON_STREAM_BUFFER_SEND(xStreamBuffer)                                   \
    cygtrace_freertos_block(CYG_OBJ_STREAM, CYG_OP_SEND, (uintptr_t)(xStreamBuffer))
#define traceBLOCKING_ON_STREAM_BUFFER_RECEIVE(xStreamBuffer)                                \
    cygtrace_freertos_block(CYG_OBJ_STREAM, CYG_OP_RECEIVE, (uintptr_t)(xStreamBuffer))
#define traceEVENT_GROUP_SYNC_BLOCK(xEventGroup, uxBitsToSet, uxBitsToWaitFor)               \
    cygtrace_freertos_block(CYG_OBJ_EVENTS, CYG_OP_RECEIVE, (uintptr_t)(xEventGroup))
#define traceEVENT_GROUP_WAIT_BITS_BLOCK(xEventGroup, uxBitsToWaitFor)                       \
    cygtrace_freertos_block(CYG_OBJ_EVENTS, CYG_OP_RECEIVE, (uintptr_t)(xEventGroup))

#endif /* __ASSEMBLER__ */
#endif
