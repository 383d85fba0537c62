/* SPDX-License-Identifier: MIT */
/* cygtrace_linux.c - the Linux port: the ring is a shared mapping of a file, so that it
 * outlives the process (a crash, abort(), kill -9) and a host can decode it afterwards.
 *
 * Set-up happens in a constructor, before main, when some loaded object calls the hooks (the
 * program, or a library it links, built with -finstrument-functions; or the program linked
 * with libcygtrace.a). A process that has the preloaded runtime but no instrumented code (a
 * shell between `cygtrace record` and the program) creates no file. An instrumented library
 * that dlopen brings in later sets the ring up inside that dlopen (its constructors) or at the
 * program's next call of the loader (see the dlopen trampoline). All of these run
 * where the program itself could call malloc and stdio; a hook's first event could run in a
 * signal handler that interrupted malloc, so a hook never sets up (save a forked child's ring,
 * made with system calls only): it drops the event and counts it as lost instead.
 *
 * Environment (read with secure_getenv: a set-user-ID or set-group-ID program ignores it, and
 * writes no trace at all unless the runtime is built with CYGTRACE_PRIVILEGED=1):
 * CYGTRACE_OUT (file, default cygtrace.out), CYGTRACE_SIZE (bytes, K/M/G suffixes, default
 * 16M), CYGTRACE_MODE (overwrite|stop), CYGTRACE_CALLSITES (1 records call sites),
 * CYGTRACE_FORMAT (4: 64-bit rings of one 8-byte word a call, FORMAT.md 15), CYGTRACE_OFF (1 records nothing), CYGTRACE_SIGNALS (0: do not record fatal signals);
 * triggers and record-time filters: CYGTRACE_TRIGGER, CYGTRACE_EXCLUDE, CYGTRACE_HIDE,
 * CYGTRACE_DEPTH, CYGTRACE_EVENTS (cygtrace_envctrl.c).
 *
 * Files (cygtrace_file.c): 0600, no symbolic link followed, blocks reserved up front, locked
 * while mapped. When CYGTRACE_OUT is the live ring of another process (two runs in one
 * directory), this process records into CYGTRACE_OUT.<pid> instead and says so.
 *
 * Beside the ring, RING.maps says where each loaded object sits (cygtrace_maps.c). A process's
 * ring is CYGTRACE_OUT for the first process of a run; a forked child and an exec'ed program
 * record into CYGTRACE_OUT.<pid> (CYGTRACE_OUT.<pid>.<n> for the n-th exec in one process),
 * say so in their own maps file ("process" line) and in the first process's ("child" line).
 * The environment variable CYGTRACE_RING, set at set-up, is how an exec'ed program knows it is
 * not the first. A vfork child's calls go to a thread of their own, named by its pid.
 *
 * A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) is recorded as a fault record with
 * the interrupted PC and the faulting address, and freezes the ring, so the trace ends where
 * the program died; then the signal goes on as it would have (the previous handler, or the
 * default action and its core dump). A SIGBUS in the ring's own mapping (its file truncated by
 * another program) is not fatal: see on_bus.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "cygtrace_linux.h"
#include "cygtrace_port.h"
#include "cyg_v4l.h"

/* The format version of a 64-bit ring when CYGTRACE_FORMAT does not say: 3 (16-byte records) or
 * 4 (8-byte records, FORMAT.md 15). */
#ifndef CYGTRACE_LINUX_FORMAT
#define CYGTRACE_LINUX_FORMAT 3
#endif
#if CYGTRACE_LINUX_FORMAT != 3 && CYGTRACE_LINUX_FORMAT != 4
#error "CYGTRACE_LINUX_FORMAT must be 3 or 4"
#endif

#define DEFAULT_SIZE ((size_t)16 << 20)
#define MIN_SIZE ((size_t)4096)
#define MAX_SIZE ((size_t)64 << 30)

enum { SETUP_NONE, SETUP_BUSY, SETUP_DONE };

/* A thread's region starts as none: no address passes for one of region 0 before it has one
 * (version 4, FORMAT.md 15.4). */
__thread struct cyg_linux_tls cyg_linux_tls __attribute__((tls_model("initial-exec"))) = {
    .v4 = {.rlo = (uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1),
           .rlo2 = (uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1)}};

/* The settings, read once before main (or by the first set-up, when that comes first). */
static struct {
    int read;
    int off;                  /* no trace: CYGTRACE_OFF, a privileged program, no memory */
    char base[PATH_MAX];      /* CYGTRACE_OUT, made absolute: the program may chdir */
    char ring[PATH_MAX];      /* this process's ring */
    const char *how;          /* start, fork or exec */
    char parent[PATH_MAX];    /* CYGTRACE_RING: the ring of the process before us, or "" */
    size_t size;              /* the records' share, a power of two */
    unsigned flags;
    int signals;
} cfg;

static int setup_state = SETUP_NONE;
static int ctor_done;              /* set-up from a hook is no longer safe (see the top) */
#define TLS_IE __attribute__((tls_model("initial-exec"))) /* no allocation on first use */
static __thread int in_dlopen TLS_IE; /* ... except after a dlopen (cyg_linux_wake) */
static int forked;                 /* set in a forked child until its ring is made */
static uintptr_t unset_lost;       /* events dropped before the ring was set up */
static uintptr_t next_thread;
static uint64_t tsc_base, ns_base; /* clock calibration anchor, taken at set-up */
static uint64_t image_bias;        /* the program's, found at the first set-up */
static const uint8_t *image_id;
static size_t image_id_len;
static void *ring_mem;             /* this process's mapping, unmapped by a forked child */
static size_t ring_bytes;
static int atfork_done;            /* signal and fork handlers set once; a forked child inherits
                                      them */
static pthread_key_t end_key;      /* its destructor pads an ending thread's chunk */
static int end_key_made;

/* The runtime's own calls of the C library (open, write, malloc, dlsym...) must not be recorded
 * by wrappers of those functions (cygtrace wrap, in a program linked with libcygtrace.a):
 * every entry of the runtime that may call the library counts the thread busy meanwhile
 * (cyg_port_busy, which the wrappers ask). */
#define BUSY() (cyg_linux_tls.busy++)
#define UNBUSY() (cyg_linux_tls.busy--)

NOINSTR static uint64_t mono_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Ticks per second of cyg_port_now(), measured against CLOCK_MONOTONIC since the anchor. */
NOINSTR static uint64_t clock_hz(void)
{
#if defined(__x86_64__)
    uint64_t ns = mono_ns() - ns_base, ticks = cyg_port_now() - tsc_base;

    return ns ? (uint64_t)((double)ticks * 1e9 / (double)ns + 0.5) : 0;
#elif defined(__aarch64__)
    uint64_t f;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
    return f;
#else
    return 1000000000u;
#endif
}

NOINSTR static int setup_once(void);

/* --- The hooks' own cost (FORMAT.md 2.8) -----------------------------------------------------
 * Measured once, at the set-up in the constructor, within the millisecond it waits for the
 * clock's rate anyway (some 100 us of it): the hooks themselves, the real ones, in 16 rounds of
 * 256 enter and exit pairs into a scratch ring of 1024 records set up before the program's ring
 * (the thread under a made-up index meanwhile, so that it takes none; a chunk any thread kept
 * of the scratch ring is of no later ring: cyg_rt.base); the first round pages the scratch in,
 * the median of the others counts, in 1/256 tick an event. Then the
 * program's ring, whose pages its first lap faults in one by one (a page of a shared file: some
 * microseconds, more than the hooks' time in all on a short run): a store to each of 15 of its
 * pages half a ring ahead, a zero where a zero is, the median counts. A forked child keeps its
 * parent's figures. */
#define CALIB_PAIRS 256u /* enter and exit pairs a round */
#define CALIB_ROUNDS 15u
#define CALIB_RECORDS 1024u
static uint64_t calib_ring[(CYGTRACE_RING_OVERHEAD + CALIB_RECORDS * 32u) / 8u]
    __attribute__((aligned(64)));
static uint32_t hook_cost, page_cost; /* the figures, kept for forked children */

/* The event the rounds record: any address, never called. */
NOINSTR static void calib_fn(void)
{
}

NOINSTR static uint64_t calib_median(uint64_t *r)
{
    for (unsigned i = 1; i < CALIB_ROUNDS; i++) /* insertion sort: 15 numbers */
        for (unsigned j = i; j > 0 && r[j - 1] > r[j]; j--) {
            uint64_t q = r[j];

            r[j] = r[j - 1];
            r[j - 1] = q;
        }
    return r[CALIB_ROUNDS / 2];
}

/* The hooks' cost per event in 1/256 tick (CYG_HOOK_COST_MASK at most), 0 when not measured. */
NOINSTR static uint32_t calib_hooks(void)
{
    uintptr_t tid = cyg_linux_tid, cursor = cyg_linux_tls.cursor, end = cyg_linux_tls.end;
    uint64_t r[CALIB_ROUNDS + 1], q;
    struct cyg_ctl *ctl;

    if (!CYGTRACE_TIMESTAMPS)
        return 0;
    /* an index of its own for the time: no THREAD record, no "thread" line, no index taken */
    if (sizeof(uintptr_t) == 8)
        cyg_linux_tid = (uintptr_t)((uint64_t)1 << CYG64_THREAD_SHIFT);
    /* lapping, as a flight recorder: a ring that stops when full would stop the rounds */
    if (cygtrace_init(calib_ring, sizeof calib_ring, cfg.flags | CYG_F_OVERWRITE) < 0 ||
        !(ctl = cygtrace_control_block())) {
        cyg_linux_tid = tid;
        return 0;
    }
    if (ctl->state != CYG_S_RUNNING)
        cygtrace_start();
    for (unsigned k = 0; k <= CALIB_ROUNDS; k++) {
        uint64_t t0 = cyg_port_now(), t1;

        for (unsigned i = 0; i < CALIB_PAIRS; i++) {
            __cyg_profile_func_enter((void *)calib_fn, (void *)calib_hooks);
            __cyg_profile_func_exit((void *)calib_fn, (void *)calib_hooks);
        }
        t1 = cyg_port_now();
        r[k] = t1 > t0 ? ((t1 - t0) << 8) / (2u * CALIB_PAIRS) : 0;
    }
    cyg_linux_tid = tid;
    cyg_linux_tls.cursor = cursor;
    cyg_linux_tls.end = end;
    q = ctl->state == CYG_S_RUNNING ? calib_median(r + 1) : 0; /* the first: paging in */
    return q > CYG_HOOK_COST_MASK ? CYG_HOOK_COST_MASK : (uint32_t)q;
}

/* What a record that faults its page in costs more, in ticks; 0 when not measured. */
NOINSTR static uint32_t calib_pages(void *mem, size_t bytes, unsigned log2)
{
    uintptr_t page = (uintptr_t)1 << log2, p;
    uint64_t fresh[CALIB_ROUNDS], warm[CALIB_ROUNDS], f, w;

    if (!CYGTRACE_TIMESTAMPS || !log2 || bytes < 4u * CALIB_ROUNDS * page)
        return 0;
    /* from half the ring on: far ahead of the first records, and of a reader's interest */
    p = ((uintptr_t)mem + bytes / 2u + page - 1u) & ~(page - 1u);
    for (unsigned k = 0; k < CALIB_ROUNDS; k++, p += page) {
        volatile uintptr_t *w0 = (volatile uintptr_t *)p;
        uint64_t t0 = cyg_port_now(), t1, t2;

        *w0 = 0; /* the ring's records are zero: a zero changes nothing */
        t1 = cyg_port_now();
        w0[1] = 0;
        t2 = cyg_port_now();
        fresh[k] = t1 - t0;
        warm[k] = t2 - t1;
    }
    f = calib_median(fresh);
    w = calib_median(warm);
    return f > w ? (f - w > 0xffffffffu ? 0xffffffffu : (uint32_t)(f - w)) : 0;
}

/* log2 of the memory page size. */
NOINSTR static unsigned page_log2(void)
{
    long p = sysconf(_SC_PAGESIZE);

    return p > 0 && !(p & (p - 1)) ? (unsigned)__builtin_ctzl((unsigned long)p) : 0;
}

/* An ending thread's key destructor: the rest of its chunk is padded, so that a reader waits
 * for none of it. */
NOINSTR static void thread_end(void *unused)
{
    (void)unused;
    if (cyg_linux_tid)
        cyg_core_thread_end(cyg_linux_tid);
}
NOINSTR static void child_after_fork(void);

/* The dynamic loader's entry points. glibc takes the caller of dlopen, dlmopen and dlsym from
 * their return address: the caller's $ORIGIN, DT_RPATH or DT_RUNPATH and namespace decide
 * which file dlopen loads, its place in the search order what dlsym(RTLD_NEXT) finds. A
 * wrapper that called the real function would make the runtime the caller. So each is an
 * assembly trampoline (below) that calls cyg_linux_dl_enter, then jumps to the real function
 * with the caller's arguments and return address as they came: the loader resolves exactly as
 * it would without us, and nothing of ours runs after it. The bookkeeping of a load (the map
 * names the new objects; a program that had no instrumented code, or a forked child that has
 * not recorded yet, sets the ring up; trigger names that nothing loaded before defined are
 * armed) is done at the next entry of any of them instead: in practice the dlsym that fetches
 * a plugin's first function, before that function runs; else dlclose, before the object goes;
 * else the exit. dl_iterate_phdr's count of the objects ever added tells, for the price of
 * one uncontended lock, whether there is anything to do. */
enum { DL_OPEN, DL_MOPEN, DL_SYM, DL_CLOSE, DL_COUNT };
static const char *const dl_names[DL_COUNT] = {"dlopen", "dlmopen", "dlsym", "dlclose"};
static void *dl_real[DL_COUNT];
static unsigned long long dl_seen; /* objects added when the map was last brought up to date */
static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;

#if defined(__x86_64__)
#define DL_BASE_VERSION "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define DL_BASE_VERSION "GLIBC_2.17"
#else
#define DL_BASE_VERSION "GLIBC_2.0"
#endif

/* What a missing real function does (never seen: glibc has them all): fails. */
NOINSTR static void *dl_absent_ptr(void)
{
    return NULL;
}

NOINSTR static int dl_absent_int(void)
{
    return -1;
}

NOINSTR static int adds_of(struct dl_phdr_info *info, size_t size, void *arg)
{
    *(unsigned long long *)arg =
        size >= offsetof(struct dl_phdr_info, dlpi_subs) ? info->dlpi_adds : 0;
    return 1;
}

/* How many objects the loader has ever added to this process (dlclose does not lower it). */
NOINSTR static unsigned long long dl_adds(void)
{
    unsigned long long n = 0;

    dl_iterate_phdr(adds_of, &n);
    return n;
}

/* The real function, found once: dlsym by its version (the trampoline is the dlsym that the
 * runtime's own calls bind to), the others through it. */
NOINSTR static void *dl_lookup(unsigned which)
{
    void *(*sym)(void *, const char *) = __atomic_load_n(&dl_real[DL_SYM], __ATOMIC_ACQUIRE);
    void *f;

    if (!sym) {
        sym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!sym)
            sym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", DL_BASE_VERSION);
        if (!sym)
            return NULL;
        __atomic_store_n(&dl_real[DL_SYM], (void *)sym, __ATOMIC_RELEASE);
    }
    f = which == DL_SYM ? (void *)sym : sym(RTLD_NEXT, dl_names[which]);
    if (f)
        __atomic_store_n(&dl_real[which], f, __ATOMIC_RELEASE);
    return f;
}

/* The bookkeeping of the loads since the last call, if any. Where the program calls the
 * loader, so where it could call malloc. */
NOINSTR static void dl_catch_up(void)
{
    unsigned long long adds = dl_adds();

    if (adds == __atomic_load_n(&dl_seen, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&dl_lock); /* another thread's call waits until the triggers are armed */
    adds = dl_adds();
    if (adds != dl_seen) {
        int st;

        if (__atomic_load_n(&setup_state, __ATOMIC_ACQUIRE) == SETUP_NONE &&
            (forked || cyg_maps_instrumented()))
            setup_once();
        st = __atomic_load_n(&setup_state, __ATOMIC_ACQUIRE);
        if (st == SETUP_DONE) {
            cyg_maps_refresh();
            cyg_envctrl_dlopened(image_bias);
        }
        if (st != SETUP_BUSY) /* else another thread's set-up may have missed them: later */
            __atomic_store_n(&dl_seen, adds, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&dl_lock);
}

/* A forked child's copy of dl_lock may be held by a thread that is not in the child. Set
 * before main whether the process records or not (child_after_fork is set at set-up only). */
NOINSTR static void dl_after_fork(void)
{
    pthread_mutex_init(&dl_lock, NULL);
}

/* Called by the trampoline of dl_names[which]: returns the real function for it to jump to.
 * Calls of the runtime's own (busy: its dlsym of vfork) go straight through. */
NOINSTR CYG_HIDDEN void *cyg_linux_dl_enter(unsigned which)
{
    void *real = __atomic_load_n(&dl_real[which], __ATOMIC_ACQUIRE);
    int own = cyg_linux_tls.busy != 0;

    BUSY();
    if (!real)
        real = dl_lookup(which);
    /* Before our constructor nothing needs catching up (it maps what is loaded), and the
     * caller may be another library's start-up: AddressSanitizer calls dlsym inside its own
     * initialisation, when the functions it intercepts (pthread_mutex_lock,
     * dl_iterate_phdr) cannot be called yet. */
    if (!own && __atomic_load_n(&ctor_done, __ATOMIC_ACQUIRE)) {
        dl_catch_up();
        /* The new object's constructors run inside the real dlopen, and may be the first
         * instrumented code: a hook may set the ring up until this thread's next call here. */
        in_dlopen = which == DL_OPEN || which == DL_MOPEN;
    }
    UNBUSY();
    if (!real)
        real = which == DL_CLOSE ? (void *)dl_absent_int : (void *)dl_absent_ptr;
    return real;
}

/* The trampolines: the arguments (four registers cover dlmopen's three) are kept across the
 * call, then the real function is jumped to, so that it returns straight to the program. The
 * call frame information lets a debugger or an unwinder go through cyg_linux_dl_enter. */
#if defined(__x86_64__)
#define DL_TRAMPOLINE(name, which)                                                            \
    __asm__(".text\n"                                                                         \
            ".globl " name "\n"                                                               \
            ".type " name ", @function\n" name ":\n"                                          \
            "    .cfi_startproc\n"                                                            \
            "    push %rdi\n"                                                                 \
            "    push %rsi\n"                                                                 \
            "    push %rdx\n"                                                                 \
            "    push %rcx\n"                                                                 \
            "    sub $8, %rsp\n"                                                              \
            "    .cfi_adjust_cfa_offset 40\n"                                                 \
            "    mov $" which ", %edi\n"                                                      \
            "    call cyg_linux_dl_enter\n"                                                   \
            "    add $8, %rsp\n"                                                              \
            "    pop %rcx\n"                                                                  \
            "    pop %rdx\n"                                                                  \
            "    pop %rsi\n"                                                                  \
            "    pop %rdi\n"                                                                  \
            "    .cfi_adjust_cfa_offset -40\n"                                                \
            "    jmp *%rax\n"                                                                 \
            "    .cfi_endproc\n"                                                              \
            ".size " name ", .-" name "\n")
#elif defined(__aarch64__)
/* x16: an indirect branch that a BTI "c" landing pad (glibc's functions start with one)
 * accepts. */
#define DL_TRAMPOLINE(name, which)                                                            \
    __asm__(".text\n"                                                                         \
            ".globl " name "\n"                                                               \
            ".type " name ", %function\n" name ":\n"                                          \
            "    .cfi_startproc\n"                                                            \
            "    stp x29, x30, [sp, #-48]!\n"                                                 \
            "    .cfi_def_cfa_offset 48\n"                                                    \
            "    .cfi_offset 29, -48\n"                                                       \
            "    .cfi_offset 30, -40\n"                                                       \
            "    mov x29, sp\n"                                                               \
            "    stp x0, x1, [sp, #16]\n"                                                     \
            "    stp x2, x3, [sp, #32]\n"                                                     \
            "    mov w0, #" which "\n"                                                        \
            "    bl cyg_linux_dl_enter\n"                                                     \
            "    mov x16, x0\n"                                                               \
            "    ldp x2, x3, [sp, #32]\n"                                                     \
            "    ldp x0, x1, [sp, #16]\n"                                                     \
            "    ldp x29, x30, [sp], #48\n"                                                   \
            "    .cfi_def_cfa_offset 0\n"                                                     \
            "    .cfi_restore 29\n"                                                           \
            "    .cfi_restore 30\n"                                                           \
            "    br x16\n"                                                                    \
            "    .cfi_endproc\n"                                                              \
            ".size " name ", .-" name "\n")
#else
/* No trampolines: the map names what dlopen loads at the exit only. */
#define DL_TRAMPOLINE(name, which)
#endif
DL_TRAMPOLINE("dlopen", "0");
DL_TRAMPOLINE("dlmopen", "1");
DL_TRAMPOLINE("dlsym", "2");
DL_TRAMPOLINE("dlclose", "3");

/* The ring's file name: CYGTRACE_OUT for the first process of a run (no CYGTRACE_RING in the
 * environment), else base.<pid>, or base.<pid>.<n+1> when this very process wrote base.<pid>
 * or base.<pid>.<n> before an exec. */
NOINSTR static void ring_name(const char *base, const char *parent, char *out, size_t len)
{
    size_t n;
    char *end;
    unsigned long gen;

    if (!parent) {
        snprintf(out, len, "%s", base);
        return;
    }
    snprintf(out, len, "%s.%ld", base, (long)getpid());
    n = strlen(out);
    if (strncmp(parent, out, n))
        return;
    if (parent[n] == 0)
        gen = 0;
    else if (parent[n] != '.' || (gen = strtoul(parent + n + 1, &end, 10), *end))
        return;
    snprintf(out + n, len - n, ".%lu", gen + 1);
}

/* libc's own sigaction and signal: the names are ours (below). */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
extern sighandler_t bsd_signal(int sig, sighandler_t handler);

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
static struct sigaction old_actions[sizeof fatal_signals / sizeof fatal_signals[0]];

/* The PC the signal interrupted, from the machine context; 0 where this port does not know it. */
NOINSTR static uintptr_t signal_pc(const void *context)
{
    const ucontext_t *uc = context;

#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#elif defined(__i386__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#else
    (void)uc;
    return 0;
#endif
}

/* Records the fault and freezes the ring, puts the previous action back and lets the signal
 * go on: a fault the instruction raised comes again when we return, one sent (kill, abort's
 * raise) is raised again. Async-signal-safe: only the runtime's own lock-free stores. */
NOINSTR static void on_fatal_signal(int sig, siginfo_t *si, void *context)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (fatal_signals[i] == sig)
            __sigaction(sig, &old_actions[i], NULL);
    BUSY(); /* sigaction, raise */
    /* si_addr means the faulting address only for faults the CPU raised (si_code > 0); for a
     * signal sent by kill or raise the same bytes are the sender's pid. */
    cygtrace_fault(CYG_FAULT_SIGNAL + (unsigned)sig, signal_pc(context),
                   si->si_code > 0 ? (uintptr_t)si->si_addr : 0);
    if (si->si_code <= 0)
        raise(sig);
    UNBUSY();
}

/* Installs on_fatal_signal where the program has not installed a handler of its own (SIGBUS
 * has a handler of its own, below). */
NOINSTR static void catch_fatal_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        if (fatal_signals[i] != SIGBUS &&
            __sigaction(fatal_signals[i], NULL, &old_actions[i]) == 0 &&
            old_actions[i].sa_handler == SIG_DFL)
            __sigaction(fatal_signals[i], &sa, NULL);
    }
}


/* SIGBUS: the ring's file cut short under the program. Another program may truncate the file
 * (": > cygtrace.out", a cp over it) while the ring is mapped; no lock can stop it, and the
 * next store to a page past the new end raises SIGBUS. on_bus, installed at set-up whatever
 * the program had, tells that fault apart by its address (in the ring's mapping, raised by the
 * CPU): it puts anonymous memory over the whole ring (MAP_FIXED: one step, so that other threads
 * find either mapping, never a hole), sends the hooks out for good, says so once, and returns:
 * the store is made again, into memory that nobody reads. Every other SIGBUS goes where it
 * went before: the program's action, as the kernel would have run it, or the default one
 * (recorded as a fault first, as on_fatal_signal does).
 *
 * The program keeps its own action: sigaction and signal are wrapped so that, for SIGBUS, the
 * program sets and reads its action (bus_prog), and ours stays installed in front of it. Two
 * copies, the current one published with one atomic store, so that a handler in another
 * thread reads a whole one; the writer blocks signals meanwhile against its own handler. A
 * program that replaces our handler some other way (the raw system call, sigset) has its
 * handler run first: the wrapper notices and gets out of its way. */
static struct sigaction bus_prog[2]; /* the program's SIGBUS action, bus_prog[bus_cur] */
static int bus_cur;
static int bus_ours;                 /* on_bus is installed */
static int bus_cut;                  /* 0; 1: the ring is being replaced; 2: it was; 3: it
                                        could not be */

/* Anonymous memory over the ring whose file was cut; the first of the threads that fault
 * does it, the others return to fault again until it is done. */
NOINSTR static void ring_cut(void)
{
    int expect = 0;

    if (!__atomic_compare_exchange_n(&bus_cut, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return;
    cyg_core_detach(); /* the hooks take the slow path, which finds no ring */
    if (mmap(ring_mem, ring_bytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
        /* No memory to put there: the fault stays, and with it the default action. */
        cyg_say(cfg.ring, "was truncated by another program, and cannot be replaced", errno);
        __atomic_store_n(&bus_cut, 3, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&bus_cut, 2, __ATOMIC_RELEASE);
    cyg_say(cfg.ring, "was truncated by another program while recording; recording stopped, "
                      "the program runs on untraced", 0);
}

/* The default action of SIGBUS, as on_fatal_signal takes it: recorded, then the signal goes on
 * to kill the process (a fault comes again when we return, a sent one is raised again). */
NOINSTR static void bus_default(siginfo_t *si, void *context)
{
    struct sigaction dfl;

    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    __atomic_store_n(&bus_ours, 0, __ATOMIC_RELEASE);
    __sigaction(SIGBUS, &dfl, NULL);
    if (cfg.signals)
        cygtrace_fault(CYG_FAULT_SIGNAL + (unsigned)SIGBUS, signal_pc(context),
                       si->si_code > 0 ? (uintptr_t)si->si_addr : 0);
    if (si->si_code <= 0)
        raise(SIGBUS);
}

NOINSTR static void on_bus(int sig, siginfo_t *si, void *context)
{
    uintptr_t at = (uintptr_t)si->si_addr;
    struct sigaction prog;
    sigset_t mask, was;
    int saved = errno, cut;

    BUSY(); /* mmap, sigaction, raise */
    cut = __atomic_load_n(&bus_cut, __ATOMIC_ACQUIRE);
    if (si->si_code > 0 && ring_mem && at - (uintptr_t)ring_mem < ring_bytes && cut < 3) {
        ring_cut();
        goto out;
    }
    prog = bus_prog[__atomic_load_n(&bus_cur, __ATOMIC_ACQUIRE)];
    /* The kernel ignores no SIGBUS that a fault raised. */
    if (prog.sa_handler == SIG_DFL || (si->si_code > 0 && prog.sa_handler == SIG_IGN)) {
        bus_default(si, context);
        goto out;
    }
    if (prog.sa_handler == SIG_IGN)
        goto out;
    if (prog.sa_flags & SA_RESETHAND) {
        struct sigaction dfl = prog;

        dfl.sa_handler = SIG_DFL;
        dfl.sa_flags &= ~(SA_RESETHAND | SA_SIGINFO);
        bus_prog[!bus_cur] = dfl;
        __atomic_store_n(&bus_cur, !bus_cur, __ATOMIC_RELEASE);
    }
    /* Blocked as the kernel would block them for the program's handler: SIGBUS too unless
     * SA_NODEFER (so a truncation found by a hook inside that very handler kills, as any
     * fault there would). The handler may leave by siglongjmp, which restores the mask. */
    mask = prog.sa_mask;
    if (!(prog.sa_flags & SA_NODEFER))
        sigaddset(&mask, SIGBUS);
    pthread_sigmask(SIG_BLOCK, &mask, &was);
    UNBUSY(); /* the program's handler is the program's: its calls are traced */
    errno = saved;
    if (prog.sa_flags & SA_SIGINFO)
        prog.sa_sigaction(sig, si, context);
    else
        prog.sa_handler(sig);
    saved = errno;
    BUSY();
    pthread_sigmask(SIG_SETMASK, &was, NULL);
out:
    UNBUSY();
    errno = saved;
}

/* Installs on_bus in front of the program's SIGBUS action. */
NOINSTR static void catch_bus(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (__sigaction(SIGBUS, NULL, &bus_prog[0]) != 0)
        return;
    bus_cur = 0;
    if (__sigaction(SIGBUS, &sa, NULL) == 0)
        __atomic_store_n(&bus_ours, 1, __ATOMIC_RELEASE);
}

/* Whether on_bus is still the installed action (the program may have gone around the wrappers). */
NOINSTR static int bus_installed(void)
{
    struct sigaction now;

    if (!__atomic_load_n(&bus_ours, __ATOMIC_ACQUIRE))
        return 0;
    if (__sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
        now.sa_sigaction == on_bus)
        return 1;
    __atomic_store_n(&bus_ours, 0, __ATOMIC_RELEASE);
    return 0;
}

/* sigaction, wrapped: for SIGBUS while on_bus is installed, the program's action is kept
 * behind ours (see above). */
CYGTRACE_API NOINSTR int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction want;
    sigset_t all, was;
    int cur;

    if (sig != SIGBUS || !bus_installed())
        return __sigaction(sig, act, old);
    if (act)
        want = *act; /* act and old may be the same */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &was);
    cur = __atomic_load_n(&bus_cur, __ATOMIC_ACQUIRE);
    if (old)
        *old = bus_prog[cur];
    if (act) {
        bus_prog[!cur] = want;
        __atomic_store_n(&bus_cur, !cur, __ATOMIC_RELEASE);
    }
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    return 0;
}

/* signal, wrapped as sigaction is, with glibc's (BSD) meaning: the handler stays, the signal
 * is blocked while it runs, interrupted system calls restart. */
CYGTRACE_API NOINSTR sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    if (sig == SIGBUS)
        sigaddset(&sa.sa_mask, sig);
    sa.sa_flags = SA_RESTART;
    if (sig != SIGBUS || !bus_installed()) {
        /* glibc's signal does exactly this, besides siginterrupt's bookkeeping: libc's own,
         * through bsd_signal, keeps that too. */
        return bsd_signal(sig, handler);
    }
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

/* System V's signal (what signal is under -std=c99, and sysv_signal): the handler is reset
 * when it runs, the signal not blocked meanwhile, interrupted system calls not restarted. All
 * through sigaction: glibc's does no more. */
CYGTRACE_API NOINSTR sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;

    if (handler == SIG_ERR || sig <= 0 || sig >= NSIG) {
        errno = EINVAL;
        return SIG_ERR;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

CYGTRACE_API NOINSTR sighandler_t sysv_signal(int sig, sighandler_t handler)
{
    return __sysv_signal(sig, handler);
}

/* Parses "64M", "1048576", "2G" (no sign, at most MAX_SIZE); returns 0 for anything else. */
NOINSTR static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;

    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno)
        return 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    return (*end || v > (MAX_SIZE >> shift)) ? 0 : (size_t)(v << shift);
}

NOINSTR const char *cyg_linux_env(const char *name)
{
    const char *v = secure_getenv(name);

    return v && *v ? v : NULL;
}

NOINSTR static int env_on(const char *name)
{
    const char *v = cyg_linux_env(name);

    return v && strcmp(v, "0");
}

/* Reads the settings once, in a context where getenv, getcwd and stdio are safe. */
NOINSTR static void config_read(void)
{
    const char *e;

    if (cfg.read)
        return;
    cfg.read = 1;
    cyg_file_note_stderr();
    if (getauxval(AT_SECURE) && !CYGTRACE_PRIVILEGED) {
        cyg_say("set-user-ID or set-group-ID program",
                "not tracing it (the runtime is built without CYGTRACE_PRIVILEGED)", 0);
        cfg.off = 1;
        return;
    }
    if (env_on("CYGTRACE_OFF")) {
        cfg.off = 1;
        return;
    }
    e = cyg_linux_env("CYGTRACE_OUT");
    if (!e)
        e = "cygtrace.out";
    if (e[0] != '/' && getcwd(cfg.base, sizeof cfg.base))
        cyg_cat(cfg.base, sizeof cfg.base, "/");
    else
        cfg.base[0] = 0;
    /* Room for ".<pid>.<n>.maps" after it. */
    if (strlen(cfg.base) + strlen(e) + 40 > sizeof cfg.base) {
        cyg_say(e, "CYGTRACE_OUT is too long a path; not tracing", 0);
        cfg.off = 1;
        return;
    }
    cyg_cat(cfg.base, sizeof cfg.base, e);
    if ((e = cyg_linux_env("CYGTRACE_RING")) && strlen(e) < sizeof cfg.parent)
        cyg_cat(cfg.parent, sizeof cfg.parent, e);
    cfg.size = DEFAULT_SIZE;
    if ((e = cyg_linux_env("CYGTRACE_SIZE")) && (cfg.size = parse_size(e)) < MIN_SIZE) {
        char what[80] = "CYGTRACE_SIZE=";

        cyg_say(cyg_cat(what, sizeof what, e), "not a size from 4K to 64G (like 64M); using 16M",
                0);
        cfg.size = DEFAULT_SIZE;
    }
    while (cfg.size & (cfg.size - 1))
        cfg.size &= cfg.size - 1;
    cfg.flags = CYGTRACE_INIT_ZEROED;
    e = cyg_linux_env("CYGTRACE_MODE");
    if (!e || !strcmp(e, "overwrite"))
        cfg.flags |= CYG_F_OVERWRITE;
    else if (strcmp(e, "stop"))
        cyg_say(e, "CYGTRACE_MODE is neither overwrite nor stop; using stop", 0);
    if (env_on("CYGTRACE_CALLSITES"))
        cfg.flags |= CYG_F_CALLSITES;
#ifdef CYG_PORT_V4L
    /* version 4, one word a call (FORMAT.md 15); not with call sites */
    e = cyg_linux_env("CYGTRACE_FORMAT");
    if (e && strcmp(e, "3") && strcmp(e, "4")) {
        cyg_say(e, CYGTRACE_LINUX_FORMAT == 4 ? "CYGTRACE_FORMAT is neither 3 nor 4; using 4"
                                              : "CYGTRACE_FORMAT is neither 3 nor 4; using 3",
                0);
        e = NULL;
    }
    if ((e ? !strcmp(e, "4") : CYGTRACE_LINUX_FORMAT == 4) && !(cfg.flags & CYG_F_CALLSITES))
        cfg.flags |= CYGTRACE_INIT_V4L;
#endif
    cfg.signals = !(e = cyg_linux_env("CYGTRACE_SIGNALS")) || strcmp(e, "0");
    cyg_envctrl_read();
}

/* "CYGTRACE_RING=<this process's ring>": in the environment by putenv, so that a forked child
 * can rewrite its own copy in place, without malloc, for the programs it execs. */
static char ring_env[sizeof "CYGTRACE_RING=" + PATH_MAX];

NOINSTR static void ring_env_set(const char *ring)
{
    int first = ring_env[0] == 0;

    ring_env[0] = 0;
    cyg_cat(cyg_cat(ring_env, sizeof ring_env, "CYGTRACE_RING="), sizeof ring_env, ring);
    if (first && !forked)
        putenv(ring_env);
}

/* The bytes of the records, and of a version 4 ring's region table (FORMAT.md 15.1). */
NOINSTR static size_t ring_records_bytes(void)
{
#ifdef CYG_PORT_V4L
    if (cfg.flags & CYGTRACE_INIT_V4L)
        return cfg.size + CYG_V4L_TABLE_BYTES;
#endif
    return cfg.size;
}

/* Maps this process's ring: cfg.ring, or when that is another live process's ring (a second
 * run in the same directory), base.<pid>, which then is this run's base. */
NOINSTR static struct cyg_file_ring ring_map(void)
{
    struct cyg_file_ring r = cyg_file_map_ring(cfg.ring, ring_records_bytes(), MIN_SIZE);
    char what[sizeof cfg.base + 64] = "in use by process ", alt[sizeof cfg.base];

    if (!r.busy)
        return r;
    cyg_cat_ulong(what, sizeof what, r.owner);
    if (forked || cfg.parent[0]) {
        cyg_say(cfg.ring, cyg_cat(what, sizeof what, "; not tracing"), 0);
        return r;
    }
    alt[0] = 0;
    cyg_cat_ulong(cyg_cat(cyg_cat(alt, sizeof alt, cfg.base), sizeof alt, "."), sizeof alt,
                  (unsigned long)getpid());
    r = cyg_file_map_ring(alt, ring_records_bytes(), MIN_SIZE);
    if (r.busy) {
        cyg_say(alt, "in use by another process too; not tracing", 0);
        return r;
    }
    if (!r.mem)
        return r;
    cyg_cat(what, sizeof what, "; recording into ");
    cyg_say(cfg.base, cyg_cat(what, sizeof what, alt), 0);
    memcpy(cfg.base, alt, sizeof alt);
    memcpy(cfg.ring, alt, sizeof alt);
    setenv("CYGTRACE_OUT", alt, 1); /* this run's other processes go beside it */
    return r;
}

/* A map's "process" or "child" line (kind): pid, parent pid, how this process came to
 * record, and ring: the one before it (process), or its own (child), escaped (CYGTRACE_OUT may
 * hold a newline). */
NOINSTR static void process_line(char *line, size_t len, const char *kind, const char *ring)
{
    line[0] = 0;
    cyg_cat_ulong(cyg_cat(cyg_cat(line, len, kind), len, " "), len, (unsigned long)getpid());
    cyg_cat_ulong(cyg_cat(line, len, " "), len, (unsigned long)getppid());
    cyg_cat(cyg_cat(cyg_cat(line, len, " "), len, cfg.how), len, " ");
    /* Room kept for the newline: a cut path is still one line. */
    if (ring[0])
        cyg_cat_escaped(line, len - 1, ring);
    else
        cyg_cat(line, len - 1, "-");
    cyg_cat(line, len, "\n");
}

/* Sets up this process's ring. In a forked child (forked set) with system calls only, since
 * its first event may be in a signal handler; else where the program could call malloc. */
NOINSTR static void setup(void)
{
    char line[2 * PATH_MAX + 80], parent_maps[PATH_MAX + 8];
    struct cyg_file_ring r;
    struct cyg_ctl *ctl;

    if (!forked) {
        config_read();
        if (cfg.off)
            return;
        cfg.how = cfg.parent[0] ? "exec" : "start";
        ring_name(cfg.base, cfg.parent[0] ? cfg.parent : NULL, cfg.ring, sizeof cfg.ring);
    }
    r = ring_map();
    if (!r.mem)
        return;
    ring_mem = r.mem;
    ring_bytes = r.bytes;
    if (!forked) {
        ns_base = mono_ns();
        tsc_base = cyg_port_now();
        image_id_len = cyg_maps_image(&image_bias, &image_id);
        /* Before the ring: the hooks run into a scratch one. Only in the constructor, where no
         * other thread records yet: one would lose its events to the scratch ring uncounted
         * (a ring set up later, at a dlopen'd library's first event, has no figure). */
        if (!__atomic_load_n(&ctor_done, __ATOMIC_RELAXED))
            hook_cost = calib_hooks();
    }
    /* Start stopped: the control block must be complete before the first record. */
    if (cygtrace_init(r.mem, r.bytes, cfg.flags) < 0) {
        cyg_say(cfg.ring, "the ring is too small; not tracing", 0);
        munmap(r.mem, r.bytes);
        ring_mem = NULL;
        return;
    }
    if (image_id)
        cygtrace_set_build_id(image_id, image_id_len);
    cyg_envctrl_arm(forked, image_bias);
    if (!forked)
        page_cost = calib_pages(r.mem, r.bytes, page_log2());
    if (hook_cost)
        cygtrace_set_hook_cost(hook_cost, page_cost, page_log2());
    /* 1 ms: a first clock rate, good to ~1e-4; a forked child has the parent's longer one. */
    while (!forked && mono_ns() - ns_base < 1000000u)
        ;
    cyg_core_set_image(image_bias, (uint32_t)getpid(), clock_hz());
    process_line(line, sizeof line, "process", cfg.parent);
    parent_maps[0] = 0;
    cyg_cat(cyg_cat(parent_maps, sizeof parent_maps, cfg.parent), sizeof parent_maps, ".maps");
    cyg_maps_start(cfg.ring, line, forked ? parent_maps : NULL);
    cyg_maps_clock(tsc_base, ns_base); /* a forked child's clock is its parent's */
    if (cyg_linux_tid) /* the thread that set up (its THREAD record came before the map) */
        cyg_maps_thread((unsigned)(cyg_linux_tid >> CYG64_THREAD_SHIFT),
                        (long)syscall(SYS_gettid), 0);
    if (cfg.parent[0]) {
        char first[sizeof cfg.base + 8] = "";

        process_line(line, sizeof line, "child", cfg.ring);
        cyg_maps_append_to(cyg_cat(cyg_cat(first, sizeof first, cfg.base), sizeof first, ".maps"),
                           line);
    }
    ring_env_set(cfg.ring);
    /* Once per program: a forked child keeps the handlers, and the actions they go back to. */
    if (!atfork_done && cfg.signals)
        catch_fatal_signals();
    if (!atfork_done)
        catch_bus();
    if (!atfork_done && !end_key_made && pthread_key_create(&end_key, thread_end) == 0)
        end_key_made = 1;
    if (!atfork_done && pthread_atfork(NULL, NULL, child_after_fork) == 0)
        atfork_done = 1;
    ctl = cygtrace_control_block();
    if (ctl)
        __atomic_fetch_add(&ctl->lost.v, __atomic_exchange_n(&unset_lost, 0, __ATOMIC_RELAXED),
                           __ATOMIC_RELAXED);
    forked = 0;
    if (CYGTRACE_AUTOSTART)
        cygtrace_start();
}

/* Claims the set-up for this thread and runs it; returns 1 when the ring records now. */
NOINSTR static int setup_once(void)
{
    int expect = SETUP_NONE;
    struct cyg_ctl *ctl;

    if (!__atomic_compare_exchange_n(&setup_state, &expect, SETUP_BUSY, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return 0;
    setup();
    __atomic_store_n(&setup_state, SETUP_DONE, __ATOMIC_RELEASE);
    ctl = cygtrace_control_block();
    return ctl && ctl->state == CYG_S_RUNNING;
}

NOINSTR int cyg_linux_wake(void)
{
    int st = __atomic_load_n(&setup_state, __ATOMIC_ACQUIRE);

    if (st == SETUP_DONE || cygtrace_control_block())
        return 0;
    /* Before the constructor (another library's instrumented constructor), inside dlopen (a
     * new object's constructors), or a forked child's first event: safe. The runtime does not
     * see dlopen return: the window lasts until the thread's next call of the loader, in
     * practice the dlsym of the plugin's first function (which sets the ring up itself); a
     * signal handler that runs the plugin's code first, inside that window, is the one case
     * not covered. Anywhere else this could be a signal handler that interrupted malloc: the
     * event is dropped and counted. */
    if (st == SETUP_NONE && (!__atomic_load_n(&ctor_done, __ATOMIC_RELAXED) || in_dlopen ||
                             forked)) {
        int ok;

        BUSY();
        ok = setup_once();
        UNBUSY();
        return ok;
    }
    __atomic_fetch_add(&unset_lost, 1, __ATOMIC_RELAXED);
    return 0;
}

/* vfork. The child borrows the parent's memory, its thread-local variables included, until
 * it execs or exits: its calls would go into the parent's tree as the parent's. The wrapper
 * below clears the thread's index before the real vfork, so that the next event of either
 * side comes to cyg_linux_thread_new, which tells them apart by the OS thread id: the child
 * gets an index of its own (THREAD data 1: a vfork child, the OS id is its pid), kept out of
 * the shared thread-local variable and found again by a gettid on each of its events; the
 * parent, once resumed, takes its own index back. */
static __thread uintptr_t vfork_saved TLS_IE; /* the parent's index */
static __thread pid_t vfork_parent TLS_IE;    /* the parent's OS thread id; 0: none pending */
static __thread uintptr_t vfork_child TLS_IE;  /* the child's index */
static __thread pid_t vfork_child_tid TLS_IE;  /* ... for this OS thread */
static void *vfork_real;                       /* libc's vfork, found before main */

/* Called by the vfork wrapper: returns the real vfork for it to jump to. */
NOINSTR CYG_HIDDEN void *cyg_linux_vfork_prepare(void)
{
    void *real;

    vfork_saved = cyg_linux_tid; /* 0 when this thread has recorded nothing yet */
    vfork_parent = (pid_t)syscall(SYS_gettid);
    vfork_child = 0;
    cyg_linux_tid = 0;
    cyg_linux_tls.end = 0; /* version 4: the child claims chunks of its own */
    if (!vfork_real) { /* a vfork before our constructor ran */
        BUSY();
        vfork_real = dlsym(RTLD_NEXT, "vfork");
        UNBUSY();
    }
    real = vfork_real ? vfork_real : (void *)fork; /* POSIX allows vfork to be fork */
    return real;
}

/* vfork itself must not return twice through a frame of ours: the child would pop the frame
 * the parent returns through. The wrapper calls the preparation, then jumps to the real vfork,
 * which returns straight to the program. */
#if defined(__x86_64__)
#define CYG_LINUX_VFORK 1
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        "vfork:\n"
        "    sub $8, %rsp\n"
        "    call cyg_linux_vfork_prepare\n"
        "    add $8, %rsp\n"
        "    jmp *%rax\n"
        ".size vfork, .-vfork\n");
#elif defined(__aarch64__)
#define CYG_LINUX_VFORK 1
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, %function\n"
        "vfork:\n"
        "    stp x29, x30, [sp, #-16]!\n"
        "    mov x29, sp\n"
        "    bl cyg_linux_vfork_prepare\n"
        "    ldp x29, x30, [sp], #16\n"
        "    br x0\n"
        ".size vfork, .-vfork\n");
#else
#define CYG_LINUX_VFORK 0
#endif

NOINSTR static uintptr_t thread_new(void);

/* A thread's first event: its index, its THREAD record, its line in the map file. */
NOINSTR uintptr_t cyg_linux_thread_new(void)
{
    uintptr_t t;

    BUSY();
    t = thread_new();
    UNBUSY();
    return t;
}

NOINSTR static uintptr_t thread_new(void)
{
    uintptr_t n, t;
    pid_t me;

    if (vfork_parent) {
        me = (pid_t)syscall(SYS_gettid);
        if (me == vfork_parent) { /* back in the parent */
            vfork_parent = 0;
            if ((cyg_linux_tid = vfork_saved) != 0)
                return vfork_saved;
        } else {
            if (!vfork_child || vfork_child_tid != me) {
                n = __atomic_add_fetch(&next_thread, 1, __ATOMIC_RELAXED);
                vfork_child = ((n - 1) % 0xffffu + 1) << CYG64_THREAD_SHIFT;
                vfork_child_tid = me;
                cyg_core_special(CYG_SP_THREAD, CYG_THREAD_VFORK, (uintptr_t)me, vfork_child);
                cyg_maps_thread((unsigned)(vfork_child >> CYG64_THREAD_SHIFT), me, 1);
            }
            return vfork_child;
        }
    }
    n = __atomic_add_fetch(&next_thread, 1, __ATOMIC_RELAXED);
    t = ((n - 1) % 0xffffu + 1) << CYG64_THREAD_SHIFT;
    cyg_linux_tid = t;
    /* Anything but NULL: the key's destructor runs when the thread ends. No allocation for
     * one of the first keys of a process. */
    if (__atomic_load_n(&end_key_made, __ATOMIC_ACQUIRE))
        pthread_setspecific(end_key, (void *)1);
    me = (pid_t)syscall(SYS_gettid);
    cyg_core_special(CYG_SP_THREAD, 0, (uintptr_t)me, t);
    cyg_maps_thread((unsigned)(t >> CYG64_THREAD_SHIFT), me, 0);
    return t;
}

/* The child shares the parent's mapping: writing to it would interleave two processes' calls
 * in one ring. It lets go of it and sets up a ring of its own, base.<pid>, on its first event.
 * A child of a process that records nothing records nothing either. */
NOINSTR static void child_after_fork(void)
{
    int had = ring_mem != NULL;

    BUSY();
    cyg_core_detach();
    if (ring_mem)
        munmap(ring_mem, ring_bytes);
    ring_mem = NULL;
    cyg_maps_forget();
    cyg_linux_tid = 0;
    cyg_linux_tls.cursor = cyg_linux_tls.end = 0; /* its chunk is the parent's */
    vfork_parent = 0;
    next_thread = 0;
    unset_lost = 0;
    bus_cut = 0; /* the parent's ring, cut or not, is not the child's */
    if (had) {
        memcpy(cfg.parent, cfg.ring, sizeof cfg.ring);
        cfg.ring[0] = 0;
        cyg_cat_ulong(cyg_cat(cyg_cat(cfg.ring, sizeof cfg.ring, cfg.base), sizeof cfg.ring, "."),
                      sizeof cfg.ring, (unsigned long)getpid());
        cfg.how = "fork";
    }
    forked = had;
    __atomic_store_n(&setup_state, had ? SETUP_NONE : SETUP_DONE, __ATOMIC_RELEASE);
    UNBUSY();
}

/* Before main: sets the ring up when something loaded calls the hooks. */
NOINSTR __attribute__((constructor)) static void cyg_linux_start(void)
{
    BUSY();
    if (CYG_LINUX_VFORK)
        vfork_real = dlsym(RTLD_NEXT, "vfork");
    __atomic_store_n(&dl_seen, dl_adds(), __ATOMIC_RELEASE); /* set-up maps what is loaded */
    pthread_atfork(NULL, NULL, dl_after_fork);
    if (__atomic_load_n(&setup_state, __ATOMIC_ACQUIRE) == SETUP_NONE &&
        cyg_maps_instrumented())
        setup_once();
    __atomic_store_n(&ctor_done, 1, __ATOMIC_RELEASE);
    UNBUSY();
}

/* At a normal exit the long baseline gives the clock rate to a few parts per million; a
 * process that dies earlier keeps the 1 ms estimate from set-up. */
NOINSTR __attribute__((destructor)) static void cyg_linux_exit(void)
{
    struct cyg_ctl *ctl = cygtrace_control_block();

    BUSY(); /* the process ends: the runtime's calls are the last */
    if (ctl && ctl->pid == (uint32_t)getpid()) {
        ctl->ts_hz = clock_hz();
        cyg_maps_clock(cyg_port_now(), mono_ns()); /* the run's whole span, for the host */
        /* The thread that exits leaves no slot for a reader to wait on; threads still running
         * at the exit leave the rest of their chunks unwritten (FORMAT.md section 4). */
        if (cyg_linux_tid)
            cyg_core_thread_end(cyg_linux_tid);
    }
    /* Objects loaded since the program last called the loader (dl_catch_up). */
    if (dl_adds() != __atomic_load_n(&dl_seen, __ATOMIC_ACQUIRE))
        cyg_maps_refresh();
    UNBUSY();
}
