/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stress_check.c - checks what stress_linux recorded, event by event, against the pattern it
 * must have followed (stress_pattern.h).
 *
 *   stress_check live [--timeout S] RING TABLE -- PROGRAM ARGS...
 *       Runs PROGRAM (stress_linux ... --out RING --table TABLE --go), follows RING with
 *       host/follow.c while the program writes it (the host's lock-free reader of a running
 *       ring, on its own CPU when there is one), checks every event it reads, and at the end
 *       that read + lost == the ring's head == the program's own count + the specials; then
 *       decodes the final ring post-mortem (dec.c) and checks it again.
 *   stress_check post RING TABLE
 *       Decodes a ring after the fact (a program killed with kill -9) and checks it.
 *   stress_check crash [--trials N] [--seed S] [--timeout S] DIR -- PROGRAM
 *       kill -9 trials: trial i (seed S + i) runs PROGRAM with 1 or 4 threads, a ring of 4K,
 *       64K or 1M and signals or none, stops it after a random delay (and counts its threads
 *       caught in a hook), kills it, and checks the ring post-mortem. One line per trial,
 *       with its seed; --seed X --trials 1 repeats one.
 *
 * What is checked, per thread (the thread index of each record):
 *   - every function is one of the stress program's; every worker function is of the one
 *     family this thread runs, and no family runs in two threads (a torn or invented record
 *     shows here: a's address or thread from one record, b from another);
 *   - the thread's worker events are exactly its cycle, from its THREAD record on, or from
 *     where the check finds its place again (the first top-level entry after a gap: the
 *     events before it must still fit the cycle). A stale or missing event breaks the run;
 *   - handler events come as whole h0(h1 h2) blocks between two worker events;
 *   - timestamps never go backwards;
 *   - live: at the end each thread stands between two top-level calls, outside the handler
 *     (its tree is balanced).
 * A gap (records the reader lost, or a slot that does not decode) makes every thread find its
 * place again: nothing in a gap is ever shown, so a stale or invented record still fails.
 * A late store (a writer preempted for laps between the check of its slot and its store puts
 * its record of that lap over a newer one: FORMAT.md 4.1) at the end of a chunk looks like the
 * chunk's unused end, so no gap is said there: a thread's event out of place is one, when the
 * slots between it and the thread's previous event hold records of earlier laps (their lap bits
 * and tags, read from the ring: late_store). It is counted (late stores: N), and the thread
 * finds its place again; more than LATE_MAX in a run fail.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cyg_format.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "source/follow.h"
#include "source/src.h"
#include "stress_pattern.h"

#define MAX_THREADS 65536u
#define HASH_SLOTS 256u
#define MAX_REPORTS 12
#define HIST 65536u /* events kept to explain a failure */
#define LATE_MAX 8u /* late stores a run may show (stress_linux.sh's bound on holes) */

struct fn_key {
    uint64_t addr;
    uint8_t fam, idx, used;
};

struct thr {
    int seen;
    int fam;          /* worker family, -1 until its first worker event */
    int synced;       /* pos is known */
    unsigned pos;     /* next step in the family's pattern */
    int hknown;       /* hpos is known */
    unsigned hpos;    /* next step of the handler; 0: not in it */
    /* Times: of the worker's last two events and of the handler's last; see chk_time */
    uint64_t wt_last, wt_prev, ht_last;
    uint64_t events;
    uint64_t last_seq; /* of its previous event */
    /* worker events before the first top-level entry after a gap, checked once it comes */
    struct stress_step pend[STRESS_CYCLE_MAX];
    unsigned npend;
};

struct chk {
    struct fn_key tab[HASH_SLOTS];
    struct stress_step cycle[STRESS_CYCLE_MAX];
    unsigned ncycle;
    struct thr *thr; /* MAX_THREADS */
    int fam_owner[STRESS_FAM_ALL];
    uint64_t read, lost, gaps, specials, verified, unverified, failures;
    uint64_t ts_back; /* handler events stamped before the worker record they interrupted */
    uint64_t late;    /* a thread's records lost under a record stored laps late (late_store) */
    unsigned max_thr; /* highest thread index seen */
    struct ev *hist;  /* the last HIST events read, by seq % HIST */
    struct thr *cur;  /* the thread of the event being checked */
    /* the ring file's records (post-mortem: a copy; live: the mapping the program writes), to
     * show a slot's words and to tell a late store */
    const uint8_t *recs;
    uint64_t cap, recs_len;
    unsigned cap_log2, rec_bytes, chunk_log2, flags;
    int live;
};

static unsigned hash_of(uint64_t a)
{
    return (unsigned)((a * 0x9E3779B97F4A7C15ull) >> 56) % HASH_SLOTS;
}

static int load_table(struct chk *c, const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned fam, idx, n = 0;
    unsigned long addr;

    if (!f) {
        fprintf(stderr, "stress_check: %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (fscanf(f, " fn %u %u %lx", &fam, &idx, &addr) == 3) {
        unsigned h = hash_of(addr);

        if (++n > HASH_SLOTS / 2 || fam >= STRESS_FAM_ALL || idx >= STRESS_FNS) {
            fprintf(stderr, "stress_check: %s: line %u is not a function of the pattern\n",
                    path, n);
            fclose(f);
            return -1;
        }
        while (c->tab[h].used)
            h = (h + 1) % HASH_SLOTS;
        c->tab[h] = (struct fn_key){addr, (uint8_t)fam, (uint8_t)idx, 1};
    }
    fclose(f);
    if (n != STRESS_FAMILIES * STRESS_FNS + 4) {
        fprintf(stderr, "stress_check: %s: %u functions, expected %u\n", path, n,
                STRESS_FAMILIES * STRESS_FNS + 4);
        return -1;
    }
    return 0;
}

static const struct fn_key *lookup(const struct chk *c, uint64_t addr)
{
    for (unsigned h = hash_of(addr);; h = (h + 1) % HASH_SLOTS) {
        if (!c->tab[h].used)
            return NULL;
        if (c->tab[h].addr == addr)
            return &c->tab[h];
    }
}

static int chk_init(struct chk *c, const char *table, int live)
{
    memset(c, 0, sizeof *c);
    c->live = live;
    c->ncycle = (unsigned)stress_cycle(c->cycle);
    for (unsigned i = 0; i < STRESS_FAM_ALL; i++)
        c->fam_owner[i] = -1;
    c->thr = calloc(MAX_THREADS, sizeof *c->thr);
    c->hist = calloc(HIST, sizeof *c->hist);
    if (!c->thr || !c->hist)
        return -1;
    return load_table(c, table);
}

static void chk_free(struct chk *c)
{
    free(c->thr);
    free(c->hist);
    c->thr = NULL;
    c->hist = NULL;
}

static const char *step_name(unsigned fam, unsigned fn, unsigned exit, char *buf, size_t len)
{
    static const char *const lv[] = {"top", "mid", "leaf"};

    if (fam == STRESS_FAM_HANDLER)
        snprintf(buf, len, "%s h%u", exit ? "exit" : "enter", fn);
    else if (fam == STRESS_FAM_SETUP)
        snprintf(buf, len, "%s stress_setup", exit ? "exit" : "enter");
    else
        snprintf(buf, len, "%s f%c_%s%u", exit ? "exit" : "enter", 'a' + fam, lv[fn / 4], fn % 4);
    return buf;
}

/* Words a and b of slot q as its writers left them, copied as host/follow.c copies a slot of a
 * running ring: b, a, then b again (a writer a lap late stores b first). 0 when the ring's
 * records are not at hand, or b changed under the copy. */
static int slot_get(const struct chk *c, uint64_t q, uint64_t *a, uint64_t *b)
{
    const uint64_t *w;

    if (!c->recs || c->rec_bytes < 16 || (q & (c->cap - 1)) * c->rec_bytes + 16 > c->recs_len)
        return 0;
    w = (const uint64_t *)(const void *)(c->recs + (q & (c->cap - 1)) * c->rec_bytes);
    *b = __atomic_load_n(&w[1], __ATOMIC_ACQUIRE);
    *a = __atomic_load_n(&w[0], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&w[1], __ATOMIC_RELAXED) == *b;
}

/* How many laps before seq q's the record with word b was made for, from its lap bit and tag as
 * dec.c reads them (FORMAT.md 4.1: the low 12 bits of a call record's inverted lap number, 9 of
 * a special's): 0 for q's own lap, -1 for a later one or a ring without tags. */
static int laps_before(const struct chk *c, uint64_t q, uint64_t b)
{
    unsigned bits = (b & CYG64_SPECIAL) ? 9 : 12;
    uint64_t x = (b >> 63) | ((b & CYG64_SPECIAL) ? (b & CYG64_STAG_MASK) >> 31
                                                  : (b & CYG64_TAG_MASK) >> (CYG64_TAG_SHIFT - 1));
    uint64_t k = (x - (~q >> c->cap_log2)) & ((UINT64_C(1) << bits) - 1);

    if (!(c->flags & CYG_F_LAPTAG))
        return -1;
    return k < (UINT64_C(1) << (bits - 1)) ? (int)k : -1;
}

/* A slot that did not decode as seq q: its words, or "not read" when the ring's records are not
 * at hand. */
static void slot_words(const struct chk *c, uint64_t q)
{
    const uint64_t *w;
    const struct fn_key *k;
    char name[48], laps[48] = "";
    int n;

    if (!c->recs || (q & (c->cap - 1)) * c->rec_bytes + 16 > c->recs_len) {
        printf("    seq %" PRIu64 ": not read (lost or unwritten)\n", q);
        return;
    }
    w = (const uint64_t *)(const void *)(c->recs + (q & (c->cap - 1)) * c->rec_bytes);
    k = lookup(c, w[0] & CYG64_ADDR_MASK);
    if ((w[0] | w[1]) && (n = laps_before(c, q, w[1])) > 0)
        snprintf(laps, sizeof laps, ", its tag %d lap%s before", n, n > 1 ? "s" : "");
    printf("    seq %" PRIu64 ": slot words a 0x%016" PRIx64 " b 0x%016" PRIx64 " = thread %u %s, "
           "lap bit %u where seq %" PRIu64 " needs %u%s\n",
           q, w[0], w[1], (unsigned)(w[0] >> CYG64_THREAD_SHIFT),
           (w[1] & CYG64_SPECIAL) ? "special"
           : k ? step_name(k->fam, k->idx, (w[1] & CYG64_EXIT) != 0, name, sizeof name)
               : "?",
           (unsigned)(w[1] >> 63), q, cyg_lap(q, c->cap_log2), laps);
}

/* Whether slot q's words a, b are a whole record of an earlier lap than q's: a special, or a
 * function of the stress program under the thread that runs it (a torn copy mixes two
 * records). Returns the laps (laps_before), else 0. */
static int late_record(const struct chk *c, uint64_t q, uint64_t a, uint64_t b)
{
    unsigned th = (unsigned)(a >> CYG64_THREAD_SHIFT);
    int laps = laps_before(c, q, b), owner;
    const struct fn_key *k;

    if (laps <= 0 || (b & CYG64_SPECIAL))
        return laps > 0 ? laps : 0;
    if (!(k = lookup(c, a & CYG64_ADDR_MASK)) || !th)
        return 0;
    if (k->fam >= STRESS_FAMILIES)
        return laps; /* the handler's, or main's set-up: any thread's */
    owner = c->fam_owner[k->fam];
    if (owner >= 0 && owner != (int)th)
        return 0;
    if (th < MAX_THREADS && c->thr[th].seen && c->thr[th].fam >= 0 && c->thr[th].fam != (int)k->fam)
        return 0;
    return laps;
}

/* Whether the thread's event e, out of place after its previous one, lost what came between to
 * late stores: a writer preempted between the check of its slot and its store (cyg_slot_ok,
 * cyg_store) for a lap or more stores its record of that lap over the newer one there, which
 * is lost (FORMAT.md 4.1, dec.c's late_store). In the middle of the thread's chunk the slot is
 * a hole, which the reader and the decoder say as a gap; at the chunk's end it looks like an
 * unused end (a lap late, its lap bit is the unused slot's), so the record is lost with no gap
 * said: a frozen ring keeps it, and so may the last lap of any ring. A late store, then: every
 * slot in between that gave no event holds a whole record of an earlier lap (or its own lap's
 * PAD), one of the thread's own slots among them, and none is a record the reader read in its
 * own lap (that slot was never written again: its writer failed). Returns the thread's own
 * such slots: the end of its chunk from the covered record on (the rest of the chunk may be
 * unused, and holds another lap's records too), 0 when it is no late store. */
static unsigned late_store(const struct chk *c, const struct thr *t, const struct ev *e)
{
    uint64_t chunk = UINT64_C(1) << c->chunk_log2, from = t->last_seq;
    uint64_t mine_end = (from | (chunk - 1)) + 1, mine_again = e->seq & ~(chunk - 1);
    unsigned own = 0;

    if (t->events < 2 || e->seq <= from || e->seq - from > HIST / 2)
        return 0;
    for (uint64_t q = from + 1; q < e->seq; q++) {
        const struct ev *h = &c->hist[q % HIST];
        uint64_t a, b, then;
        int laps;

        if (h->seq == q && h->kind)
            continue; /* an event, of another thread */
        if (!slot_get(c, q, &a, &b) || !(a | b))
            return 0;
        if (!(laps = late_record(c, q, a, b))) {
            if ((b & CYG64_SPECIAL) && laps_before(c, q, b) == 0)
                continue; /* PAD: no event */
            return 0;
        }
        then = q - (uint64_t)laps * c->cap;
        h = &c->hist[then % HIST];
        if ((uint64_t)laps * c->cap <= q && q - then < HIST && h->seq == then && h->kind &&
            h->addr == (a & CYG64_ADDR_MASK) && h->ctx == a >> CYG64_THREAD_SHIFT &&
            (h->time & CYG64_TAGGED_TS_MASK) == (b & CYG64_TAGGED_TS_MASK))
            return 0;
        own += q < mine_end || q >= mine_again;
    }
    return own;
}

/* What the reader delivered between the thread's previous event and this one: the other
 * threads' events, and which of them are stamped out of order with their neighbours (a record
 * stored long after its reservation, or one left from an earlier lap). */
static void explain(struct chk *c, const struct ev *e)
{
    const struct thr *t = c->cur;
    uint64_t from = t ? t->last_seq : e->seq, prev_time = 0;
    unsigned shown = 0;

    if (!t || e->seq - from > HIST / 2) {
        printf("    (previous event of this thread not kept)\n");
        return;
    }
    printf("    its previous event: seq %" PRIu64 "; in between, %" PRIu64 " seqs:\n", from,
           e->seq - from - 1);
    for (uint64_t q = from; q <= e->seq; q++) {
        const struct ev *h = &c->hist[q % HIST];
        const struct fn_key *k;
        char name[48];
        int odd;

        if (h->seq != q || !h->kind) {
            if (shown++ < 24 || q == e->seq)
                slot_words(c, q);
            continue;
        }
        odd = prev_time && (h->time + 100000 < prev_time || h->time > prev_time + 100000);
        k = lookup(c, h->addr);
        if (shown++ < 24 || odd || q == e->seq)
            printf("    seq %" PRIu64 ": thread %u %s time %" PRIu64 "%s\n", q, h->ctx,
                   k ? step_name(k->fam, k->idx, h->kind == EV_EXIT, name, sizeof name) : "?",
                   h->time, odd ? "  <- stamped far from its neighbours" : "");
        if (odd && c->recs)
            slot_words(c, q);
        prev_time = h->time;
    }
}

static void failf(struct chk *c, const struct ev *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void failf(struct chk *c, const struct ev *e, const char *fmt, ...)
{
    va_list ap;

    if (c->failures++ >= MAX_REPORTS)
        return;
    printf("FAIL seq %" PRIu64 " thread %u: ", e->seq, e->ctx);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (e->kind == EV_ENTER || e->kind == EV_EXIT)
        explain(c, e);
}

/* Every thread loses its place: records were lost between what it saw and what comes. */
static void chk_gap(struct chk *c)
{
    c->gaps++;
    for (unsigned t = 0; t <= c->max_thr; t++) {
        if (!c->thr[t].seen)
            continue;
        c->thr[t].synced = 0;
        c->thr[t].hknown = 0;
        c->thr[t].npend = 0;
    }
}

static void thr_new(struct thr *t, int from_start)
{
    memset(t, 0, sizeof *t);
    t->seen = 1;
    t->fam = -1;
    t->synced = from_start;
    t->hknown = from_start;
}

/* Whether a late store (late_store) took the thread's record before e: then counted, one record
 * (two stalled writers for one thread's chunk are as rare as two late stores), noted for the
 * first few, and the thread finds its place again, as after a gap. */
static int chk_late(struct chk *c, struct thr *t, const struct ev *e)
{
    uint64_t chunk = UINT64_C(1) << c->chunk_log2;

    if (!late_store(c, t, e))
        return 0;
    if (c->late < MAX_REPORTS) { /* the thread's own slots: its chunk's end, the next's start */
        printf("note: seq %" PRIu64 " thread %u: its record before this one lost under a record "
               "stored laps late:\n",
               e->seq, e->ctx);
        for (uint64_t q = t->last_seq + 1; q < e->seq; q++)
            if ((q < ((t->last_seq | (chunk - 1)) + 1) || q >= (e->seq & ~(chunk - 1))) &&
                (c->hist[q % HIST].seq != q || !c->hist[q % HIST].kind))
                slot_words(c, q);
    }
    c->late++;
    t->synced = 0;
    t->hknown = 0;
    t->npend = 0;
    return 1;
}

/* Whether the npend events before step `at` of the cycle are the steps before it. */
static int pend_fits(const struct chk *c, const struct thr *t, unsigned at)
{
    for (unsigned k = 0; k < t->npend; k++) {
        const struct stress_step *want =
            &c->cycle[(at + c->ncycle * 2 - t->npend + k) % c->ncycle];

        if (want->fn != t->pend[k].fn || want->exit != t->pend[k].exit)
            return 0;
    }
    return 1;
}

static void worker_event(struct chk *c, struct thr *t, const struct ev *e, unsigned fam,
                         unsigned fn, unsigned exit)
{
    char got[48], want[48];

    if (t->fam < 0) {
        if (c->fam_owner[fam] >= 0 && c->fam_owner[fam] != (int)e->ctx)
            failf(c, e, "%s, a function of thread %d's family",
                  step_name(fam, fn, exit, got, sizeof got), c->fam_owner[fam]);
        c->fam_owner[fam] = (int)e->ctx;
        t->fam = (int)fam;
    } else if ((int)fam != t->fam) {
        failf(c, e, "%s in a thread of family f%c (torn or invented record)",
              step_name(fam, fn, exit, got, sizeof got), 'a' + t->fam);
        return;
    }
    if (t->hknown && t->hpos != 0) {
        if (chk_late(c, t, e)) {
            worker_event(c, t, e, fam, fn, exit);
            return;
        }
        failf(c, e, "%s inside the signal handler", step_name(fam, fn, exit, got, sizeof got));
    }
    t->hknown = 1;
    t->hpos = 0;
    if (fam == STRESS_FAM_SETUP) { /* main: enter, exit, once */
        if (t->synced && t->pos != exit)
            failf(c, e, "%s out of place", step_name(fam, fn, exit, got, sizeof got));
        t->pos = exit + 1;
        c->verified += t->synced;
        return;
    }
    if (t->synced) {
        const struct stress_step *s = &c->cycle[t->pos];

        if (s->fn != fn || s->exit != exit) {
            if (chk_late(c, t, e)) {
                worker_event(c, t, e, fam, fn, exit);
                return;
            }
            failf(c, e, "%s, expected %s (step %u of the cycle)",
                  step_name(fam, fn, exit, got, sizeof got),
                  step_name(fam, s->fn, s->exit, want, sizeof want), t->pos);
            t->synced = 0; /* report once, then find the place again */
            t->npend = 0;
            return;
        }
        t->pos = (t->pos + 1) % c->ncycle;
        c->verified++;
        return;
    }
    if (fn >= STRESS_TOP + 4 || exit) { /* not a top-level entry: wait for one */
        if (t->npend < STRESS_CYCLE_MAX)
            t->pend[t->npend++] = (struct stress_step){(uint8_t)fn, (uint8_t)exit};
        else
            failf(c, e, "a whole cycle without a top-level entry");
        c->unverified++;
        return;
    }
    for (unsigned i = 0; i < c->ncycle; i++) {
        if (c->cycle[i].fn != fn || c->cycle[i].exit)
            continue;
        if (!pend_fits(c, t, i) && chk_late(c, t, e)) {
            worker_event(c, t, e, fam, fn, exit);
            return;
        }
        if (!pend_fits(c, t, i))
            failf(c, e, "the %u events before this %s do not lead up to it",
                  t->npend, step_name(fam, fn, exit, got, sizeof got));
        c->verified += t->npend + 1;
        c->unverified -= t->npend;
        t->npend = 0;
        t->synced = 1;
        t->pos = (i + 1) % c->ncycle;
        return;
    }
}

static void handler_event(struct chk *c, struct thr *t, const struct ev *e, unsigned fn,
                          unsigned exit)
{
    char got[48], want[48];

    if (!t->hknown) { /* each step is (function, kind) once: it tells where we are */
        for (unsigned i = 0; i < STRESS_HANDLER_LEN; i++)
            if (stress_handler[i].fn == fn && stress_handler[i].exit == exit)
                t->hpos = i;
        t->hknown = 1;
    }
    if (stress_handler[t->hpos].fn != fn || stress_handler[t->hpos].exit != exit) {
        if (chk_late(c, t, e)) {
            handler_event(c, t, e, fn, exit);
            return;
        }
        failf(c, e, "%s, expected %s", step_name(STRESS_FAM_HANDLER, fn, exit, got, sizeof got),
              step_name(STRESS_FAM_HANDLER, stress_handler[t->hpos].fn,
                        stress_handler[t->hpos].exit, want, sizeof want));
        t->hknown = 0;
        return;
    }
    t->hpos = (t->hpos + 1) % STRESS_HANDLER_LEN;
    c->verified++;
}

/* Timestamps within a thread. The hook reserves, then reads the clock: a signal handler that
 * runs between the two records after the interrupted record (in sequence order) but reads the
 * clock before it, so a handler's events may be stamped before the one worker event just
 * before them; counted in ts_back. Any other step back is a failure: a worker event is never
 * before the thread's previous event of either kind, a handler event never before the
 * handler's previous one nor the worker event before the latest. */
static void chk_time(struct chk *c, struct thr *t, const struct ev *e, int handler)
{
    uint64_t floor = handler ? (t->wt_prev > t->ht_last ? t->wt_prev : t->ht_last)
                             : (t->wt_last > t->ht_last ? t->wt_last : t->ht_last);

    if (e->time < floor)
        failf(c, e, "time %" PRIu64 " is %" PRIu64 " ticks before the thread's earlier events",
              e->time, floor - e->time);
    if (handler) {
        c->ts_back += e->time < t->wt_last;
        t->ht_last = e->time;
    } else {
        t->wt_prev = t->wt_last;
        t->wt_last = e->time;
    }
}

static void chk_event(struct chk *c, const struct ev *e)
{
    const struct fn_key *k;
    struct thr *t;

    if (e->kind == EV_LOST) {
        c->lost += e->addr;
        chk_gap(c);
        return;
    }
    c->read++;
    t = &c->thr[e->ctx % MAX_THREADS];
    if (e->ctx % MAX_THREADS > c->max_thr)
        c->max_thr = e->ctx % MAX_THREADS;
    if (e->kind == EV_THREAD) {
        c->specials++;
        thr_new(t, 1);
        return;
    }
    if (e->kind == EV_START || e->kind == EV_TRIGGER) {
        c->specials++;
        return;
    }
    if (e->kind != EV_ENTER && e->kind != EV_EXIT) {
        failf(c, e, "an event of kind %u, which the stress program never makes", e->kind);
        return;
    }
    if (!t->seen)
        thr_new(t, 0);
    t->events++;
    c->hist[e->seq % HIST] = *e;
    c->cur = t;
    if (e->ctx == 0) {
        failf(c, e, "a record without a thread index");
        return;
    }
    if (!(k = lookup(c, e->addr))) {
        failf(c, e, "%s of 0x%" PRIx64 ", not a function of the stress program (torn or "
                    "invented record)",
              e->kind == EV_EXIT ? "exit" : "enter", e->addr);
        return;
    }
    chk_time(c, t, e, k->fam == STRESS_FAM_HANDLER);
    if (k->fam == STRESS_FAM_HANDLER)
        handler_event(c, t, e, k->idx, e->kind == EV_EXIT);
    else
        worker_event(c, t, e, k->fam, k->idx, e->kind == EV_EXIT);
    t->last_seq = e->seq;
}

/* The end of a live run: each thread between two top-level calls and out of the handler. */
static void chk_end(struct chk *c)
{
    for (unsigned i = 0; i <= c->max_thr; i++) {
        struct thr *t = &c->thr[i];
        struct ev e = {.ctx = i};

        if (!t->seen)
            continue;
        if (t->npend && t->fam >= 0 && t->fam < (int)STRESS_FAMILIES) {
            unsigned fits = 0;

            for (unsigned at = 0; at < c->ncycle && !fits; at++)
                fits = pend_fits(c, t, at);
            if (!fits)
                failf(c, &e, "its last %u events are no run of its cycle", t->npend);
        }
        if (!c->live)
            continue;
        if (t->hknown && t->hpos != 0)
            failf(c, &e, "ends inside the signal handler (step %u)", t->hpos);
        if (t->synced && t->fam >= 0 && t->fam < (int)STRESS_FAMILIES &&
            (c->cycle[t->pos].fn >= STRESS_TOP + 4 || c->cycle[t->pos].exit))
            failf(c, &e, "ends inside a top-level call (step %u of the cycle)", t->pos);
        if (t->synced && t->fam == (int)STRESS_FAM_SETUP && t->pos != 2)
            failf(c, &e, "ends inside stress_setup");
    }
    /* A late store needs a writer preempted for a lap between two instructions of its hook:
     * a few a run. Many would be a runtime that stores where it must not. */
    if (c->late > LATE_MAX) {
        printf("FAIL late stores: %" PRIu64 " records lost under records stored laps late, "
               "more than %u\n",
               c->late, LATE_MAX);
        c->failures++;
    }
}

/* --- post-mortem: the ring file as dec.c decodes it ---------------------------------------- */

struct post {
    uint64_t head, decoded, unwritten, holes, padding, overwritten;
};

/* Decodes and checks a ring file after its writer is gone: no gap is allowed. inflight: how
 * many writers may have died between a refused reservation (stop mode) and counting it lost. */
static int post_check(struct chk *c, const char *ring, struct post *p, uint64_t inflight)
{
    char err[256];
    char why[256] = "";
    struct src *s = src_open_file(ring, err, sizeof err);
    struct dec_ring r;
    struct dec_stats st;
    struct dec *d;
    struct ev e;
    uint8_t *buf = NULL;
    int rc;

    if (!s) {
        printf("FAIL %s: %s\n", ring, err);
        return -1;
    }
    if (hdr_locate(s, &r, why, sizeof why) < 0) {
        printf("FAIL %s: %s\n", ring, why);
        src_close(s);
        return -1;
    }
    d = dec_open(s, &r);
    /* The records too, for the words of a slot that explain a failure. */
    c->recs_len = r.cap * r.rec_bytes;
    if (r.word_bytes == 8 && (buf = malloc(c->recs_len)) &&
        src_read(s, r.off + CYG_HDR_BYTES, buf, c->recs_len) == (long)c->recs_len) {
        c->recs = buf;
        c->cap = r.cap;
        c->cap_log2 = r.cap_log2;
        c->rec_bytes = r.rec_bytes;
        c->chunk_log2 = r.chunk_log2;
        c->flags = r.flags;
    }
    for (uint64_t holes = 0; d && (rc = dec_next(d, &e)) > 0;) {
        /* A slot that does not decode between two that do of its chunk is a gap for every
         * thread: its writer died before its last store, or stored a lap or more late over the
         * record that belonged there (that record is lost, the late one refused by its lap
         * tag). The unused end of a chunk, or its padding, is none: the thread's records go on
         * in its next chunk. */
        dec_get_stats(d, &st);
        if (st.holes != holes)
            chk_gap(c);
        holes = st.holes;
        if (e.kind == EV_HOLE) /* the same hole, told to its thread's tree: no event */
            continue;
        chk_event(c, &e);
    }
    chk_end(c);
    dec_get_stats(d, &st);
    dec_close(d);
    src_close(s);
    free(buf);
    c->recs = NULL;
    p->head = r.head;
    p->decoded = st.decoded;
    p->unwritten = st.unwritten;
    p->holes = st.holes;
    p->padding = st.padding;
    p->overwritten = st.overwritten;
    /* Every slot the ring can hold is an event or counted; overwrite mode: the rest was
     * lapped. Stop mode: once full the hooks count in lost without reserving, so head passes
     * the capacity only by the reservations that found it full, each counted lost as well. */
    if (st.decoded + st.unwritten + st.truncated + st.padding != st.end_seq - st.first_seq ||
        st.overwritten != st.first_seq ||
        ((r.flags & CYG_F_OVERWRITE) ? st.end_seq != r.head
                                       : r.head - st.end_seq > r.lost + inflight)) {
        printf("FAIL %s: decoded %" PRIu64 " + unwritten %" PRIu64 " + padding %" PRIu64
               " + overwritten %" PRIu64 " + lost %" PRIu64 " do not add up to head %" PRIu64
               "\n",
               ring, st.decoded, st.unwritten, st.padding, st.overwritten, r.lost, r.head);
        c->failures++;
    }
    return 0;
}

static int cmd_post(int argc, char **argv)
{
    struct chk c;
    struct post p;

    if (argc != 2) {
        fprintf(stderr, "usage: stress_check post RING TABLE\n");
        return 2;
    }
    if (chk_init(&c, argv[1], 0) < 0)
        return 2;
    if (post_check(&c, argv[0], &p, STRESS_FAMILIES) < 0)
        return 1;
    printf("post: head %" PRIu64 " decoded %" PRIu64 " unwritten %" PRIu64 " overwritten %" PRIu64
           " verified %" PRIu64 " unverified %" PRIu64 " late stores %" PRIu64 " failures %" PRIu64
           "\n",
           p.head, p.decoded, p.unwritten, p.overwritten, c.verified, c.unverified, c.late,
           c.failures);
    chk_free(&c);
    return c.failures ? 1 : 0;
}

/* --- running the program ------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

struct child {
    pid_t pid;
    int in;    /* its stdin (the go), -1 when not ours */
    FILE *out; /* its stdout */
    unsigned long hooks[4]; /* the hooks' code, [lo, hi) of each, from its ready line */
};

/* The runtime reads its settings before main: the program's --out, --ring and --mode go into
 * its environment (in the child, before exec). */
static void ring_env(char **argv)
{
    static const char *const opt[][2] = {{"--out", "CYGTRACE_OUT"},
                                         {"--ring", "CYGTRACE_SIZE"},
                                         {"--mode", "CYGTRACE_MODE"}};

    unsetenv("CYGTRACE_OFF");
    unsetenv("CYGTRACE_RING");
    setenv("CYGTRACE_OUT", STRESS_DEFAULT_OUT, 1);
    setenv("CYGTRACE_SIZE", STRESS_DEFAULT_RING, 1);
    setenv("CYGTRACE_MODE", STRESS_DEFAULT_MODE, 1);
    for (int i = 1; argv[i] && argv[i + 1]; i++)
        for (size_t k = 0; k < sizeof opt / sizeof opt[0]; k++)
            if (!strcmp(argv[i], opt[k][0]))
                setenv(opt[k][1], argv[i + 1], 1);
}

/* Starts argv with pipes on its stdin and stdout, and its ring settings in its environment. */
static int spawn(struct child *ch, char **argv)
{
    int in[2], out[2];

    if (pipe(in) < 0 || pipe(out) < 0)
        return -1;
    ch->pid = fork();
    if (ch->pid < 0)
        return -1;
    if (ch->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        ring_env(argv);
        execv(argv[0], argv);
        fprintf(stderr, "stress_check: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    ch->in = in[1];
    ch->out = fdopen(out[0], "r");
    return ch->out ? 0 : -1;
}

/* Waits for the child's "ready" line; 0, or -1 when it ended first. */
static int wait_ready(struct child *ch)
{
    char line[256];

    memset(ch->hooks, 0, sizeof ch->hooks);
    while (fgets(line, sizeof line, ch->out))
        if (!strncmp(line, "ready", 5)) {
            sscanf(line, "ready %*d hooks %lx %lx %lx %lx", &ch->hooks[0], &ch->hooks[1],
                   &ch->hooks[2], &ch->hooks[3]);
            return 0;
        }
    return -1;
}

/* Maps the records of the ring that the reader follows, as the program writes them: the words
 * of the slots that explain a failure or tell a late store (late_store). Returns the mapping
 * (*len bytes), or NULL: then the check goes without. */
static void *map_recs(struct chk *c, const char *ring, const struct dec_ring *r, size_t *len)
{
    int fd = open(ring, O_RDONLY | O_CLOEXEC);
    struct stat st;
    void *m = MAP_FAILED;

    *len = 0;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && r->word_bytes == 8 &&
        (uint64_t)st.st_size >= r->off + CYG_HDR_BYTES + r->cap * r->rec_bytes)
        m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return NULL;
    *len = (size_t)st.st_size;
    c->recs = (const uint8_t *)m + r->off + CYG_HDR_BYTES;
    c->recs_len = r->cap * r->rec_bytes;
    c->cap = r->cap;
    c->cap_log2 = r->cap_log2;
    c->rec_bytes = r->rec_bytes;
    c->chunk_log2 = r->chunk_log2;
    c->flags = r->flags;
    return m;
}

static void follow_cb(void *arg, const struct ev *e)
{
    chk_event(arg, e);
}

static int cmd_live(int argc, char **argv)
{
    double timeout = 600, t0, t1;
    const char *ring, *table;
    char err[256], line[512];
    struct follow *f = NULL;
    void *map = NULL;
    size_t map_len = 0;
    struct child ch;
    struct chk c;
    struct post p;
    unsigned long long events = 0, specials = 0, sigs = 0, inhook = 0, hev = 0;
    double secs = 0;
    int status = 0, exited = 0, idle = 0, i = 0;

    if (argc > 1 && !strcmp(argv[0], "--timeout")) {
        timeout = atof(argv[1]);
        i = 2;
    }
    if (argc - i < 4 || strcmp(argv[i + 2], "--")) {
        fprintf(stderr, "usage: stress_check live [--timeout S] RING TABLE -- PROGRAM ARGS...\n");
        return 2;
    }
    ring = argv[i];
    table = argv[i + 1];
    unlink(ring);
    if (spawn(&ch, argv + i + 3) < 0 || wait_ready(&ch) < 0) {
        printf("FAIL %s: did not start\n", argv[i + 3]);
        return 1;
    }
    if (chk_init(&c, table, 1) < 0 || !(f = follow_open(ring, 1, err, sizeof err))) {
        printf("FAIL %s: %s\n", ring, f ? "" : err);
        kill(ch.pid, SIGKILL);
        waitpid(ch.pid, NULL, 0);
        return 1;
    }
    map = map_recs(&c, ring, follow_ring(f), &map_len);
    t0 = now_s();
    if (write(ch.in, "g", 1) != 1) {
        printf("FAIL: cannot tell the program to go\n");
        kill(ch.pid, SIGKILL);
        waitpid(ch.pid, NULL, 0);
        return 1;
    }
    /* Until the program is gone and two polls in a row find nothing new. */
    for (;;) {
        long n = follow_poll(f, follow_cb, &c, 1u << 16, err, sizeof err);

        if (n < 0) {
            printf("FAIL %s: %s\n", ring, err);
            c.failures++;
            break;
        }
        if (!exited && waitpid(ch.pid, &status, WNOHANG) == ch.pid)
            exited = 1;
        if (n == 0) {
            if (exited && ++idle >= 2)
                break;
            usleep(200);
        } else {
            idle = 0;
        }
        if (now_s() - t0 > timeout) {
            printf("FAIL: no end after %.0f s; killing process %d\n", timeout, (int)ch.pid);
            kill(ch.pid, SIGKILL);
            waitpid(ch.pid, NULL, 0);
            return 1;
        }
    }
    t1 = now_s();
    while (fgets(line, sizeof line, ch.out))
        if (sscanf(line, "done events %llu handler_events %llu specials %llu signals %llu "
                         "in_hook %llu threads %*u seconds %lf",
                   &events, &hev, &specials, &sigs, &inhook, &secs) == 6)
            break;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !events) {
        printf("FAIL %s: exit status 0x%x, no count\n", argv[i + 3], status);
        c.failures++;
    }
    chk_end(&c);
    {
        uint64_t head = follow_ring(f)->head;

        printf("program: events %llu (handler %llu) + specials %llu in %.2f s; signals %llu, "
               "%llu of them in a hook\n",
               events, hev, specials, secs, sigs, inhook);
        printf("reader: read %" PRIu64 " + lost %" PRIu64 " = %" PRIu64 ", head %" PRIu64
               "; %" PRIu64 " gaps, %" PRIu64 " events checked against the pattern, %" PRIu64
               " before finding their place, %.2f s; late stores: %" PRIu64 "\n",
               c.read, c.lost, c.read + c.lost, head, c.gaps, c.verified, c.unverified, t1 - t0,
               c.late);
        printf("note: %" PRIu64 " handler events stamped before the worker event they "
               "follow (a signal between a hook's reservation and its clock read)\n",
               c.ts_back);
        uint64_t pad, unfilled, pending;

        /* A chunked ring's head counts slots: the events', and those that hold none. */
        follow_slots(f, &pad, &unfilled, &pending);
        if (follow_ring(f)->chunk_log2)
            printf("reader: slots with no event: %" PRIu64 " padding, %" PRIu64
                   " unused ends of chunks, %" PRIu64 " still waited for\n",
                   pad, unfilled, pending);
        if (c.read + c.lost + pad + unfilled + pending != head) {
            printf("FAIL read + lost + slots with no event != head\n");
            c.failures++;
        }
        /* Every event the program made was read, or is in the slots counted lost, or was lost
         * under a late store (whose slot the reader counts as an unused end of a chunk). */
        if (c.lost ? c.read > events + specials : c.read + c.late != events + specials) {
            printf("FAIL read %" PRIu64 " does not fit the program's %llu events + %llu "
                   "specials\n", c.read, events, specials);
            c.failures++;
        }
    }
    if (map)
        munmap(map, map_len);
    c.recs = NULL;
    follow_close(f);
    close(ch.in);
    fclose(ch.out);
    printf("live: %" PRIu64 " failures\n", c.failures);
    {
        uint64_t live_fail = c.failures;
        struct chk pc;
        int holes_bad;

        chk_free(&c);
        if (chk_init(&pc, table, 1) < 0 || post_check(&pc, ring, &p, 0) < 0)
            return 1;
        printf("post: head %" PRIu64 " decoded %" PRIu64 " unwritten %" PRIu64 " holes %" PRIu64
               " overwritten %" PRIu64 " verified %" PRIu64 " late stores %" PRIu64
               " failures %" PRIu64 "\n",
               p.head, p.decoded, p.unwritten, p.holes, p.overwritten, pc.verified, pc.late,
               pc.failures);
        /* Every writer finished: a slot with a wrong lap bit amid its chunk was undone, or is
         * under a late store (late_store) that no lap wrote over: the last lap's, or a frozen
         * ring's. A few, then, and none in a ring that never wrapped. The end of a chunk its
         * thread left (the others had gone half a ring on while it was preempted) is no such
         * slot. */
        holes_bad = p.holes > (p.overwritten ? LATE_MAX : 0);
        if (holes_bad)
            printf("FAIL post: %" PRIu64 " slots unwritten amid their chunks after a normal "
                   "exit\n", p.holes);
        else if (p.holes)
            printf("note: post: %" PRIu64 " slots unwritten amid their chunks after a normal "
                   "exit: late stores that no lap wrote over\n",
                   p.holes);
        chk_free(&pc);
        return live_fail || pc.failures || holes_bad ? 1 : 0;
    }
}

/* --- kill -9 trials ------------------------------------------------------------------------ */

/* xorshift64*: the trial's choices and delay from its seed alone. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* Stops the program and counts its threads that stand in a hook's code (the PC that
 * /proc/PID/task/TID/syscall shows for a stopped thread: "-1 SP PC"). In a chunked ring a
 * writer killed between taking its slot and its last store leaves a slot that looks like any
 * unused end of a chunk: this is how a trial knows that it killed one in the middle. */
static unsigned in_hooks(const struct child *ch)
{
    char path[128], line[256];
    struct dirent *de;
    unsigned n = 0;
    DIR *dir;
    int status;

    if (kill(ch->pid, SIGSTOP) < 0 || waitpid(ch->pid, &status, WUNTRACED) != ch->pid)
        return 0;
    snprintf(path, sizeof path, "/proc/%d/task", (int)ch->pid);
    if (!(dir = opendir(path)))
        return 0;
    while ((de = readdir(dir))) {
        unsigned long pc;
        FILE *f;

        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%.20s/syscall", (int)ch->pid, de->d_name);
        if (!(f = fopen(path, "r")))
            continue;
        if (fgets(line, sizeof line, f) && sscanf(line, "-1 %*s %lx", &pc) == 1)
            for (unsigned i = 0; i < 4; i += 2)
                n += pc >= ch->hooks[i] && pc < ch->hooks[i + 1];
        fclose(f);
    }
    closedir(dir);
    return n;
}

static int one_trial(const char *dir, const char *prog, uint64_t seed, double timeout,
                     uint64_t *caught)
{
    static const char *const rings[] = {"4K", "64K", "1M"};
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    unsigned threads = (rnd(&s) & 1) ? 4 : 1;
    const char *rsz = rings[rnd(&s) % 3];
    int sig = (rnd(&s) % 3) != 0, stop = rnd(&s) % 8 == 0;
    long delay_us = (long)(rnd(&s) % 30000);
    char ring[512], table[512], th[8], sus[16];
    char *argv[20];
    struct child ch;
    struct chk c;
    struct post p;
    int n = 0, status;
    unsigned hooked;
    double t0;

    snprintf(ring, sizeof ring, "%s/crash.ring", dir);
    snprintf(table, sizeof table, "%s/crash.table", dir);
    snprintf(th, sizeof th, "%u", threads);
    snprintf(sus, sizeof sus, "%d", sig ? 50 : 0);
    argv[n++] = (char *)prog;
    argv[n++] = "--threads";
    argv[n++] = th;
    argv[n++] = "--events";
    argv[n++] = "0";
    argv[n++] = "--ring";
    argv[n++] = (char *)rsz;
    argv[n++] = "--mode";
    argv[n++] = stop ? "stop" : "overwrite";
    argv[n++] = "--signal-us";
    argv[n++] = sus;
    argv[n++] = "--out";
    argv[n++] = ring;
    argv[n++] = "--table";
    argv[n++] = table;
    argv[n] = NULL;
    unlink(ring);
    printf("trial seed %" PRIu64 ": %u thread%s, ring %s, %s, %s, kill -9 after %ld us: ", seed,
           threads, threads > 1 ? "s" : "", rsz, stop ? "stop" : "overwrite",
           sig ? "signals" : "no signals", delay_us);
    fflush(stdout);
    if (spawn(&ch, argv) < 0 || wait_ready(&ch) < 0) {
        printf("FAIL the program did not start\n");
        return 1;
    }
    usleep((useconds_t)delay_us);
    hooked = in_hooks(&ch);
    kill(ch.pid, SIGKILL);
    t0 = now_s();
    while (waitpid(ch.pid, &status, 0) < 0 && errno == EINTR && now_s() - t0 < timeout)
        ;
    close(ch.in);
    fclose(ch.out);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
        printf("FAIL it ended before the kill (status 0x%x)\n", status);
        return 1;
    }
    if (chk_init(&c, table, 0) < 0)
        return 1;
    if (post_check(&c, ring, &p, STRESS_FAMILIES) < 0) {
        chk_free(&c);
        return 1;
    }
    *caught += hooked != 0;
    printf("%s head %" PRIu64 " decoded %" PRIu64 " unwritten %" PRIu64 " holes %" PRIu64
           " in hooks %u verified %" PRIu64 "\n",
           c.failures ? "FAIL" : "ok", p.head, p.decoded, p.unwritten, p.holes, hooked,
           c.verified);
    chk_free(&c);
    return c.failures ? 1 : 0;
}

static int cmd_crash(int argc, char **argv)
{
    unsigned long trials = 20;
    uint64_t seed = (uint64_t)time(NULL), caught = 0;
    double timeout = 20;
    unsigned long failed = 0;
    int i = 0;

    for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]; i += 2) {
        if (!strcmp(argv[i], "--trials"))
            trials = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--timeout"))
            timeout = atof(argv[i + 1]);
        else
            break;
    }
    if (argc - i != 3 || strcmp(argv[i + 1], "--")) {
        fprintf(stderr, "usage: stress_check crash [--trials N] [--seed S] [--timeout S] DIR "
                        "-- PROGRAM\n");
        return 2;
    }
    printf("crash: %lu trials from seed %" PRIu64 "\n", trials, seed);
    for (unsigned long k = 0; k < trials; k++)
        failed += one_trial(argv[i], argv[i + 2], seed + k, timeout, &caught) != 0;
    printf("crash: %lu trials, %lu failed, %" PRIu64 " killed a writer in the middle of a "
           "hook\n",
           trials, failed, caught);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    if (argc > 1 && !strcmp(argv[1], "live"))
        return cmd_live(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "post"))
        return cmd_post(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "crash"))
        return cmd_crash(argc - 2, argv + 2);
    fprintf(stderr, "usage: stress_check live|post|crash ...\n");
    return 2;
}
