/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sdec.h - the stream decoder: checked frame payloads in, events out (struct ev of dec.h).
 *
 * It shows nothing until a description frame has said what the stream is; then every events
 * frame decodes alone (cyg_stream.h). A frame whose content is malformed delivers no event at
 * all: events are decoded into a frame-sized buffer first and delivered only when the whole
 * frame parsed. Losses become EV_LOST events where they happened: EV_LOST_TARGET for SKIP
 * tokens, EV_LOST_LINK for a sequence gap between frames (frames lost to noise). */
#ifndef SDEC_H
#define SDEC_H

#include <stddef.h>
#include <stdint.h>

#include "decode/dec.h"

/* What the last description frame said (cyg_stream.h, CYG_FR_DESC): the ring it drains, in
 * the type a dump's control block fills (checked by the same hdr_check), and the stream's
 * own fields. In ring, what a description does not say stays 0: off, ctl_addr, head (the
 * stream is where the drain stands: next_seq), chunk_log2, the control area (DEC_CTRL_NONE),
 * and version when the drain does not say it (a ring of version 1 or 2; later drains say it
 * after their session). */
struct sdec_desc {
    unsigned version;     /* the stream format's */
    struct dec_ring ring;
    uint64_t next_seq;
    int has_session;      /* the drain says its session (later drains do) */
    uint32_t session;     /* new at each start of the stream */
};

struct sdec_stats {
    uint64_t frames;      /* payloads given to sdec_frame */
    uint64_t desc;        /* description frames */
    uint64_t early;       /* events frames dropped before the first description */
    uint64_t malformed;   /* frames dropped: content does not parse */
    uint64_t events;      /* events delivered (not counting EV_LOST) */
    uint64_t lost_target; /* records the target lost (SKIP) */
    uint64_t lost_link;   /* records lost on the link (sequence gaps) */
    uint64_t dup;         /* events frames dropped: every record already seen */
    uint64_t restarts;    /* descriptions that said the target started over */
    uint64_t host;        /* host time frames (CYG_FR_HOST, a saved stream's) */
    uint64_t replays;     /* descriptions of this session seen again: the link replayed them */
    /* the call events' times */
    struct dec_times calls;
};

/* Called with each event. */
typedef void (*sdec_fn)(void *arg, const struct ev *e);

struct sdec;

/* A decoder that calls fn(arg, e) for each event; NULL when out of memory. */
struct sdec *sdec_new(sdec_fn fn, void *arg);

/* Called with each host time frame (CYG_FR_HOST) that follows events: the host's
 * CLOCK_MONOTONIC ns when the frames before it had arrived, the unwrapped time of the last
 * normal event decoded before it (what the target's clock said last), and how many times the
 * target had started over by then (sdec_stats.restarts: the clock starts anew each time). */
typedef void (*sdec_host_fn)(void *arg, int64_t host_ns, uint64_t target_time,
                             uint64_t restarts);

/* Gives the host time frames to fn(arg, ...) from now on (NULL: ignored, counted only). */
void sdec_on_host(struct sdec *d, sdec_host_fn fn, void *arg);

/* Decodes one checked frame payload; 0, or -1 when it was malformed (nothing delivered). */
int sdec_frame(struct sdec *d, const uint8_t *payload, size_t len);

/* The last description, or NULL before the first. */
const struct sdec_desc *sdec_desc(const struct sdec *d);

/* Returns the counters. */
void sdec_get_stats(const struct sdec *d, struct sdec_stats *st);

/* Frees the decoder. NULL is fine. */
void sdec_free(struct sdec *d);

#endif
