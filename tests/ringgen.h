/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ringgen.h - builds rings byte by byte for the decoder tests, from the format's definitions
 * (common/cyg_format.h), independently of the target runtime. The test vectors in
 * check_format.c pin this generator and the runtime to the same bytes. */
#ifndef RINGGEN_H
#define RINGGEN_H

#include <stddef.h>
#include <stdint.h>

struct ringgen {
    uint8_t *buf;
    size_t size;
    unsigned word, rec, cap_log2, flags;
    unsigned ts_bits; /* 0: the record's full field */
    unsigned chunk_log2; /* written into the block; the generator appends in seq order */
    unsigned version;    /* CYG_VERSION unless set before rg_seal; below 3: no control area
                            (size is cut to the records then) */
    uint64_t head;
};

/* Allocates a zeroed ring: word 4 or 8 bytes, 2^cap_log2 records, CYG_F_* flags; size counts
 * the control area after the records (version 3), with the runtime's defaults in it. */
void rg_init(struct ringgen *g, unsigned word, unsigned cap_log2, unsigned flags);

/* Appends an entry (exit = 0) or exit record; thread is the 64-bit thread index. With
 * CYG_F_LAPTAG in the flags, 64-bit records carry the lap tag and 50-bit timestamps. */
void rg_event(struct ringgen *g, int exit, uint64_t fn, uint64_t ts, unsigned thread,
              uint64_t site);

/* Appends a special record. */
void rg_special(struct ringgen *g, unsigned type, uint64_t data, uint64_t payload,
                unsigned thread);

/* Reserves a slot without writing it (a writer that died). */
void rg_skip(struct ringgen *g);

/* The control area after the records (version 3: CYG_CTRL_BYTES, as the runtime's init leaves
 * it: magic, every class enabled, the gate open); tests write its fields at CYG_CTRL_OFF_*. */
uint8_t *rg_ctrl(struct ringgen *g);

/* Writes trigger i of the control area (CYG_TRIG_* kind, a function or a mark id, the freeze's
 * window, CYG_TRIGF_* flags) and counts it in. */
void rg_trigger(struct ringgen *g, unsigned i, unsigned kind, uint64_t what, uint32_t after,
                unsigned flags);

/* Appends a TRIGGER record: trigger i of kind fired at fn (or a mark of this value). */
void rg_fired(struct ringgen *g, unsigned i, unsigned kind, uint64_t fn, unsigned thread);

/* Writes the control block (head, lost, state, check) so the ring can be decoded. */
void rg_seal(struct ringgen *g, uint64_t lost, unsigned state);

/* Encodes words a and b of a record (the format's rules, in one place for the tests). */
void rg_encode(unsigned word, unsigned cap_log2, uint64_t seq, int exit, uint64_t fn,
               uint64_t ts, unsigned thread, uint64_t *a, uint64_t *b);

/* A 64-bit ring (rg_init's flags) with the calls of two threads, to be sealed: thread 0 enters
 * 0x1000 then 0x1100 and leaves both, thread 1 enters and leaves 0x2000 in between (times 1 to
 * 6): for passes over contexts. */
void rg_two_threads(struct ringgen *g, unsigned flags);

void rg_free(struct ringgen *g);

#endif
