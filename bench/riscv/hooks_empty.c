/* SPDX-License-Identifier: MIT */
/* hooks_empty.c - the baseline firmware: bench/hooks_empty.c's hooks that do nothing (a bare
 * `ret` each), and stubs for what examples/riscv/start.c calls in the runtime, so that a
 * variant's count minus this one is what its hooks cost above the call itself.
 * bench_recorded() says 0. */
#include <stdint.h>

#include "../hooks_empty.c"

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
