/* SPDX-License-Identifier: MIT */
/* cygtrace_syms.c - functions by name, for the triggers and filters of the environment
 * (CYGTRACE_TRIGGER=freeze@boom+10): the run-time address of a function of the program or of
 * one of its loaded libraries.
 *
 * Each loaded object, in dl_iterate_phdr's order (the program first, then its libraries in
 * load order: the dynamic linker's own search order), is looked up in its file's .symtab, which
 * names static functions too, else in its .dynsym; when the file cannot be read or is not the
 * one loaded (a library replaced on disk since: its program headers or notes, the GNU build-id
 * among them, differ from the mapped ones), in the .dynsym the dynamic linker mapped (there
 * too for a name the file's tables did not give: a file whose sections lie). Only
 * STT_FUNC symbols count: an STT_GNU_IFUNC's value is its resolver, which the hooks never see
 * as the function (they see the implementation it picked), so such a name is reported, not
 * armed. The runtime's own object (the preloaded libcygtrace.so) is not searched.
 *
 * The files are anyone's (an attacker may plant a library on the path): every offset and size
 * is checked against the file's length before it is used, and every read is a bounded pread
 * into memory mapped for the time of the look-up (no malloc, no stdio, nothing the program
 * could notice; no descriptor outlives it): the symbol table streams through a 64 KiB buffer,
 * the string table is read whole when it has at most 16 MiB, else name by name. The mapped
 * objects are read through the kernel too (cyg_peek), never in place: a segment may run past
 * the end of its file, and a plain read there raises SIGBUS.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cygtrace_linux.h"

#define BUF_BYTES ((size_t)64 << 10) /* the read buffer */
#define STR_LOAD_MAX ((uint64_t)16 << 20) /* a larger string table is read name by name */
#define NOTES_MAX 4096u               /* bytes of a note segment compared with the file's */

#if UINTPTR_MAX > 0xffffffffu
#define ELF_CLASS ELFCLASS64
#else
#define ELF_CLASS ELFCLASS32
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ELF_DATA ELFDATA2LSB
#else
#define ELF_DATA ELFDATA2MSB
#endif

_Static_assert(CYG_SYMS_MAX <= 32, "names are a bit mask");

struct lookup {
    const char *const *names;
    size_t len[CYG_SYMS_MAX]; /* 0: a name that cannot match */
    unsigned n;
    struct cyg_syms_hit *hits;
    unsigned objects;         /* objects seen so far: the first is the program */
    uintptr_t self;           /* an address of this runtime's code */
    char *buf;                /* BUF_BYTES */
    size_t longest;           /* the longest name's length */
    /* The object being looked at: its best definition of each name. */
    uintptr_t addr[CYG_SYMS_MAX];
    int bind[CYG_SYMS_MAX];      /* the best one's standing (see standing), -1: none */
    unsigned defs[CYG_SYMS_MAX]; /* definitions at distinct addresses */
    unsigned ifunc[CYG_SYMS_MAX];
    struct cyg_peek pk;          /* reads the mapped objects */
};

/* a + b <= limit, without overflow. */
NOINSTR static int fits(uint64_t a, uint64_t b, uint64_t limit)
{
    return a <= limit && b <= limit - a;
}

/* Reads exactly len bytes at off: 0, or -1 on a short read (the file shrank) or an error. */
NOINSTR static int read_at(int fd, void *to, size_t len, uint64_t off)
{
    char *p = to;

    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* A definition's standing: a global one wins over a weak one, which wins over a static
 * function of the same name (a global is what the dynamic linker would bind the name to). */
NOINSTR static int standing(unsigned char info)
{
    switch (ELF64_ST_BIND(info)) { /* the same bits in ELF32 */
    case STB_GLOBAL: return 2;
    case STB_WEAK: return 1;
    default: return 0;
    }
}

/* One symbol whose name is each name of the mask. */
NOINSTR static void consider(struct lookup *lk, uint32_t mask, const ElfW(Sym) *s, uintptr_t bias)
{
    unsigned type = ELF64_ST_TYPE(s->st_info);
    uintptr_t a = bias + (uintptr_t)s->st_value;
    int st = standing(s->st_info);

    if (!mask || s->st_shndx == SHN_UNDEF || s->st_value == 0 ||
        (type != STT_FUNC && type != STT_GNU_IFUNC))
        return;
    for (unsigned i = 0; i < lk->n; i++) {
        if (!(mask >> i & 1u))
            continue;
        if (type == STT_GNU_IFUNC) {
            lk->ifunc[i]++;
        } else if (lk->bind[i] >= 0 && lk->addr[i] == a) { /* an alias */
            lk->bind[i] = st > lk->bind[i] ? st : lk->bind[i];
        } else {
            lk->defs[i]++;
            if (st > lk->bind[i]) {
                lk->bind[i] = st;
                lk->addr[i] = a;
            }
        }
    }
}

/* The names (a mask) that the string at offset at of the string table [off, off + size) of
 * the file is: from the table in memory (str) when it was loaded, else read from the file. */
NOINSTR static uint32_t names_at(const struct lookup *lk, int fd, const char *str, uint64_t off,
                                 uint64_t size, uint64_t at)
{
    char name[CYG_SYMS_NAME_MAX];
    uint32_t mask = 0;
    size_t got;

    if (at >= size)
        return 0;
    if (str) {
        str += at;
        got = size - at < sizeof name ? (size_t)(size - at) : sizeof name;
    } else {
        got = lk->longest + 1;
        got = size - at < got ? (size_t)(size - at) : got;
        if (read_at(fd, name, got, off + at) < 0)
            return 0;
        str = name;
    }
    for (unsigned i = 0; i < lk->n; i++)
        if (lk->len[i] && lk->len[i] < got && !memcmp(str, lk->names[i], lk->len[i] + 1))
            mask |= 1u << i;
    return mask;
}

/* Matches the symbol table at [off, off + size) of the file against the names, their names in
 * the string table *strtab. */
NOINSTR static int scan_symbols(struct lookup *lk, int fd, uint64_t off, uint64_t size,
                                const ElfW(Shdr) *strtab, uintptr_t bias)
{
    const ElfW(Sym) *s = (const void *)lk->buf;
    char *str = NULL;
    size_t str_bytes = 0;

    /* The table in memory (read once) when it is not too large, else names read one by one. */
    if (strtab->sh_size <= STR_LOAD_MAX) {
        str_bytes = (size_t)strtab->sh_size;
        str = mmap(NULL, str_bytes ? str_bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (str == MAP_FAILED)
            str = NULL;
        else if (read_at(fd, str, str_bytes, strtab->sh_offset) < 0) {
            munmap(str, str_bytes ? str_bytes : 1);
            return -1;
        }
    }
    for (uint64_t at = 0; at < size;) {
        size_t got = BUF_BYTES / sizeof *s * sizeof *s; /* whole symbols: 24 bytes on 64-bit */

        if (got > size - at)
            got = (size_t)(size - at);
        if (read_at(fd, lk->buf, got, off + at) < 0)
            break;
        for (size_t i = 0; i < got / sizeof *s; i++) {
            unsigned type = ELF64_ST_TYPE(s[i].st_info);

            if (s[i].st_name && s[i].st_shndx != SHN_UNDEF && s[i].st_value &&
                (type == STT_FUNC || type == STT_GNU_IFUNC))
                consider(lk, names_at(lk, fd, str, strtab->sh_offset, strtab->sh_size,
                                      s[i].st_name),
                         &s[i], bias);
        }
        at += got;
    }
    if (str)
        munmap(str, str_bytes ? str_bytes : 1);
    return 0;
}

NOINSTR static int readable(const struct dl_phdr_info *info, const void *p, uint64_t len);

/* Copies len bytes of the object at p into to: 0 when they lie in one of its readable
 * segments and the kernel could read them all (a page past the end of the file cannot be). */
NOINSTR static int mem(struct lookup *lk, const struct dl_phdr_info *info, void *to,
                       const void *p, uint64_t len)
{
    return readable(info, p, len) && cyg_peek(&lk->pk, to, p, (size_t)len) == 0 ? 0 : -1;
}

/* Whether the file's program headers are the loaded object's, and its note segments (the GNU
 * build-id) hold the same bytes: else it is not the file that was loaded. */
NOINSTR static int same_object(struct lookup *lk, int fd, const ElfW(Ehdr) *eh, uint64_t size,
                               const struct dl_phdr_info *info)
{
    size_t bytes = (size_t)info->dlpi_phnum * sizeof(ElfW(Phdr));

    if (eh->e_phnum != info->dlpi_phnum || eh->e_phentsize != sizeof(ElfW(Phdr)) ||
        bytes > BUF_BYTES || !fits(eh->e_phoff, bytes, size) ||
        read_at(fd, lk->buf, bytes, eh->e_phoff) < 0 || memcmp(lk->buf, info->dlpi_phdr, bytes))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        size_t n = ph->p_filesz < NOTES_MAX ? (size_t)ph->p_filesz : NOTES_MAX;

        if (ph->p_type != PT_NOTE)
            continue;
        if (mem(lk, info, lk->buf + NOTES_MAX, (const void *)(info->dlpi_addr + ph->p_vaddr), n))
            return 0;
        if (!fits(ph->p_offset, n, size) || read_at(fd, lk->buf, n, ph->p_offset) < 0 ||
            memcmp(lk->buf, lk->buf + NOTES_MAX, n))
            return 0;
    }
    return 1;
}

/* Section header i into *sh. */
NOINSTR static int section(int fd, const ElfW(Ehdr) *eh, uint64_t size, unsigned i,
                           ElfW(Shdr) *sh)
{
    uint64_t at = eh->e_shoff + (uint64_t)i * sizeof *sh;

    return i < eh->e_shnum && fits(at, sizeof *sh, size) ? read_at(fd, sh, sizeof *sh, at) : -1;
}

/* Looks the names up in the file's .symtab, else its .dynsym. Returns -1 when the file gives
 * no table (the mapped .dynsym is the one to use then). */
NOINSTR static int file_symbols(struct lookup *lk, int fd, const struct dl_phdr_info *info)
{
    ElfW(Ehdr) eh;
    ElfW(Shdr) sym = {0}, str, sh;
    struct stat st;
    uint64_t size;

    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof eh)
        return -1;
    size = (uint64_t)st.st_size;
    if (read_at(fd, &eh, sizeof eh, 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELF_CLASS || eh.e_ident[EI_DATA] != ELF_DATA ||
        eh.e_shentsize != sizeof(ElfW(Shdr)) || !same_object(lk, fd, &eh, size, info))
        return -1;
    /* The first SHT_SYMTAB, else the first SHT_DYNSYM; headers read in chunks through buf. */
    for (unsigned i = 0; i < eh.e_shnum && sym.sh_type != SHT_SYMTAB;) {
        size_t n = eh.e_shnum - i, per = BUF_BYTES / sizeof sh;
        uint64_t at = eh.e_shoff + (uint64_t)i * sizeof sh;

        n = n < per ? n : per;
        if (!fits(at, n * sizeof sh, size) || read_at(fd, lk->buf, n * sizeof sh, at) < 0)
            return -1;
        for (size_t k = 0; k < n; k++) {
            memcpy(&sh, lk->buf + k * sizeof sh, sizeof sh);
            if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !sym.sh_type)) {
                sym = sh;
                if (sh.sh_type == SHT_SYMTAB)
                    break;
            }
        }
        i += (unsigned)n;
    }
    if (!sym.sh_type || sym.sh_entsize != sizeof(ElfW(Sym)) ||
        !fits(sym.sh_offset, sym.sh_size, size) || section(fd, &eh, size, sym.sh_link, &str) < 0 ||
        str.sh_type != SHT_STRTAB || !fits(str.sh_offset, str.sh_size, size))
        return -1;
    return scan_symbols(lk, fd, sym.sh_offset, sym.sh_size, &str, info->dlpi_addr);
}

/* The span [lo, hi) of an object's loaded segments, as run-time addresses. */
NOINSTR static int span_of(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
    *lo = UINTPTR_MAX;
    *hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type != PT_LOAD)
            continue;
        *lo = a < *lo ? a : *lo;
        *hi = a + ph->p_memsz > *hi ? a + ph->p_memsz : *hi;
    }
    return *hi > *lo;
}

/* Whether [p, p + len) lies in one readable segment of the object: what may be read in
 * memory (a gap between segments is mapped with no access). */
NOINSTR static int readable(const struct dl_phdr_info *info, const void *p, uint64_t len)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && (uintptr_t)p >= a &&
            fits((uintptr_t)p - a, len, ph->p_memsz))
            return 1;
    }
    return 0;
}

/* The number of symbols of a mapped .dynsym: from DT_HASH's chain count, or the last chain of
 * DT_GNU_HASH; 0 when the tables are not where they should be. */
NOINSTR static size_t dynsym_count(struct lookup *lk, const struct dl_phdr_info *info,
                                   const uint32_t *hash, const uint32_t *gnu)
{
    const uint32_t *buckets, *chain;
    uint32_t head[4], nb, first, last = 0, w;

    if (hash)
        return mem(lk, info, head, hash, 8) == 0 ? head[1] : 0;
    if (!gnu || mem(lk, info, head, gnu, 16) < 0)
        return 0;
    nb = head[0];
    first = head[1];
    buckets = (const uint32_t *)((const ElfW(Addr) *)(gnu + 4) + head[2]);
    if (!readable(info, buckets, (uint64_t)nb * 4))
        return 0;
    for (uint32_t b = 0; b < nb; b++) {
        if (cyg_peek(&lk->pk, &w, &buckets[b], 4) < 0)
            return 0;
        last = w > last ? w : last;
    }
    if (last < first)
        return first;
    chain = buckets + nb;
    for (;; last++) { /* the last chain ends with bit 0 set */
        if (mem(lk, info, &w, &chain[last - first], 4) < 0)
            return 0;
        if (w & 1u)
            return (size_t)last + 1;
    }
}

/* A dynamic entry's address: relocated in place on most targets, not on all (RISC-V). */
NOINSTR static uintptr_t dyn_addr(const struct dl_phdr_info *info, uintptr_t v)
{
    return v < info->dlpi_addr ? v + info->dlpi_addr : v;
}

/* The names (a mask) that the string at offset at of the mapped string table [str, str +
 * strsz) is. A name that ends just before a page that cannot be read is still compared. */
NOINSTR static uint32_t mapped_names(struct lookup *lk, const char *str, size_t strsz,
                                     size_t at)
{
    char name[CYG_SYMS_NAME_MAX];
    uint32_t mask = 0;
    size_t got;
    int whole;

    if (at >= strsz)
        return 0;
    got = lk->longest + 1 < strsz - at ? lk->longest + 1 : strsz - at;
    whole = cyg_peek(&lk->pk, name, str + at, got) == 0;
    for (unsigned i = 0; i < lk->n; i++)
        if (lk->len[i] && lk->len[i] < got &&
            (whole || cyg_peek(&lk->pk, name, str + at, lk->len[i] + 1) == 0) &&
            !memcmp(name, lk->names[i], lk->len[i] + 1))
            mask |= 1u << i;
    return mask;
}

/* Looks the names up in the .dynsym the dynamic linker mapped (read through cyg_peek). */
NOINSTR static void mapped_symbols(struct lookup *lk, const struct dl_phdr_info *info)
{
    const ElfW(Dyn) *dyn = NULL;
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    const uint32_t *hash = NULL, *gnu = NULL;
    size_t ndyn = 0, strsz = 0, nsym;
    ElfW(Dyn) d;
    ElfW(Sym) s;

    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            ndyn = info->dlpi_phdr[i].p_memsz / sizeof *dyn;
        }
    if (!dyn || !readable(info, dyn, (uint64_t)ndyn * sizeof *dyn))
        return;
    for (size_t i = 0; i < ndyn; i++) {
        uintptr_t v;

        if (cyg_peek(&lk->pk, &d, &dyn[i], sizeof d) < 0 || d.d_tag == DT_NULL)
            break;
        v = d.d_un.d_ptr;
        switch (d.d_tag) {
        case DT_SYMTAB: sym = (const void *)dyn_addr(info, v); break;
        case DT_STRTAB: str = (const void *)dyn_addr(info, v); break;
        case DT_STRSZ: strsz = d.d_un.d_val; break;
        case DT_HASH: hash = (const void *)dyn_addr(info, v); break;
        case DT_GNU_HASH: gnu = (const void *)dyn_addr(info, v); break;
        case DT_SYMENT:
            if (d.d_un.d_val != sizeof *sym)
                return;
            break;
        }
    }
    if (!sym || !str || !readable(info, str, strsz))
        return;
    nsym = dynsym_count(lk, info, hash, gnu);
    if (!readable(info, sym, (uint64_t)nsym * sizeof *sym))
        return;
    for (size_t k = 0; k < nsym; k++) {
        unsigned type;

        if (cyg_peek(&lk->pk, &s, &sym[k], sizeof s) < 0)
            return;
        type = ELF64_ST_TYPE(s.st_info);
        if (s.st_name && s.st_shndx != SHN_UNDEF && s.st_value &&
            (type == STT_FUNC || type == STT_GNU_IFUNC))
            consider(lk, mapped_names(lk, str, strsz, s.st_name), &s, info->dlpi_addr);
    }
}

/* The last component of path, or all of it, into out. */
NOINSTR static void name_into(char *out, size_t len, const char *path)
{
    const char *s = strrchr(path, '/');

    out[0] = 0;
    cyg_cat(out, len, s ? s + 1 : path);
}

/* Per loaded object: its definitions of the names, merged into the hits. */
NOINSTR static int one_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct lookup *lk = arg;
    const char *path = info->dlpi_name;
    int program = lk->objects++ == 0, fd;
    uintptr_t lo, hi;

    (void)size;
    if (program)
        path = "/proc/self/exe";
    else if (!path || !strchr(path, '/')) /* the vDSO: no file, nothing instrumented */
        return 0;
    if (!span_of(info, &lo, &hi) || (!program && lk->self >= lo && lk->self < hi))
        return 0;
    for (unsigned i = 0; i < lk->n; i++) {
        lk->defs[i] = lk->ifunc[i] = 0;
        lk->bind[i] = -1;
    }
    /* O_NONBLOCK: a FIFO planted at the path must not hang the program in open. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 || file_symbols(lk, fd, info) < 0) {
        for (unsigned i = 0; i < lk->n; i++) /* a table read half way: start again */
            lk->defs[i] = lk->ifunc[i] = 0, lk->bind[i] = -1;
        mapped_symbols(lk, info);
    } else {
        /* A file whose sections lie (or a .symtab that leaves out what .dynsym has): the
         * names it did not give are looked for in the mapped .dynsym as well, cheaply. */
        for (unsigned i = 0; i < lk->n; i++)
            if (lk->len[i] && lk->bind[i] < 0) {
                mapped_symbols(lk, info);
                break;
            }
    }
    if (fd >= 0)
        close(fd);
    for (unsigned i = 0; i < lk->n; i++) {
        struct cyg_syms_hit *h = &lk->hits[i];

        h->ifunc += lk->ifunc[i];
        if (lk->bind[i] < 0)
            continue;
        h->count += lk->defs[i];
        if (!h->addr) {
            h->addr = lk->addr[i];
            h->here = lk->defs[i];
            if (program)
                cyg_cat((h->where[0] = 0, h->where), sizeof h->where, "the program");
            else
                name_into(h->where, sizeof h->where, path);
        } else if (!h->other[0]) {
            name_into(h->other, sizeof h->other, path);
        }
    }
    return 0;
}

NOINSTR unsigned cyg_syms_find(const char *const *names, unsigned n, struct cyg_syms_hit *hits)
{
    size_t bytes = (sizeof(struct lookup) + 4095u) / 4096u * 4096u + BUF_BYTES;
    struct lookup *lk;
    unsigned found = 0;

    n = n < CYG_SYMS_MAX ? n : CYG_SYMS_MAX;
    memset(hits, 0, n * sizeof *hits);
    lk = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (lk == MAP_FAILED)
        return 0;
    lk->names = names;
    lk->n = n;
    lk->hits = hits;
    lk->self = (uintptr_t)&cyg_syms_find;
    lk->buf = (char *)lk + bytes - BUF_BYTES;
    lk->pk.mem_fd = -1;
    for (unsigned i = 0; i < n; i++) {
        size_t l = strlen(names[i]);

        lk->len[i] = l < CYG_SYMS_NAME_MAX ? l : 0;
        lk->longest = lk->len[i] > lk->longest ? lk->len[i] : lk->longest;
    }
    dl_iterate_phdr(one_object, lk);
    if (lk->pk.mem_fd >= 0)
        close(lk->pk.mem_fd);
    munmap(lk, bytes);
    for (unsigned i = 0; i < n; i++)
        found += hits[i].addr != 0;
    return found;
}
