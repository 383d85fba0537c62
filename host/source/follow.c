/* SPDX-License-Identifier: GPL-3.0-or-later */
/* follow.c - follows a running Linux program's ring through a read-only shared mapping of its
 * file, while the program writes it.
 *
 * Reading against a live writer. Records are copied out of the mapping word b first, with an
 * acquire load, then the rest: the writer stores b last after a release barrier, so a b that
 * carries the lap bit of the sequence number we want comes with that record's own a and c.
 * What b cannot tell is a writer that lapped us while we copied and put a newer record in the
 * slot after we read b. So the head is read again after the copy: every record older than that
 * head minus the capacity may have been overwritten under us and is counted lost, not shown.
 * (This relies on the writer's reservation being ordered before its stores, which x86's locked
 * add gives; the Linux port's relaxed add on a weakly ordered CPU leaves a window of a few
 * instructions, in which one torn record could pass.) Decoding is dec.c's, on the copies.
 *
 * A new run of the program. The runtime empties the file, sizes it, and writes a new control
 * block (pid 0 at first, its pid, load bias and clock rate a millisecond later: we attach only
 * once they are there, as the caller takes them from the block). While the file is shorter
 * than our mapping, reading the mapping raises SIGBUS: every read of it goes through guard(),
 * which turns a SIGBUS inside the mapping into an error return. A new run shows as: the file
 * replaced (another inode) or shortened, a different pid (other than the 0 of a run still
 * setting up), the head going backwards, or a ring of another shape. Each starts the follow
 * over at the new run's first record (what it already overwrote is one EV_LOST); the poll that
 * finds it delivers nothing, and follow_restarted() says so once.
 *
 * A slot reserved and not written stops the poll until the next one: its writer is between
 * its reservation and its last store. Unless the head is more than half a ring past it, or the
 * ring's process is gone (kill -9 in the middle of a record): then it is one record lost.
 *
 * Every record is delivered or counted lost. Following from the start means from the ring's
 * first record, not from the oldest it still holds when we attach: a program that started
 * after us may have lapped its ring before our first poll, and those records are lost, not
 * skipped. The events the runtime itself dropped (stop mode, once the ring is full) are in the
 * control block's lost counter: each rise of it is one EV_LOST once the records are read.
 */
#include "source/follow.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cyg_format.h"
#include "decode/dec4l.h"
#include "decode/hdr.h"
#include "util/mono.h"

#define FOLLOW_BATCH 1024u   /* records copied, events delivered, per step */
#define FOLLOW_GRACE_MS 3000 /* how long the file may hold no ring before that is an error */
#define FOLLOW_PENDING 1024u /* chunks waited for at once, at most (chunked rings) */
#define FOLLOW_MOVED_MS 500  /* how long a thread that went on to a later chunk may take to fill
                                the slot it left behind (a signal handler interrupted it) */
#define FOLLOW_THREADS 65536u

/* A chunk of a chunked ring that the frontier passed while its thread was still filling it. */
struct pend {
    uint64_t seq;       /* its next slot to deliver */
    uint64_t end;       /* one past its last slot */
    uint32_t owner;     /* the thread its records are of; 0 while none was seen, or mixed */
    int mixed;          /* records of two threads in it: its owner stays unknown (0) */
    int moved;          /* its thread has a record in a later chunk */
    long long moved_ms; /* since when */
};

struct follow {
    char *path;
    int fd;
    dev_t dev;
    ino_t ino;
    const uint8_t *map;
    size_t map_len;
    struct dec_ring r; /* the control block as last read; head unwrapped to 64 bits */
    int v4;            /* a version 4 ring of 64-bit Linux (FORMAT.md 15), read as version 3
                          (dec4l.c): its words are 8 bytes, its region table after the area */
    struct dec_state ds;
    uint64_t pos;         /* next sequence number to deliver */
    uint64_t head;        /* the head as last read, unwrapped */
    uint64_t lost_said;   /* of the control block's lost counter, what was delivered */
    int restarted;        /* a new run, not yet reported */
    int renewed;          /* the file was replaced or shortened: the next ring is new */
    long long lost_since; /* when the file stopped holding a ring (ms), else 0 */
    char why[192];        /* ... and why */
    /* Chunked rings: the chunks behind pos still being filled, oldest first, and how many of
     * them each thread owns (owned[0]: those whose owner is not known yet). */
    struct pend pend[FOLLOW_PENDING];
    unsigned npend;
    uint16_t owned[FOLLOW_THREADS];
    uint64_t padding;     /* PAD records passed over */
    uint64_t unfilled;    /* slots of chunks that their threads left unused */
    uint8_t raw[FOLLOW_BATCH * 32];
    struct ev evs[FOLLOW_BATCH];
};

/* --- the SIGBUS guard ------------------------------------------------------------------------- */

static __thread sigjmp_buf *guard_jmp;
static __thread const uint8_t *guard_lo, *guard_hi;
static struct sigaction guard_old;
static int guard_installed;

/* A SIGBUS on the mapping being read in this thread returns from guard() with -1; any other is
 * handed to whoever had SIGBUS before us, or kills the process as it would have. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    const uint8_t *a = si->si_addr;

    if (guard_jmp && a >= guard_lo && a < guard_hi)
        siglongjmp(*guard_jmp, 1);
    if ((guard_old.sa_flags & SA_SIGINFO) && guard_old.sa_sigaction) {
        guard_old.sa_sigaction(sig, si, uc);
        return;
    }
    if (!(guard_old.sa_flags & SA_SIGINFO) && guard_old.sa_handler != SIG_DFL &&
        guard_old.sa_handler != SIG_IGN) {
        guard_old.sa_handler(sig);
        return;
    }
    /* The default action: the faulting instruction runs again and faults without us. */
    signal(SIGBUS, SIG_DFL);
    if (si->si_code <= 0)
        raise(sig);
}

static void guard_install(void)
{
    struct sigaction sa;

    if (__atomic_exchange_n(&guard_installed, 1, __ATOMIC_ACQ_REL))
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &guard_old);
}

/* Runs fn(f, arg), which reads f's mapping: 0, or -1 when the file was cut short under it. */
static int guard(struct follow *f, void (*fn)(struct follow *, void *), void *arg)
{
    sigjmp_buf jb;

    if (sigsetjmp(jb, 1)) {
        guard_jmp = NULL;
        return -1;
    }
    guard_lo = f->map;
    guard_hi = f->map + f->map_len;
    guard_jmp = &jb;
    fn(f, arg);
    guard_jmp = NULL;
    return 0;
}

/* --- reading the mapping (only under guard()) ------------------------------------------------- */

/* A counter of the control block (head, lost) as the writer left it, read whole (a copy of the
 * block may tear it); a 32-bit target moves only the low word. */
static uint64_t load_counter(const struct follow *f, size_t off)
{
    if (f->r.word_bytes == 8)
        return __atomic_load_n((const uint64_t *)(const void *)(f->map + off), __ATOMIC_ACQUIRE);
    return __atomic_load_n((const uint32_t *)(const void *)(f->map + off), __ATOMIC_ACQUIRE);
}

/* The head read, unwrapped against the last one (a 32-bit counter wraps); *back is set when it
 * went backwards, which only a new run does. */
static uint64_t unwrap_head(const struct follow *f, uint64_t h, int *back)
{
    uint32_t d;

    if (f->r.word_bytes == 8) {
        *back = h < f->head;
        return h;
    }
    d = (uint32_t)h - (uint32_t)f->head;
    *back = d >= 0x80000000u;
    return f->head + d;
}

struct ctl_io {
    uint8_t hdr[CYG_HDR_BYTES];
    uint64_t head;
    uint64_t lost;
    uint8_t ctrl[CYG_CTRL_BYTES]; /* a version 3 ring's control area, when mapped */
    size_t ctrl_len;              /* its bytes copied: CYG_CTRL_BYTES, or 0 */
    int v4;                       /* the block was a version 4 one (given as version 3) */
};

/* Where the control area lies in the mapping: after the records as the file holds them. */
static uint64_t map_ctrl_off(const struct follow *f)
{
    return f->v4 ? CYG_HDR_BYTES + f->r.cap * 8u : dec_ctrl_off(&f->r);
}

static void read_hdr(struct follow *f, void *arg)
{
    struct ctl_io *io = arg;

    memcpy(io->hdr, f->map, CYG_HDR_BYTES);
    if ((io->v4 = dec4l_is(io->hdr, CYG_HDR_BYTES)) != 0)
        dec4l_block(io->hdr, io->hdr);
    io->head = load_counter(f, CYG_OFF_HEAD);
    io->lost = load_counter(f, CYG_OFF_LOST);
    io->ctrl_len = 0;
    if (f->map_len >= map_ctrl_off(f) + CYG_CTRL_BYTES && f->r.version >= 3) {
        memcpy(io->ctrl, f->map + map_ctrl_off(f), CYG_CTRL_BYTES);
        io->ctrl_len = CYG_CTRL_BYTES;
    }
}

/* Copies one record, word b first (see the top of the file), and b again after the others: a
 * writer a lap late clears b before it stores a (FORMAT.md 3.3), so a b that changed under the
 * copy means another writer's a may be in it: the copy is then of no record (all zero). */
static void copy_rec(uint8_t *dst, const uint8_t *src, unsigned w, unsigned words)
{
    if (w == 8) {
        const uint64_t *s = (const void *)src;
        uint64_t v[4];

        v[1] = __atomic_load_n(&s[1], __ATOMIC_ACQUIRE);
        v[0] = __atomic_load_n(&s[0], __ATOMIC_RELAXED);
        for (unsigned i = 2; i < words; i++)
            v[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&s[1], __ATOMIC_RELAXED) != v[1])
            memset(v, 0, sizeof v);
        memcpy(dst, v, (size_t)words * 8);
    } else {
        const uint32_t *s = (const void *)src;
        uint32_t v[4];

        v[1] = __atomic_load_n(&s[1], __ATOMIC_ACQUIRE);
        v[0] = __atomic_load_n(&s[0], __ATOMIC_RELAXED);
        for (unsigned i = 2; i < words; i++)
            v[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
        memcpy(dst, v, (size_t)words * 4);
    }
}

struct copy_io {
    uint64_t from;
    unsigned n;    /* records to copy into f->raw */
    uint64_t head; /* read after the copy, raw */
};

/* Copies the n records from seq on into dst, as version 3 records for a version 4 ring. */
static void copy_slots(struct follow *f, uint64_t seq, unsigned n, uint8_t *dst)
{
    const unsigned rb = f->r.rec_bytes, words = rb / f->r.word_bytes;

    if (f->v4) {
        dec4l_copy(f->map + CYG_HDR_BYTES, f->map + map_ctrl_off(f) + CYG_CTRL_BYTES,
                   f->r.cap_log2, f->r.chunk_log2, seq, n, dst);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        copy_rec(dst + (size_t)i * rb,
                 f->map + CYG_HDR_BYTES + ((seq + i) & (f->r.cap - 1)) * rb, f->r.word_bytes,
                 words);
}

static void copy_recs(struct follow *f, void *arg)
{
    struct copy_io *io = arg;
    const unsigned rb = f->r.rec_bytes, words = rb / f->r.word_bytes;
    const uint64_t mask = f->r.cap - 1;

    if (f->v4) {
        copy_slots(f, io->from, io->n, f->raw);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        io->head = load_counter(f, CYG_OFF_HEAD);
        return;
    }
    for (unsigned i = 0; i < io->n; i++)
        copy_rec(f->raw + (size_t)i * rb, f->map + CYG_HDR_BYTES + ((io->from + i) & mask) * rb,
                 f->r.word_bytes, words);
    __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the copies before the head that vouches for them */
    io->head = load_counter(f, CYG_OFF_HEAD);
}

/* --- attaching to the file's ring ------------------------------------------------------------- */

static void unmap(struct follow *f)
{
    if (f->map)
        munmap((void *)f->map, f->map_len);
    f->map = NULL;
    f->map_len = 0;
}

static void open_chunks(struct follow *f, void *unused);

/* Opens path and maps the ring it holds in place of the one f had. from_start: deliver from
 * its first record (what it no longer holds comes as lost), else from its head. 0, or -1 with
 * a reason in why. */
static int attach(struct follow *f, int from_start, char *why, size_t whylen)
{
    uint8_t hdr[CYG_HDR_BYTES];
    struct dec_ring r;
    struct ctl_io io;
    struct stat st;
    size_t len;
    ssize_t n;
    void *map;
    int fd, v4;

    fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO would wait for a writer */
    if (fd < 0) {
        snprintf(why, whylen, "%s", errno == ENOENT ? "no such file" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s", S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        goto fail;
    }
    /* pread, not the mapping: a file being cut short gives a short read, not a signal. */
    n = pread(fd, hdr, sizeof hdr, 0);
    if (n < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        goto fail;
    }
    /* version 4: read as the version 3 ring it stands for (dec4l.c) */
    if ((v4 = dec4l_is(hdr, (size_t)n)) != 0)
        dec4l_block(hdr, hdr);
    if (hdr_parse(hdr, (size_t)n, &r, why, whylen) < 0)
        goto fail;
    /* The runtime seals the block, then its pid and clock rate a millisecond later: names and
     * times would be taken from a block without the load bias and the rate. */
    if (r.pid == 0 && r.ts_hz == 0) {
        snprintf(why, whylen, "the program is still setting its ring up");
        goto fail;
    }
    len = CYG_HDR_BYTES + (size_t)r.cap * (v4 ? 8u : r.rec_bytes);
    /* version 4: the control area and the region table too, always */
    if (v4)
        len += CYG_CTRL_BYTES + 16 * 8;
    if ((uint64_t)st.st_size < len) {
        snprintf(why, whylen, "shorter (%llu bytes) than the ring it describes (%zu)",
                 (unsigned long long)st.st_size, len);
        goto fail;
    }
    /* A version 3 ring's control area after the records: mapped too when the file has it
     * (the triggers and filters in force, which one fired); without it, the records alone. */
    if (!v4 && r.version >= 3 && (uint64_t)st.st_size >= len + CYG_CTRL_BYTES)
        len += CYG_CTRL_BYTES;
    map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        snprintf(why, whylen, "cannot map it: %s", strerror(errno));
        goto fail;
    }
    unmap(f);
    if (f->fd >= 0)
        close(f->fd);
    f->fd = fd;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->map = map;
    f->map_len = len;
    f->r = r;
    f->v4 = v4;
    f->r.stored_rec = v4 ? 8u : 0;
    f->head = 0;
    if (guard(f, read_hdr, &io) < 0) {
        snprintf(why, whylen, "the file was cut short while being opened");
        return -1; /* mapped and kept: the next poll looks again */
    }
    f->head = r.word_bytes == 8 ? io.head : (uint32_t)io.head;
    f->r.head = f->head;
    f->r.lost = io.lost;
    hdr_ctrl_parse(&f->r, io.ctrl, io.ctrl_len, (uint64_t)st.st_size);
    dec_state_init(&f->ds, &f->r);
    /* From the start: step() counts what the writer overwrote before we came as lost, and
     * the poll says what the runtime dropped. Else both start from what they are now. */
    if (from_start) {
        f->pos = 0;
        f->lost_said = 0;
    } else {
        f->pos = (r.flags & CYG_F_OVERWRITE) || f->head < r.cap ? f->head : r.cap;
        f->lost_said = io.lost;
    }
    f->renewed = 0;
    f->lost_since = 0;
    f->npend = 0;
    memset(f->owned, 0, sizeof f->owned);
    /* From now, on a chunked ring: the threads' chunks being filled are behind head. What
     * they write there from now on is theirs to see too. */
    if (!from_start && r.chunk_log2 && guard(f, open_chunks, NULL) < 0) {
        snprintf(why, whylen, "the file was cut short while being opened");
        return -1;
    }
    return 0;
fail:
    close(fd);
    return -1;
}

struct follow *follow_open(const char *path, int from_start, char *err, size_t errlen)
{
    struct follow *f = calloc(1, sizeof *f);

    if (!f || !(f->path = strdup(path))) {
        free(f);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->fd = -1;
    guard_install();
    if (attach(f, from_start, err, errlen) < 0) {
        follow_close(f);
        return NULL;
    }
    return f;
}

/* The file holds no ring just now (a new run setting it up, a file being replaced): 1 for a
 * while, then -1 with the reason (what, then why when not NULL). */
static int no_ring(struct follow *f, const char *what, const char *why, char *err, size_t errlen)
{
    long long now = mono_ms();

    if (!f->lost_since) {
        f->lost_since = now;
        snprintf(f->why, sizeof f->why, "%s%s%s", what, why ? ": " : "", why ? why : "");
    }
    if (now - f->lost_since < FOLLOW_GRACE_MS)
        return 1;
    snprintf(err, errlen, "%s", f->why);
    return -1;
}

/* Starts over with the ring the file holds now: 2, or what no_ring() says; until it works,
 * every poll tries again. */
static int restart(struct follow *f, char *err, size_t errlen)
{
    char why[128];

    f->renewed = 1;
    /* From the new run's first record: what it wrote before we looked is counted lost. */
    if (attach(f, 1, why, sizeof why) < 0)
        return no_ring(f, "no longer holds a ring", why, err, errlen);
    f->restarted = 1;
    return 2;
}

/* Looks at the file and its control block: 0 to read on, 1 when there is no ring to read
 * now, 2 when it started over with a new run's, -1 on an error. */
static int check(struct follow *f, char *err, size_t errlen)
{
    struct ctl_io io;
    struct dec_ring r;
    struct stat st;
    char why[128];
    uint64_t head;
    int back;

    if (stat(f->path, &st) < 0)
        return no_ring(f, errno == ENOENT ? "the file went away" : strerror(errno), NULL, err,
                       errlen);
    /* Replaced (whatever is there now is a new run's), or cut short (the runtime's O_TRUNC),
     * now or at an earlier poll that found no ring yet. */
    if (f->renewed || st.st_dev != f->dev || st.st_ino != f->ino || fstat(f->fd, &st) < 0 ||
        (uint64_t)st.st_size < f->map_len || guard(f, read_hdr, &io) < 0)
        return restart(f, err, errlen);
    if (hdr_parse(io.hdr, sizeof io.hdr, &r, why, sizeof why) < 0)
        return no_ring(f, "no longer holds a ring", why, err, errlen); /* a reseal, a new run */
    head = unwrap_head(f, r.word_bytes == 8 ? io.head : (uint32_t)io.head, &back);
    if (r.word_bytes != f->r.word_bytes || r.rec_bytes != f->r.rec_bytes ||
        r.cap_log2 != f->r.cap_log2 || back || (r.pid != f->r.pid && f->r.pid != 0) ||
        f->v4 != io.v4)
        return restart(f, err, errlen);
    f->r = r;
    f->r.stored_rec = f->v4 ? 8u : 0;
    f->r.head = head;
    f->r.lost = io.lost;
    hdr_ctrl_parse(&f->r, io.ctrl, io.ctrl_len, (uint64_t)st.st_size);
    f->lost_since = 0;
    return 0;
}

/* --- delivering ------------------------------------------------------------------------------- */

/* The writer will not come back to an unwritten slot: its process is gone. */
static int writer_gone(const struct follow *f)
{
    return f->r.pid && kill((pid_t)f->r.pid, 0) < 0 && errno == ESRCH;
}

/* The records among n slots from seq that the writers lapped before we read them: all of
 * them, but a version 4 ring's CHUNK words, one a chunk (FORMAT.md 15.3), which are no event:
 * counted as padding, slots with no event. */
static uint64_t lapped(struct follow *f, uint64_t seq, uint64_t n)
{
    uint64_t chunk = (uint64_t)1 << f->r.chunk_log2, words;

    if (!f->v4 || n == 0)
        return n;
    words = (seq + n - 1) / chunk - (seq + chunk - 1) / chunk + 1;
    f->padding += words;
    return n - words;
}

/* An EV_LOST for n records from seq, at the time and context decoding had reached. */
static void lost_ev(struct ev *e, const struct dec_state *ds, uint64_t seq, uint64_t n)
{
    memset(e, 0, sizeof *e);
    e->kind = EV_LOST;
    e->data = EV_LOST_TARGET;
    e->seq = seq;
    e->addr = n;
    e->time = ds->clock.last_time;
    e->ctx = ds->word_bytes == 4 ? ds->ctx : 0;
}

static void read_head(struct follow *f, void *arg)
{
    *(uint64_t *)arg = load_counter(f, CYG_OFF_HEAD);
}

/* Reads head (into f->head) and the end of what the ring holds: head, or the capacity in stop
 * mode; -1 when the ring changed under us. */
static int read_end(struct follow *f, uint64_t *end)
{
    uint64_t head;
    int back;

    if (guard(f, read_head, &head) < 0)
        return -1;
    head = unwrap_head(f, head, &back);
    if (back)
        return -1;
    f->head = f->r.head = head;
    *end = (f->r.flags & CYG_F_OVERWRITE) || head < f->r.cap ? head : f->r.cap;
    return 0;
}

/* Copies n records from f->pos into f->raw, then reads head again (into f->head): what it says
 * vouches for the copies. -1 when the ring changed under us. */
static int copy_at_pos(struct follow *f, struct copy_io *io, unsigned n)
{
    uint64_t head;
    int back;

    io->from = f->pos;
    io->n = n;
    if (guard(f, copy_recs, io) < 0)
        return -1;
    head = unwrap_head(f, io->head, &back);
    if (back)
        return -1;
    f->head = f->r.head = head;
    return 0;
}

/* Decodes up to room (>= 1) events from f->pos into f->evs. Returns the count, with *more 0
 * when caught up with the writer or stopped at a slot still being written; -1 when the ring
 * changed under us (check() sees to it on the next poll).
 *
 * Losses are said where they happened, as one EV_LOST per run of lost records: the run is
 * [lost_seq, lost_seq + lost) and always ends where decoding is. */
static long step(struct follow *f, unsigned room, int *more)
{
    const uint64_t cap = f->r.cap;
    const int overwrite = (f->r.flags & CYG_F_OVERWRITE) != 0;
    struct copy_io io;
    uint64_t head, end, lost = 0, lost_seq = f->pos, s;
    unsigned k = 0;

    *more = 0;
    if (read_end(f, &end) < 0)
        return -1;
    if (f->pos >= end)
        return 0;
    if (overwrite && end - f->pos > cap) { /* lapped: the ring holds [end - cap, end) */
        lost = lapped(f, f->pos, end - cap - f->pos);
        f->pos = end - cap;
    }
    if (copy_at_pos(f, &io, end - f->pos < room ? (unsigned)(end - f->pos) : room) < 0)
        return -1;
    head = f->head;
    /* Records older than head - cap may have been overwritten while we copied them. */
    if (overwrite && head > cap && head - cap > f->pos) {
        lost += lapped(f, f->pos, head - cap - f->pos);
        f->pos = head - cap;
    }
    *more = 1;
    for (s = f->pos; s < io.from + io.n; s++) {
        const uint8_t *rec = f->raw + (size_t)(s - io.from) * f->r.rec_bytes;

        if (k + (lost ? 2u : 1u) > room)
            break;
        if (lost) /* said only if the record after it is there */
            lost_ev(&f->evs[k], &f->ds, lost_seq, lost);
        if (dec_record(&f->ds, rec, s, &f->evs[k + (lost ? 1 : 0)])) {
            k += lost ? 2 : 1;
            lost = 0;
            lost_seq = s + 1;
            continue;
        }
        /* Reserved, not written yet: wait for it, unless the writer is half a ring on (it
         * died in the middle of the record and will lap it before long) or gone. */
        if (head - s > cap / 2 || writer_gone(f)) {
            lost++;
            continue;
        }
        *more = 0;
        break;
    }
    if (lost && k < room) {
        lost_ev(&f->evs[k++], &f->ds, lost_seq, lost);
        lost = 0;
    }
    /* A loss there was no room to say is looked at again by the next step. */
    f->pos = lost ? lost_seq : s;
    if (f->pos >= end)
        *more = 0;
    return k;
}

/* --- chunked rings ---------------------------------------------------------------------------
 *
 * A thread fills a chunk of slots of its own, in order; a thread that idles leaves the rest of
 * its chunk unwritten for as long as it idles. The frontier (pos) does not wait there: it notes
 * the chunk as pending and goes on, and each step first delivers what the pending chunks hold
 * since. A thread's records stay in its order: the frontier stops at a record of a thread that
 * owns a pending chunk (or at any record while a pending chunk's owner is not known yet), until
 * that chunk is done, and so does a pending chunk at one for the pending chunks before it. A pending chunk is done when all of it is delivered, or when what is
 * left will never be written: its process is gone, or its thread has gone on to a later chunk
 * and did not come back within FOLLOW_MOVED_MS. Those slots are counted as unfilled: no event. A
 * hole, by dec.c's rule (dec_hole: a slot that a later record of its chunk follows, its writer
 * dead or late in the middle of the record; a chunk's last slot after a written one, under a
 * record stored laps late), is one record lost after half a ring. A pending chunk that the
 * writers lap (the reader fell a ring behind) is lost from there: its thread may have filled
 * it since the last look, or may have idled (then the loss said is more than there was). */

static uint64_t chunk_end(const struct follow *f, uint64_t seq)
{
    return (seq | (((uint64_t)1 << f->r.chunk_log2) - 1)) + 1;
}

static void pend_drop(struct follow *f, unsigned i)
{
    f->owned[f->pend[i].owner]--;
    memmove(&f->pend[i], &f->pend[i + 1], (f->npend - i - 1) * sizeof f->pend[0]);
    f->npend--;
}

static void pend_add(struct follow *f, uint64_t seq, uint32_t owner, int mixed)
{
    struct pend *p;

    if (f->npend == FOLLOW_PENDING) { /* the oldest goes unfilled */
        f->unfilled += f->pend[0].end - f->pend[0].seq;
        pend_drop(f, 0);
    }
    p = &f->pend[f->npend++];
    memset(p, 0, sizeof *p);
    p->seq = seq;
    p->end = chunk_end(f, seq);
    p->owner = owner;
    p->mixed = mixed;
    f->owned[owner]++;
}

/* Whether a record of thread t after the first n pending chunks must wait for one of them: one
 * of t's, or one whose thread is not known yet. t has gone on to a later chunk: its pending
 * chunks are marked as left. */
static int pend_blocks(struct follow *f, unsigned n, uint32_t t)
{
    int wait = 0;

    if (n == f->npend && !f->owned[0] && !f->owned[t])
        return 0;
    for (unsigned i = 0; i < n; i++) {
        struct pend *p = &f->pend[i];

        wait |= p->owner == 0 || p->owner == t;
        if (p->owner == t && !p->moved) {
            p->moved = 1;
            p->moved_ms = mono_ms();
        }
    }
    return wait;
}

/* Whether the copied slot of seq, at rec, holds its record. */
static int written(const struct follow *f, const uint8_t *rec, uint64_t seq)
{
    struct dec_state ds = f->ds;
    struct ev e;

    return dec_record(&ds, rec, seq, &e);
}

/* Delivers into f->evs from *k (below room) what pending chunk i holds now. Returns 1 when the
 * chunk is done (dropped), 0 when it waits, -1 when the ring changed under us. *gone: -1 until
 * writer_gone() was asked, then its answer. */
static int pend_step(struct follow *f, unsigned i, unsigned room, unsigned *k, int *gone)
{
    const uint64_t cap = f->r.cap, chunk = (uint64_t)1 << f->r.chunk_log2;
    struct pend *p = &f->pend[i];
    struct copy_io io;
    uint64_t head, s;
    int back, asked = 0;

    /* From the slot before the next one when it is of the chunk: dec_hole looks at it. */
    io.from = p->seq & (chunk - 1) ? p->seq - 1 : p->seq;
    io.n = p->end - io.from < FOLLOW_BATCH ? (unsigned)(p->end - io.from) : FOLLOW_BATCH;
    if (guard(f, copy_recs, &io) < 0)
        return -1;
    head = unwrap_head(f, io.head, &back);
    if (back)
        return -1;
    if ((f->r.flags & CYG_F_OVERWRITE) && head > cap && head - cap > p->seq) {
        /* Lapped: its thread may have filled the slots since we looked, or not (an idle
         * thread); nobody can tell now, so they count as lost. */
        uint64_t to = head - cap < p->end ? head - cap : p->end;

        lost_ev(&f->evs[(*k)++], &f->ds, p->seq, to - p->seq);
        p->seq = to;
    }
    for (s = p->seq; s < io.from + io.n && *k < room; s++) {
        const uint8_t *rec = f->raw + (size_t)(s - io.from) * f->r.rec_bytes;
        struct ev *e = &f->evs[*k];
        struct dec_state ds = f->ds;
        int hole, past, left;

        if (dec_record(&ds, rec, s, e)) {
            if (e->kind == EV_PAD) {
                f->padding++;
            } else if (e->kind != EV_TIME) { /* a clock reading: no event */
                if (e->ctx && e->ctx < FOLLOW_THREADS && !p->mixed && p->owner != e->ctx) {
                    /* Its thread found, or a second one (a record torn by a store a lap late,
                     * FORMAT.md 3.3): then no one thread owns it, and it waits for all. */
                    p->mixed = p->owner != 0;
                    f->owned[p->owner]--;
                    f->owned[p->owner = p->mixed ? 0 : e->ctx]++;
                }
                /* A record of a thread with an earlier chunk pending (a signal handler that
                 * went on to a chunk of its own while the thread it interrupted had yet to
                 * store its record) comes after that chunk's. Asked once: the chunks before
                 * this one stay as they are meanwhile, and all its records are one thread's. */
                if (!asked++ && e->ctx < FOLLOW_THREADS && pend_blocks(f, i, e->ctx))
                    break;
                (*k)++;
            }
            f->ds = ds;
            continue;
        }
        /* A hole (dec.c's rule): the writer laps it within half a ring. An end of a chunk: its
         * thread may still come back to it (it idles, or was preempted before its store)
         * until the writers lap it, unless it went on to a later chunk a while ago. */
        hole = dec_hole(&f->ds, f->raw, io.from, io.n, s);
        past = hole && head - s > cap / 2;
        left = !hole && p->moved && mono_ms() - p->moved_ms > FOLLOW_MOVED_MS;
        if (!past && !left && *gone < 0)
            *gone = writer_gone(f);
        if (hole && (past || *gone > 0)) { /* one record lost */
            lost_ev(e, &f->ds, s, 1);
            (*k)++;
            continue;
        }
        if (!hole && (left || *gone > 0)) {
            f->unfilled += p->end - s; /* its thread will not come back to it */
            s = p->end;
        }
        break;
    }
    p->seq = s;
    if (p->seq < p->end)
        return 0;
    pend_drop(f, i);
    return 1;
}

/* Notes as pending each chunk of the ring (up to pos) that its thread has not filled yet: its
 * first unwritten slot on, owned by the thread of the record before it. A chunk with nothing
 * written yet is left out: its thread has not stored its first record, and no owner is known. */
static void open_chunks(struct follow *f, void *unused)
{
    const uint64_t chunk = (uint64_t)1 << f->r.chunk_log2;
    uint64_t c = f->pos > f->r.cap ? f->pos - f->r.cap : 0;
    uint8_t rec[32];
    struct ev e;

    (void)unused;
    for (c &= ~(chunk - 1); c + chunk <= f->pos; c += chunk) {
        uint64_t k;

        copy_slots(f, c + chunk - 1, 1, rec);
        if (written(f, rec, c + chunk - 1))
            continue;
        e.ctx = 0;
        for (k = c; k < c + chunk; k++) {
            struct dec_state ds = f->ds;

            copy_slots(f, k, 1, rec);
            if (!dec_record(&ds, rec, k, &e))
                break;
        }
        if (k > c && e.ctx && e.ctx < FOLLOW_THREADS)
            pend_add(f, k, e.ctx, 0);
    }
}

/* step() for a chunked ring: the pending chunks first, then the frontier. */
static long step_chunked(struct follow *f, unsigned room, int *more)
{
    const uint64_t cap = f->r.cap;
    const int overwrite = (f->r.flags & CYG_F_OVERWRITE) != 0;
    struct copy_io io;
    uint64_t head, end, s, owner_end = 0;
    uint32_t owner = 0, t;
    unsigned k = 0;
    int gone = -1, mixed = 0;

    *more = 0;
    /* A ring that changed under us (-1): what was taken out before is delivered all the same
     * (its chunks' state moved on with it), and the next poll sees to the change. */
    for (unsigned i = 0; i < f->npend && k < room;) {
        int r = pend_step(f, i, room, &k, &gone);

        if (r < 0)
            return k ? (long)k : -1;
        i += r == 0;
    }
    if (k == room) {
        *more = 1;
        return k;
    }
    if (read_end(f, &end) < 0)
        return k ? (long)k : -1;
    if (f->pos >= end)
        return k;
    if (overwrite && end - f->pos > cap) { /* lapped: the ring holds [end - cap, end) */
        lost_ev(&f->evs[k++], &f->ds, f->pos, lapped(f, f->pos, end - cap - f->pos));
        f->pos = end - cap;
        if (k == room) {
            *more = 1;
            return k;
        }
    }
    if (copy_at_pos(f, &io, end - f->pos < room - k ? (unsigned)(end - f->pos) : room - k) < 0)
        return k ? (long)k : -1;
    head = f->head;
    if (overwrite && head > cap && head - cap > f->pos) {
        /* Overwritten while we copied them: lost, said at once, and read again. */
        lost_ev(&f->evs[k++], &f->ds, f->pos, lapped(f, f->pos, head - cap - f->pos));
        f->pos = head - cap;
        *more = 1;
        return k;
    }
    *more = 1;
    for (s = f->pos; s < io.from + io.n && k < room; s++) {
        const uint8_t *rec = f->raw + (size_t)(s - io.from) * f->r.rec_bytes;
        struct ev *e = &f->evs[k];

        if (s >= owner_end) { /* a new chunk: its thread is not known yet */
            owner = 0;
            mixed = 0;
            owner_end = chunk_end(f, s);
        }
        if (!dec_record(&f->ds, rec, s, e)) {
            /* Its thread is still filling it (or left it): waited for apart. */
            pend_add(f, s, owner, mixed);
            s = owner_end - 1;
            continue;
        }
        if (e->kind == EV_PAD) {
            f->padding++;
            continue;
        }
        if (e->kind == EV_TIME) /* a clock reading: no event */
            continue;
        if (e->ctx < FOLLOW_THREADS && pend_blocks(f, f->npend, e->ctx)) {
            /* An earlier chunk of its thread is pending: this record waits for it. The
             * decoder's state moved on with it: the clock only, which takes steps back. */
            *more = 0;
            break;
        }
        /* The chunk's thread: its records' one thread; none when two show (a record torn by
         * a store a lap late, FORMAT.md 3.3), so that its pending slots wait for all. */
        t = e->ctx < FOLLOW_THREADS ? e->ctx : 0;
        if (t && !mixed && owner != t) {
            mixed = owner != 0;
            owner = mixed ? 0 : t;
        }
        k++;
    }
    f->pos = s;
    if (f->pos >= end)
        *more = 0;
    return k;
}

long follow_poll(struct follow *f, follow_fn fn, void *arg, size_t max, char *err, size_t errlen)
{
    long done = 0;
    int rc = check(f, err, errlen), more = 1;
    uint64_t end;

    if (rc)
        return rc < 0 ? -1 : 0;
    while ((size_t)done < max && more) {
        size_t left = max - (size_t)done;
        unsigned room = left < FOLLOW_BATCH ? (unsigned)left : FOLLOW_BATCH;
        long k = f->r.chunk_log2 ? step_chunked(f, room, &more) : step(f, room, &more);

        if (k < 0)
            return done; /* the ring changed: the next poll starts over */
        for (long i = 0; i < k; i++)
            fn(arg, &f->evs[i]);
        done += k;
    }
    /* What the runtime dropped, said once every record written is read: a full ring in stop
     * mode drops the events that come after its last record. */
    end = (f->r.flags & CYG_F_OVERWRITE) || f->head < f->r.cap ? f->head : f->r.cap;
    if (f->pos >= end && (size_t)done < max && f->r.lost > f->lost_said) {
        lost_ev(&f->evs[0], &f->ds, f->pos, f->r.lost - f->lost_said);
        f->lost_said = f->r.lost;
        fn(arg, &f->evs[0]);
        done++;
    }
    return done;
}

const struct dec_ring *follow_ring(const struct follow *f)
{
    return &f->r;
}

void follow_slots(const struct follow *f, uint64_t *padding, uint64_t *unfilled,
                  uint64_t *pending)
{
    *padding = f->padding;
    *unfilled = f->unfilled;
    *pending = 0;
    for (unsigned i = 0; i < f->npend; i++)
        *pending += f->pend[i].end - f->pend[i].seq;
}

int follow_restarted(struct follow *f)
{
    int r = f->restarted;

    f->restarted = 0;
    return r;
}

void follow_close(struct follow *f)
{
    if (!f)
        return;
    unmap(f);
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f);
}
