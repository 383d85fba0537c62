/* SPDX-License-Identifier: MIT */
/* rtt.c - the trace streamed live over the debug probe, not the UART: the drain's sink is the
 * RTT up channel of target/core/cygtrace_rtt.c, which a probe (or QEMU's gdbstub) reads while
 * the program runs. The work is stream.c's: the "Poor Man's Trace" DEMO_Run three times, then
 * the apple crumble, the drain between work items and in the idle time after each round, for
 * ever. The UART says one line at the start and nothing after:
 *
 *     qemu-system-arm -M mps2-an385 -display none -monitor none -serial stdio \
 *         -gdb tcp::3333 -kernel build/firmware/mps2-an385/rtt.elf &
 *     cygtrace live --gdb=127.0.0.1:3333 build/firmware/mps2-an385/rtt.elf
 *
 * The control block is `cygtrace_rtt` (the ID "SEGGER RTT", one up channel "cygtrace"), set up
 * before the first event is drained, so that a host that attaches at once finds it. A host
 * that polls too slowly lets the 1024 bytes of the channel fill: the ring keeps what the drain
 * could not hand over yet, and what the ring cannot keep the stream counts as lost. `cygtrace
 * pull` reads the ring as from any other example.
 *
 * The work, the drain calls and the idle loop are stream.c's, built for ever into the RTT sink. */
#define STREAM_RTT 1
#define STREAM_ROUNDS 0u
#include "stream.c"
