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
 * Beside the ring, RING.maps says where each loaded object sits (the program, its shared
 * libraries, what dlopen brings in later), so that the host names a library's functions; the
 * objects are written at set-up and again after each dlopen, which this runtime wraps. A
 * process's ring is CYGTRACE_OUT for the first process of a run; a forked child (which used to
 * record nothing) and an exec'ed program record into CYGTRACE_OUT.<pid> (CYGTRACE_OUT.<pid>.<n>
 * for the n-th exec in one process), say so in their own maps file ("process" line) and in the
 * first process's ("child" line). The environment variable CYGTRACE_RING, set at set-up, is
 * how an exec'ed program knows it is not the first.
 *
 * A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) is recorded as a fault record with
 * the interrupted PC and the faulting address, and freezes the ring, so the trace ends where
 * the program died; then the signal goes on as it would have (the previous handler, or the
 * default action and its core dump).
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "cygtrace_port.h"

#define NOINSTR __attribute__((no_instrument_function))
#define DEFAULT_SIZE (16u << 20)
#define MIN_SIZE 4096u
#define MAX_OBJECTS 1024u /* objects whose map line is written; more are not named */

enum { SETUP_NONE, SETUP_BUSY, SETUP_DONE };

__thread uintptr_t cyg_linux_tid __attribute__((tls_model("initial-exec")));

static int setup_state = SETUP_NONE;
static uintptr_t next_thread;
static uint64_t tsc_base, ns_base; /* clock calibration anchor, taken at set-up */
static void *ring_mem;             /* this process's mapping, unmapped by a forked child */
static size_t ring_bytes;
static int forked;                 /* set in a forked child: its ring is a new one */
static int atfork_done;            /* signal and fork handlers set once; a forked child inherits
                                      them */
static int maps_fd = -1;           /* RING.maps, open for appending after dlopen */
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t maps_known[MAX_OBJECTS]; /* start ^ name hash of each object written */
static unsigned maps_nknown;

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

/* Points *id at an object's GNU build-id note; returns its length, 0 when it has none. */
NOINSTR static size_t build_id_of(const struct dl_phdr_info *info, const uint8_t **id)
{
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
                *id = desc;
                return n->n_descsz;
            }
            p = desc + ((n->n_descsz + 3u) & ~3u);
        }
    }
    return 0;
}

/* Finds the main program's load bias and GNU build-id (the first object dl_iterate_phdr
 * reports is the program itself). */
NOINSTR static int find_image(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct image *im = arg;

    (void)size;
    im->bias = info->dlpi_addr;
    im->id_len = build_id_of(info, &im->id);
    return 1;
}

/* Writes all of s to fd; a short write of a regular file only happens when the disk is full,
 * and then the map is incomplete, which the host survives (addresses stay unnamed). */
NOINSTR static void put(int fd, const char *s)
{
    size_t len = strlen(s);

    while (len) {
        ssize_t n = write(fd, s, len);

        if (n <= 0 && errno != EINTR)
            return;
        if (n > 0) {
            s += n;
            len -= (size_t)n;
        }
    }
}

/* One "object" line per loaded object not written yet: where its segments sit, its bias
 * (run-time minus link-time address), build-id and path. The first object is the program;
 * objects without a file (the vDSO) are left out. Called with maps_lock held. */
NOINSTR static int write_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    int *first = arg;
    const char *name = info->dlpi_name;
    char path[PATH_MAX], line[PATH_MAX + 160], hex[2 * CYG_BUILD_ID_MAX + 1] = "-";
    uint64_t lo = UINT64_MAX, hi = 0, key;
    const uint8_t *id;
    size_t n;

    (void)size;
    if (*first) {
        ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);

        *first = 0;
        if (len <= 0)
            return 0;
        path[len] = 0;
    } else if (!name || !strchr(name, '/') || !realpath(name, path)) {
        return 0;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD)
            continue;
        lo = ph->p_vaddr < lo ? ph->p_vaddr : lo;
        hi = ph->p_vaddr + ph->p_memsz > hi ? ph->p_vaddr + ph->p_memsz : hi;
    }
    if (hi <= lo)
        return 0;
    key = info->dlpi_addr + lo;
    for (const char *c = path; *c; c++)
        key = key * 31u + (unsigned char)*c;
    for (unsigned i = 0; i < maps_nknown; i++)
        if (maps_known[i] == key)
            return 0;
    if (maps_nknown == MAX_OBJECTS)
        return 0;
    maps_known[maps_nknown++] = key;
    n = build_id_of(info, &id);
    for (size_t i = 0; i < n && i < CYG_BUILD_ID_MAX; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
    snprintf(line, sizeof line, "object %llx %llx %llx %s %s\n",
             (unsigned long long)(info->dlpi_addr + lo), (unsigned long long)(info->dlpi_addr + hi),
             (unsigned long long)info->dlpi_addr, hex, path);
    put(maps_fd, line);
    return 0;
}

/* Writes the objects loaded since the last call: at set-up, and after each dlopen. */
NOINSTR static void maps_refresh(void)
{
    int first;

    pthread_mutex_lock(&maps_lock);
    first = maps_nknown == 0;
    if (maps_fd >= 0)
        dl_iterate_phdr(write_object, &first);
    pthread_mutex_unlock(&maps_lock);
}

/* The real dlopen searches a bare name in its caller's DT_RUNPATH: called from the wrapper,
 * that is this runtime's (none). When the first try found nothing, tries the directories of
 * the search path of the wrapper's caller, in their order; clears the stale error of the
 * first try when one works. */
NOINSTR static void *dlopen_for(void *(*real)(const char *, int), const char *file, int mode,
                                const void *caller)
{
    Dl_info di;
    struct link_map *lm = NULL;
    Dl_serinfo size;
    Dl_serinfo *si;
    char path[PATH_MAX];
    void *h = NULL;

    if (!dladdr1(caller, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm ||
        dlinfo(lm, RTLD_DI_SERINFOSIZE, &size) != 0 || !(si = malloc(size.dls_size)))
        return NULL;
    *si = size;
    if (dlinfo(lm, RTLD_DI_SERINFO, si) == 0) {
        for (unsigned i = 0; i < si->dls_cnt && !h; i++) {
            if (snprintf(path, sizeof path, "%s/%s", si->dls_serpath[i].dls_name, file) <
                    (int)sizeof path &&
                access(path, F_OK) == 0)
                h = real(path, mode);
        }
    }
    free(si);
    if (h)
        dlerror();
    return h;
}

/* dlopen, wrapped so that the map names a loaded object before its code first records (save
 * its constructors, which run inside the real dlopen). A program linked with libcygtrace.a
 * calls this one; with the preloaded libcygtrace.so it interposes on libc's. */
CYGTRACE_API NOINSTR void *dlopen(const char *file, int mode)
{
    static void *(*real)(const char *, int);
    void *h;

    if (!real)
        real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    if (!real)
        return NULL;
    h = real(file, mode);
    /* dlinfo clears the first try's error: a second try that fails too says it again. */
    if (!h && file && !strchr(file, '/') &&
        !(h = dlopen_for(real, file, mode, __builtin_return_address(0))))
        return real(file, mode);
    if (h)
        maps_refresh();
    return h;
}

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

/* Opens path.maps and writes who this process is; for a process that is not the first, adds a
 * "child" line to the first process's map (O_APPEND: lines of several processes do not mix). */
NOINSTR static void maps_start(const char *base, const char *path, const char *parent)
{
    char name[PATH_MAX + 8], line[2 * PATH_MAX + 80];
    const char *how = !parent ? "start" : forked ? "fork" : "exec";
    int fd;

    snprintf(name, sizeof name, "%s.maps", path);
    maps_fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (maps_fd < 0) {
        say(name, "cannot create the map of loaded objects", errno);
        return;
    }
    snprintf(line, sizeof line, "cygtrace-maps 1\nprocess %ld %ld %s %s\n", (long)getpid(),
             (long)getppid(), how, parent ? parent : "-");
    put(maps_fd, line);
    maps_refresh();
    if (!parent)
        return;
    snprintf(name, sizeof name, "%s.maps", base);
    if ((fd = open(name, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
        return;
    snprintf(line, sizeof line, "child %ld %ld %s %s\n", (long)getpid(), (long)getppid(), how,
             path);
    put(fd, line);
    close(fd);
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

/* The child shares the parent's mapping: writing to it would interleave two processes' calls
 * in one ring. It lets go of it and sets up a ring of its own on its first event. */
NOINSTR static void child_after_fork(void)
{
    cyg_core_detach();
    if (ring_mem)
        munmap(ring_mem, ring_bytes);
    ring_mem = NULL;
    if (maps_fd >= 0)
        close(maps_fd);
    maps_fd = -1;
    maps_nknown = 0;
    pthread_mutex_init(&maps_lock, NULL);
    cyg_linux_tid = 0;
    next_thread = 0;
    forked = 1;
    __atomic_store_n(&setup_state, SETUP_NONE, __ATOMIC_RELEASE);
}

NOINSTR static void setup(void)
{
    const char *base = getenv("CYGTRACE_OUT"), *env, *parent = getenv("CYGTRACE_RING");
    char path[PATH_MAX];
    size_t size = DEFAULT_SIZE;
    unsigned flags = CYGTRACE_INIT_ZEROED;
    struct image im = {0};
    void *mem;
    int fd;

    if ((env = getenv("CYGTRACE_OFF")) && *env && strcmp(env, "0"))
        return;
    if (!base || !*base)
        base = "cygtrace.out";
    if (parent && !*parent)
        parent = NULL;
    ring_name(base, parent, path, sizeof path);
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
    ring_mem = mem;
    ring_bytes = size;
    ns_base = mono_ns();
    tsc_base = cyg_port_now();
    dl_iterate_phdr(find_image, &im);
    /* Start stopped: the control block must be complete before the first record. */
    if (cygtrace_init(mem, size, flags) < 0) {
        say(path, "CYGTRACE_SIZE is too small", 0);
        munmap(mem, size);
        ring_mem = NULL;
        return;
    }
    if (im.id)
        cygtrace_set_build_id(im.id, im.id_len);
    while (mono_ns() - ns_base < 1000000u) /* 1 ms: a first clock rate, good to ~1e-4 */
        ;
    cyg_core_set_image(im.bias, (uint32_t)getpid(), clock_hz());
    maps_start(base, path, parent);
    /* What an exec'ed program reads to know it is not the first process of the run. */
    setenv("CYGTRACE_RING", path, 1);
    /* Once per program: a forked child keeps the handlers, and the actions they go back to. */
    if (!atfork_done && (!(env = getenv("CYGTRACE_SIGNALS")) || strcmp(env, "0")))
        catch_fatal_signals();
    if (!atfork_done && pthread_atfork(NULL, NULL, child_after_fork) == 0)
        atfork_done = 1;
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
