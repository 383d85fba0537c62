/* cmd_graph.c - "cygtrace graph": the aggregated call graph of a function (its callers, and
 * the merged tree of what it called) or of each context's bottom-level calls, from graphs fed
 * by the filtered trees: one per context when there are several, and one for them all. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cyg_format.h"
#include "model/graph.h"
#include "output/render.h"

enum { GRAPH_OPT_FUNCTION = 0x200, GRAPH_OPT_TICKS };

#define MAX_FUNCS 16

/* A context's tree feeds, per function asked for, its own graph and the all-contexts one. */
struct fan {
    struct tree_sink sink;
    const struct tree_sink *to[2 * MAX_FUNCS];
    struct graph *own[MAX_FUNCS];
    unsigned n; /* sinks in to */
    uint32_t id;
};

struct graphs {
    struct load *l;
    uint64_t hz; /* what durations are shown with: 0 for clock ticks */
    unsigned depth;
    uint64_t func[MAX_FUNCS]; /* run-time addresses; one 0: each context's bottom level */
    unsigned nfunc;
    struct graph *all[MAX_FUNCS];
    struct fan *fan;
    unsigned n, cap;
};

static void fan_enter(void *arg, const struct tree_frame *f, unsigned d)
{
    struct fan *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        t->to[i]->enter(t->to[i]->arg, f, d);
}

static void fan_exit(void *arg, const struct tree_frame *f, unsigned d, uint64_t te,
                     enum tree_exit_how how)
{
    struct fan *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        t->to[i]->exit(t->to[i]->arg, f, d, te, how);
}

static void fan_special(void *arg, const struct ev *e, unsigned d)
{
    struct fan *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        t->to[i]->special(t->to[i]->arg, e, d);
}

static void fan_finish(void *arg, const struct tree_frame *s, unsigned n)
{
    struct fan *t = arg;

    for (unsigned i = 0; i < t->n; i++)
        t->to[i]->finish(t->to[i]->arg, s, n);
}

static const struct tree_sink *sink_of(void *arg, const struct dec_ctx *c)
{
    struct graphs *r = arg;
    struct fan *t;

    if (r->n == r->cap) /* sized by the caller: every context */
        return NULL;
    t = &r->fan[r->n++]; /* counted now: its graphs are freed whatever fails */
    t->id = c->id;
    for (unsigned k = 0; k < r->nfunc; k++) {
        t->own[k] = graph_new(r->l->sym, r->l->ring.load_bias, r->func[k], r->depth, 0);
        if (!t->own[k] || !(t->to[t->n++] = graph_sink(t->own[k], c->id)) ||
            !(t->to[t->n++] = graph_sink(r->all[k], c->id)))
            return NULL;
    }
    t->sink = (struct tree_sink){t, fan_enter, fan_exit, fan_special, fan_finish, NULL};
    return &t->sink;
}

/* The graphs of one graph object, each under a header line; adds the notes' counts. */
static int print_graphs(struct graphs *r, struct graph *g, uint64_t *partial, uint64_t *blind)
{
    size_t n;
    const struct graph_stat *s = graph_stats(g, &n);

    for (size_t i = 0; i < n; i++) {
        char name[256], t[32], se[32];

        render_addr(r->l->sym, r->l->ring.load_bias, s[i].addr, name, sizeof name);
        render_duration(s[i].total, r->hz, t, sizeof t);
        render_duration(s[i].self, r->hz, se, sizeof se);
        printf("# %s: %" PRIu64 " call%s, total %s, self %s\n", name, s[i].calls,
               s[i].calls == 1 ? "" : "s", t, se);
        if (partial) {
            *partial += s[i].partial;
            *blind += s[i].blind;
        }
        /* graph_stats' array may move when graph_print asks again: take what is needed */
        if (graph_print(g, i, stdout, r->hz, GRAPH_CALLERS | GRAPH_CALLEES) < 0)
            return -1;
        s = graph_stats(g, &n);
        if (i + 1 < n)
            printf("\n");
    }
    return 0;
}

static const char *ctx_word(const struct load *l)
{
    return l->ring.word_bytes == 8 ? "thread" : "context";
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
        for (unsigned i = 0; r->n > 1 && i < r->n; i++) {
            const struct dec_ctx *c = NULL;

            if (!graph_stats(r->fan[i].own[k], &n))
                continue; /* not called in this context */
            for (unsigned j = 0; j < run->sc.n; j++)
                if (run->sc.ctx[j].id == r->fan[i].id)
                    c = &run->sc.ctx[j];
            printf("# %s %u", ctx_word(l), r->fan[i].id);
            if (c && c->os_tid)
                printf(" (tid %" PRIu64 ")", c->os_tid);
            printf(", %" PRIu64 " events\n", c ? c->events : 0);
            if (print_graphs(r, r->fan[i].own[k], NULL, NULL) < 0)
                return -1;
            printf("\n");
        }
        if (!graph_stats(r->all[k], &n)) {
            if (r->func[k]) {
                render_addr(l->sym, l->ring.load_bias, r->func[k], name, sizeof name);
                printf("# %s was not called in the trace\n", name);
            } else {
                printf("# the trace holds no calls\n");
            }
            continue;
        }
        if (r->n > 1)
            printf("# all %u %ss\n", r->n, ctx_word(l));
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
    if (!(l->ring.flags & CYG_F_TIMESTAMPS))
        printf("# the trace has no timestamps: only the calls are counted\n");
    else if (!l->ring.ts_hz)
        printf("# times in clock ticks: the trace does not say the clock's rate\n");
    else if (!r->hz)
        printf("# times in clock ticks of %" PRIu64 " Hz\n", l->ring.ts_hz);
    if (partial)
        printf("# %" PRIu64 " calls are only partly in the trace (entered before it, never "
               "returned, or still running): their known part is counted\n", partial);
    if (blind)
        printf("# %" PRIu64 " of them were entered before the trace: what they called before "
               "the trace named them is not in their graph\n", blind);
    if (left)
        printf("# %" PRIu64 " calls on paths beyond the limit of %u distinct paths are left "
               "out: their time is in their callers'\n", left, GRAPH_MAX_NODES);
    if (run->forced)
        printf("# %" PRIu64 " calls shorter than --min-time were kept: more than %u events "
               "happened inside them before it was known\n", run->forced, FILTER_HOLD);
    if (run->unmatched)
        printf("# %" PRIu64 " exits matched no call and were skipped\n", run->unmatched);
    if (dropped)
        printf("# %" PRIu64 " events could not be counted (out of memory)\n", dropped);
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
    if (!(r->fan = calloc(r->cap = 1024, sizeof *r->fan)))
        goto oom;
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if ((rc = cmd_filter_run(r->l, elf, dump, o, sink_of, r, &run)) != 0)
        goto out;
    if (print_all(r, &run, &partial, &blind) < 0)
        goto oom;
    print_notes(r, &run, partial, blind);
    goto out;
oom:
    cmd_error("%s: out of memory", dump);
    rc = 1;
out:
    fflush(stdout);
    for (unsigned i = 0; i < r->n; i++)
        for (unsigned k = 0; k < r->nfunc; k++)
            graph_free(r->fan[i].own[k]);
    free(r->fan);
    for (unsigned k = 0; k < r->nfunc; k++)
        graph_free(r->all[k]);
    tree_scan_free(&run.sc);
    return rc;
}

/* The run-time address of a function named on the command line; a wrapped function (cygtrace
 * wrap) is traced as its wrapper, which render_addr shows by the wrapped name. */
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
            "usage: cygtrace graph [options] ELF DUMP\n"
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
            "empty)\n");
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
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *names[MAX_FUNCS];
    struct graphs r = {0};
    struct show_opts o;
    struct load l;
    int c, rc, ticks = 0;

    cmd_show_init(&o);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if ((rc = cmd_show_option(c, optarg, &o)) == 1)
            continue;
        if (rc < 0)
            return 2;
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == GRAPH_OPT_TICKS) {
            ticks = 1;
            continue;
        }
        if (c == GRAPH_OPT_FUNCTION) {
            if (!*optarg) {
                cmd_error("--function=: give a function's name");
                return 2;
            }
            if (r.nfunc == MAX_FUNCS) {
                cmd_error("--function=%s: at most %u functions", optarg, MAX_FUNCS);
                return 2;
            }
            names[r.nfunc++] = optarg;
            continue;
        }
        cmd_bad_option(argv, "graph");
        return 2;
    }
    /* --depth limits the tree below the function, not the trees the graph is built from. */
    r.depth = o.max_depth;
    o.max_depth = 0;
    if ((rc = cmd_load_args(argc, argv, "graph", o.force, &l)) != 0)
        return rc;
    for (unsigned k = 0; k < r.nfunc; k++)
        if (find_function(&l, names[k], &r.func[k]) < 0) {
            cmd_error("%s: --function=%s: no such function in its symbols", argv[optind],
                      names[k]);
            load_close(&l);
            return 1;
        }
    if (!r.nfunc)
        r.nfunc = 1; /* func[0] = 0: the bottom level */
    r.l = &l;
    r.hz = ticks ? 0 : l.ring.ts_hz;
    rc = graph(&r, argv[optind], argv[optind + 1], &o);
    load_close(&l);
    return rc;
}
