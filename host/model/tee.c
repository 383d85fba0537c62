/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tee.c - a tree sink that feeds several (tee.h). */
#include "model/tee.h"

#include <stddef.h>

static void tee_enter(void *arg, const struct tree_frame *f, unsigned d)
{
    struct tee *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        t->to[i]->enter(t->to[i]->arg, f, d);
}

static void tee_exit(void *arg, const struct tree_frame *f, unsigned d, uint64_t te,
                     enum tree_exit_how how)
{
    struct tee *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        t->to[i]->exit(t->to[i]->arg, f, d, te, how);
}

static void tee_special(void *arg, const struct ev *e, unsigned d)
{
    struct tee *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        t->to[i]->special(t->to[i]->arg, e, d);
}

static void tee_finish(void *arg, const struct tree_frame *s, unsigned n)
{
    struct tee *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        t->to[i]->finish(t->to[i]->arg, s, n);
}

static void tee_values(void *arg, const struct tree_frame *f, unsigned d)
{
    struct tee *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        if (t->to[i]->values)
            t->to[i]->values(t->to[i]->arg, f, d);
}

void tee_init(struct tee *t)
{
    t->n = 0;
    t->sink = (struct tree_sink){t, tee_enter, tee_exit, tee_special, tee_finish, NULL};
}

int tee_add(struct tee *t, const struct tree_sink *s)
{
    if (!s || t->n == TEE_MAX)
        return -1;
    t->to[t->n++] = s;
    if (s->values) /* the tree asks for values only from a sink that wants them */
        t->sink.values = tee_values;
    return 0;
}
