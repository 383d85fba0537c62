/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_wrap.c - libFuzzer target: what "cygtrace wrap" reads, an object the user gives it (an
 * ELF relocatable object, an archive of them, a shared library), and what it writes from it.
 *
 * Input: the file's bytes, as they are. They are read as wrap reads them (wrapin_read: libbfd's
 * symbols, the object's DWARF relocated in memory by elfrel.c, the signatures by wrapdw.c over
 * libdwarf), and every function wrap would wrap is written as its C wrappers, its linker flags
 * and its signature table, which is parsed back as the host reads it from the ELF (wsig.c).
 * Besides crashes and sanitizer reports, what wrap writes must hold what the C file needs:
 * a wrapped function's parameters all have a value kind (never void) and a C type, their names
 * are identifiers that clash with nothing, and its table lines parse back to it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/wsig.h"
#include "wrap/wrapgen.h"
#include "wrap/wrapin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int want_all(void *arg, const char *name)
{
    (void)arg;
    (void)name;
    return 1;
}

/* The input as a file for libbfd (which opens a path): a memory file, made once. */
static const char *as_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];

    if (fd < 0) {
        if ((fd = memfd_create("fuzz_wrap", 0)) < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    return path;
}

/* What the C file needs of a function it wraps (the generator trusts it). */
static void check_fn(const struct wrapgen_fn *fn)
{
    if (fn->n > WRAPGEN_MAX_PARAMS || fn->ret.kind > WRAPGEN_VOID || !fn->ret.c)
        abort();
    for (unsigned k = 0; k < fn->n; k++)
        if (fn->p[k].t.kind >= WRAPGEN_VOID || !fn->p[k].t.c || !fn->p[k].name ||
            !wrapgen_name_ok(fn->p[k].name))
            abort();
}

/* The table written, read back: every function in it, with its parameters. */
static void round_trip(const struct wrapgen_fn *const *fns, size_t n)
{
    size_t len;
    char *table = wrapgen_table(fns, n, &len);
    struct wsig *w;

    if (!table)
        return; /* out of memory */
    if ((w = wsig_parse(table, len))) {
        for (size_t i = 0; i < n; i++) {
            const struct wsig_fn *s = wsig_find(w, fns[i]->name);

            if (!s || s->n != fns[i]->n)
                abort();
        }
        if (wsig_bad_lines(w))
            abort();
        wsig_free(w);
    }
    free(table);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    struct wrapgen_set *set = wrapgen_set_new();
    const struct wrapgen_fn **fns = NULL;
    size_t defined = 0, n = 0, count;
    char err[512];

    if (!null && !(null = fopen("/dev/null", "w")))
        abort();
    if (!set)
        return 0;
    if (wrapin_read(as_file(data, size), want_all, NULL, set, &defined, err, sizeof err) == 0 &&
        (count = wrapgen_set_count(set)) &&
        (fns = malloc(count * sizeof *fns))) {
        for (size_t i = 0; i < count; i++) {
            const struct wrapgen_fn *fn = wrapgen_set_at(set, i);

            if (fn->skip || wrapgen_refused(fn->name))
                continue;
            check_fn(fn);
            fns[n++] = fn;
        }
        if (n) {
            round_trip(fns, n);
            wrapgen_write_c(null, fns, n, "fuzz.o");
            wrapgen_write_flags(null, fns, n);
        }
    }
    free(fns);
    wrapgen_set_free(set);
    return 0;
}
