/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load.h - opens what every decoding command needs: the ELF and the trace's source (source.h),
 * and checks that they belong together (machine, word size, GNU build-id); then the names
 * (DUMP.maps, the trace's NAME records). */
#ifndef LOAD_H
#define LOAD_H

#include <stddef.h>

#include "decode/dec.h"
#include "source/source.h"
#include "symbols/modmap.h"
#include "symbols/names.h"
#include "symbols/sym.h"

struct load {
    struct sym_table *sym; /* NULL when no ELF was given */
    struct source *source; /* the trace: passes over it are source_rewind, source_next */
    struct dec_ring ring;  /* source_describe's: a stream's first description (head: 0) */
    int stream;            /* source holds a saved live stream, not a ring */
    int id_match;          /* 1 same build-id, 0 differs, -1 cannot tell (one has none) */
    int machine_match;     /* the ELF's machine and word size are the trace's (1 with no ELF) */
    struct modmap *map;    /* DUMP.maps of a Linux ring (loaded objects, processes), or NULL */
    struct names *names;   /* what the contexts and kernel objects are called: DUMP.maps's
                              ctxname and objname lines, then the trace's NAME records (the
                              scan, pipeline_scan, feeds them), or a pull's; never NULL once open */
    char map_err[640];     /* why DUMP.maps is not used ("PATH: why"), "" when fine or absent */
    char warning[768];     /* what could not be checked against the ELF, and a version 3 ring's
                              control area cut short or damaged; "" when nothing: every
                              command says it ("cygtrace: warning: ...") */
};

/* With no build-id to compare, the first distinct functions entered that are checked against
 * the ELF's, and the events read to find them. */
#define LOAD_CHECK_FUNCS 64u
#define LOAD_CHECK_EVENTS (1u << 16)

/* Opens elf (may be NULL) and dump (source_open_file). On failure returns -1 with "INPUT:
 * what is wrong" in err: the source's reasons, and a build-id or machine mismatch fails
 * unless force is set, and so does, when the build-ids cannot be compared (one side has
 * none), a load address the ELF cannot have or first functions entered of which more than 1
 * in 8 do not start a function of the ELF (and l->warning says what could not be checked). */
int load_open(struct load *l, const char *elf, const char *dump, int force, char *err,
              size_t errlen);

/* The same for bytes already open (a dump pulled into memory: src_open_mem), which become the
 * source (source_open_src); takes src, even on failure. */
int load_attach(struct load *l, const char *elf, struct src *src, int force, char *err,
                size_t errlen);

/* Checks that the trace in l (its ring, or what a stream described) was recorded by elf: the
 * machine, the build-id, and when one side has no build-id the load address (l->warning then
 * says so); -1 with "INPUT: what differs" in err, unless force. name is the trace in
 * messages. Sets l->id_match and l->machine_match; needs no source. */
int load_check(struct load *l, const char *elf, const char *name, int force, char *err,
               size_t errlen);

/* The program that wrote the ring in dump, as dump's map (DUMP.maps, a Linux ring's) names it
 * (its first object line): its path in buf (len bytes). 0, or -1 with "INPUT: what is wrong"
 * in err: the map cannot be read, or the program is not there (any more); err is "" when no
 * map names a program (none: a saved stream; one of names only: a firmware's dump). */
int load_program(const char *dump, char *buf, size_t len, char *err, size_t errlen);

/* Frees what load_open opened. */
void load_close(struct load *l);

/* Writes the build-id as hex into buf. */
void load_hex(const uint8_t *id, size_t len, char *buf, size_t buflen);

#endif
