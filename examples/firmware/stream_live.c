/* SPDX-License-Identifier: MIT */
/* stream_live.c - stream.c built with STREAM_ROUNDS 0: it streams its calls over the UART until
 * QEMU is stopped, for "cygtrace live" to watch or join at any time. See stream.c. */
#define STREAM_ROUNDS 0u
#include "stream.c"
