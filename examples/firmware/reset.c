/* SPDX-License-Identifier: MIT */
/* reset.c - a trace that survives a warm reset. The first boot records a few calls, then asks
 * for a system reset, as a watchdog or NVIC_SystemReset() would. After it, cygtrace_cm_init()
 * finds the ring still valid in RAM and keeps it, frozen: the debugger reads what happened
 * before the reset, and the second boot, which records nothing, says so and sleeps. */
#include "board.h"
#include "cygtrace_cm.h"

int sensor_read(int channel)
{
    return 100 + channel * 7;
}

int filter_update(int value)
{
    static int state;

    state = (3 * state + value) / 4;
    return state;
}

void control_step(int step)
{
    filter_update(sensor_read(step & 3));
}

int main(void)
{
    unsigned resets = cygtrace_cm_resets();

    if (resets) {
        board_puts("reset: kept the trace from before the reset (resets=");
        board_putu(resets);
        board_puts(")\n");
        return 0;
    }
    for (int step = 0; step < 4; step++)
        control_step(step);
    board_puts("reset: before reset\n");
    board_reset();
}
