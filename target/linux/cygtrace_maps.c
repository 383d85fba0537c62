/* SPDX-License-Identifier: MIT */
/* cygtrace_maps.c - RING.maps: where each loaded object sits (the program, its shared
 * libraries, what dlopen brings in later), so that the host names a library's functions
 * (docs/FORMAT.md section 12); and whether any loaded object calls the hooks at all.
 *
 * The map's descriptor is never kept: each write opens the file, checks that it is still the
 * one this process created (a daemon that closed every fd and opened its own files must never
 * get our lines), appends and closes. The objects' notes, dynamic sections, relocations and
 * names are read through cyg_peek, never in place: a segment may run past the end of its file,
 * where a read raises SIGBUS.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cygtrace_linux.h"

#define MAX_OBJECTS 1024u /* objects whose map line is written; more are not named */

static char maps_path[PATH_MAX + 8]; /* "" until this process has a map */
static dev_t maps_dev;
static ino_t maps_ino;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t maps_known[MAX_OBJECTS]; /* start ^ name hash of each object written */
static unsigned maps_nknown;

/* Writes all of s to fd; a short write of a regular file only happens when the disk is full,
 * and then the map is incomplete, which the host survives (addresses stay unnamed). */
NOINSTR static void put(int fd, const char *s, size_t len)
{
    while (len) {
        ssize_t n = write(fd, s, len);

        if (n <= 0 && errno != EINTR)
            return;
        if (n > 0) {
            s += n;
            len -= (size_t)n;
        }
    }
}

/* Copies an object's GNU build-id (at most CYG_BUILD_ID_MAX bytes) into id; returns its
 * length, 0 when it has none or its notes cannot be read. */
NOINSTR static size_t build_id_of(struct cyg_peek *pk, const struct dl_phdr_info *info,
                                  uint8_t *id)
{
    for (int i = 0; pk && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t p = info->dlpi_addr + ph->p_vaddr, end = p + ph->p_memsz;

        if (ph->p_type != PT_NOTE)
            continue;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) n;
            char name[4];
            uintptr_t desc;

            if (cyg_peek(pk, &n, (const void *)p, sizeof n) < 0)
                break;
            desc = p + sizeof n + ((n.n_namesz + 3u) & ~(uintptr_t)3u);
            if (desc < p || n.n_descsz > end - desc || desc > end)
                break;
            if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
                cyg_peek(pk, name, (const void *)(p + sizeof n), 4) == 0 &&
                !memcmp(name, "GNU", 4)) {
                size_t len = n.n_descsz < CYG_BUILD_ID_MAX ? n.n_descsz : CYG_BUILD_ID_MAX;

                return cyg_peek(pk, id, (const void *)desc, len) == 0 ? len : 0;
            }
            p = desc + ((n.n_descsz + 3u) & ~(uintptr_t)3u);
        }
    }
    return 0;
}

/* The span [lo, hi) of an object's loaded segments, as link-time addresses. */
NOINSTR static int span_of(const struct dl_phdr_info *info, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD)
            continue;
        *lo = ph->p_vaddr < *lo ? ph->p_vaddr : *lo;
        *hi = ph->p_vaddr + ph->p_memsz > *hi ? ph->p_vaddr + ph->p_memsz : *hi;
    }
    return *hi > *lo;
}

static uint8_t image_id[CYG_BUILD_ID_MAX]; /* the program's build-id, copied */

struct image {
    uint64_t bias;
    size_t id_len;
    struct cyg_peek *pk;
};

/* The first object dl_iterate_phdr reports is the program itself. */
NOINSTR static int find_image(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct image *im = arg;

    (void)size;
    im->bias = info->dlpi_addr;
    im->id_len = build_id_of(im->pk, info, image_id);
    return 1;
}

/* The first object is the program: is *arg (a link-time address) in its code? */
NOINSTR static int in_code(struct dl_phdr_info *info, size_t size, void *arg)
{
    uint64_t a = *(uint64_t *)arg;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && a >= ph->p_vaddr &&
            a - ph->p_vaddr < ph->p_memsz)
            return 2;
    }
    return 1;
}

NOINSTR int cyg_maps_in_code(uint64_t addr)
{
    return dl_iterate_phdr(in_code, &addr) == 2;
}

NOINSTR size_t cyg_maps_image(uint64_t *bias, const uint8_t **id)
{
    struct image im = {0};

    im.pk = cyg_peek_new();
    dl_iterate_phdr(find_image, &im);
    cyg_peek_free(im.pk);
    *bias = im.bias;
    *id = im.id_len ? image_id : NULL;
    return im.id_len;
}

/* A dynamic section's address: glibc relocates the entries in place on most targets, not on
 * all (RISC-V keeps them read-only); a value below the object's base is still a link-time
 * one. */
NOINSTR static uintptr_t dyn_addr(const struct dl_phdr_info *info, uintptr_t v)
{
    return v < info->dlpi_addr ? v + info->dlpi_addr : v;
}

/* Whether one of n relocations (RELA when rela, else REL) at tab names the enter hook. */
NOINSTR static int relocs_name_hook(struct cyg_peek *pk, const void *tab, size_t bytes, int rela,
                                    const ElfW(Sym) *sym, const char *str)
{
    static const char hook[] = "__cyg_profile_func_enter";
    size_t ent = rela ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
    char name[sizeof hook];
    ElfW(Rel) r;
    ElfW(Sym) s;

    for (size_t off = 0; tab && off + ent <= bytes; off += ent) {
        size_t k;

        /* r_info at the same place in both */
        if (cyg_peek(pk, &r, (const char *)tab + off, sizeof r) < 0)
            return 0;
        k = sizeof(void *) == 8 ? ELF64_R_SYM(r.r_info) : ELF32_R_SYM(r.r_info);
        if (k && cyg_peek(pk, &s, &sym[k], sizeof s) == 0 && s.st_shndx == SHN_UNDEF &&
            cyg_peek(pk, name, str + s.st_name, sizeof name) == 0 &&
            !memcmp(name, hook, sizeof hook))
            return 1;
    }
    return 0;
}

struct hooks_ask {
    int first;            /* the next object is the program */
    struct cyg_peek *pk;
};

/* Per object: 1 (stop) when it calls the hooks, or when it is the program and holds this
 * runtime (linked with libcygtrace.a). */
NOINSTR static int calls_hooks(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct hooks_ask *ask = arg;
    int *first = &ask->first;
    const ElfW(Dyn) *dyn = NULL;
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    const void *rel = NULL, *jmp = NULL;
    size_t relsz = 0, jmpsz = 0;
    int rela = 0, jmp_rela = 0, is_program = *first;
    uint64_t lo, hi, self = (uintptr_t)&cyg_maps_instrumented - info->dlpi_addr;

    (void)size;
    *first = 0;
    if (is_program && span_of(info, &lo, &hi) && self >= lo && self < hi)
        return 1;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (ElfW(Dyn) d; dyn && cyg_peek(ask->pk, &d, dyn, sizeof d) == 0 && d.d_tag != DT_NULL;
         dyn++) {
        uintptr_t v = d.d_un.d_ptr;

        switch (d.d_tag) {
        case DT_SYMTAB: sym = (const void *)dyn_addr(info, v); break;
        case DT_STRTAB: str = (const void *)dyn_addr(info, v); break;
        case DT_RELA: rel = (const void *)dyn_addr(info, v); rela = 1; break;
        case DT_RELASZ: relsz = v; break;
        case DT_REL: rel = (const void *)dyn_addr(info, v); rela = 0; break;
        case DT_RELSZ: relsz = v; break;
        case DT_JMPREL: jmp = (const void *)dyn_addr(info, v); break;
        case DT_PLTRELSZ: jmpsz = v; break;
        case DT_PLTREL: jmp_rela = v == DT_RELA; break;
        }
    }
    if (!sym || !str)
        return 0;
    return relocs_name_hook(ask->pk, rel, relsz, rela, sym, str) ||
           relocs_name_hook(ask->pk, jmp, jmpsz, jmp_rela, sym, str);
}

NOINSTR int cyg_maps_instrumented(void)
{
    struct hooks_ask ask = {1, cyg_peek_new()};
    int found;

    if (!ask.pk)
        return 0;
    found = dl_iterate_phdr(calls_hooks, &ask);
    cyg_peek_free(ask.pk);
    return found;
}

/* One "object" line per loaded object not written yet: where its segments sit, its bias
 * (run-time minus link-time address), build-id and path. The first object is the program;
 * objects without a file (the vDSO) are left out. Called with maps_lock held. */
struct object_out {
    int fd;
    struct cyg_peek *pk;
};

NOINSTR static int write_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    /* Static: called with maps_lock held; an escaped path may take four times its bytes. */
    static char line[4 * PATH_MAX + 160];
    const struct object_out *out = arg;
    int fd = out->fd;
    const char *name = info->dlpi_name;
    char path[PATH_MAX], hex[2 * CYG_BUILD_ID_MAX + 1] = "-";
    uint64_t lo, hi, key;
    uint8_t id[CYG_BUILD_ID_MAX];
    size_t n;

    (void)size;
    if (maps_nknown == 0 && (!name || !*name)) {
        ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);

        if (len <= 0)
            return 0;
        path[len] = 0;
    } else if (!name || !strchr(name, '/') || !realpath(name, path)) {
        return 0;
    }
    if (!span_of(info, &lo, &hi))
        return 0;
    key = info->dlpi_addr + lo;
    for (const char *c = path; *c; c++)
        key = key * 31u + (unsigned char)*c;
    for (unsigned i = 0; i < maps_nknown; i++)
        if (maps_known[i] == key)
            return 0;
    if (maps_nknown == MAX_OBJECTS)
        return 0;
    maps_known[maps_nknown++] = key;
    n = build_id_of(out->pk, info, id);
    for (size_t i = 0; i < n && i < CYG_BUILD_ID_MAX; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
    snprintf(line, sizeof line, "object %llx %llx %llx %s ",
             (unsigned long long)(info->dlpi_addr + lo), (unsigned long long)(info->dlpi_addr + hi),
             (unsigned long long)info->dlpi_addr, hex);
    /* Escaped: a path may hold a newline, which would start a line of its own. */
    cyg_cat(cyg_cat_escaped(line, sizeof line - 1, path), sizeof line, "\n");
    put(fd, line, strlen(line)); /* one write: a thread line never lands inside it */
    return 0;
}

/* Copies the "object" lines of the parent's map (the same objects sit at the same places in a
 * forked child), with system calls only. */
NOINSTR static void copy_objects(int to, const char *from)
{
    char buf[4096], line[PATH_MAX + 160];
    size_t len = 0;
    int skip = 0, fd = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    ssize_t n;

    if (fd < 0)
        return;
    while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                if (len + 1 < sizeof line)
                    line[len++] = buf[i];
                else
                    skip = 1; /* longer than any line we write: not ours to copy */
                continue;
            }
            line[len++] = '\n';
            if (!skip && len > 7 && !memcmp(line, "object ", 7))
                put(to, line, len);
            len = 0;
            skip = 0;
        }
    }
    close(fd);
}

NOINSTR int cyg_maps_start(const char *path, const char *process_line, const char *copy_from)
{
    struct stat st;
    int fd;

    cyg_cat(cyg_cat((maps_path[0] = 0, maps_path), sizeof maps_path, path), sizeof maps_path,
            ".maps");
    fd = cyg_file_open_private(maps_path, O_WRONLY | O_APPEND,
                               "the trace's libraries go unnamed");
    if (fd < 0 || fstat(fd, &st) != 0 || ftruncate(fd, 0) != 0) {
        if (fd >= 0)
            close(fd);
        maps_path[0] = 0;
        return -1;
    }
    maps_dev = st.st_dev;
    maps_ino = st.st_ino;
    put(fd, "cygtrace-maps 1\n", 16);
    put(fd, process_line, strlen(process_line));
    if (copy_from) {
        copy_objects(fd, copy_from);
        close(fd);
        return 0;
    }
    close(fd);
    maps_nknown = 0;
    cyg_maps_refresh();
    return 0;
}

NOINSTR void cyg_maps_refresh(void)
{
    struct object_out out;

    pthread_mutex_lock(&maps_lock);
    if (maps_path[0] && (out.fd = cyg_file_reopen(maps_path, maps_dev, maps_ino)) >= 0) {
        out.pk = cyg_peek_new(); /* NULL: the lines go without build-ids */
        dl_iterate_phdr(write_object, &out);
        cyg_peek_free(out.pk);
        close(out.fd);
    }
    pthread_mutex_unlock(&maps_lock);
}

NOINSTR void cyg_maps_thread(unsigned index, long tid, int vfork)
{
    char line[64] = "thread ";
    int fd;

    /* No lock: one short O_APPEND write does not mix with another's. */
    if (!maps_path[0] || (fd = cyg_file_reopen(maps_path, maps_dev, maps_ino)) < 0)
        return;
    cyg_cat_ulong(line, sizeof line, index);
    cyg_cat(line, sizeof line, " ");
    cyg_cat_ulong(line, sizeof line, (unsigned long)tid);
    cyg_cat(line, sizeof line, vfork ? " vfork\n" : "\n");
    put(fd, line, strlen(line));
    close(fd);
}

NOINSTR void cyg_maps_clock(uint64_t ticks, uint64_t ns)
{
    char line[64] = "clock ", digits[2][24];
    int fd;

    if (!maps_path[0] || (fd = cyg_file_reopen(maps_path, maps_dev, maps_ino)) < 0)
        return;
    for (int k = 0; k < 2; k++) { /* decimal, 64 bits on every target (unsigned long is not) */
        uint64_t v = k ? ns : ticks;
        size_t i = sizeof digits[k] - 1;

        digits[k][i] = 0;
        do
            digits[k][--i] = (char)('0' + v % 10);
        while ((v /= 10) && i);
        cyg_cat(line, sizeof line, digits[k] + i);
        cyg_cat(line, sizeof line, k ? "\n" : " ");
    }
    put(fd, line, strlen(line));
    close(fd);
}

NOINSTR void cyg_maps_append_to(const char *path, const char *line)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
        put(fd, line, strlen(line));
    close(fd);
}

NOINSTR void cyg_maps_forget(void)
{
    maps_path[0] = 0;
    pthread_mutex_init(&maps_lock, NULL);
}
