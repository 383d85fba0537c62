/* cygtrace.c - the portable core: the hooks, the ring and the control API.
 *
 * No #ifdef on the architecture here: the word size is a compile-time constant the compiler
 * folds, and everything that differs between platforms comes from the port's cygtrace_port.h.
 * Built with -fno-instrument-functions; every function is also marked, in case it is not.
 */
#include <string.h>

#include "crc32.h"
#include "cygtrace_internal.h"
#include "cygtrace_port.h"

#define NOINSTR __attribute__((no_instrument_function))
#define HOT __attribute__((no_instrument_function, always_inline)) static inline
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Before init the hooks see a stopped ring and call cyg_port_wake(). */
static struct cyg_ctl cyg_idle_ctl;

struct cyg_rt cyg_rt = {
    .ctl = &cyg_idle_ctl,
    .limit = 0,
};

/* Word b of a record: the lap bit of seq on top, then the rest. ~seq moved up so that its bit
 * cap_log2 lands on the top bit is exactly the lap bit: no division, no table. */
HOT uintptr_t cyg_lap_bits(uintptr_t seq)
{
    return (~seq << cyg_rt.lap_shift) & CYG_TOP_BIT;
}

/* Stores one record. a and c first; b, which carries the lap bit, last and after the barrier,
 * so a reader that sees the lap bit sees the whole record. */
HOT void cyg_store(uintptr_t seq, uintptr_t a, uintptr_t b, uintptr_t c)
{
    uintptr_t *r = cyg_rt.recs + ((seq & cyg_rt.mask) << cyg_rt.shift);

    if (CYGTRACE_CALLSITES == 1 || (CYGTRACE_CALLSITES == 2 && cyg_rt.shift == 2)) {
        r[2] = c;
        r[3] = 0;
    }
    r[0] = a;
    cyg_port_release();
    *(volatile uintptr_t *)&r[1] = b;
}

/* A reservation at or past the limit: returns 1 when the record must be dropped. In overwrite
 * mode the limit is the largest sequence number, reached once every 2^32 events on a 32-bit
 * target: that one is an ordinary record. */
NOINSTR static int cyg_full(struct cyg_ctl *ctl)
{
    uint8_t running = CYG_S_RUNNING;

    if (ctl->flags & CYG_F_OVERWRITE)
        return 0;
    __atomic_compare_exchange_n(&ctl->state, &running, CYG_S_FULL, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    cyg_core_lost();
    return 1;
}

HOT void cyg_event(uintptr_t fn, uintptr_t site, unsigned exit)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;
    uintptr_t tid, seq, ts, a, b;

    if (UNLIKELY(ctl->state != CYG_S_RUNNING)) {
        if (ctl->state == CYG_S_FULL) {
            cyg_core_lost();
            return;
        }
        if (!cyg_port_wake())
            return;
        ctl = cyg_rt.ctl;
    }
    tid = cyg_port_thread();
    /* Reserve before reading the clock: an interrupt or signal handler that records between
     * the two then sits entirely between our reservation and our timestamp, so within one
     * thread the timestamps follow the sequence numbers. */
    seq = cyg_port_reserve(&ctl->head.v);
    if (UNLIKELY(seq >= cyg_rt.limit) && cyg_full(ctl))
        return;
    ts = CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0;
    if (CYG_WORD_BITS == 64) {
        a = fn | tid;
        b = cyg_lap_bits(seq) | (exit ? (uintptr_t)CYG64_EXIT : 0) | (ts & (uintptr_t)CYG64_TS_MASK);
    } else {
        a = (fn & ~(uintptr_t)1) | exit;
        b = cyg_lap_bits(seq) | (ts & (uintptr_t)CYG32_TS_MASK);
    }
    cyg_store(seq, a, b, site);
}

CYGTRACE_API NOINSTR void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    cyg_event((uintptr_t)this_fn, (uintptr_t)call_site, 0);
}

CYGTRACE_API NOINSTR void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    cyg_event((uintptr_t)this_fn, (uintptr_t)call_site, 1);
}

NOINSTR void cyg_core_special(unsigned type, uintptr_t data, uintptr_t payload, uintptr_t tid)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;
    uintptr_t seq, b;

    if (ctl == &cyg_idle_ctl)
        return;
    seq = cyg_port_reserve(&ctl->head.v);
    if (seq >= cyg_rt.limit && cyg_full(ctl))
        return;
    if (CYG_WORD_BITS == 64) {
        uint64_t thread = (uint64_t)tid >> CYG64_THREAD_SHIFT;

        b = (uintptr_t)(CYG64_SPECIAL | (uint64_t)type << CYG64_TYPE_SHIFT |
                        thread << CYG64_STHREAD_SHIFT | ((uint64_t)data & CYG64_DATA_MASK));
    } else {
        b = (uintptr_t)(CYG32_SPECIAL | (uint32_t)type << CYG32_TYPE_SHIFT |
                        ((uint32_t)data & CYG32_DATA_MASK));
    }
    cyg_store(seq, payload, cyg_lap_bits(seq) | b, 0);
}

NOINSTR void cyg_core_detach(void)
{
    cyg_rt.ctl = &cyg_idle_ctl;
}

NOINSTR void cyg_core_lost(void)
{
    __atomic_fetch_add(&cyg_rt.ctl->lost.v, 1, __ATOMIC_RELAXED);
}

/* The check covers the bytes written once at init; magic is in it although it is stored last. */
NOINSTR static void cyg_seal(struct cyg_ctl *ctl)
{
    const unsigned char *p = (const unsigned char *)ctl;
    uint32_t crc = crc32_update(0, CYG_MAGIC, 8);
    volatile uint32_t *magic = (volatile uint32_t *)(void *)ctl->magic;

    ctl->check = crc32_update(crc, p + 8, CYG_OFF_CHECK - 8);
    /* Back to front: a block with the whole magic is a finished block. The two words are
     * built from numbers, not copied from a string, so no copy of the magic sits in flash. */
    magic[1] = CYG_MAGIC_HI;
    magic[0] = CYG_MAGIC_LO;
}

NOINSTR long cygtrace_init(void *mem, size_t bytes, unsigned flags)
{
    struct cyg_ctl *ctl = mem;
    unsigned words = 2, shift = 1, log2 = 0;
    size_t nrec;

    if (CYGTRACE_CALLSITES == 1 ||
        (CYGTRACE_CALLSITES == 2 && (flags & CYG_F_CALLSITES)))
        words = 4, shift = 2;
    if (mem == NULL || bytes < CYG_HDR_BYTES + 2 * words * sizeof(uintptr_t))
        return -1;
    nrec = (bytes - CYG_HDR_BYTES) / (words * sizeof(uintptr_t));
    while (log2 + 1 < CYG_WORD_BITS - 1 && ((size_t)2 << log2) <= nrec)
        log2++;

    cyg_rt.ctl = &cyg_idle_ctl; /* hooks stay out while the block is rebuilt */
    /* A fresh file mapping is zero already; clearing it would make every page resident. */
    memset(ctl, 0, (flags & CYGTRACE_INIT_ZEROED)
                       ? CYG_HDR_BYTES
                       : CYG_HDR_BYTES + ((size_t)words * sizeof(uintptr_t) << log2));
    ctl->version = CYG_VERSION;
    ctl->word_bytes = (uint8_t)sizeof(uintptr_t);
    ctl->rec_bytes = (uint8_t)(words * sizeof(uintptr_t));
    ctl->cap_log2 = (uint8_t)log2;
    ctl->flags = (uint8_t)((flags & CYG_F_OVERWRITE) | (words == 4 ? CYG_F_CALLSITES : 0) |
                           (CYGTRACE_TIMESTAMPS ? CYG_F_TIMESTAMPS : 0) |
                           (CYG_WORD_BITS == 64 ? CYG_F_THREADS : 0));
    ctl->machine = CYG_PORT_MACHINE;
    ctl->hdr_bytes = CYG_HDR_BYTES;
    ctl->ts_bits = CYG_WORD_BITS == 64 ? CYG64_TS_BITS : CYG32_TS_BITS;
#ifdef CYG_PORT_TS_BITS
    if (CYG_PORT_TS_BITS < ctl->ts_bits) /* a narrower clock (SysTick: 24 bits) */
        ctl->ts_bits = CYG_PORT_TS_BITS;
#endif
    ctl->ctl_addr = (uint64_t)(uintptr_t)ctl;
    cyg_seal(ctl);

    cyg_rt.recs = (uintptr_t *)(void *)((unsigned char *)ctl + CYG_HDR_BYTES);
    cyg_rt.mask = ((uintptr_t)1 << log2) - 1;
    cyg_rt.limit = (flags & CYG_F_OVERWRITE) ? ~(uintptr_t)0 : cyg_rt.mask + 1;
    cyg_rt.shift = shift;
    cyg_rt.lap_shift = (unsigned)(CYG_WORD_BITS - 1u - log2);
    __atomic_store_n(&cyg_rt.ctl, ctl, __ATOMIC_RELEASE);
    if (CYGTRACE_AUTOSTART)
        cygtrace_start();
    return (long)(cyg_rt.mask + 1);
}

NOINSTR void cygtrace_start(void)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;
    uint8_t st = ctl->state;

    if (ctl == &cyg_idle_ctl || st == CYG_S_FROZEN || st == CYG_S_FULL || st == CYG_S_RUNNING)
        return;
    ctl->state = CYG_S_RUNNING;
    cyg_core_special(CYG_SP_START, 0, 0, cyg_port_thread());
}

NOINSTR void cygtrace_stop(void)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl->state != CYG_S_RUNNING)
        return;
    cyg_core_special(CYG_SP_STOP, 0, 0, cyg_port_thread());
    ctl->state = CYG_S_STOPPED;
}

NOINSTR void cygtrace_freeze(void)
{
    if (cyg_rt.ctl != &cyg_idle_ctl)
        cyg_rt.ctl->state = CYG_S_FROZEN;
}

NOINSTR void cygtrace_set_mode(int mode)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_idle_ctl)
        return;
    if (mode == CYGTRACE_MODE_OVERWRITE) {
        ctl->flags |= CYG_F_OVERWRITE;
        cyg_rt.limit = ~(uintptr_t)0;
    } else if (ctl->head.v > cyg_rt.mask) {
        /* Stop mode keeps the oldest records; once the writer has lapped them, the best left
         * to keep is what the ring holds now, read as the flight recorder it was. */
        ctl->state = CYG_S_FULL;
        return;
    } else {
        ctl->flags &= (uint8_t)~CYG_F_OVERWRITE;
        cyg_rt.limit = cyg_rt.mask + 1;
    }
    cyg_seal(ctl);
}

NOINSTR void cygtrace_mark(uint32_t id, uintptr_t value)
{
    if (cyg_rt.ctl->state == CYG_S_RUNNING)
        cyg_core_special(CYG_SP_MARK, id, value, cyg_port_thread());
}

NOINSTR void cygtrace_context(uint32_t id, uintptr_t handle)
{
    if (cyg_rt.ctl->state == CYG_S_RUNNING)
        cyg_core_special(CYG_SP_CONTEXT, id, handle, cyg_port_thread());
}

NOINSTR void cygtrace_fault(unsigned kind, uintptr_t pc, uintptr_t lr)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl->state == CYG_S_RUNNING) {
        uintptr_t tid = cyg_port_thread();

        cyg_core_special(CYG_SP_FAULT, kind, pc, tid);
        cyg_core_special(CYG_SP_FAULT_LR, kind, lr, tid);
    }
    cygtrace_freeze();
}

NOINSTR void cygtrace_set_build_id(const void *id, size_t len)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_idle_ctl)
        return;
    if (len > CYG_BUILD_ID_MAX)
        len = CYG_BUILD_ID_MAX;
    memset(ctl->build_id, 0, sizeof ctl->build_id);
    memcpy(ctl->build_id, id, len);
    ctl->build_id_len = (uint8_t)len;
    cyg_seal(ctl);
}

NOINSTR void cyg_core_set_image(uint64_t load_bias, uint32_t pid, uint64_t ts_hz)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_idle_ctl)
        return;
    ctl->load_bias = load_bias;
    ctl->pid = pid;
    ctl->ts_hz = ts_hz;
    cyg_seal(ctl);
}

NOINSTR void *cygtrace_control_block(void)
{
    return cyg_rt.ctl == &cyg_idle_ctl ? NULL : cyg_rt.ctl;
}
