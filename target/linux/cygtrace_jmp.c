/* SPDX-License-Identifier: MIT */
/* cygtrace_jmp.c - setjmp and longjmp, wrapped so that the ring says where each longjmp goes
 * back to: a SETJMP record (the buffer's address) before the real setjmp, a LONGJMP record
 * before the real longjmp. The host closes the calls a longjmp skipped, whose exits never
 * come, at the depth of its buffer's setjmp (docs/FORMAT.md 7.6). The hooks' fast path is
 * untouched: only the program's setjmp and longjmp calls pay, one record each.
 *
 * setjmp returns twice, so its wrapper must leave no frame of its own for the second return
 * to come back through: it records, then jumps to the real setjmp with the program's return
 * address on the stack, as the vfork wrapper does (cygtrace_linux.c). The longjmp wrappers do
 * the same; they never return either way.
 *
 * The names are the ones <setjmp.h> leads to: setjmp is _setjmp, sigsetjmp __sigsetjmp, and
 * with _FORTIFY_SOURCE longjmp and siglongjmp are __longjmp_chk. Built two ways:
 * - CYG_JMP_PRELOAD (libcygtrace.so, preloaded or linked): the functions themselves, which come
 *   before the C library's; the real ones are looked up with dlsym(RTLD_NEXT).
 * - otherwise (libcygtrace.a): __wrap_NAME, for a program linked with GNU ld's --wrap=NAME of
 *   each (CYGTRACE_JMP_WRAP in the Makefile, cygtrace-static.pc), which call __real_NAME. A
 *   program linked without them links none of this and records no jump; the archive cannot
 *   define the names themselves: a program linked with -static would then have no C library
 *   setjmp to go on to.
 * Calls inside the C library itself are not seen. x86-64 only for now: on other targets
 * nothing is wrapped, and a longjmp shows as before (its skipped calls closed by the next exit
 * below them, or by a call site).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

#include "cygtrace_linux.h"
#include "cygtrace_port.h"

#if defined(__x86_64__)

/* The wrappers' indexes: the setjmps first. */
enum { J_SETJMP_, J_SETJMP, J_SIGSETJMP, J_LONGJMP, J_LONGJMP_, J_SIGLONGJMP, J_LONGJMP_CHK, J_N };

#ifdef CYG_JMP_PRELOAD
static const char *const jmp_name[J_N] = {"_setjmp", "setjmp",     "__sigsetjmp", "longjmp",
                                          "_longjmp", "siglongjmp", "__longjmp_chk"};
static void *jmp_real[J_N];

/* The C library's function of index i, looked up once: before main (jmp_find), or at the
 * first call when that comes earlier (another object's constructor). A signal handler's
 * siglongjmp, the one call that must not look up, comes after main has begun. */
NOINSTR static void *jmp_lookup(unsigned i)
{
    void *f = __atomic_load_n(&jmp_real[i], __ATOMIC_ACQUIRE);

    if (f == NULL) {
        cyg_linux_tls.busy++;
        f = dlsym(RTLD_NEXT, jmp_name[i]);
        cyg_linux_tls.busy--;
        __atomic_store_n(&jmp_real[i], f, __ATOMIC_RELEASE);
    }
    return f;
}

NOINSTR __attribute__((constructor)) static void jmp_find(void)
{
    for (unsigned i = 0; i < J_N; i++)
        jmp_lookup(i);
}

/* Called by the wrappers with the buffer: records, and returns the real function for the
 * wrapper to jump to. A shared object always has a C library after it. */
NOINSTR CYG_HIDDEN void *cyg_linux_jmp(void *env, unsigned i)
{
    cygtrace_jump(i >= J_LONGJMP, env);
    return jmp_lookup(i);
}

/* The wrapper goes on to the real function: "jmp *%rax", what cyg_linux_jmp returned. */
#define JMP_WRAP(name, i) JMP_ASM(#name, i, "jmp *%rax")
#else
NOINSTR CYG_HIDDEN void cyg_linux_jmp(void *env, unsigned i)
{
    cygtrace_jump(i >= J_LONGJMP, env);
}

/* The wrapper goes on to __real_NAME, which the linker makes the C library's NAME. */
#define JMP_WRAP(name, i) JMP_ASM("__wrap_" #name, i, "jmp __real_" #name "@PLT")
#endif

/* A wrapper SYM: saves the arguments (rdi: the buffer; rsi: savemask or val), keeps the stack
 * 16-byte aligned for the call of cyg_linux_jmp(buffer, I), and goes on (GO) to the real
 * function with the stack as the caller left it. endbr64 (a no-op without CET) for the PLT's
 * indirect jump here where IBT is enforced. */
#define JMP_ASM(sym, i, go)                                                                    \
    __asm__(".text\n"                                                                          \
            ".globl " sym "\n"                                                                 \
            ".type " sym ", @function\n" sym ":\n"                                             \
            "    endbr64\n"                                                                    \
            "    push %rdi\n"                                                                  \
            "    push %rsi\n"                                                                  \
            "    sub $8, %rsp\n"                                                               \
            "    mov $" #i ", %esi\n"                                                          \
            "    call cyg_linux_jmp\n"                                                         \
            "    add $8, %rsp\n"                                                               \
            "    pop %rsi\n"                                                                   \
            "    pop %rdi\n"                                                                   \
            "    " go "\n"                                                                     \
            ".size " sym ", .-" sym "\n")

_Static_assert(J_SETJMP_ == 0 && J_SETJMP == 1 && J_SIGSETJMP == 2 && J_LONGJMP == 3 &&
                   J_LONGJMP_ == 4 && J_SIGLONGJMP == 5 && J_LONGJMP_CHK == 6,
               "the indexes the wrappers pass");
JMP_WRAP(_setjmp, 0);
JMP_WRAP(setjmp, 1);
JMP_WRAP(__sigsetjmp, 2);
JMP_WRAP(longjmp, 3);
JMP_WRAP(_longjmp, 4);
JMP_WRAP(siglongjmp, 5);
JMP_WRAP(__longjmp_chk, 6);

#endif
