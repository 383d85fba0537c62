/* SPDX-License-Identifier: MIT */
/* cyg_stream.h - the live stream: what the target's drain sends over a byte link (UART, USB,
 * socket, file) and what the host reads. The contract between target/core/cygtrace_drain.c and
 * host/sframe.c + host/sdec.c; docs/FORMAT.md section 5 describes it with examples and
 * tests/check_stream.c pins it with vectors.
 *
 * Freestanding C99, like cyg_format.h.
 *
 * On the wire, a frame is COBS(raw) followed by one 0x00 delimiter, where raw is a payload and
 * the CRC-32 (crc32.h, the control block's) of the payload, 4 bytes little-endian. raw is at most
 * CYG_FRAME_RAW_MAX bytes, so a COBS block is at most 255 bytes and never needs a second code
 * byte past the first 254. A host that joins mid-stream (or after noise) drops bytes up to the
 * next 0x00 and decodes from there; a frame whose COBS or CRC does not check is dropped whole.
 *
 * Integers in payloads: "u8", "u16" (little-endian), and "varint": unsigned LEB128 (7 bits per
 * byte, least significant group first, bit 7 set on every byte but the last, at most 10 bytes).
 * "zigzag": a signed value s sent as the varint (s << 1) ^ (s >> 63).
 *
 * Payload byte 0 is the frame type.
 *
 * CYG_FR_DESC, the description (at the start, then at least every CYGTRACE_DRAIN_DESC_BYTES
 * bytes of stream, and every half second of the trace's clock when it has one; a host shows
 * nothing until it has one):
 *   u8 type 'D', u8 CYG_STREAM_VERSION, u8 word_bytes (4 or 8), u8 flags (CYG_F_* of the
 *   ring), u16 machine (ELF e_machine), u8 ts_bits, u8 state (CYG_S_*), u8 resets,
 *   u8 cap_log2, u8 build_id_len (0..32), build_id_len bytes of GNU build-id,
 *   varint ts_hz, varint load_bias, varint pid, varint next_seq (the sequence number the next
 *   events frame starts at), varint lost (the ring's lost counter: events the hooks dropped).
 *   A host ignores bytes after these (a later version may append fields).
 *
 * CYG_FR_EVENTS, consecutive records of the ring:
 *   u8 type 'E', u8 eflags (CYG_EF_*), varint seq (the sequence number of the first record
 *   the frame describes), varint t0 (the timestamp, masked to ts_bits, of the event before that
 *   record: the first dt adds to it; 0 without timestamps), then tokens to the end.
 *   Every record from seq on is accounted for, in order: by one ENTER/EXIT/SPECIAL token each,
 *   by a SKIP token for a run that the stream does not carry, or by a DEFER token for a run
 *   that later frames carry. A host that sees a frame start
 *   at a higher seq than where the previous one ended has lost frames on the link: the
 *   difference is exactly the number of records lost there.
 *
 * Decoding state that lives only within one events frame, reset at its start (so any frame
 * decodes alone, and noise costs nothing beyond the frames it hits):
 *   cache[CYG_CACHE_SLOTS] of function addresses, all 0; lit = 0, the last literal address;
 *   time = t0; thread = 0 (64-bit streams: the thread index of the events that follow).
 *
 * Tokens:
 *   0x00..0x3f  ENTER, the function is cache[token & 0x3f]
 *   0x40..0x7f  EXIT,  the function is cache[token & 0x3f]
 *   0x80 ENTER, 0x81 EXIT, of a function not in the cache: zigzag (addr - lit) follows;
 *        then lit = addr and cache[cyg_cache_slot(addr)] = addr
 *        After each ENTER or EXIT (cached or not): with CYG_EF_CALLSITES, zigzag (site - addr);
 *        then with CYG_EF_TIMESTAMPS, varint dt: time = (time + dt) masked to ts_bits is the
 *        event's timestamp (the host keeps an unwrapped 64-bit clock).
 *   0x82 SPECIAL: u8 type (CYG_SP_*), varint data, varint payload (the record's word a).
 *        It takes the time of the event before it, as in the ring. A TIME special
 *        (CYG_SP_TIME) sets time = payload masked to ts_bits: the next dt adds to it.
 *   0x83 SKIP: varint n: the next n records are not in the stream: the drain found them
 *        reserved but never written, or the writer overwrote them before the drain read them
 *        (it lapped the drain). Either way the target lost them, and the drain says how many.
 *   0x84 THREAD: varint t: the records from here on are thread t's (64-bit streams).
 *   0x85 DEFER: varint n: the next n records, the rest of a chunk that its thread is still
 *        filling (chunked rings), come later, in frames of their own: an events frame whose
 *        seq falls in a deferred run goes on with that run where the last one for it stopped
 *        (a frame that starts further on lost the frames between on the link), and never
 *        moves the stream's own next seq. What of a run never comes held no event (the thread
 *        never used those slots): no loss. Version 2 on.
 *   Any other token is malformed. A frame that ends inside a token, names an empty cache slot,
 *   or has a malformed token is dropped whole: the host never shows part of a frame.
 *
 * The function address is the record's: 32-bit word a without bit 0 (the exit and Thumb bit),
 * 64-bit word a's low 48 bits. Run-time addresses; the host subtracts load_bias.
 */
#ifndef CYG_STREAM_H
#define CYG_STREAM_H

#include <stdint.h>

#define CYG_STREAM_VERSION 2u     /* 2: DEFER */
#define CYG_STREAM_VERSION_MIN 1u

#define CYG_FRAME_RAW_MAX 254u  /* payload + CRC, before COBS */
#define CYG_FRAME_WIRE_MAX 256u /* COBS code byte + 254 + delimiter */
#define CYG_FRAME_CRC_BYTES 4u
#define CYG_FRAME_PAYLOAD_MAX (CYG_FRAME_RAW_MAX - CYG_FRAME_CRC_BYTES)

/* frame types (payload byte 0) */
#define CYG_FR_DESC 0x44u   /* 'D' */
#define CYG_FR_EVENTS 0x45u /* 'E' */
/* CYG_FR_HOST, never sent by a target: the host writes it into a saved stream (cygtrace live
 * --save) after the last frame a read from the link completed:
 *   u8 type 'H', varint ns: the host's CLOCK_MONOTONIC when that read returned.
 * A reader that does not know it drops it as a malformed frame and goes on. */
#define CYG_FR_HOST 0x48u /* 'H' */

/* events frame flags */
#define CYG_EF_TIMESTAMPS (1u << 0) /* a dt follows every ENTER and EXIT */
#define CYG_EF_CALLSITES (1u << 1)  /* a call site follows every ENTER and EXIT */
#define CYG_EF_THREADS (1u << 2)    /* 64-bit records with thread indexes (THREAD tokens) */

/* tokens */
#define CYG_TK_EXIT_BIT 0x40u  /* in a cached token */
#define CYG_TK_CACHED_MAX 0x7fu
#define CYG_TK_ENTER_LIT 0x80u
#define CYG_TK_EXIT_LIT 0x81u
#define CYG_TK_SPECIAL 0x82u
#define CYG_TK_SKIP 0x83u
#define CYG_TK_THREAD 0x84u
#define CYG_TK_DEFER 0x85u

#define CYG_CACHE_SLOTS 64u

/* The cache slot of a function address: both sides must agree on it. It depends on address
 * bits 1..12 only, so any width of the address gives the same slot. Cheap on Cortex-M0 (two
 * shifts, an eor, an and), and it spreads functions that sit a few bytes to a few KB apart. */
static inline unsigned cyg_cache_slot(uint32_t addr)
{
    return (unsigned)((addr >> 1) ^ (addr >> 7)) & (CYG_CACHE_SLOTS - 1u);
}

#endif
