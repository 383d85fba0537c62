/* cygtrace_port.h (linux) - the port contract of cygtrace_internal.h for Linux processes:
 * threads share one ring through an atomic counter, each thread tags its records with a small
 * index, and the clock is the CPU's counter where it has a cheap one. */
#ifndef CYGTRACE_PORT_H
#define CYGTRACE_PORT_H

#include <stdint.h>
#include <time.h>

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

/* 64-bit: each thread fills chunks of 64 slots of its own (FORMAT.md section 4); its cursor is
 * a thread-local word. 32-bit records carry no thread index, so threads could not be told
 * apart in chunks: they reserve a slot an event. */
#if UINTPTR_MAX > 0xffffffffu
#define CYG_PORT_CHUNK_LOG2 6u

extern __thread uintptr_t cyg_linux_cursor __attribute__((tls_model("initial-exec"))) CYG_HIDDEN;

/* One instruction, so that a signal handler runs before or after it, never inside: no lock
 * prefix, as no other thread touches the word. Elsewhere the compiler's atomic (LL/SC, or
 * LSE's ldadd), which a handler cannot split either. */
__attribute__((no_instrument_function, always_inline)) static inline uintptr_t
cyg_port_cursor_inc(void)
{
#if defined(__x86_64__)
    uintptr_t v = 1;

    __asm__ volatile("xaddq %0, %1" : "+r"(v), "+m"(cyg_linux_cursor));
    return v;
#else
    return __atomic_fetch_add(&cyg_linux_cursor, 1, __ATOMIC_RELAXED);
#endif
}

__attribute__((no_instrument_function, always_inline)) static inline int
cyg_port_cursor_cas(uintptr_t from, uintptr_t to)
{
    return __atomic_compare_exchange_n(&cyg_linux_cursor, &from, to, 0, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED);
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

/* This thread's index, already shifted into place for word a; 0 until its first event. */
extern __thread uintptr_t cyg_linux_tid __attribute__((tls_model("initial-exec"))) CYG_HIDDEN;

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

#endif
