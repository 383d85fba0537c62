/* SPDX-License-Identifier: GPL-3.0-or-later */
/* srcline.h - what --srcline and --signatures add to the tree's lines: a function's call as
 * its signature says it, "decide(int i)", its source location " [demo.c:42]", and a call
 * site's " <- demo.c:60". Each is looked up in the DWARF once per function or call site, then
 * kept in a direct-mapped cache, so memory stays bounded whatever the trace. */
#ifndef SRCLINE_H
#define SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/dwarf.h"
#include "symbols/sym.h"

/* The function's name at a run-time address as the caller shows it, when neither the
 * demangler nor the DWARF gives a signature: a pointer into buf (len bytes) or one the
 * caller keeps. */
typedef const char *(*srcline_name_fn)(void *arg, uint64_t addr, char *buf, size_t len);

struct srcline_opts {
    struct dwarf_src *dwarf;      /* NULL: no locations, no signatures from the DWARF */
    const struct sym_table *sym;  /* may be NULL */
    uint64_t bias;                /* run-time minus link-time address */
    int thumb;                    /* a 32-bit target: bit 0 of a return address is ARM's Thumb
                                     bit */
    int locations;                /* " [demo.c:42]" after a function (--srcline) */
    int signatures;               /* "decide(int i)" (--signatures) */
    int full_path;                /* source files as the DWARF names them, not base names */
    srcline_name_fn name;
    void *name_arg;
};

struct srcline;

/* A cache over o; NULL when out of memory. */
struct srcline *srcline_new(const struct srcline_opts *o);

/* "decide(int i) [demo.c:42]" for a function's entry address: *call_len is the length of the
 * call part, the rest is the source location (either may be only what the symbol says when
 * the DWARF does not know the function). Valid until the next call. */
const char *srcline_fn(struct srcline *c, uint64_t addr, size_t *call_len);

/* " <- demo.c:60" for a call site (a return address), or "" when the DWARF does not know it.
 * Valid until the next call. */
const char *srcline_site(struct srcline *c, uint64_t site);

/* Frees the cache. NULL is fine. */
void srcline_free(struct srcline *c);

#endif
