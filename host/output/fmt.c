/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fmt.c - the text of names, durations and records for every output (fmt.h). */
#include "output/fmt.h"

#include <bfd.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "symbols/wsig.h"
#include "util/numfmt.h"

/* libiberty's DMGL_PARAMS and DMGL_ANSI: "ns::f(int) const" with both; the tree writes the
 * parentheses itself, so names are shown without parameters unless --signatures asks. */
#define DEMANGLE_PARAMS (1 << 0)
#define DEMANGLE_ANSI (1 << 1)

/* The symbol table keeps names as they are; only what is shown is demangled. */
char *fmt_demangle(const char *name, int params)
{
    if (params)
        return bfd_demangle(NULL, name, DEMANGLE_PARAMS | DEMANGLE_ANSI);
    return name[0] == '_' && name[1] == 'Z' ? bfd_demangle(NULL, name, DEMANGLE_ANSI) : NULL;
}

void fmt_addr(const struct sym_table *sym, uint64_t bias, uint64_t addr, char *buf, size_t len)
{
    const struct sym_info *s = sym ? sym_lookup(sym, addr - bias) : NULL;
    char *dm = s ? fmt_demangle(s->name, 0) : NULL;
    /* a wrapper's call shows as the call of what it wraps; an address inside its code (a
     * fault's return address) as the wrapper's, not as code of the wrapped function */
    const char *wrapped = s && s->start == addr - bias ? wsig_wrapped_name(s->name) : NULL;
    const char *name = dm ? dm : wrapped ? wrapped : s ? s->name : NULL;

    if (!s)
        snprintf(buf, len, "0x%" PRIx64, addr - bias);
    else if (s->start == addr - bias)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "%s+0x%" PRIx64, name, addr - bias - s->start);
    free(dm);
}


uint64_t fmt_duration_ns(uint64_t ticks, uint64_t hz)
{
    double ns = (double)ticks * 1e9 / (double)hz + 0.5;

    /* A slow clock (a bad ts_hz, a corrupt timestamp) can give more ns than 64 bits hold, and
     * converting such a double is undefined: saturate (found by tests/fuzz/fuzz_dump.c). */
    return ns < 0x1p63 ? (uint64_t)ns : UINT64_C(1) << 63; /* room for the rounding below */
}

/* ns are the thousandths of a us: "1.234 us", "2.500 ms", "3.000 s". */
size_t fmt_ns_text(uint64_t milli, char *buf)
{
    static const char units[][4] = {" us", " ms", " s"};
    unsigned u = 0;
    size_t n;

    while (u < 2 && milli >= 1000000) {
        milli = (milli + 500) / 1000;
        u++;
    }
    n = numfmt_u64(buf, milli / 1000, 1);
    buf[n++] = '.';
    numfmt_3(buf + n, (unsigned)(milli % 1000));
    n += 3;
    memcpy(buf + n, units[u], 4);
    return n + (u == 2 ? 2 : 3);
}

size_t fmt_duration_text(uint64_t ticks, uint64_t hz, char *buf)
{
    size_t n;

    if (!hz) {
        n = numfmt_u64(buf, ticks, 1);
        memcpy(buf + n, " ticks", 7);
        return n + 6;
    }
    return fmt_ns_text(fmt_duration_ns(ticks, hz), buf);
}

void fmt_duration(uint64_t ticks, uint64_t hz, char *buf, size_t len)
{
    if (len < 32) { /* the longest: 20 digits and " ticks" */
        if (len)
            buf[0] = 0;
        return;
    }
    fmt_duration_text(ticks, hz, buf);
}

/* The usual name of a fatal signal number (Linux numbering, which every supported port has). */
static const char *signal_name(unsigned sig)
{
    switch (sig) {
    case 4: return "SIGILL";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 11: return "SIGSEGV";
    default: return "signal";
    }
}

/* A RISC-V trap's name, from the code in its mcause (CYG_FAULT_RISCV kinds); NULL for codes
 * the privileged spec reserves or leaves to the platform. */
static const char *riscv_trap_name(unsigned code, int irq)
{
    static const char *const exc[] = {"instruction address misaligned",
                                      "instruction access fault",
                                      "illegal instruction",
                                      "breakpoint",
                                      "load address misaligned",
                                      "load access fault",
                                      "store/AMO address misaligned",
                                      "store/AMO access fault",
                                      "ecall from U-mode",
                                      "ecall from S-mode",
                                      NULL,
                                      "ecall from M-mode",
                                      "instruction page fault",
                                      "load page fault",
                                      NULL,
                                      "store/AMO page fault"};
    static const char *const intr[] = {NULL, "supervisor software interrupt", NULL,
                                       "machine software interrupt", NULL,
                                       "supervisor timer interrupt", NULL,
                                       "machine timer interrupt", NULL,
                                       "supervisor external interrupt", NULL,
                                       "machine external interrupt"};

    if (irq)
        return code < sizeof intr / sizeof intr[0] ? intr[code] : NULL;
    return code < sizeof exc / sizeof exc[0] ? exc[code] : NULL;
}

/* Is addr inside the cygtrace runtime (its hooks or API)? */
static int in_runtime(const struct sym_table *sym, uint64_t bias, uint64_t addr)
{
    const struct sym_info *s = sym ? sym_lookup(sym, addr - bias) : NULL;

    return s && (!strncmp(s->name, "__cyg_profile_func_", 19) || !strncmp(s->name, "cyg_", 4) ||
                 !strncmp(s->name, "cygtrace_", 9));
}

/* Whether the return address lr recorded at a fault at pc names the faulting function's
 * caller. In instrumented code the function called the entry hook first, and LR (ra) holds
 * where its latest call returned: inside the function itself (the hook's call, or any other),
 * or inside the hook when the hook called on; that says nothing of its caller, which the call
 * stack names. A caller shows only in a function that made no call (not instrumented, a
 * leaf): LR in another function of the ELF. On a Cortex-M, LR holds EXC_RETURN (0xFFFFFFxx) in
 * an exception handler that has made no call, FNC_RETURN (0xFEFFFFFx) after a call from the
 * Secure state: no code lives at 0xF0000000 and up, no caller. Without symbols, LR is shown
 * as it is, but for those. */
static int fault_caller(const struct sym_table *sym, uint64_t bias, int arm, uint64_t pc,
                        uint64_t lr)
{
    const struct sym_info *f, *g;

    if (!lr || (arm && lr >= 0xf0000000u) || in_runtime(sym, bias, lr))
        return 0;
    if (!sym)
        return 1;
    f = sym_lookup(sym, pc - bias);
    g = sym_lookup(sym, lr - bias);
    return g && g != f;
}

void fmt_fault(const struct sym_table *sym, uint64_t bias, unsigned addr_width,
               const struct ev *fault, const struct ev *lr, char *buf, size_t len)
{
    static const char *const names[] = {[CYG_FAULT_HARD] = "HardFault",
                                        [CYG_FAULT_MEMMANAGE] = "MemManage fault",
                                        [CYG_FAULT_BUS] = "BusFault",
                                        [CYG_FAULT_USAGE] = "UsageFault",
                                        [CYG_FAULT_SECURE] = "SecureFault"};
    uint64_t thumb = addr_width == 8; /* 32-bit ARM code addresses carry the Thumb bit */
    unsigned kind = fault->data;
    char pc[256], from[256];
    int arm = 1;
    size_t n;

    fmt_addr(sym, bias, fault->addr & ~thumb, pc, sizeof pc);
    if (kind >= CYG_FAULT_RISCV && kind < CYG_FAULT_RISCV + 0x100u) {
        /* RISC-V: the trap's name and its mcause as the firmware saw it (the interrupt flag in
         * bit 31); the word after the PC is ra, shown as LR is below. */
        unsigned code = kind & CYG_FAULT_RISCV_CODE, irq = (kind & CYG_FAULT_RISCV_IRQ) != 0;
        const char *what = riscv_trap_name(code, irq);

        n = (size_t)snprintf(buf, len, "*** %s (mcause %s%u) at %s", what ? what : "trap",
                             irq ? "0x80000000 + " : "", code, pc);
        arm = 0;
    } else if (kind >= CYG_FAULT_SIGNAL) {
        /* Linux: the word after the PC is the faulting address, not a return address. */
        unsigned sig = kind - CYG_FAULT_SIGNAL;

        /* A PC outside the ELF (in a library: abort() in libc) is shown as it was at run
         * time; the program's load bias means nothing there. */
        if (!sym || !sym_lookup(sym, fault->addr - bias))
            snprintf(pc, sizeof pc, "0x%" PRIx64 " (outside the ELF)", fault->addr);
        n = (size_t)snprintf(buf, len, "*** signal %u (%s) at %s", sig, signal_name(sig), pc);
        if (lr && n < len && (lr->addr || sig == 11 || sig == 7)) /* NULL: the usual bad one */
            snprintf(buf + n, len - n, ", address 0x%" PRIx64, lr->addr);
        return;
    } else if (kind < sizeof names / sizeof names[0] && names[kind])
        n = (size_t)snprintf(buf, len, "*** %s at %s", names[kind], pc);
    else
        n = (size_t)snprintf(buf, len, "*** fault %u at %s", kind, pc);
    if (lr && n < len && fault_caller(sym, bias, arm, fault->addr & ~thumb, lr->addr & ~thumb)) {
        fmt_addr(sym, bias, lr->addr & ~thumb, from, sizeof from);
        snprintf(buf + n, len - n, ", called from %s", from);
    }
}

const char *fmt_ctrl_name(void *arg, uint64_t addr)
{
    struct fmt_namer *nm = arg;

    addr &= ~nm->thumb;
    if (!nm->sym || !sym_lookup(nm->sym, addr - nm->bias))
        return NULL;
    fmt_addr(nm->sym, nm->bias, addr, nm->buf, sizeof nm->buf);
    return nm->buf;
}

void fmt_trigger(const struct fmt_namer *nm, const struct ctrl *c, const struct ev *e,
                 char *buf, size_t len)
{
    static const char *const kinds[CYG_TRIG_KINDS] = {"?", "start", "stop", "freeze",
                                                      "freeze at a mark"};
    struct fmt_namer n = *nm; /* its buffer is written */
    unsigned i = e->data & CYG_TRIGD_IDX_MASK, kind = e->data >> CYG_TRIGD_KIND_SHIFT & 0xfu;
    const char *name;
    char t[256];

    if (kind >= CYG_TRIG_KINDS)
        kind = 0;
    /* The area names the trigger when it still holds it as the record says (a later request
     * may have changed it since). */
    if (c && i < c->ntrig && c->trig[i].kind == kind && kind &&
        (kind == CYG_TRIG_FREEZE_MARK || ((c->trig[i].what ^ e->addr) & ~n.thumb) == 0)) {
        ctrl_trig_text(c, i, fmt_ctrl_name, &n, t, sizeof t);
        if (kind == CYG_TRIG_FREEZE_MARK)
            snprintf(buf, len, "trigger %s fired (mark value 0x%" PRIx64 ")", t, e->addr);
        else
            snprintf(buf, len, "trigger %s fired", t);
        return;
    }
    if (kind == CYG_TRIG_FREEZE_MARK) {
        snprintf(buf, len, "trigger %u (%s) fired: mark value 0x%" PRIx64, i, kinds[kind],
                 e->addr);
        return;
    }
    name = fmt_ctrl_name(&n, e->addr);
    if (name)
        snprintf(buf, len, "trigger %u (%s) fired at %s", i, kinds[kind], name);
    else
        snprintf(buf, len, "trigger %u (%s) fired at 0x%" PRIx64, i, kinds[kind], e->addr);
}

unsigned fmt_ctrl_notes(FILE *f, const char *prefix, const struct dec_ring *r,
                        const struct sym_table *sym)
{
    struct fmt_namer nm = {sym, r->load_bias, r->word_bytes == 4, {0}};

    if (r->ctrl_state != DEC_CTRL_OK)
        return 0;
    return ctrl_describe(&r->ctrl, fmt_ctrl_name, &nm, prefix, f);
}

void fmt_mark(const struct ev *e, char *buf, size_t len)
{
    if (e->cls)
        snprintf(buf, len, "mark %u class %u = 0x%" PRIx64, e->data, e->cls, e->addr);
    else
        snprintf(buf, len, "mark %u = 0x%" PRIx64, e->data, e->addr);
}

/* The object types a context blocks on, by CYG_OBJ_*, and the operations, by CYG_OP_*. */
static const char *const obj_words[] = {
    NULL,  "queue",   "semaphore", "mutex",   "event group", "stream buffer", NULL,    NULL,
    NULL,  NULL,      "k_sem",     "k_mutex", "k_queue",     "k_msgq",        "k_stack", "k_pipe"};
static const char *const op_words[] = {"receive", "send", "peek", NULL};
static const char *const k_op_words[] = {"get", "put", "peek", NULL};   /* k_queue, k_msgq */
static const char *const pipe_op_words[] = {"read", "write", NULL, NULL}; /* k_pipe */

#define N_OBJ_WORDS (sizeof obj_words / sizeof *obj_words)

/* The record says what happened, and all it knows (the operation, a handle with no type);
 * the interval names the state the context is in. */
void fmt_block(const struct names *n, unsigned objtype, uint64_t obj, unsigned op,
               enum fmt_block_style style, char *buf, size_t len)
{
    int rec = style == FMT_BLOCK_RECORD;
    const char *name, *optext = NULL;
    unsigned named_type = 0;
    char who[300];

    switch (objtype) {
    case CYG_OBJ_DELAY:
        if (!obj)
            snprintf(buf, len, rec ? "delay" : "delayed");
        else if (rec)
            snprintf(buf, len, "delay %" PRIu64 " tick%s", obj, obj == 1 ? "" : "s");
        else
            snprintf(buf, len, "delayed (%" PRIu64 " ticks)", obj);
        return;
    case CYG_OBJ_NOTIFY:
        snprintf(buf, len, rec ? "blocked on a notification" : "waiting for a notification");
        return;
    case CYG_OBJ_SUSPEND:
        snprintf(buf, len, "suspended");
        return;
    }
    name = rec || obj ? names_obj(n, obj, &named_type) : NULL;
    if (objtype >= N_OBJ_WORDS) /* CYG_OBJ_NONE stays: no type */
        objtype = CYG_OBJ_NONE;
    if (rec && objtype == CYG_OBJ_NONE && named_type < N_OBJ_WORDS)
        objtype = named_type; /* the NAME record gave the type */
    if (!obj_words[objtype] && !(rec && name)) {
        if (rec && obj)
            snprintf(buf, len, "blocked on 0x%" PRIx64, obj);
        else
            snprintf(buf, len, "blocked");
        return;
    }
    if (objtype == CYG_OBJ_QUEUE || objtype == CYG_OBJ_STREAM)
        optext = op_words[op & CYG_SCHED_OP_MASK];
    else if (objtype == CYG_OBJ_SEMAPHORE || objtype == CYG_OBJ_MUTEX || objtype == CYG_OBJ_K_SEM)
        optext = "take";
    else if (objtype == CYG_OBJ_K_QUEUE || objtype == CYG_OBJ_K_MSGQ)
        optext = k_op_words[op & CYG_SCHED_OP_MASK];
    else if (objtype == CYG_OBJ_K_PIPE)
        optext = pipe_op_words[op & CYG_SCHED_OP_MASK];
    else if (objtype == CYG_OBJ_K_MUTEX)
        optext = "lock";
    else if (objtype == CYG_OBJ_K_STACK)
        optext = "pop";
    if (name)
        snprintf(who, sizeof who, "%s%s\"%s\"", obj_words[objtype] ? obj_words[objtype] : "",
                 obj_words[objtype] ? " " : "", name);
    else
        snprintf(who, sizeof who, "%s 0x%" PRIx64, obj_words[objtype], obj);
    if (rec && optext)
        snprintf(buf, len, "blocked on %s (%s)", who, optext);
    else
        snprintf(buf, len, "blocked on %s", who);
}

void fmt_sched(const struct names *n, const struct sym_table *sym, uint64_t bias,
               const struct ev *e, char *buf, size_t len)
{
    unsigned kind = e->data & CYG_SCHED_KIND_MASK;
    uint32_t id = e->data >> CYG_SCHED_ID_SHIFT & CYG_SCHED_ID_MASK;
    char who[300];

    switch (kind) {
    case CYG_SCHED_BLOCK:
        fmt_block(n, e->data >> CYG_SCHED_OBJ_SHIFT & CYG_SCHED_OBJ_MASK, e->addr,
                  e->data >> CYG_SCHED_OP_SHIFT & CYG_SCHED_OP_MASK, FMT_BLOCK_RECORD, buf, len);
        return;
    case CYG_SCHED_WAKE:
        names_ctx_text(n, sym, bias, id, e->addr, who, sizeof who);
        snprintf(buf, len, "wakes %s", who);
        return;
    case CYG_SCHED_RESUME:
        names_ctx_text(n, sym, bias, id, e->addr, who, sizeof who);
        snprintf(buf, len, "woken by %s", who);
        return;
    default:
        snprintf(buf, len, "scheduler record of unknown kind %u", kind);
        return;
    }
}

void fmt_count(uint64_t n, char *buf, size_t len)
{
    if (n < 1000000000u)
        snprintf(buf, len, "%" PRIu64, n);
    else if (n < UINT64_C(1000000000000))
        snprintf(buf, len, "%" PRIu64 "M", n / 1000000u);
    else
        snprintf(buf, len, "%" PRIu64 "G", n / 1000000000u);
}

void fmt_rate(double r, const char *unit, char *buf, size_t len)
{
    if (r < 1000)
        snprintf(buf, len, "%.0f %s", r, unit);
    else if (r < 1e6)
        snprintf(buf, len, "%.1fk %s", r / 1e3, unit);
    else
        snprintf(buf, len, "%.1fM %s", r / 1e6, unit);
}

const char *fmt_kind(unsigned kind)
{
    static const char *const names[] = {
        [EV_ENTER] = "enter",     [EV_EXIT] = "exit",       [EV_THREAD] = "thread",
        [EV_CONTEXT] = "context", [EV_MARK] = "mark",       [EV_FAULT] = "fault",
        [EV_FAULT_LR] = "fault-lr", [EV_START] = "start",   [EV_STOP] = "stop",
        [EV_UNKNOWN] = "unknown", [EV_LOST] = "lost",       [EV_PAD] = "pad",
        [EV_VALUE] = "value",     [EV_TRIGGER] = "trigger", [EV_SCHED] = "sched",
        [EV_NAME] = "name",       [EV_TIME] = "time",       [EV_SETJMP] = "setjmp",
        [EV_LONGJMP] = "longjmp", [EV_HOLE] = "hole",
    };

    return kind < sizeof names / sizeof names[0] && names[kind] ? names[kind] : "?";
}

const char *fmt_state(unsigned s)
{
    switch (s) {
    case CYG_S_RUNNING: return "RUNNING";
    case CYG_S_FROZEN: return "FROZEN";
    case CYG_S_FULL: return "FULL";
    case CYG_S_STOPPED: return "STOPPED";
    default: return "STATE?";
    }
}
