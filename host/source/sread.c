/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sread.c - stream bytes read as events: chunks (of a file, or as a link gives them) ->
 * deframer -> stream decoder -> events.
 *
 * Pull, where the deframer and the decoder push: the chunk is fed up to one delimiter at a
 * time, so one feed completes one frame at most and the events waiting to be returned never
 * exceed one frame's worth. */
#include "source/sread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_stream.h"

#define CHUNK (64u * 1024u)
#define PROBE_BYTES (64u * 1024u)
#define QUEUE_MAX (CYG_FRAME_PAYLOAD_MAX + 1u) /* a frame's events, and the loss in front */

struct sread {
    sread_fill fill;
    void *arg;
    struct src *src;   /* sread_open's, and */
    uint64_t off;      /* where its next chunk is read */
    struct sframe *fr;
    struct sdec *dec;
    uint8_t *buf;
    size_t len, pos;   /* the chunk's bytes, and how many were fed */
    unsigned qn, qi;   /* events waiting in q, and the next to return */
    struct ev q[QUEUE_MAX];
};

struct probe {
    struct sdec *dec;
    struct sdec_desc *d;
    int found;
};

static void probe_ev(void *arg, const struct ev *e)
{
    (void)arg;
    (void)e;
}

static void probe_frame(void *arg, const uint8_t *payload, size_t len)
{
    struct probe *p = arg;

    if (p->found || payload[0] != CYG_FR_DESC)
        return;
    if (sdec_frame(p->dec, payload, len) == 0 && sdec_desc(p->dec)) {
        *p->d = *sdec_desc(p->dec);
        p->found = 1;
    }
}

int sread_probe(struct src *s, struct sdec_desc *d, char *err, size_t errlen)
{
    struct probe p = {NULL, d, 0};
    struct sframe *fr = NULL;
    struct sframe_stats st = {0};
    uint8_t *buf = malloc(PROBE_BYTES);
    const char *why = "out of memory";
    long n;
    int rc = -1;

    if (!buf || !(p.dec = sdec_new(probe_ev, NULL)) || !(fr = sframe_new(probe_frame, &p)))
        goto out;
    why = "read error";
    if ((n = src_read(s, 0, buf, PROBE_BYTES)) < 0)
        goto out;
    sframe_feed(fr, buf, (size_t)n);
    sframe_get_stats(fr, &st);
    why = st.frames ? "no description frame" : "no stream frame";
    rc = p.found ? 0 : st.frames ? -1 : SREAD_ENOFRAME;
out:
    if (rc)
        snprintf(err, errlen, "%s: %s", src_name(s), why);
    sframe_free(fr);
    sdec_free(p.dec);
    free(buf);
    return rc;
}

static void on_ev(void *arg, const struct ev *e)
{
    struct sread *r = arg;

    if (r->qn < QUEUE_MAX)
        r->q[r->qn++] = *e;
}

static void on_frame(void *arg, const uint8_t *payload, size_t len)
{
    struct sread *r = arg;

    sdec_frame(r->dec, payload, len);
}

struct sread *sread_open_fill(sread_fill fill, void *arg)
{
    struct sread *r = calloc(1, sizeof *r);

    if (!r)
        return NULL;
    r->fill = fill;
    r->arg = arg;
    if (!(r->buf = malloc(CHUNK)) || !(r->fr = sframe_new(on_frame, r)) ||
        !(r->dec = sdec_new(on_ev, r))) {
        sread_close(r);
        return NULL;
    }
    return r;
}

static long fill_src(void *arg, uint8_t *buf, size_t len, char *err, size_t errlen)
{
    struct sread *r = arg;
    long got = src_read(r->src, r->off, buf, len);

    if (got < 0) {
        snprintf(err, errlen, "%s: read error", src_name(r->src));
        return -1;
    }
    r->off += (uint64_t)got;
    return got;
}

struct sread *sread_open(struct src *s)
{
    struct sread *r = sread_open_fill(fill_src, NULL);

    if (r) {
        r->arg = r;
        r->src = s;
    }
    return r;
}

int sread_next(struct sread *r, struct ev *e, char *err, size_t errlen)
{
    for (;;) {
        const uint8_t *z;
        size_t n;

        if (r->qi < r->qn) {
            *e = r->q[r->qi++];
            return 1;
        }
        r->qi = r->qn = 0;
        if (r->pos == r->len) {
            long got = r->fill(r->arg, r->buf, CHUNK, err, errlen);

            if (got <= 0)
                return (int)got;
            r->len = (size_t)got;
            r->pos = 0;
        }
        z = memchr(r->buf + r->pos, 0, r->len - r->pos);
        n = z ? (size_t)(z - (r->buf + r->pos)) + 1 : r->len - r->pos;
        sframe_feed(r->fr, r->buf + r->pos, n);
        r->pos += n;
    }
}

const struct sdec_desc *sread_desc(const struct sread *r)
{
    return sdec_desc(r->dec);
}

void sread_get_stats(const struct sread *r, struct sframe_stats *fs, struct sdec_stats *ds)
{
    sframe_get_stats(r->fr, fs);
    sdec_get_stats(r->dec, ds);
}

void sread_close(struct sread *r)
{
    if (!r)
        return;
    sframe_free(r->fr);
    sdec_free(r->dec);
    free(r->buf);
    free(r);
}

void sread_on_host(struct sread *r, sdec_host_fn fn, void *arg)
{
    sdec_on_host(r->dec, fn, arg);
}
