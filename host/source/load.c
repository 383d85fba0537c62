/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load.c - the ELF and the dump, opened and checked against each other. */
#include "source/load.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cyg_format.h"

void load_hex(const uint8_t *id, size_t len, char *buf, size_t buflen)
{
    size_t o = 0;

    buf[0] = 0;
    for (size_t i = 0; i < len && o + 3 <= buflen; i++)
        o += (size_t)snprintf(buf + o, buflen - o, "%02x", id[i]);
}

/* Where the trace says the image was loaded, against what the ELF allows: a program that is
 * not position-independent runs where it was linked, one that is runs at a page boundary, and
 * a firmware's control block is its cygtrace_buffer. 0, or -1 with the reason in err. */
static int check_address(const struct load *l, const char *elf, const char *dump, char *err,
                         size_t errlen)
{
    const struct dec_ring *r = &l->ring;
    uint64_t buf;

    if (!sym_is_pie(l->sym) && r->load_bias) {
        snprintf(err, errlen, "%s: %s was recorded with a load bias of 0x%" PRIx64 " (a "
                 "position-independent program), but this ELF is not position-independent: "
                 "not the traced program; use --force to decode anyway", elf, dump,
                 r->load_bias);
        return -1;
    }
    if (sym_is_pie(l->sym) && r->load_bias % 4096) {
        snprintf(err, errlen, "%s: %s was recorded with a load bias of 0x%" PRIx64 ", which no "
                 "loader gives (not page-aligned): not the traced program; use --force to "
                 "decode anyway", elf, dump, r->load_bias);
        return -1;
    }
    if (!l->stream && r->ctl_addr && sym_find(l->sym, "cygtrace_buffer", &buf, NULL) == 0 &&
        r->ctl_addr != buf + r->load_bias) {
        snprintf(err, errlen, "%s: the control block of %s lives at 0x%" PRIx64 " but this "
                 "ELF's cygtrace_buffer is at 0x%" PRIx64 ": not the traced program; use "
                 "--force to decode anyway", elf, dump, r->ctl_addr, buf + r->load_bias);
        return -1;
    }
    return 0;
}

/* What the warning says when the build-ids cannot be compared. */
static void no_id_warning(struct load *l, const char *elf, const char *dump, size_t elf_id)
{
    static const char checked[] = "checked only the machine, the load address and that the "
                                  "traced functions start functions of it";
    char hex[80];

    load_hex(l->ring.build_id, l->ring.build_id_len, hex, sizeof hex);
    if (!elf_id && l->ring.build_id_len)
        snprintf(l->warning, sizeof l->warning, "%s: has no build-id to check %s (build-id %s) "
                 "against; %s; link with -Wl,--build-id", elf, dump, hex, checked);
    else if (elf_id)
        snprintf(l->warning, sizeof l->warning, "%s: records no build-id to check against %s's; "
                 "%s", dump, elf, checked);
    else
        snprintf(l->warning, sizeof l->warning, "neither %s nor %s has a build-id: nothing "
                 "proves that the trace was recorded by this ELF; %s; link with -Wl,--build-id",
                 elf, dump, checked);
}

/* Every check that says the dump did not come from this ELF. */
int load_check(struct load *l, const char *elf, const char *dump, int force, char *err,
               size_t errlen)
{
    const uint8_t *id;
    size_t n = sym_build_id(l->sym, &id);
    char a[80], b[80];

    l->machine_match = sym_machine(l->sym) == l->ring.machine &&
                       sym_word_bytes(l->sym) == l->ring.word_bytes;
    l->id_match = sym_build_id_match(l->sym, l->ring.build_id, l->ring.build_id_len);
    l->warning[0] = 0;
    if (!l->machine_match) {
        if (force)
            return 0;
        snprintf(err, errlen, "%s: recorded on %s (%u-bit) but %s is %s (%u-bit); use --force "
                 "to decode anyway", dump, dec_machine_name(l->ring.machine),
                 l->ring.word_bytes * 8, elf, dec_machine_name(sym_machine(l->sym)),
                 sym_word_bytes(l->sym) * 8);
        return -1;
    }
    if (l->id_match > 0)
        return 0;
    if (l->id_match == 0) {
        if (force)
            return 0;
        load_hex(l->ring.build_id, l->ring.build_id_len, a, sizeof a);
        load_hex(id, n, b, sizeof b);
        snprintf(err, errlen, "%s: recorded by another build (build-id %s, %s has %s); use "
                 "--force to decode anyway", dump, a, elf, b);
        return -1;
    }
    no_id_warning(l, elf, dump, n);
    return force ? 0 : check_address(l, elf, dump, err, errlen);
}

/* The first distinct functions entered, against the ELF: with no build-id to compare, the one
 * sign left of the wrong ELF. -finstrument-functions passes a function's own start, so with
 * the right ELF every one starts a function (of the program, or of a library the map names);
 * with another build most fall inside functions or outside the program. -1 with a message
 * when more than 1 in 8 do not. */
static int check_functions(struct load *l, const char *elf, const char *dump, char *err,
                           size_t errlen)
{
    uint64_t seen[LOAD_CHECK_FUNCS];
    unsigned n = 0, bad = 0;
    struct ev e;

    if (source_rewind(l->source) < 0)
        return 0; /* out of memory: the passes that follow say so */
    for (unsigned k = 0; k < LOAD_CHECK_EVENTS && n < LOAD_CHECK_FUNCS; k++) {
        const struct sym_info *s;
        uint64_t a;
        unsigned i;

        if (source_next(l->source, &e, NULL, 0) <= 0)
            break;
        if (e.kind != EV_ENTER)
            continue;
        for (i = 0; i < n && seen[i] != e.addr; i++)
            ;
        if (i < n)
            continue;
        seen[n++] = e.addr;
        a = e.addr - l->ring.load_bias;
        s = sym_lookup(l->sym, a);
        bad += !s || s->start != a;
    }
    if (bad * 8 <= n)
        return 0;
    snprintf(err, errlen, "%s: %u of the %u functions %s entered first do not start a function "
             "of it (and no build-id says whether it is the traced program): not the traced "
             "program?; use --force to decode anyway", elf, bad, n, dump);
    return -1;
}

/* DUMP.maps beside a ring file: its shared libraries are named through the program's table.
 * A map that is missing leaves the names as they were (addresses); one that cannot be used
 * too, and l->map_err says why. */
static void load_map(struct load *l)
{
    char path[4096], why[512];

    if (l->stream ||
        snprintf(path, sizeof path, "%s.maps", source_name(l->source)) >= (int)sizeof path)
        return;
    if ((l->map = modmap_open(path, why, sizeof why)) && l->sym)
        modmap_attach(l->map, l->sym, l->ring.load_bias);
    else if (!l->map && why[0] &&
             snprintf(l->map_err, sizeof l->map_err, "%s: %s", path, why) < 0)
        l->map_err[0] = 0;
}

/* A version 3 ring whose control area the dump cut short or that is not one: said once, with
 * the other warnings; the records decode all the same. */
static void ctrl_warning(struct load *l)
{
    const struct dec_ring *r = &l->ring;
    size_t n = strlen(l->warning);
    char w[320];

    if (r->ctrl_state == DEC_CTRL_SHORT)
        snprintf(w, sizeof w, "%s: control area missing: dump ends at byte %" PRIu64
                 "; the triggers and filters in force are unknown", source_name(l->source),
                 r->ctrl_end);
    else if (r->ctrl_state == DEC_CTRL_BAD)
        snprintf(w, sizeof w, "%s: %s; the triggers and filters in force are unknown",
                 source_name(l->source), r->ctrl_why);
    else
        return;
    snprintf(l->warning + n, sizeof l->warning - n, "%s%s", n ? "; " : "", w);
}

int load_attach(struct load *l, const char *elf, struct src *src, int force, char *err,
                size_t errlen)
{
    const char *name = src_name(src);
    char why[256];

    memset(l, 0, sizeof *l);
    l->id_match = -1;
    l->machine_match = 1;
    if (elf && !(l->sym = sym_open(elf, why, sizeof why))) {
        snprintf(err, errlen, "%s: %s", elf, why);
        src_close(src);
        goto fail;
    }
    if (!(l->source = source_open_src(src, err, errlen)))
        goto fail;
    l->ring = *source_describe(l->source);
    l->stream = source_is_stream(l->source);
    if (l->sym && load_check(l, elf, name, force, err, errlen) < 0)
        goto fail;
    load_map(l); /* before the functions are checked: the map names the libraries' */
    if (!(l->names = l->map ? modmap_take_names(l->map) : NULL) && !(l->names = names_new())) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto fail;
    }
    names_set_symbols(l->names, l->sym, l->ring.load_bias);
    if (l->sym && l->id_match < 0 && !force && check_functions(l, elf, name, err, errlen) < 0)
        goto fail;
    ctrl_warning(l);
    return 0;
fail:
    load_close(l);
    return -1;
}

int load_open(struct load *l, const char *elf, const char *dump, int force, char *err,
              size_t errlen)
{
    char why[256];
    struct src *src = src_open_file(dump, why, sizeof why);

    memset(l, 0, sizeof *l);
    if (!src) {
        snprintf(err, errlen, "%s: %s", dump, why);
        return -1;
    }
    return load_attach(l, elf, src, force, err, errlen);
}

int load_program(const char *dump, char *buf, size_t len, char *err, size_t errlen)
{
    char path[4096], why[512];
    struct modmap *m;
    const struct modmap_object *o;
    int rc = -1;

    err[0] = 0;
    if (snprintf(path, sizeof path, "%s.maps", dump) >= (int)sizeof path) {
        snprintf(err, errlen, "%s: name too long", dump);
        return -1;
    }
    if (!(m = modmap_open(path, why, sizeof why))) {
        if (why[0])
            snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    /* A firmware's dump has a map of names only (pull -o): as good as none here. */
    o = modmap_count(m) ? modmap_object(m, 0) : NULL;
    if (!o || !o->path[0])
        ;
    else if ((size_t)snprintf(buf, len, "%s", o->path) >= len)
        snprintf(err, errlen, "%s: the program's name is too long", path);
    else if (access(buf, R_OK) < 0)
        snprintf(err, errlen, "%s: the program it names, %s, cannot be read: %s", path, buf,
                 strerror(errno));
    else
        rc = 0;
    modmap_close(m);
    return rc;
}

void load_close(struct load *l)
{
    sym_close(l->sym);
    modmap_close(l->map);
    names_free(l->names);
    source_close(l->source);
    memset(l, 0, sizeof *l);
}
