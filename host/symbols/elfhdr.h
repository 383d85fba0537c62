/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfhdr.h - what every hand reader of ELF files in the host needs first: the ELF header,
 * read and checked once (the symbolizer's symbol sizes, elfsize.c; the relocated objects of
 * cygtrace wrap, elfrel.c), the section headers, and any field in the file's byte order and
 * class. Bounds-checked: the file may come from a library the user did not build. */
#ifndef ELFHDR_H
#define ELFHDR_H

#include <stddef.h>
#include <stdint.h>

struct elfhdr {
    int big;            /* ELFDATA2MSB */
    int is64;           /* ELFCLASS64 */
    unsigned type;      /* e_type: ET_REL, ET_EXEC, ET_DYN... */
    unsigned machine;   /* e_machine */
    uint64_t entry;     /* e_entry */
    uint64_t shoff;     /* e_shoff */
    unsigned shentsize; /* e_shentsize */
    uint64_t shnum;     /* e_shnum; 0: extended numbering, see elfhdr_extended */
    uint64_t shstrndx;  /* e_shstrndx */
};

/* One section header. */
struct elfhdr_sec {
    uint32_t name, type;
    uint64_t flags, offset, size, link, info, entsize;
};

/* Parses the header at buf, len bytes from the start of a file of file_size bytes (64 are
 * enough): 0, or -1 with err "not an ELF file" or "truncated ELF file" (libbfd reports a
 * truncated file as "file format not recognized": the header, the program headers or the
 * section headers that run past the end of the file say it here). */
int elfhdr_parse(const uint8_t *buf, size_t len, uint64_t file_size, struct elfhdr *h, char *err,
                 size_t errlen);

/* elfhdr_parse on the first bytes of the open file fd (file_size bytes long). */
int elfhdr_read(int fd, uint64_t file_size, struct elfhdr *h, char *err, size_t errlen);

/* len bytes at off of the open file fd, in memory to free; NULL when they are not all inside
 * the file, or out of memory, or on a read error. */
uint8_t *elfhdr_pread(int fd, uint64_t file_size, uint64_t off, uint64_t len);

/* The n-byte (n <= 8) number at p in the file's byte order. */
uint64_t elfhdr_get(const struct elfhdr *h, const uint8_t *p, unsigned n);

/* Writes the low n bytes of v at p in the file's byte order. */
void elfhdr_put(const struct elfhdr *h, uint8_t *p, unsigned n, uint64_t v);

/* A field of a structure at p whose place depends on the class: n32 bytes at off32 in a 32-bit
 * file, n64 bytes at off64 in a 64-bit one. */
uint64_t elfhdr_field(const struct elfhdr *h, const uint8_t *p, unsigned off32, unsigned n32,
                      unsigned off64, unsigned n64);

/* The section header at p (h->shentsize bytes, at least 40 or 64 by class). */
void elfhdr_section(const struct elfhdr *h, const uint8_t *p, struct elfhdr_sec *s);

/* More than 0xff00 sections: e_shnum and e_shstrndx are in section 0's header (at sec0), which
 * fixes h's. */
void elfhdr_extended(struct elfhdr *h, const uint8_t *sec0);

#endif
