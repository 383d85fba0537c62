/* SPDX-License-Identifier: MIT */
/* stream_crash.c - stream.c built with STREAM_CRASH: the drain runs in a timer interrupt, and
 * the program ends in a HardFault whose records the fault hook flushes to the UART; QEMU exits
 * with status 3. See stream.c. */
#define STREAM_CRASH 1
#include "stream.c"
