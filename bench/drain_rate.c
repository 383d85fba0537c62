/* SPDX-License-Identifier: MIT */
/* drain_rate.c - the events per second the stream drain sustains without loss over a serial
 * link: the Linux runtime records at a set rate (a writer thread, the calls of one round of
 * examples/firmware/stream.c over and over), a second thread drains into a sink that takes at
 * most baud / 10 bytes a second (8N1: ten bits a byte) as a UART would, and the host's deframer
 * and stream decoder (sframe, sdec) count what arrived and what the stream says was lost. For
 * each baud rate it finds by bisection the highest rate that the drain keeps up with for
 * SECONDS, with a ring of RECORDS (default 512, the firmware examples' ring): no record lost,
 * and when the writer stops, less than an eighth of the ring still waiting (else the ring was
 * only absorbing a rate the link cannot carry). It prints that rate next to
 * baud / 10 / (bytes per event), what the bytes per event alone predict.
 *
 *   drain_rate [-s SECONDS] [-r RECORDS] BAUD...
 *
 * The sink holds up to 64 bytes of credit (a UART FIFO), so that the drain thread's sleeps
 * (it polls every 50 us, as a main loop would) do not leave the link idle. The writer spins on
 * CLOCK_MONOTONIC; it needs a core of its own, the drain thread much less. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cyg_format.h"
#include "cygtrace.h"
#include "cygtrace_config.h"
#include "decode/sdec.h"
#include "decode/sframe.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#define FIFO_BYTES 64.0
#define POLL_NS 50000L
#define MAX_RECORDS (1u << 16)

static uint8_t ring[CYGTRACE_RING_OVERHEAD + MAX_RECORDS * 16] __attribute__((aligned(64)));

/* ---- one round of stream.c: 124 events of 15 functions ------------------------------------- */

enum {
    F_ROUND,
    F_RUN,
    F_DECIDE,
    F_CALC,
    F_GET,
    F_MAKE,
    F_BUYSTUFF,
    F_BUY,
    F_PREP,
    F_SKIN,
    F_MIX,
    F_FIN,
    F_PUT,
    F_COOK,
    F_BAKE,
    F_N
};

static struct {
    uintptr_t fn;
    int exit;
} pattern[256];
static unsigned npattern;

static void ev(int f, int exit)
{
    /* functions of a PIE, 40 to 80 bytes apart as in the firmware */
    pattern[npattern].fn = 0x555555555120u + (uintptr_t)f * 0x3c + (uintptr_t)(f % 3) * 0x10;
    pattern[npattern++].exit = exit;
}

static void leaf(int f)
{
    ev(f, 0);
    ev(f, 1);
}

static void get_value(void)
{
    ev(F_GET, 0);
    leaf(F_CALC);
    ev(F_GET, 1);
}

static void make_round(void)
{
    ev(F_ROUND, 0);
    for (int r = 0; r < 3; r++) {
        ev(F_RUN, 0);
        for (int i = 8; i < 12; i++) {
            ev(F_DECIDE, 0);
            if (i < 10)
                leaf(F_CALC);
            get_value();
            ev(F_DECIDE, 1);
        }
        ev(F_RUN, 1);
    }
    ev(F_MAKE, 0);
    ev(F_BUYSTUFF, 0);
    for (int i = 0; i < 5; i++)
        leaf(F_BUY);
    ev(F_BUYSTUFF, 1);
    ev(F_PREP, 0);
    leaf(F_SKIN);
    ev(F_PREP, 1);
    leaf(F_MIX);
    ev(F_FIN, 0);
    leaf(F_PUT);
    leaf(F_PUT);
    ev(F_FIN, 1);
    ev(F_COOK, 0);
    leaf(F_PUT);
    leaf(F_BAKE);
    ev(F_COOK, 1);
    ev(F_MAKE, 1);
    ev(F_ROUND, 1);
}

/* ---- the trial ------------------------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct trial {
    double rate, seconds, bps; /* events/s, duration, link bytes/s */
    volatile int done;
    /* the sink */
    double credit, last;
    uint8_t *buf;
    size_t len, cap;
    /* results */
    uint64_t written, read, lost, lost_link, bad;
    uint64_t backlog; /* records neither sent nor lost when the writer stopped */
};

static size_t uart_sink(void *arg, const void *p, size_t n)
{
    struct trial *t = arg;
    double now = now_s();

    t->credit += (now - t->last) * t->bps;
    t->last = now;
    if (t->credit > FIFO_BYTES)
        t->credit = FIFO_BYTES;
    if ((double)n > t->credit)
        n = (size_t)t->credit;
    t->credit -= (double)n;
    if (t->len + n > t->cap) {
        t->cap = (t->len + n) * 2;
        t->buf = realloc(t->buf, t->cap);
        if (!t->buf) {
            perror("drain_rate");
            exit(1);
        }
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
    return n;
}

static void *writer(void *arg)
{
    struct trial *t = arg;
    uint64_t n = (uint64_t)(t->rate * t->seconds);
    double t0 = now_s();

    for (uint64_t i = 0; i < n; i++) {
        double due = t0 + (double)i / t->rate;
        unsigned k = (unsigned)(i % npattern);

        while (now_s() < due)
            ;
        if (pattern[k].exit)
            __cyg_profile_func_exit((void *)pattern[k].fn, NULL);
        else
            __cyg_profile_func_enter((void *)pattern[k].fn, NULL);
    }
    t->done = 1;
    return NULL;
}

static void on_event(void *arg, const struct ev *e)
{
    (void)arg;
    (void)e;
}

static void on_frame(void *arg, const uint8_t *p, size_t n)
{
    sdec_frame(arg, p, n);
}

/* Records at t->rate for t->seconds through a ring of records; fills in the results. */
static void run_trial(struct trial *t, unsigned records)
{
    const struct timespec poll = {0, POLL_NS};
    struct sdec *d = sdec_new(on_event, NULL);
    struct sframe *f = sframe_new(on_frame, d);
    struct sframe_stats fs;
    struct sdec_stats ds;
    const struct cyg_ctl *ctl;
    pthread_t w;
    uint64_t head_then;
    size_t len_then;

    if (!d || !f ||
        cygtrace_init(ring, CYGTRACE_RING_OVERHEAD + (size_t)records * 16, CYG_F_OVERWRITE) !=
            (long)records) {
        fprintf(stderr, "drain_rate: cannot set up a ring of %u records\n", records);
        exit(1);
    }
    t->len = 0;
    t->credit = 0;
    t->last = now_s();
    t->done = 0;
    cygtrace_drain_init(uart_sink, t);
    if (pthread_create(&w, NULL, writer, t) != 0) {
        perror("drain_rate");
        exit(1);
    }
    while (!t->done)
        if (cygtrace_drain() == 0)
            nanosleep(&poll, NULL);
    pthread_join(w, NULL);
    ctl = cygtrace_control_block();
    head_then = ctl->head.v;
    len_then = t->len;
    cygtrace_freeze();
    cygtrace_drain_flush();
    /* what had arrived when the writer stopped, then the rest */
    sframe_feed(f, t->buf, len_then);
    sdec_get_stats(d, &ds);
    t->backlog = head_then - ds.events - ds.lost_target;
    sframe_feed(f, t->buf + len_then, t->len - len_then);
    sframe_get_stats(f, &fs);
    sdec_get_stats(d, &ds);
    t->written = ctl->head.v;
    t->read = ds.events;
    t->lost = ds.lost_target;
    t->lost_link = ds.lost_link;
    t->bad = fs.bad + ds.malformed;
    sframe_free(f);
    sdec_free(d);
}

int main(int argc, char **argv)
{
    double seconds = 3;
    unsigned records = 512;
    int opt;

    while ((opt = getopt(argc, argv, "s:r:")) != -1) {
        if (opt == 's')
            seconds = atof(optarg);
        else if (opt == 'r')
            records = (unsigned)atoi(optarg);
        else
            break;
    }
    if (optind >= argc || seconds <= 0 || records < 64 || records > MAX_RECORDS ||
        (records & (records - 1))) {
        fprintf(stderr, "usage: drain_rate [-s SECONDS] [-r RECORDS (64..65536, a power of 2)] "
                        "BAUD...\n");
        return 2;
    }
    make_round();
    printf("stream drain, Linux x86-64 runtime, stream.c's calls, ring of %u records, %g s per "
           "trial, link 8N1 (baud/10 bytes/s)\n",
           records, seconds);
    for (int i = optind; i < argc; i++) {
        struct trial t = {.seconds = seconds, .bps = atof(argv[i]) / 10};
        double lo = 0, hi = t.bps, ok_bpe = 0;

        /* More than a byte an event never fits; each trial halves the interval. */
        while (hi - lo > hi * 0.01) {
            t.rate = (lo + hi) / 2;
            run_trial(&t, records);
            /* Every record reserved arrived or is counted lost (START and THREAD too). */
            if (t.bad || t.lost_link || t.read + t.lost != t.written) {
                fprintf(stderr,
                        "drain_rate: inconsistent stream at %.0f events/s: read %llu "
                        "lost %llu written %llu bad %llu\n",
                        t.rate, (unsigned long long)t.read, (unsigned long long)t.lost,
                        (unsigned long long)t.written, (unsigned long long)t.bad);
                return 1;
            }
            if (t.lost == 0 && t.backlog < records / 8) {
                lo = t.rate;
                ok_bpe = (double)t.len / (double)t.written;
            } else {
                hi = t.rate;
            }
        }
        printf("  %7s baud: %6.0f events/s with no loss (%.2f bytes/event there; "
               "baud/10/bytes = %.0f)\n",
               argv[i], lo, ok_bpe, ok_bpe > 0 ? t.bps / ok_bpe : 0.0);
        free(t.buf);
    }
    return 0;
}
