/* sread.c - a saved stream read back: src chunks -> deframer -> stream decoder -> events.
 *
 * Pull, where the deframer and the decoder push: the chunk is fed up to one delimiter at a
 * time, so one feed completes one frame at most and the events waiting to be returned never
 * exceed one frame's worth. */
#include "source/sread.h"

#include <stdlib.h>
#include <string.h>

#include "cyg_stream.h"

#define CHUNK (64u * 1024u)
#define PROBE_BYTES (64u * 1024u)
#define QUEUE_MAX (CYG_FRAME_PAYLOAD_MAX + 1u) /* a frame's events, and the loss in front */

struct sread {
    struct src *src;
    uint64_t off;      /* where the next chunk is read */
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

int sread_probe(struct src *s, struct sdec_desc *d, const char **why)
{
    struct probe p = {NULL, d, 0};
    struct sframe *fr = NULL;
    struct sframe_stats st;
    uint8_t *buf = malloc(PROBE_BYTES);
    long n;

    *why = "out of memory";
    if (!buf || !(p.dec = sdec_new(probe_ev, NULL)) || !(fr = sframe_new(probe_frame, &p)))
        goto out;
    n = src_read(s, 0, buf, PROBE_BYTES);
    if (n < 0) {
        *why = "read error";
        goto out;
    }
    sframe_feed(fr, buf, (size_t)n);
    sframe_get_stats(fr, &st);
    if (!p.found)
        *why = st.frames ? "no description frame" : "no stream frame";
out:
    sframe_free(fr);
    sdec_free(p.dec);
    free(buf);
    return p.found ? 0 : -1;
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

struct sread *sread_open(struct src *s)
{
    struct sread *r = calloc(1, sizeof *r);

    if (!r)
        return NULL;
    r->src = s;
    if (!(r->buf = malloc(CHUNK)) || !(r->fr = sframe_new(on_frame, r)) ||
        !(r->dec = sdec_new(on_ev, r))) {
        sread_close(r);
        return NULL;
    }
    return r;
}

int sread_next(struct sread *r, struct ev *e)
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
            long got = src_read(r->src, r->off, r->buf, CHUNK);

            if (got < 0)
                return -1;
            if (got == 0)
                return 0;
            r->off += (uint64_t)got;
            r->len = (size_t)got;
            r->pos = 0;
        }
        z = memchr(r->buf + r->pos, 0, r->len - r->pos);
        n = z ? (size_t)(z - (r->buf + r->pos)) + 1 : r->len - r->pos;
        sframe_feed(r->fr, r->buf + r->pos, n);
        r->pos += n;
    }
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
