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
    uint64_t head;
};

/* Allocates a zeroed ring: word 4 or 8 bytes, 2^cap_log2 records, CYG_F_* flags. */
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

/* Writes the control block (head, lost, state, check) so the ring can be decoded. */
void rg_seal(struct ringgen *g, uint64_t lost, unsigned state);

/* Encodes words a and b of a record (the format's rules, in one place for the tests). */
void rg_encode(unsigned word, unsigned cap_log2, uint64_t seq, int exit, uint64_t fn,
               uint64_t ts, unsigned thread, uint64_t *a, uint64_t *b);

void rg_free(struct ringgen *g);

#endif
