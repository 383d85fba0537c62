/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_diff.c - "cygtrace diff": two traces compared. Each trace's filtered trees feed, per
 * context, a tee into the per-function table (fnstat), the merged call paths (graph) and the
 * shapes of its calls (diff); then the contexts are paired and aligned, the costs joined, and
 * the result printed as text or JSON, with one line per function or path that slowed beyond
 * --fail-above (exit status 3). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "model/costdiff.h"
#include "model/diff.h"
#include "model/fnstat.h"
#include "model/graph.h"
#include "model/tee.h"
#include "output/diffout.h"
#include "output/fmt.h"
#include "util/vec.h"

enum { DIFF_OPT_FORMAT = 0x200, DIFF_OPT_FAIL_ABOVE, DIFF_OPT_FAIL_MIN, DIFF_OPT_TOP };

#define DIFF_RC_SLOWER 3 /* a function or path slowed beyond --fail-above */
#define MAX_HUNKS 1000   /* divergences kept per pair of contexts (the rest are counted) */

/* One trace and what its trees fed. */
struct side {
    struct load l;
    struct cmd_inputs in;
    int open;
    struct fnstat *fs;
    struct graph *g;
    struct diff_trace *t;
    struct tee **tee;
    size_t ntee, captee;
    struct cmd_filter_run run;
    struct costdiff_in *fn;
    size_t nfn, capfn;
};

struct diff_args {
    int json;
    const char *fail_above;
    const char *fail_min;
    size_t top;
};

static const char *name_of(void *arg, uint64_t addr, char *buf, size_t len)
{
    struct side *s = arg;

    fmt_addr(s->l.sym, s->l.ring.load_bias, addr, buf, len);
    return buf;
}

static const struct tree_sink *sink_of(void *arg, const struct dec_ctx *c)
{
    struct side *s = arg;
    struct tee *t;
    const struct tree_sink *k;

    if (vec_grow(&s->tee, &s->captee, s->ntee, sizeof *s->tee, 16) < 0 ||
        !(t = calloc(1, sizeof *t)))
        return NULL;
    s->tee[s->ntee++] = t;
    tee_init(t);
    if (!(k = fnstat_sink(s->fs, c->id)) || tee_add(t, k) < 0 ||
        !(k = graph_sink(s->g, c->id)) || tee_add(t, k) < 0 ||
        !(k = diff_trace_sink(s->t, c->id)) || tee_add(t, k) < 0)
        return NULL;
    return &t->sink;
}

/* Opens a side's inputs: cnt operands (ELF DUMP, or DUMP) from argv[first], through the
 * loading every command shares. */
static int open_side(struct side *s, char **argv, int first, int cnt, unsigned flags)
{
    int rc;

    optind = first;
    if ((rc = cmd_load_args(first + cnt, argv, "diff", flags, &s->in, &s->l)) != 0)
        return rc;
    s->open = 1;
    return 0;
}

/* Times as shown: ns when both traces know their clock's rate, else ticks. */
static uint64_t scaled(const struct side *s, uint64_t v, int ns)
{
    return ns ? fmt_duration_ns(v, s->l.ring.ts_hz) : v;
}

static double sd_of(const struct side *s, struct diff_set *set, const char *name, int ns)
{
    uint32_t fn = diff_set_fn(set, name);
    double sd = fn == DIFF_NONE ? -1 : diff_trace_stddev(s->t, fn);

    return sd < 0 || !ns ? sd : sd * 1e9 / (double)s->l.ring.ts_hz;
}

static int add_row(struct costdiff_in **v, size_t *n, size_t *cap, const char *key,
                   uint64_t calls, uint64_t total, uint64_t self, double sd)
{
    char *k;

    if (vec_grow(v, cap, *n, sizeof **v, 64) < 0 || !(k = strdup(key)))
        return -1;
    (*v)[(*n)++] = (struct costdiff_in){k, calls, total, self, sd};
    return 0;
}

static int fn_rows(struct side *s, struct diff_set *set, int ns)
{
    size_t n;
    const struct fnstat_row *r = fnstat_rows(s->fs, FNSTAT_BY_NAME, &n);

    for (size_t i = 0; i < n; i++) {
        char name[512];

        name_of(s, r[i].addr, name, sizeof name);
        if (add_row(&s->fn, &s->nfn, &s->capfn, name, r[i].calls, scaled(s, r[i].total, ns),
                    scaled(s, r[i].self, ns), sd_of(s, set, name, ns)) < 0)
            return -1;
    }
    return 0;
}

#define KEY_LEN 1024

/* The call paths of both sides joined (costdiff_paths), in the output's unit, with the spread
 * of their functions; the keys are written (into *keys) only for the rows shown and those
 * that offend lim: a graph holds up to GRAPH_MAX_NODES paths. */
static int path_rows(struct side *sd, struct diff_set *set, int ns, const struct diff_args *a,
                     const struct costdiff_limit *lim, struct costdiff_row **out, size_t *n,
                     char **keys)
{
    struct costdiff_graph g[2];
    struct costdiff_row *r;
    size_t want = 0, k = 0;

    for (int i = 0; i < 2; i++)
        g[i] = (struct costdiff_graph){sd[i].g, name_of, &sd[i]};
    if (costdiff_paths(&g[0], &g[1], out, n) < 0)
        return -1;
    r = *out;
    for (size_t i = 0; i < *n; i++)
        for (int k2 = 0; k2 < 2; k2++) {
            char name[512];

            r[i].total[k2] = scaled(&sd[k2], r[i].total[k2], ns);
            r[i].self[k2] = scaled(&sd[k2], r[i].self[k2], ns);
            if (r[i].node[k2] != GRAPH_NONE)
                r[i].sd[k2] = sd_of(&sd[k2], set,
                                    name_of(&sd[k2], graph_node(sd[k2].g, r[i].node[k2])->addr,
                                            name, sizeof name),
                                    ns);
        }
    costdiff_finish(r, *n);
    for (size_t i = 0; i < *n; i++)
        want += (!a->top || i < a->top || (lim && costdiff_offends(&r[i], lim)));
    if (!(*keys = malloc(want ? want * KEY_LEN : 1)))
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (!a->top || i < a->top || (lim && costdiff_offends(&r[i], lim))) {
            costdiff_path_key(&g[0], &g[1], &r[i], *keys + k * KEY_LEN, KEY_LEN);
            r[i].key = *keys + k++ * KEY_LEN;
        }
    return 0;
}

static void side_free(struct side *s)
{
    for (size_t i = 0; i < s->ntee; i++)
        free(s->tee[i]);
    free(s->tee);
    fnstat_free(s->fs);
    graph_free(s->g);
    diff_trace_free(s->t);
    tree_scan_free(&s->run.sc);
    for (size_t i = 0; i < s->nfn; i++)
        free((char *)s->fn[i].key);
    free(s->fn);
}

/* A context's label, and its name for pairing (NULL when it has none). */
static void ctx_names(struct side *s, uint32_t id, char *label, size_t llen, char *name,
                      size_t nlen, const char **pname)
{
    names_ctx_label(s->l.names, s->l.sym, s->l.ring.load_bias, s->l.ring.word_bytes, id, 0, 0,
                    label, llen);
    *pname = names_ctx_called(s->l.names, s->l.sym, s->l.ring.load_bias, id,
                              names_handle(s->l.names, id), name, nlen);
}

struct ctxs {
    struct diffout_ctx *c;
    struct diff_result *r;
    char (*label)[2][256];
    size_t n;
};

/* Pairs the contexts of both sides and aligns each pair. 0, or -1 out of memory. */
static int align_ctxs(struct side *sd, struct diff_set *set, struct ctxs *x)
{
    size_t na, nb, *pair;
    const struct diff_ctxinfo *ca = diff_trace_ctxs(sd[0].t, &na), *cb = diff_trace_ctxs(sd[1].t, &nb);
    const char **name_a = calloc(na + 1, sizeof *name_a), **name_b = calloc(nb + 1, sizeof *name_b);
    char (*nbuf)[256] = calloc(na + nb + 1, sizeof *nbuf);
    char *used = calloc(nb + 1, 1);
    int rc = -1;

    pair = calloc(na + 1, sizeof *pair);
    x->c = calloc(na + nb + 1, sizeof *x->c);
    x->r = calloc(na + nb + 1, sizeof *x->r); /* one per pair shown: diff_result_free's */
    x->label = calloc(na + nb + 1, sizeof *x->label);
    if (!name_a || !name_b || !nbuf || !used || !pair || !x->c || !x->r || !x->label)
        goto out;
    for (size_t i = 0; i < na; i++)
        ctx_names(&sd[0], ca[i].id, x->label[i][0], 256, nbuf[i], 256, &name_a[i]);
    for (size_t j = 0; j < nb; j++)
        ctx_names(&sd[1], cb[j].id, x->label[j][1], 256, nbuf[na + j], 256, &name_b[j]);
    diff_pair_ctx(name_a, na, name_b, nb, pair);
    for (size_t i = 0; i < na; i++) {
        struct diffout_ctx *c = &x->c[x->n++];

        c->label_a = x->label[i][0];
        if (pair[i] == SIZE_MAX || ca[i].root == DIFF_NONE || cb[pair[i]].root == DIFF_NONE)
            continue;
        used[pair[i]] = 1;
        c->label_b = x->label[pair[i]][1];
        if (diff_align(set, ca[i].root, cb[pair[i]].root, MAX_HUNKS, &x->r[i]) < 0)
            goto out;
        c->r = &x->r[i];
    }
    for (size_t j = 0; j < nb; j++)
        if (!used[j])
            x->c[x->n++] = (struct diffout_ctx){NULL, x->label[j][1], NULL};
    rc = 0;
out:
    free(name_a);
    free(name_b);
    free(nbuf);
    free(used);
    free(pair);
    return rc;
}

/* --fail-above=10% (or 10: a percentage), =2ms (a time), =500ticks. */
static int parse_limit(const char *s, struct costdiff_limit *lim, int *unit)
{
    char *end;
    double v;
    struct filter_dur d;

    errno = 0;
    v = strtod(s, &end);
    if (end != s && *s != '-' && *s != '+' && (!*end || !strcmp(end, "%")) && !errno && v >= 0) {
        lim->pct = 1;
        lim->value = v;
        return 0;
    }
    if (filter_parse_duration(s, &d) < 0)
        return -1;
    lim->pct = 0;
    lim->value = (double)d.value;
    *unit = d.unit;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cygtrace diff [options] ELF1 DUMP1 ELF2 DUMP2\n"
            "       cygtrace diff [options] DUMP1 DUMP2\n"
            "  --format=text|json          the output (text: colour on a terminal)\n"
            "  --fail-above=LIMIT          exit 3 when a function or path slowed by more than\n"
            "                              LIMIT: a percentage (10%%, or 10) or a time (2ms)\n"
            "  --fail-min=DURATION         only a change of DURATION or more fails (default:\n"
            "                              1us; 0 in traces without their clock's rate)\n"
            "  --top=N                     rows of each table and later differences shown\n"
            "                              (default 20, 0: all)\n"
            "  --color=auto|always|never   colour (auto: on a terminal)\n"
            "  --force                     decode even if a dump is from another build\n%s",
            CMD_HOOK_USAGE);
}

static int take_option(void *arg, int c, char *val)
{
    struct diff_args *a = arg;
    unsigned long long n;

    switch (c) {
    case DIFF_OPT_FORMAT:
        if (strcmp(val, "text") && strcmp(val, "json")) {
            cmd_error("--format=%s: not a choice (text, json)", val);
            return 2;
        }
        a->json = val[0] == 'j';
        return 0;
    case DIFF_OPT_FAIL_ABOVE:
        a->fail_above = val;
        return 0;
    case DIFF_OPT_FAIL_MIN:
        a->fail_min = val;
        return 0;
    default: /* DIFF_OPT_TOP */
        if (cmd_parse_u64(val, &n) < 0 || n > SIZE_MAX) {
            cmd_error("--top=%s: not a number", val);
            return 2;
        }
        a->top = (size_t)n;
        return 0;
    }
}

/* Checks the limits against the traces' clocks and puts them in the unit of the output. */
static int resolve_limit(const struct diff_args *a, int ns, struct costdiff_limit *lim)
{
    int unit = 0;
    struct filter_dur d = {0, 0};

    if (parse_limit(a->fail_above, lim, &unit) < 0) {
        cmd_error("--fail-above=%s: not a percentage (10%%) or a time (2ms, 500us, 1000ticks)",
                  a->fail_above);
        return 2;
    }
    if (a->fail_min && filter_parse_duration(a->fail_min, &d) < 0) {
        cmd_error("--fail-min=%s: not a duration (10us, 2ms, 1s, or ticks)", a->fail_min);
        return 2;
    }
    if ((!lim->pct && unit != ns) || (a->fail_min && d.unit != ns)) {
        cmd_error("--fail-%s: %s", !lim->pct && unit != ns ? "above" : "min",
                  ns ? "give a time (2ms), not ticks: the traces' clocks are known"
                     : "give ticks (1000ticks): a trace's clock rate is not known");
        return 2;
    }
    /* By default a change under 1 us never offends: the jitter of a clock read and a cache
     * miss, not a regression. */
    lim->floor = a->fail_min ? d.value : ns ? 1000 : 0;
    return 0;
}

static int run(struct side *sd, const struct diff_args *a, struct show_opts *o)
{
    struct diff_set *set = diff_set_new(0);
    struct costdiff_row *fn = NULL, *path = NULL;
    size_t nfn = 0, npath = 0;
    struct ctxs x = {0};
    struct costdiff_limit lim = {0, 0, 0};
    int ns = sd[0].l.ring.ts_hz && sd[1].l.ring.ts_hz, rc = 1;
    uint64_t left = 0, dropped = 0;
    char *keys = NULL;

    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (!set)
        goto oom;
    if (a->fail_above && (rc = resolve_limit(a, ns, &lim)) != 0)
        goto out;
    for (int k = 0; k < 2; k++) {
        struct side *s = &sd[k];

        s->fs = fnstat_new(s->l.sym, s->l.ring.load_bias);
        s->g = graph_new(s->l.sym, s->l.ring.load_bias, 0, 0, 0);
        s->t = diff_trace_new(set, name_of, s);
        if (!s->fs || !s->g || !s->t)
            goto oom;
        if ((rc = cmd_filter_run(&s->l, s->in.elf, s->in.dump, o, sink_of, s, &s->run)) != 0)
            goto out;
        if (fn_rows(s, set, ns) < 0)
            goto oom;
        left += graph_left_out(s->g);
        dropped += fnstat_dropped(s->fs) + graph_dropped(s->g) + diff_trace_dropped(s->t);
    }
    if (align_ctxs(sd, set, &x) < 0 ||
        costdiff_join(sd[0].fn, sd[0].nfn, sd[1].fn, sd[1].nfn, &fn, &nfn) < 0 ||
        path_rows(sd, set, ns, a, a->fail_above ? &lim : NULL, &path, &npath, &keys) < 0)
        goto oom;
    {
        uint64_t greedy = 0;
        struct diffout d = {.f = stdout, .color = o->color < 0 ? cmd_color_auto() : o->color,
                            .top = a->top, .set = set, .elf = {sd[0].in.elf, sd[1].in.elf},
                            .dump = {sd[0].in.dump, sd[1].in.dump},
                            .hook = {sd[0].run.hook, sd[1].run.hook}, .hz = ns ? 1000000000u : 0,
                            .ctx = x.c, .nctx = x.n, .fn = fn, .nfn = nfn, .path = path,
                            .npath = npath, .lim = a->fail_above ? &lim : NULL,
                            .cut = diff_set_cut(set), .dropped = dropped, .left_out = left};

        for (size_t i = 0; i < x.n; i++)
            greedy += x.c[i].r ? x.c[i].r->greedy : 0;
        d.greedy = greedy;
        if (a->json) {
            d.color = 0;
            diffout_json(&d);
        } else {
            diffout_text(&d);
        }
        fflush(stdout);
        rc = diffout_offenders(&d, stderr) ? DIFF_RC_SLOWER : 0;
    }
    goto out;
oom:
    cmd_error("%s: out of memory", sd[1].in.dump);
    rc = 1;
out:
    cmd_stdout_failed();
    for (size_t i = 0; x.r && i < x.n; i++)
        diff_result_free(&x.r[i]);
    free(x.r);
    free(x.c);
    free(x.label);
    free(fn);
    free(path);
    free(keys);
    diff_set_free(set);
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, DIFF_OPT_FORMAT},
        {"fail-above", required_argument, 0, DIFF_OPT_FAIL_ABOVE},
        {"fail-min", required_argument, 0, DIFF_OPT_FAIL_MIN},
        {"top", required_argument, 0, DIFF_OPT_TOP},
        {"color", required_argument, 0, CMD_SHOW_COLOR},
        {"force", no_argument, 0, CMD_SHOW_FORCE},
        CMD_HOOK_LONGOPTS,
        {"help", no_argument, 0, CMD_OPTS_HELP},
        {0, 0, 0, 0}};
    struct diff_args a = {.top = 20};
    struct side sd[2];
    struct show_opts o;
    const struct cmd_opts p = {.cmd = "diff", .table = opts, .show = &o, .usage = usage,
                               .take = take_option, .arg = &a};
    int rc, n, first, unit;
    unsigned flags;
    struct costdiff_limit lim;
    struct filter_dur d;

    memset(sd, 0, sizeof sd);
    cmd_show_init(&o);
    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    n = argc - optind;
    if (n != 4 && n != 2) {
        cmd_error("diff: needs ELF1 DUMP1 ELF2 DUMP2 (or DUMP1 DUMP2), %d file%s given (see "
                  "'cygtrace diff --help')", n, n == 1 ? "" : "s");
        return 2;
    }
    if (a.fail_above && parse_limit(a.fail_above, &lim, &unit) < 0) {
        cmd_error("--fail-above=%s: not a percentage (10%%) or a time (2ms, 500us, 1000ticks)",
                  a.fail_above);
        return 2;
    }
    if (a.fail_min && (!a.fail_above || filter_parse_duration(a.fail_min, &d) < 0)) {
        cmd_error(a.fail_above ? "--fail-min=%s: not a duration (10us, 2ms, 1s, or ticks)"
                               : "--fail-min=%s: goes with --fail-above",
                  a.fail_min);
        return 2;
    }
    first = optind;
    flags = o.force ? CMD_LOAD_FORCE : 0;
    if ((rc = open_side(&sd[0], argv, first, n / 2, flags)) == 0 &&
        (rc = open_side(&sd[1], argv, first + n / 2, n / 2, flags)) == 0)
        rc = run(sd, &a, &o);
    for (int k = 0; k < 2; k++) {
        side_free(&sd[k]);
        if (sd[k].open)
            rc = cmd_load_close(&sd[k].l, rc);
    }
    return rc;
}
