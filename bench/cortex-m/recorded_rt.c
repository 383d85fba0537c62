/* SPDX-License-Identifier: MIT */
/* recorded_rt.c - bench_recorded() for the firmware linked with the runtime: the records the
 * ring has reserved since boot (the low word of the control block's head, byte 88; see
 * docs/FORMAT.md), which fib.c prints and run.sh checks against the workload's events. */
#include <stdint.h>

#include "cygtrace.h"

#define BENCH_OFF_HEAD 88u

__attribute__((no_instrument_function)) uint32_t bench_recorded(void)
{
    const uint32_t *ctl = cygtrace_control_block();

    return ctl ? ctl[BENCH_OFF_HEAD / 4] : 0;
}
