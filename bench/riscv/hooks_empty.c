/* hooks_empty.c - the baseline firmware: hooks that do nothing (a bare `ret` each), and stubs
 * for what examples/riscv/start.c calls in the runtime, so that a variant's count minus this
 * one is what its hooks cost above the call itself. bench_recorded() says 0. */
#include <stdint.h>

#define NOINSTR __attribute__((no_instrument_function))

NOINSTR void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
}

NOINSTR void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
}

NOINSTR uint32_t bench_recorded(void)
{
    return 0;
}

NOINSTR int cygtrace_rv_init(uint32_t clock_hz)
{
    (void)clock_hz;
    return 0;
}

NOINSTR __attribute__((aligned(4))) void cygtrace_rv_trap_handler(void)
{
    for (;;)
        ;
}
