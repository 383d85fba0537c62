/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sym.c - the symbolizer: an ELF file's function symbols as a table sorted by address.
 *
 * libbfd reads the symbols, the sections and the build-id note, so any ELF works whatever the
 * host is. Two things come from the file itself: machine, class, type and entry point from the
 * ELF header (elfhdr.c: Debian's libbfd has no ARM or RISC-V backend, opens those files with
 * the generic "elf32-little"/"elf64-little" targets and calls their architecture "unknown"),
 * and symbol sizes (elfsize.c), matched to each bfd symbol by (value, name); a symbol without
 * one gets size 0 and ends at the next symbol or at the end of its section. And one fix-up:
 * the generic target leaves bit 0 (Thumb) set in an ARM function's value, where the ARM
 * backend would have cleared it, so we clear it for e_machine 40.
 */
#include "symbols/sym.h"

#include "symbols/bfdq.h"
#include "symbols/elfhdr.h"
#include "symbols/elfsize.h"
#include "symbols/vectab.h"
#include "symbols/wsig.h"
#include "util/sorted.h"

#include <bfd.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EM_ARM_ 40u     /* Thumb functions have bit 0 set in their ELF value */
#define ET_DYN_ 3u      /* PIE or shared object */
#define NT_BUILD_ID 3u  /* NT_GNU_BUILD_ID, in a note named "GNU" */
#define NOTE_MAX 65536u /* a build-id note section is ~36 bytes; refuse silly sizes */

struct sym_entry {
    struct sym_info info; /* first member: sym_lookup returns its address */
    uint64_t end;         /* lookup limit: start + size, or the next start / its section end */
    uint64_t sec_end;     /* end of its section, to bound a size-0 symbol */
    size_t outer;         /* entry among 0..this one that reaches furthest (nested symbols) */
    int rank;             /* lower is preferred when two symbols share an address */
};

/* Every named symbol, for sym_find(): functions and data alike, in symbol table order. */
struct sym_named {
    const char *name;
    uint64_t addr;
    uint64_t size;
    int global;
};

struct sym_table {
    struct sym_entry *funcs; /* sorted by start, no two at the same start */
    size_t nfuncs;
    struct sym_named *all;
    size_t nall;
    char *names; /* one arena holding every name above */
    uint8_t *build_id;
    size_t build_id_len;
    unsigned machine;
    unsigned word;
    unsigned type;
    uint64_t entry;           /* e_entry */
    sym_fallback_fn fallback; /* addresses this table does not know (other objects) */
    void *fallback_arg;
    struct vectab *vectors;   /* Cortex-M: the vector table's handlers, or NULL */
    struct wsig *wsig;        /* the wrappers' signatures (cygtrace wrap), or NULL */
};

/* Mapping symbols ($a $t $d $x...), local labels (.L...) and empty names are not names. */
static int name_usable(const char *name)
{
    return name && name[0] != '\0' && name[0] != '$' && name[0] != '.';
}

static int is_named_symbol(const asymbol *s)
{
    const asection *sec = bfd_asymbol_section(s);

    if (s->flags & (BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING | BSF_WARNING | BSF_INDIRECT))
        return 0;
    if (!sec || bfd_is_und_section(sec) || bfd_is_com_section(sec))
        return 0;
    return name_usable(bfd_asymbol_name(s));
}

/* A function in a code section. Address 0 is kept: firmware (RISC-V, Cortex-M) can link code
 * there, and an undefined symbol is already excluded by its section. */
static int is_function(const asymbol *s)
{
    const asection *sec = bfd_asymbol_section(s);

    return (s->flags & BSF_FUNCTION) && (bfd_section_flags(sec) & SEC_CODE);
}

static int bind_rank(flagword f)
{
    if (f & BSF_GLOBAL)
        return 0;
    return (f & BSF_WEAK) ? 1 : 2;
}

/* By start, then best first: global over weak over local, fewer leading underscores (malloc
 * over __libc_malloc), then by name so that the choice does not depend on the input order. */
static int entry_cmp(const void *a, const void *b)
{
    const struct sym_entry *x = a, *y = b;
    size_t ux, uy;

    if (x->info.start != y->info.start)
        return x->info.start < y->info.start ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    ux = strspn(x->info.name, "_");
    uy = strspn(y->info.name, "_");
    if (ux != uy)
        return ux < uy ? -1 : 1;
    return strcmp(x->info.name, y->info.name);
}

/* Sorts, keeps the best name at each address, and sets each entry's lookup limit. */
static void funcs_finish(struct sym_table *t)
{
    struct sym_entry *e = t->funcs;
    size_t n = 0;

    qsort(e, t->nfuncs, sizeof(*e), entry_cmp);
    for (size_t i = 0; i < t->nfuncs; i++) {
        if (n > 0 && e[n - 1].info.start == e[i].info.start) {
            if (e[n - 1].info.size == 0) /* an alias may know the size the winner lacks */
                e[n - 1].info.size = e[i].info.size;
            continue;
        }
        e[n++] = e[i];
    }
    t->nfuncs = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t start = e[i].info.start, size = e[i].info.size;

        if (size != 0) {
            e[i].end = start + size < start ? UINT64_MAX : start + size;
        } else {
            e[i].end = e[i].sec_end > start ? e[i].sec_end : start + 1;
            if (i + 1 < n && e[i + 1].info.start < e[i].end)
                e[i].end = e[i + 1].info.start;
        }
        e[i].outer = (i > 0 && e[e[i - 1].outer].end > e[i].end) ? e[i - 1].outer : i;
    }
}

/* Finds the GNU build-id note in one note section and keeps a copy; 0 when found. */
static int build_id_from(bfd *abfd, asection *sec, const struct elfhdr *h, struct sym_table *t)
{
    bfd_size_type len = bfd_section_size(sec);
    uint64_t align = bfd_section_alignment(sec) == 3 ? 8 : 4;
    uint8_t *buf;
    uint64_t off = 0;
    int ret = -1;

    if (!(bfd_section_flags(sec) & SEC_HAS_CONTENTS) || len < 12 || len > NOTE_MAX)
        return -1;
    buf = malloc(len);
    if (!buf || !bfd_get_section_contents(abfd, sec, buf, 0, len))
        goto out;
    while (len - off >= 12) {
        uint64_t namesz = elfhdr_get(h, buf + off, 4);
        uint64_t descsz = elfhdr_get(h, buf + off + 4, 4);
        uint64_t type = elfhdr_get(h, buf + off + 8, 4);
        uint64_t name_at = off + 12;
        uint64_t desc_at = name_at + ((namesz + align - 1) & ~(align - 1));

        if (desc_at > len || descsz > len - desc_at)
            break;
        if (type == NT_BUILD_ID && namesz == 4 && memcmp(buf + name_at, "GNU", 4) == 0 &&
            descsz > 0) {
            t->build_id = malloc(descsz);
            if (t->build_id) {
                memcpy(t->build_id, buf + desc_at, descsz);
                t->build_id_len = descsz;
                ret = 0;
            }
            break;
        }
        off = desc_at + ((descsz + align - 1) & ~(align - 1));
    }
out:
    free(buf);
    return ret;
}

/* The wrappers' signature table (.cygtrace_wrap, cygtrace wrap), if the image has one. A
 * table that cannot be read is no table: the calls still show their values, unnamed. */
#define WSIG_SECTION_MAX (4u << 20)

static void wsig_read(bfd *abfd, struct sym_table *t)
{
    asection *sec = bfd_get_section_by_name(abfd, WSIG_SECTION);
    bfd_size_type len = sec ? bfd_section_size(sec) : 0;
    char *buf;

    if (!sec || !(bfd_section_flags(sec) & SEC_HAS_CONTENTS) || len == 0 ||
        len > WSIG_SECTION_MAX || !(buf = malloc(len)))
        return;
    if (bfd_get_section_contents(abfd, sec, buf, 0, len))
        t->wsig = wsig_parse(buf, len);
    free(buf);
}

/* The build-id lives in .note.gnu.build-id unless a linker script merged notes elsewhere. */
static void build_id_read(bfd *abfd, const struct elfhdr *h, struct sym_table *t)
{
    asection *sec = bfd_get_section_by_name(abfd, ".note.gnu.build-id");

    if (sec && build_id_from(abfd, sec, h, t) == 0)
        return;
    for (sec = abfd->sections; sec; sec = sec->next)
        if (strncmp(bfd_section_name(sec), ".note", 5) == 0 && build_id_from(abfd, sec, h, t) == 0)
            return;
}

/* Reads the static symbol table, or the dynamic one when there is none (a stripped shared
 * object still has .dynsym). Returns the count, -1 on a read error. */
static long symbols_read(bfd *abfd, asymbol ***out)
{
    long ub, n = 0;

    *out = NULL;
    ub = bfd_get_symtab_upper_bound(abfd);
    if (ub > 0) {
        if (!(*out = malloc(ub)))
            return -1;
        n = bfd_canonicalize_symtab(abfd, *out);
    }
    if (n > 0)
        return n;
    free(*out);
    *out = NULL;
    ub = bfd_get_dynamic_symtab_upper_bound(abfd);
    if (ub <= 0)
        return n < 0 ? -1 : 0;
    if (!(*out = malloc(ub)))
        return -1;
    return bfd_canonicalize_dynamic_symtab(abfd, *out);
}

/* Adds symbol s to t's name list and, when it is a function, to the function table; its
 * name is copied to *arena, which advances. */
static void table_add(struct sym_table *t, const asymbol *s, char **arena,
                      const struct elfhdr *h, const struct elfsize *sizes)
{
    const char *name = bfd_asymbol_name(s);
    const asection *sec = bfd_asymbol_section(s);
    struct sym_named *a = &t->all[t->nall++];
    struct sym_entry *e;
    size_t len = strlen(name) + 1;

    memcpy(*arena, name, len);
    a->name = *arena;
    *arena += len;
    a->addr = bfd_asymbol_value(s);
    a->size = elfsize_of(sizes, a->addr, name);
    a->global = (s->flags & (BSF_GLOBAL | BSF_WEAK)) != 0;
    if (!is_function(s))
        return;
    if (h->machine == EM_ARM_)
        a->addr &= ~(uint64_t)1;
    e = &t->funcs[t->nfuncs++];
    e->info.name = a->name;
    e->info.start = a->addr;
    e->info.size = a->size;
    e->sec_end = bfd_section_vma(sec) + bfd_section_size(sec);
    e->rank = bind_rank(s->flags);
}

/* Fills t's tables from bfd's symbols; names go to one arena so that bfd can be closed.
 * Leaves t->nfuncs at 0 when there is no function symbol. */
static int table_fill(struct sym_table *t, asymbol **syms, long n, const struct elfhdr *h,
                      const struct elfsize *sizes)
{
    size_t nall = 0, nfunc = 0, bytes = 0;
    char *arena;

    for (long i = 0; i < n; i++) {
        if (!is_named_symbol(syms[i]))
            continue;
        nall++;
        nfunc += is_function(syms[i]);
        bytes += strlen(bfd_asymbol_name(syms[i])) + 1;
    }
    if (nfunc == 0)
        return 0;
    t->all = malloc(nall * sizeof(*t->all));
    t->funcs = malloc(nfunc * sizeof(*t->funcs));
    t->names = arena = malloc(bytes);
    if (!t->all || !t->funcs || !t->names)
        return -1;
    for (long i = 0; i < n; i++)
        if (is_named_symbol(syms[i]))
            table_add(t, syms[i], &arena, h, sizes);
    funcs_finish(t);
    return 0;
}

unsigned sym_exception(const struct sym_table *t, uint64_t start)
{
    return t ? vectab_exception(t->vectors, start) : 0;
}

struct sym_table *sym_open(const char *path, char *err, size_t errlen)
{
    struct sym_table *t = NULL;
    struct elfsize *sizes = NULL;
    asymbol **syms = NULL;
    struct elfhdr h;
    struct stat st;
    char hwhy[64];
    const char *why = NULL;
    bfd *abfd = NULL;
    long n;
    int fd;

    /* O_NONBLOCK: a FIFO given by mistake must not hang the open */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        why = strerror(errno);
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        why = strerror(EISDIR);
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        why = "not an ELF file";
        goto out;
    }
    if (elfhdr_read(fd, (uint64_t)st.st_size, &h, hwhy, sizeof hwhy) < 0) {
        why = hwhy;
        goto out;
    }
    if (bfdq_ready() < 0) {
        why = "libbfd version mismatch";
        goto out;
    }
    abfd = bfd_openr(path, NULL);
    if (!abfd) {
        why = bfd_errmsg(bfd_get_error());
        goto out;
    }
    if (!bfdq_check_format(abfd, bfd_object) || bfd_get_flavour(abfd) != bfd_target_elf_flavour) {
        why = "not an ELF file";
        goto out;
    }
    n = symbols_read(abfd, &syms);
    if (n < 0) {
        why = "cannot read the symbol table (corrupt ELF?)";
        goto out;
    }
    sizes = elfsize_load(fd, (uint64_t)st.st_size, &h);
    t = calloc(1, sizeof(*t));
    if (!t || table_fill(t, syms, n, &h, sizes) < 0) {
        why = strerror(ENOMEM);
        goto out;
    }
    if (t->nfuncs == 0) {
        why = "no function symbols (stripped?)";
        goto out;
    }
    t->machine = h.machine;
    t->word = h.is64 ? 8 : 4;
    t->type = h.type;
    t->entry = h.entry;
    build_id_read(abfd, &h, t);
    wsig_read(abfd, t);
    if (h.machine == EM_ARM_ && !h.is64)
        t->vectors = vectab_read(abfd, t);
out:
    if (why) {
        if (err && errlen)
            snprintf(err, errlen, "%s", why);
        sym_close(t);
        t = NULL;
    }
    elfsize_free(sizes);
    free(syms);
    if (abfd)
        bfd_close(abfd);
    if (fd >= 0)
        close(fd);
    return t;
}

void sym_close(struct sym_table *t)
{
    if (!t)
        return;
    free(t->funcs);
    free(t->all);
    free(t->names);
    free(t->build_id);
    wsig_free(t->wsig);
    vectab_free(t->vectors);
    free(t);
}

static const struct sym_info *lookup_own(const struct sym_table *t, uint64_t addr)
{
    size_t lo = sorted_upto(t->funcs, t->nfuncs, sizeof *t->funcs,
                            offsetof(struct sym_entry, info.start), addr);
    const struct sym_entry *e;

    if (lo == 0)
        return NULL;
    e = &t->funcs[lo - 1];
    if (addr < e->end)
        return &e->info;
    /* past its end but maybe inside an enclosing symbol (a label typed as a function) */
    e = &t->funcs[e->outer];
    return addr < e->end ? &e->info : NULL;
}

const struct sym_info *sym_lookup(const struct sym_table *t, uint64_t addr)
{
    const struct sym_info *s = lookup_own(t, addr);

    return s || !t->fallback ? s : t->fallback(t->fallback_arg, addr);
}

const struct sym_info *sym_func_at(const struct sym_table *t, uint64_t addr)
{
    const struct sym_info *s;

    if (t->machine == EM_ARM_)
        addr &= ~(uint64_t)1;
    s = sym_lookup(t, addr);
    return s && s->start == addr ? s : NULL;
}

void sym_set_fallback(struct sym_table *t, sym_fallback_fn fn, void *arg)
{
    t->fallback = fn;
    t->fallback_arg = arg;
}

/* O(N) over every named symbol: it runs a few times per file (the control block, a handful of
 * well-known names), so a second, name-sorted index is not worth its memory. A global wins over
 * a local of the same name (two files may each have a static with that name). */
int sym_find(const struct sym_table *t, const char *name, uint64_t *addr, uint64_t *size)
{
    const struct sym_named *hit = NULL;

    for (size_t i = 0; i < t->nall; i++) {
        if (strcmp(t->all[i].name, name) != 0)
            continue;
        if (!hit || (t->all[i].global && !hit->global))
            hit = &t->all[i];
        if (hit->global)
            break;
    }
    if (!hit)
        return -1;
    if (addr)
        *addr = hit->addr;
    if (size)
        *size = hit->size;
    return 0;
}

const char *sym_data_at(const struct sym_table *t, uint64_t addr)
{
    const struct sym_named *hit = NULL;

    if (!t || !addr)
        return NULL;
    for (size_t i = 0; i < t->nall; i++)
        if (t->all[i].addr == addr && t->all[i].size && (!hit || (t->all[i].global && !hit->global)))
            hit = &t->all[i];
    if (!hit || sym_func_at(t, addr))
        return NULL;
    return hit->name;
}

size_t sym_count(const struct sym_table *t)
{
    return t->nfuncs;
}

unsigned sym_machine(const struct sym_table *t)
{
    return t->machine;
}

unsigned sym_word_bytes(const struct sym_table *t)
{
    return t->word;
}

int sym_is_pie(const struct sym_table *t)
{
    return t->type == ET_DYN_;
}

uint64_t sym_entry(const struct sym_table *t)
{
    return t->entry;
}

size_t sym_build_id(const struct sym_table *t, const uint8_t **id)
{
    *id = t->build_id;
    return t->build_id_len;
}

int sym_build_id_match(const struct sym_table *t, const uint8_t *id, size_t len)
{
    if (!t->build_id_len || !len)
        return -1;
    return t->build_id_len == len && !memcmp(t->build_id, id, len);
}

const struct wsig *sym_wsig(const struct sym_table *t)
{
    return t ? t->wsig : NULL;
}

const struct wsig_fn *sym_wrapped_sig(const struct sym_table *t, uint64_t addr)
{
    const struct sym_info *s = t ? sym_lookup(t, addr) : NULL;

    return s ? wsig_find(t->wsig, wsig_wrapped_name(s->name)) : NULL;
}
