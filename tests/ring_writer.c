/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ring_writer.c - a program linked with the Linux runtime that records what it is told, for
 * tests/check_follow.c: the runtime sets its ring up as in any program (before main, from
 * CYGTRACE_OUT and CYGTRACE_SIZE), then each command read from fd 0 (struct ring_writer_cmd)
 * records its enter/exit pairs, and one byte on fd 1 says they are in the ring. Ends at EOF. */
#include <stdint.h>
#include <unistd.h>

#include "cygtrace.h"
#include "ring_writer.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

int main(void)
{
    struct ring_writer_cmd m;

    if (!cygtrace_control_block())
        return 1;
    while (read(0, &m, sizeof m) == (ssize_t)sizeof m) {
        for (uint32_t i = 0; i < m.pairs; i++) {
            __cyg_profile_func_enter((void *)(uintptr_t)(m.base + 16 * i), NULL);
            __cyg_profile_func_exit((void *)(uintptr_t)(m.base + 16 * i), NULL);
        }
        if (write(1, "k", 1) != 1)
            return 1;
    }
    return 0;
}
