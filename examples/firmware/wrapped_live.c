/* SPDX-License-Identifier: MIT */
/* wrapped_live.c - wrapped.c built with WRAPPED_LIVE: the driver's calls, with their arguments
 * and return values, streamed over the UART until QEMU is stopped, for "cygtrace live". */
#define WRAPPED_LIVE 1
#include "wrapped.c"
