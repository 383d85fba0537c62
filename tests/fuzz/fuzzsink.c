/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzzsink.c - chains and renderers over /dev/null for the fuzz targets. */
#include "fuzzsink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

FILE *fuzzsink_null(void)
{
    static FILE *f;

    if (!f && !(f = fopen("/dev/null", "w")))
        abort(); /* the harness cannot run at all: not a finding */
    return f;
}

/* Functions 16 bytes apart: enough to make call sites land inside other functions, which is
 * what the longjmp repair of tree.c looks at. */
static uint64_t func_of(void *arg, uint64_t addr)
{
    (void)arg;
    return addr & ~(uint64_t)15;
}

void fuzzsink_opts(struct fuzzsink *s, uint8_t opt, uint64_t ts_hz, int has_time,
                   unsigned word_bytes)
{
    memset(s, 0, sizeof *s);
    s->ro.style = (enum render_style)(opt % 3);
    s->ro.max_depth = (opt >> 2) & 1 ? 3 : 0;
    s->ro.collapse = !((opt >> 3) & 1);
    s->ro.ts_hz = ts_hz;
    s->ro.has_time = has_time;
    s->ro.addr_width = word_bytes * 2;
    s->ro.show = (opt >> 4) & 1 ? RENDER_COLOR : 0;
    s->func_of = (opt >> 5) & 1;
    s->depth0 = (opt >> 6) & 3;
}

/* A chain over a renderer to /dev/null, start_depth calls deep; 0, or -1 out of memory. */
static int start(struct fuzzsink *s, unsigned i, unsigned start_depth)
{
    static const struct filter_opts none;

    s->r[i] = render_new(fuzzsink_null(), &s->ro, NULL, 0);
    if (!s->r[i] || pipeline_chain_open(&s->ch[i], render_sink(s->r[i]), &none, start_depth,
                                        s->func_of ? func_of : NULL, NULL) < 0) {
        render_free(s->r[i]);
        s->r[i] = NULL;
        return -1;
    }
    render_header(s->r[i]);
    return 0;
}

void fuzzsink_feed(struct fuzzsink *s, const struct ev *e)
{
    unsigned i = e->ctx % FUZZSINK_CTX;

    if (!s->ch[i].tree && start(s, i, s->depth0) < 0)
        return;
    tree_feed(s->ch[i].tree, e);
}

void fuzzsink_close(struct fuzzsink *s)
{
    for (unsigned i = 0; i < FUZZSINK_CTX; i++) {
        if (s->ch[i].tree)
            tree_finish(s->ch[i].tree);
        pipeline_chain_close(&s->ch[i]);
        render_free(s->r[i]);
        s->r[i] = NULL;
    }
}
