/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stress_linux.c - the runtime under load: worker threads that each run a known call pattern
 * (stress_pattern.h) into one small ring, while per-thread timers interrupt them with a signal
 * whose handler records too, wherever the worker is, hooks included.
 *
 *   stress_linux [--threads N] [--events N] [--ring SIZE] [--out FILE] [--mode overwrite|stop]
 *                [--signal-us N] [--table FILE] [--go]
 *
 * --events is the total the workers make between them (0: until killed); each worker stops at
 * the end of the top-level call that reaches its share. --table writes where each function of
 * the pattern sits (the checker's map from address to family). --go waits for a byte on stdin
 * after "ready", so that a reader can attach before the first worker event.
 *
 * The program counts its own events outside the hooks: each instrumented function adds 2 to a
 * counter of its thread (the handler's functions to another, which only the handler touches),
 * and prints the totals at the end, with the specials the runtime writes: a THREAD record per
 * thread that recorded, and START. Only main, the workers' loops and the handler's wrapper are
 * not instrumented.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "cygtrace.h"
#include "stress_pattern.h"

#define NOINSTR __attribute__((no_instrument_function))
#define FN __attribute__((noinline, used))
#define TICK_SIG SIGUSR2

static __thread uint64_t t_events;              /* 2 per worker function called */
static __thread volatile uint64_t t_sig_events; /* 2 per handler function: only the handler */
static __thread volatile uint64_t t_signals, t_in_hook;

/* Calls tab[(n + i) % 4] for i = 0..n: the fan-out of stress_pattern.h. Not instrumented:
 * inlined into the instrumented callers, it adds no events of its own. */
NOINSTR static inline void fan_out(void (*const *tab)(void), unsigned n)
{
    for (unsigned i = 0; i <= n; i++)
        tab[(n + i) & 3u]();
}

#define LEAF(F, j) FN void F##_leaf##j(void) { t_events += 2; __asm__ volatile("" ::: "memory"); }
#define MID(F, m) FN void F##_mid##m(void) { t_events += 2; fan_out(F##_leaves, m); }
#define TOP(F, j) FN void F##_top##j(void) { t_events += 2; fan_out(F##_mids, j); }
#define FAMILY(F)                                                                                  \
    LEAF(F, 0) LEAF(F, 1) LEAF(F, 2) LEAF(F, 3)                                                    \
    static void (*const F##_leaves[4])(void) = {F##_leaf0, F##_leaf1, F##_leaf2, F##_leaf3};       \
    MID(F, 0) MID(F, 1) MID(F, 2) MID(F, 3)                                                        \
    static void (*const F##_mids[4])(void) = {F##_mid0, F##_mid1, F##_mid2, F##_mid3};             \
    TOP(F, 0) TOP(F, 1) TOP(F, 2) TOP(F, 3)                                                        \
    static void (*const F##_fns[STRESS_FNS])(void) = {                                             \
        F##_top0,  F##_top1,  F##_top2,  F##_top3,  F##_mid0,  F##_mid1,                           \
        F##_mid2,  F##_mid3,  F##_leaf0, F##_leaf1, F##_leaf2, F##_leaf3};

FAMILY(fa)
FAMILY(fb)
FAMILY(fc)
FAMILY(fd)

static void (*const *const families[STRESS_FAMILIES])(void) = {fa_fns, fb_fns, fc_fns, fd_fns};

FN void h1(void) { t_sig_events += 2; }
FN void h2(void) { t_sig_events += 2; }
FN void h0(void)
{
    t_sig_events += 2;
    h1();
    h2();
}

/* Main's one call: the event that sets the ring up before any thread starts. */
FN void stress_setup(void) { __asm__ volatile("" ::: "memory"); }

struct hook_range {
    uintptr_t lo, hi;
};
static struct hook_range hooks[2]; /* the two hooks' code, when the symbol table says */

struct worker {
    pthread_t th;
    unsigned fam;
    uint64_t budget; /* worker events to make; 0: no end */
    long signal_us;
    uint64_t events, sig_events, signals, in_hook;
    int err;
};

/* The timer's signal: counts whether it came in the middle of a hook, then records. */
NOINSTR static void on_tick(int sig, siginfo_t *si, void *ctx)
{
    uintptr_t pc = (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
    int saved = errno;

    (void)sig;
    (void)si;
    t_signals++;
    for (unsigned i = 0; i < 2; i++)
        if (pc >= hooks[i].lo && pc < hooks[i].hi)
            t_in_hook++;
    h0();
    errno = saved;
}

/* Where a hook's code is, from the dynamic symbol table (-rdynamic); zero when unknown. By
 * name: the compiler allows no other use of the hooks than a call. */
NOINSTR static struct hook_range hook_range(const char *name)
{
    struct hook_range r = {0, 0};
    const ElfW(Sym) *sym = NULL;
    void *fn = dlsym(RTLD_DEFAULT, name);
    Dl_info info;

    if (fn && dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && info.dli_saddr) {
        r.lo = (uintptr_t)info.dli_saddr;
        r.hi = r.lo + sym->st_size;
    }
    return r;
}

/* A timer of the calling thread that sends it TICK_SIG every us microseconds. */
NOINSTR static int thread_timer(long us, timer_t *t)
{
    struct sigevent sev;
    struct itimerspec its;

    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = TICK_SIG;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &sev, t) < 0)
        return -1;
    its.it_interval.tv_sec = us / 1000000;
    its.it_interval.tv_nsec = us % 1000000 * 1000;
    its.it_value = its.it_interval;
    return timer_settime(*t, 0, &its, NULL);
}

NOINSTR static void *worker_main(void *arg)
{
    struct worker *w = arg;
    void (*const *fns)(void) = families[w->fam];
    sigset_t set;
    timer_t timer;
    unsigned j = 1;

    /* The first event gives the thread its index: a signal before it would have the handler's
     * hook take an index of its own. So the timer starts after it. */
    fns[STRESS_TOP]();
    sigemptyset(&set);
    sigaddset(&set, TICK_SIG);
    if (w->signal_us > 0) {
        if (thread_timer(w->signal_us, &timer) < 0) {
            w->err = errno;
            return NULL;
        }
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    }
    while (w->budget == 0 || t_events < w->budget)
        fns[STRESS_TOP + (j++ & 3u)]();
    if (w->signal_us > 0) {
        /* Blocked first: a tick still pending dies with the thread, uncounted and unrecorded. */
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        timer_delete(timer);
    }
    w->events = t_events;
    w->sig_events = t_sig_events;
    w->signals = t_signals;
    w->in_hook = t_in_hook;
    return NULL;
}

NOINSTR static void usage(void)
{
    fprintf(stderr, "usage: stress_linux [--threads 1-4] [--events N] [--ring SIZE] [--out FILE]\n"
                    "         [--mode overwrite|stop] [--signal-us N] [--table FILE] [--go]\n");
    exit(2);
}

NOINSTR static int write_table(const char *path)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    for (unsigned fam = 0; fam < STRESS_FAMILIES; fam++)
        for (unsigned i = 0; i < STRESS_FNS; i++)
            fprintf(f, "fn %u %u %lx\n", fam, i, (unsigned long)(uintptr_t)families[fam][i]);
    fprintf(f, "fn %u 0 %lx\nfn %u 1 %lx\nfn %u 2 %lx\n", STRESS_FAM_HANDLER,
            (unsigned long)(uintptr_t)h0, STRESS_FAM_HANDLER, (unsigned long)(uintptr_t)h1,
            STRESS_FAM_HANDLER, (unsigned long)(uintptr_t)h2);
    fprintf(f, "fn %u 0 %lx\n", STRESS_FAM_SETUP, (unsigned long)(uintptr_t)stress_setup);
    return fclose(f);
}

NOINSTR static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

NOINSTR int main(int argc, char **argv)
{
    unsigned threads = 4;
    unsigned long long events = 100000000ull, ev = 0, sev = 0, sigs = 0, inhook = 0;
    const char *table = NULL, *out = STRESS_DEFAULT_OUT, *ring = STRESS_DEFAULT_RING,
               *mode = STRESS_DEFAULT_MODE;
    long signal_us = 50;
    int go = 0;
    struct worker w[STRESS_FAMILIES];
    struct sigaction sa;
    sigset_t set;
    double t0, t1;
    char *end;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--go")) {
            go = 1;
            continue;
        }
        if (!v)
            usage();
        i++;
        end = ""; /* the numbers' parse moves it */
        if (!strcmp(a, "--threads"))
            threads = (unsigned)strtoul(v, &end, 10);
        else if (!strcmp(a, "--events"))
            events = strtoull(v, &end, 10);
        else if (!strcmp(a, "--signal-us"))
            signal_us = strtol(v, &end, 10);
        else if (!strcmp(a, "--ring"))
            ring = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--mode"))
            mode = v;
        else if (!strcmp(a, "--table"))
            table = v;
        else
            usage();
        if (*end || threads < 1 || threads > STRESS_FAMILIES || signal_us < 0) {
            fprintf(stderr, "stress_linux: %s %s: not a valid value\n", a, v);
            return 2;
        }
    }
    /* The runtime set its ring up before main, from the environment: it must be this one. */
    if (!getenv("CYGTRACE_OUT") || strcmp(getenv("CYGTRACE_OUT"), out) ||
        !getenv("CYGTRACE_SIZE") || strcmp(getenv("CYGTRACE_SIZE"), ring) ||
        !getenv("CYGTRACE_MODE") || strcmp(getenv("CYGTRACE_MODE"), mode)) {
        fprintf(stderr, "stress_linux: run it with CYGTRACE_OUT=%s CYGTRACE_SIZE=%s "
                        "CYGTRACE_MODE=%s (stress_check does)\n", out, ring, mode);
        return 2;
    }
    stress_setup();
    if (!cygtrace_control_block()) {
        fprintf(stderr, "stress_linux: %s: the runtime set up no ring\n", out);
        return 1;
    }
    if (table && write_table(table) < 0) {
        fprintf(stderr, "stress_linux: %s: %s\n", table, strerror(errno));
        return 1;
    }
    hooks[0] = hook_range("__cyg_profile_func_enter");
    hooks[1] = hook_range("__cyg_profile_func_exit");
    /* Workers inherit the blocked tick and unblock it once their timer runs. */
    sigemptyset(&set);
    sigaddset(&set, TICK_SIG);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(TICK_SIG, &sa, NULL);

    /* The hooks' code too: a crash trial that stops the program looks for threads in it. */
    printf("ready %d hooks %#lx %#lx %#lx %#lx\n", (int)getpid(), (unsigned long)hooks[0].lo,
           (unsigned long)hooks[0].hi, (unsigned long)hooks[1].lo, (unsigned long)hooks[1].hi);
    fflush(stdout);
    if (go && read(0, &(char){0}, 1) != 1) {
        fprintf(stderr, "stress_linux: stdin: closed before the go\n");
        return 1;
    }
    t0 = now_s();
    memset(w, 0, sizeof w);
    for (unsigned i = 0; i < threads; i++) {
        w[i].fam = i;
        w[i].budget = events ? (events + threads - 1) / threads : 0;
        w[i].signal_us = signal_us;
        if (pthread_create(&w[i].th, NULL, worker_main, &w[i])) {
            fprintf(stderr, "stress_linux: cannot start thread %u\n", i);
            return 1;
        }
    }
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(w[i].th, NULL);
        if (w[i].err) {
            fprintf(stderr, "stress_linux: timer of thread %u: %s\n", i, strerror(w[i].err));
            return 1;
        }
        ev += w[i].events;
        sev += w[i].sig_events;
        sigs += w[i].signals;
        inhook += w[i].in_hook;
    }
    t1 = now_s();
    /* setup's 2 events; THREAD of main and of each worker, and START */
    printf("done events %llu handler_events %llu specials %u signals %llu in_hook %llu "
           "threads %u seconds %.3f\n",
           ev + sev + 2, sev, threads + 2, sigs, inhook, threads, t1 - t0);
    return 0;
}
