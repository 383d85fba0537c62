/* SPDX-License-Identifier: MIT */
/* cygtrace_port.h (linux) - the port contract of cygtrace_internal.h for Linux processes:
 * threads share one ring through an atomic counter, each thread tags its records with a small
 * index, and the clock is the CPU's counter where it has a cheap one. */
#ifndef CYGTRACE_PORT_H
#define CYGTRACE_PORT_H

#include <stdint.h>
#include <time.h>

/* 64-bit: each thread fills chunks of 64 slots of its own (before cygtrace_internal.h, whose
 * struct cyg_rt has the chunk's fields then). 32-bit records carry no thread index, so threads
 * could not be told apart in chunks: they reserve a slot an event. */
#if UINTPTR_MAX > 0xffffffffu
#define CYG_PORT_CHUNK_LOG2 6u
#endif

#include "cygtrace_internal.h"

#if defined(__x86_64__)
#define CYG_PORT_MACHINE 62u /* EM_X86_64 */
#elif defined(__aarch64__)
#define CYG_PORT_MACHINE 183u /* EM_AARCH64 */
#elif defined(__riscv)
#define CYG_PORT_MACHINE 243u /* EM_RISCV */
#elif defined(__arm__)
#define CYG_PORT_MACHINE 40u /* EM_ARM */
#elif defined(__i386__)
#define CYG_PORT_MACHINE 3u /* EM_386 */
#else
#error "cygtrace: the linux port does not know this architecture's ELF machine number"
#endif

/* What the hooks keep per thread, in one block of thread-local storage: one address to look
 * up for all three. */
/* What a version 4 ring's hooks keep per thread (FORMAT.md 15.3, 15.4). */
struct cyg_v4l_tls {
    uintptr_t limit; /* a clock reading from here on needs a new epoch first */
    uintptr_t rlo;   /* the thread's last code region: its start */
    uintptr_t rbits; /* ... and its index, in place in the word */
    uintptr_t rlo2;  /* the one before (calls to and fro between two objects) */
    uintptr_t rbits2;
};

struct cyg_linux_tls {
    uintptr_t tid;    /* this thread's index, shifted into place for word a; 0 until its first
                         event */
    uintptr_t cursor; /* 64-bit: the next slot of its chunk (FORMAT.md section 5.1) */
    uintptr_t end;    /* one past its chunk's last slot; 0: no chunk yet */
    int busy;         /* the runtime runs C library code for this thread (cyg_port_busy) */
    uint32_t tstate[3]; /* the control area's depth and hide filters (cyg_port_tstate) */
    struct cyg_v4l_tls v4; /* version 4 rings (FORMAT.md 15): the epoch's limit, the region */
};

extern __thread struct cyg_linux_tls cyg_linux_tls
    __attribute__((tls_model("initial-exec"))) CYG_HIDDEN;

#define cyg_linux_tid cyg_linux_tls.tid

#ifdef CYG_PORT_CHUNK_LOG2

/* Reads the end of this thread's chunk into *end, then takes the next slot from its cursor:
 * in that order, so that a signal handler that installs a new chunk in between leaves a slot
 * past the old end (turned down: no slot is ever taken twice), not one of the new chunk taken
 * against the new end by both. The increment is one instruction, so that a handler runs before
 * or after it, never inside: no lock prefix, as no other thread touches the word. Elsewhere the
 * compiler's atomic (LL/SC, or LSE's ldadd), which a handler cannot split either. */
__attribute__((no_instrument_function, always_inline)) static inline uintptr_t
cyg_port_cursor_take_n(uintptr_t *end, uintptr_t n)
{
#if defined(__x86_64__)
    uintptr_t v = n;

    __asm__ volatile("movq %2, %1\n\txaddq %0, %3"
                     : "+r"(v), "=&r"(*end)
                     : "m"(cyg_linux_tls.end), "m"(cyg_linux_tls.cursor)
                     : "memory");
    return v;
#else
    *end = *(volatile uintptr_t *)&cyg_linux_tls.end;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return __atomic_fetch_add(&cyg_linux_tls.cursor, n, __ATOMIC_RELAXED);
#endif
}

#define cyg_port_cursor_take(end) cyg_port_cursor_take_n(end, 1)

/* Version 4: the thread's epoch limit and region (FORMAT.md 15). */
#define CYG_PORT_V4L 1
#define cyg_port_v4l() (&cyg_linux_tls.v4)

/* Whether the thread's index is settled: not a vfork child's, whose chunks its parent must not
 * go on filling once it resumes (version 4 names a chunk's thread in its first word only). */
#define cyg_port_settled() (cyg_linux_tls.tid != 0)

/* The thread's index, 0 before its first event (then cyg_port_thread() gives it one). */
#define cyg_port_thread_peek() (cyg_linux_tls.tid)

__attribute__((no_instrument_function, always_inline)) static inline int
cyg_port_cursor_cas(uintptr_t from, uintptr_t to)
{
    return __atomic_compare_exchange_n(&cyg_linux_tls.cursor, &from, to, 0, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED);
}

/* A plain store: only this thread and its signal handlers touch the word. */
__attribute__((no_instrument_function, always_inline)) static inline void
cyg_port_cursor_set_end(uintptr_t end)
{
    *(volatile uintptr_t *)&cyg_linux_tls.end = end;
}

/* As cyg_port_reserve, n slots at once. */
__attribute__((no_instrument_function, always_inline)) static inline uintptr_t
cyg_port_claim(volatile uintptr_t *head, uintptr_t n)
{
    uintptr_t seq = __atomic_fetch_add(head, n, __ATOMIC_RELAXED);

    __atomic_thread_fence(__ATOMIC_RELEASE);
    return seq;
}
#endif


/* Gives the calling thread its index and records which OS thread it is. */
uintptr_t cyg_linux_thread_new(void) CYG_HIDDEN;

/* Sets up the ring on the first event (see cyg_port_wake). */
int cyg_linux_wake(void) CYG_HIDDEN;

/* The reservation is made visible before the record's stores: a reader (the stream drain, a
 * followed ring) that copies a slot and then finds head short of its next lap relies on no
 * writer of that next lap having stored there yet. A release fence after the increment orders
 * it before the stores that follow: on x86 (lock xadd) it costs nothing, on AArch64 one barrier. */
__attribute__((no_instrument_function, always_inline)) static inline uintptr_t
cyg_port_reserve(volatile uintptr_t *head)
{
    uintptr_t seq = __atomic_fetch_add(head, 1, __ATOMIC_RELAXED);

    __atomic_thread_fence(__ATOMIC_RELEASE);
    return seq;
}

__attribute__((no_instrument_function, always_inline)) static inline uintptr_t cyg_port_now(void)
{
#if defined(__x86_64__)
    return (uintptr_t)__builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uintptr_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uintptr_t)((uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec);
#endif
}

__attribute__((no_instrument_function, always_inline)) static inline uintptr_t
cyg_port_thread(void)
{
    uintptr_t t;

    if (sizeof(uintptr_t) != 8)
        return 0;
    t = cyg_linux_tid;
    if (__builtin_expect(t == 0, 0))
        t = cyg_linux_thread_new();
    return t;
}

__attribute__((no_instrument_function, always_inline)) static inline void cyg_port_release(void)
{
#if defined(__x86_64__) || defined(__i386__)
    /* x86 keeps stores in order: the compiler is the only one that could reorder them. */
    __atomic_signal_fence(__ATOMIC_RELEASE);
#else
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

__attribute__((no_instrument_function, always_inline)) static inline void cyg_port_acquire(void)
{
#if defined(__x86_64__) || defined(__i386__)
    /* x86 keeps loads in order too. */
    __atomic_signal_fence(__ATOMIC_ACQUIRE);
#else
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

__attribute__((no_instrument_function, always_inline)) static inline int cyg_port_wake(void)
{
    return cyg_linux_wake();
}

/* A program that wraps C library functions it calls (cygtrace wrap: --wrap=open) and links
 * libcygtrace.a has the runtime's own calls of them reach the wrappers too: those must not
 * record (a thread's first event would record inside its own set-up). The runtime counts
 * itself busy while it runs code of the library's for a thread (cygtrace_linux.c). */
#define CYG_PORT_TSTATE 1
__attribute__((no_instrument_function, always_inline)) static inline uint32_t *
cyg_port_tstate(void)
{
    return cyg_linux_tls.tstate;
}

__attribute__((no_instrument_function, always_inline)) static inline int cyg_port_busy(void)
{
    return cyg_linux_tls.busy;
}

#endif
