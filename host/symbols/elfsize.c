/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfsize.c - st_size of every sized symbol, sorted by (value, hash of the name). */
#include "symbols/elfsize.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "util/oaindex.h"
#include "util/vec.h"

struct elfsize_ent {
    uint64_t value;
    uint64_t hash;
    uint64_t size;
};

struct elfsize {
    struct elfhdr h;
    struct elfsize_ent *v;
    size_t n, cap;
};

static int ent_cmp(const void *a, const void *b)
{
    const struct elfsize_ent *x = a, *y = b;

    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->hash > y->hash) - (x->hash < y->hash);
}

/* The key both sides use: on ARM a Thumb function's value has bit 0 set in the ELF file and
 * maybe not in bfd (depending on the backend), so bit 0 takes no part in matching. */
static uint64_t value_key(const struct elfhdr *h, uint64_t value)
{
    return h->machine == EM_ARM ? value & ~(uint64_t)1 : value;
}

/* Appends the sized symbols of one SHT_SYMTAB/SHT_DYNSYM section sh. */
static int add_table(struct elfsize *s, int fd, uint64_t file_size, const uint8_t *shdrs,
                     const struct elfhdr_sec *sh)
{
    const struct elfhdr *h = &s->h;
    unsigned esz = h->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    struct elfhdr_sec str;
    uint8_t *syms = NULL, *strs = NULL;
    uint64_t count;
    int ret = -1;

    if (sh->entsize < esz || sh->link >= h->shnum)
        return -1;
    elfhdr_section(h, shdrs + sh->link * h->shentsize, &str);
    count = sh->size / sh->entsize;
    syms = elfhdr_pread(fd, file_size, sh->offset, sh->size);
    strs = elfhdr_pread(fd, file_size, str.offset, str.size);
    if (!syms || !strs || str.size == 0)
        goto out;
    for (uint64_t i = 1; i < count; i++) {
        const uint8_t *p = syms + i * sh->entsize;
        uint64_t name = elfhdr_get(h, p, 4);
        uint64_t value = elfhdr_field(h, p, 4, 4, 8, 8);
        uint64_t size = elfhdr_field(h, p, 8, 4, 16, 8);

        if (size == 0 || name >= str.size || !memchr(strs + name, 0, str.size - name))
            continue;
        if (vec_grow(&s->v, &s->cap, s->n, sizeof *s->v, count) < 0)
            goto out;
        s->v[s->n].value = value_key(h, value);
        s->v[s->n].hash = oaindex_hash_str((const char *)strs + name);
        s->v[s->n].size = size;
        s->n++;
    }
    ret = 0;
out:
    free(syms);
    free(strs);
    return ret;
}

struct elfsize *elfsize_load(int fd, uint64_t file_size, const struct elfhdr *hdr)
{
    struct elfsize *s;
    uint8_t *shdrs;
    unsigned min_ent = hdr->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

    if (hdr->shoff == 0 || hdr->shentsize < min_ent || !(s = calloc(1, sizeof *s)))
        return NULL;
    s->h = *hdr;
    if (s->h.shnum == 0) { /* extended numbering: the count is in section 0's sh_size */
        uint8_t *s0 = elfhdr_pread(fd, file_size, s->h.shoff, min_ent);

        if (s0)
            elfhdr_extended(&s->h, s0);
        free(s0);
    }
    if (s->h.shnum == 0 || s->h.shnum > file_size / s->h.shentsize ||
        !(shdrs = elfhdr_pread(fd, file_size, s->h.shoff, s->h.shnum * s->h.shentsize))) {
        elfsize_free(s);
        return NULL;
    }
    for (uint64_t i = 0; i < s->h.shnum; i++) {
        struct elfhdr_sec sh;

        elfhdr_section(&s->h, shdrs + i * s->h.shentsize, &sh);
        if (sh.type == SHT_SYMTAB || sh.type == SHT_DYNSYM)
            add_table(s, fd, file_size, shdrs, &sh);
    }
    free(shdrs);
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, ent_cmp);
    return s;
}

uint64_t elfsize_of(const struct elfsize *s, uint64_t value, const char *name)
{
    struct elfsize_ent key;
    const struct elfsize_ent *hit;

    if (!s || !s->n)
        return 0;
    key = (struct elfsize_ent){value_key(&s->h, value), oaindex_hash_str(name), 0};
    hit = bsearch(&key, s->v, s->n, sizeof *s->v, ent_cmp);
    return hit ? hit->size : 0;
}

void elfsize_free(struct elfsize *s)
{
    if (!s)
        return;
    free(s->v);
    free(s);
}
