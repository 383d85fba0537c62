/* SPDX-License-Identifier: GPL-3.0-or-later */
/* srcline.c - the DWARF's signatures and source lines for the tree, cached (srcline.h). */
#include "output/srcline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/fmt.h"

#define FN_CACHE 1024u
#define SITE_CACHE 1024u

struct fn_slot {
    uint64_t addr;
    char *text; /* "decide(int i) [demo.c:42]"; NULL: empty slot */
    size_t call_len; /* of "decide(int i)" */
};

struct site_slot {
    uint64_t site;
    int valid;
    char text[256]; /* " <- demo.c:60", or "" when the DWARF does not know */
};

struct srcline {
    struct srcline_opts o;
    struct fn_slot fns[FN_CACHE];
    struct site_slot sites[SITE_CACHE];
};

struct srcline *srcline_new(const struct srcline_opts *o)
{
    struct srcline *c = calloc(1, sizeof *c);

    if (c)
        c->o = *o;
    return c;
}

static const char *file_name(const struct srcline *c, const char *path)
{
    const char *b = strrchr(path, '/');

    return c->o.full_path || !b ? path : b + 1;
}

const char *srcline_fn(struct srcline *c, uint64_t addr, size_t *call_len)
{
    struct fn_slot *slot = &c->fns[(addr ^ addr >> 10) & (FN_CACHE - 1)];
    const struct sym_info *s = c->o.sym ? sym_lookup(c->o.sym, addr - c->o.bias) : NULL;
    char nb[256], file[512], sig[512], text[1400];
    char *dm = NULL;
    unsigned line = 0;
    int rc = -1, n;

    if (slot->text && slot->addr == addr) {
        *call_len = slot->call_len;
        return slot->text;
    }
    if (s && c->o.dwarf)
        rc = dwarf_src_func(c->o.dwarf, addr - c->o.bias, file, sizeof file, &line, sig,
                            sizeof sig);
    if (c->o.signatures && s && (dm = fmt_demangle(s->name, 1)))
        n = snprintf(text, sizeof text, "%s", dm); /* C++: the qualified name, with types */
    else if (c->o.signatures && rc == 0)
        n = snprintf(text, sizeof text, "%s", sig);
    else
        n = snprintf(text, sizeof text, "%s()", c->o.name(c->o.name_arg, addr, nb, sizeof nb));
    free(dm);
    n = n < 0 ? 0 : n < (int)sizeof text ? n : (int)sizeof text - 1;
    if (c->o.locations && rc == 0 && line)
        snprintf(text + n, sizeof text - (size_t)n, " [%s:%u]", file_name(c, file), line);
    free(slot->text);
    slot->text = strdup(text);
    slot->addr = addr;
    slot->call_len = (size_t)n;
    *call_len = slot->text ? slot->call_len : 0;
    return slot->text ? slot->text : "";
}

const char *srcline_site(struct srcline *c, uint64_t site)
{
    struct site_slot *slot = &c->sites[(site ^ site >> 10) & (SITE_CACHE - 1)];
    uint64_t a = site - c->o.bias;
    char file[200]; /* and text[256]: the line always fits */
    unsigned line = 0;

    if (slot->valid && slot->site == site)
        return slot->text;
    slot->valid = 1;
    slot->site = site;
    slot->text[0] = 0;
    /* The call instruction is the byte before the return address (a Thumb one's bit 0 set). */
    if (c->o.thumb)
        a &= ~(uint64_t)1;
    if (c->o.sym && c->o.dwarf && sym_lookup(c->o.sym, a - 1) &&
        dwarf_src_line(c->o.dwarf, a - 1, file, sizeof file, &line) == 0)
        snprintf(slot->text, sizeof slot->text, " <- %s:%u", file_name(c, file), line);
    return slot->text;
}

void srcline_free(struct srcline *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < FN_CACHE; i++)
        free(c->fns[i].text);
    free(c);
}
