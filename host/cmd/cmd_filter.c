/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_filter.c - the filter options that tree, pull, live, report and export share, and how
 * report, export and graph run the pipeline (pipeline.h): a scan, then one pass that feeds
 * every context's tree (behind its filter) at once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cyg_format.h"

/* "12ns", "0.5us", "40", "12.5ticks": a time per event, in ns or ticks. */
static int parse_hook_cost(const char *s, struct show_opts *o)
{
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"", 0}, {"ticks", 0}};
    char *end;
    double v = strtod(s, &end);

    if (end == s || !(v >= 0) || v > 1e9 || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].unit)) {
            o->hook_cost = units[i].ns ? v * units[i].ns : v;
            o->hook_cost_ns = units[i].ns != 0;
            return 0;
        }
    return -1;
}

int cmd_filter_option(int c, const char *arg, struct show_opts *o)
{
    switch (c) {
    case CMD_SHOW_ONLY:
        o->only = arg;
        return 1;
    case CMD_SHOW_HIDE:
        o->hide = arg;
        return 1;
    case CMD_SHOW_MIN_TIME:
        if (filter_parse_duration(arg, &o->min) < 0) {
            cmd_error("--min-time=%s: not a duration (10us, 2ms, 1s, 500ns, or a number of "
                      "ticks)", arg);
            return -2;
        }
        o->have_min = 1;
        return 1;
    case CMD_SHOW_TIME_RANGE:
        if (filter_parse_range(arg, &o->range, &o->from, &o->to) < 0) {
            cmd_error("--time-range=%s: not a range A..B (durations like 10us, 2ms, 1s, or "
                      "ticks; either side may be empty)", arg);
            return -2;
        }
        return 1;
    case CMD_SHOW_RAW_TIMES:
        o->raw_times = 1;
        return 1;
    case CMD_SHOW_HOOK_COST:
        if (parse_hook_cost(arg, o) < 0) {
            cmd_error("--hook-cost=%s: not a time per event (12ns, 0.5us, or a number of "
                      "ticks: 40, 12.5)", arg);
            return -2;
        }
        o->have_hook_cost = 1;
        return 1;
    default:
        return 0;
    }
}

/* The hooks' cost's figure given by the options, in 1/256 tick, into *q; -1 when it needs a
 * clock rate the trace does not say. */
static int hook_q8(const struct show_opts *o, uint64_t hz, uint64_t *q)
{
    double t = o->hook_cost;

    if (o->hook_cost_ns) {
        if (!hz)
            return -1;
        t = t * (double)hz / 1e9;
    }
    t = t * 256.0 + 0.5;
    *q = t >= (double)CYG_HOOK_COST_MASK ? CYG_HOOK_COST_MASK : (uint64_t)t;
    return 0;
}

/* Fills fo's hook cost (tree_set_hook_cost) as the options and the trace say; 0, or -1 with
 * what is wrong in err. */
static int hook_resolve(const struct show_opts *o, const struct load *l, const char *dump,
                        struct filter_opts *fo, char *err, size_t errlen)
{
    uint64_t q = l->ring.hook_cost & CYG_HOOK_COST_MASK;

    if (o->raw_times && o->have_hook_cost) {
        snprintf(err, errlen, "--raw-times and --hook-cost: give one of them");
        return -1;
    }
    if (o->raw_times || !(l->ring.flags & CYG_F_TIMESTAMPS)) {
        if (o->have_hook_cost) {
            snprintf(err, errlen, "%s: --hook-cost needs timestamps, and this trace has none",
                     dump);
            return -1;
        }
        return 0;
    }
    if (o->have_hook_cost && hook_q8(o, l->ring.ts_hz, &q) < 0) {
        snprintf(err, errlen, "%s: the trace does not say its clock rate: give --hook-cost in "
                              "ticks", dump);
        return -1;
    }
    fo->hook.cost = (uint32_t)q;
    /* 64-bit traces are threads that run side by side; the others one core's contexts */
    fo->hook.global = !(l->ring.flags & CYG_F_THREADS);
    /* the ring's pages, as its first lap faulted them in (a stream's records were a ring's
     * too, but which lap a stream's seq was in is the drain's affair: no pages) */
    if (!l->stream && l->ring.page_cost && l->ring.page_log2 >= 8 && l->ring.page_log2 <= 30) {
        fo->hook.page_cost = l->ring.page_cost;
        fo->hook.page_log2 = l->ring.page_log2;
        fo->hook.rec_bytes = l->ring.rec_bytes;
        fo->hook.cap_log2 = l->ring.cap_log2;
    }
    return 0;
}

const char *cmd_hook_note(const struct load *l, const struct show_opts *o,
                          const struct filter_opts *fo, char *buf, size_t len)
{
    double ticks = fo->hook.cost / 256.0;
    const char *by = o->have_hook_cost                          ? "given by --hook-cost"
                     : l->ring.hook_cost & CYG_HOOK_COST_GIVEN ? "given when the runtime was "
                                                                 "built, CYGTRACE_HOOK_COST"
                                                               : "measured by the runtime";
    char fig[48];

    if (!fo->hook.cost)
        return NULL;
    if (l->ring.ts_hz)
        snprintf(fig, sizeof fig, "%.1f ns", ticks * 1e9 / (double)l->ring.ts_hz);
    else
        snprintf(fig, sizeof fig, "%.2f ticks", ticks);
    snprintf(buf, len, "durations corrected for hook cost: %s per event (%s; --raw-times to show "
                       "as recorded)", fig, by);
    return buf;
}

static int find_func(const struct load *l, const char *elf, const char *opt, const char *name,
                     uint64_t *addr, char *err, size_t errlen)
{
    uint64_t a, size;

    if (!l->sym || sym_find(l->sym, name, &a, &size) < 0) {
        snprintf(err, errlen, "%s: --%s=%s: no such function in its symbols",
                 elf ? elf : "(no ELF)", opt, name);
        return -1;
    }
    *addr = a + l->ring.load_bias;
    return 0;
}

int cmd_filter_resolve(const struct show_opts *o, const struct load *l, const char *elf,
                       const char *dump, struct filter_opts *fo, struct filter_time *ft,
                       char *err, size_t errlen)
{
    int timed = !!(l->ring.flags & CYG_F_TIMESTAMPS);

    memset(fo, 0, sizeof *fo);
    *ft = o->range;
    if (o->only && find_func(l, elf, "only", o->only, &fo->only, err, errlen) < 0)
        return -1;
    fo->have_only = !!o->only;
    if (o->hide && find_func(l, elf, "hide", o->hide, &fo->hide, err, errlen) < 0)
        return -1;
    fo->have_hide = !!o->hide;
    if ((o->have_min || ft->on) && !timed) {
        snprintf(err, errlen, "%s: --%s needs timestamps, and this trace has none", dump,
                 o->have_min ? "min-time" : "time-range");
        return -1;
    }
    if ((o->have_min && filter_ticks(&o->min, l->ring.ts_hz, &fo->min) < 0) ||
        (ft->have_from && filter_ticks(&o->from, l->ring.ts_hz, &ft->from) < 0) ||
        (ft->have_to && filter_ticks(&o->to, l->ring.ts_hz, &ft->to) < 0)) {
        snprintf(err, errlen, "%s: the trace does not say its clock rate: give %s in ticks",
                 dump, o->have_min ? "--min-time" : "--time-range");
        return -1;
    }
    if (o->have_min && !fo->min)
        fo->min = 1; /* 0 means none: a minimum of 0 ticks leaves nothing out either */
    return hook_resolve(o, l, dump, fo, err, errlen);
}

int cmd_filter_run(struct load *l, const char *elf, const char *dump, const struct show_opts *o,
                   cmd_sink_of sink_of, void *arg, struct cmd_filter_run *run)
{
    struct pipeline_tally t = {0, 0, 0};
    struct filter_opts fo;
    struct filter_time ft;
    unsigned checked = 0, known = 0;
    uint32_t thread = 0;
    char err[512];
    int n;

    memset(run, 0, sizeof *run);
    if (cmd_filter_resolve(o, l, elf, dump, &fo, &ft, err, sizeof err) < 0) {
        cmd_error("%s", err);
        return 1;
    }
    fo.max_depth = o->max_depth;
    if (pipeline_scan(l, ft, &run->sc, &run->st, &checked, &known) < 0) {
        if (!cmd_dump_changed(l))
            cmd_error("%s: read error", dump);
        return 1;
    }
    if (checked && !known && !o->force) {
        cmd_error("%s: none of the traced functions is among its symbols (stripped, or not the "
                  "traced program?); use --force to print addresses", elf);
        return 1;
    }
    if (o->have_thread && cmd_show_thread(l, o, dump, &thread) < 0)
        return 1;
    if (!cmd_clock_stood(l, &run->st))
        cmd_hook_note(l, o, &fo, run->hook, sizeof run->hook);
    n = pipeline_run(l, &run->sc, &fo, ft, o->have_thread ? &thread : NULL, sink_of, arg, &t,
                     err, sizeof err);
    if (n < 0) {
        if (!cmd_dump_changed(l))
            cmd_error("%s", err);
        return 1;
    }
    if (o->have_thread && !n) {
        cmd_show_no_thread(o, dump, thread);
        return 1;
    }
    run->unmatched = t.unmatched;
    run->forced = t.forced;
    return 0;
}
