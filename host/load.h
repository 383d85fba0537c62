/* load.h - opens what every decoding command needs: the ELF, the dump, and the control block,
 * and checks that they belong together (machine, word size, GNU build-id). */
#ifndef LOAD_H
#define LOAD_H

#include <stddef.h>

#include "dec.h"
#include "src.h"
#include "sym.h"

struct load {
    struct sym_table *sym; /* NULL when no ELF was given */
    struct src *src;
    struct dec_ring ring;
    int id_match;          /* 1 same build-id, 0 differs, -1 cannot tell (one has none) */
};

/* Opens elf (may be NULL) and dump. On failure returns -1 with "INPUT: what is wrong" in err;
 * a build-id or machine mismatch fails unless force is set. */
int load_open(struct load *l, const char *elf, const char *dump, int force, char *err,
              size_t errlen);

/* The same for a source already open (a dump pulled into memory); takes src, even on failure. */
int load_attach(struct load *l, const char *elf, struct src *src, int force, char *err,
                size_t errlen);

/* Frees what load_open opened. */
void load_close(struct load *l);

/* Writes the build-id as hex into buf. */
void load_hex(const uint8_t *id, size_t len, char *buf, size_t buflen);

#endif
