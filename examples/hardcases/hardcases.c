/* SPDX-License-Identifier: MIT */
/* hardcases.c - the call shapes that are hard to trace, one scenario per run (argv[1]). Each
 * proves something about the runtime or the decoder; tests/e2e/hardcases.sh checks it:
 *
 *   recurse  fact(5): a function nested in itself; each level closes in its own place.
 *   fnptr    calls through function pointers, to static functions too: a name comes from the
 *            address alone, so local symbols must resolve.
 *   longjmp  main -> run_jobs (setjmp) -> job_a -> job_b -> job_c (longjmp): three exits never
 *            happen. With CYGTRACE_CALLSITES=1 the next call, after_jump() from run_jobs, proves
 *            them gone: it shows beside job_a, not inside job_c.
 *   threads  two pthreads running at once, each its own chain: one tree per thread, balanced.
 *   segv     NULL store at depth 3 (main -> level1 -> level2 -> level3): the trace survives
 *            SIGSEGV and ends with the call stack of the crash.
 *   abort    the same with abort() (SIGABRT).
 *   kill     the same with SIGKILL, which nothing can catch: only the shared mapping survives.
 *   exit     exit(0) at depth 3: a normal end, with frames that never return.
 *   wrap     1.6 million events: a 4K ring (CYGTRACE_SIZE=4K) wraps thousands of times, so the
 *            trace starts deep inside calls that began before it.
 *   wait     a few calls, then "wait: pid N" and up to 30 s asleep inside wait_here(): a
 *            debugger attaches meanwhile and pulls the ring out of memory (pull_linux.sh).
 *   inline   mid() with helper() inlined into it (always_inline, which -fno-inline keeps):
 *            gcc gives an inlined function's hooks the call site of the function it is
 *            inlined into. With CYGTRACE_CALLSITES=1 the tree must nest as without them.
 *   wrapjmp  jump_outer() runs work() (100,000 calls), then protect(), which longjmps out of
 *            a five-deep recursion, then work() again: a 4K ring (CYGTRACE_SIZE=4K) keeps the
 *            longjmp and starts inside the first work(), whose skipped exits must not make the
 *            trace look shallower than it is: the end nests under main as unwrapped.
 *
 * Build: make (build/examples/hardcases). Run: CYGTRACE_OUT=t.out build/examples/hardcases segv
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Work the optimizer must keep: every function here does something observable. */
static volatile long sink;

/* recurse */

static long fact(long n)
{
    return n <= 1 ? 1 : n * fact(n - 1);
}

/* fnptr */

static int twice(int x)
{
    return 2 * x;
}

static int square(int x)
{
    return x * x;
}

int negate(int x)
{
    return -x;
}

static int apply(int (*fn)(int), int x)
{
    return fn(x);
}

static void run_fnptr(void)
{
    static int (*const table[])(int) = {twice, square, negate};
    int (*volatile direct)(int) = square; /* volatile: the call cannot become a direct one */
    int sum = 0;

    for (unsigned i = 0; i < sizeof table / sizeof table[0]; i++)
        sum += apply(table[i], (int)i + 1);
    sum += direct(7);
    printf("fnptr: %d\n", sum);
}

/* longjmp */

static jmp_buf jobs_env;

static __attribute__((noreturn)) void job_c(void)
{
    longjmp(jobs_env, 1);
}

static void job_b(void)
{
    job_c();
}

static void job_a(void)
{
    job_b();
    sink++; /* not a tail call: job_a must be in its own frame */
}

static void after_jump(void)
{
    printf("longjmp: back in run_jobs\n");
}

static void run_jobs(void)
{
    if (setjmp(jobs_env) == 0)
        job_a();
    after_jump();
}

/* threads */

static pthread_barrier_t both_running;

static void step_a2(void)
{
    sink += 2;
}

static void step_a1(void)
{
    step_a2();
}

static void step_b2(void)
{
    sink += 3;
}

static void step_b1(void)
{
    step_b2();
}

/* The barrier makes the two threads record at the same time, interleaved in one ring. */
static void *worker_a(void *arg)
{
    pthread_barrier_wait(&both_running);
    for (int i = 0; i < 200; i++)
        step_a1();
    return arg;
}

static void *worker_b(void *arg)
{
    pthread_barrier_wait(&both_running);
    for (int i = 0; i < 200; i++)
        step_b1();
    return arg;
}

static int run_threads(void)
{
    pthread_t a, b;

    pthread_barrier_init(&both_running, NULL, 2);
    if (pthread_create(&a, NULL, worker_a, NULL) || pthread_create(&b, NULL, worker_b, NULL)) {
        fprintf(stderr, "hardcases: pthread_create failed\n");
        return 1;
    }
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_barrier_destroy(&both_running);
    printf("threads: joined\n");
    return 0;
}

/* manythreads: more threads than a fixed table of contexts would hold, one after another */

#define MANY_THREADS 1100

static void *one_call(void *arg)
{
    step_b2();
    return arg;
}

static int run_many_threads(void)
{
    for (int i = 0; i < MANY_THREADS; i++) {
        pthread_t t;

        if (pthread_create(&t, NULL, one_call, NULL)) {
            fprintf(stderr, "hardcases: pthread_create failed\n");
            return 1;
        }
        pthread_join(t, NULL);
    }
    printf("manythreads: %d joined\n", MANY_THREADS);
    return 0;
}

/* segv, abort, kill, exit: three levels deep, then the end */

enum ending { END_SEGV, END_ABORT, END_KILL, END_EXIT };

static void level3(enum ending how)
{
    volatile int *volatile nowhere = NULL; /* volatile: -O1 may not prove it NULL */

    fflush(stdout);
    switch (how) {
    case END_SEGV:
        *nowhere = 1;
        break;
    case END_ABORT:
        abort();
    case END_KILL:
        kill(getpid(), SIGKILL);
        break;
    case END_EXIT:
        exit(0);
    }
}

static void level2(enum ending how)
{
    level3(how);
}

static void level1(enum ending how)
{
    level2(how);
}

/* wrap */

static void chain4(void)
{
    sink++;
}

static void chain3(void)
{
    chain4();
}

static void chain2(void)
{
    chain3();
}

static void chain1(void)
{
    chain2();
}

static void middle(long n)
{
    for (long i = 0; i < n; i++)
        chain1();
}

static void outer(long n)
{
    middle(n);
}

/* inline */

static __attribute__((noinline)) void leaf(int x)
{
    sink += x;
}

static inline __attribute__((always_inline)) void helper(int x)
{
    sink += 2 * x;
}

/* inlined, and calls: its call of leaf() is a call from mid()'s code */
static inline __attribute__((always_inline)) void helper_leaf(int x)
{
    leaf(x + 1);
}

static void mid(int x)
{
    helper(x);
    leaf(x);
    helper_leaf(x);
}

static void run_inline(void)
{
    mid(1);
    mid(2);
    printf("inline: %ld\n", (long)sink);
}

/* wrapjmp */

static jmp_buf protect_env;
static volatile int jumping = 1; /* volatile: else gcc sees no way out of dive() */

static void tick(void)
{
    sink++;
}

static void work(long n)
{
    for (long i = 0; i < n; i++)
        tick();
}

static void dive(int n)
{
    if (n > 0)
        dive(n - 1);
    else if (jumping)
        longjmp(protect_env, 1);
    sink++; /* not a tail call */
}

static void protect(void)
{
    if (setjmp(protect_env) == 0)
        dive(4);
}

static void jump_outer(void)
{
    work(100000);
    protect();
    work(20);
}

/* wait */

static void wait_here(void)
{
    printf("wait: pid %d\n", (int)getpid());
    fflush(stdout);
    sleep(30); /* not instrumented: the ring stays as it is while a debugger reads it */
}

static void run_wait(void)
{
    sink += fact(3);
    wait_here();
}

int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : "";

    if (!strcmp(s, "recurse")) {
        printf("recurse: 5! = %ld\n", fact(5));
    } else if (!strcmp(s, "fnptr")) {
        run_fnptr();
    } else if (!strcmp(s, "longjmp")) {
        run_jobs();
    } else if (!strcmp(s, "threads")) {
        return run_threads();
    } else if (!strcmp(s, "manythreads")) {
        return run_many_threads();
    } else if (!strcmp(s, "segv") || !strcmp(s, "abort") || !strcmp(s, "kill") ||
               !strcmp(s, "exit")) {
        level1(!strcmp(s, "segv")    ? END_SEGV
               : !strcmp(s, "abort") ? END_ABORT
               : !strcmp(s, "kill")  ? END_KILL
                                     : END_EXIT);
        fprintf(stderr, "hardcases: %s: still alive\n", s);
        return 70;
    } else if (!strcmp(s, "wait")) {
        run_wait();
    } else if (!strcmp(s, "wrap")) {
        outer(200000);
        printf("wrap: %ld calls of chain4\n", (long)sink);
    } else if (!strcmp(s, "inline")) {
        run_inline();
    } else if (!strcmp(s, "wrapjmp")) {
        jump_outer();
        printf("wrapjmp: %ld\n", (long)sink);
    } else {
        fprintf(stderr, "usage: hardcases recurse|fnptr|longjmp|threads|manythreads|segv|abort|"
                        "kill|exit|wrap|inline|wrapjmp|wait\n");
        return 2;
    }
    return 0;
}
