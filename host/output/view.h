/* SPDX-License-Identifier: GPL-3.0-or-later */
/* view.h - the live view: a running target's calls on a terminal (ncurses), as they happen.
 *
 * The caller (cmd_live.c) owns the loop: it reads the link or the followed ring, passes every
 * event to view_event, passes keys on with view_input when stdin has some, and calls view_draw
 * about ten times a second. Nothing here blocks.
 *
 * What is shown is the model in vlines.h: every context's calls as lines that grow live (a
 * call's duration filled in when it returns), marks, faults and losses, and the per-function
 * table (fnstat.h) behind them. Lines are bounded: the oldest go first (VIEW_LINES), except
 * while paused, when the new ones are not kept instead (a line says how many on resume). This
 * file is the screen and the keys.
 *
 * Built without ncurses (no pkg-config ncursesw or ncurses), view_open fails with a message
 * that points at --plain; the rest is never reached. */
#ifndef VIEW_H
#define VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "decode/dec.h"
#include "symbols/sym.h"

#define VIEW_LINES 200000u /* tree lines kept; the oldest are dropped beyond */

/* What the status line says; the caller keeps the totals, the view turns them into rates. */
struct view_status {
    const char *link;       /* the source as named: "/dev/ttyUSB0", "ring", "host:4444" */
    int connected;          /* the link is up */
    const char *link_error; /* why it is down; NULL when it is not */
    uint64_t events, bytes; /* totals since the start */
    uint64_t lost_target;   /* events the target lost */
    uint64_t lost_link;     /* events lost on the link */
    uint64_t bad_frames;    /* frames dropped: bad COBS, CRC or content */
    int have_desc;          /* a description (or the ring) said what the stream is */
    unsigned state;         /* CYG_S_* */
    int fault;              /* a fault record came */
};

struct view;

/* Takes the terminal over (the alternate screen). NULL with a one-line reason in err when
 * stdin or stdout is not a terminal ("not a terminal; use --plain for text output"), the
 * terminal type is unknown, or this build has no ncurses. */
struct view *view_open(char *err, size_t errlen);

/* Says what the trace is: symbols (may be NULL), the image's load bias, the clock, whether
 * there are timestamps, and the address width in hex digits (8: a 32-bit target). Events
 * before the first call are ignored. Calling it again starts every context's tree over (a
 * new description, a new run of the program), with a line that says so; the lines and the
 * table stay. */
void view_configure(struct view *v, const struct sym_table *sym, uint64_t bias,
                    uint64_t ts_hz, int has_time, unsigned addr_width);

/* Takes the hooks' cost out of the durations and the table's times (vlines_set_hook_cost): h
 * and note as cmd_filter_resolve and cmd_hook_note give them; the tree pane's header shows the
 * note. After view_configure, before the events. */
struct tree_hook;
void view_set_hook_cost(struct view *v, const struct tree_hook *h, const char *note);

/* Feeds one event to the model (also while paused: the display waits, the model does not). */
void view_event(struct view *v, const struct ev *e);

/* Reads the keys pending on stdin, never waiting, and redraws at once when one changed the
 * screen. Returns 1 when the user quit, else 0. Cheap: call it whenever stdin is readable, or
 * every loop. */
int view_input(struct view *v);

/* Draws the screen: the tree, the table, the status line (rates over the last second from
 * the totals in st). Also notices a terminal resized while nobody read stdin. */
void view_draw(struct view *v, const struct view_status *st);

/* Gives the terminal back as it was (leaves the alternate screen) and frees everything. NULL
 * is fine. */
void view_close(struct view *v);

#endif
