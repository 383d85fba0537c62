/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfrel.c - a relocatable object's DWARF, relocated in memory and served to libdwarf.
 *
 * Every read of the file is bounds-checked: it may come from a library the user did not
 * build. A relocation that does not fit its section, or names a symbol that is not there, is
 * skipped (what it would have fixed reads wrong, nothing worse). */
#include "symbols/elfrel.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/dwdie.h"
#include "symbols/elfhdr.h"

struct sec {
    const char *name;
    uint32_t name_off, type;
    uint64_t flags, off, size, link, info, entsize;
};

struct elfrel {
    uint8_t *buf;
    size_t len;
    struct elfhdr h;
    struct sec *secs;
    size_t nsecs;
    Dwarf_Obj_Access_Methods methods;
    Dwarf_Obj_Access_Interface iface;
    Dwarf_Debug dbg;
};

/* What a relocation does to the bits at its place. */
enum rop { OP_ABS, OP_ADD, OP_SUB, OP_SET };

struct rhow {
    enum rop op;
    unsigned bits; /* 6, 8, 16, 32 or 64 */
};

static int fits(const struct elfrel *e, uint64_t off, uint64_t size)
{
    return off <= e->len && size <= e->len - off;
}

/* The relocations the DWARF of each machine uses: absolute addresses and section offsets, and
 * RISC-V's label differences (ADD/SUB pairs, SET for DW_CFA_advance_loc's 6 bits). */
static int reloc_how(unsigned machine, unsigned type, struct rhow *h)
{
    static const struct {
        unsigned machine, type;
        struct rhow how;
    } table[] = {
        {EM_X86_64, R_X86_64_64, {OP_ABS, 64}},       {EM_X86_64, R_X86_64_32, {OP_ABS, 32}},
        {EM_X86_64, R_X86_64_32S, {OP_ABS, 32}},      {EM_X86_64, R_X86_64_DTPOFF32, {OP_ABS, 32}},
        {EM_X86_64, R_X86_64_DTPOFF64, {OP_ABS, 64}}, {EM_386, R_386_32, {OP_ABS, 32}},
        {EM_386, R_386_TLS_LDO_32, {OP_ABS, 32}},     {EM_ARM, R_ARM_ABS32, {OP_ABS, 32}},
        {EM_ARM, R_ARM_TLS_LDO32, {OP_ABS, 32}},      {EM_AARCH64, R_AARCH64_ABS64, {OP_ABS, 64}},
        {EM_AARCH64, R_AARCH64_ABS32, {OP_ABS, 32}},  {EM_RISCV, R_RISCV_32, {OP_ABS, 32}},
        {EM_RISCV, R_RISCV_64, {OP_ABS, 64}},         {EM_RISCV, R_RISCV_ADD8, {OP_ADD, 8}},
        {EM_RISCV, R_RISCV_ADD16, {OP_ADD, 16}},      {EM_RISCV, R_RISCV_ADD32, {OP_ADD, 32}},
        {EM_RISCV, R_RISCV_ADD64, {OP_ADD, 64}},      {EM_RISCV, R_RISCV_SUB8, {OP_SUB, 8}},
        {EM_RISCV, R_RISCV_SUB16, {OP_SUB, 16}},      {EM_RISCV, R_RISCV_SUB32, {OP_SUB, 32}},
        {EM_RISCV, R_RISCV_SUB64, {OP_SUB, 64}},      {EM_RISCV, R_RISCV_SUB6, {OP_SUB, 6}},
        {EM_RISCV, R_RISCV_SET6, {OP_SET, 6}},        {EM_RISCV, R_RISCV_SET8, {OP_SET, 8}},
        {EM_RISCV, R_RISCV_SET16, {OP_SET, 16}},      {EM_RISCV, R_RISCV_SET32, {OP_SET, 32}},
    };

    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (table[i].machine == machine && table[i].type == type) {
            *h = table[i].how;
            return 0;
        }
    return -1;
}

static int machine_known(unsigned machine)
{
    return machine == EM_X86_64 || machine == EM_386 || machine == EM_ARM ||
           machine == EM_AARCH64 || machine == EM_RISCV;
}

/* The value of symbol i of the symbol table sym: its st_value (an offset in its section, as
 * if every section sat at address 0); 0 for symbol 0, an undefined one or one out of range. */
static uint64_t sym_value(const struct elfrel *e, const struct sec *sym, uint64_t i)
{
    uint64_t esz = e->h.is64 ? 24 : 16;
    const uint8_t *p;

    if (!i || sym->type != SHT_SYMTAB || i >= sym->size / esz)
        return 0;
    p = e->buf + sym->off + i * esz;
    if (elfhdr_get(&e->h, p + (e->h.is64 ? 6 : 14), 2) == SHN_UNDEF)
        return 0;
    return elfhdr_field(&e->h, p, 4, 4, 8, 8);
}

/* One relocation at offset off of section t (bytes at e->buf + t->off). */
static void reloc_one(const struct elfrel *e, const struct sec *t, uint64_t off, struct rhow h,
                      uint64_t s, uint64_t a, int rela)
{
    unsigned bytes = h.bits == 6 ? 1 : h.bits / 8;
    uint8_t *p;
    uint64_t v, mask = h.bits == 64 ? ~0ull : (1ull << h.bits) - 1;

    if (off > t->size || bytes > t->size - off)
        return;
    p = e->buf + t->off + off;
    v = elfhdr_get(&e->h, p, bytes);
    if (!rela && h.op == OP_ABS)
        a = v; /* REL: the addend is what the place holds */
    switch (h.op) {
    case OP_ABS:
    case OP_SET:
        v = (v & ~mask) | ((s + a) & mask);
        break;
    case OP_ADD:
        v = (v & ~mask) | ((v + s + a) & mask);
        break;
    case OP_SUB:
        v = (v & ~mask) | ((v - s - a) & mask);
        break;
    }
    elfhdr_put(&e->h, p, bytes, v);
}

/* Applies the REL or RELA section r to the section it is for, when that is DWARF. */
static int reloc_section(struct elfrel *e, const struct sec *r, char *err, size_t errlen)
{
    int rela = r->type == SHT_RELA;
    uint64_t esz = e->h.is64 ? (rela ? 24 : 16) : (rela ? 12 : 8);
    const struct sec *t, *sym;

    if (r->info >= e->nsecs || r->link >= e->nsecs)
        return 0;
    t = &e->secs[r->info];
    sym = &e->secs[r->link];
    if (strncmp(t->name, ".debug_", 7) != 0 || t->type == SHT_NOBITS || (t->flags & SHF_ALLOC))
        return 0;
    if (!machine_known(e->h.machine)) {
        snprintf(err, errlen, "DWARF relocations of ELF machine %u are not known", e->h.machine);
        return -1;
    }
    for (uint64_t k = 0; k + esz <= r->size; k += esz) {
        const uint8_t *p = e->buf + r->off + k;
        uint64_t off = elfhdr_field(&e->h, p, 0, 4, 0, 8);
        uint64_t info = elfhdr_field(&e->h, p, 4, 4, 8, 8);
        uint64_t symi = e->h.is64 ? info >> 32 : info >> 8;
        unsigned type = (unsigned)(e->h.is64 ? info & 0xffffffffu : info & 0xffu);
        uint64_t a = rela ? elfhdr_field(&e->h, p, 8, 4, 16, 8) : 0;
        struct rhow h;

        if (!e->h.is64 && rela && (a & 0x80000000u))
            a |= ~0xffffffffull; /* Elf32_Sword */
        if (reloc_how(e->h.machine, type, &h) == 0)
            reloc_one(e, t, off, h, sym_value(e, sym, symi), a, rela);
    }
    return 0;
}

/* The ELF header and the section headers: 0, or -1 with what is wrong in err. */
static int read_headers(struct elfrel *e, char *err, size_t errlen)
{
    struct elfhdr *h = &e->h;
    const struct sec *names;
    const char *why = "truncated ELF file";

    if (elfhdr_parse(e->buf, e->len, e->len, h, err, errlen) < 0)
        return -1;
    if (h->type != ET_REL && h->type != ET_DYN) { /* a shared library's DWARF is linked */
        why = "not a relocatable ELF object or a shared library";
        goto fail;
    }
    if (h->shentsize != (h->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
        !fits(e, h->shoff, h->shentsize))
        goto fail;
    elfhdr_extended(h, e->buf + h->shoff);
    if (h->shnum > e->len / h->shentsize || !fits(e, h->shoff, h->shnum * h->shentsize) ||
        h->shstrndx >= h->shnum)
        goto fail;
    if (!(e->secs = calloc(h->shnum, sizeof *e->secs))) {
        why = "out of memory";
        goto fail;
    }
    e->nsecs = h->shnum;
    for (uint64_t i = 0; i < h->shnum; i++) {
        struct elfhdr_sec x;
        struct sec *s = &e->secs[i];

        elfhdr_section(h, e->buf + h->shoff + i * h->shentsize, &x);
        *s = (struct sec){NULL, x.name, x.type, x.flags, x.offset, x.size, x.link, x.info,
                          x.entsize};
        if (s->type != SHT_NOBITS && !fits(e, s->off, s->size))
            goto fail;
    }
    names = &e->secs[h->shstrndx];
    for (uint64_t i = 0; i < h->shnum; i++) {
        uint64_t at = e->secs[i].name_off;
        const char *n = at < names->size ? (const char *)e->buf + names->off + at : NULL;

        e->secs[i].name = n && memchr(n, 0, names->size - at) ? n : "";
    }
    return 0;
fail:
    snprintf(err, errlen, "%s", why);
    return -1;
}

/* ---- libdwarf's object access interface ---- */

/* What libdwarf is not shown: the relocation sections (applied already), and the range and
 * location lists, which no reader of a relocatable object's DWARF here needs (wrap reads units,
 * DIEs and types) and which libdwarf 20210528 loads with every unit: a damaged
 * .debug_rnglists made it free a list twice (found by tests/fuzz/fuzz_wrap). */
static int hidden(const struct sec *x)
{
    return x->type == SHT_REL || x->type == SHT_RELA || !strcmp(x->name, ".debug_rnglists") ||
           !strcmp(x->name, ".debug_loclists");
}

static int get_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *s, int *error)
{
    const struct elfrel *e = obj;
    const struct sec *x;

    (void)error;
    if (i >= e->nsecs)
        return DW_DLV_NO_ENTRY;
    x = &e->secs[i];
    memset(s, 0, sizeof *s);
    s->type = hidden(x) ? SHT_PROGBITS : x->type;
    s->name = hidden(x) ? "" : x->name;
    s->size = x->size;
    s->link = x->link;
    s->info = x->info;
    s->entrysize = x->entsize;
    return DW_DLV_OK;
}

static Dwarf_Endianness get_byte_order(void *obj)
{
    return ((const struct elfrel *)obj)->h.big ? DW_OBJECT_MSB : DW_OBJECT_LSB;
}

static Dwarf_Small get_word_size(void *obj)
{
    return ((const struct elfrel *)obj)->h.is64 ? 8 : 4;
}

static Dwarf_Unsigned get_section_count(void *obj)
{
    return ((const struct elfrel *)obj)->nsecs;
}

static int load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
    const struct elfrel *e = obj;

    (void)error;
    if (i == 0 || i >= e->nsecs || e->secs[i].type == SHT_NOBITS || !e->secs[i].size)
        return DW_DLV_NO_ENTRY;
    *data = e->buf + e->secs[i].off;
    return DW_DLV_OK;
}

struct elfrel *elfrel_open(void *buf, size_t len, char *err, size_t errlen)
{
    struct elfrel *e = calloc(1, sizeof *e);

    if (!e) {
        free(buf);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->buf = buf;
    e->len = len;
    if (read_headers(e, err, errlen) < 0) {
        elfrel_close(e);
        return NULL;
    }
    for (size_t i = 0; i < e->nsecs; i++) {
        const struct sec *s = &e->secs[i];

        if (!strncmp(s->name, ".debug_", 7) && (s->flags & SHF_COMPRESSED)) {
            snprintf(err, errlen, "its DWARF is compressed (-gz), which is not supported");
            elfrel_close(e);
            return NULL;
        }
        if ((s->type == SHT_REL || s->type == SHT_RELA) && reloc_section(e, s, err, errlen) < 0) {
            elfrel_close(e);
            return NULL;
        }
    }
    e->methods =
        (Dwarf_Obj_Access_Methods){get_section_info,  get_byte_order, get_word_size, get_word_size,
                                   get_section_count, load_section,   NULL};
    e->iface = (Dwarf_Obj_Access_Interface){e, &e->methods};
    return e;
}

int elfrel_dwarf(struct elfrel *e, Dwarf_Debug *dbg, char *err, size_t errlen)
{
    Dwarf_Error derr = NULL;
    int rc;

    if (!e->dbg) {
        /* An error argument, even unused: libdwarf's own checks of a damaged object (found by
         * tests/fuzz/fuzz_wrap) write through it unchecked on some of their ways out. */
        rc = dwarf_object_init_b(&e->iface, dwdie_quiet, NULL, DW_GROUPNUMBER_ANY, &e->dbg,
                                 &derr);
        if (derr)
            dwarf_dealloc_error(NULL, derr);
        if (rc != DW_DLV_OK) {
            e->dbg = NULL;
            snprintf(err, errlen, "%s",
                     rc == DW_DLV_NO_ENTRY ? "no DWARF" : "its DWARF cannot be read");
            return -1;
        }
    }
    *dbg = e->dbg;
    return 0;
}

void elfrel_close(struct elfrel *e)
{
    if (!e)
        return;
    if (e->dbg)
        dwarf_object_finish(e->dbg, NULL);
    free(e->secs);
    free(e->buf);
    free(e);
}
