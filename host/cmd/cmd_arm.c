/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_arm.c - "cygtrace arm": write triggers and record-time filters into a target's ring (its
 * control area, docs/FORMAT.md 2.7) through a GDB server, or read them back (--show).
 *
 * Two moments to write them. A ring that exists (the runtime is running, or halted anywhere
 * after its init): the target is halted, the request written, gen + 1, and cyg_rt.last cleared
 * when the ring runs, so that the next event takes the hooks' slow path and applies it. A
 * target held before its init (qemu -S, a probe's reset-halt): the ring is not there yet and
 * the C start-up would wipe anything written, so a breakpoint on cyg_ctrl_ready (which
 * cygtrace_init calls once the ring is laid out, before it applies the request and records)
 * lets the target run to that moment. Either way the target runs on when we detach.
 *
 * Nothing is written before every name has resolved and the request fits; a breakpoint that was
 * set is removed on every way out, Ctrl-C included. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "decode/ctrl.h"
#include "cyg_format.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "util/le.h"
#include "source/rsp.h"
#include "symbols/sym.h"

#define ARM_MAX_SPECS (CYG_CTRL_TRIGS + CYG_CTRL_EXCLS)
#define ARM_EM_ARM 40 /* ELF e_machine: 32-bit ARM, where the pc is register 15 */
#define ARM_PC_REG 15
#define ARM_READY "cyg_ctrl_ready"

struct arm_opts {
    struct cmd_gdb gdb;
    struct ctrl_spec spec[ARM_MAX_SPECS];
    unsigned nspec, ntrig, nexcl;
    int have_depth, have_events, clear, show;
    uint32_t depth, events;
};

/* What the target holds: its ring's control block and control area. */
struct arm_ring {
    uint64_t ctl;  /* the control block's address */
    uint64_t area; /* the control area's address */
    struct dec_ring r;
    uint8_t bytes[CYG_CTRL_BYTES];
    struct ctrl c;
};

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: cygtrace arm --gdb=WHERE [options] ELF\n"
        "  --gdb=HOST:PORT             a GDB server: OpenOCD :3333, pyOCD, J-Link, QEMU -gdb\n"
        "  --gdb=/dev/ttyACM0[:BAUD]   a serial GDB server (Black Magic Probe); 115200\n"
        "  --trigger=SPEC,...          start@FUNC (record from FUNC's entry on), stop@FUNC\n"
        "                              (stop after its exit), freeze@FUNC[+N] (freeze N\n"
        "                              events after its entry), freeze@mark:ID[+N]\n"
        "  --exclude=FUNC,...          FUNC's own calls are not recorded (its callees are)\n"
        "  --hide=FUNC,...             neither FUNC's calls nor those of anything it calls\n"
        "  --depth=N                   record calls down to depth N only (0: all depths)\n"
        "  --events=MASK               classes of marks recorded: 0x.., 0,3-5, all, none\n"
        "  --clear                     disarm what the target has first (alone: disarm all)\n"
        "  --show                      print what the target has armed, change nothing\n"
        "  --monitor=CMD               run a monitor command first (repeatable)\n"
        "  --attach=N                  attach to target N first (Black Magic Probe)\n"
        "  --timeout=SECONDS           give up on a silent server, or on a target that\n"
        "                              does not reach the runtime's init, after this long (5)\n");
}

/* --- the ELF ---------------------------------------------------------------------------------- */

/* ARM: bit 0 of a code address is the Thumb bit, not part of where the code is. */
static uint64_t code_addr(const struct sym_table *sym, uint64_t a)
{
    return sym_machine(sym) == ARM_EM_ARM ? a & ~(uint64_t)1 : a;
}

/* A function's address from its name (or "0x..."): 0, or -1 after a message. */
static int resolve(const struct sym_table *sym, const char *elf, const char *name, uint64_t *addr)
{
    const struct sym_info *fi;
    unsigned long long v;

    if (!strncmp(name, "0x", 2) || !strncmp(name, "0X", 2)) {
        if (cmd_parse_u64(name, &v) < 0) {
            cmd_error("%s: not an address", name);
            return -1;
        }
        *addr = v;
    } else if (sym_find(sym, name, addr, NULL) < 0) {
        cmd_error("%s: no function '%s' in it", elf, name);
        return -1;
    }
    if (!(fi = sym_func_at(sym, *addr))) {
        cmd_error("%s: '%s' is not the start of a function", elf, name);
        return -1;
    }
    return 0;
}

static const char *name_of(void *arg, uint64_t addr)
{
    const struct sym_info *fi = sym_func_at(arg, addr);

    return fi ? fi->name : NULL;
}

/* The breakpoint kind GDB sends for the architecture: the size of the instruction replaced. */
static unsigned bp_kind(unsigned machine)
{
    switch (machine) {
    case ARM_EM_ARM:
        return 2; /* Thumb: every Cortex-M */
    case 3:
    case 62:
        return 1; /* x86: int3 */
    default:
        return 4; /* AArch64, RISC-V */
    }
}

/* --- the target ------------------------------------------------------------------------------- */

static const char *state_name(unsigned s)
{
    static const char *const names[] = {"stopped", "running", "frozen", "full"};

    return s < 4 ? names[s] : "?";
}

enum { RING_FOUND, RING_NONE, RING_ERROR, RING_RSP };

#define ARM_BUFFER "cygtrace_buffer"

/* Whether the ring whose control block g->r is at g->ctl lies, control area and all, inside
 * the ELF's cygtrace_buffer: the only place a firmware's runtime lays its ring out. A header
 * found anywhere else (a stray cyg_rt.ctl, a valid header copied into other memory) is not
 * the ring, and its control area is whatever lies there: nothing is written through it.
 * Without the symbol (a runtime that maps its ring), where the ring may lie is unknown: read,
 * but never written (writing). 0, or -1 after a message. */
static int ring_inside(const struct sym_table *sym, const char *elf, const char *name,
                       const struct arm_ring *g, int writing)
{
    uint64_t buf, size, len = dec_ctrl_off(&g->r) + CYG_CTRL_BYTES;

    if (sym_find(sym, ARM_BUFFER, &buf, &size) < 0) {
        if (!writing)
            return 0;
        cmd_error("%s: %s has no %s, so where its ring may lie is unknown; nothing written "
                  "(a Linux program: arm it with CYGTRACE_TRIGGER and the like)",
                  name, elf, ARM_BUFFER);
        return -1;
    }
    if (g->ctl >= buf && g->ctl - buf <= size && len <= size - (g->ctl - buf))
        return 0;
    cmd_error("%s: cyg_rt points at a ring at 0x%" PRIx64 "..0x%" PRIx64 ", not inside %s's "
              "%s (0x%" PRIx64 "..0x%" PRIx64 "): a stray pointer, or another program; "
              "nothing %s",
              name, g->ctl, g->ctl + len, elf, ARM_BUFFER, buf, buf + size,
              writing ? "written" : "shown");
    return -1;
}

/* Reads cyg_rt.ctl, the control block and the control area: RING_FOUND; RING_NONE when cyg_rt
 * points at no ring (before init); RING_ERROR after a message (a ring outside the ELF's
 * buffer too: ring_inside, writing says whether the caller means to write); RING_RSP when the
 * server failed (err says why, *what which read). */
static int read_ring(struct rsp *c, struct sym_table *sym, uint64_t rt, const char *elf,
                     const char *name, int writing, struct arm_ring *g, const char **what,
                     char *err, size_t errlen)
{
    unsigned word = sym_word_bytes(sym);
    uint8_t ptr[8], blk[CYG_HDR_BYTES];
    char why[256];

    *what = "cyg_rt: ";
    if (rsp_read_mem(c, rt, ptr, word, NULL, NULL, err, errlen) < 0)
        return RING_RSP;
    g->ctl = le_get(ptr, word);
    if (!g->ctl)
        return RING_NONE;
    *what = "the control block: ";
    if (rsp_read_mem(c, g->ctl, blk, sizeof blk, NULL, NULL, err, errlen) < 0)
        return RING_RSP;
    if (memcmp(blk, CYG_MAGIC, 8) != 0) /* the runtime's stand-in before init, or garbage */
        return RING_NONE;
    if (hdr_parse(blk, sizeof blk, &g->r, why, sizeof why) < 0) {
        cmd_error("%s: the control block at 0x%" PRIx64 ": %s", name, g->ctl, why);
        return RING_ERROR;
    }
    if (g->r.version < 3) {
        cmd_error("%s: the ring is of format version %u, which has no control area: the "
                  "runtime is older, or built with CYGTRACE_CONTROL=0",
                  name, g->r.version);
        return RING_ERROR;
    }
    if (sym_machine(sym) != g->r.machine || sym_word_bytes(sym) != g->r.word_bytes ||
        sym_build_id_match(sym, g->r.build_id, g->r.build_id_len) == 0) {
        cmd_error("%s: the target runs another build than %s; give the ELF it runs", name, elf);
        return RING_ERROR;
    }
    if (ring_inside(sym, elf, name, g, writing) < 0)
        return RING_ERROR;
    g->area = g->ctl + dec_ctrl_off(&g->r);
    *what = "the control area: ";
    if (rsp_read_mem(c, g->area, g->bytes, sizeof g->bytes, NULL, NULL, err, errlen) < 0)
        return RING_RSP;
    if (ctrl_parse(&g->c, g->bytes, g->r.word_bytes, why, sizeof why) < 0) {
        cmd_error("%s: the control area at 0x%" PRIx64 ": %s", name, g->area, why);
        return RING_ERROR;
    }
    return RING_FOUND;
}

/* Whether a halted ARM core stands at the ELF's entry point: held at reset, where the ring in
 * RAM (if any) is the last run's, which the start-up is about to set up anew. */
static int at_reset(struct rsp *c, const struct sym_table *sym)
{
    uint64_t pc;
    char err[320];

    if (sym_machine(sym) != ARM_EM_ARM ||
        rsp_read_reg(c, ARM_PC_REG, 4, &pc, err, sizeof err) < 0)
        return 0;
    return code_addr(sym, pc) == code_addr(sym, sym_entry(sym));
}

/* The target is held before its runtime's init: runs it to cyg_ctrl_ready, a breakpoint there
 * (hardware, else software), and leaves it halted there with the breakpoint removed. Returns
 * 0, or 1 after a message (the breakpoint removed and the target halted, if the server
 * answers). */
static int run_to_ready(struct rsp *c, const struct arm_opts *o, struct sym_table *sym,
                        const char *elf, const char *name)
{
    uint64_t ready, pc;
    unsigned kind = bp_kind(sym_machine(sym));
    int type = RSP_BP_HARD, rc, sig = 0, set = 0, running = 0;
    char hard_why[320], err[320];

    if (sym_find(sym, ARM_READY, &ready, NULL) < 0) {
        cmd_error("%s: the ring is not set up yet and %s has no %s: the runtime is older, or "
                  "built with CYGTRACE_CONTROL=0; arm the target once it runs",
                  name, elf, ARM_READY);
        return 1;
    }
    ready = code_addr(sym, ready);
    rc = rsp_breakpoint(c, type, ready, kind, 1, hard_why, sizeof hard_why);
    if (rc == RSP_EUNSUPPORTED || rc == RSP_EREPLY) { /* no (free) hardware breakpoint */
        type = RSP_BP_SOFT;
        rc = rsp_breakpoint(c, type, ready, kind, 1, err, sizeof err);
        if (rc == RSP_EUNSUPPORTED || rc == RSP_EREPLY) {
            cmd_error("%s: cannot stop the target at %s: %s; %s", name, ARM_READY, hard_why,
                      err);
            return 1;
        }
    }
    if (rc < 0) {
        if (type == RSP_BP_HARD) /* the hardware breakpoint's own failure */
            snprintf(err, sizeof err, "%s", hard_why);
        goto fail;
    }
    set = 1;
    if ((rc = rsp_continue(c, err, sizeof err)) < 0)
        goto fail;
    running = 1;
    if ((rc = rsp_wait_stop(c, o->gdb.timeout_ms, &sig, err, sizeof err)) < 0)
        goto fail;
    running = 0;
    if (sym_machine(sym) == ARM_EM_ARM &&
        rsp_read_reg(c, ARM_PC_REG, 4, &pc, err, sizeof err) == 0 && code_addr(sym, pc) != ready) {
        const struct sym_info *fi = sym_lookup(sym, code_addr(sym, pc));

        rsp_breakpoint(c, type, ready, kind, 0, err, sizeof err);
        cmd_error("%s: the target stopped (signal %d) in %s at 0x%" PRIx64 " before it reached "
                  "%s; nothing written",
                  name, sig, fi ? fi->name : "?", pc, ARM_READY);
        return 1;
    }
    set = 0;
    if ((rc = rsp_breakpoint(c, type, ready, kind, 0, err, sizeof err)) < 0)
        goto fail;
    return 0;
fail:
    /* Ctrl-C while the target runs to cyg_ctrl_ready: the wait ends, the breakpoint goes, the
     * target is let go (cmd_gdb_close). */
    if (cmd_gdb_signal())
        cmd_error("%s: interrupted; %sdetached from the target", name,
                  set ? "breakpoint removed, " : "");
    else if (rc == RSP_ETIMEOUT && running)
        cmd_error("%s: the target did not reach %s within %g s (does it call cygtrace_init? a "
                  "ring kept across a warm reset is not set up again); nothing written",
                  name, ARM_READY, o->gdb.timeout_ms / 1000.0);
    else
        cmd_error("%s: %s", name, err);
    if (rc == RSP_ECLOSED)
        return 1;
    rsp_cleanup(c); /* after Ctrl-C too: a breakpoint left in a target is worse */
    if (running)
        rsp_halt(c, err, sizeof err);
    if (set)
        rsp_breakpoint(c, type, ready, kind, 0, err, sizeof err);
    return 1;
}

/* The request: what the target has (or nothing, --clear) and the new items. 0, or 1 after a
 * message. */
static int build_request(const struct arm_opts *o, const uint64_t *addr, struct ctrl *c,
                         const char *name)
{
    unsigned ntrig = c->ntrig, nexcl = c->nexcl;
    char err[256];

    if (o->clear) {
        uint32_t gen = c->gen, applied = c->applied;

        ctrl_init(c);
        c->gen = gen;
        c->applied = applied;
    }
    for (unsigned i = 0; i < o->nspec; i++)
        if (ctrl_add(c, &o->spec[i], addr[i], err, sizeof err) < 0) {
            cmd_error("%s: %s (the target has %u triggers and %u excluded functions armed "
                      "already; --clear first); nothing written",
                      name, err, o->clear ? 0 : ntrig, o->clear ? 0 : nexcl);
            return 1;
        }
    if (o->have_depth)
        c->depth = o->depth;
    if (o->have_events)
        c->events = o->events;
    c->gen++;
    return 0;
}

/* Writes the request: its fields first, gen last (the runtime applies a gen it has not seen),
 * never the runtime's own fields (applied, fired...). */
static int write_request(struct rsp *c, struct arm_ring *g, char *err, size_t errlen)
{
    ctrl_store(&g->c, g->bytes);
    if (rsp_write_mem(c, g->area + CYG_CTRL_OFF_EVENTS, g->bytes + CYG_CTRL_OFF_EVENTS,
                      CYG_CTRL_OFF_FIRED - CYG_CTRL_OFF_EVENTS, err, errlen) < 0 ||
        rsp_write_mem(c, g->area + CYG_CTRL_OFF_TRIG, g->bytes + CYG_CTRL_OFF_TRIG,
                      CYG_CTRL_BYTES - CYG_CTRL_OFF_TRIG, err, errlen) < 0 ||
        rsp_write_mem(c, g->area + CYG_CTRL_OFF_GEN, g->bytes + CYG_CTRL_OFF_GEN, 4, err,
                      errlen) < 0)
        return -1;
    return 0;
}

static void describe(const struct arm_ring *g, struct sym_table *sym, int hide_pending)
{
    struct ctrl c = g->c;

    if (hide_pending)
        c.applied = c.gen;
    if (ctrl_describe(&c, name_of, sym, "  ", stdout) == 0)
        printf("  nothing armed\n");
}

/* Connects, arms (or shows) and detaches. Returns the exit status. */
static int arm(const struct arm_opts *o, const uint64_t *addr, const char *elf,
               struct sym_table *sym, const char *name)
{
    uint64_t rt;
    struct arm_ring g;
    const char *what = "";
    struct rsp *c;
    int rc = 1, found, early = 0, sig;
    char err[512];

    if (sym_find(sym, "cyg_rt", &rt, NULL) < 0) {
        cmd_error("%s: ELF has no cyg_rt symbol: is the cygtrace runtime linked in?", elf);
        return 1;
    }
    if (sym_is_pie(sym)) {
        cmd_error("%s: position-independent (a Linux program?): arm it with CYGTRACE_TRIGGER "
                  "and the like (cygtrace-runtime(3)) instead",
                  elf);
        return 1;
    }
    if (!(c = cmd_gdb_connect(&o->gdb, name)))
        goto out;
    /* Halted for the writes: a running target would apply half a request. A target at the
     * ELF's entry point is held at reset (one interrupted while running is never there). */
    if (!o->show && (rc = rsp_halt(c, err, sizeof err)) < 0)
        goto rsp_fail;
    early = !o->show && at_reset(c, sym);
    rc = 1;
    found = early ? RING_NONE
                  : read_ring(c, sym, rt, elf, name, !o->show, &g, &what, err, sizeof err);
    if (found == RING_RSP)
        goto rsp_fail;
    if (found == RING_ERROR)
        goto out;
    if (found == RING_NONE && o->show) {
        cmd_error("%s: the runtime has not set up its ring yet (cyg_rt points at no control "
                  "block), or the target runs another program than %s",
                  name, elf);
        goto out;
    }
    if (found == RING_NONE) {
        if (run_to_ready(c, o, sym, elf, name))
            goto out;
        early = 1;
        found = read_ring(c, sym, rt, elf, name, !o->show, &g, &what, err, sizeof err);
        if (found == RING_RSP)
            goto rsp_fail;
        if (found == RING_NONE)
            cmd_error("%s: at %s, cyg_rt still points at no control block", name, ARM_READY);
        if (found != RING_FOUND)
            goto out;
    }
    if (o->show) {
        printf("ring at 0x%" PRIx64 ": %s\n", g.ctl, state_name(g.r.state));
        describe(&g, sym, 0);
        rc = 0;
        goto out;
    }
    if (build_request(o, addr, &g.c, name))
        goto out;
    what = "";
    if (write_request(c, &g, err, sizeof err) < 0)
        goto rsp_fail;
    /* The hooks read the area only on their slow path: a zero last sends the next event there. */
    if (g.r.state == CYG_S_RUNNING) {
        uint8_t zero[8] = {0};

        what = "cyg_rt.last: ";
        if (rsp_write_mem(c, rt + sym_word_bytes(sym), zero, sym_word_bytes(sym), err,
                          sizeof err) < 0)
            goto rsp_fail;
    }
    if (early)
        printf("armed at %s, before the first event:\n", ARM_READY);
    else
        printf("armed (the ring at 0x%" PRIx64 " is %s):\n", g.ctl, state_name(g.r.state));
    describe(&g, sym, 1);
    if (!early && g.r.state != CYG_S_RUNNING && g.r.state != CYG_S_STOPPED)
        cmd_error("warning: %s: the ring is %s: nothing more is recorded until it is set up "
                  "again",
                  name, state_name(g.r.state));
    rc = 0;
    goto out;
rsp_fail:
    cmd_gdb_error(err, name, what);
    rc = 1;
out:
    cmd_stdout_failed();
    sig = cmd_gdb_close(c); /* detach: the target runs on */
    return sig ? 128 + sig : rc;
}

/* --- options ---------------------------------------------------------------------------------- */

/* Adds the items of a --trigger, --exclude or --hide list; 0, or 2 after a message. */
static int add_list(struct arm_opts *o, int opt, const char *list)
{
    const char *what = opt == 'T' ? "trigger" : opt == 'H' ? "hide" : "exclude";
    unsigned max = opt == 'T' ? CYG_CTRL_TRIGS : CYG_CTRL_EXCLS,
             have = opt == 'T' ? o->ntrig : o->nexcl;
    struct ctrl_spec s[CYG_CTRL_EXCLS > CYG_CTRL_TRIGS ? CYG_CTRL_EXCLS : CYG_CTRL_TRIGS];
    char err[512];
    int n = opt == 'T' ? ctrl_parse_triggers(list, s, max, err, sizeof err)
                       : ctrl_parse_excludes(list, opt == 'H', s, max, err, sizeof err);

    if (n < 0) {
        cmd_error("--%s=%s: %s", what, list, err);
        return 2;
    }
    if (have + (unsigned)n > max) {
        cmd_error("--%s=%s: more than %u %s in all", what, list, max,
                  opt == 'T' ? "triggers" : "excluded or hidden functions");
        return 2;
    }
    memcpy(o->spec + o->nspec, s, (size_t)n * sizeof s[0]);
    o->nspec += (unsigned)n;
    if (opt == 'T')
        o->ntrig += (unsigned)n;
    else
        o->nexcl += (unsigned)n;
    return 0;
}

static int take_option(void *arg, int c, char *val)
{
    struct arm_opts *o = arg;
    char err[512];
    unsigned long long n;

    switch (c) {
    case 'T':
    case 'E':
    case 'H':
        return add_list(o, c, val);
    case 'd':
        if (cmd_parse_u64(val, &n) < 0 || n > UINT32_MAX) {
            cmd_error("--depth=%s: not a depth (0: every depth)", val);
            return 2;
        }
        o->have_depth = 1;
        o->depth = (uint32_t)n;
        return 0;
    case 'e':
        if (ctrl_parse_events(val, &o->events, err, sizeof err) < 0) {
            cmd_error("--events=%s: %s", val, err);
            return 2;
        }
        o->have_events = 1;
        return 0;
    case 'C':
        o->clear = 1;
        return 0;
    default: /* 'S' */
        o->show = 1;
        return 0;
    }
}

/* The options into o: -1 to go on, else the exit status (after --help, or a message). */
static int parse_opts(int argc, char **argv, struct arm_opts *o)
{
    static const struct option opts[] = {CMD_GDB_LONGOPTS,
                                         {"trigger", required_argument, 0, 'T'},
                                         {"exclude", required_argument, 0, 'E'},
                                         {"hide", required_argument, 0, 'H'},
                                         {"depth", required_argument, 0, 'd'},
                                         {"events", required_argument, 0, 'e'},
                                         {"clear", no_argument, 0, 'C'},
                                         {"show", no_argument, 0, 'S'},
                                         {"help", no_argument, 0, CMD_OPTS_HELP},
                                         {0, 0, 0, 0}};
    const struct cmd_opts p = {.cmd = "arm", .table = opts, .gdb = &o->gdb, .usage = usage,
                               .take = take_option, .arg = o};
    int rc;

    memset(o, 0, sizeof *o);
    cmd_gdb_init(&o->gdb);
    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    if (o->show && (o->nspec || o->have_depth || o->have_events || o->clear)) {
        cmd_error("arm: --show changes nothing: give it alone, or leave it out");
        return 2;
    }
    if (!o->show && !o->nspec && !o->have_depth && !o->have_events && !o->clear) {
        cmd_error("arm: nothing to arm: give --trigger, --exclude, --hide, --depth, --events, "
                  "--clear or --show (see 'cygtrace arm --help')");
        return 2;
    }
    return cmd_opts_need(argc, "arm", 1, "one ELF file") ? 2 : -1;
}

int cmd_arm(int argc, char **argv)
{
    struct arm_opts o;
    struct sym_table *sym;
    uint64_t addr[ARM_MAX_SPECS] = {0};
    const char *elf;
    char err[512], name[300];
    int rc = parse_opts(argc, argv, &o);

    if (rc >= 0)
        return rc;
    elf = argv[optind];
    if (!(sym = sym_open(elf, err, sizeof err))) {
        cmd_error("%s: %s", elf, err);
        return 1;
    }
    /* Every name before the target is touched: a typo writes nothing. */
    for (unsigned i = 0; i < o.nspec; i++)
        if (o.spec[i].name[0] && resolve(sym, elf, o.spec[i].name, &addr[i]) < 0) {
            sym_close(sym);
            return 1;
        }
    snprintf(name, sizeof name, "gdb %s", o.gdb.where);
    rc = arm(&o, addr, elf, sym, name);
    sym_close(sym);
    return rc;
}
