/* SPDX-License-Identifier: MIT */
/* stress_armed.c - stress_ow.c with the control area armed (STRESS_ARMED): a start trigger on
 * work_step, which fires at the main loop's first call, and a depth limit no call reaches, so
 * that every event of the run takes the hooks' slow path through the triggers and filters while
 * the timer interrupt lands all over it. The records must come out as whole as stress_ow's, plus
 * the trigger's own. See stress.c. */
#define STRESS_OVERWRITE 1
#define STRESS_ARMED 1
#include "stress.c"
