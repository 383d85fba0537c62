/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wrapin.h - the inputs of cygtrace wrap: the functions a static library (an ar archive of ELF
 * objects), an ELF relocatable object or a shared library defines, and their signatures from
 * its DWARF. libbfd reads archives and symbols (any ELF, whatever the host); each object's
 * DWARF is read in memory through elfrel.c: a relocatable object's (an archive member's too)
 * relocated there, a shared library's as it is. */
#ifndef WRAPIN_H
#define WRAPIN_H

#include <stddef.h>

#include "wrap/wrapgen.h"

/* Says whether the function called name is wanted (--functions, --exclude). */
typedef int (*wrapin_want_fn)(void *arg, const char *name);

/* The global and weak functions that path defines (a shared library's dynamic ones, without
 * their symbol versions; an old version, open@GLIBC_2.0, cannot be linked to and is left out,
 * as is a name no C code can call, that a compiler made: __x86.get_pc_thunk.bx) that want
 * asks for, each added to sigs with its signature from the DWARF of the object that
 * defines it, or, when that says nothing of it, with a skip that says so; a function sigs
 * has already is left as it is. *defined counts every function found, wanted or not. 0, or
 * -1 with a one-line reason in err (the file cannot be read, is not ELF, is an executable,
 * out of memory). */
int wrapin_read(const char *path, wrapin_want_fn want, void *arg, struct wrapgen_set *sigs,
                size_t *defined, char *err, size_t errlen);

#endif
