/* cmd_show.c - what "tree" and "pull" share: the display options and the printing of each
 * context's call tree from an opened trace.
 *
 * Two kinds of pass over the dump, both in bounded memory: one that learns the contexts (and
 * how deep each trace starts), then one per context that builds and prints its tree. A dump
 * is re-read rather than held: hundreds of millions of events do not fit, a few passes do. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cyg_format.h"
#include "output/render.h"
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
    "  --color=auto|always|never   colour (auto: on a terminal, unless TERM=dumb or NO_COLOR)\n";

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

uint64_t cmd_func_of(void *arg, uint64_t addr)
{
    const struct cmd_resolver *r = arg;
    const struct sym_info *s = sym_lookup(r->sym, addr - r->bias);

    return s ? s->start + r->bias : 0;
}

void cmd_scan_threads(const struct load *l, struct tree_scan *sc)
{
    for (unsigned i = 0; i < sc->n; i++) {
        struct dec_ctx *c = &sc->ctx[i];
        int vfork = 0;
        uint32_t tid;

        if (!c->os_tid && l->ring.word_bytes == 8 &&
            (tid = modmap_thread(l->map, c->id, &vfork)) != 0) {
            c->os_tid = tid;
            c->vfork = vfork;
        }
    }
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

/* One pass over every event: the contexts, and how deep each starts. It also counts how many
 * of the first functions entered the ELF knows: none means a stripped ELF or the wrong one.
 * The names go into l->names: the fast pass hands them the NAME and CONTEXT records it decodes
 * anyway (specials are decoded one by one there), the other pass every event. */
int cmd_scan(struct load *l, struct filter_time ft, struct tree_scan *sc, struct load_stats *st,
             unsigned *checked, unsigned *known)
{
    struct load_pass *p = load_pass_open(l);
    struct ev e;
    int rc;

    if (!p)
        return -1;
    if (!ft.on) { /* a ring, and every event counts: the fast pass */
        struct dec_counts c = {.want_index = sc->want_index, .names = l->names};

        rc = load_pass_count(p, &c);
        if (rc == 0) { /* the scan takes the contexts (and the index) over */
            tree_scan_free(sc);
            *sc = (struct tree_scan){c.ctx, c.n, c.cap, c.want_index, c.index};
            c.ctx = NULL;
            c.index = (struct dec_index){0};
        }
        dec_index_free(&c.index);
        for (unsigned i = 0; rc == 0 && i < c.n_first; i++) {
            const struct sym_info *s = sym_lookup(l->sym, c.first[i] - l->ring.load_bias);

            (*checked)++;
            *known += s && s->start == c.first[i] - l->ring.load_bias;
        }
        dec_ctx_free(c.ctx, c.n);
        if (rc != -2) {
            load_pass_stats(p, st);
            load_pass_close(p);
            cmd_scan_threads(l, sc);
            return rc;
        }
        rc = 0;
    }
    while ((rc = load_pass_next(p, &e)) > 0) {
        /* a name given before the time range still names what is in it */
        if (e.kind == EV_NAME || e.kind == EV_CONTEXT || e.kind == EV_SCHED || e.kind == EV_LOST)
            names_feed(l->names, &e, l->ring.word_bytes);
        if (!filter_time_keep(&ft, &e))
            continue;
        if (e.kind == EV_ENTER && *checked < 256) {
            const struct sym_info *s = sym_lookup(l->sym, e.addr - l->ring.load_bias);

            (*checked)++;
            *known += s && s->start == e.addr - l->ring.load_bias;
        }
        if (tree_scan_add(sc, &e) < 0) {
            rc = -1;
            break;
        }
    }
    load_pass_stats(p, st);
    load_pass_close(p);
    cmd_scan_threads(l, sc);
    return rc;
}

/* What the trees of all contexts skipped, for the notes. */
struct skipped {
    uint64_t unmatched; /* exits that matched no call */
    uint64_t values;    /* values of wrapped calls that belonged to no call shown */
};

/* Prints the tree of context c of the scan sc. */
static int render_ctx(struct load *l, const struct render_opts *ro, const struct tree_scan *sc,
                      const struct dec_ctx *c, const struct filter_opts *fo, struct filter_time ft,
                      struct skipped *sk)
{
    struct cmd_resolver res = {l->sym, l->ring.load_bias};
    struct render *r = render_new(stdout, ro, l->sym, l->ring.load_bias);
    struct tree *t = NULL;
    struct filter *fl = NULL;
    struct load_pass *p = load_pass_open(l);
    struct ev e;
    int rc = -1;

    if (!r || !p || !(fl = filter_new(render_sink(r), fo)))
        goto out;
    t = tree_new(filter_active(fo) ? filter_sink(fl) : render_sink(r), (unsigned)-c->min_depth,
                 cmd_func_of, &res);
    if (!t)
        goto out;
    if (sc->n > 1) /* the other contexts' records: passed over, or not even read */
        load_pass_only(p, c->id, &sc->index, c->segs);
    render_header(r);
    while ((rc = load_pass_next(p, &e)) > 0)
        if (e.ctx == c->id && filter_time_keep(&ft, &e) && tree_feed(t, &e) < 0) {
            rc = -1;
            break;
        }
    if (rc == 0) {
        tree_finish(t);
        sk->unmatched += tree_unmatched(t);
        sk->values += tree_stray_values(t);
    }
out:
    tree_free(t);
    filter_free(fl);
    load_pass_close(p);
    render_free(r);
    return rc;
}

/* What froze the ring: the trigger that fired last when it was a freeze (a version 3 ring's
 * control area says), else a fault or the program. */
static const char *frozen_by(const struct load *l, char *buf, size_t len)
{
    const struct ctrl *c = &l->ring.ctrl;
    struct render_namer nm = {l->sym, l->ring.load_bias, l->ring.word_bytes == 4, {0}};
    char t[256];

    if (l->ring.ctrl_state != DEC_CTRL_OK || !c->fired ||
        (c->trig[c->fired - 1].kind != CYG_TRIG_FREEZE &&
         c->trig[c->fired - 1].kind != CYG_TRIG_FREEZE_MARK))
        return "a fault or cygtrace_freeze()";
    snprintf(buf, len, "by trigger %s",
             ctrl_trig_text(c, c->fired - 1, render_ctrl_name, &nm, t, sizeof t));
    return buf;
}

/* What the trace could not show, said once at the end: as comments in the tree style, on
 * stderr in the others (whose output must stay exactly in their format). */
static void notes(const struct load *l, const struct load_stats *ls, const struct skipped *sk,
                  const struct render_opts *ro)
{
    FILE *f = ro->style == RENDER_TREE ? stdout : stderr;
    const char *p = ro->style == RENDER_TREE ? "# " : "cygtrace: note: ";
    const struct dec_stats *st = &ls->dec;
    char buf[320];

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
    render_ctrl_notes(f, buf, &l->ring, l->sym);
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
    struct load_stats st;
    struct filter_opts fo;
    struct filter_time ft;
    char err[512];
    struct skipped sk = {0, 0};
    unsigned checked = 0, known = 0;
    uint32_t thread = 0;
    int rc = 1, shown = 0;

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
    if (cmd_scan(l, ft, &sc, &st, &checked, &known) < 0) {
        cmd_error("%s: read error", dump);
        goto out;
    }
    if (checked && !known && !o->force) {
        cmd_error("%s: none of the traced functions is among its symbols (stripped, or not the "
                  "traced program?); use --force to print addresses", elf);
        goto out;
    }
    if (o->have_thread && cmd_show_thread(l, o, dump, &thread) < 0)
        goto out;
    for (unsigned i = 0; i < sc.n; i++) {
        const struct dec_ctx *c = &sc.ctx[i];
        const char *name;
        char nb[256];

        if (!c->events || (o->have_thread && c->id != thread))
            continue;
        if (sc.n > 1 && !o->have_thread) {
            printf("%s# %s %u", shown ? "\n" : "", l->ring.word_bytes == 8 ? "thread" : "context",
                   c->id);
            if ((name = render_ctx_name(l->names, l->sym, l->ring.load_bias, c->id, 0, nb,
                                        sizeof nb)))
                printf(" \"%s\"", name);
            else if (!c->id && l->ring.word_bytes == 4 && st.dec.overwritten)
                /* context 0 is "not known yet" (FORMAT.md 7.2): in a lapped ring, whatever ran
                 * before the first switch it still holds, not the program's first context */
                printf(" (before the first context switch the trace holds)");
            if (c->os_tid)
                printf(c->vfork ? " (vfork child, pid %" PRIu64 ")" : " (tid %" PRIu64 ")",
                       c->os_tid);
            printf(", %" PRIu64 " events\n", c->events);
        }
        shown++;
        if (render_ctx(l, &ro, &sc, c, &fo, ft, &sk) < 0) {
            cmd_error("%s: read error", dump);
            goto out;
        }
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
    fflush(stdout);
    dwarf_src_close(ro.dwarf);
    tree_scan_free(&sc);
    return rc;
}
