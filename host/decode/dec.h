/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dec.h - the decoder: dump bytes in, validated events out, in the order they were reserved.
 *
 * It never invents an event: a slot whose lap bit says it was reserved but not written, a slot
 * the dump is too short to hold, and everything the writer overwrote are skipped and counted.
 * Memory is bounded (one read window), whatever the size of the ring. */
#ifndef DEC_H
#define DEC_H

#include <stddef.h>
#include <stdint.h>

#include "decode/ctrl.h"
#include "cyg_format.h"
#include "source/src.h"
#include "util/oaindex.h"

struct names;

/* What a version 3 ring's control area (after its records, docs/FORMAT.md 2.7) gave. */
enum dec_ctrl_state {
    DEC_CTRL_NONE = 0, /* version 1 or 2: the ring has none */
    DEC_CTRL_OK,       /* ctrl holds it */
    DEC_CTRL_SHORT,    /* the dump ends before the area does (at byte ctrl_end) */
    DEC_CTRL_BAD,      /* it is not one: ctrl_why says why */
};

/* A parsed, validated control block. */
struct dec_ring {
    uint64_t off;          /* where the control block starts in the source */
    unsigned word_bytes;   /* 4 or 8 */
    unsigned rec_bytes;
    unsigned cap_log2;
    unsigned flags;        /* CYG_F_* */
    unsigned state;        /* CYG_S_* */
    unsigned machine;      /* ELF e_machine */
    unsigned ts_bits;
    unsigned resets;
    unsigned version;      /* CYG_VERSION_MIN .. CYG_VERSION */
    unsigned chunk_log2;   /* writers reserve 2^chunk_log2 slots at a time (0 in version 1) */
    unsigned rec4;         /* version 4, 4-byte words: byte 23 (F, CYG4_AREA); else 0 */
    uint32_t text_base;    /* version 4, 4-byte words: the code's lowest address, or 0 */
    unsigned expanded;     /* a version 4 ring that dec4m rewrote into 8-byte records: the
                              ring's own record size (4); 0 for any other */
    unsigned build_id_len;
    uint8_t build_id[32];
    uint64_t cap;          /* records the ring holds */
    uint64_t ctl_addr;
    uint64_t load_bias;
    uint64_t head;         /* reservations made */
    uint64_t lost;         /* events the target dropped */
    uint64_t ts_hz;
    uint32_t pid;
    uint32_t hook_cost;    /* the hooks' cost per event: CYG_HOOK_COST_* (0: none known) */
    uint32_t page_cost;    /* ticks more for a record that faulted its page in (0: none) */
    unsigned page_log2;    /* ... of 2^page_log2 bytes */
    unsigned stored_rec;   /* a version 4 ring of 64-bit Linux read as version 3 (dec4l.c):
                              its own bytes a record (8); 0 otherwise */
    unsigned ctrl_state;   /* enum dec_ctrl_state (hdr_locate, hdr_ctrl_parse) */
    uint64_t ctrl_end;     /* DEC_CTRL_SHORT: the source's size, where the dump ends */
    char ctrl_why[96];     /* DEC_CTRL_BAD: why, in one line */
    struct ctrl ctrl;      /* DEC_CTRL_OK: the triggers and filters in force */
};

/* Where the control area of a version 3 ring starts, from its control block. */
static inline uint64_t dec_ctrl_off(const struct dec_ring *r)
{
    return CYG_HDR_BYTES + r->cap * r->rec_bytes;
}

enum ev_kind {
    EV_ENTER = 1,
    EV_EXIT,
    EV_THREAD,   /* addr = OS thread id of ctx */
    EV_CONTEXT,  /* ctx switched to data; addr = handle */
    EV_MARK,     /* data = id, cls = class (version 3; 0 before), addr = value */
    EV_FAULT,    /* data = kind, addr = PC */
    EV_FAULT_LR, /* data = kind, addr = LR */
    EV_START,
    EV_STOP,
    EV_UNKNOWN,  /* a special record of a type this host does not know (data = type) */
    EV_LOST,     /* live streams: addr = records lost at this point, data = enum ev_lost_why */
    EV_PAD,      /* a PAD record: no event; the iterators (dec_next, dec_count, follow, sdec)
                    count it and never return it */
    EV_VALUE,    /* a word of a wrapped call's argument or return value: data = CYG_VAL_*,
                    addr = the word; the tree builder gives it to the innermost open call */
    EV_TRIGGER,  /* a trigger fired (version 3): data = CYG_SP_TRIGGER data (index, kind:
                    CYG_TRIGD_*), addr = the function, or the mark's value */
    EV_SCHED,    /* the scheduler (an RTOS glue): data = CYG_SP_SCHED data (kind, object
                    type, operation, or the other context's id), addr = its word a */
    EV_NAME,     /* a word of a NAME record: data = CYG_NAME_*, addr = the key or W bytes of
                    the name; the iterators return it, and names_feed() (names.h) puts the
                    words of a context back together */
    EV_TIME,     /* a TIME record: no event. It sets the clock (the specials after it take
                    its time); the iterators (dec_next, dec_count, sdec) never return it,
                    dec_record does, for its caller to skip as it skips EV_PAD */
    EV_SETJMP,   /* setjmp called: addr = the jmp_buf's address */
    EV_LONGJMP,  /* longjmp called: addr = the jmp_buf's address; the tree builder closes the
                    calls open since that buffer's EV_SETJMP in the context */
    EV_HOLE,     /* a slot amid context ctx's chunk was never written (its writer died, or
                    stored it late): a record of ctx's is missing here (dec_next; the other
                    iterators skip it). No record: not counted as decoded */
};

enum ev_lost_why {
    EV_LOST_TARGET = 1, /* the target dropped them: the writer lapped the drain, or a slot was
                           never written (the stream's SKIP token) */
    EV_LOST_LINK,       /* frames lost on the link: noise, a gap, bytes dropped */
};

struct ev {
    uint64_t seq;  /* reservation number */
    uint64_t time; /* timestamp ticks, unwrapped; 0 without timestamps */
    uint64_t addr; /* function's run-time address, or the special's payload */
    uint64_t site; /* call site (run-time), 0 when not recorded */
    uint32_t ctx;  /* thread index (64-bit targets) or context id (firmware) */
    uint32_t data;
    uint8_t kind;  /* enum ev_kind */
    uint8_t cls;   /* EV_MARK: the mark's class (version 3), else 0 */
};

/* Whether a trace's clock moved, summed up over its call events' times bit by bit, in any
 * order: the times as recorded (a ring's pass) or unwrapped (a stream's; a clock that stood
 * has every step 0), inverted or not (CYG_F_TS_DOWN), say it alike. */
struct dec_times {
    uint64_t n;     /* call events */
    uint64_t ones;  /* the bits set in some one's time */
    uint64_t zeros; /* the bits clear in some one's time: none in both, all at the same time */
};

static inline void dec_times_add(struct dec_times *k, uint64_t t)
{
    k->n++;
    k->ones |= t;
    k->zeros |= ~t;
}

/* Whether the clock stood still: two call events at least, all at the same time (ones). */
static inline int dec_times_stood(const struct dec_times *k)
{
    return k->n >= 2 && !(k->ones & k->zeros);
}

struct dec_stats {
    uint64_t first_seq;   /* oldest sequence number the ring can still hold */
    uint64_t end_seq;     /* one past the newest */
    uint64_t overwritten; /* events the writer lapped (overwrite mode) */
    uint64_t unwritten;   /* slots reserved but never written (or still being written) */
    uint64_t holes;       /* of unwritten: slots that a later record of their chunk follows
                             (a writer died or is late mid-record); all of them without chunks;
                             the rest are the unused ends of threads' chunks */
    uint64_t padding;     /* slots a thread filled with PAD records (chunked rings) */
    uint64_t truncated;   /* slots missing because the dump is short */
    uint64_t times;       /* TIME records: no event, a clock reading (FORMAT.md 7.5) */
    uint64_t decoded;     /* events returned */
    /* the call records' timestamps, as recorded */
    struct dec_times calls;
};

/* The mark class and id of a mark's data in a ring of this version. */
static inline unsigned dec_mark_class(unsigned version, uint32_t data)
{
    return version >= 3 ? (unsigned)(data >> CYG_MARK_CLASS_SHIFT) & (CYG_MARK_CLASSES - 1) : 0;
}

static inline uint32_t dec_mark_id(unsigned version, uint32_t data)
{
    return version >= 3 ? data & CYG_MARK_ID_MASK : data;
}

/* Timestamps of a clock ts_bits wide, unwrapped into 64 bits (docs/FORMAT.md section 6). */
struct dec_clock {
    uint64_t last_raw;  /* the previous timestamp as recorded */
    uint64_t last_time; /* ... and unwrapped: specials take it */
    int have_time;
    uint64_t flip;      /* the clock's mask when it counts down (CYG_F_TS_DOWN), else 0: a
                           timestamp xor flip goes up */
};

/* Returns raw (mask: the clock's width) unwrapped: the step from the previous timestamp is
 * taken as the signed difference, so small steps backwards (an interrupt that recorded between
 * another record's reservation and its clock read) stay small. */
static inline uint64_t dec_clock_unwrap(struct dec_clock *c, uint64_t raw, uint64_t mask)
{
    uint64_t sign = (mask >> 1) + 1, delta;

    raw ^= c->flip;
    if (!c->have_time) {
        c->have_time = 1;
        c->last_raw = raw;
        c->last_time = raw;
        return raw;
    }
    /* sign-extended from the clock's width: (v ^ sign) - sign is v below sign, else v minus
     * 2^width, without a branch the clock's jitter would mispredict */
    delta = (((raw - c->last_raw) & mask) ^ sign) - sign;
    c->last_raw = raw;
    c->last_time += delta;
    return c->last_time;
}

/* What decoding one record needs to know of its ring, and what carries over from one record
 * to the next: the timestamp being unwrapped, the running context of a 32-bit target. The
 * bulk decoder keeps one; follow.c keeps one to decode records as they are written. */
struct dec_state {
    unsigned version;      /* the ring's: marks carry a class from 3 on */
    unsigned word_bytes;
    unsigned rec_bytes;
    unsigned cap_log2;
    unsigned chunk_log2;   /* 0: one slot an event */
    unsigned flags;        /* CYG_F_* */
    uint64_t ts_mask;      /* the ring's ts_bits */
    struct dec_clock clock;
    uint32_t ctx;          /* running context (32-bit targets) */
};

/* Sets s up for ring r, before its first record. */
void dec_state_init(struct dec_state *s, const struct dec_ring *r);

/* Decodes the record with sequence number seq, r->rec_bytes bytes at rec: 1 with *e filled,
 * or 0 when the slot does not hold that record (reserved but not written, not yet or never,
 * or written in another lap); then s is unchanged. A PAD record gives EV_PAD, which is no
 * event. Records come in sequence order, but for those of a chunk filled late (follow.c). */
int dec_record(struct dec_state *s, const uint8_t *rec, uint64_t seq, struct ev *e);

/* Whether the slot of seq, which does not hold its record (dec_record gave 0), is a hole: what
 * its writer stored there, if it did, is lost. Else it is the unused end of its thread's chunk
 * (no event, or not yet: its thread may still fill it). A hole is a slot that a later slot of
 * its chunk follows written (its writer died, or is late, in the middle of the record), or a
 * chunk's last slot after a written one under a record stored laps late; without chunks,
 * every such slot. The n slots at win are those of win_seq on, as read (seq among them); only
 * those are looked at (the slot before seq too, when it is there). The one rule for the
 * decoder of a dump and for follow.c's of a running ring. */
int dec_hole(const struct dec_state *s, const uint8_t *win, uint64_t win_seq, uint64_t n,
             uint64_t seq);

struct dec;

/* Starts decoding the ring r of source s. NULL when out of memory. */
struct dec *dec_open(struct src *s, const struct dec_ring *r);

/* Gets the next event: 1, or 0 at the end of the trace, or -1 on a read error. */
int dec_next(struct dec *d, struct ev *e);

/* What one pass over all events learns about each context (dec_count, tree_scan). */
/* A setjmp the scan saw: the calls open then (in the trace), and the innermost's function. */
struct dec_jmp {
    uint64_t env;
    unsigned n_open;
    uint64_t fn;
};

struct dec_ctx {
    uint32_t id;       /* thread index or firmware context id */
    uint64_t os_tid;   /* from the thread record, 0 if it was overwritten */
    int vfork;         /* the thread record says: a vfork child, os_tid is its pid */
    uint64_t events;   /* entries and exits */
    long min_depth;    /* minus the depth the trace starts at: the exits that closed no call
                          entered in the trace (dec_ctx_call) */
    uint64_t *open;    /* functions of the calls entered in the trace and still open, innermost
                          last (dec_ctx_free frees it) */
    unsigned n_open, cap_open;
    unsigned kept;     /* of the open calls, those open across the latest loss */
    struct dec_jmp *jmps; /* setjmps whose frame may still be open (dec_ctx_jump; dec_ctx_free
                             frees it) */
    unsigned n_jmps, cap_jmps;
    uint64_t *segs;    /* with an index (dec_count): a bit per segment of the ring that holds
                          a record of this context; NULL without one (dec_ctx_free frees it) */
};

/* A table of contexts is an array *v of *n (room for *cap), in order of first appearance, and
 * an index ix of it by id: every event looks its context up, and a crafted dump may hold
 * hundreds of thousands of them (a search through the array made that quadratic). */

/* Context id in the table, added (zeroed) when it is new; NULL when out of memory. */
struct dec_ctx *dec_ctx_get(struct dec_ctx **v, unsigned *n, unsigned *cap, struct oaindex *ix,
                            uint32_t id);

/* The position of context id in the table v indexed by ix, SIZE_MAX when it has none. */
size_t dec_ctx_find(const struct dec_ctx *v, const struct oaindex *ix, uint32_t id);

/* Accounts an entry (exit = 0) or an exit of the function at addr in c, matched with the open
 * calls as the tree builder (tree.c) will match it, so that min_depth counts the calls the
 * trace starts inside and not those a longjmp skipped; -1 when out of memory. */
int dec_ctx_call(struct dec_ctx *c, int exit, uint64_t addr);

/* Says that c's events may have been lost here (a live stream's EV_LOST). */
void dec_ctx_lost(struct dec_ctx *c);

/* Accounts a setjmp (EV_SETJMP) or a longjmp (EV_LONGJMP) of the buffer env in c, as the tree
 * builder does (tree.c): a longjmp closes the calls open since its buffer's setjmp. -1 when out
 * of memory. */
int dec_ctx_jump(struct dec_ctx *c, int longjmp, uint64_t env);

/* Frees a table of n contexts, what they hold, and its index. NULL is fine. */
void dec_ctx_free(struct dec_ctx *v, unsigned n, struct oaindex *ix);

#define DEC_COUNT_FIRST 256 /* entries whose address dec_count keeps */

/* Where each context's records lie in a 64-bit ring, for passes that want one context only
 * (tree shows one thread after the other, and each thread's pass would otherwise read and
 * decode every thread's records). The pass's sequence numbers are cut into segments of whole
 * read windows; dec_count notes the clock as it stands at the start of each segment, and in
 * each context (segs) the segments that hold a record of it. A pass restricted to a context
 * (dec_only) jumps over the segments that hold none, and takes the clock from here, so that
 * every timestamp unwraps exactly as in a pass that reads everything. A ring of one context
 * gets none, and pays nothing for it: the index starts where a second context shows, and the
 * windows before are read once more then. The memory is bounded: segments get longer in longer
 * rings, and with too many contexts there is none. (A 32-bit ring has none: its context is a
 * state that the records in between set.) */
#define DEC_INDEX_SEGS 16384u          /* segments at most: 384 KB of clock */
#define DEC_INDEX_MIN_LOG2 12u         /* records per segment, log2, at least: one read window */
#define DEC_INDEX_SEGS_BYTES (8u << 20) /* the contexts' segs together at most (2 KB each at
                                           most: 4096 contexts); beyond, no index */

struct dec_index {
    uint64_t first;          /* sequence number where segment 0 starts */
    uint64_t n;              /* segments; 0: none */
    unsigned seg_log2;       /* records per segment, log2 */
    struct dec_clock *clock; /* the clock before each segment's first record */
};

struct dec_counts {
    struct dec_ctx *ctx; /* in order of first appearance */
    unsigned n, cap;
    struct oaindex ctx_ix;   /* ctx by id */
    uint64_t first[DEC_COUNT_FIRST]; /* addresses of the first entries */
    unsigned n_first;
    int want_index;          /* set by the caller: build index and the contexts' segs (best
                                effort: none for a ring of one context or a 32-bit ring, or
                                out of memory) */
    struct names *names;     /* set by the caller, or NULL: the NAME and CONTEXT events go to
                                names_feed (names.h), the only events the count decodes
                                that a pass would otherwise need one by one for */
    struct dec_index index;  /* dec_index_free frees it */
};

/* Runs the rest of the pass as dec_next would, with the same statistics, but only counts into
 * c (zeroed by the caller, but for want_index; dec_ctx_free(c->ctx, c->n, &c->ctx_ix) and
 * dec_index_free(&c->index) after): several times faster than events one by one, for the pass
 * that tree, report and export make before they show anything. 0, or -1 on a read error or
 * out of memory. */
int dec_count(struct dec *d, struct dec_counts *c);

/* Frees what an index holds; NULL is fine. */
void dec_index_free(struct dec_index *x);

/* Makes the pass return the events of context id only: before the first dec_next. The other
 * contexts' records are passed over without making events of them; with x and segs (from
 * dec_count's index of the same ring, and the context's segs), the segments that hold none of
 * its records are not read at all. The statistics then count only what the pass read, and
 * decoded only the events it returned. */
void dec_only(struct dec *d, uint32_t id, const struct dec_index *x, const uint64_t *segs);

/* Makes the pass return the PAD and TIME records too (EV_PAD, EV_TIME, as dec_record gives
 * them), which are no events: for a look at the records themselves (cygtrace dump); before
 * the first dec_next. */
void dec_raw(struct dec *d);

/* Returns what was skipped and decoded so far. */
void dec_get_stats(const struct dec *d, struct dec_stats *st);

/* Frees the decoder (not the source). NULL is fine. */
void dec_close(struct dec *d);

/* Returns the event kind of a special record's type (CYG_SP_*): EV_UNKNOWN for a type this
 * host does not know. */
unsigned dec_special_kind(unsigned type);

/* Returns a short name for an ELF machine number ("x86-64", "ARM", "RISC-V", ...). */
const char *dec_machine_name(unsigned machine);

#endif
