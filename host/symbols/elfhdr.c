/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfhdr.c - the ELF header, and fields in the file's byte order. */
#include "symbols/elfhdr.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/le.h"

uint64_t elfhdr_get(const struct elfhdr *h, const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    if (!h->big)
        return le_get(p, n);
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

void elfhdr_put(const struct elfhdr *h, uint8_t *p, unsigned n, uint64_t v)
{
    if (!h->big) {
        le_put(p, v, n);
        return;
    }
    for (unsigned i = n; i-- > 0; v >>= 8)
        p[i] = (uint8_t)v;
}

uint64_t elfhdr_field(const struct elfhdr *h, const uint8_t *p, unsigned off32, unsigned n32,
                      unsigned off64, unsigned n64)
{
    return h->is64 ? elfhdr_get(h, p + off64, n64) : elfhdr_get(h, p + off32, n32);
}

/* Whether a table of num entries of ent bytes at off lies inside the file. */
static int table_fits(uint64_t off, uint64_t num, uint64_t ent, uint64_t file_size)
{
    return off <= file_size && (ent == 0 || num <= (file_size - off) / ent);
}

static int fail(char *err, size_t errlen, const char *why)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", why);
    return -1;
}

int elfhdr_parse(const uint8_t *e, size_t len, uint64_t file_size, struct elfhdr *h, char *err,
                 size_t errlen)
{
    uint64_t phoff, phent, phnum;

    if (len < SELFMAG || memcmp(e, ELFMAG, SELFMAG) != 0)
        return fail(err, errlen, "not an ELF file");
    if (len <= EI_DATA)
        return fail(err, errlen, "truncated ELF file");
    if ((e[EI_CLASS] != ELFCLASS32 && e[EI_CLASS] != ELFCLASS64) ||
        (e[EI_DATA] != ELFDATA2LSB && e[EI_DATA] != ELFDATA2MSB))
        return fail(err, errlen, "not an ELF file");
    h->is64 = e[EI_CLASS] == ELFCLASS64;
    h->big = e[EI_DATA] == ELFDATA2MSB;
    if (len < (h->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
        return fail(err, errlen, "truncated ELF file");
    h->type = (unsigned)elfhdr_get(h, e + 16, 2);
    h->machine = (unsigned)elfhdr_get(h, e + 18, 2);
    h->entry = elfhdr_field(h, e, 0x18, 4, 0x18, 8);
    phoff = elfhdr_field(h, e, 0x1c, 4, 0x20, 8);
    phent = elfhdr_field(h, e, 0x2a, 2, 0x36, 2);
    phnum = elfhdr_field(h, e, 0x2c, 2, 0x38, 2);
    h->shoff = elfhdr_field(h, e, 0x20, 4, 0x28, 8);
    h->shentsize = (unsigned)elfhdr_field(h, e, 0x2e, 2, 0x3a, 2);
    h->shnum = elfhdr_field(h, e, 0x30, 2, 0x3c, 2);
    h->shstrndx = elfhdr_field(h, e, 0x32, 2, 0x3e, 2);
    if (!table_fits(phoff, phnum, phent, file_size) ||
        !table_fits(h->shoff, h->shnum, h->shentsize, file_size))
        return fail(err, errlen, "truncated ELF file");
    return 0;
}

/* Reads exactly len bytes at off, refusing anything that is not wholly inside the file. */
static int read_at(int fd, uint64_t file_size, uint64_t off, void *buf, size_t len)
{
    uint8_t *p = buf;

    if (off > file_size || len > file_size - off)
        return -1;
    while (len > 0) {
        ssize_t r = pread(fd, p, len, (off_t)off);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        off += (uint64_t)r;
        len -= (size_t)r;
    }
    return 0;
}

int elfhdr_read(int fd, uint64_t file_size, struct elfhdr *h, char *err, size_t errlen)
{
    uint8_t e[sizeof(Elf64_Ehdr)];
    size_t len = file_size < sizeof e ? (size_t)file_size : sizeof e;

    if (read_at(fd, file_size, 0, e, len) < 0)
        len = 0;
    return elfhdr_parse(e, len, file_size, h, err, errlen);
}

uint8_t *elfhdr_pread(int fd, uint64_t file_size, uint64_t off, uint64_t len)
{
    uint8_t *buf;

    if (off > file_size || len > file_size - off)
        return NULL;
    buf = malloc(len ? len : 1);
    if (buf && read_at(fd, file_size, off, buf, len) < 0) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

void elfhdr_section(const struct elfhdr *h, const uint8_t *p, struct elfhdr_sec *s)
{
    s->name = (uint32_t)elfhdr_get(h, p, 4);
    s->type = (uint32_t)elfhdr_get(h, p + 4, 4);
    s->flags = elfhdr_field(h, p, 8, 4, 8, 8);
    s->offset = elfhdr_field(h, p, 0x10, 4, 0x18, 8);
    s->size = elfhdr_field(h, p, 0x14, 4, 0x20, 8);
    s->link = elfhdr_field(h, p, 0x18, 4, 0x28, 4);
    s->info = elfhdr_field(h, p, 0x1c, 4, 0x2c, 4);
    s->entsize = elfhdr_field(h, p, 0x24, 4, 0x38, 8);
}

void elfhdr_extended(struct elfhdr *h, const uint8_t *sec0)
{
    struct elfhdr_sec s;

    elfhdr_section(h, sec0, &s);
    if (h->shnum == 0)
        h->shnum = s.size;
    if (h->shstrndx == SHN_XINDEX)
        h->shstrndx = s.link;
}
