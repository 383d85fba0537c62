/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vectab.c - the Cortex-M vector table, read through libbfd. Entry 0 is the initial stack
 * pointer and entry 1 the reset handler: neither is an interrupt of a running program. */
#include "symbols/vectab.h"

#include <stdlib.h>

#include "symbols/sym.h"
#include "util/le.h"

#define VECTAB_MAX 512u /* entries: 16 of the core's and up to 496 IRQs (ARMv7-M's limit) */

struct vectab {
    uint32_t *handler; /* by exception number, Thumb bit cleared; 0 where none */
    unsigned n;
};

/* The section that holds n entries at addr, or NULL. */
static asection *section_of(bfd *abfd, uint64_t addr, unsigned n)
{
    for (asection *sec = abfd->sections; sec; sec = sec->next)
        if (addr >= bfd_section_vma(sec) &&
            addr + 4u * n <= bfd_section_vma(sec) + bfd_section_size(sec) &&
            (bfd_section_flags(sec) & SEC_HAS_CONTENTS))
            return sec;
    return NULL;
}

struct vectab *vectab_read(bfd *abfd, const struct sym_table *t)
{
    static const char *const names[] = {"__isr_vector",   "__Vectors",    "g_pfnVectors",
                                        "__vector_table", "vector_table", "_vectors",
                                        "vectors",        "isr_vector"};
    uint64_t addr = 0, size = 0;
    struct vectab *v = NULL;
    uint8_t *buf = NULL;
    asection *sec;
    unsigned n;
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (sym_find(t, names[i], &addr, &size) == 0)
            break;
    if (i == sizeof names / sizeof names[0])
        return NULL;
    /* Without the table's size, the 16 entries of the core's exceptions. */
    n = size >= 8 && size <= 4 * VECTAB_MAX ? (unsigned)(size / 4) : 16;
    if (!(sec = section_of(abfd, addr, n)) || !(buf = malloc(4u * n)) ||
        !(v = calloc(1, sizeof *v)) || !(v->handler = calloc(n, sizeof *v->handler)) ||
        !bfd_get_section_contents(abfd, sec, buf, (file_ptr)(addr - bfd_section_vma(sec)),
                                  4u * n)) {
        vectab_free(v);
        free(buf);
        return NULL;
    }
    for (unsigned k = 2; k < n; k++)
        v->handler[k] = (uint32_t)le_get(buf + 4u * k, 4) & ~1u;
    v->n = n;
    free(buf);
    return v;
}

unsigned vectab_exception(const struct vectab *v, uint64_t start)
{
    for (unsigned k = 2; v && k < v->n; k++)
        if (v->handler[k] == start)
            return k;
    return 0;
}

void vectab_free(struct vectab *v)
{
    if (!v)
        return;
    free(v->handler);
    free(v);
}
