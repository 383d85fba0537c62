/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diffout.h - the text and the JSON of `cygtrace diff`: per pair of contexts the first point
 * where their calls diverge (the common call stack, then both continuations side by side) and
 * the later divergences one line each; the costs per function and per call path, largest
 * change first; and the lines of the functions and paths that slowed beyond --fail-above. */
#ifndef DIFFOUT_H
#define DIFFOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/costdiff.h"
#include "model/diff.h"

/* A pair of contexts (label_a or label_b NULL: in one trace only) and their alignment. */
struct diffout_ctx {
    const char *label_a, *label_b;
    const struct diff_result *r; /* NULL when unpaired */
};

struct diffout {
    FILE *f;
    int color;
    size_t top; /* rows of each table and later divergences shown per context; 0: all */
    const struct diff_set *set;
    const char *elf[2], *dump[2];
    const char *hook[2]; /* each trace's note of the hooks' cost taken out (cmd_hook_note), or "" */
    uint64_t hz; /* what the times are in: 1000000000 for ns, 0 for clock ticks */
    const struct diffout_ctx *ctx;
    size_t nctx;
    const struct costdiff_row *fn, *path;
    size_t nfn, npath;
    const struct costdiff_limit *lim; /* --fail-above, or NULL */
    uint64_t cut, greedy, dropped, left_out;
};

/* The text, for a terminal (colour when o->color). */
void diffout_text(const struct diffout *o);

/* The JSON document. */
void diffout_json(const struct diffout *o);

/* Writes to f one line per function and path that offends o->lim; returns how many. */
size_t diffout_offenders(const struct diffout *o, FILE *f);

#endif
