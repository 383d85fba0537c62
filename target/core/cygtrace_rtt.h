/* SPDX-License-Identifier: MIT */
/* cygtrace_rtt.h - the stream over the debug probe: an RTT up channel (SEGGER's Real Time
 * Transfer: a ring in target RAM that J-Link, OpenOCD, pyOCD, probe-rs, Black Magic Probe and
 * `cygtrace live --gdb` read while the core runs, or halt, read and resume) as the drain's sink:
 *
 *     cygtrace_drain_init(cygtrace_rtt_sink, NULL);
 *     for (;;) { work(); cygtrace_drain(); }
 *
 * The control block is `cygtrace_rtt`, with the layout of common/cyg_rtt.h: tools find it by
 * that symbol, or by scanning RAM for its ID "SEGGER RTT" like SEGGER's own `_SEGGER_RTT`
 * (OpenOCD: `rtt setup ADDR SIZE "SEGGER RTT"`, `rtt start`, `rtt server start PORT 0`). One
 * up buffer, "cygtrace", and one down buffer with no bytes (size 0: tools take it as
 * inactive). The down descriptor costs 24 bytes and is there for OpenOCD: it checks a write to
 * down channel N against the count of up channels, so with none it would read a descriptor
 * past the block, in whatever RAM follows, and write where that says. A firmware that has
 * SEGGER's RTT already gives cygtrace a channel of that block instead (cygtrace_rtt_use), so
 * that a tool that scans finds one ID, not two.
 *
 * The sink never blocks: it stores what fits (the mode TRIM of cyg_rtt.h) and the drain keeps
 * the rest of its frame for the next call; while nobody reads, the ring laps the drain and the
 * stream counts the records lost, as over a UART. cygtrace_drain_flush() spins until the sink
 * has taken everything: that is the blocking mode, for the end of a program or a fault hook,
 * and it waits for a probe for ever when none reads (a watchdog resets a faulted board then).
 *
 * On a core with a data cache (Cortex-M7), a probe reads RAM, not the cache: put the block
 * and its buffer in DTCM or a region the MPU makes non-cacheable, with CYGTRACE_RTT_SECTION.
 */
#ifndef CYGTRACE_RTT_H
#define CYGTRACE_RTT_H

#include <stddef.h>
#include <stdint.h>

#include "cygtrace_config.h"

/* Bytes of the up buffer; it holds one less. Any size from 16 (no power of two needed: the
 * offsets wrap by a compare). A frame of the drain is at most 256 bytes (cyg_stream.h); the
 * buffer holds what the target streams between two reads of the host, beyond which the ring
 * buffers it (and laps the drain when that is too long). Default: 1024. */
#ifndef CYGTRACE_RTT_BUFFER
#define CYGTRACE_RTT_BUFFER 1024
#endif

/* The output section of the control block and the buffer (say ".dtcm_bss"), when they must
 * not be in .bss (a data cache; a RAM the probe scans). Default: none, .bss. */
/* #define CYGTRACE_RTT_SECTION ".dtcm_bss" */

#if CYGTRACE_RTT_BUFFER < 16 || CYGTRACE_RTT_BUFFER > 0x10000000
#error "CYGTRACE_RTT_BUFFER must be 16 .. 2^28 bytes"
#endif

/* A buffer descriptor, as the probes read it (cyg_rtt.h: CYG_RTT_DESC_*). For an up buffer the
 * target writes all but rd_off; the host writes rd_off only. */
struct cygtrace_rtt_buffer {
    const char *name;         /* the channel's name: target, at init */
    unsigned char *buffer;    /* its bytes: target, at init */
    uint32_t size;            /* bytes of buffer: target, at init */
    volatile uint32_t wr_off; /* next byte the target stores: target, after the bytes */
    volatile uint32_t rd_off; /* next byte the host takes: host, after it took the bytes */
    uint32_t flags;           /* CYG_RTT_MODE_* in bits 1..0: target, at init */
};

/* The control block (cyg_rtt.h). */
struct cygtrace_rtt_cb {
    char id[16];                        /* "SEGGER RTT": target, last of all at init */
    int32_t max_up;                     /* 1: target, at init */
    int32_t max_down;                   /* 1: target, at init */
    struct cygtrace_rtt_buffer up[1];   /* "cygtrace" */
    struct cygtrace_rtt_buffer down[1]; /* no bytes: not read */
};

/* cygtrace's own control block, for tools that look it up by name. */
extern struct cygtrace_rtt_cb cygtrace_rtt;

/* Writes the control block: its fields, then the ID, last byte first, so that a scan never
 * finds a half-made block. Does nothing once done or once cygtrace_rtt_use() chose a channel.
 * Call it at boot for a probe that looks for the block before the first drain. */
void cygtrace_rtt_init(void);

/* Makes the sink write to up channel `channel` of SEGGER's control block segger_cb (the
 * firmware's _SEGGER_RTT, its buffer given by SEGGER_RTT_ConfigUpBuffer), whose only writer
 * it becomes. Call it before the first drain (our own block, if made already, loses its ID: a
 * tool that scans finds one block). Returns 0, or -1 when the block has no such channel or
 * the channel no buffer. */
int cygtrace_rtt_use(void *segger_cb, unsigned channel);

/* The drain's sink: stores as much of buf[0..len) as the channel has room for and returns
 * how much that was, 0 when it is full. Never blocks. Sets the block up on its first call. */
size_t cygtrace_rtt_sink(void *arg, const void *buf, size_t len);

#endif
