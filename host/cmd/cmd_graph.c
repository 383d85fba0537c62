/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_graph.c - "cygtrace graph": the aggregated call graph of a function (its callers, and
 * the merged tree of what it called) or of each context's bottom-level calls, from graphs fed
 * by the filtered trees: one per context when there are several, and one for them all. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "model/graph.h"
#include "model/tee.h"
#include "output/fmt.h"
#include "output/graphout.h"
#include "util/vec.h"

enum { GRAPH_OPT_FUNCTION = 0x200, GRAPH_OPT_TICKS };

#define MAX_FUNCS 16
_Static_assert(2 * MAX_FUNCS <= TEE_MAX, "a tee feeds two graphs per function");

/* A context's tree feeds, per function asked for, its own graph and the all-contexts one. */
struct fan {
    struct tee tee;
    struct graph *own[MAX_FUNCS];
    uint32_t id;
};

struct graphs {
    struct load *l;
    uint64_t hz; /* what durations are shown with: 0 for clock ticks */
    unsigned depth;
    uint64_t func[MAX_FUNCS]; /* run-time addresses; one 0: each context's bottom level */
    unsigned nfunc;
    struct graph *all[MAX_FUNCS];
    struct fan **fan; /* one allocation each: the sinks point into them */
    size_t n, cap;
};

static const struct tree_sink *sink_of(void *arg, const struct dec_ctx *c)
{
    struct graphs *r = arg;
    struct fan *t;

    if (vec_grow(&r->fan, &r->cap, r->n, sizeof *r->fan, 64) < 0 || !(t = calloc(1, sizeof *t)))
        return NULL;
    r->fan[r->n++] = t; /* counted now: its graphs are freed whatever fails */
    t->id = c->id;
    tee_init(&t->tee);
    for (unsigned k = 0; k < r->nfunc; k++) {
        t->own[k] = graph_new(r->l->sym, r->l->ring.load_bias, r->func[k], r->depth, 0);
        if (!t->own[k] || tee_add(&t->tee, graph_sink(t->own[k], c->id)) < 0 ||
            tee_add(&t->tee, graph_sink(r->all[k], c->id)) < 0)
            return NULL;
    }
    return &t->tee.sink;
}

/* The graphs of one graph object, each under a header line; adds the notes' counts. */
static int print_graphs(struct graphs *r, struct graph *g, uint64_t *partial, uint64_t *blind)
{
    size_t n;
    struct graph_stat *s = graph_stats(g, &n);

    graphout_sort(g, s, n);
    for (size_t i = 0; i < n; i++) {
        char name[256], t[32], se[32];

        fmt_addr(r->l->sym, r->l->ring.load_bias, s[i].addr, name, sizeof name);
        fmt_duration(s[i].total, r->hz, t, sizeof t);
        fmt_duration(s[i].self, r->hz, se, sizeof se);
        printf("# %s: %" PRIu64 " call%s, total %s, self %s\n", name, s[i].calls,
               s[i].calls == 1 ? "" : "s", t, se);
        if (partial) {
            *partial += s[i].partial;
            *blind += s[i].blind;
        }
        if (graphout_print(g, &s[i], stdout, r->hz, GRAPHOUT_CALLERS | GRAPHOUT_CALLEES) < 0)
            return -1;
        if (i + 1 < n)
            printf("\n");
    }
    return 0;
}

static int print_all(struct graphs *r, const struct cmd_filter_run *run, uint64_t *partial,
                     uint64_t *blind)
{
    const struct load *l = r->l;

    for (unsigned k = 0; k < r->nfunc; k++) {
        size_t n;
        char name[256];

        if (k)
            printf("\n");
        for (size_t i = 0; r->n > 1 && i < r->n; i++) {
            if (!graph_stats(r->fan[i]->own[k], &n))
                continue; /* not called in this context */
            /* no names: report names a context without an OS id, graph never did */
            cmd_ctx_header(l, &run->sc, r->fan[i]->id);
            if (print_graphs(r, r->fan[i]->own[k], NULL, NULL) < 0)
                return -1;
            printf("\n");
        }
        if (!graph_stats(r->all[k], &n)) {
            if (r->func[k]) {
                fmt_addr(l->sym, l->ring.load_bias, r->func[k], name, sizeof name);
                printf("# %s was not called in the trace\n", name);
            } else {
                printf("# the trace holds no calls\n");
            }
            continue;
        }
        if (r->n > 1)
            printf("# all %zu %ss\n", r->n, names_ctx_word(l->ring.word_bytes));
        if (print_graphs(r, r->all[k], partial, blind) < 0)
            return -1;
    }
    return 0;
}

static void print_notes(struct graphs *r, const struct cmd_filter_run *run, uint64_t partial,
                        uint64_t blind)
{
    const struct load *l = r->l;
    uint64_t left = 0, dropped = 0;

    for (unsigned k = 0; k < r->nfunc; k++) {
        left += graph_left_out(r->all[k]);
        dropped += graph_dropped(r->all[k]);
    }
    cmd_notes_times(l, &run->st, r->hz, partial);
    if (blind)
        printf("# %" PRIu64 " of them were entered before the trace: what they called before "
               "the trace named them is not in their graph\n", blind);
    if (left)
        printf("# %" PRIu64 " calls on paths beyond the limit of %u distinct paths are left "
               "out: their time is in their callers'\n", left, GRAPH_MAX_NODES);
    cmd_notes_run(run, dropped);
}

static int graph(struct graphs *r, const char *elf, const char *dump, const struct show_opts *o)
{
    struct cmd_filter_run run;
    uint64_t partial = 0, blind = 0;
    int rc = 1;

    memset(&run, 0, sizeof run);
    for (unsigned k = 0; k < r->nfunc; k++)
        if (!(r->all[k] = graph_new(r->l->sym, r->l->ring.load_bias, r->func[k], r->depth, 0)))
            goto oom;
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if ((rc = cmd_filter_run(r->l, elf, dump, o, sink_of, r, &run)) != 0)
        goto out;
    if (run.hook[0])
        printf("# %s\n", run.hook);
    if (print_all(r, &run, &partial, &blind) < 0)
        goto oom;
    print_notes(r, &run, partial, blind);
    goto out;
oom:
    cmd_error("%s: out of memory", dump);
    rc = 1;
out:
    cmd_stdout_failed();
    for (size_t i = 0; i < r->n; i++) {
        for (unsigned k = 0; k < r->nfunc; k++)
            graph_free(r->fan[i]->own[k]);
        free(r->fan[i]);
    }
    free(r->fan);
    for (unsigned k = 0; k < r->nfunc; k++)
        graph_free(r->all[k]);
    tree_scan_free(&run.sc);
    return rc;
}

/* The run-time address of a function named on the command line; a wrapped function (cygtrace
 * wrap) is traced as its wrapper, which fmt_addr shows by the wrapped name. */
static int find_function(const struct load *l, const char *name, uint64_t *addr)
{
    char wrapped[512];
    uint64_t a, size;

    snprintf(wrapped, sizeof wrapped, "__wrap_%s", name);
    if (!l->sym ||
        (sym_find(l->sym, wrapped, &a, &size) < 0 && sym_find(l->sym, name, &a, &size) < 0))
        return -1;
    *addr = a + l->ring.load_bias;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cygtrace graph [options] [ELF] [DUMP]\n"
            "  --function=FUNC             the graph of FUNC: its callers and what it called\n"
            "                              (repeatable); default: each thread's bottom-level\n"
            "                              calls\n"
            "  --depth=N                   show N levels of calls below the function\n"
            "  --ticks                     times in clock ticks, not in seconds\n"
            "  --thread=N                  only thread (or context) N\n"
            "  --force                     decode even if the dump is from another build\n"
            "  --only=FUNC                 only the calls of FUNC and what they call\n"
            "  --hide=FUNC                 leave out FUNC and what it calls\n"
            "  --min-time=DURATION         leave out calls shorter (10us, 2ms, 1s, or ticks)\n"
            "  --time-range=A..B           only events A to B after the first (either may be "
            "empty)\n" CMD_HOOK_USAGE);
}

/* graph's own options. */
struct graph_args {
    const char *names[MAX_FUNCS]; /* --function, in order */
    unsigned n;
    int ticks;
};

static int take_option(void *arg, int c, char *val)
{
    struct graph_args *a = arg;

    if (c == GRAPH_OPT_TICKS) {
        a->ticks = 1;
        return 0;
    }
    if (!*val) { /* GRAPH_OPT_FUNCTION */
        cmd_error("--function=: give a function's name");
        return 2;
    }
    if (a->n == MAX_FUNCS) {
        cmd_error("--function=%s: at most %u functions", val, MAX_FUNCS);
        return 2;
    }
    a->names[a->n++] = val;
    return 0;
}

int cmd_graph(int argc, char **argv)
{
    static const struct option opts[] = {
        {"function", required_argument, 0, GRAPH_OPT_FUNCTION},
        {"ticks", no_argument, 0, GRAPH_OPT_TICKS},
        {"depth", required_argument, 0, CMD_SHOW_DEPTH},
        {"thread", required_argument, 0, CMD_SHOW_THREAD},
        {"force", no_argument, 0, CMD_SHOW_FORCE},
        {"only", required_argument, 0, CMD_SHOW_ONLY},
        {"hide", required_argument, 0, CMD_SHOW_HIDE},
        {"min-time", required_argument, 0, CMD_SHOW_MIN_TIME},
        {"time-range", required_argument, 0, CMD_SHOW_TIME_RANGE},
        CMD_HOOK_LONGOPTS,
        {"help", no_argument, 0, CMD_OPTS_HELP},
        {0, 0, 0, 0}};
    struct graph_args a = {0};
    struct graphs r = {0};
    struct show_opts o;
    const struct cmd_opts p = {.cmd = "graph", .table = opts, .show = &o, .usage = usage,
                               .take = take_option, .arg = &a};
    struct cmd_inputs in;
    struct load l;
    int rc;

    cmd_show_init(&o);
    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    r.nfunc = a.n;
    /* --depth limits the tree below the function, not the trees the graph is built from. */
    r.depth = o.max_depth;
    o.max_depth = 0;
    if ((rc = cmd_load_args(argc, argv, "graph", o.force ? CMD_LOAD_FORCE : 0, &in, &l)) != 0)
        return rc;
    for (unsigned k = 0; k < r.nfunc; k++)
        if (find_function(&l, a.names[k], &r.func[k]) < 0) {
            cmd_error("%s: --function=%s: no such function in its symbols", in.elf,
                      a.names[k]);
            load_close(&l);
            return 1;
        }
    if (!r.nfunc)
        r.nfunc = 1; /* func[0] = 0: the bottom level */
    r.l = &l;
    r.hz = a.ticks ? 0 : l.ring.ts_hz;
    rc = graph(&r, in.elf, in.dump, &o);
    return cmd_load_close(&l, rc);
}
