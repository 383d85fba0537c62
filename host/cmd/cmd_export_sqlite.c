/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_export_sqlite.c - "cygtrace export --format=sqlite -o DB": the trace as SQLite tables
 * (sqlout.h), through the same filters as tree and report. A new DB is written beside its
 * place and renamed into it once complete (outfile.h); an existing cygtrace database gets the
 * trace added under a new id, in one transaction; any other file is refused. Several ELF DUMP
 * pairs are a trace each, in the same transaction, their times on the host's clock
 * (cmd_export_map), as --offset puts one alone. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cyg_format.h"
#include "output/fmt.h"
#include "output/outfile.h"
#include "output/sqlout.h"

static const struct tree_sink *sink_of(void *arg, const struct dec_ctx *c)
{
    return sqlout_sink(arg, c->id, c->os_tid, c->vfork);
}

/* Whether outname is a database to add to (1), a file to create or replace (0), or neither
 * (-1 after the message): a cygtrace database is added to; an empty or missing file is
 * written anew; anything else is refused rather than destroyed. */
static int existing(const char *outname)
{
    struct stat st;
    char err[256];

    if (stat(outname, &st) != 0 || (S_ISREG(st.st_mode) && st.st_size == 0))
        return 0;
    if (!S_ISREG(st.st_mode)) {
        cmd_error("%s: not a regular file: --format=sqlite writes a database file", outname);
        return -1;
    }
    if (!sqlout_is_ours(outname, err, sizeof err)) {
        cmd_error("%s: %s; name a new file, or a database cygtrace wrote", outname, err);
        return -1;
    }
    return 1;
}

static void fill_opts(const struct load *l, const struct cmd_inputs *in, char *hex, size_t hexlen,
                      struct sqlout_opts *so)
{
    const struct dec_ring *r = &l->ring;

    *so = (struct sqlout_opts){.sym = l->sym,
                               .bias = r->load_bias,
                               .hz = r->ts_hz,
                               .timestamps = !!(r->flags & CYG_F_TIMESTAMPS),
                               .word_bytes = r->word_bytes,
                               .names = l->names,
                               .ctrl = r->ctrl_state == DEC_CTRL_OK ? &r->ctrl : NULL,
                               .elf = in->elf,
                               .dump = in->dump,
                               .machine = r->machine,
                               .pid = r->pid,
                               .lost = r->lost};
    if (r->build_id_len) {
        load_hex(r->build_id, r->build_id_len, hex, hexlen);
        so->build_id = hex;
    }
    if (!l->stream)
        so->state = fmt_state(r->state);
    if (l->sym)
        so->dwarf = dwarf_src_open(in->elf); /* read lazily; NULL (no memory): files unnamed */
}

/* Prints what the filters and the clock said of input dump (named when there are several). */
static void notes(const struct load *l, const struct cmd_filter_run *run,
                  const struct sqlout_opts *so, const char *dump)
{
    const char *stood;

    if (run->unmatched)
        fprintf(stderr, "cygtrace: note: %" PRIu64 " exits matched no call and were skipped\n",
                run->unmatched);
    if (run->forced)
        fprintf(stderr,
                "cygtrace: note: %" PRIu64 " calls shorter than --min-time were kept: "
                "more than %u events happened inside them before it was known\n",
                run->forced, FILTER_HOLD);
    if (run->hook[0]) /* said once the database is whole */
        cmd_note_later("%s%s%s", dump ? dump : "", dump ? ": " : "", run->hook);
    if ((stood = cmd_clock_stood(l, &run->st)))
        fprintf(stderr, "cygtrace: note: %s; every duration is 0\n", stood);
    else if (!so->hz && so->timestamps && !(so->tb && so->tb->mapped))
        fprintf(stderr, "cygtrace: note: the trace does not say its clock rate: times are "
                        "clock ticks (traces.time_unit)\n");
}

/* Writes input l (open, in its inputs) into the database: opened at the first (s NULL,
 * path the file to write), a new trace after. 0, or 1 after a message. */
static int one(struct sqlout **s, const char *path, int append, const char *outname, struct load *l,
               const struct cmd_inputs *in, const struct show_opts *o, const struct timebase *tb)
{
    struct cmd_filter_run run = {0};
    struct sqlout_opts so;
    char err[512], hex[80];
    int rc = 1;

    fill_opts(l, in, hex, sizeof hex, &so);
    so.tb = tb;
    if (*s ? sqlout_next(*s, &so, err, sizeof err) < 0
           : !(*s = sqlout_open(path, !append, &so, err, sizeof err))) {
        cmd_error("%s: %s", outname, err);
        goto out;
    }
    if ((rc = cmd_filter_run(l, in->elf, in->dump, o, sink_of, *s, &run)) != 0)
        goto out;
    rc = 1;
    if (cmd_dump_changed(l)) /* half a dump must not become a trace of the database */
        goto out;
    rc = 0;
    notes(l, &run, &so, tb ? in->dump : NULL);
out:
    tree_scan_free(&run.sc);
    dwarf_src_close(so.dwarf);
    return rc;
}

int cmd_export_sqlite(int argc, char **argv, const struct show_opts *o, const char *outname,
                      unsigned n, const int64_t *off)
{
    struct sqlout *s = NULL;
    struct outfile *of = NULL;
    struct timebase tb;
    struct cmd_inputs in;
    struct load l;
    const char *path;
    char err[512];
    int first = optind, rc, append;
    unsigned k;

    if (!outname || !strcmp(outname, "-")) {
        cmd_error("export: --format=sqlite needs -o FILE: a database, not the standard output");
        return 2;
    }
    /* Before anything is opened: an output that is an input would be destroyed. */
    for (k = 0; k < n; k++) {
        optind = first + 2 * (int)k;
        if ((rc = cmd_inputs(n > 1 ? optind + 2 : argc, argv, "export", 0, &in)) != 0)
            return rc;
        if (cmd_check_output(outname, in.elf, in.dump))
            return 1;
    }
    if ((append = existing(outname)) < 0)
        return 1;
    path = outname;
    if (!append) {
        if (!(of = outfile_open(outname, err, sizeof err))) {
            cmd_error("%s: %s", outname, err);
            return 1;
        }
        if (!(path = outfile_tmpname(of))) {
            cmd_error("%s: not a regular file: --format=sqlite writes a database file", outname);
            outfile_abort(of);
            return 1;
        }
    }
    for (k = 0, rc = 0; k < n && !rc; k++) {
        optind = first + 2 * (int)k;
        if ((rc = cmd_load_args(n > 1 ? optind + 2 : argc, argv, "export",
                                o->force ? CMD_LOAD_FORCE : 0, &in, &l)) != 0)
            break;
        /* several traces, or one shifted: on the common clock */
        if (n > 1 || off)
            rc = cmd_export_map(&l, in.dump, off ? off[k] : 0, &tb);
        if (!rc)
            rc = one(&s, path, append, outname, &l, &in, o, n > 1 || off ? &tb : NULL);
        rc = cmd_load_close(&l, rc);
    }
    if (!rc && sqlout_end(s, err, sizeof err) < 0) {
        cmd_error("%s: %s", outname, err);
        rc = 1;
    }
    sqlout_free(s); /* what was not ended is rolled back */
    if (!rc && of) {
        rc = outfile_commit(of, err, sizeof err) < 0;
        of = NULL;
        if (rc)
            cmd_error("%s: %s", outname, err);
    }
    outfile_abort(of); /* after an error: the file it would have replaced stays as it was */
    cmd_notes_end(!rc);
    return rc;
}
