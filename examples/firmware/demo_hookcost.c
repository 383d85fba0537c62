/* SPDX-License-Identifier: MIT */
/* demo_hookcost.c - demo.c, linked with a runtime built with -DCYGTRACE_HOOK_COST=12: its
 * control block says what one event's hooks cost (12 ticks of the board's timer, a figure
 * given, docs/FORMAT.md 2.8), and cygtrace takes it out of the durations it shows. See
 * demo.c. */
#include "demo.c"
