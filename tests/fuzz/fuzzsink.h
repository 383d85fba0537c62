/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzzsink.h - what the fuzz targets do with the events they decode: the pipeline's chain
 * (pipeline.h) into a renderer writing to /dev/null, as "cygtrace tree" and "cygtrace live"
 * use them. The renderer's options come from one byte of the input, so the fuzzer reaches
 * every style. */
#ifndef FUZZSINK_H
#define FUZZSINK_H

#include <stdint.h>

#include "decode/dec.h"
#include "model/pipeline.h"
#include "output/render.h"

#define FUZZSINK_CTX 4u /* trees kept for a live stream: events go to ctx % FUZZSINK_CTX */

struct fuzzsink {
    struct render_opts ro;
    int func_of;     /* give the tree builder a function-of map (call-site repairs) */
    unsigned depth0; /* start depth of a live stream's trees */
    struct render *r[FUZZSINK_CTX];
    struct pipeline_chain ch[FUZZSINK_CTX];
};

/* /dev/null, opened once, for what the targets write. */
FILE *fuzzsink_null(void);

/* Sets up the renderer options from opt (style, depth, collapse, colour, func_of); ts_hz and
 * word_bytes describe the trace. */
void fuzzsink_opts(struct fuzzsink *s, uint8_t opt, uint64_t ts_hz, int has_time,
                   unsigned word_bytes);

/* Feeds a live stream's event to the tree of its context (made on first use). */
void fuzzsink_feed(struct fuzzsink *s, const struct ev *e);

/* Finishes and frees every tree and renderer. */
void fuzzsink_close(struct fuzzsink *s);

#endif
