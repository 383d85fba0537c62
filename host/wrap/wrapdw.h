/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wrapdw.h - the signatures of a library's functions from its DWARF (libdwarf), for cygtrace
 * wrap: each external function's defining DW_TAG_subprogram, its parameters' names and types
 * and its return type, typedefs resolved to the C types they are on the DWARF's target (a
 * uint64_t is "long unsigned int" on x86-64, "long long unsigned int" on ARM), enums to an
 * integer of their size with their enumerators. */
#ifndef WRAPDW_H
#define WRAPDW_H

#include <libdwarf/libdwarf.h>

#include "wrap/wrapgen.h"

/* Says whether the function called name is wanted. */
typedef int (*wrapdw_want_fn)(void *arg, const char *name);

/* Adds to set the signature of each external function that dbg defines and want asks for
 * (those that cannot be wrapped with the reason in skip); a function the set has already
 * stays as it is. Returns the number of units read (0: the DWARF describes nothing, as a
 * shared library's .gnu_debuglink alone), or -1 out of memory. */
int wrapdw_read(Dwarf_Debug dbg, struct wrapgen_set *set, wrapdw_want_fn want, void *arg);

#endif
