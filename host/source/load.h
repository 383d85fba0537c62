/* load.h - opens what every decoding command needs: the ELF, the dump, and the control block,
 * and checks that they belong together (machine, word size, GNU build-id). */
#ifndef LOAD_H
#define LOAD_H

#include <stddef.h>

#include "decode/dec.h"
#include "symbols/modmap.h"
#include "symbols/names.h"
#include "decode/sdec.h"
#include "decode/sframe.h"
#include "source/src.h"
#include "symbols/sym.h"

struct load {
    struct sym_table *sym; /* NULL when no ELF was given */
    struct src *src;
    struct dec_ring ring;  /* a stream's: what its first description says (head unknown: 0) */
    int stream;            /* src holds a saved live stream, not a ring */
    int id_match;          /* 1 same build-id, 0 differs, -1 cannot tell (one has none) */
    int machine_match;     /* the ELF's machine and word size are the trace's (1 with no ELF) */
    struct modmap *map;    /* DUMP.maps of a Linux ring (loaded objects, processes), or NULL */
    struct names *names;   /* what the contexts and kernel objects are called: DUMP.maps's
                              ctxname and objname lines, then the trace's NAME records (the
                              scan, cmd_scan, feeds them), or a pull's; never NULL once open */
    char map_err[640];     /* why DUMP.maps is not used ("PATH: why"), "" when fine or absent */
    char warning[768];     /* what could not be checked against the ELF, and a version 3 ring's
                              control area cut short or damaged; "" when nothing: every
                              command says it ("cygtrace: warning: ...") */
};

/* Holes in the slots a pass reads beyond this are not a dump's: refused (load_attach). */
#define LOAD_HOLES_MAX ((uint64_t)64 << 20)

/* With no build-id to compare, the first distinct functions entered that are checked against
 * the ELF's, and the events read to find them. */
#define LOAD_CHECK_FUNCS 64u
#define LOAD_CHECK_EVENTS (1u << 16)

/* What a pass skipped and decoded: dec for a ring, fr and sd for a stream. */
struct load_stats {
    struct dec_stats dec;
    struct sframe_stats fr;
    struct sdec_stats sd;
};

/* Opens elf (may be NULL) and dump. On failure returns -1 with "INPUT: what is wrong" in err:
 * a build-id or machine mismatch fails unless force is set, and so does, when the build-ids
 * cannot be compared (one side has none), a load address the ELF cannot have or first
 * functions entered of which more than 1 in 8 do not start a function of the ELF (and
 * l->warning says what could not be checked). A ring whose slots are mostly holes (a sparse
 * file: more than LOAD_HOLES_MAX bytes) fails, force or not: reading them is all the work. */
int load_open(struct load *l, const char *elf, const char *dump, int force, char *err,
              size_t errlen);

/* The same for a source already open (a dump pulled into memory); takes src, even on failure. */
int load_attach(struct load *l, const char *elf, struct src *src, int force, char *err,
                size_t errlen);

/* Fills ring with what a stream description says. */
void load_ring_of_desc(const struct sdec_desc *d, struct dec_ring *ring);

/* Checks that the trace in l (its ring, or what a stream described) was recorded by elf: the
 * machine, the build-id, and when one side has no build-id the load address (l->warning then
 * says so); -1 with "INPUT: what differs" in err, unless force. name is the trace in
 * messages. Sets l->id_match and l->machine_match; needs no source. */
int load_check(struct load *l, const char *elf, const char *name, int force, char *err,
               size_t errlen);

struct load_pass;

/* Starts a pass over every event of the trace l holds, ring or stream; NULL when out of
 * memory. */
struct load_pass *load_pass_open(struct load *l);

/* Gets the next event: 1, or 0 at the end, or -1 on a read error. */
int load_pass_next(struct load_pass *p, struct ev *e);

/* Runs the rest of a ring's pass through dec_count: 0, -1 on a read error or out of memory, or
 * -2 when the pass reads a stream, which goes event by event. */
int load_pass_count(struct load_pass *p, struct dec_counts *c);

/* Makes the pass return the events of context id only, and skip what x (a scan's index) and
 * segs (the context's segments in it; both may be NULL) say holds none (dec_only); before the
 * first load_pass_next. A stream's pass returns every event still. */
void load_pass_only(struct load_pass *p, uint32_t id, const struct dec_index *x,
                    const uint64_t *segs);

/* Returns what the pass skipped and decoded so far. */
void load_pass_stats(const struct load_pass *p, struct load_stats *st);

/* Ends the pass. NULL is fine. */
void load_pass_close(struct load_pass *p);

/* Frees what load_open opened. */
void load_close(struct load *l);

/* Writes the build-id as hex into buf. */
void load_hex(const uint8_t *id, size_t len, char *buf, size_t buflen);

#endif
