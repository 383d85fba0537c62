/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wrapproto.h - the signatures of a --signatures file: C prototypes, one a line,
 *
 *   int open(const char *path, int flags, unsigned int mode);
 *   typedef unsigned long my_size;       names a type for the lines after it
 *   // or # starts a comment line; blank lines are skipped
 *
 * for functions without DWARF (a C library, a vendor's stripped archive), or to correct what
 * the DWARF says. Known: the C base types (char, short, int, long, long long, signed, unsigned,
 * _Bool/bool, float, double, void), size_t, ssize_t, off_t, mode_t, pid_t, intN_t, uintN_t,
 * intptr_t, uintptr_t, ptrdiff_t, FILE (by pointer), struct X and union X (by pointer),
 * enum X (an int: its enumerators are not known), pointers, function pointers and arrays as
 * parameters (pointers). */
#ifndef WRAPPROTO_H
#define WRAPPROTO_H

#include <stddef.h>

#include "wrap/wrapgen.h"

/* Told each bad line: its number (from 1) and what is wrong with it. */
typedef void (*wrapproto_bad_fn)(void *arg, unsigned line, const char *what);

/* Parses len bytes of text into set, a function a prototype (in the order of the lines; those
 * that cannot be wrapped carry the reason in skip). A bad line is told to bad and skipped,
 * and so is a second prototype of a function. Returns the number of bad lines, or -1 out of
 * memory. */
int wrapproto_parse(const char *text, size_t len, struct wrapgen_set *set, wrapproto_bad_fn bad,
                    void *arg);

#endif
