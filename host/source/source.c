/* SPDX-License-Identifier: GPL-3.0-or-later */
/* source.c - the interface, and its implementations: a ring decoded where it lies and a saved
 * stream read back, both over a src (a file read with pread, or a pull's memory image), pass
 * after pass; a live stream over a wire; a followed Linux ring. */
#include "source/source.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "decode/dec4m.h"
#include "decode/hdr.h"
#include "source/follow.h"
#include "source/sread.h"
#include "source/wire.h"

/* What an implementation fills in. */
struct source_ops {
    int (*next)(struct source *s, struct ev *e, char *err, size_t errlen);
    int (*rewind)(struct source *s); /* NULL: the source gives one pass only */
    int (*count)(struct source *s, struct dec_counts *c); /* NULL: event by event */
    void (*only)(struct source *s, uint32_t id, const struct dec_index *x, const uint64_t *segs);
    void (*stats)(const struct source *s, struct source_stats *st); /* st zeroed before */
    void (*close)(struct source *s); /* frees s too */
};

/* The head of every implementation's struct, which embeds it first. */
struct source {
    const struct source_ops *ops;
    const char *name;     /* for messages: the implementation keeps the text */
    struct dec_ring ring; /* what the trace is, once described */
    int described;        /* ring holds a description */
    int stream;           /* events come from frames (sframe, sdec statistics) */
    int wait_ms;          /* a live stream's look waits this long for bytes */
};

int source_next(struct source *s, struct ev *e, char *err, size_t errlen)
{
    return s->ops->next(s, e, err, errlen);
}

const struct dec_ring *source_describe(const struct source *s)
{
    return s->described ? &s->ring : NULL;
}

int source_rewind(struct source *s)
{
    return s->ops->rewind ? s->ops->rewind(s) : -1;
}

int source_count(struct source *s, struct dec_counts *c)
{
    return s->ops->count ? s->ops->count(s, c) : 1;
}

void source_only(struct source *s, uint32_t id, const struct dec_index *x, const uint64_t *segs)
{
    if (s->ops->only)
        s->ops->only(s, id, x, segs);
}

int source_clock_stood(const struct source_stats *st, uint64_t *at)
{
    /* One of the two counted (a ring's pass, or a stream's): the other is zero. */
    const struct dec_times *k = st->dec.calls.n ? &st->dec.calls : &st->sd.calls;

    *at = k->ones;
    return dec_times_stood(k);
}

void source_stats(const struct source *s, struct source_stats *st)
{
    memset(st, 0, sizeof *st);
    s->ops->stats(s, st);
}

int source_is_stream(const struct source *s)
{
    return s->stream;
}

const char *source_name(const struct source *s)
{
    return s->name;
}

void source_set_wait(struct source *s, int wait_ms)
{
    s->wait_ms = wait_ms;
}

void source_close(struct source *s)
{
    if (s)
        s->ops->close(s);
}

/* --- a ring, or a saved stream, over a src --------------------------------------------------- */

struct filesrc {
    struct source base;
    struct src *src;
    struct dec *dec;     /* a ring's pass, or */
    struct sread *sread; /* a stream's */
    struct src *orig;    /* a version 4 ring's own source, src its rewriting (dec4m.h): kept
                            open, since the caller holds its name */
};

static int ring_next(struct source *s, struct ev *e, char *err, size_t errlen)
{
    int rc = dec_next(((struct filesrc *)s)->dec, e);

    if (rc < 0)
        snprintf(err, errlen, "%s: read error", s->name);
    return rc;
}

static int ring_rewind(struct source *s)
{
    struct filesrc *f = (struct filesrc *)s;

    dec_close(f->dec);
    return (f->dec = dec_open(f->src, &s->ring)) ? 0 : -1;
}

static int ring_count(struct source *s, struct dec_counts *c)
{
    return dec_count(((struct filesrc *)s)->dec, c);
}

static void ring_only(struct source *s, uint32_t id, const struct dec_index *x,
                      const uint64_t *segs)
{
    dec_only(((struct filesrc *)s)->dec, id, x, segs);
}

static void ring_stats(const struct source *s, struct source_stats *st)
{
    dec_get_stats(((const struct filesrc *)s)->dec, &st->dec);
}

static void file_close(struct source *s)
{
    struct filesrc *f = (struct filesrc *)s;

    dec_close(f->dec);
    sread_close(f->sread);
    src_close(f->src);
    src_close(f->orig);
    free(f);
}

static const struct source_ops ring_ops = {ring_next, ring_rewind, ring_count, ring_only,
                                           ring_stats, file_close};

static int stream_next(struct source *s, struct ev *e, char *err, size_t errlen)
{
    return sread_next(((struct filesrc *)s)->sread, e, err, errlen);
}

static int stream_rewind(struct source *s)
{
    struct filesrc *f = (struct filesrc *)s;

    sread_close(f->sread);
    return (f->sread = sread_open(f->src)) ? 0 : -1;
}

static void stream_stats(const struct source *s, struct source_stats *st)
{
    sread_get_stats(((const struct filesrc *)s)->sread, &st->fr, &st->sd);
}

void source_raw(struct source *s)
{
    if (s->ops == &ring_ops)
        dec_raw(((struct filesrc *)s)->dec);
}

static const struct source_ops stream_ops = {stream_next, stream_rewind, NULL, NULL,
                                             stream_stats, file_close};

/* A ring the file does not hold: holes (a sparse file) read as zeros, slot after slot, and a
 * header that claims 2^36 records over them keeps a pass busy for most of an hour. The
 * runtime writes every slot a pass reads (those before head; but the unused ends of threads'
 * chunks, a few KB), so holes there are no dump's.
 * The slots past the end of a short file cost nothing: the decoder skips them at once. */
static int check_holes(struct filesrc *f, char *err, size_t errlen)
{
    const struct dec_ring *r = &f->base.ring;
    uint64_t n = r->head < r->cap ? r->head : r->cap, len, holes;

    if (r->word_bytes == 4 && (r->flags & CYG_F_OVERWRITE))
        n = r->cap; /* a 32-bit head may have wrapped: the pass may read every slot */
    len = n * r->rec_bytes;
    holes = len - src_data_bytes(f->src, r->off + CYG_HDR_BYTES, len);
    if (holes <= SOURCE_HOLES_MAX)
        return 0;
    snprintf(err, errlen, "%s: %" PRIu64 " bytes of the ring's records are holes (a sparse file: "
             "never written); not a dump the runtime wrote", f->base.name, holes);
    return -1;
}

/* A version 4 ring of a 32-bit target, rewritten in memory into 8-byte records (dec4m.h):
 * read from there on. */
static int expand4(struct filesrc *f, char *err, size_t errlen)
{
    struct dec_ring x;
    struct src *m = dec4m_expand(f->src, &f->base.ring, &x, err, errlen);

    if (!m)
        return -1;
    f->orig = f->src;
    f->src = m;
    f->base.ring = x;
    return 0;
}

/* A ring, else a saved stream ("cygtrace live --save"); when the bytes hold no frame at all,
 * the ring's reason says best what is wrong. */
static int identify(struct filesrc *f, char *err, size_t errlen)
{
    struct sdec_desc d;
    char why[256];
    int rc;

    if (hdr_locate(f->src, &f->base.ring, err, errlen) == 0) {
        f->base.ops = &ring_ops;
        if (check_holes(f, err, errlen) < 0)
            return -1;
        return dec4m_ring(&f->base.ring) ? expand4(f, err, errlen) : 0;
    }
    if ((rc = sread_probe(f->src, &d, why, sizeof why)) < 0) {
        if (rc != SREAD_ENOFRAME)
            snprintf(err, errlen, "%s", why);
        return -1;
    }
    f->base.ring = d.ring;
    f->base.ops = &stream_ops;
    f->base.stream = 1;
    return 0;
}

struct source *source_open_src(struct src *src, char *err, size_t errlen)
{
    struct filesrc *f = calloc(1, sizeof *f);

    if (!f) {
        snprintf(err, errlen, "%s: out of memory", src_name(src));
        src_close(src);
        return NULL;
    }
    f->src = src;
    f->base.name = src_name(src);
    f->base.ops = &ring_ops; /* until identify says: what closes it */
    if (identify(f, err, errlen) < 0)
        goto fail;
    if (source_rewind(&f->base) < 0) {
        snprintf(err, errlen, "%s: out of memory", f->base.name);
        goto fail;
    }
    f->base.described = 1;
    return &f->base;
fail:
    file_close(&f->base);
    return NULL;
}

int source_check(struct source *s, char *err, size_t errlen)
{
    char why[160];

    if (s->ops != &ring_ops && s->ops != &stream_ops)
        return 0;
    if (src_check(((struct filesrc *)s)->orig ? ((struct filesrc *)s)->orig
                                              : ((struct filesrc *)s)->src,
                  why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "%s: %s, and what was shown is not all of it; is a program still "
             "writing it? decode a copy made once it is done", s->name, why);
    return -1;
}

struct source *source_open_file(const char *path, char *err, size_t errlen)
{
    char why[256];
    struct src *src = src_open_file(path, why, sizeof why);

    if (!src) {
        snprintf(err, errlen, "%s: %s", path, why);
        return NULL;
    }
    return source_open_src(src, err, errlen);
}

/* --- a live stream over a wire --------------------------------------------------------------- */

struct wiresrc {
    struct source base;
    struct wire *wire;
    struct sread *sread;
    source_tap tap;
    void *arg;
    int have_read;       /* this round read the wire already: the next read waits for the next */
};

static long fill_wire(void *arg, uint8_t *buf, size_t len, char *err, size_t errlen)
{
    struct wiresrc *w = arg;
    long n;

    if (w->have_read)
        return SREAD_AGAIN;
    w->have_read = 1;
    n = wire_read(w->wire, buf, len, w->base.wait_ms, err, errlen);
    if (n == 0)
        return SREAD_AGAIN;
    if (n < 0)
        return n == -1 ? 0 : -1; /* -1: the end of the stream; -2: the link failed */
    if (w->tap)
        w->tap(w->arg, buf, (size_t)n);
    return n;
}

/* A round reads the wire once: the events of what it gave, then SOURCE_AGAIN. */
static int wire_next(struct source *s, struct ev *e, char *err, size_t errlen)
{
    struct wiresrc *w = (struct wiresrc *)s;
    const struct sdec_desc *d;
    int rc = sread_next(w->sread, e, err, errlen);

    if ((d = sread_desc(w->sread))) {
        s->ring = d->ring;
        s->described = 1;
    }
    if (rc == SREAD_AGAIN) {
        w->have_read = 0;
        return SOURCE_AGAIN;
    }
    return rc;
}

static void wire_stats(const struct source *s, struct source_stats *st)
{
    sread_get_stats(((const struct wiresrc *)s)->sread, &st->fr, &st->sd);
}

static void wire_src_close(struct source *s)
{
    struct wiresrc *w = (struct wiresrc *)s;

    sread_close(w->sread);
    wire_close(w->wire);
    free(w);
}

static const struct source_ops wire_ops = {wire_next, NULL, NULL, NULL, wire_stats,
                                           wire_src_close};

struct source *source_open_wire(struct wire *wire, source_tap tap, void *arg, char *err,
                                size_t errlen)
{
    struct wiresrc *w = calloc(1, sizeof *w);

    if (!w || !(w->sread = sread_open_fill(fill_wire, w))) {
        snprintf(err, errlen, "%s: out of memory", wire_name(wire));
        free(w);
        wire_close(wire);
        return NULL;
    }
    w->base = (struct source){.ops = &wire_ops, .name = wire_name(wire), .stream = 1};
    w->wire = wire;
    w->tap = tap;
    w->arg = arg;
    return &w->base;
}

/* --- a followed Linux ring ------------------------------------------------------------------- */

#define FOLLOW_QUEUE 4096u /* events taken per poll */

struct followsrc {
    struct source base;
    struct follow *follow;
    size_t round_max;    /* events a round delivers at most */
    size_t round;        /* ... and has delivered */
    int polled;          /* this round polled and found nothing more */
    int gone;            /* the program exited: what it wrote is being read, then the end */
    unsigned qn, qi;
    struct ev q[FOLLOW_QUEUE];
};

static void follow_push(void *arg, const struct ev *e)
{
    struct followsrc *f = arg;

    f->q[f->qn++] = *e;
}

/* The program is gone once its process is: what it wrote between the last poll and its exit
 * is read before the end. */
static int program_gone(const struct dec_ring *r)
{
    return r->pid && kill((pid_t)r->pid, 0) < 0 && errno == ESRCH;
}

/* A round polls until round_max events came or a poll finds none; a new run of the program
 * is said (SOURCE_NEW) before its first event. */
static int follow_next(struct source *s, struct ev *e, char *err, size_t errlen)
{
    struct followsrc *f = (struct followsrc *)s;
    long n;

    while (f->qi == f->qn) {
        if (f->polled || (f->round >= f->round_max && !f->gone)) {
            f->polled = 0;
            f->round = 0;
            return SOURCE_AGAIN;
        }
        if (follow_restarted(f->follow)) {
            s->ring = *follow_ring(f->follow);
            return SOURCE_NEW;
        }
        f->qi = f->qn = 0;
        n = follow_poll(f->follow, follow_push, f, FOLLOW_QUEUE, err, errlen);
        if (n < 0)
            return -1;
        s->ring = *follow_ring(f->follow);
        f->round += (size_t)n;
        if (n == 0 && f->gone) {
            snprintf(err, errlen, "the program exited");
            return 0;
        }
        f->gone = f->gone || (n == 0 && program_gone(&s->ring));
        f->polled = n == 0 && !f->gone;
    }
    *e = f->q[f->qi++];
    return 1;
}

static void follow_stats(const struct source *s, struct source_stats *st)
{
    (void)s;
    (void)st; /* the losses come as EV_LOST events */
}

static void follow_src_close(struct source *s)
{
    follow_close(((struct followsrc *)s)->follow);
    free(s);
}

static const struct source_ops follow_ops = {follow_next, NULL, NULL, NULL, follow_stats,
                                             follow_src_close};

struct source *source_open_follow(struct follow *fl, const char *name, size_t round_max,
                                  char *err, size_t errlen)
{
    struct followsrc *f = calloc(1, sizeof *f);

    if (!f) {
        snprintf(err, errlen, "%s: out of memory", name);
        follow_close(fl);
        return NULL;
    }
    f->base = (struct source){.ops = &follow_ops, .name = name, .described = 1};
    f->base.ring = *follow_ring(fl);
    f->follow = fl;
    f->round_max = round_max;
    return &f->base;
}
