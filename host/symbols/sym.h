/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sym.h - the symbolizer: an ELF file's function symbols as a sorted table (libbfd), for any
 * architecture the runtime supports (x86-64, ARM, RISC-V), whatever the host is. */
#ifndef SYM_H
#define SYM_H

#include <stddef.h>
#include <stdint.h>

struct wsig;
struct wsig_fn;

struct sym_table;

struct sym_info {
    const char *name; /* the symbol's name (not demangled) */
    uint64_t start;   /* link-time address; ARM's Thumb bit cleared */
    uint64_t size;    /* bytes; 0 when the ELF does not say (then it ends at the next symbol) */
};

/* Opens an ELF file and reads its function symbols; NULL with a one-line reason in err
 * ("not an ELF file", "no function symbols (stripped?)", ...) when it cannot. */
struct sym_table *sym_open(const char *path, char *err, size_t errlen);

/* Frees the table. NULL is fine. */
void sym_close(struct sym_table *t);

/* Returns the function containing link-time address addr, or NULL. O(log n). */
const struct sym_info *sym_lookup(const struct sym_table *t, uint64_t addr);

/* Returns the function that starts at link-time address addr, or NULL; on ARM bit 0 (a Thumb
 * address's, as a vector table or a function pointer holds it) is ignored. */
const struct sym_info *sym_func_at(const struct sym_table *t, uint64_t addr);

/* What sym_lookup asks for an address the table does not hold: the function there in another
 * object of the process (a shared library), or NULL. */
typedef const struct sym_info *(*sym_fallback_fn)(void *arg, uint64_t addr);

/* Makes sym_lookup call fn(arg, addr) for the addresses that are in none of the table's own
 * functions. */
void sym_set_fallback(struct sym_table *t, sym_fallback_fn fn, void *arg);

/* Returns the address and size of the data or function symbol called name; 0, or -1 if absent. */
int sym_find(const struct sym_table *t, const char *name, uint64_t *addr, uint64_t *size);

/* Returns the name of a data symbol (one that is no function, with a size) that starts at
 * link-time address addr, or NULL: a kernel object defined statically (Zephyr's
 * K_MSGQ_DEFINE(jobs, ...) is the symbol jobs). O(N): once per object. */
const char *sym_data_at(const struct sym_table *t, uint64_t addr);

/* Cortex-M: returns the exception number (2..15 for the core's, 16 + n for IRQ n) whose
 * handler in the ELF's vector table starts at link-time address start, else 0. The first
 * entry that matches: one handler in several slots (a default handler) gives the lowest. */
unsigned sym_exception(const struct sym_table *t, uint64_t start);

/* Returns the number of function symbols in the table. */
size_t sym_count(const struct sym_table *t);

/* Returns the ELF e_machine (62 x86-64, 40 ARM, 243 RISC-V, ...). */
unsigned sym_machine(const struct sym_table *t);

/* Returns 4 for ELFCLASS32, 8 for ELFCLASS64. */
unsigned sym_word_bytes(const struct sym_table *t);

/* Returns 1 for a position-independent executable or shared object (ET_DYN), else 0. */
int sym_is_pie(const struct sym_table *t);

/* Returns the ELF's entry point (e_entry, link-time; ARM's Thumb bit as the header has it). */
uint64_t sym_entry(const struct sym_table *t);

/* Points *id at the GNU build-id (.note.gnu.build-id) and returns its length; 0 when none. */
size_t sym_build_id(const struct sym_table *t, const uint8_t **id);

/* Whether the ELF is the build whose build-id is id (len bytes: what a ring or a map of loaded
 * objects recorded): 1 the same, 0 another build, -1 cannot tell (either has none). The one
 * check of every reader that asks "is this the ELF that ran?". */
int sym_build_id_match(const struct sym_table *t, const uint8_t *id, size_t len);

/* The signatures of the wrapped functions the image holds wrappers of (cygtrace wrap), or NULL
 * when it has none. t may be NULL. */
const struct wsig *sym_wsig(const struct sym_table *t);

/* The signature of the function whose wrapper (cygtrace wrap) holds link-time address addr, or
 * NULL (not a wrapper, or not described). t may be NULL. */
const struct wsig_fn *sym_wrapped_sig(const struct sym_table *t, uint64_t addr);

#endif
