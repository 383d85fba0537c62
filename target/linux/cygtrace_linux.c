/* cygtrace_linux.c - the Linux port: the ring is a shared mapping of a file, so that it
 * outlives the process (a crash, abort(), kill -9) and a host can decode it afterwards.
 *
 * Set-up is lazy, on the first event: a process that has the preloaded runtime but no
 * instrumented code (a shell between `cygtrace record` and the program) never creates or
 * truncates the trace file.
 *
 * Environment: CYGTRACE_OUT (file, default cygtrace.out), CYGTRACE_SIZE (bytes, K/M/G
 * suffixes, default 16M), CYGTRACE_MODE (overwrite|stop), CYGTRACE_CALLSITES (1 records call
 * sites), CYGTRACE_OFF (1 records nothing), CYGTRACE_SIGNALS (0: do not record fatal signals).
 *
 * A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) is recorded as a fault record with
 * the interrupted PC and the faulting address, and freezes the ring, so the trace ends where
 * the program died; then the signal goes on as it would have (the previous handler, or the
 * default action and its core dump).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "cygtrace_port.h"

#define NOINSTR __attribute__((no_instrument_function))
#define DEFAULT_SIZE (16u << 20)
#define MIN_SIZE 4096u

enum { SETUP_NONE, SETUP_BUSY, SETUP_DONE };

__thread uintptr_t cyg_linux_tid __attribute__((tls_model("initial-exec")));

static int setup_state = SETUP_NONE;
static uintptr_t next_thread;
static uint64_t tsc_base, ns_base; /* clock calibration anchor, taken at set-up */

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

NOINSTR static void say(const char *path, const char *what, int err)
{
    fprintf(stderr, "cygtrace: %s: %s%s%s\n", path, what, err ? ": " : "", err ? strerror(err) : "");
}

/* Parses "64M", "1048576", "2G"; returns 0 for anything else. */
NOINSTR static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);

    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    return (*end || end == s) ? 0 : (size_t)v;
}

struct image {
    uint64_t bias;
    const uint8_t *id;
    size_t id_len;
};

/* Finds the main program's load bias and GNU build-id (the first object dl_iterate_phdr
 * reports is the program itself). */
NOINSTR static int find_image(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct image *im = arg;

    (void)size;
    im->bias = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

        if (ph->p_type != PT_NOTE)
            continue;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const void *)p;
            const uint8_t *name = p + sizeof *n;
            const uint8_t *desc = name + ((n->n_namesz + 3u) & ~3u);

            if (desc + n->n_descsz > end)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
                im->id = desc;
                im->id_len = n->n_descsz;
                return 1;
            }
            p = desc + ((n->n_descsz + 3u) & ~3u);
        }
    }
    return 1;
}

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
            sigaction(sig, &old_actions[i], NULL);
    /* si_addr means the faulting address only for faults the CPU raised (si_code > 0); for a
     * signal sent by kill or raise the same bytes are the sender's pid. */
    cygtrace_fault(CYG_FAULT_SIGNAL + (unsigned)sig, signal_pc(context),
                   si->si_code > 0 ? (uintptr_t)si->si_addr : 0);
    if (si->si_code <= 0)
        raise(sig);
}

/* Installs on_fatal_signal where the program has not installed a handler of its own. */
NOINSTR static void catch_fatal_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        if (sigaction(fatal_signals[i], NULL, &old_actions[i]) == 0 &&
            old_actions[i].sa_handler == SIG_DFL)
            sigaction(fatal_signals[i], &sa, NULL);
    }
}

NOINSTR static void child_after_fork(void)
{
    /* The child shares the parent's mapping: writing to it would interleave two processes'
     * calls in one ring. It records nothing. */
    cyg_core_detach();
}

NOINSTR static void setup(void)
{
    const char *path = getenv("CYGTRACE_OUT"), *env;
    size_t size = DEFAULT_SIZE;
    unsigned flags = CYGTRACE_INIT_ZEROED;
    struct image im = {0};
    void *mem;
    int fd;

    if ((env = getenv("CYGTRACE_OFF")) && *env && strcmp(env, "0"))
        return;
    if (!path || !*path)
        path = "cygtrace.out";
    if ((env = getenv("CYGTRACE_SIZE")) && *env) {
        size = parse_size(env);
        if (size < MIN_SIZE) {
            say(env, "CYGTRACE_SIZE is not a size of 4K or more (like 64M); using 16M", 0);
            size = DEFAULT_SIZE;
        }
    }
    env = getenv("CYGTRACE_MODE");
    if (!env || !*env || !strcmp(env, "overwrite"))
        flags |= CYG_F_OVERWRITE;
    else if (strcmp(env, "stop"))
        say(env, "CYGTRACE_MODE is neither overwrite nor stop; using stop", 0);
    if ((env = getenv("CYGTRACE_CALLSITES")) && *env && strcmp(env, "0"))
        flags |= CYG_F_CALLSITES;

    /* The size is the records' share, a power of two; the control block comes on top. */
    while (size & (size - 1))
        size &= size - 1;
    size += CYG_HDR_BYTES;
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        say(path, "cannot create the trace file", errno);
        return;
    }
    if (ftruncate(fd, (off_t)size) < 0) {
        say(path, "cannot size the trace file", errno);
        close(fd);
        return;
    }
    mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (mem == MAP_FAILED) {
        say(path, "cannot map the trace file", errno);
        return;
    }
    ns_base = mono_ns();
    tsc_base = cyg_port_now();
    dl_iterate_phdr(find_image, &im);
    /* Start stopped: the control block must be complete before the first record. */
    if (cygtrace_init(mem, size, flags) < 0) {
        say(path, "CYGTRACE_SIZE is too small", 0);
        munmap(mem, size);
        return;
    }
    if (im.id)
        cygtrace_set_build_id(im.id, im.id_len);
    while (mono_ns() - ns_base < 1000000u) /* 1 ms: a first clock rate, good to ~1e-4 */
        ;
    cyg_core_set_image(im.bias, (uint32_t)getpid(), clock_hz());
    pthread_atfork(NULL, NULL, child_after_fork);
    if (!(env = getenv("CYGTRACE_SIGNALS")) || strcmp(env, "0"))
        catch_fatal_signals();
    if (!CYGTRACE_AUTOSTART)
        return;
    cygtrace_start();
}

NOINSTR int cyg_linux_wake(void)
{
    int expect = SETUP_NONE;
    struct cyg_ctl *ctl = cygtrace_control_block();

    if (ctl)
        return 0;
    if (!__atomic_compare_exchange_n(&setup_state, &expect, SETUP_BUSY, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return 0;
    setup();
    __atomic_store_n(&setup_state, SETUP_DONE, __ATOMIC_RELEASE);
    ctl = cygtrace_control_block();
    return ctl && ctl->state == CYG_S_RUNNING;
}

NOINSTR uintptr_t cyg_linux_thread_new(void)
{
    uintptr_t n = __atomic_add_fetch(&next_thread, 1, __ATOMIC_RELAXED);
    uintptr_t t = ((n - 1) % 0xffffu + 1) << CYG64_THREAD_SHIFT;

    cyg_linux_tid = t;
    cyg_core_special(CYG_SP_THREAD, 0, (uintptr_t)syscall(SYS_gettid), t);
    return t;
}

/* At a normal exit the long baseline gives the clock rate to a few parts per million; a
 * process that dies earlier keeps the 1 ms estimate from set-up. */
NOINSTR __attribute__((destructor)) static void cyg_linux_exit(void)
{
    struct cyg_ctl *ctl = cygtrace_control_block();

    if (ctl && ctl->pid == (uint32_t)getpid())
        ctl->ts_hz = clock_hz();
}
