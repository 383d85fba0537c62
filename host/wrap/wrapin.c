/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wrapin.c - what an input of cygtrace wrap defines, and its DWARF. */
#include "wrap/wrapin.h"

#include <bfd.h>
#include <errno.h>
#include <fcntl.h>
#include <libdwarf/libdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/bfdq.h"
#include "symbols/dwdie.h"
#include "symbols/elfrel.h"
#include "wrap/wrapdw.h"

#define MEMBER_MAX (1ull << 31) /* an object bigger than this is not read into memory */

/* One object of an input: the file itself, or a member of it. */
struct obj {
    bfd *abfd;
    const char *path;         /* the input */
    char where[300];          /* "member vend.o", or "the input": for messages */
    char pfx[304];            /* "member vend.o: " or "": for errors, which name the input anyway */
    struct wrapgen_set *defs; /* the functions it defines that are wanted: names only */
    wrapin_want_fn want;
    void *arg;
    size_t defined;
};

/* ---- symbols ---- */

static int is_identifier(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

static int defines_function(const asymbol *s)
{
    const asection *sec = bfd_asymbol_section(s);

    return (s->flags & BSF_FUNCTION) && (s->flags & (BSF_GLOBAL | BSF_WEAK | BSF_GNU_UNIQUE)) &&
           sec && !bfd_is_und_section(sec) && !bfd_is_com_section(sec);
}

/* A defined function's name into o->defs when wanted: a dynamic symbol's version dropped
 * ("open@@GLIBC_2.2.5" is open), an old version ("open@GLIBC_2.0": hidden, no new link can
 * reach it) left out, and so is a name that no C code can call, which the compiler made
 * (__x86.get_pc_thunk.bx, f.cold). 0, or -1 out of memory. */
static int add_name(struct obj *o, asymbol *sym)
{
    const char *name = bfd_asymbol_name(sym), *at = strchr(name, '@');
    bool hidden = false;
    struct wrapgen_fn fn;
    char *n;

    if (bfd_get_file_flags(o->abfd) & DYNAMIC)
        bfd_get_symbol_version_string(o->abfd, sym, false, &hidden);
    if (hidden || (at && at[1] != '@'))
        return 0;
    if (!(n = wrapgen_strndup(o->defs, name, at ? (size_t)(at - name) : strlen(name))))
        return -1;
    if (!is_identifier(n))
        return 0;
    o->defined++;
    if (!o->want(o->arg, n))
        return 0;
    memset(&fn, 0, sizeof fn);
    fn.name = n;
    return wrapgen_set_add(o->defs, &fn) < 0 ? -1 : 0;
}

/* The object's symbols (a shared library's dynamic ones) into o->defs. */
static int read_names(struct obj *o, char *err, size_t errlen)
{
    int dyn = (bfd_get_file_flags(o->abfd) & DYNAMIC) != 0;
    long ub =
        dyn ? bfd_get_dynamic_symtab_upper_bound(o->abfd) : bfd_get_symtab_upper_bound(o->abfd);
    asymbol **syms;
    long n;
    int rc = 0;

    if (ub <= 0)
        return 0; /* no symbols: it defines nothing */
    if (!(syms = malloc((size_t)ub))) {
        snprintf(err, errlen, "%sout of memory", o->pfx);
        return -1;
    }
    n = dyn ? bfd_canonicalize_dynamic_symtab(o->abfd, syms)
            : bfd_canonicalize_symtab(o->abfd, syms);
    if (n < 0) {
        snprintf(err, errlen, "%scannot read the symbols: %s", o->pfx, bfd_errmsg(bfd_get_error()));
        rc = -1;
    }
    for (long i = 0; i < n && !rc; i++)
        if (defines_function(syms[i]) && add_name(o, syms[i]) < 0) {
            snprintf(err, errlen, "%sout of memory", o->pfx);
            rc = -1;
        }
    free(syms);
    return rc;
}

/* ---- DWARF ---- */

static int want_defined(void *arg, const char *name)
{
    return wrapgen_set_find(((struct obj *)arg)->defs, name) != NULL;
}

/* The object's bytes: an archive member is read through bfd, which knows where it lies. */
static void *obj_bytes(struct obj *o, size_t *len)
{
    ufile_ptr size = bfd_get_file_size(o->abfd);
    void *buf;

    if (size == 0 || size > MEMBER_MAX || !(buf = malloc(size)))
        return NULL;
    if (bfd_seek(o->abfd, 0, SEEK_SET) != 0 || bfd_bread(buf, size, o->abfd) != size) {
        free(buf);
        return NULL;
    }
    *len = size;
    return buf;
}

/* The signatures of the functions in o->defs, into sigs; NULL, or why there is no DWARF to
 * read them from. *oom on out of memory. */
static const char *read_dwarf(struct obj *o, struct wrapgen_set *sigs, char *why, size_t whylen,
                              int *oom)
{
    struct elfrel *e;
    Dwarf_Debug dbg = NULL;
    void *buf;
    size_t len;
    int ok, units;

    /* A shared library too, not through dwarf_init_path: libdwarf 20210528, once it read a
     * file itself, then takes an object served through dwarf_object_init_b for one of its own
     * (reads past it, and crashed: a .so then a .o, found by tests/fuzz/fuzz_wrap's seeds). */
    if ((bfd_get_file_flags(o->abfd) & DYNAMIC) && o->abfd->my_archive)
        return "a shared library inside an archive";
    if (!(buf = obj_bytes(o, &len)))
        return "cannot be read into memory";
    if (!(e = elfrel_open(buf, len, why, whylen)))
        return why;
    ok = elfrel_dwarf(e, &dbg, why, whylen) == 0; /* either way, what is said is "no DWARF" */
    units = ok ? wrapdw_read(dbg, sigs, want_defined, o) : 0;
    *oom = units < 0;
    elfrel_close(e);
    return units > 0 ? NULL : "no DWARF";
}

/* What a function the DWARF did not describe gets. */
static int add_unknown(struct wrapgen_set *sigs, const struct wrapgen_fn *def, const char *where,
                       const char *nodw)
{
    struct wrapgen_fn fn;

    memset(&fn, 0, sizeof fn);
    fn.name = wrapgen_strdup(sigs, def->name);
    if (nodw)
        fn.skip = wrapgen_printf(sigs,
                                 "no signature (%s: %s); build it with -g, or give its "
                                 "prototype with --signatures",
                                 where, nodw);
    else
        fn.skip = wrapgen_printf(sigs,
                                 "no signature (the DWARF of %s does not describe it); "
                                 "give its prototype with --signatures",
                                 where);
    return fn.name && fn.skip && wrapgen_set_add(sigs, &fn) >= 0 ? 0 : -1;
}

/* One object: its functions, then their signatures. */
static int read_obj(struct obj *o, struct wrapgen_set *sigs, char *err, size_t errlen)
{
    char why[256];
    const char *nodw = NULL;
    int oom = 0, rc = 0;

    if (!(o->defs = wrapgen_set_new())) {
        snprintf(err, errlen, "%sout of memory", o->pfx);
        return -1;
    }
    if (read_names(o, err, errlen) < 0) {
        wrapgen_set_free(o->defs);
        return -1;
    }
    if (wrapgen_set_count(o->defs))
        nodw = read_dwarf(o, sigs, why, sizeof why, &oom);
    for (size_t i = 0; i < wrapgen_set_count(o->defs) && !oom; i++) {
        const struct wrapgen_fn *def = wrapgen_set_at(o->defs, i);

        if (!wrapgen_set_find(sigs, def->name) && add_unknown(sigs, def, o->where, nodw) < 0)
            oom = 1;
    }
    if (oom) {
        snprintf(err, errlen, "%sout of memory", o->pfx);
        rc = -1;
    }
    wrapgen_set_free(o->defs);
    o->defs = NULL;
    return rc;
}

/* ---- inputs ---- */

static int read_archive(struct obj *o, bfd *ar, struct wrapgen_set *sigs, char *err, size_t errlen)
{
    bfd *m = NULL;

    while ((m = bfd_openr_next_archived_file(ar, m))) {
        snprintf(o->where, sizeof o->where, "member %.200s", bfd_get_filename(m));
        snprintf(o->pfx, sizeof o->pfx, "%s: ", o->where);
        if (!bfdq_check_format(m, bfd_object) || bfd_get_flavour(m) != bfd_target_elf_flavour) {
            snprintf(err, errlen, "%snot an ELF object", o->pfx);
            return -1;
        }
        o->abfd = m;
        if (read_obj(o, sigs, err, errlen) < 0)
            return -1;
    }
    if (bfd_get_error() != bfd_error_no_more_archived_files) {
        snprintf(err, errlen, "cannot read the archive: %s", bfd_errmsg(bfd_get_error()));
        return -1;
    }
    return 0;
}

int wrapin_read(const char *path, wrapin_want_fn want, void *arg, struct wrapgen_set *sigs,
                size_t *defined, char *err, size_t errlen)
{
    struct obj o = {.path = path, .want = want, .arg = arg};
    struct stat st;
    bfd *abfd;
    int rc = -1;

    *defined = 0;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular file");
        return -1;
    }
    if (bfdq_ready() < 0 || !(abfd = bfd_openr(path, NULL))) {
        snprintf(err, errlen, "%s", bfd_errmsg(bfd_get_error()));
        return -1;
    }
    snprintf(o.where, sizeof o.where, "the input");
    if (bfdq_check_format(abfd, bfd_archive)) {
        rc = read_archive(&o, abfd, sigs, err, errlen);
    } else if (!bfdq_check_format(abfd, bfd_object) ||
               bfd_get_flavour(abfd) != bfd_target_elf_flavour) {
        snprintf(err, errlen, "not an ELF object, static library or shared library");
    } else if ((bfd_get_file_flags(abfd) & (EXEC_P | DYNAMIC)) == EXEC_P) {
        snprintf(err, errlen,
                 "an executable; wrap takes a static library, an object or a "
                 "shared library");
    } else {
        o.abfd = abfd;
        rc = read_obj(&o, sigs, err, errlen);
    }
    *defined = o.defined;
    bfd_close(abfd);
    return rc;
}
