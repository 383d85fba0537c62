/* SPDX-License-Identifier: MIT */
/* fwdiff_b.c - fwdiff.c built with FWDIFF_B: parse 100 times longer, route's third call through
 * detour. See fwdiff.c. */
#define FWDIFF_B 1
#include "fwdiff.c"
