/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diffout.c - the text and the JSON of `cygtrace diff` (diffout.h). */
#include "output/diffout.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "output/fmt.h"

#define COL_SLOWER "\033[31m"
#define COL_FASTER "\033[32m"
#define COL_HEAD "\033[1m"
#define COL_OFF "\033[0m"

#define FIRST_LINES 8 /* runs shown of each continuation */
#define COLUMN 38     /* the width of A's side */

/* Appends to buf (len bytes, NUL-terminated) what fmt says; cuts it short when full. */
static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;

    if (n + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/* "step", "step x3", with how it ended. */
static void run_name(const struct diff_set *s, const struct diff_run *r, char *buf, size_t len)
{
    const struct diff_shape *h = diff_set_get(s, r->shape);

    add(buf, len, "%s", diff_set_name(s, h->fn));
    if (r->count > 1)
        add(buf, len, " x%" PRIu32, r->count);
    if (h->flags & DIFF_F_PARTIAL)
        add(buf, len, " (partly in the trace)");
}

/* A run and, after a colon, the runs of its calls: "work x2: step x100, flush". */
static void run_text(const struct diff_set *s, const struct diff_run *r, char *buf, size_t len)
{
    const struct diff_shape *h = diff_set_get(s, r->shape);
    const struct diff_run *k = diff_set_runs(s, r->shape);

    buf[0] = 0;
    run_name(s, r, buf, len);
    for (uint32_t i = 0; i < h->nruns; i++) {
        add(buf, len, i ? ", " : ": ");
        run_name(s, &k[i], buf, len);
    }
    if (h->flags & DIFF_F_CUT)
        add(buf, len, " [calls not kept]");
}

/* Up to three runs of r[i0..i1): "a, b x2 and 3 more". */
static void runs_list(const struct diff_set *s, const struct diff_run *r, size_t i0, size_t i1,
                      char *buf, size_t len)
{
    for (size_t i = i0; i < i1 && i < i0 + 3; i++) {
        if (i > i0)
            add(buf, len, ", ");
        run_name(s, &r[i], buf, len);
    }
    if (i1 > i0 + 3)
        add(buf, len, " and %zu more", i1 - i0 - 3);
}

static void path_text(const struct diff_set *s, const struct diff_result *r,
                      const struct diff_hunk *h, char *buf, size_t len)
{
    buf[0] = 0;
    if (!h->path_len)
        add(buf, len, "(bottom level)");
    for (uint32_t i = 0; i < h->path_len; i++) {
        uint64_t nth = r->path_nth[h->path_off + i];

        add(buf, len, "%s%s", i ? " > " : "", diff_set_name(s, r->path[h->path_off + i]));
        if (nth > 1)
            add(buf, len, "#%" PRIu64, nth);
    }
}

static const char *ended(const struct diff_set *s, uint32_t shape)
{
    return diff_set_get(s, shape)->flags & DIFF_F_PARTIAL ? "is only partly in the trace"
                                                          : "returned";
}

/* One line of what a divergence is (after its path). */
static void hunk_text(const struct diff_set *s, const struct diff_result *res,
                      const struct diff_hunk *h, char *buf, size_t len)
{
    const struct diff_run *a = res->runs + h->a_off, *b = res->runs + h->b_off;

    buf[0] = 0;
    switch (h->kind) {
    case DIFF_COUNT:
        add(buf, len, "%s x%" PRIu32 " in A, x%" PRIu32 " in B (%+" PRId64 ")",
            diff_set_name(s, diff_set_get(s, a[0].shape)->fn), a[0].count, b[0].count,
            (int64_t)b[0].count - (int64_t)a[0].count);
        break;
    case DIFF_INSERTED:
        add(buf, len, "only in B: ");
        runs_list(s, b, 0, h->b_n, buf, len);
        add(buf, len, " (%" PRIu64 " call%s)", h->calls_b, h->calls_b == 1 ? "" : "s");
        break;
    case DIFF_DELETED:
        add(buf, len, "only in A: ");
        runs_list(s, a, 0, h->a_n, buf, len);
        add(buf, len, " (%" PRIu64 " call%s)", h->calls_a, h->calls_a == 1 ? "" : "s");
        break;
    case DIFF_REPLACED:
        add(buf, len, "A calls ");
        runs_list(s, a, 0, h->a_n, buf, len);
        add(buf, len, " where B calls ");
        runs_list(s, b, 0, h->b_n, buf, len);
        break;
    case DIFF_ENDED:
        add(buf, len, "%s %s in A, %s in B", diff_set_name(s, diff_set_get(s, h->pa)->fn),
            ended(s, h->pa), ended(s, h->pb));
        break;
    case DIFF_DEEP:
        add(buf, len, "differs more than %u levels down: not aligned further", DIFF_MAX_DEPTH);
        break;
    }
}

/* One side's lines of the first divergence: its runs marked with mark, then what follows. */
static size_t side_lines(const struct diff_set *s, const struct diff_run *r, uint32_t n,
                         const struct diff_run *after, uint32_t nafter, char mark,
                         char lines[][512], size_t max)
{
    size_t k = 0;

    for (uint32_t i = 0; i < n + nafter && k < max; i++, k++) {
        lines[k][0] = i < n ? mark : ' ';
        lines[k][1] = ' ';
        run_text(s, i < n ? &r[i] : &after[i - n], lines[k] + 2, 510);
    }
    return k;
}

/* The first divergence: the common stack, then A's and B's runs from there side by side,
 * those of the divergence marked - (A) and + (B). */
static void first_hunk(const struct diff_set *s, const struct diff_result *r,
                       const struct diff_hunk *h, FILE *f, int color)
{
    char la[FIRST_LINES][512], lb[FIRST_LINES][512], line[1024];
    size_t na, nb;

    fprintf(f, "first difference, under the call stack both share:\n");
    if (!h->path_len)
        fprintf(f, "  (the bottom level)\n");
    for (uint32_t i = 0; i < h->path_len; i++) {
        uint64_t nth = r->path_nth[h->path_off + i];

        fprintf(f, "  %*s%s", (int)(2 * (i < 20 ? i : 20)), "",
                diff_set_name(s, r->path[h->path_off + i]));
        if (nth > 1)
            fprintf(f, "#%" PRIu64, nth);
        fputc('\n', f);
    }
    if (h->kind == DIFF_ENDED || h->kind == DIFF_DEEP) {
        hunk_text(s, r, h, line, sizeof line);
        fprintf(f, "  %s\n", line);
        return;
    }
    fprintf(f, "  %-*s | %s\n", COLUMN, "then A:", "then B:");
    na = side_lines(s, r->runs + h->a_off, h->a_n, r->runs + h->after_a_off, h->after_a_n, '-',
                    la, FIRST_LINES);
    nb = side_lines(s, r->runs + h->b_off, h->b_n, r->runs + h->after_b_off, h->after_b_n, '+',
                    lb, FIRST_LINES);
    for (size_t i = 0; i < na || i < nb; i++) {
        const char *a = i < na ? la[i] : "", *b = i < nb ? lb[i] : "";
        int ma = a[0] == '-', mb = b[0] == '+';

        if (strlen(a) > COLUMN)
            strcpy(la[i] + COLUMN - 3, "...");
        fprintf(f, "  %s%-*s%s | %s%s%s\n", color && ma ? COL_SLOWER : "", COLUMN, a,
                color && ma ? COL_OFF : "", color && mb ? COL_FASTER : "", b,
                color && mb ? COL_OFF : "");
    }
    if (!h->a_n && !h->after_a_n && !h->b_n && !h->after_b_n)
        fprintf(f, "  (nothing)\n");
}

static void ctx_text(const struct diffout *o, const struct diffout_ctx *c)
{
    FILE *f = o->f;
    char line[1024], path[1024];
    size_t shown = 0;

    fprintf(f, "%s## %s (A) and %s (B)%s", o->color ? COL_HEAD : "",
            c->label_a ? c->label_a : "nothing", c->label_b ? c->label_b : "nothing",
            o->color ? COL_OFF : "");
    if (!c->r) {
        fprintf(f, ": only in %s\n", c->label_a ? "A" : "B");
        return;
    }
    if (!c->r->n) {
        fprintf(f, o->cut ? ": no difference in what was kept (see the note on the memory cap)\n"
                          : ": the same calls\n");
        return;
    }
    fprintf(f, ": %" PRIu64 " difference%s\n", c->r->n + c->r->more,
            c->r->n + c->r->more == 1 ? "" : "s");
    first_hunk(o->set, c->r, &c->r->hunk[0], f, o->color);
    if (c->r->n + c->r->more > 1)
        fprintf(f, "later differences:\n");
    for (size_t i = 1; i < c->r->n; i++) {
        if (o->top && shown == o->top) {
            fprintf(f, "  ... and %" PRIu64 " more\n", (uint64_t)(c->r->n - i) + c->r->more);
            return;
        }
        path_text(o->set, c->r, &c->r->hunk[i], path, sizeof path);
        hunk_text(o->set, c->r, &c->r->hunk[i], line, sizeof line);
        fprintf(f, "  %s: %s\n", path, line);
        shown++;
    }
    if (c->r->more)
        fprintf(f, "  ... and %" PRIu64 " more\n", c->r->more);
}

static void dur(uint64_t v, uint64_t hz, char *buf, size_t len)
{
    fmt_duration(v, hz, buf, len);
}

static void change_text(const struct costdiff_row *r, uint64_t hz, char *buf, size_t len)
{
    char d[32];

    dur(r->delta < 0 ? -(uint64_t)r->delta : (uint64_t)r->delta, hz, d, sizeof d);
    snprintf(buf, len, "%c%s", r->delta < 0 ? '-' : '+', d);
}

static void ratio_text(const struct costdiff_row *r, char *buf, size_t len)
{
    if (!r->in_a)
        snprintf(buf, len, "new");
    else if (!r->in_b)
        snprintf(buf, len, "gone");
    else if (!r->total[0])
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "x%.3f", r->ratio);
}

static void table_text(const struct diffout *o, const char *what, const struct costdiff_row *rows,
                       size_t n)
{
    FILE *f = o->f;

    fprintf(f, "\n%s## %s, the largest change of total time first%s\n", o->color ? COL_HEAD : "",
            what, o->color ? COL_OFF : "");
    fprintf(f, "%9s %9s %12s %12s %13s %8s %12s %12s  %s\n", "calls A", "calls B", "total A",
            "total B", "change", "ratio", "self A", "self B", what[0] == 'f' ? "function" : "path");
    for (size_t i = 0; i < n && (!o->top || i < o->top); i++) {
        const struct costdiff_row *r = &rows[i];
        char ta[32], tb[32], sa[32], sb[32], ch[40], ra[32];
        const char *col = !o->color || r->noise || !r->delta ? ""
                          : r->delta > 0               ? COL_SLOWER
                                                       : COL_FASTER;

        dur(r->total[0], o->hz, ta, sizeof ta);
        dur(r->total[1], o->hz, tb, sizeof tb);
        dur(r->self[0], o->hz, sa, sizeof sa);
        dur(r->self[1], o->hz, sb, sizeof sb);
        change_text(r, o->hz, ch, sizeof ch);
        ratio_text(r, ra, sizeof ra);
        fprintf(f, "%9" PRIu64 " %9" PRIu64 " %12s %12s %s%13s%s %8s %12s %12s  %s%s\n",
                r->calls[0], r->calls[1], ta, tb, col, ch, *col ? COL_OFF : "", ra, sa, sb,
                r->key, r->noise ? "  ~" : "");
    }
    if (o->top && n > o->top)
        fprintf(f, "# ... and %zu more (--top=0 shows them all)\n", n - o->top);
}

void diffout_text(const struct diffout *o)
{
    FILE *f = o->f;

    fprintf(f, "# A: %s %s\n# B: %s %s\n", o->elf[0] ? o->elf[0] : "-", o->dump[0],
            o->elf[1] ? o->elf[1] : "-", o->dump[1]);
    for (int k = 0; k < 2; k++)
        if (o->hook[k] && o->hook[k][0])
            fprintf(f, "# %c: %s\n", 'A' + k, o->hook[k]);
    for (size_t i = 0; i < o->nctx; i++)
        ctx_text(o, &o->ctx[i]);
    table_text(o, "functions", o->fn, o->nfn);
    table_text(o, "call paths", o->path, o->npath);
    fprintf(f, "# times %s; ~: the change is within the spread of the function's own call "
               "times (stddev x sqrt(calls))\n",
            o->hz ? "in seconds" : "in clock ticks (a trace without its clock's rate)");
    if (o->cut)
        fprintf(f, "# %" PRIu64 " calls past the memory cap are compared without what they "
                   "called\n", o->cut);
    if (o->greedy)
        fprintf(f, "# %" PRIu64 " call sequences differed too much for an exact alignment: "
                   "aligned greedily\n", o->greedy);
    if (o->left_out)
        fprintf(f, "# %" PRIu64 " calls on paths past the graph's cap are left out of the "
                   "paths' table\n", o->left_out);
    if (o->dropped)
        fprintf(f, "# %" PRIu64 " events could not be counted (out of memory)\n", o->dropped);
}

/* --- JSON ----------------------------------------------------------------------------------- */

static void js(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static const char *const kind_name[] = {"inserted", "deleted", "replaced", "count", "ended",
                                        "deep"};

static void runs_json(FILE *f, const struct diff_set *s, const struct diff_run *r, size_t i0,
                      size_t i1)
{
    fputc('[', f);
    for (size_t i = i0; i < i1; i++) {
        const struct diff_shape *h = diff_set_get(s, r[i].shape);

        fprintf(f, "%s{\"function\":", i > i0 ? "," : "");
        js(f, diff_set_name(s, h->fn));
        fprintf(f, ",\"count\":%" PRIu32 ",\"calls\":%" PRIu64 ",\"partial\":%s}", r[i].count,
                h->calls, h->flags & DIFF_F_PARTIAL ? "true" : "false");
    }
    fputc(']', f);
}

static void hunk_json(FILE *f, const struct diff_set *s, const struct diff_result *r,
                      const struct diff_hunk *h)
{
    fprintf(f, "{\"kind\":\"%s\",\"path\":[", kind_name[h->kind]);
    for (uint32_t i = 0; i < h->path_len; i++) {
        if (i)
            fputc(',', f);
        js(f, diff_set_name(s, r->path[h->path_off + i]));
    }
    fprintf(f, "],\"path_nth\":[");
    for (uint32_t i = 0; i < h->path_len; i++)
        fprintf(f, "%s%" PRIu64, i ? "," : "", r->path_nth[h->path_off + i]);
    fprintf(f, "],\"a\":");
    runs_json(f, s, r->runs + h->a_off, 0, h->a_n);
    fprintf(f, ",\"b\":");
    runs_json(f, s, r->runs + h->b_off, 0, h->b_n);
    fprintf(f, ",\"calls_a\":%" PRIu64 ",\"calls_b\":%" PRIu64, h->calls_a, h->calls_b);
    if (h->kind == DIFF_ENDED)
        fprintf(f, ",\"partial_a\":%s,\"partial_b\":%s",
                diff_set_get(s, h->pa)->flags & DIFF_F_PARTIAL ? "true" : "false",
                diff_set_get(s, h->pb)->flags & DIFF_F_PARTIAL ? "true" : "false");
    fputc('}', f);
}

static void num(FILE *f, double v)
{
    if (v < 0 || !isfinite(v))
        fprintf(f, "null");
    else
        fprintf(f, "%.1f", v);
}

static void rows_json(const struct diffout *o, const char *keyname, const struct costdiff_row *rows,
                      size_t n)
{
    FILE *f = o->f;

    fputc('[', f);
    for (size_t i = 0; i < n && (!o->top || i < o->top); i++) {
        const struct costdiff_row *r = &rows[i];

        fprintf(f, "%s{\"%s\":", i ? "," : "", keyname);
        js(f, r->key);
        fprintf(f, ",\"calls\":[%" PRIu64 ",%" PRIu64 "],\"total\":[%" PRIu64 ",%" PRIu64
                   "],\"self\":[%" PRIu64 ",%" PRIu64 "],\"change\":%" PRId64 ",\"ratio\":",
                r->calls[0], r->calls[1], r->total[0], r->total[1], r->self[0], r->self[1],
                r->delta);
        if (r->total[0])
            fprintf(f, "%.6f", r->ratio);
        else
            fprintf(f, "null");
        fprintf(f, ",\"stddev\":[");
        num(f, r->sd[0]);
        fputc(',', f);
        num(f, r->sd[1]);
        fprintf(f, "],\"within_spread\":%s,\"in_a\":%s,\"in_b\":%s", r->noise ? "true" : "false",
                r->in_a ? "true" : "false", r->in_b ? "true" : "false");
        if (o->lim)
            fprintf(f, ",\"offends\":%s", costdiff_offends(r, o->lim) ? "true" : "false");
        fputc('}', f);
    }
    fputc(']', f);
}

void diffout_json(const struct diffout *o)
{
    FILE *f = o->f;

    fprintf(f, "{\"a\":{\"elf\":");
    js(f, o->elf[0]);
    fprintf(f, ",\"dump\":");
    js(f, o->dump[0]);
    fprintf(f, ",\"hook_cost\":");
    if (o->hook[0] && o->hook[0][0])
        js(f, o->hook[0]);
    else
        fputs("null", f);
    fprintf(f, "},\"b\":{\"elf\":");
    js(f, o->elf[1]);
    fprintf(f, ",\"dump\":");
    js(f, o->dump[1]);
    fprintf(f, ",\"hook_cost\":");
    if (o->hook[1] && o->hook[1][0])
        js(f, o->hook[1]);
    else
        fputs("null", f);
    fprintf(f, "},\"unit\":\"%s\",\"contexts\":[", o->hz ? "ns" : "ticks");
    for (size_t i = 0; i < o->nctx; i++) {
        const struct diffout_ctx *c = &o->ctx[i];

        fprintf(f, "%s{\"a\":", i ? "," : "");
        if (c->label_a)
            js(f, c->label_a);
        else
            fprintf(f, "null");
        fprintf(f, ",\"b\":");
        if (c->label_b)
            js(f, c->label_b);
        else
            fprintf(f, "null");
        if (c->r) {
            fprintf(f, ",\"differences\":%" PRIu64 ",\"hunks\":[", c->r->n + c->r->more);
            for (size_t k = 0; k < c->r->n; k++) {
                if (k)
                    fputc(',', f);
                hunk_json(f, o->set, c->r, &c->r->hunk[k]);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fprintf(f, "],\"functions\":");
    rows_json(o, "function", o->fn, o->nfn);
    fprintf(f, ",\"paths\":");
    rows_json(o, "path", o->path, o->npath);
    fprintf(f, ",\"cut\":%" PRIu64 ",\"greedy\":%" PRIu64 ",\"dropped\":%" PRIu64 "}\n", o->cut,
            o->greedy, o->dropped);
}

static size_t offenders(const struct diffout *o, FILE *f, const char *what,
                        const struct costdiff_row *rows, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        const struct costdiff_row *r = &rows[i];
        char ta[32], tb[32], ch[40];

        if (!costdiff_offends(r, o->lim))
            continue;
        dur(r->total[0], o->hz, ta, sizeof ta);
        dur(r->total[1], o->hz, tb, sizeof tb);
        change_text(r, o->hz, ch, sizeof ch);
        fprintf(f, "cygtrace: slower: %s %s: total %s -> %s (%s", what, r->key, ta, tb, ch);
        if (r->total[0])
            fprintf(f, ", %+.1f%%", (r->ratio - 1) * 100);
        fprintf(f, ")\n");
        k++;
    }
    return k;
}

size_t diffout_offenders(const struct diffout *o, FILE *f)
{
    if (!o->lim)
        return 0;
    return offenders(o, f, "function", o->fn, o->nfn) +
           offenders(o, f, "path", o->path, o->npath);
}
