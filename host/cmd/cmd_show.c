/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_show.c - what "tree" and "pull" share: the display options and the printing of each
 * context's call tree from an opened trace: the scan, then a pass per context
 * (pipeline.h) into a renderer. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cyg_format.h"
#include "output/fmt.h"
#include "output/render.h"
#include "model/pipeline.h"
#include "model/tree.h"

const char cmd_show_usage[] =
    "  --style=tree|etrace|braces  tree: indented with durations (default);\n"
    "                              etrace: etrace's format; braces: Poor Man's Trace\n"
    "                              (needs call sites: CYGTRACE_CALLSITES=1)\n"
    "  --depth=N                   show N levels of calls\n"
    "  --no-collapse               show repeated calls one by one\n"
    "  --thread=N|NAME             only thread (or context) N, or the context called NAME\n"
    "  --force                     decode even if the dump is from another build\n"
    "  --only=FUNC                 only the calls of FUNC and what they call\n"
    "  --hide=FUNC                 leave out FUNC and what it calls\n"
    "  --min-time=DURATION         leave out calls shorter (10us, 2ms, 1s, or ticks)\n"
    "  --time-range=A..B           only events A to B after the first (either may be empty)\n"
    "  --srcline[=full]            each call's source line from DWARF, and its call site's\n"
    "                              when the trace has call sites; full: whole paths\n"
    "  --signatures                functions with their parameter lists from DWARF\n"
    "  --no-args                   wrapped calls (cygtrace wrap) without their arguments\n"
    "                              and return values\n"
    "  --color=auto|always|never   colour (auto: on a terminal, unless TERM=dumb or NO_COLOR)\n"
    CMD_HOOK_USAGE;

const char cmd_tree_usage[] =
    "  --time                      a column with each line's time on the trace's clock (s)\n"
    "  --tid                       a column with each line's thread: its OS thread id (Linux),\n"
    "                              else its context id\n";

void cmd_show_init(struct show_opts *o)
{
    memset(o, 0, sizeof *o);
    o->collapse = 1;
    o->color = -1;
}

int cmd_show_option(int c, const char *arg, struct show_opts *o)
{
    unsigned long long v;

    switch (c) {
    case CMD_SHOW_STYLE:
        if (!strcmp(arg, "tree"))
            o->style = RENDER_TREE;
        else if (!strcmp(arg, "etrace"))
            o->style = RENDER_ETRACE;
        else if (!strcmp(arg, "braces"))
            o->style = RENDER_BRACES;
        else {
            cmd_error("--style=%s: not a style (tree, etrace, braces)", arg);
            return -2;
        }
        return 1;
    case CMD_SHOW_DEPTH:
        if (cmd_parse_u64(arg, &v) < 0 || v == 0 || v > 1000000) {
            cmd_error("--depth=%s: not a depth (1 or more)", arg);
            return -2;
        }
        o->max_depth = (unsigned)v;
        return 1;
    case CMD_SHOW_NO_COLLAPSE:
        o->collapse = 0;
        return 1;
    case CMD_SHOW_THREAD:
        o->have_thread = 1;
        o->thread_name = NULL;
        if (cmd_parse_u64(arg, &v) == 0 && v <= UINT32_MAX) {
            o->thread = (uint32_t)v;
            return 1;
        }
        if (!*arg || (arg[0] >= '0' && arg[0] <= '9')) {
            cmd_error("--thread=%s: not a thread number or a context's name", arg);
            return -2;
        }
        o->thread_name = arg; /* a context's name: known after the scan (cmd_show_thread) */
        return 1;
    case CMD_SHOW_FORCE:
        o->force = 1;
        return 1;
    case CMD_SHOW_SRCLINE:
        if (arg && strcmp(arg, "full")) {
            cmd_error("--srcline=%s: only --srcline=full takes a value", arg);
            return -2;
        }
        o->show |= RENDER_SRCLINE | (arg ? RENDER_FULL_PATH : 0);
        return 1;
    case CMD_SHOW_SIGNATURES:
        o->show |= RENDER_SIGNATURES;
        return 1;
    case CMD_SHOW_NO_ARGS:
        o->show |= RENDER_NO_ARGS;
        return 1;
    case CMD_SHOW_TIME:
        o->show |= RENDER_TIME;
        return 1;
    case CMD_SHOW_TID:
        o->show |= RENDER_TID;
        return 1;
    case CMD_SHOW_COLOR:
        if (!strcmp(arg, "auto") || !strcmp(arg, "always") || !strcmp(arg, "never")) {
            o->color = arg[0] == 'a' ? (arg[1] == 'u' ? -1 : 1) : 0;
            return 1;
        }
        cmd_error("--color=%s: not a choice (auto, always, never)", arg);
        return -2;
    default:
        return cmd_filter_option(c, arg, o);
    }
}

int cmd_color_auto(void)
{
    const char *term = getenv("TERM"), *no = getenv("NO_COLOR");

    return isatty(STDOUT_FILENO) && term && *term && strcmp(term, "dumb") && !(no && *no);
}

int cmd_show_thread(const struct load *l, const struct show_opts *o, const char *dump,
                    uint32_t *id)
{
    int rc;

    *id = o->thread;
    if (!o->thread_name)
        return 0;
    rc = names_find_ctx(l->names, o->thread_name, id);
    if (rc == 1)
        return 0;
    cmd_error(rc ? "%s: several contexts are called \"%s\"; use --thread=N"
                 : "%s: no context called \"%s\" in the trace", dump, o->thread_name);
    return -1;
}

void cmd_show_no_thread(const struct show_opts *o, const char *dump, uint32_t id)
{
    if (o->thread_name)
        cmd_error("%s: context \"%s\" (%u) made no calls in the trace", dump, o->thread_name, id);
    else
        cmd_error("%s: no thread %u in the trace", dump, id);
}

/* Prints the tree of context c of the scan sc. */
static int render_ctx(struct load *l, const struct render_opts *ro, const struct tree_scan *sc,
                      const struct dec_ctx *c, const struct filter_opts *fo, struct filter_time ft,
                      struct pipeline_tally *t)
{
    struct render_opts o = *ro;
    struct render *r;
    int rc = -1;

    o.tid = c->os_tid ? c->os_tid : c->id;
    r = render_new(stdout, &o, l->sym, l->ring.load_bias);
    if (r) {
        render_header(r);
        rc = pipeline_ctx(l, sc, c, render_sink(r), fo, ft, t);
    }
    render_free(r);
    return rc;
}

/* What froze the ring: the trigger that fired last when it was a freeze (a version 3 ring's
 * control area says), else a fault or the program. */
static const char *frozen_by(const struct load *l, char *buf, size_t len)
{
    const struct ctrl *c = &l->ring.ctrl;
    struct fmt_namer nm = {l->sym, l->ring.load_bias, l->ring.word_bytes == 4, {0}};
    char t[256];

    if (l->ring.ctrl_state != DEC_CTRL_OK || !c->fired ||
        (c->trig[c->fired - 1].kind != CYG_TRIG_FREEZE &&
         c->trig[c->fired - 1].kind != CYG_TRIG_FREEZE_MARK))
        return "a fault or cygtrace_freeze()";
    snprintf(buf, len, "by trigger %s",
             ctrl_trig_text(c, c->fired - 1, fmt_ctrl_name, &nm, t, sizeof t));
    return buf;
}

/* What the trace could not show, said once at the end: as comments in the tree style, on
 * stderr in the others (whose output must stay exactly in their format). */
static void notes(const struct load *l, const struct source_stats *ls,
                  const struct pipeline_tally *sk, const struct render_opts *ro)
{
    FILE *f = ro->style == RENDER_TREE ? stdout : stderr;
    const char *p = ro->style == RENDER_TREE ? "# " : "cygtrace: note: ";
    const struct dec_stats *st = &ls->dec;
    const char *stood = cmd_clock_stood(l, ls);
    char buf[320];

    if (stood)
        fprintf(f, "%s%s; durations are not shown\n", p, stood);
    if (st->overwritten)
        fprintf(f, "%s%" PRIu64 " older events were overwritten (the buffer wrapped); the "
                   "trace starts inside calls already running\n", p, st->overwritten);
    /* A ring that never stopped for room (overwrite mode, never switched to stop mode when
     * full) refused nothing for room: what it counted came before it was ready (Linux: an
     * event while another thread or a signal handler set it up). */
    if (l->ring.lost)
        fprintf(f, "%s%" PRIu64 " events were lost: %s\n", p, l->ring.lost,
                l->ring.flags & CYG_F_OVERWRITE && l->ring.state != CYG_S_FULL
                    ? "they came before the ring was ready (set up by another thread or a "
                      "signal handler's event)"
                    : "the buffer was full (stop-when-full mode)");
    /* The unused ends of threads' chunks hold no event: only a hole is worth a note. */
    if (st->holes)
        fprintf(f, "%s%" PRIu64 " slots were reserved but never written (a writer died or "
                   "was still writing); skipped\n", p, st->holes);
    if (st->truncated)
        fprintf(f, "%s%" PRIu64 " records are missing: the dump is shorter than its ring\n", p,
                st->truncated);
    if (l->stream)
        cmd_stream_notes(f, p, &ls->fr, &ls->sd);
    if (sk->unmatched)
        fprintf(f, "%s%" PRIu64 " exits matched no call and were skipped\n", p, sk->unmatched);
    if (sk->values)
        fprintf(f, "%s%" PRIu64 " word%s of wrapped calls' values belonged to no call the "
                   "trace shows (its entry was overwritten or lost); skipped\n",
                p, sk->values, sk->values == 1 ? "" : "s");
    if (l->ring.state == CYG_S_FROZEN)
        fprintf(f, "%sthe trace was frozen (%s)\n", p, frozen_by(l, buf, sizeof buf));
    snprintf(buf, sizeof buf, "%scontrol: ", p);
    fmt_ctrl_notes(f, buf, &l->ring, l->sym);
}

void cmd_stream_notes(FILE *f, const char *p, const struct sframe_stats *fr,
                      const struct sdec_stats *sd)
{
    if (sd->lost_target)
        fprintf(f, "%s%" PRIu64 " events were lost on the target: the drain fell behind the "
                   "writer (a faster link, a bigger ring, or fewer traced calls)\n", p,
                sd->lost_target);
    if (sd->lost_link)
        fprintf(f, "%s%" PRIu64 " events were lost on the link (frames dropped)\n", p,
                sd->lost_link);
    if (fr->bad || sd->malformed)
        fprintf(f, "%s%" PRIu64 " damaged frames were dropped (bad COBS or CRC, or content)\n", p,
                fr->bad + sd->malformed);
    if (sd->early)
        fprintf(f, "%s%" PRIu64 " frames came before the first description and were skipped\n", p,
                sd->early);
    if (sd->dup)
        fprintf(f, "%s%" PRIu64 " repeated frames were dropped\n", p, sd->dup);
    if (sd->replays)
        fprintf(f, "%s%" PRIu64 " old description%s came again: the link replayed stretches of "
                   "the stream (shown once)\n", p, sd->replays, sd->replays == 1 ? "" : "s");
    if (sd->restarts)
        fprintf(f, "%sthe target started the stream over %" PRIu64 " time%s (a reset)\n", p,
                sd->restarts, sd->restarts == 1 ? "" : "s");
}

int cmd_show(struct load *l, const char *elf, const char *dump, const struct show_opts *o)
{
    struct render_opts ro = {.style = (enum render_style)o->style, .max_depth = o->max_depth,
                             .collapse = o->collapse};
    struct tree_scan sc = {0};
    struct source_stats st;
    struct filter_opts fo;
    struct filter_time ft;
    char err[512];
    struct pipeline_tally sk = {0, 0, 0};
    unsigned checked = 0, known = 0;
    uint32_t thread = 0;
    int rc = 1, shown = 0;

    if (o->show & (RENDER_TIME | RENDER_TID) && ro.style != RENDER_TREE) {
        cmd_error("--time and --tid are columns of --style=tree");
        rc = 2;
        goto out;
    }
    if (o->show & RENDER_TIME && !(l->ring.flags & CYG_F_TIMESTAMPS)) {
        cmd_error("%s: --time needs timestamps, and this trace has none", dump);
        goto out;
    }
    if (ro.style == RENDER_BRACES && !(l->ring.flags & CYG_F_CALLSITES)) {
        cmd_error("%s: --style=braces needs call sites, and this trace has none; record with "
                  "CYGTRACE_CALLSITES=1 (Linux) or build the firmware runtime with "
                  "-DCYGTRACE_CALLSITES=1", dump);
        goto out;
    }
    ro.ts_hz = l->ring.ts_hz;
    ro.has_time = !!(l->ring.flags & CYG_F_TIMESTAMPS);
    ro.addr_width = l->ring.word_bytes * 2;
    ro.ctrl = l->ring.ctrl_state == DEC_CTRL_OK ? &l->ring.ctrl : NULL;
    ro.names = l->names;
    ro.show = o->show;
    if (o->color > 0 || (o->color < 0 && cmd_color_auto()))
        ro.show |= RENDER_COLOR;
    if (o->show & (RENDER_SRCLINE | RENDER_SIGNATURES) && elf && l->sym)
        ro.dwarf = dwarf_src_open(elf); /* read lazily; NULL (no memory): names only */
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (cmd_filter_resolve(o, l, elf, dump, &fo, &ft, err, sizeof err) < 0) {
        cmd_error("%s", err);
        goto out;
    }
    sc.want_index = 1; /* each context has a pass of its own */
    if (pipeline_scan(l, ft, &sc, &st, &checked, &known) < 0) {
        if (!cmd_dump_changed(l))
            cmd_error("%s: read error", dump);
        goto out;
    }
    if (checked && !known && !o->force) {
        cmd_error("%s: none of the traced functions is among its symbols (stripped, or not the "
                  "traced program?); use --force to print addresses", elf);
        goto out;
    }
    if (cmd_clock_stood(l, &st)) /* every duration would read 0 */
        ro.has_time = 0;
    if (o->have_thread && cmd_show_thread(l, o, dump, &thread) < 0)
        goto out;
    /* The tree style's durations: said above the first tree (the other styles show none) */
    if (!ro.has_time || ro.style != RENDER_TREE || !cmd_hook_note(l, o, &fo, err, sizeof err))
        err[0] = 0;
    for (unsigned i = 0; i < sc.n; i++) {
        const struct dec_ctx *c = &sc.ctx[i];
        char label[512];

        if (!c->events || (o->have_thread && c->id != thread))
            continue;
        if (!shown && err[0])
            printf("# %s\n", err);
        if (sc.n > 1 && !o->have_thread) {
            int named = names_ctx_label(l->names, l->sym, l->ring.load_bias, l->ring.word_bytes,
                                        c->id, c->os_tid, c->vfork, label, sizeof label);

            printf("%s# %s", shown || err[0] ? "\n" : "", label);
            if (!named && !c->id && l->ring.word_bytes == 4 && st.dec.overwritten)
                /* context 0 is "not known yet" (FORMAT.md 7.2): in a lapped ring, whatever ran
                 * before the first switch it still holds, not the program's first context */
                printf(" (before the first context switch the trace holds)");
            printf(", %" PRIu64 " events\n", c->events);
        }
        shown++;
        if (render_ctx(l, &ro, &sc, c, &fo, ft, &sk) < 0) {
            if (!cmd_dump_changed(l))
                cmd_error("%s: read error", dump);
            goto out;
        }
        if (ferror(stdout)) /* the rest would go nowhere: said at out */
            goto out;
    }
    if (o->have_thread && !shown) {
        cmd_show_no_thread(o, dump, thread);
        goto out;
    }
    if (!shown && ro.style == RENDER_TREE)
        printf("# the trace holds no calls\n");
    notes(l, &st, &sk, &ro);
    rc = 0;
out:
    cmd_stdout_failed();
    dwarf_src_close(ro.dwarf);
    tree_scan_free(&sc);
    return rc;
}
