/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_report.c - "cygtrace report": a flat profile per function (calls, total, self, avg, max)
 * from fnstat tables fed by the filtered trees: one table per context when there are several,
 * and one for them all; then, for a 32-bit trace of several contexts that switch, one line
 * per context (task, interrupt) of who ran when (taskstat.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "model/fnstat.h"
#include "output/fmt.h"
#include "model/taskstat.h"
#include "model/tee.h"
#include "util/vec.h"

enum { SORT_AVG = FNSTAT_KEYS, REPORT_SORT = 0x200, REPORT_TICKS, REPORT_TASKS };

/* A context's tree feeds its own table and the all-contexts one. */
struct ctx_table {
    struct tee tee;
    struct fnstat *own;
    uint32_t id;
};

struct report {
    struct load *l;
    uint64_t hz; /* what durations are shown with: 0 for clock ticks */
    struct fnstat *all;
    struct ctx_table **tee; /* one allocation each: the sinks point into them */
    size_t n, cap;
};

static const struct tree_sink *sink_of(void *arg, const struct dec_ctx *c)
{
    struct report *r = arg;
    struct ctx_table *t;

    if (vec_grow(&r->tee, &r->cap, r->n, sizeof *r->tee, 64) < 0 || !(t = calloc(1, sizeof *t)))
        return NULL;
    r->tee[r->n++] = t; /* counted now: freed whatever fails */
    t->id = c->id;
    t->own = fnstat_new(r->l->sym, r->l->ring.load_bias);
    tee_init(&t->tee);
    if (!t->own || tee_add(&t->tee, fnstat_sink(t->own, c->id)) < 0 ||
        tee_add(&t->tee, fnstat_sink(r->all, c->id)) < 0)
        return NULL;
    return &t->tee.sink;
}

static uint64_t avg_of(const struct fnstat_row *r)
{
    return r->calls ? r->total / r->calls : 0;
}

static int cmp_avg(const void *pa, const void *pb)
{
    const struct fnstat_row *a = pa, *b = pb;
    uint64_t x = avg_of(a), y = avg_of(b);

    if (x != y)
        return x < y ? 1 : -1;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* One table: a header line and a line per function. */
static int print_table(struct report *r, struct fnstat *s, int key, uint64_t *partial)
{
    const struct fnstat_row *rows;
    struct fnstat_row *copy = NULL;
    uint64_t hz = r->hz;
    size_t n;

    rows = fnstat_rows(s, key == SORT_AVG ? FNSTAT_BY_TOTAL : (enum fnstat_key)key, &n);
    if (!rows)
        return n ? -1 : 0;
    if (key == SORT_AVG) {
        if (!(copy = malloc(n * sizeof *copy)))
            return -1;
        memcpy(copy, rows, n * sizeof *copy);
        qsort(copy, n, sizeof *copy, cmp_avg);
        rows = copy;
    }
    printf("%10s %14s %14s %14s %14s  %s\n", "calls", "total", "self", "avg", "max",
           "function");
    for (size_t i = 0; i < n; i++) {
        char t[32], se[32], a[32], m[32], name[256];

        fmt_duration(rows[i].total, hz, t, sizeof t);
        fmt_duration(rows[i].self, hz, se, sizeof se);
        fmt_duration(avg_of(&rows[i]), hz, a, sizeof a);
        fmt_duration(rows[i].max, hz, m, sizeof m);
        fmt_addr(r->l->sym, r->l->ring.load_bias, rows[i].addr, name, sizeof name);
        printf("%10" PRIu64 " %14s %14s %14s %14s  %s\n", rows[i].calls, t, se, a, m, name);
        *partial += rows[i].partial;
    }
    free(copy);
    return 0;
}

/* What the per-context section prints: the trace's contexts and how its times read. */
struct tasks {
    struct load *l;
    uint64_t hz;   /* 0: clock ticks */
    int timed;
    int wrapped;   /* the ring wrapped: the first context's switch-in is gone */
    const struct show_opts *o;
    uint32_t thread; /* --thread, resolved (cmd_show_thread): a name is known after the scan */
    int sep;       /* a blank line before the section: tables came before */
};

/* Whether context id is one --thread shows. */
static int task_shown(const struct tasks *t, uint32_t id)
{
    return !t->o->have_thread || id == t->thread;
}

static void ctx_name(const struct tasks *t, uint32_t id, char *buf, size_t len)
{
    names_ctx_text(t->l->names, t->l->sym, t->l->ring.load_bias, id, 0, buf, len);
}

/* A note line listing the contexts that have flag in their cut, if any. */
static void cut_note(const struct tasks *t, const struct taskstat_ctx *v, unsigned n, unsigned flag,
                     const char *what)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n; i++) {
        char name[NAMES_MAX + 32];

        if (!(v[i].cut & flag) || !task_shown(t, v[i].id))
            continue;
        if (k == 8) { /* enough to say what happened */
            printf(", ...");
            break;
        }
        ctx_name(t, v[i].id, name, sizeof name);
        printf("%s%s", k++ ? ", " : what, name);
    }
    if (k)
        printf("\n");
}

static void task_row(const struct tasks *t, const struct taskstat_ctx *c, uint64_t whole)
{
    char name[NAMES_MAX + 32], waker[NAMES_MAX + 64] = "-";

    ctx_name(t, c->id, name, sizeof name);
    if (c->waker_n) {
        size_t k;

        ctx_name(t, c->waker, waker, sizeof waker);
        k = strlen(waker);
        snprintf(waker + k, sizeof waker - k, " (%" PRIu64 " of %" PRIu64 ")", c->waker_n,
                 c->wakes);
    }
    if (t->timed) {
        char run[32], blocked[32], share[16] = "-";

        fmt_duration(c->run, t->hz, run, sizeof run);
        fmt_duration(c->blocked, t->hz, blocked, sizeof blocked);
        if (whole)
            snprintf(share, sizeof share, "%.1f%%", 100.0 * (double)c->run / (double)whole);
        printf("%14s %7s %14s ", run, share, blocked);
    }
    printf("%10" PRIu64 " %10" PRIu64 "  %-16s  %s\n", c->switches, c->blocks, name, waker);
}

/* The per-context section of a 32-bit trace whose contexts switch (CONTEXT records), from one
 * pass of its own over the events in ft's range: *shown says whether there was one. 0, or -1
 * with what is wrong in err. */
static int print_tasks(const struct tasks *t, struct filter_time ft, int *shown, char *err,
                       size_t errlen)
{
    struct taskstat *s;
    struct taskstat_info in;
    const struct taskstat_ctx *v;
    unsigned n;
    uint64_t whole;
    char span[32];

    *shown = 0;
    if (t->l->ring.word_bytes != 4)
        return 0;
    if (!(s = taskstat_new(NULL, NULL))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (taskstat_run(t->l, ft, s, err, errlen) < 0) {
        taskstat_free(s);
        return -1;
    }
    taskstat_get_info(s, &in);
    v = taskstat_contexts(s, &n);
    if (n < 2 || !in.switches) {
        taskstat_free(s);
        return 0;
    }
    *shown = 1;
    if (t->sep)
        printf("\n");
    whole = in.t_last > in.t_first ? in.t_last - in.t_first : 0; /* a clock that stepped back */
    fmt_duration(whole, t->hz, span, sizeof span);
    printf("# %u contexts (tasks, interrupts)", n);
    if (t->timed)
        printf(", by running time over %s", span);
    printf("\n");
    if (t->timed)
        printf("%14s %7s %14s ", "running", "share", "blocked");
    printf("%10s %10s  %-16s  %s\n", "switches", "blocks", "context", "woken most by");
    for (unsigned i = 0; i < n; i++)
        if (task_shown(t, v[i].id))
            task_row(t, &v[i], whole);
    if (!t->timed) {
        printf("# the trace has no timestamps: only switches and blocks are counted\n");
    } else {
        cut_note(t, v, n, TASKSTAT_CUT_START,
                 t->wrapped ? "# running when the trace starts (the ring wrapped: when it was "
                              "switched in is unknown), counted from the first event: "
                            : "# running when the trace starts, counted from the first event: ");
        cut_note(t, v, n, TASKSTAT_CUT_END,
                 "# running when the trace ends (or a gap begins), counted to the last event: ");
        cut_note(t, v, n, TASKSTAT_BLOCKED_START,
                 "# woken before it ever ran, blocked since before the trace, counted from the "
                 "first event: ");
        cut_note(t, v, n, TASKSTAT_BLOCKED_END,
                 "# still blocked when the trace ends, counted to the last event: ");
        if (t->sep) /* after the functions' tables, whose times this explains */
            printf("# a call's total and self times above run from its entry to its exit: they "
                   "count the time its context was switched out (blocked, preempted) too\n");
    }
    taskstat_free(s);
    return 0;
}

/* --tasks: the scan (which gathers the contexts' names) and the per-context section only. */
static int report_tasks(struct tasks *t, const char *elf, const char *dump)
{
    struct filter_opts fo;
    struct filter_time ft;
    struct tree_scan sc = {0};
    struct source_stats st = {0};
    unsigned checked = 0, known = 0;
    char err[512];
    int shown = 0, rc = 1;

    if (cmd_filter_resolve(t->o, t->l, elf, dump, &fo, &ft, err, sizeof err) < 0) {
        cmd_error("%s", err);
        return 1;
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (pipeline_scan(t->l, ft, &sc, &st, &checked, &known) < 0) {
        if (!cmd_dump_changed(t->l))
            cmd_error("%s: read error", dump);
        goto out;
    }
    if (t->o->have_thread && cmd_show_thread(t->l, t->o, dump, &t->thread) < 0)
        goto out;
    t->wrapped = st.dec.overwritten > 0;
    if (print_tasks(t, ft, &shown, err, sizeof err) < 0) {
        /* the message it always was; err says more (a change of output: not in a refactoring) */
        if (!cmd_dump_changed(t->l))
            cmd_error("%s: read error (or out of memory)", dump);
        goto out;
    }
    if (!shown)
        printf("# no task switches: the trace is not a 32-bit one whose contexts switch "
               "(CONTEXT records)\n");
    rc = 0;
out:
    cmd_stdout_failed();
    tree_scan_free(&sc);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace report [options] [ELF] [DUMP]\n"
               "  --sort=KEY                  total (default), self, calls, avg, max, name\n"
               "  --ticks                     times in clock ticks, not in seconds\n"
               "  --tasks                     only the per-context section: running and\n"
               "                              blocked time, switches, blocks, who woke it\n%s",
            cmd_show_usage);
}

static int parse_sort(const char *s, int *key)
{
    static const char *const names[] = {"calls", "total", "self", "max", "name", "avg"};
    static const int keys[] = {FNSTAT_BY_CALLS, FNSTAT_BY_TOTAL, FNSTAT_BY_SELF,
                               FNSTAT_BY_MAX,   FNSTAT_BY_NAME,  SORT_AVG};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i])) {
            *key = keys[i];
            return 0;
        }
    return -1;
}

static int report(struct load *l, const char *elf, const char *dump, const struct show_opts *o,
                  int key, int ticks)
{
    struct report r = {.l = l, .hz = ticks ? 0 : l->ring.ts_hz};
    struct tasks t = {.l = l, .hz = r.hz, .timed = !!(l->ring.flags & CYG_F_TIMESTAMPS), .o = o};
    struct cmd_filter_run run;
    struct filter_opts fo;
    struct filter_time ft;
    uint64_t partial = 0, dropped;
    char err[512];
    int rc, shown;

    if (!(r.all = fnstat_new(l->sym, l->ring.load_bias))) {
        cmd_error("%s: out of memory", dump);
        return 1;
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    rc = cmd_filter_run(l, elf, dump, o, sink_of, &r, &run);
    if (rc)
        goto out;
    dropped = fnstat_dropped(r.all);
    if (run.hook[0])
        printf("# %s\n", run.hook);
    for (size_t i = 0; r.n > 1 && i < r.n; i++) {
        uint64_t ignored = 0;

        cmd_ctx_header(l, &run.sc, r.tee[i]->id);
        if (print_table(&r, r.tee[i]->own, key, &ignored) < 0)
            goto oom;
        printf("\n");
    }
    if (r.n > 1)
        printf("# all %zu %ss\n", r.n, names_ctx_word(l->ring.word_bytes));
    if (!r.n)
        printf("# the trace holds no calls\n");
    else if (print_table(&r, r.all, key, &partial) < 0)
        goto oom;
    cmd_notes_times(l, &run.st, r.hz, partial);
    cmd_notes_run(&run, dropped);
    if (l->ring.word_bytes == 4 && run.sc.n > 1) {
        /* resolved before, by cmd_filter_run: the same range and thread, no message to give */
        if (cmd_filter_resolve(o, l, elf, dump, &fo, &ft, err, sizeof err) < 0 ||
            (o->have_thread && cmd_show_thread(l, o, dump, &t.thread) < 0))
            goto out;
        t.wrapped = run.st.dec.overwritten > 0;
        t.sep = 1;
        if (print_tasks(&t, ft, &shown, err, sizeof err) < 0) {
            if (!cmd_dump_changed(l)) /* the message it always was */
                cmd_error("%s: read error (or out of memory)", dump);
            rc = 1;
        }
    }
    goto out;
oom:
    cmd_error("%s: out of memory", dump);
    rc = 1;
out:
    cmd_stdout_failed();
    for (size_t i = 0; i < r.n; i++) {
        fnstat_free(r.tee[i]->own);
        free(r.tee[i]);
    }
    free(r.tee);
    fnstat_free(r.all);
    tree_scan_free(&run.sc);
    return rc;
}

/* report's own options. */
struct report_args {
    int key, ticks, tasks;
};

static int take_option(void *arg, int c, char *val)
{
    struct report_args *a = arg;

    if (c == REPORT_TICKS)
        a->ticks = 1;
    else if (c == REPORT_TASKS)
        a->tasks = 1;
    else if (parse_sort(val, &a->key) < 0) { /* REPORT_SORT */
        cmd_error("--sort=%s: not a key (total, self, calls, avg, max, name)", val);
        return 2;
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {CMD_SHOW_LONGOPTS,
                                         {"sort", required_argument, 0, REPORT_SORT},
                                         {"ticks", no_argument, 0, REPORT_TICKS},
                                         {"tasks", no_argument, 0, REPORT_TASKS},
                                         {"help", no_argument, 0, CMD_OPTS_HELP},
                                         {0, 0, 0, 0}};
    struct show_opts o;
    struct report_args a = {.key = FNSTAT_BY_TOTAL};
    const struct cmd_opts p = {.cmd = "report", .table = opts, .show = &o, .usage = usage,
                               .take = take_option, .arg = &a};
    struct cmd_inputs in;
    struct load l;
    int rc;

    cmd_show_init(&o);
    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    if ((rc = cmd_load_args(argc, argv, "report", o.force ? CMD_LOAD_FORCE : 0, &in, &l)) != 0)
        return rc;
    if (a.tasks) {
        struct tasks t = {.l = &l, .hz = a.ticks ? 0 : l.ring.ts_hz,
                          .timed = !!(l.ring.flags & CYG_F_TIMESTAMPS), .o = &o};

        rc = report_tasks(&t, in.elf, in.dump);
    } else {
        rc = report(&l, in.elf, in.dump, &o, a.key, a.ticks);
    }
    return cmd_load_close(&l, rc);
}
