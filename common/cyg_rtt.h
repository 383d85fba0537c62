/* SPDX-License-Identifier: MIT */
/* cyg_rtt.h - the layout of a SEGGER RTT control block, the ring in target RAM that debug
 * probes read in the background (J-Link, OpenOCD `rtt`, pyOCD, probe-rs, Black Magic Probe),
 * as the target's runtime (target/core/cygtrace_rtt.c) writes it and the host
 * (cygtrace live --gdb) reads it. Freestanding C99; docs/FORMAT.md section 13.
 *
 * A control block is:
 *   u8[16]  id             "SEGGER RTT", NUL-padded: what tools scan RAM for
 *   i32     max_up         up buffers (target to host) that follow
 *   i32     max_down       down buffers (host to target) after them
 *   then max_up + max_down buffer descriptors, each (W = the target's pointer size):
 *   W       name           address of the channel's NUL-terminated name ("cygtrace")
 *   W       buffer         address of its bytes
 *   u32     size           bytes of the buffer
 *   u32     wr_off         next byte the writer stores (the writer's; up buffers: the target)
 *   u32     rd_off         next byte the reader takes (the reader's; up buffers: the host)
 *   u32     flags          the mode when full (CYG_RTT_MODE_*), in bits 1..0
 * An up buffer holds wr_off - rd_off (mod size) bytes; it is full with size - 1 of them. The
 * writer stores the bytes, then wr_off; the reader reads the bytes, then stores rd_off. */
#ifndef CYG_RTT_H
#define CYG_RTT_H

#define CYG_RTT_ID "SEGGER RTT"
#define CYG_RTT_ID_BYTES 16u
#define CYG_RTT_OFF_MAX_UP 16u
#define CYG_RTT_OFF_MAX_DOWN 20u
#define CYG_RTT_OFF_BUFFERS 24u
/* A buffer descriptor's bytes and field offsets, for pointer size w (4 on Cortex-M). */
#define CYG_RTT_DESC_BYTES(w) (2u * (w) + 16u)
#define CYG_RTT_DESC_NAME(w) 0u
#define CYG_RTT_DESC_BUFFER(w) (w)
#define CYG_RTT_DESC_SIZE(w) (2u * (w))
#define CYG_RTT_DESC_WR_OFF(w) (2u * (w) + 4u)
#define CYG_RTT_DESC_RD_OFF(w) (2u * (w) + 8u)
#define CYG_RTT_DESC_FLAGS(w) (2u * (w) + 12u)

/* Modes (flags bits 1..0), as SEGGER's: what the writer does with a full buffer. */
#define CYG_RTT_MODE_SKIP 0u   /* drops what does not fit whole */
#define CYG_RTT_MODE_TRIM 1u   /* stores what fits (cygtrace's sink: the drain keeps the rest of
                                  a frame for its next call, the ring laps what the channel has
                                  no room for, counted as lost in the stream; never waits) */
#define CYG_RTT_MODE_BLOCK 2u  /* waits for the reader (a drain flush) */
#define CYG_RTT_MODE_MASK 3u

#define CYG_RTT_CHANNEL_NAME "cygtrace"

#endif
