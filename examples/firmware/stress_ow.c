/* SPDX-License-Identifier: MIT */
/* stress_ow.c - stress.c built with STRESS_OVERWRITE: a small ring that overwrites, lapped a few
 * hundred times while the timer interrupt records in the middle of the main loop's records.
 * See stress.c. */
#define STRESS_OVERWRITE 1
#include "stress.c"
