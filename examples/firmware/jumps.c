/* SPDX-License-Identifier: MIT */
/* jumps.c - newlib's setjmp and longjmp in a firmware: main sets a buffer, f1 .. f6 nest six
 * deep and f6 longjmps back; main then calls after_jump(), one deep in the tree beside f1,
 * twice. The runtime records both (target/cortex-m/cygtrace_cm_jmp.c, linked with
 * -Wl,--wrap=setjmp,--wrap=longjmp). Prints "jumps: done" and sleeps. */
#include <setjmp.h>

#include "board_base.h"

static jmp_buf env;
static volatile int sink;

void after_jump(void)
{
    sink++;
}
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

int main(void)
{
    for (volatile int i = 0; i < 2; i++) {
        if (!setjmp(env))
            f1();
        after_jump();
    }
    board_puts("jumps: done\n");
    return 0;
}
