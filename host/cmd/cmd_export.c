/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_export.c - "cygtrace export": the trace as Chrome trace JSON, folded stacks, a
 * callgrind file or a Perfetto trace, through the same filters as tree and report; in Chrome
 * JSON and Perfetto, an RTOS trace's schedule too (taskstat.h). Several ELF DUMP pairs merge
 * into one Chrome or Perfetto trace (or one SQLite database), each a process (a trace), each input's times mapped onto the host's clock by
 * its timebase (timebase.h): the one place where an input is placed in time, which any format
 * can take (export_opts.tb). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "model/timebase.h"
#include "source/sread.h"
#include "source/src.h"
#include "util/vec.h"
#include "output/export.h"
#include "output/outfile.h"
#include "output/render.h"
#include "model/taskstat.h"

enum { EXPORT_OPT_FORMAT = 0x200, EXPORT_OPT_OFFSET };

#define EXPORT_INPUTS_MAX 64u

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace export --format=FORMAT [options] [ELF] [DUMP] [-o FILE]\n"
               "       cygtrace export --format=chrome|perfetto|sqlite [options] ELF DUMP ELF DUMP...\n"
               "                       [-o FILE]\n"
               "  several ELF DUMP pairs (rings, saved streams) merge into one trace, each a\n"
               "  process (sqlite: a trace each), on the host's CLOCK_MONOTONIC\n"
               "  (docs/exports.md)\n"
               "  --format=chrome             Chrome trace JSON (Perfetto UI, chrome://tracing)\n"
               "  --format=folded             flamegraph.pl / speedscope: \"a;b;c N\", N the\n"
               "                              stack's self time in clock ticks\n"
               "  --format=callgrind          callgrind.out for KCachegrind, callgrind_annotate\n"
               "                              (costs in clock ticks)\n"
               "  --format=perfetto           Perfetto's protobuf trace (ui.perfetto.dev,\n"
               "                              trace_processor); --srcline: source locations\n"
               "  --offset=INPUT:TIME         shift input INPUT (its number from 1, or its DUMP)\n"
               "                              by TIME (-1.5ms, 200us, 3s, 40ns) on that clock\n"
               "  --format=sqlite -o DB       SQLite tables (calls, functions, contexts, marks,\n"
               "                              faults...); an existing cygtrace DB gets a new trace\n"
               "  -o FILE                     write to FILE instead of the standard output\n%s",
            cmd_show_usage);
}

static const struct tree_sink *sink_of(void *arg, const struct dec_ctx *c)
{
    return export_sink(arg, c->id, c->os_tid, c->vfork);
}

/* The schedule of a 32-bit trace that an RTOS glue wrote (SCHED or NAME records, and
 * switches): a pass to tell, and one that writes it; other traces' JSON stays as it was.
 * 0, or -1 on a read error or out of memory. */
static int schedule(struct load *l, const char *elf, const char *dump, const struct show_opts *o,
                    struct export *x)
{
    struct filter_opts fo;
    struct filter_time ft;
    struct taskstat_info in;
    struct taskstat *s;
    char err[512];
    int rc;

    if (cmd_filter_resolve(o, l, elf, dump, &fo, &ft, err, sizeof err) < 0)
        return 0; /* cannot be: cmd_filter_run resolved the same */
    if (!(s = taskstat_new(NULL, NULL)))
        return -1;
    rc = taskstat_run(l, ft, s, err, sizeof err);
    taskstat_get_info(s, &in);
    taskstat_free(s);
    if (rc < 0 || !in.rtos || !in.switches)
        return rc;
    if (!(s = taskstat_new(export_taskstat_span, x)))
        return -1;
    rc = taskstat_run(l, ft, s, err, sizeof err);
    taskstat_free(s);
    return rc;
}

/* export's own options. */
struct export_args {
    const char *outname;
    struct export_opts *xo;
    int have_format;
    struct {
        const char *input; /* a number from 1, or a DUMP */
        const char *time;
        int64_t ns;
    } off[EXPORT_INPUTS_MAX];
    unsigned noff;
};

static int take_option(void *arg, int c, char *val)
{
    struct export_args *a = arg;
    char *colon;

    if (c == 'o') {
        a->outname = val;
        return 0;
    }
    if (c == EXPORT_OPT_OFFSET) {
        colon = strrchr(val, ':'); /* a DUMP's name may hold one, a TIME never */
        if (!colon || colon == val || timebase_parse_offset(colon + 1, &a->off[a->noff].ns) < 0) {
            cmd_error("--offset=%s: not INPUT:TIME (an input's number or DUMP, a time with its "
                      "unit: 2:-1.5ms)", val);
            return 2;
        }
        if (a->noff == EXPORT_INPUTS_MAX) {
            cmd_error("--offset=%s: more than %u offsets", val, EXPORT_INPUTS_MAX);
            return 2;
        }
        *colon = 0;
        a->off[a->noff].time = colon + 1;
        a->off[a->noff++].input = val;
        return 0;
    }
    if (export_parse_format(val, &a->xo->format) < 0) { /* EXPORT_OPT_FORMAT */
        cmd_error("--format=%s: not a format (chrome, folded, callgrind, perfetto, sqlite)", val);
        return 2;
    }
    a->have_format = 1;
    return 0;
}

/* A saved stream's host time frames, as points: the target's time (ns of its own clock)
 * against the host's. */
struct host_points {
    struct timebase_pt *p;
    size_t n, cap;
    uint64_t hz;
    uint64_t restarts; /* the points are of the target's start after that many restarts */
    int failed;
};

/* A target that started over has a new clock: the points of its last start are kept. */
static void on_host(void *arg, int64_t host_ns, uint64_t target_time, uint64_t restarts)
{
    struct host_points *h = arg;

    if (restarts != h->restarts) {
        h->n = 0;
        h->restarts = restarts;
    }
    if (vec_grow(&h->p, &h->cap, h->n, sizeof *h->p, 256) < 0) {
        h->failed = 1;
        return;
    }
    h->p[h->n++] = (struct timebase_pt){timebase_own_ns(h->hz, target_time), host_ns};
}

/* Maps a saved stream onto the host's clock: a pass over its host time frames, then the fit.
 * 1 when mapped (f says how well), 0 when it holds none, -1 after a message. */
static int stream_map(const char *dump, struct timebase *tb, struct timebase_fit *f)
{
    struct host_points h = {.hz = tb->hz};
    struct sread *r = NULL;
    struct src *s;
    struct ev e;
    char err[512];
    int rc = -1, k;

    if (!(s = src_open_file(dump, err, sizeof err))) {
        cmd_error("%s", err);
        return -1;
    }
    if (!(r = sread_open(s)))
        goto nomem;
    sread_on_host(r, on_host, &h);
    while ((k = sread_next(r, &e, err, sizeof err)) > 0)
        ;
    if (k < 0) {
        cmd_error("%s", err);
        goto out;
    }
    if (h.failed)
        goto nomem;
    rc = 0;
    if (h.restarts)
        fprintf(stderr, "cygtrace: note: %s: the target started over %" PRIu64 " times in the "
                        "stream: its clock is fitted over its last start only, and the calls "
                        "before it are misplaced\n", dump, h.restarts);
    if (h.n && timebase_fit(h.p, h.n, f) == 0) {
        timebase_set_fit(tb, f);
        rc = 1;
    } else if (h.n) {
        goto nomem;
    }
    goto out;
nomem:
    cmd_error("%s: out of memory", dump);
out:
    sread_close(r);
    src_close(s);
    free(h.p);
    return rc;
}

int cmd_export_map(struct load *l, const char *dump, int64_t offset, struct timebase *tb)
{
    struct timebase_fit f;
    uint64_t ticks[2];
    int64_t ns[2];
    unsigned n;
    int rc = 0;

    *tb = (struct timebase){.hz = l->ring.ts_hz, .offset_ns = offset};
    if (!(l->ring.flags & CYG_F_TIMESTAMPS)) {
        fprintf(stderr, "cygtrace: note: %s: the trace has no timestamps: it cannot be placed "
                        "in time\n", dump);
        return 0;
    }
    if (l->stream) {
        if ((rc = stream_map(dump, tb, &f)) < 0)
            return 1;
        if (rc)
            fprintf(stderr, "cygtrace: note: %s: its clock fitted to the host's over %zu "
                            "frames, rate %+.1f ppm: they arrived %.3f us (median), %.3f us "
                            "(max) after the line (the link's jitter)\n",
                    dump, f.n, (f.slope - 1) * 1e6, f.median / 1e3, f.max / 1e3);
    } else if (l->ring.word_bytes == 8 && (n = modmap_clock(l->map, ticks, ns)) > 0) {
        rc = timebase_set_pairs(tb, ticks, ns, n) == 0;
    }
    if (!rc && !offset)
        fprintf(stderr, "cygtrace: note: %s: nothing maps its clock onto the host's (no clock "
                        "lines in its map, no host times in its stream): it stays on its own; "
                        "--offset=INPUT:TIME shifts it\n", dump);
    return 0;
}

/* What each input shares: the writer, the output, the options. */
struct export_run {
    struct export *x;
    struct outfile *of;
    FILE *out;
    const char *outname;
    struct export_opts xo;
    const struct show_opts *o;
    int merged;
};

/* The last part of a path. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash && slash[1] ? slash + 1 : path;
}

/* Exports one input (l open) into the run's writer (made at the first); 0, or 1 after a
 * message. */
static int export_one(struct export_run *e, struct load *l, const char *elf, const char *dump,
                      const struct timebase *tb, uint32_t pid)
{
    struct export_opts *xo = &e->xo;
    struct cmd_filter_run run = {0};
    const char *stood;
    char err[512];
    int rc = 1;

    if ((xo->format == EXPORT_FOLDED || xo->format == EXPORT_CALLGRIND) &&
        !(l->ring.flags & CYG_F_TIMESTAMPS)) {
        cmd_error("%s: --format=%s needs timestamps, and this trace has none", dump,
                  xo->format == EXPORT_FOLDED ? "folded" : "callgrind");
        goto out;
    }
    if (e->outname && !e->of) {
        if (!(e->of = outfile_open(e->outname, err, sizeof err))) {
            cmd_error("%s: %s", e->outname, err);
            goto out;
        }
        e->out = outfile_stream(e->of);
    }
    if (!e->x)
        setvbuf(e->out, NULL, _IOFBF, 1 << 16);
    xo->sym = l->sym;
    xo->bias = l->ring.load_bias;
    xo->hz = l->ring.ts_hz;
    xo->pid = pid;
    xo->word_bytes = l->ring.word_bytes;
    xo->tb = tb;
    /* a merged input's process is named after its DUMP; perfetto's only one after its ELF */
    xo->process = e->merged                      ? dump
                  : xo->format == EXPORT_PERFETTO ? base_name(elf)
                                                  : NULL;
    dwarf_src_close(xo->dwarf);
    xo->dwarf = NULL;
    if ((xo->format == EXPORT_CALLGRIND ||
         (xo->format == EXPORT_PERFETTO && (e->o->show & RENDER_SRCLINE))) && l->sym)
        xo->dwarf = dwarf_src_open(elf); /* read lazily; NULL (no memory): files unnamed */
    if (e->x) {
        export_input(e->x, xo);
    } else if (!(e->x = export_new(e->out, xo))) {
        cmd_error("%s: out of memory", dump);
        goto out;
    }
    /* l->names fills in the scan, before the first sink is asked for (cmd_filter_run) */
    export_names(e->x, l->names);
    if ((rc = cmd_filter_run(l, elf, dump, e->o, sink_of, e->x, &run)) != 0)
        goto out;
    if ((xo->format == EXPORT_CHROME || xo->format == EXPORT_PERFETTO) &&
        l->ring.word_bytes == 4 && run.sc.n > 1 &&
        schedule(l, elf, dump, e->o, e->x) < 0) {
        if (!cmd_dump_changed(l))
            cmd_error("%s: read error (or out of memory)", dump);
        rc = 1;
        goto out;
    }
    rc = 1;
    if (cmd_dump_changed(l)) /* an output of half a dump must not replace a whole one */
        goto out;
    rc = 0;
    if (run.unmatched)
        fprintf(stderr, "cygtrace: note: %" PRIu64 " exits matched no call and were skipped\n",
                run.unmatched);
    if (run.forced)
        fprintf(stderr, "cygtrace: note: %" PRIu64 " calls shorter than --min-time were kept: "
                        "more than %u events happened inside them before it was known\n",
                run.forced, FILTER_HOLD);
    if (run.hook[0]) /* each input its own figure, said once the export is whole */
        cmd_note_later("%s%s%s", e->merged ? dump : "", e->merged ? ": " : "", run.hook);
    if ((stood = cmd_clock_stood(l, &run.st)))
        fprintf(stderr, "cygtrace: note: %s; every duration is 0\n", stood);
    else if (xo->format == EXPORT_CHROME && !xo->hz && (l->ring.flags & CYG_F_TIMESTAMPS))
        fprintf(stderr, "cygtrace: note: the trace does not say its clock rate: ts are clock "
                        "ticks, not microseconds\n");
    else if (xo->format == EXPORT_PERFETTO && !xo->hz && (l->ring.flags & CYG_F_TIMESTAMPS))
        fprintf(stderr, "cygtrace: note: the trace does not say its clock rate: timestamps "
                        "are clock ticks, not nanoseconds\n");
out:
    tree_scan_free(&run.sc);
    return rc;
}

/* Ends the export after the last input: the writer's end, the output kept. 0, or 1. */
static int export_finish(struct export_run *e)
{
    char err[512];
    int c;

    if (export_end(e->x, err, sizeof err) < 0) { /* the message it always was; err says more */
        if (!e->outname && ferror(stdout))
            cmd_stdout_error(errno); /* export_end's flush just failed: errno says why */
        else
            cmd_error("%s: cannot write (or out of memory)",
                      e->outname ? e->outname : "standard output");
        return 1;
    }
    if (e->of) {
        c = outfile_commit(e->of, err, sizeof err);
        e->of = NULL;
        if (c < 0) {
            cmd_error("%s: %s", e->outname, err);
            return 1;
        }
    }
    return 0;
}

/* The offset --offset gave input k (its number from 1, or its DUMP), summed; -1 after a
 * message when one names no input. */
static int offsets(const struct export_args *a, char **dumps, unsigned n, int64_t *off)
{
    for (unsigned k = 0; k < n; k++)
        off[k] = 0;
    for (unsigned i = 0; i < a->noff; i++) {
        char *end;
        unsigned long v = strtoul(a->off[i].input, &end, 10);
        unsigned k;

        if (*end || !isdigit((unsigned char)a->off[i].input[0]) || v < 1 || v > n) {
            for (k = 0; k < n && strcmp(dumps[k], a->off[i].input); k++)
                ;
            if (k == n) {
                cmd_error("--offset=%s:%s: no input %s (give its number, 1 to %u, or its DUMP)",
                          a->off[i].input, a->off[i].time, a->off[i].input, n);
                return -1;
            }
        } else {
            k = (unsigned)v - 1;
        }
        off[k] += a->off[i].ns;
    }
    return 0;
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {CMD_SHOW_LONGOPTS,
                                         {"format", required_argument, 0, EXPORT_OPT_FORMAT},
                                         {"offset", required_argument, 0, EXPORT_OPT_OFFSET},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, CMD_OPTS_HELP},
                                         {0, 0, 0, 0}};
    static struct export_args a;
    static struct timebase tbs[EXPORT_INPUTS_MAX];
    int64_t off[EXPORT_INPUTS_MAX];
    uint32_t pids[EXPORT_INPUTS_MAX];
    char *dumps[EXPORT_INPUTS_MAX];
    struct export_run e = {.out = stdout};
    struct show_opts o;
    const struct cmd_opts p = {.cmd = "export", .table = opts, .shortopts = "o:", .show = &o,
                               .usage = usage, .take = take_option, .arg = &a};
    struct cmd_inputs in;
    struct load l;
    unsigned n = 1, k;
    int first, rc;

    memset(&a, 0, sizeof a);
    a.xo = &e.xo;
    cmd_show_init(&o);
    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    e.outname = a.outname;
    e.o = &o;
    if (!a.have_format) {
        cmd_error("export: needs --format=chrome|folded|callgrind|perfetto|sqlite (see 'cygtrace export --help')");
        return 2;
    }
    if (e.xo.format == EXPORT_PERFETTO && !e.outname && isatty(STDOUT_FILENO)) {
        cmd_error("export: --format=perfetto writes binary data; give -o FILE or redirect it");
        return 2;
    }
    first = optind;
    if (argc - first > 2) { /* several inputs: ELF DUMP pairs, merged */
        if ((argc - first) % 2 || (unsigned)(argc - first) / 2 > EXPORT_INPUTS_MAX) {
            cmd_error("export: several inputs go as ELF DUMP pairs, at most %u; %d files given "
                      "(see 'cygtrace export --help')", EXPORT_INPUTS_MAX, argc - first);
            return 2;
        }
        if (e.xo.format != EXPORT_CHROME && e.xo.format != EXPORT_PERFETTO &&
            e.xo.format != EXPORT_SQLITE) {
            cmd_error("export: several inputs merge into --format=chrome, perfetto or sqlite "
                      "only");
            return 2;
        }
        n = (unsigned)(argc - first) / 2;
    }
    if (a.noff && (e.xo.format == EXPORT_FOLDED || e.xo.format == EXPORT_CALLGRIND)) {
        cmd_error("export: --offset places inputs on a time line: --format=chrome, perfetto or "
                  "sqlite only");
        return 2;
    }
    e.merged = n > 1 || a.noff;
    /* Before anything is opened: an output that is an input would be destroyed. */
    for (k = 0; k < n; k++) {
        optind = first + 2 * (int)k;
        if ((rc = cmd_inputs(n > 1 ? optind + 2 : argc, argv, "export", 0, &in)) != 0)
            return rc;
        if (cmd_check_output(e.outname, in.elf, in.dump))
            return 1;
        dumps[k] = n > 1 ? argv[optind + 1] : (char *)in.dump;
    }
    if (a.noff && offsets(&a, dumps, n, off) < 0)
        return 2;
    if (e.xo.format == EXPORT_SQLITE) { /* a trace each input, in one database */
        optind = first;
        return cmd_export_sqlite(argc, argv, &o, e.outname, n, a.noff ? off : NULL);
    }
    for (k = 0; k < n; k++) {
        optind = first + 2 * (int)k;
        if ((rc = cmd_load_args(n > 1 ? optind + 2 : argc, argv, "export",
                                o.force ? CMD_LOAD_FORCE : 0, &in, &l)) != 0)
            break;
        /* a process per input: its own pid, unless an input before had it */
        pids[k] = l.ring.pid ? l.ring.pid : 1;
        for (unsigned j = 0; j < k; j++)
            if (pids[j] == pids[k])
                pids[k] = 1000000u + k, j = k;
        rc = e.merged ? cmd_export_map(&l, in.dump, a.noff ? off[k] : 0, &tbs[k]) : 0;
        if (!rc)
            rc = export_one(&e, &l, in.elf, in.dump, e.merged ? &tbs[k] : NULL, pids[k]);
        if (!rc && k + 1 == n) /* folded and callgrind name the functions at the end */
            rc = export_finish(&e);
        if ((rc = cmd_load_close(&l, rc)) != 0)
            break;
    }
    if (!rc && e.x && export_early(e.x))
        fprintf(stderr, "cygtrace: note: %" PRIu64 " times came before the clock's 0 (--offset) "
                        "and were written as 0: Perfetto's times are not negative\n",
                export_early(e.x));
    export_free(e.x);
    outfile_abort(e.of); /* after an error: the file it would have replaced stays as it was */
    dwarf_src_close(e.xo.dwarf);
    cmd_notes_end(!rc);
    return rc;
}
