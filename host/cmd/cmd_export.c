/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_export.c - "cygtrace export": the trace as Chrome trace JSON, folded stacks or a
 * callgrind file, through the same filters as tree and report; in Chrome JSON, an RTOS
 * trace's schedule too (taskstat.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "output/export.h"
#include "output/outfile.h"
#include "model/taskstat.h"

enum { EXPORT_OPT_FORMAT = 0x200 };

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace export --format=FORMAT [options] [ELF] [DUMP] [-o FILE]\n"
               "  --format=chrome             Chrome trace JSON (Perfetto UI, chrome://tracing)\n"
               "  --format=folded             flamegraph.pl / speedscope: \"a;b;c N\", N the\n"
               "                              stack's self time in clock ticks\n"
               "  --format=callgrind          callgrind.out for KCachegrind, callgrind_annotate\n"
               "                              (costs in clock ticks)\n"
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
};

static int take_option(void *arg, int c, char *val)
{
    struct export_args *a = arg;

    if (c == 'o') {
        a->outname = val;
        return 0;
    }
    if (export_parse_format(val, &a->xo->format) < 0) { /* EXPORT_OPT_FORMAT */
        cmd_error("--format=%s: not a format (chrome, folded, callgrind)", val);
        return 2;
    }
    a->have_format = 1;
    return 0;
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {CMD_SHOW_LONGOPTS,
                                         {"format", required_argument, 0, EXPORT_OPT_FORMAT},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, CMD_OPTS_HELP},
                                         {0, 0, 0, 0}};
    struct export_opts xo = {0};
    struct export_args a = {.xo = &xo};
    struct cmd_filter_run run = {0};
    struct export *x = NULL;
    struct outfile *of = NULL;
    struct show_opts o;
    const char *stood;
    const struct cmd_opts p = {.cmd = "export", .table = opts, .shortopts = "o:", .show = &o,
                               .usage = usage, .take = take_option, .arg = &a};
    struct cmd_inputs in;
    struct load l;
    const char *outname, *elf, *dump;
    FILE *out = stdout;
    char err[512];
    int c, rc;

    cmd_show_init(&o);
    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    outname = a.outname;
    if (!a.have_format) {
        cmd_error("export: needs --format=chrome|folded|callgrind (see 'cygtrace export --help')");
        return 2;
    }
    /* Before anything is opened: an output that is an input would be destroyed. */
    if ((rc = cmd_inputs(argc, argv, "export", 0, &in)) != 0)
        return rc;
    if (cmd_check_output(outname, in.elf, in.dump))
        return 1;
    if ((rc = cmd_load_args(argc, argv, "export", o.force ? CMD_LOAD_FORCE : 0, &in, &l)) != 0)
        return rc;
    elf = in.elf;
    dump = in.dump;
    rc = 1;
    if (xo.format != EXPORT_CHROME && !(l.ring.flags & CYG_F_TIMESTAMPS)) {
        cmd_error("%s: --format=%s needs timestamps, and this trace has none", dump,
                  xo.format == EXPORT_FOLDED ? "folded" : "callgrind");
        goto out;
    }
    if (outname) {
        if (!(of = outfile_open(outname, err, sizeof err))) {
            cmd_error("%s: %s", outname, err);
            goto out;
        }
        out = outfile_stream(of);
    }
    setvbuf(out, NULL, _IOFBF, 1 << 16);
    xo.sym = l.sym;
    xo.bias = l.ring.load_bias;
    xo.hz = l.ring.ts_hz;
    xo.pid = l.ring.pid ? l.ring.pid : 1;
    xo.word_bytes = l.ring.word_bytes;
    if (xo.format == EXPORT_CALLGRIND && l.sym)
        xo.dwarf = dwarf_src_open(elf); /* read lazily; NULL (no memory): files unnamed */
    if (!(x = export_new(out, &xo))) {
        cmd_error("%s: out of memory", dump);
        goto out;
    }
    /* l.names fills in the scan, before the first sink is asked for (cmd_filter_run) */
    export_names(x, l.names);
    if ((rc = cmd_filter_run(&l, elf, dump, &o, sink_of, x, &run)) != 0)
        goto out;
    if (xo.format == EXPORT_CHROME && l.ring.word_bytes == 4 && run.sc.n > 1 &&
        schedule(&l, elf, dump, &o, x) < 0) {
        if (!cmd_dump_changed(&l))
            cmd_error("%s: read error (or out of memory)", dump);
        rc = 1;
        goto out;
    }
    if (export_end(x, err, sizeof err) < 0) { /* the message it always was; err says more */
        if (!outname && ferror(stdout))
            cmd_stdout_error(errno); /* export_end's flush just failed: errno says why */
        else
            cmd_error("%s: cannot write (or out of memory)", outname ? outname : "standard output");
        rc = 1;
        goto out;
    }
    if (cmd_dump_changed(&l)) { /* an output of half a dump must not replace a whole one */
        rc = 1;
        goto out;
    }
    if (of) {
        c = outfile_commit(of, err, sizeof err);
        of = NULL;
        if (c < 0) {
            cmd_error("%s: %s", outname, err);
            rc = 1;
            goto out;
        }
    }
    if (run.unmatched)
        fprintf(stderr, "cygtrace: note: %" PRIu64 " exits matched no call and were skipped\n",
                run.unmatched);
    if (run.forced)
        fprintf(stderr, "cygtrace: note: %" PRIu64 " calls shorter than --min-time were kept: "
                        "more than %u events happened inside them before it was known\n",
                run.forced, FILTER_HOLD);
    if (run.hook[0])
        fprintf(stderr, "cygtrace: note: %s\n", run.hook);
    if ((stood = cmd_clock_stood(&l, &run.st)))
        fprintf(stderr, "cygtrace: note: %s; every duration is 0\n", stood);
    else if (xo.format == EXPORT_CHROME && !xo.hz && (l.ring.flags & CYG_F_TIMESTAMPS))
        fprintf(stderr, "cygtrace: note: the trace does not say its clock rate: ts are clock "
                        "ticks, not microseconds\n");
out:
    export_free(x);
    tree_scan_free(&run.sc);
    outfile_abort(of); /* after an error: the file it would have replaced stays as it was */
    dwarf_src_close(xo.dwarf);
    return cmd_load_close(&l, rc);
}
