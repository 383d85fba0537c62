/* SPDX-License-Identifier: MIT */
/* cygtrace_rtt.c - the drain's sink as an RTT up channel (cygtrace_rtt.h, common/cyg_rtt.h).
 *
 * One writer (the drain: one caller, never two at once), one reader (the probe). The writer
 * stores the bytes, then wr_off; the reader takes the bytes, then stores rd_off: each side
 * reads the other's offset once per call, and what it sees is never more than what is there.
 * The buffer holds size - 1 bytes at most, so that wr_off == rd_off means empty.
 *
 * The ID "SEGGER RTT" is nowhere in the image: not in .rodata, not in a .data initial copy, or
 * a tool scanning flash, or the ELF's sections, would take that copy for the block. It is
 * stored from a reversed table, the last byte first, after everything else, so that a scan
 * that finds the whole ID finds a whole block. SEGGER writes its ID the same way.
 *
 * Portable like the core: no #ifdef on the architecture. Built with -fno-instrument-functions;
 * every function is also marked. Nothing from the C library (cyg_zero in cygtrace.c: its
 * memcpy would cost a firmware more than this file). State is static: one channel.
 */
/* The port first, as in the core: it may set defaults before cygtrace_config.h. */
#include "cygtrace_port.h"

#include "cyg_rtt.h"
#include "cygtrace_rtt.h"

#ifdef CYGTRACE_RTT_SECTION
#define RTT_PLACE __attribute__((section(CYGTRACE_RTT_SECTION), aligned(4)))
#else
#define RTT_PLACE __attribute__((aligned(4)))
#endif

#define RTT_W sizeof(void *)
_Static_assert(offsetof(struct cygtrace_rtt_cb, max_up) == CYG_RTT_OFF_MAX_UP, "RTT layout");
_Static_assert(offsetof(struct cygtrace_rtt_cb, max_down) == CYG_RTT_OFF_MAX_DOWN, "RTT layout");
_Static_assert(offsetof(struct cygtrace_rtt_cb, up) == CYG_RTT_OFF_BUFFERS, "RTT layout");
_Static_assert(offsetof(struct cygtrace_rtt_cb, down) ==
                   CYG_RTT_OFF_BUFFERS + CYG_RTT_DESC_BYTES(RTT_W),
               "RTT layout");
_Static_assert(sizeof(struct cygtrace_rtt_buffer) == CYG_RTT_DESC_BYTES(RTT_W), "RTT layout");
_Static_assert(offsetof(struct cygtrace_rtt_buffer, name) == CYG_RTT_DESC_NAME(RTT_W), "RTT");
_Static_assert(offsetof(struct cygtrace_rtt_buffer, buffer) == CYG_RTT_DESC_BUFFER(RTT_W), "RTT");
_Static_assert(offsetof(struct cygtrace_rtt_buffer, size) == CYG_RTT_DESC_SIZE(RTT_W), "RTT");
_Static_assert(offsetof(struct cygtrace_rtt_buffer, wr_off) == CYG_RTT_DESC_WR_OFF(RTT_W), "RTT");
_Static_assert(offsetof(struct cygtrace_rtt_buffer, rd_off) == CYG_RTT_DESC_RD_OFF(RTT_W), "RTT");
_Static_assert(offsetof(struct cygtrace_rtt_buffer, flags) == CYG_RTT_DESC_FLAGS(RTT_W), "RTT");
_Static_assert(sizeof(CYG_RTT_ID) <= CYG_RTT_ID_BYTES, "the ID fits its field");

struct cygtrace_rtt_cb cygtrace_rtt RTT_PLACE;
static unsigned char rtt_bytes[CYGTRACE_RTT_BUFFER] RTT_PLACE;
static const char rtt_name[] = CYG_RTT_CHANNEL_NAME;
/* CYG_RTT_ID backwards, without its NUL: nowhere in the image in the order a scan looks for. */
static const char rtt_di[sizeof(CYG_RTT_ID) - 1] = "TTR REGGES";

/* The channel the sink writes: NULL until cygtrace_rtt_init() or cygtrace_rtt_use(). */
static struct cygtrace_rtt_buffer *rtt_chan;

NOINSTR void cygtrace_rtt_init(void)
{
    volatile char *id = cygtrace_rtt.id;
    struct cygtrace_rtt_buffer *up = &cygtrace_rtt.up[0], *down = &cygtrace_rtt.down[0];

    if (rtt_chan != NULL)
        return;
    /* A block left in a section that startup does not clear is not one until it is whole. */
    id[0] = 0;
    cyg_port_release();
    cygtrace_rtt.max_up = 1;
    cygtrace_rtt.max_down = 1;
    up->name = rtt_name;
    up->buffer = rtt_bytes;
    up->size = CYGTRACE_RTT_BUFFER;
    up->wr_off = 0;
    up->rd_off = 0;
    up->flags = CYG_RTT_MODE_TRIM;
    down->name = rtt_name;
    down->buffer = 0;
    down->size = 0;
    down->wr_off = 0;
    down->rd_off = 0;
    down->flags = 0;
    cyg_port_release(); /* the block before its ID */
    for (unsigned i = CYG_RTT_ID_BYTES; i-- > 0;)
        id[i] = i < sizeof rtt_di ? rtt_di[sizeof rtt_di - 1 - i] : 0;
    rtt_chan = up;
}

NOINSTR int cygtrace_rtt_use(void *segger_cb, unsigned channel)
{
    struct cygtrace_rtt_cb *cb = segger_cb;
    struct cygtrace_rtt_buffer *up;

    /* SEGGER's block is ours with more descriptors: up[channel] is where ours would be. */
    if (cb == NULL || cb->max_up <= 0 || channel >= (unsigned)cb->max_up)
        return -1;
    up = &cb->up[0] + channel;
    if (up->buffer == NULL || up->size < 2 || up->wr_off >= up->size)
        return -1;
    /* Ours, if made already, is no longer written: no tool that scans should find it. */
    if (cb != &cygtrace_rtt)
        ((volatile char *)cygtrace_rtt.id)[0] = 0;
    rtt_chan = up;
    return 0;
}

NOINSTR size_t cygtrace_rtt_sink(void *arg, const void *buf, size_t len)
{
    struct cygtrace_rtt_buffer *ch;
    const unsigned char *src = buf;
    unsigned char *dst;
    uint32_t size, wr, rd, room, n, first;

    (void)arg;
    if (rtt_chan == NULL)
        cygtrace_rtt_init();
    ch = rtt_chan;
    size = ch->size;
    wr = ch->wr_off;
    rd = ch->rd_off; /* once: the host may move it on while we write */
    /* A host that wrote a bad rd_off gets nothing rather than a store outside the buffer. */
    if (wr >= size || rd >= size)
        return 0;
    room = rd > wr ? rd - wr - 1 : size - 1 - wr + rd;
    n = len < room ? (uint32_t)len : room;
    first = size - wr < n ? size - wr : n;
    dst = ch->buffer;
    for (uint32_t i = 0; i < first; i++)
        dst[wr + i] = src[i];
    for (uint32_t i = first; i < n; i++) /* the rest wraps to the start */
        dst[i - first] = src[i];
    wr += n;
    if (wr >= size)
        wr -= size;
    cyg_port_release(); /* the bytes before the offset that shows them */
    ch->wr_off = wr;
    return n;
}
