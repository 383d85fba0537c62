/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jumps.c - longjmps for tests/e2e/longjmp_linux.sh to see in the tree. Built instrumented,
 * linked with libcygtrace.a (jumps) and without it, with _FORTIFY_SOURCE (jumps-dyn: longjmp
 * is __longjmp_chk there), for cygtrace record's preload.
 *
 *   six      main sets a buffer, f1 .. f6 nest six deep, f6 longjmps; then main calls
 *            after_jump(): one deep in the tree, beside f1
 *   nested   outer sets A, calls h1, whose inner sets B and calls h2 -> h3, which longjmps to
 *            B; inner then calls after_inner and h2 -> h4, which longjmps to A; outer calls
 *            after_outer
 *   threads  four threads, each 50 times: worker sets its own buffer, g1 .. g6, g6 longjmps,
 *            worker calls after_jump
 *   signal   sig_run sigsetjmps, s1 -> s2 -> s3 raises SIGUSR1, whose handler on_sig
 *            siglongjmps; sig_run calls after_jump
 *   plain    _longjmp and setjmp's other spellings: _setjmp + _longjmp, sigsetjmp(0) +
 *            siglongjmp, each out of p1 -> p2; after_jump after each
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static jmp_buf env, env_a, env_b;
static sigjmp_buf senv;
static volatile int sink;

void after_jump(void)
{
    sink++;
}

/* six */
void f6(void)
{
    longjmp(env, 1);
}
void f5(void)
{
    f6();
}
void f4(void)
{
    f5();
}
void f3(void)
{
    f4();
}
void f2(void)
{
    f3();
}
void f1(void)
{
    f2();
}

/* nested */
void after_inner(void)
{
    sink++;
}
void after_outer(void)
{
    sink++;
}
void h4(void)
{
    longjmp(env_a, 1);
}
void h3(void)
{
    longjmp(env_b, 1);
}
void h2(int last)
{
    if (last)
        h4();
    else
        h3();
}
void inner(void)
{
    if (!setjmp(env_b))
        h2(0);
    after_inner();
    h2(1);
}
void h1(void)
{
    inner();
}
void outer(void)
{
    if (!setjmp(env_a))
        h1();
    after_outer();
}

/* threads */
void g6(jmp_buf *e)
{
    longjmp(*e, 1);
}
void g5(jmp_buf *e)
{
    g6(e);
}
void g4(jmp_buf *e)
{
    g5(e);
}
void g3(jmp_buf *e)
{
    g4(e);
}
void g2(jmp_buf *e)
{
    g3(e);
}
void g1(jmp_buf *e)
{
    g2(e);
}
void *worker(void *arg)
{
    jmp_buf mine;
    volatile int i;

    (void)arg;
    for (i = 0; i < 50; i++) {
        if (!setjmp(mine))
            g1(&mine);
        after_jump();
    }
    return NULL;
}

/* signal */
void on_sig(int sig)
{
    (void)sig;
    siglongjmp(senv, 1);
}
void s3(void)
{
    raise(SIGUSR1);
}
void s2(void)
{
    s3();
}
void s1(void)
{
    s2();
}
void sig_run(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sig;
    sigaction(SIGUSR1, &sa, NULL);
    if (!sigsetjmp(senv, 1))
        s1();
    after_jump();
}

/* plain */
void p2(int how)
{
    if (how)
        siglongjmp(senv, 1);
    _longjmp(env, 1);
}
void p1(int how)
{
    p2(how);
}
void plain(void)
{
    if (!_setjmp(env))
        p1(0);
    after_jump();
    if (!sigsetjmp(senv, 0))
        p1(1);
    after_jump();
}

int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : "";

    if (!strcmp(s, "six")) {
        if (!setjmp(env))
            f1();
        after_jump();
    } else if (!strcmp(s, "nested")) {
        outer();
    } else if (!strcmp(s, "threads")) {
        pthread_t t[4];

        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, worker, NULL);
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
    } else if (!strcmp(s, "signal")) {
        sig_run();
    } else if (!strcmp(s, "plain")) {
        plain();
    } else {
        fprintf(stderr, "usage: jumps six|nested|threads|signal|plain\n");
        return 2;
    }
    printf("%s: done\n", s);
    return 0;
}
