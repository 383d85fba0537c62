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
    default:
        return 0;
    }
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
    return 0;
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
