/* SPDX-License-Identifier: MIT */
/* cygtrace_mark.c - the records a program writes of its own, beside its calls: marks (which
 * the control area filters by class), contexts and the switches between them, an RTOS's
 * scheduler events, and the names of contexts and objects (docs/FORMAT.md 7). Each is a special
 * record (cyg_core_special), written only while the ring runs.
 */
/* The port first: it may set defaults of its own before cygtrace_config.h fills in the rest. */
#include "cygtrace_port.h"
#include "cygtrace_core.h"

/* A mark of data (its class and id, or all id before version 3). */
NOINSTR static void cyg_mark(uintptr_t data, uintptr_t value)
{
    if (cyg_rt.ctl->state != CYG_S_RUNNING)
        return;
#if CYGTRACE_CONTROL
    if (CYG_CTRL_ON() ? !cyg_ctrl_mark(data, value)
                      : !(cygtrace_event_mask >> (data >> CYG_MARK_CLASS_SHIFT & 31u) & 1u))
        return;
#endif
    cyg_core_special(CYG_SP_MARK, data, value, cyg_port_thread());
}

NOINSTR void cygtrace_mark(uint32_t id, uintptr_t value)
{
    cyg_mark(id, value);
}

NOINSTR void cygtrace_mark_class(unsigned cls, uint32_t id, uintptr_t value)
{
    cyg_mark((uintptr_t)(cls & 31u) << CYG_MARK_CLASS_SHIFT | (id & CYG_MARK_ID_MASK), value);
}

/* Recorded whatever the filters hide, so that the depth the host sees at the setjmp and after
 * the longjmp is the same (what they let through); not while a start trigger holds the gate
 * shut, which lets nothing through. */
NOINSTR void cygtrace_jump(int jump, const void *env)
{
    if (cyg_rt.ctl->state != CYG_S_RUNNING || cyg_port_busy())
        return;
#if CYGTRACE_CONTROL
    if (CYG_CTRL_ON() && !cyg_ctrl_gate())
        return;
#endif
    cyg_core_special(jump ? CYG_SP_LONGJMP : CYG_SP_SETJMP, 0, (uintptr_t)env, cyg_port_thread());
}

NOINSTR void cygtrace_context(uint32_t id, uintptr_t handle)
{
    if (cyg_rt.ctl->state == CYG_S_RUNNING)
        cyg_core_special(CYG_SP_CONTEXT, id, handle, cyg_port_thread());
}

NOINSTR void cygtrace_switch(uint32_t id, uintptr_t handle)
{
    uintptr_t tid;

    if (cyg_rt.ctl->state != CYG_S_RUNNING)
        return;
    tid = cyg_port_thread();
    /* The clock as a call record of this ring carries it (cyg_put), so that the host orders
     * the switch among the calls around it. */
    if (CYGTRACE_TIMESTAMPS)
        cyg_core_special(CYG_SP_TIME, 0,
                         cyg_port_now() & (CYG_WORD_BITS == 64   ? (uintptr_t)CYG64_TAGGED_TS_MASK
                                           : CYGTRACE_REC4 ? ~(uintptr_t)0 /* all 32 bits */
                                                                 : (uintptr_t)CYG32_TS_MASK),
                         tid);
    cyg_core_special(CYG_SP_CONTEXT, id, handle, tid);
}

NOINSTR void cygtrace_sched(unsigned kind, uint32_t data, uintptr_t a)
{
    if (cyg_rt.ctl->state == CYG_S_RUNNING)
        cyg_core_special(CYG_SP_SCHED, (kind & CYG_SCHED_KIND_MASK) | data, a, cyg_port_thread());
}

/* A word a record: each its own slot, so records of other contexts may come in between (the
 * host puts a name together per context, FORMAT.md 7.5). Read byte by byte: the name may end
 * anywhere, and a word read past its end could fault. */
NOINSTR void cygtrace_name(unsigned what, uintptr_t key, const char *name, size_t max)
{
    const unsigned char *p = (const unsigned char *)name;
    uintptr_t tid, part, bits;

    if (cyg_rt.ctl->state != CYG_S_RUNNING)
        return;
    tid = cyg_port_thread();
    bits = what & (CYG_NAME_OBJECT | CYG_NAME_OBJ_MASK << CYG_NAME_OBJ_SHIFT);
    if (p == NULL)
        max = 0;
    /* Part 0, the key: the last part too when the name has no bytes. */
    cyg_core_special(CYG_SP_NAME, bits | (max == 0 || *p == 0 ? CYG_NAME_LAST : 0), key, tid);
    for (part = 1; part < CYG_NAME_MAX_PARTS && max != 0 && *p != 0; part++) {
        uintptr_t word = 0, n = 0;

        while (n < sizeof word && max != 0 && *p != 0) {
            word |= (uintptr_t)*p++ << (8u * n++);
            max--;
        }
        cyg_core_special(CYG_SP_NAME,
                         bits | part | n << CYG_NAME_LEN_SHIFT |
                             (max == 0 || *p == 0 || part == CYG_NAME_MAX_PARTS - 1u
                                  ? CYG_NAME_LAST
                                  : 0),
                         word, tid);
    }
}
