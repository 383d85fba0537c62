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
 * A round makes 124 events: rtt_round, 3 x 15 calls of DEMO_Run, 16 of the crumble. */
#include "board.h"
#include "cygtrace_cm.h"
#include "cygtrace_rtt.h"

/* Idle time after each round, in which the drain catches up: as stream.c. */
#ifndef RTT_IDLE_US
#define RTT_IDLE_US 5000u
#endif

static volatile uint32_t crumbs;

/* The crumble's recipe text is added up, not printed: the UART stays quiet. */
BOARD_NOINSTR static void quiet(const char *s)
{
    while (*s)
        crumbs += (uint8_t)*s++;
}

/* ---- instrumented: the demo's calls -------------------------------------------------------- */

#define WORK_PUTS(s) quiet(s)
#define WORK_PUTU(v) (crumbs += (v))
#include "demo_work.h"

/* One round of work, the drain between its items (see stream.c on frame sizes). */
void rtt_round(void)
{
    for (int i = 0; i < 3; i++) {
        crumbs += (uint32_t)DEMO_Run();
        cygtrace_drain();
    }
    Crumble_make_apple_crumble();
}

/* ---- not instrumented: the idle loop ------------------------------------------------------- */

/* Drains for us microseconds of the board timer. */
BOARD_NOINSTR static void rtt_idle(uint32_t us)
{
    uint32_t t0 = cygtrace_user_clock(), ticks = board_clock_hz() / 1000000u * us;

    while (cygtrace_user_clock() - t0 < ticks)
        cygtrace_drain();
}

int main(void)
{
    board_puts("rtt: streaming the trace over RTT (cygtrace_rtt, up channel 0 \"cygtrace\")\n");
    cygtrace_rtt_init();
    /* From the oldest record on: main's entry is in the stream. */
    cygtrace_drain_init(cygtrace_rtt_sink, NULL);
    for (;;) {
        rtt_round();
        rtt_idle(RTT_IDLE_US);
    }
}
