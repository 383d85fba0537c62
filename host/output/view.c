/* SPDX-License-Identifier: GPL-3.0-or-later */
/* view.c - the ncurses live view: the screen and the keys, drawn from the model in vlines.c
 * (the lines of the call trees, the function table) that the events feed.
 *
 * The screen keeps only where it looks: the tree pane's top line and cursor (line ids), the
 * table's, which pane has the focus, the prompts, and the status samples for the rates. */
#include "output/view.h"

#ifdef VIEW_CURSES

#include <curses.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cyg_format.h"
#include "model/fnstat.h"
#include "output/fmt.h"
#include "output/graphout.h"
#include "model/vlines.h"
#include "util/mono.h"

#define VIEW_PROMPT 128u
#define VIEW_CTX_NAME 12u   /* the context column with names: a name cut to this */
#define VIEW_SAMPLES 32u    /* status samples for the rates (10 a second: 3 s) */

struct sample {
    double t;
    uint64_t events, bytes;
};

enum focus { FOCUS_TREE, FOCUS_TABLE };

struct view {
    SCREEN *scr;
    int color;
    struct vlines *m;     /* the model */
    /* the screen */
    int follow;           /* the tree pane shows the newest lines */
    uint64_t top, cur;    /* tree pane: first line shown, cursor line (ids) */
    unsigned tree_rows;   /* rows of the tree pane at the last layout */
    enum focus focus;
    enum fnstat_key sort;
    size_t tab_top, tab_cur;
    unsigned tab_rows;
    int graph;            /* the table pane shows the graph of graph_name (g) */
    char graph_name[256];
    int help;
    int prompt;           /* '/' or 'f' while a prompt is open, else 0 */
    char input[VIEW_PROMPT];
    size_t input_len;
    char search[VIEW_PROMPT];
    char msg[160];
    double msg_until;
    /* the status line */
    struct sample samples[VIEW_SAMPLES];
    unsigned nsamples, sample_pos;
    struct view_status st;
    char st_link[128], st_err[160];
    int have_st;
};

/* ---------------------------------------------------------------------------------------- */
/* the model's API: straight to vlines */

void view_configure(struct view *v, const struct sym_table *sym, uint64_t bias,
                    uint64_t ts_hz, int has_time, unsigned addr_width)
{
    if (!vlines_conf(v->m)->configured)
        v->sort = has_time ? FNSTAT_BY_TOTAL : FNSTAT_BY_CALLS;
    vlines_configure(v->m, sym, bias, ts_hz, has_time, addr_width);
}

void view_set_hook_cost(struct view *v, const struct tree_hook *h, const char *note)
{
    vlines_set_hook_cost(v->m, h, note);
}

void view_event(struct view *v, const struct ev *e)
{
    vlines_event(v->m, e);
}

/* ---------------------------------------------------------------------------------------- */
/* where the tree pane looks */

/* Puts top and cur on lines that are kept and shown, and cur inside the window of rows. */
static void settle(struct view *v, unsigned rows)
{
    struct vlines *m = v->m;
    uint64_t id, last = vlines_prev(m, VLINES_NONE), first = vlines_first(m);
    unsigned k;

    if (rows == 0)
        rows = 1;
    if (last == VLINES_NONE) {
        v->top = v->cur = VLINES_NONE;
        return;
    }
    if (v->follow) {
        v->cur = last;
        for (id = last, k = 1; k < rows; k++) {
            uint64_t p = vlines_prev(m, id);

            if (p == VLINES_NONE)
                break;
            id = p;
        }
        v->top = id;
        return;
    }
    if (!vlines_shown(m, v->cur)) {
        /* dropped: the oldest line; hidden (a fold, the filter): the nearest shown one */
        int kept = v->cur != VLINES_NONE && v->cur >= first;
        uint64_t n = kept ? vlines_next(m, v->cur) : vlines_next(m, VLINES_NONE);

        if (n == VLINES_NONE && kept)
            n = vlines_prev(m, v->cur);
        v->cur = n != VLINES_NONE ? n : last;
    }
    if (!vlines_shown(m, v->top) || v->top > v->cur) {
        uint64_t n = v->top != VLINES_NONE && v->top >= first && v->top < v->cur
                         ? vlines_next(m, v->top) : VLINES_NONE;

        v->top = n != VLINES_NONE && n <= v->cur ? n : v->cur;
    }
    /* cur below the window: the window ends at cur */
    for (id = v->top, k = 1; id != v->cur && id != VLINES_NONE && k < rows; k++)
        id = vlines_next(m, id);
    if (id != v->cur) {
        for (id = v->cur, k = 1; k < rows; k++) {
            uint64_t p = vlines_prev(m, id);

            if (p == VLINES_NONE)
                break;
            id = p;
        }
        v->top = id;
    }
    /* a window with room left below (a fold hid lines): show older lines above instead */
    for (id = v->top, k = 1; k < rows && (id = vlines_next(m, id)) != VLINES_NONE; k++)
        ;
    for (; k < rows; k++) {
        uint64_t p = vlines_prev(m, v->top);

        if (p == VLINES_NONE)
            break;
        v->top = p;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* drawing */

static void put(int y, int x, int w, attr_t a, const char *s)
{
    int cols = COLS;

    if (y < 0 || y >= LINES || x >= cols || w <= 0)
        return;
    if (x + w > cols)
        w = cols - x;
    attrset(a);
    mvaddnstr(y, x, s, w);
    attrset(A_NORMAL);
}

/* Rates over the last second, from the totals the caller keeps. */
static void rates(struct view *v, const struct view_status *st, double *ev_s, double *by_s)
{
    double now = mono_s();
    const struct sample *best = NULL;

    *ev_s = *by_s = 0;
    for (unsigned i = 0; i < v->nsamples; i++) {
        const struct sample *s = &v->samples[i];

        if (now - s->t <= 1.05 && (!best || s->t < best->t) && now - s->t > 0.05)
            best = s;
    }
    if (best && st->events >= best->events && st->bytes >= best->bytes) {
        *ev_s = (double)(st->events - best->events) / (now - best->t);
        *by_s = (double)(st->bytes - best->bytes) / (now - best->t);
    }
    v->samples[v->sample_pos] = (struct sample){now, st->events, st->bytes};
    v->sample_pos = (v->sample_pos + 1) % VIEW_SAMPLES;
    if (v->nsamples < VIEW_SAMPLES)
        v->nsamples++;
}

/* The state and flags first, the link last unless it is down: its name can be a long path, and
 * what matters most must fit in 80 columns. */
static void draw_status(struct view *v, const struct view_status *st, double ev_s, double by_s)
{
    char buf[1024], link[320], a[32], b[32];

    fmt_rate(ev_s, "ev/s", a, sizeof a);
    if (st->bytes) /* a followed ring has no bytes on a link */
        fmt_rate(by_s, "B/s", b, sizeof b);
    else
        b[0] = 0;
    snprintf(link, sizeof link, "%s %s%s%s", st->link ? st->link : "?",
             st->connected ? "up" : "down", !st->connected && st->link_error ? ": " : "",
             !st->connected && st->link_error ? st->link_error : "");
    snprintf(buf, sizeof buf,
             " %s%s%s%s%s | %s%s%s | lost %" PRIu64 " target %" PRIu64 " link | bad frames %" PRIu64
             "%s%s",
             st->have_desc ? fmt_state(st->state) : "waiting for the stream description",
             st->fault ? "  FAULT" : "", vlines_paused(v->m) ? "  PAUSED" : "",
             st->connected ? "" : " | ", st->connected ? "" : link, a, b[0] ? " " : "", b,
             st->lost_target,
             st->lost_link, st->bad_frames, st->connected ? " | " : "", st->connected ? link : "");
    attrset(A_REVERSE);
    mvhline(0, 0, ' ', COLS);
    attrset(A_NORMAL);
    put(0, 0, COLS, A_REVERSE | (st->fault ? A_BOLD : 0), buf);
}

/* One line of the tree pane. */
static void draw_line(struct view *v, int y, uint64_t id, int cursor)
{
    const struct vlines_conf *conf = vlines_conf(v->m);
    unsigned flags = vlines_flags(v->m, id);
    uint32_t ctx = vlines_ctx(v->m, id);
    char buf[1024], d[32] = "";
    size_t n = 0;
    unsigned depth = vlines_depth(v->m, id), max_ind;
    uint64_t dur;
    attr_t a = A_NORMAL;

    if (vlines_contexts(v->m) > 1) {
        char nb[256];
        const char *name = vlines_ctx_name(v->m, ctx, nb, sizeof nb);
        int named = names_ctx_count(vlines_names(v->m)) != 0; /* a wider column: names */

        if (ctx == VLINES_NO_CTX)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%*s",
                                  named ? (int)VIEW_CTX_NAME + 1 : 5, "");
        else if (named && name)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%-*.*s ", (int)VIEW_CTX_NAME,
                                  (int)VIEW_CTX_NAME, name);
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, named ? "%*u " : "%4u ",
                                  named ? (int)VIEW_CTX_NAME : 4, ctx);
    }
    if (conf->has_time) {
        if (vlines_dur(v->m, id, &dur))
            fmt_duration(dur, conf->ts_hz, d, sizeof d);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%11s  ", d);
    }
    max_ind = COLS > (int)n + 24 ? (unsigned)(COLS - (int)n - 24) / 2 : 0;
    if (depth > max_ind) {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%*s[%u] ",
                              (int)(max_ind > 4 ? (max_ind - 4) * 2 : 0), "", depth);
    } else {
        memset(buf + n, ' ', depth * 2);
        n += depth * 2;
        buf[n] = 0;
    }
    vlines_text(v->m, id, buf + n, sizeof buf - n);
    if (flags & VLINES_ALERT)
        a |= A_BOLD | (v->color ? COLOR_PAIR(1) : 0);
    if (cursor)
        a |= A_REVERSE;
    if (cursor) {
        attrset(a);
        mvhline(y, 0, ' ', COLS);
    }
    put(y, 0, COLS, a, buf);
}

static void draw_tree(struct view *v, int y0, unsigned rows)
{
    const char *filter = vlines_filter(v->m), *note = vlines_hook_note(v->m);
    char hdr[640];
    uint64_t id;
    unsigned k;
    int focused = v->focus == FOCUS_TREE;
    int n;

    n = snprintf(hdr, sizeof hdr, "%s%s%s", focused ? "> " : "  ",
                 vlines_contexts(v->m) <= 1                  ? ""
                 : names_ctx_count(vlines_names(v->m)) != 0 ? "CONTEXT      "
                                                             : " CTX ",
                 vlines_conf(v->m)->has_time ? "   DURATION  " : "");
    /* the hooks' cost taken out is said last: what the keys changed matters more */
    snprintf(hdr + n, sizeof hdr - (size_t)n, "FUNCTION%s%s%s%s%s%s",
             filter[0] ? "   filter: " : "", filter, vlines_paused(v->m) ? "   [PAUSED]" : "",
             v->follow ? "" : "   [not following: End returns to the newest]",
             note ? "   # " : "", note ? note : "");
    attrset(A_BOLD | (focused ? A_REVERSE : 0));
    mvhline(y0, 0, ' ', COLS);
    put(y0, 0, COLS, A_BOLD | (focused ? A_REVERSE : 0), hdr);
    v->tree_rows = rows;
    if (!rows)
        return;
    settle(v, rows);
    if (v->top == VLINES_NONE) {
        put(y0 + 1, 2, COLS - 2, A_DIM,
            !vlines_conf(v->m)->configured ? "(waiting for the stream description)"
            : filter[0] ? "(no calls match the filter)" : "(no calls yet)");
        return;
    }
    for (id = v->top, k = 0; id != VLINES_NONE && k < rows; k++, id = vlines_next(v->m, id))
        draw_line(v, y0 + 1 + (int)k, id, focused && id == v->cur);
}

static const struct fnstat_row *table_rows(struct view *v, size_t *n)
{
    return vlines_rows(v->m, v->sort, n);
}

/* A row's function as the table names it. */
static void row_name(const struct view *v, const struct fnstat_row *row, char *buf, size_t len)
{
    if (row->name)
        snprintf(buf, len, "%s", row->name);
    else
        fmt_addr(vlines_conf(v->m)->sym, 0, row->addr, buf, len);
}

static void draw_table(struct view *v, int y0, unsigned rows)
{
    static const char *const keys[] = {"calls", "total", "self", "max", "name"};
    int focused = v->focus == FOCUS_TABLE;
    char buf[512], c[24], t[32], s[32], m[32], nb[256];
    size_t nrows;
    const struct fnstat_row *r = table_rows(v, &nrows);
    const struct vlines_conf *conf = vlines_conf(v->m);

    if (conf->has_time)
        snprintf(buf, sizeof buf, "%s%9s %11s %11s %11s  FUNCTION   (%zu functions, sorted by %s: s)",
                 focused ? "> " : "  ", "CALLS", "TOTAL", "SELF", "MAX", nrows, keys[v->sort]);
    else
        snprintf(buf, sizeof buf, "%s%9s  FUNCTION   (%zu functions, sorted by %s: s)",
                 focused ? "> " : "  ", "CALLS", nrows, keys[v->sort]);
    attrset(A_BOLD | (focused ? A_REVERSE : 0));
    mvhline(y0, 0, ' ', COLS);
    put(y0, 0, COLS, A_BOLD | (focused ? A_REVERSE : 0), buf);
    v->tab_rows = rows;
    if (!rows)
        return;
    if (v->tab_cur >= nrows)
        v->tab_cur = nrows ? nrows - 1 : 0;
    if (v->tab_top > v->tab_cur)
        v->tab_top = v->tab_cur;
    if (v->tab_cur >= v->tab_top + rows)
        v->tab_top = v->tab_cur - rows + 1;
    for (unsigned k = 0; k < rows && v->tab_top + k < nrows; k++) {
        const struct fnstat_row *row = &r[v->tab_top + k];
        int cursor = focused && v->tab_top + k == v->tab_cur;

        fmt_count(row->calls, c, sizeof c);
        row_name(v, row, nb, sizeof nb);
        if (conf->has_time) {
            fmt_duration(row->total, conf->ts_hz, t, sizeof t);
            fmt_duration(row->self, conf->ts_hz, s, sizeof s);
            fmt_duration(row->max, conf->ts_hz, m, sizeof m);
            snprintf(buf, sizeof buf, "  %9s %11s %11s %11s  %s", c, t, s, m, nb);
        } else {
            snprintf(buf, sizeof buf, "  %9s  %s", c, nb);
        }
        if (cursor) {
            attrset(A_REVERSE);
            mvhline(y0 + 1 + (int)k, 0, ' ', COLS);
        }
        put(y0 + 1 + (int)k, 0, COLS, cursor ? A_REVERSE : A_NORMAL, buf);
    }
}

/* The graph pane, in the table's place: the call graph of the function chosen with C, as
 * cygtrace graph prints it, fed by the events since. */
static void draw_graph(struct view *v, int y0, unsigned rows)
{
    struct graph *g = vlines_graph_get(v->m);
    const struct vlines_conf *conf = vlines_conf(v->m);
    char *text = g ? graphout_pane(g, conf->has_time ? conf->ts_hz : 0, VLINES_GRAPH_NODES)
                   : NULL;
    char *line, *save = NULL, buf[512];
    int focused = v->focus == FOCUS_TABLE;
    unsigned k = 0;

    snprintf(buf, sizeof buf, "%sGRAPH of %s since it was chosen   (C: back to the table)",
             focused ? "> " : "  ", v->graph_name);
    attrset(A_BOLD | (focused ? A_REVERSE : 0));
    mvhline(y0, 0, ' ', COLS);
    put(y0, 0, COLS, A_BOLD | (focused ? A_REVERSE : 0), buf);
    for (line = text ? strtok_r(text, "\n", &save) : NULL; line && k < rows;
         line = strtok_r(NULL, "\n", &save), k++)
        put(y0 + 1 + (int)k, 0, COLS, A_NORMAL, line);
    free(text);
}

/* C: the graph of the table's function under the cursor (its callers and callees); C again:
 * the table. */
static void toggle_graph(struct view *v)
{
    const struct fnstat_row *r;
    size_t n;

    if (v->graph) {
        vlines_graph(v->m, 0);
        v->graph = 0;
        return;
    }
    r = table_rows(v, &n);
    if (v->focus != FOCUS_TABLE || !r || v->tab_cur >= n) {
        snprintf(v->msg, sizeof v->msg, "C: choose a function in the table first (Tab)");
        v->msg_until = mono_s() + 3;
        return;
    }
    row_name(v, &r[v->tab_cur], v->graph_name, sizeof v->graph_name);
    if (vlines_graph(v->m, r[v->tab_cur].addr) == 0)
        v->graph = 1;
}

static const char *const help_text[] = {
    "cygtrace live: keys",
    "",
    "p, space      pause / resume the display (the counting goes on)",
    "Up Down, k j  move the cursor a line",
    "PgUp PgDn     a page",
    "Home End      the oldest line / follow the newest",
    "Tab           switch pane: call tree or function table",
    "Enter, c      fold / unfold the calls under the cursor line",
    "/             search the focused pane; n: next match",
    "f             filter: only calls inside functions whose name",
    "              contains the text (empty: all)",
    "s             sort the table: calls, total, self, max, name",
    "C             in the table: the call graph of the function under",
    "              the cursor, from now on (C again: the table)",
    "?, h          this help (any key closes it)",
    "q             quit",
};

static void draw_help(void)
{
    int n = (int)(sizeof help_text / sizeof help_text[0]), w = 0, y0, x0;

    for (int i = 0; i < n; i++)
        if ((int)strlen(help_text[i]) > w)
            w = (int)strlen(help_text[i]);
    w += 4;
    y0 = LINES > n + 2 ? (LINES - n - 2) / 2 : 0;
    x0 = COLS > w ? (COLS - w) / 2 : 0;
    for (int i = -1; i <= n; i++) {
        attrset(A_REVERSE);
        if (y0 + 1 + i >= 0 && y0 + 1 + i < LINES)
            mvhline(y0 + 1 + i, x0, ' ', w < COLS - x0 ? w : COLS - x0);
        if (i >= 0 && i < n)
            put(y0 + 1 + i, x0 + 2, w - 2, A_REVERSE | (i == 0 ? A_BOLD : 0), help_text[i]);
    }
    attrset(A_NORMAL);
}

static void draw_bottom(struct view *v)
{
    char buf[256];
    int y = LINES - 1;

    if (v->prompt) {
        snprintf(buf, sizeof buf, "%s%s", v->prompt == '/' ? "search: " : "filter (empty: all): ",
                 v->input);
        put(y, 0, COLS, A_BOLD, buf);
        return;
    }
    if (v->msg[0] && mono_s() < v->msg_until) {
        put(y, 0, COLS, A_BOLD, v->msg);
        return;
    }
    put(y, 0, COLS, A_DIM,
        "q quit  p pause  Tab pane  / search  f filter  Enter fold  s sort  ? help");
}

/* Lays the screen out and draws it from the model and the last status. */
static void redraw(struct view *v)
{
    int rows = LINES, cols = COLS, rest, tab_h;
    double ev_s = 0, by_s = 0;

    erase();
    if (rows < 4 || cols < 16) {
        put(0, 0, cols, A_BOLD, "window too small");
        refresh();
        return;
    }
    if (v->have_st)
        rates(v, &v->st, &ev_s, &by_s);
    draw_status(v, &v->st, ev_s, by_s);
    rest = rows - 2;
    tab_h = rest >= 8 ? rest / (v->graph ? 2 : 3) : 0;
    if (tab_h && !v->graph) { /* a short table leaves its rows to the tree */
        size_t n = vlines_nrows(v->m);

        if ((size_t)tab_h > n + 1)
            tab_h = n + 1 > 2 ? (int)n + 1 : 2;
    }
    draw_tree(v, 1, (unsigned)(rest - tab_h - 1));
    if (tab_h && v->graph)
        draw_graph(v, 1 + rest - tab_h, (unsigned)(tab_h - 1));
    else if (tab_h)
        draw_table(v, 1 + rest - tab_h, (unsigned)(tab_h - 1));
    draw_bottom(v);
    if (v->help)
        draw_help();
    refresh();
}

/* A resize that no key reported (nobody read stdin): ask the terminal. */
static void check_size(void)
{
    struct winsize ws;

    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col &&
        (ws.ws_row != LINES || ws.ws_col != COLS)) {
        resizeterm(ws.ws_row, ws.ws_col);
        clearok(curscr, TRUE);
    }
}

void view_draw(struct view *v, const struct view_status *st)
{
    v->st = *st;
    snprintf(v->st_link, sizeof v->st_link, "%s", st->link ? st->link : "?");
    snprintf(v->st_err, sizeof v->st_err, "%s", st->link_error ? st->link_error : "");
    v->st.link = v->st_link;
    v->st.link_error = st->link_error ? v->st_err : NULL;
    v->have_st = 1;
    check_size();
    redraw(v);
}

/* ---------------------------------------------------------------------------------------- */
/* keys */

static void message(struct view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void message(struct view *v, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(v->msg, sizeof v->msg, fmt, ap);
    va_end(ap);
    v->msg_until = mono_s() + 3;
}

static void tree_move(struct view *v, int delta)
{
    unsigned rows = v->tree_rows ? v->tree_rows : 1;

    settle(v, rows);
    if (v->cur == VLINES_NONE)
        return;
    if (delta < 0) {
        v->follow = 0;
        for (; delta < 0; delta++) {
            uint64_t p = vlines_prev(v->m, v->cur);

            if (p == VLINES_NONE)
                break;
            v->cur = p;
            if (v->cur < v->top)
                v->top = v->cur;
        }
    } else {
        for (; delta > 0 && !v->follow; delta--) {
            uint64_t n = vlines_next(v->m, v->cur);

            if (n == VLINES_NONE) {
                v->follow = 1; /* at the newest line: follow it again */
                break;
            }
            v->cur = n;
        }
    }
    settle(v, rows);
}

static void table_move(struct view *v, long delta)
{
    size_t n;

    table_rows(v, &n);
    if (!n)
        return;
    if (delta < 0)
        v->tab_cur = (size_t)-delta > v->tab_cur ? 0 : v->tab_cur - (size_t)-delta;
    else
        v->tab_cur = v->tab_cur + (size_t)delta >= n ? n - 1 : v->tab_cur + (size_t)delta;
}

static void fold(struct view *v)
{
    settle(v, v->tree_rows ? v->tree_rows : 1);
    if (v->cur == VLINES_NONE)
        return;
    if (vlines_fold(v->m, &v->cur) < 0) {
        message(v, "no calls under this line to fold");
        return;
    }
    v->follow = 0; /* the fold stays where it is, not at the tail */
}

static void search(struct view *v)
{
    char nb[256];
    uint64_t id;

    if (!v->search[0]) {
        message(v, "no search yet: press /");
        return;
    }
    if (v->focus == FOCUS_TABLE) {
        size_t n;
        const struct fnstat_row *r = table_rows(v, &n);

        for (size_t k = 1; k <= n; k++) {
            row_name(v, &r[(v->tab_cur + k) % n], nb, sizeof nb);
            if (strstr(nb, v->search)) {
                v->tab_cur = (v->tab_cur + k) % n;
                return;
            }
        }
        message(v, "not found: %s", v->search);
        return;
    }
    settle(v, v->tree_rows ? v->tree_rows : 1);
    if (v->cur == VLINES_NONE || (id = vlines_find(v->m, v->cur, v->search)) == VLINES_NONE) {
        message(v, "not found: %s", v->search);
        return;
    }
    v->follow = 0;
    v->cur = id;
    /* the match a third of the way down the pane */
    for (unsigned k = 0; k < v->tree_rows / 3; k++) {
        uint64_t p = vlines_prev(v->m, id);

        if (p == VLINES_NONE)
            break;
        id = p;
    }
    v->top = id;
}

static void prompt_done(struct view *v)
{
    if (v->prompt == '/') {
        snprintf(v->search, sizeof v->search, "%s", v->input);
        v->prompt = 0;
        search(v);
        return;
    }
    v->prompt = 0;
    vlines_set_filter(v->m, v->input);
}

/* A key while a prompt is open. */
static void prompt_key(struct view *v, int ch)
{
    switch (ch) {
    case 27: /* Esc */
        v->prompt = 0;
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
        prompt_done(v);
        break;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        if (v->input_len)
            v->input[--v->input_len] = 0;
        break;
    default:
        if (ch >= 32 && ch < 127 && v->input_len + 1 < sizeof v->input) {
            v->input[v->input_len++] = (char)ch;
            v->input[v->input_len] = 0;
        }
        break;
    }
}

static void open_prompt(struct view *v, int kind)
{
    v->prompt = kind;
    snprintf(v->input, sizeof v->input, "%s", kind == 'f' ? vlines_filter(v->m) : "");
    v->input_len = strlen(v->input);
}

/* One key; 1 when it quits. */
static int key(struct view *v, int ch)
{
    int page = (int)(v->focus == FOCUS_TREE ? v->tree_rows : v->tab_rows);

    if (page > 1)
        page--;
    if (ch == KEY_RESIZE) {
        clearok(curscr, TRUE);
        return 0;
    }
    if (v->prompt) {
        prompt_key(v, ch);
        return 0;
    }
    if (v->help) { /* any key closes the help, q quits as well */
        v->help = 0;
        return ch == 'q' || ch == 'Q';
    }
    switch (ch) {
    case 'q':
    case 'Q':
        return 1;
    case 'p':
    case ' ':
        vlines_pause(v->m, !vlines_paused(v->m));
        break;
    case '?':
    case 'h':
        v->help = 1;
        break;
    case '\t':
        v->focus = v->focus == FOCUS_TREE ? FOCUS_TABLE : FOCUS_TREE;
        break;
    case 's': /* without timestamps, only the calls and the names sort */
        do
            v->sort = (enum fnstat_key)((v->sort + 1) % FNSTAT_KEYS);
        while (!vlines_conf(v->m)->has_time && v->sort != FNSTAT_BY_CALLS &&
               v->sort != FNSTAT_BY_NAME);
        break;
    case '/':
        open_prompt(v, '/');
        break;
    case 'n':
        search(v);
        break;
    case 'f':
        open_prompt(v, 'f');
        break;
    case 'C':
        toggle_graph(v);
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
    case 'c':
        if (v->focus == FOCUS_TREE)
            fold(v);
        break;
    case KEY_UP:
    case 'k':
        v->focus == FOCUS_TREE ? tree_move(v, -1) : table_move(v, -1);
        break;
    case KEY_DOWN:
    case 'j':
        v->focus == FOCUS_TREE ? tree_move(v, 1) : table_move(v, 1);
        break;
    case KEY_PPAGE:
        v->focus == FOCUS_TREE ? tree_move(v, -page) : table_move(v, -page);
        break;
    case KEY_NPAGE:
        v->focus == FOCUS_TREE ? tree_move(v, page) : table_move(v, page);
        break;
    case KEY_HOME:
    case 'g':
        if (v->focus == FOCUS_TREE) {
            v->follow = 0;
            v->top = v->cur = vlines_next(v->m, VLINES_NONE);
        } else {
            v->tab_cur = 0;
        }
        break;
    case KEY_END:
    case 'G':
        if (v->focus == FOCUS_TREE)
            v->follow = 1;
        else
            table_move(v, LONG_MAX / 2);
        break;
    default:
        break;
    }
    return 0;
}

int view_input(struct view *v)
{
    int ch, any = 0, quit = 0;

    while (!quit && (ch = getch()) != ERR) {
        any = 1;
        quit = key(v, ch);
    }
    if (any && !quit)
        redraw(v);
    return quit;
}

/* ---------------------------------------------------------------------------------------- */

struct view *view_open(char *err, size_t errlen)
{
    struct view *v;
    const char *term = getenv("TERM");

    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, errlen, "not a terminal; use --plain for text output");
        return NULL;
    }
    if (!(v = calloc(1, sizeof *v)) || !(v->m = vlines_new(VIEW_LINES))) {
        free(v);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fflush(stdout);
    if (!(v->scr = newterm(NULL, stdout, stdin))) {
        vlines_free(v->m);
        free(v);
        snprintf(err, errlen, "TERM=%s: not a terminal type this system knows; use --plain for "
                 "text output", term ? term : "");
        return NULL;
    }
    set_term(v->scr);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    intrflush(stdscr, FALSE);
    set_escdelay(25);
    curs_set(0);
    if (has_colors() && start_color() == OK) {
        use_default_colors();
        init_pair(1, COLOR_RED, -1);
        v->color = 1;
    }
    v->follow = 1;
    v->top = v->cur = VLINES_NONE;
    v->sort = FNSTAT_BY_TOTAL;
    v->st.link = "";
    redraw(v);
    return v;
}

void view_close(struct view *v)
{
    if (!v)
        return;
    endwin();
    delscreen(v->scr);
    fflush(stdout);
    vlines_free(v->m);
    free(v);
}

#else /* no ncurses: a stub that says so */

#include <stdio.h>

struct view *view_open(char *err, size_t errlen)
{
    snprintf(err, errlen, "built without ncurses; use --plain");
    return NULL;
}

void view_configure(struct view *v, const struct sym_table *sym, uint64_t bias,
                    uint64_t ts_hz, int has_time, unsigned addr_width)
{
    (void)v, (void)sym, (void)bias, (void)ts_hz, (void)has_time, (void)addr_width;
}

void view_set_hook_cost(struct view *v, const struct tree_hook *h, const char *note)
{
    (void)v, (void)h, (void)note;
}

void view_event(struct view *v, const struct ev *e)
{
    (void)v, (void)e;
}

int view_input(struct view *v)
{
    (void)v;
    return 1;
}

void view_draw(struct view *v, const struct view_status *st)
{
    (void)v, (void)st;
}

void view_close(struct view *v)
{
    (void)v;
}

#endif
