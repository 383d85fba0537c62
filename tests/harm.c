/* SPDX-License-Identifier: GPL-3.0-or-later */
/* harm.c - a program that tries to get hurt by the Linux runtime it carries, for
 * tests/e2e/linux_safety.sh. Built with -finstrument-functions, with libcygtrace.a (harm) and
 * without it for cygtrace record's preload (harm-dyn).
 *
 *   harm run MS            calls traced functions for MS milliseconds, then exits 0
 *   harm daemon DATA PLUGIN
 *                          closes every descriptor as a daemon does, opens its own data file
 *                          (as fds 0 to 9: whatever number the runtime had is the program's
 *                          now), dlopens PLUGIN, forks a child that checks its descriptors and
 *                          writes to the file; exits 3 when one of its own is gone or fails
 *   harm sigmalloc         the first traced call runs in a signal handler that interrupts
 *                          malloc (raised from inside this program's own malloc, every time,
 *                          not by chance); a malloc entered again from there aborts
 *   harm vfork             a vfork child calls traced functions before _exit
 *   harm forkdlopen PLUGIN a forked child dlopens PLUGIN before its first traced call, and
 *                          calls it
 *   harm threads MS        four threads call traced functions for MS milliseconds (while the
 *                          test truncates the ring's file), then exits 0
 *   harm ownbus HOW [MS]   SIGBUS handler of its own (HOW: sigaction, signal or sysv_signal, whose
 *                          handler installs itself again; installed before
 *                          the runtime's set-up when HARM_BUS_EARLY is set): sigaction reads it
 *                          back, a real bus error (a mapped file cut short) and a raise reach it;
 *                          then as threads MS, after which the handler must have seen nothing
 *                          more (a truncated ring's faults are not the program's); exits 0, or
 *                          4 to 9 for the first that failed
 *   harm bus               a bus error of its own with no handler: dies of SIGBUS
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNTRACED __attribute__((no_instrument_function))

volatile int sink;

__attribute__((noinline)) void work_leaf(int i)
{
    sink += i;
}

__attribute__((noinline)) void work_round(int n)
{
    for (int i = 0; i < n; i++)
        work_leaf(i);
}

/* --- malloc that notices being entered again from a signal handler -------------------------- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* in_malloc per thread: two threads in malloc at once are not a re-entry (harm threads). */
static __thread volatile sig_atomic_t in_malloc;
static volatile sig_atomic_t raise_in_malloc;

UNTRACED static void enter_malloc(void)
{
    if (in_malloc) {
        static const char msg[] = "harm: malloc entered again from a signal handler\n";

        write(2, msg, sizeof msg - 1);
        abort();
    }
    in_malloc = 1;
    if (raise_in_malloc) {
        raise_in_malloc = 0;
        raise(SIGUSR1); /* the handler runs here, inside malloc */
    }
}

UNTRACED void *malloc(size_t n)
{
    void *p;

    enter_malloc();
    p = __libc_malloc(n);
    in_malloc = 0;
    return p;
}

UNTRACED void *calloc(size_t n, size_t m)
{
    void *p;

    enter_malloc();
    p = __libc_calloc(n, m);
    in_malloc = 0;
    return p;
}

UNTRACED void *realloc(void *old, size_t n)
{
    void *p;

    enter_malloc();
    p = __libc_realloc(old, n);
    in_malloc = 0;
    return p;
}

UNTRACED void free(void *p)
{
    enter_malloc();
    __libc_free(p);
    in_malloc = 0;
}

__attribute__((noinline)) void in_handler(int depth)
{
    if (depth > 0)
        in_handler(depth - 1);
}

UNTRACED static void on_usr1(int sig)
{
    (void)sig;
    in_handler(3);
}

UNTRACED static int sigmalloc(void)
{
    signal(SIGUSR1, on_usr1);
    for (int i = 0; i < 100; i++) {
        void *volatile p; /* volatile: the pair must not be optimised away */

        raise_in_malloc = 1;
        p = malloc(64);
        free(p);
    }
    return 0;
}

/* --- the others --------------------------------------------------------------------------- */

UNTRACED static long now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

__attribute__((noinline)) int run(long ms)
{
    long end = now_ms() + ms;

    while (now_ms() < end)
        work_round(100);
    return 0;
}

__attribute__((noinline)) int daemon_like(const char *data, const char *plugin)
{
    long (*run_plugin)(long);
    int fd, status;
    pid_t pid;
    void *h;

    for (int i = 0; i < 1024; i++)
        close(i);
    fd = open(data, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (fd != 0)
        return 4;
    for (int i = 1; i < 10; i++)
        if (dup(fd) != i)
            return 4;
    if (!(h = dlopen(plugin, RTLD_NOW)) || !(run_plugin = (long (*)(long))dlsym(h, "plugin_run")))
        return 5;
    run_plugin(1);
    work_round(10);
    if (write(fd, "parent\n", 7) != 7)
        return 3;
    pid = fork();
    if (pid == 0) {
        work_round(10);
        struct stat mine, st;

        if (fstat(fd, &mine) != 0)
            _exit(3);
        for (int i = 0; i < 10; i++) /* each still open, each still the data file */
            if (fstat(i, &st) != 0 || st.st_ino != mine.st_ino || st.st_dev != mine.st_dev)
                _exit(3);
        _exit(write(fd, "child\n", 6) == 6 ? 0 : 3);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 6;
    if (WEXITSTATUS(status))
        return WEXITSTATUS(status);
    return write(2, "stderr\n", 7) == 7 ? 0 : 3;
}

__attribute__((noinline)) void vfork_child_work(void)
{
    work_round(3);
}

__attribute__((noinline)) void before_vfork(void)
{
    work_leaf(1);
}

__attribute__((noinline)) void after_vfork(void)
{
    work_leaf(2);
}

__attribute__((noinline)) int vfork_run(void)
{
    int status;
    pid_t pid;

    before_vfork();
    pid = vfork();
    if (pid == 0) {
        vfork_child_work();
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 6;
    after_vfork();
    return 0;
}

__attribute__((noinline)) int fork_dlopen(const char *plugin)
{
    int status;
    pid_t pid;

    work_round(3);
    pid = fork();
    if (pid == 0) {
        void *h = dlopen(plugin, RTLD_NOW);
        long (*run_plugin)(long) = h ? (long (*)(long))dlsym(h, "plugin_run") : NULL;

        _exit(run_plugin && run_plugin(2) ? 0 : 5);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 6;
    return WEXITSTATUS(status);
}

/* --- SIGBUS ------------------------------------------------------------------------------- */

struct harm_thread {
    long ms;
};

static void *threads_body(void *arg)
{
    long ms = ((struct harm_thread *)arg)->ms;
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        work_round(100);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
    return NULL;
}

static int threads_run(long ms)
{
    pthread_t th[4];
    struct harm_thread a = {ms};

    for (int i = 0; i < 4; i++)
        if (pthread_create(&th[i], NULL, threads_body, &a) != 0)
            return 3;
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    return 0;
}

/* A page of a file mapped, then the file cut to nothing: touching the page raises SIGBUS. */
UNTRACED static volatile char *cut_page(void)
{
    char *p;
    int fd = open("harm-bus.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);

    if (fd < 0 || ftruncate(fd, 4096) != 0)
        return NULL;
    p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
        return NULL;
    close(fd);
    unlink("harm-bus.tmp");
    return p;
}

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_seen;
static void *volatile bus_addr;

static void own_bus_info(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    work_leaf(sig); /* a traced call in the handler */
    bus_seen++;
    bus_addr = si->si_code > 0 ? si->si_addr : NULL;
    if (si->si_code > 0)
        siglongjmp(bus_jmp, 1);
}

static int own_bus_sysv;

static void own_bus_plain(int sig)
{
    if (own_bus_sysv) /* reset to the default as it runs */
        sysv_signal(SIGBUS, own_bus_plain);
    work_leaf(sig);
    bus_seen++;
    if (bus_seen == 1)
        siglongjmp(bus_jmp, 1);
}

UNTRACED static int own_bus_install(const char *how)
{
    struct sigaction sa;

    if (!strcmp(how, "signal"))
        return signal(SIGBUS, own_bus_plain) == SIG_ERR ? -1 : 0;
    if (!strcmp(how, "sysv_signal")) {
        own_bus_sysv = 1;
        return sysv_signal(SIGBUS, own_bus_plain) == SIG_ERR ? -1 : 0;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = own_bus_info;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, NULL);
}

/* Before the runtime's constructor (priority 101 runs before the default ones). */
UNTRACED __attribute__((constructor(101))) static void own_bus_early(void)
{
    const char *how = getenv("HARM_BUS_EARLY");

    if (how)
        own_bus_install(how);
}

UNTRACED static int own_bus(const char *how, long ms)
{
    struct sigaction now;
    volatile char *p;
    int plain = strcmp(how, "sigaction") != 0;

    if (!getenv("HARM_BUS_EARLY") && own_bus_install(how) != 0)
        return 4;
    work_round(10);
    if (sigaction(SIGBUS, NULL, &now) != 0 ||
        (plain ? now.sa_handler != own_bus_plain : now.sa_sigaction != own_bus_info))
        return 5;
    if (!(p = cut_page()))
        return 6;
    if (sigsetjmp(bus_jmp, 1) == 0)
        p[10] = 1;
    if (bus_seen != 1 || (!plain && bus_addr != (void *)(p + 10)))
        return 7;
    raise(SIGBUS);
    if (bus_seen != 2)
        return 8;
    if (threads_run(ms) != 0 || bus_seen != 2)
        return 9;
    return 0;
}

UNTRACED static int bus_error(void)
{
    volatile char *p = cut_page();

    work_round(10);
    if (!p)
        return 6;
    p[10] = 1;
    return 0;
}

/* Untraced: in sigmalloc, the handler makes the first traced call. */
UNTRACED int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "run"))
        return run(atol(argv[2]));
    if (argc == 4 && !strcmp(argv[1], "daemon"))
        return daemon_like(argv[2], argv[3]);
    if (argc == 2 && !strcmp(argv[1], "sigmalloc"))
        return sigmalloc();
    if (argc == 2 && !strcmp(argv[1], "vfork"))
        return vfork_run();
    if (argc == 3 && !strcmp(argv[1], "forkdlopen"))
        return fork_dlopen(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "threads"))
        return threads_run(atol(argv[2]));
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "ownbus"))
        return own_bus(argv[2], argc == 4 ? atol(argv[3]) : 0);
    if (argc == 2 && !strcmp(argv[1], "bus"))
        return bus_error();
    fprintf(stderr, "usage: harm run MS | daemon DATA PLUGIN | sigmalloc | vfork | "
                    "forkdlopen PLUGIN | threads MS | ownbus sigaction|signal|sysv_signal [MS] | bus\n");
    return 2;
}
