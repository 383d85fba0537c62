/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tee.h - one tree sink that feeds several, each event to each in the order they were added:
 * a context's tree into its own table and the all-contexts one (report), into a graph of its
 * own and the all-contexts one per function asked for (graph). */
#ifndef TEE_H
#define TEE_H

#include "model/tree.h"

#define TEE_MAX 32u /* sinks one tee feeds at most */

struct tee {
    struct tree_sink sink; /* what the tree builder is given */
    const struct tree_sink *to[TEE_MAX];
    unsigned n;
};

/* Sets up a tee that feeds nothing yet; t->sink is valid while t lives. */
void tee_init(struct tee *t);

/* Adds s to what t feeds: 0, or -1 when s is NULL (its maker was out of memory) or t already
 * feeds TEE_MAX sinks. */
int tee_add(struct tee *t, const struct tree_sink *s);

#endif
