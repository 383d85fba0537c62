/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vectab.h - a Cortex-M ELF's vector table: which exception each handler serves, so that a
 * context an interrupt runs in is named by its handler (render.c, through sym_exception). */
#ifndef VECTAB_H
#define VECTAB_H

#include <bfd.h>
#include <stdint.h>

struct sym_table;
struct vectab;

/* Reads the vector table of the ELF open in abfd, found by t's symbols under the names CMSIS,
 * the vendors and our examples give it; NULL when there is none (or out of memory). */
struct vectab *vectab_read(bfd *abfd, const struct sym_table *t);

/* Returns the exception number (2..15 for the core's, 16 + n for IRQ n) whose handler starts
 * at link-time address start, else 0; the lowest when one handler fills several slots. v may
 * be NULL. */
unsigned vectab_exception(const struct vectab *v, uint64_t start);

/* Frees it. NULL is fine. */
void vectab_free(struct vectab *v);

#endif
