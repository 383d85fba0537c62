/* SPDX-License-Identifier: MIT */
/* tracing_user.h (cygtrace) - Zephyr's CONFIG_TRACING_USER header, extended: the module puts
 * this folder before Zephyr's subsys/tracing/user in the include path, so that tracing.h
 * includes this file, which includes Zephyr's own (the thread and interrupt hooks, which call
 * the sys_trace_*_user functions cygtrace_zephyr.c defines), then defines the object-level
 * hooks that Zephyr's leaves empty: where a thread blocks, on which object, for what. */
#ifndef CYGTRACE_TRACING_USER_H
#define CYGTRACE_TRACING_USER_H

#include_next <tracing_user.h>

#include "cygtrace_zephyr.h"

#define CYGZ_BLOCK(type, op, obj) cygtrace_zephyr_block((type), (op), (uintptr_t)(obj))

#undef sys_port_trace_k_thread_sleep_enter
#define sys_port_trace_k_thread_sleep_enter(timeout) cygtrace_zephyr_sleep((timeout).ticks)

#undef sys_port_trace_k_sem_take_blocking
#define sys_port_trace_k_sem_take_blocking(sem, timeout)                                     \
    CYGZ_BLOCK(CYG_OBJ_K_SEM, 0, sem)
#undef sys_port_trace_k_mutex_lock_blocking
#define sys_port_trace_k_mutex_lock_blocking(mutex, timeout)                                 \
    CYGZ_BLOCK(CYG_OBJ_K_MUTEX, 0, mutex)
#undef sys_port_trace_k_queue_get_blocking
#define sys_port_trace_k_queue_get_blocking(queue, timeout)                                  \
    CYGZ_BLOCK(CYG_OBJ_K_QUEUE, CYG_OP_RECEIVE, queue)
#undef sys_port_trace_k_queue_queue_insert_blocking
#define sys_port_trace_k_queue_queue_insert_blocking(queue, alloc, timeout)                  \
    CYGZ_BLOCK(CYG_OBJ_K_QUEUE, CYG_OP_SEND, queue)
#undef sys_port_trace_k_msgq_get_blocking
#define sys_port_trace_k_msgq_get_blocking(msgq, timeout)                                    \
    CYGZ_BLOCK(CYG_OBJ_K_MSGQ, CYG_OP_RECEIVE, msgq)
#undef sys_port_trace_k_msgq_put_blocking
#define sys_port_trace_k_msgq_put_blocking(msgq, timeout)                                    \
    CYGZ_BLOCK(CYG_OBJ_K_MSGQ, CYG_OP_SEND, msgq)
#undef sys_port_trace_k_msgq_put_front_blocking
#define sys_port_trace_k_msgq_put_front_blocking(msgq, timeout)                              \
    CYGZ_BLOCK(CYG_OBJ_K_MSGQ, CYG_OP_SEND, msgq)
#undef sys_port_trace_k_stack_pop_blocking
#define sys_port_trace_k_stack_pop_blocking(stack, timeout)                                  \
    CYGZ_BLOCK(CYG_OBJ_K_STACK, CYG_OP_RECEIVE, stack)
#undef sys_port_trace_k_pipe_read_blocking
#define sys_port_trace_k_pipe_read_blocking(pipe, timeout)                                   \
    CYGZ_BLOCK(CYG_OBJ_K_PIPE, CYG_OP_RECEIVE, pipe)
#undef sys_port_trace_k_pipe_write_blocking
#define sys_port_trace_k_pipe_write_blocking(pipe, timeout)                                  \
    CYGZ_BLOCK(CYG_OBJ_K_PIPE, CYG_OP_SEND, pipe)
#undef sys_port_trace_k_event_wait_blocking
#define sys_port_trace_k_event_wait_blocking(event, events, options, timeout)                \
    CYGZ_BLOCK(CYG_OBJ_EVENTS, CYG_OP_RECEIVE, event)

#endif
