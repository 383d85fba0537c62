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

struct sec {
    const char *name;
    uint32_t name_off, type;
    uint64_t flags, off, size, link, info, entsize;
};

struct elfrel {
    uint8_t *buf;
    size_t len;
    int big, is64;
    unsigned machine;
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

static uint64_t rd(const struct elfrel *e, const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[e->big ? n - 1 - i : i] << (8 * i);
    return v;
}

static void wr(const struct elfrel *e, uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++)
        p[e->big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* A field of a header at p: its 32-bit or 64-bit offset and size, by the file's class. */
static uint64_t fld(const struct elfrel *e, const uint8_t *p, unsigned off32, unsigned n32,
                    unsigned off64, unsigned n64)
{
    return e->is64 ? rd(e, p + off64, n64) : rd(e, p + off32, n32);
}

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
    uint64_t esz = e->is64 ? 24 : 16;
    const uint8_t *p;

    if (!i || sym->type != SHT_SYMTAB || i >= sym->size / esz)
        return 0;
    p = e->buf + sym->off + i * esz;
    if (rd(e, p + (e->is64 ? 6 : 14), 2) == SHN_UNDEF)
        return 0;
    return fld(e, p, 4, 4, 8, 8);
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
    v = rd(e, p, bytes);
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
    wr(e, p, bytes, v);
}

/* Applies the REL or RELA section r to the section it is for, when that is DWARF. */
static int reloc_section(struct elfrel *e, const struct sec *r, char *err, size_t errlen)
{
    int rela = r->type == SHT_RELA;
    uint64_t esz = e->is64 ? (rela ? 24 : 16) : (rela ? 12 : 8);
    const struct sec *t, *sym;

    if (r->info >= e->nsecs || r->link >= e->nsecs)
        return 0;
    t = &e->secs[r->info];
    sym = &e->secs[r->link];
    if (strncmp(t->name, ".debug_", 7) != 0 || t->type == SHT_NOBITS || (t->flags & SHF_ALLOC))
        return 0;
    if (!machine_known(e->machine)) {
        snprintf(err, errlen, "DWARF relocations of ELF machine %u are not known", e->machine);
        return -1;
    }
    for (uint64_t k = 0; k + esz <= r->size; k += esz) {
        const uint8_t *p = e->buf + r->off + k;
        uint64_t off = fld(e, p, 0, 4, 0, 8), info = fld(e, p, 4, 4, 8, 8);
        uint64_t symi = e->is64 ? info >> 32 : info >> 8;
        unsigned type = (unsigned)(e->is64 ? info & 0xffffffffu : info & 0xffu);
        uint64_t a = rela ? fld(e, p, 8, 4, 16, 8) : 0;
        struct rhow h;

        if (!e->is64 && rela && (a & 0x80000000u))
            a |= ~0xffffffffull; /* Elf32_Sword */
        if (reloc_how(e->machine, type, &h) == 0)
            reloc_one(e, t, off, h, sym_value(e, sym, symi), a, rela);
    }
    return 0;
}

/* The ELF header and the section headers; NULL, or what is wrong. */
static const char *read_headers(struct elfrel *e)
{
    const uint8_t *h = e->buf;
    uint64_t shoff, shent, shnum, shstrndx;
    const struct sec *names;

    if (e->len < 52 || memcmp(h, ELFMAG, SELFMAG) != 0)
        return "not an ELF file";
    if ((h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64) ||
        (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
        return "not an ELF file";
    e->is64 = h[EI_CLASS] == ELFCLASS64;
    e->big = h[EI_DATA] == ELFDATA2MSB;
    if (e->is64 && e->len < 64)
        return "truncated ELF file";
    if (rd(e, h + 16, 2) != ET_REL)
        return "not a relocatable ELF object";
    e->machine = (unsigned)rd(e, h + 18, 2);
    shoff = fld(e, h, 0x20, 4, 0x28, 8);
    shent = rd(e, h + (e->is64 ? 0x3a : 0x2e), 2);
    shnum = rd(e, h + (e->is64 ? 0x3c : 0x30), 2);
    shstrndx = rd(e, h + (e->is64 ? 0x3e : 0x32), 2);
    if (shent != (e->is64 ? 64u : 40u) || !fits(e, shoff, shent))
        return "truncated ELF file";
    /* More than 0xff00 sections: the real numbers are in section 0. */
    if (shnum == 0)
        shnum = fld(e, h + shoff, 0x14, 4, 0x20, 8);
    if (shstrndx == SHN_XINDEX)
        shstrndx = fld(e, h + shoff, 0x18, 4, 0x28, 4);
    if (shnum > e->len / shent || !fits(e, shoff, shnum * shent) || shstrndx >= shnum)
        return "truncated ELF file";
    if (!(e->secs = calloc(shnum, sizeof *e->secs)))
        return "out of memory";
    e->nsecs = shnum;
    for (uint64_t i = 0; i < shnum; i++) {
        const uint8_t *p = h + shoff + i * shent;
        struct sec *s = &e->secs[i];

        s->type = (uint32_t)rd(e, p + 4, 4);
        s->flags = fld(e, p, 8, 4, 8, 8);
        s->off = fld(e, p, 0x10, 4, 0x18, 8);
        s->size = fld(e, p, 0x14, 4, 0x20, 8);
        s->link = rd(e, p + (e->is64 ? 0x28 : 0x18), 4);
        s->info = rd(e, p + (e->is64 ? 0x2c : 0x1c), 4);
        s->entsize = fld(e, p, 0x24, 4, 0x38, 8);
        s->name_off = (uint32_t)rd(e, p, 4);
        if (s->type != SHT_NOBITS && !fits(e, s->off, s->size))
            return "truncated ELF file";
    }
    names = &e->secs[shstrndx];
    for (uint64_t i = 0; i < shnum; i++) {
        uint64_t at = e->secs[i].name_off;
        const char *n = at < names->size ? (const char *)e->buf + names->off + at : NULL;

        e->secs[i].name = n && memchr(n, 0, names->size - at) ? n : "";
    }
    return NULL;
}

/* ---- libdwarf's object access interface ---- */

static int get_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *s, int *error)
{
    const struct elfrel *e = obj;
    const struct sec *x;

    (void)error;
    if (i >= e->nsecs)
        return DW_DLV_NO_ENTRY;
    x = &e->secs[i];
    memset(s, 0, sizeof *s);
    /* The relocation sections are applied already: libdwarf must not see them as such. */
    s->type = x->type == SHT_REL || x->type == SHT_RELA ? SHT_PROGBITS : x->type;
    s->name = x->type == SHT_REL || x->type == SHT_RELA ? "" : x->name;
    s->size = x->size;
    s->link = x->link;
    s->info = x->info;
    s->entrysize = x->entsize;
    return DW_DLV_OK;
}

static Dwarf_Endianness get_byte_order(void *obj)
{
    return ((const struct elfrel *)obj)->big ? DW_OBJECT_MSB : DW_OBJECT_LSB;
}

static Dwarf_Small get_word_size(void *obj)
{
    return ((const struct elfrel *)obj)->is64 ? 8 : 4;
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
    const char *why;

    if (!e) {
        free(buf);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->buf = buf;
    e->len = len;
    if ((why = read_headers(e))) {
        snprintf(err, errlen, "%s", why);
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

int elfrel_dwarf(struct elfrel *e, Dwarf_Handler handler, Dwarf_Debug *dbg)
{
    int rc;

    if (e->dbg) {
        *dbg = e->dbg;
        return DW_DLV_OK;
    }
    rc = dwarf_object_init_b(&e->iface, handler, NULL, DW_GROUPNUMBER_ANY, &e->dbg, NULL);
    if (rc != DW_DLV_OK)
        e->dbg = NULL;
    *dbg = e->dbg;
    return rc;
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
