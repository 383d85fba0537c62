/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_live.c - "cygtrace live": a running target's calls as they happen.
 *
 * The source (source.h) is a stream over a link (serial, TCP, a file or pipe, or an RTT
 * channel in target RAM that a poller reads through a GDB server: --gdb), or a running Linux
 * program's ring (--follow). Its events feed per-context call trees: printed as text
 * (--plain) or shown in the ncurses view. One loop polls the source, the keyboard and the
 * clock; nothing blocks for long, so the view stays responsive whatever the link does. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "cyg_rtt.h"
#include "decode/sframe.h"
#include "source/follow.h"
#include "source/wire.h"
#include "output/fmt.h"
#include "output/render.h"
#include "source/rsp.h"
#include "source/rtt.h"
#include "source/source.h"
#include "model/tree.h"
#include "output/view.h"
#include "util/mono.h"
#include "util/oaindex.h"
#include "util/vec.h"

#define LIVE_READ_BYTES 65536u
#define LIVE_FOLLOW_MAX 200000u /* events per poll of a followed ring: the view stays live */
#define LIVE_TICK_MS 50
#define LIVE_POLL_HZ 100 /* --gdb: reads of the RTT channel a second */
#define LIVE_POLL_MAX 1000
#define LIVE_DRAIN_MS 3000 /* --gdb: what the poller's last read may take to come through */

/* Above the show options (0x100...) and the GDB server's (0x200...). */
enum { OPT_PLAIN = 0x300, OPT_POLL, OPT_SAVE, OPT_SERIAL, OPT_TCP, OPT_FILE, OPT_FOLLOW,
       OPT_DURATION, OPT_FROM_START };

/* One context's tree and its text renderer (--plain). */
struct live_ctx {
    uint32_t id;
    uint64_t os_tid; /* from its THREAD record, 0 until one came */
    int vfork;
    struct pipeline_chain ch; /* its tree, behind the show options' filters */
    struct render *render;
};

struct live {
    const char *elf;
    struct sym_table *sym;
    struct show_opts show;
    int plain;
    struct view *view;
    /* the trace, once a description (or the followed ring) said what it is */
    int configured;
    struct dec_ring ring;
    struct render_opts ro;
    struct pipeline_resolver res; /* the tree builder's call-site repair */
    struct filter_opts fo;   /* --only, --hide, --min-time */
    struct filter_time ft;   /* --time-range: from the first event seen */
    char hook_note[256];     /* the hooks' cost taken out (cmd_hook_note), "" when none is */
    /* --plain: one tree per context, in order of appearance */
    struct live_ctx *ctx;
    unsigned nctx;
    size_t ctx_cap;
    struct oaindex ctx_ix; /* ctx by id: every event looks its context up, and a stream may name
                              hundreds of thousands */
    int cur;            /* the context of the last line printed, -1 before any */
    int head_due;       /* cur's header is owed: said before its first event that shows (a
                           switch alone shows nothing: an idle task would fill the screen) */
    struct ev lost0;    /* records lost before any context's first event (addr 0: none) */
    struct names *names; /* what the NAME and CONTEXT records said so far */
    uint64_t unmatched;
    /* the source */
    const char *source; /* as the user named it, for messages */
    struct wire *link;  /* a stream's link (the source's: for its descriptor), or NULL */
    struct cmd_gdb gdb; /* --gdb: the server, and the RTT channel read through it */
    unsigned poll_hz;
    struct rsp *rsp;
    struct rtt_poller *rtt; /* the link's: it frees it */
    struct rtt_chan ch;
    const char *ch_where; /* how the block was found: a symbol's name, or "a scan" */
    const char *follow_path;
    int from_start; /* --from-start, or no ring was there at the first look */
    struct source *src; /* the link's stream, or the followed ring once it is there */
    FILE *save;
    const char *save_path;
    /* what the status line and the summary say */
    uint64_t bytes, events, lost_target, lost_link;
    int fault;
    int connected;
    int ended_ok; /* the source came to its end (EOF, the program or the target exited) */
    char link_error[512];
    /* a condition that ends the command with status 1 (checked after each batch) */
    int failed;
    char err[512];
    int out_failed; /* --plain: the standard output could not be written (said already) */
};

static volatile sig_atomic_t live_stop;

static void on_signal(int sig)
{
    (void)sig;
    live_stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cygtrace live [options] SOURCE ELF\n"
            "sources (one):\n"
            "  --serial=DEV[:BAUD]         a serial port, raw 8N1 (default 115200 baud)\n"
            "  --tcp=HOST:PORT             a TCP stream (ser2net, QEMU -serial tcp:)\n"
            "  --file=PATH                 a file, named pipe or device\n"
            "  --follow=RING               a running Linux program's buffer (CYGTRACE_OUT)\n"
            "  --gdb=WHERE                 a firmware's RTT channel \"cygtrace\", read through a\n"
            "                              GDB server: HOST:PORT (OpenOCD :3333, pyOCD, J-Link,\n"
            "                              QEMU -gdb) or /dev/ttyACM0[:BAUD] (Black Magic\n"
            "                              Probe); halt, read, resume, --poll times a second\n"
            "options:\n"
            "  --plain                     tree lines on stdout, no curses\n"
            "  --save=FILE                 also keep the raw stream (cygtrace tree ELF FILE)\n"
            "  --duration=SECONDS          stop after that long\n"
            "  --from-start                --follow: begin with the ring's first event (those\n"
            "                              it no longer holds are counted lost), not with\n"
            "                              the new ones; a ring that comes after live\n"
            "                              started is read from its first event anyway\n"
            "  --poll=HZ                   --gdb: reads of the channel a second (100); each\n"
            "                              halts the target for a few of the server's round\n"
            "                              trips\n"
            "  --monitor=CMD               --gdb: run a monitor command first (repeatable)\n"
            "  --attach=N                  --gdb: attach to target N first (Black Magic Probe)\n"
            "  --timeout=SECONDS           --gdb: give up on a silent server, or on a target\n"
            "                              whose control block does not appear, after this\n"
            "                              long (5)\n"
            "display (with --plain; --raw-times and --hook-cost in the view too):\n"
            "%s",
            cmd_show_usage);
}

/* The stream (or the ring) says what it is: check it against the ELF and set up the output.
 * Called again when a new description differs (a target that reset into another build). */
static int configure(struct live *l, const struct dec_ring *ring)
{
    struct load ld = {.sym = l->sym, .ring = *ring, .id_match = -1};

    if (load_check(&ld, l->elf, l->source, l->show.force, l->err, sizeof l->err) < 0) {
        l->failed = 1;
        return -1;
    }
    if (l->configured && ring->build_id_len == l->ring.build_id_len &&
        !memcmp(ring->build_id, l->ring.build_id, ring->build_id_len)) {
        l->ring = *ring; /* state, lost: the status line shows them */
        return 0;
    }
    l->ring = *ring;
    l->ro.ts_hz = ring->ts_hz;
    l->ro.has_time = !!(ring->flags & CYG_F_TIMESTAMPS);
    l->ro.addr_width = ring->word_bytes * 2;
    l->ro.ctrl = ring->ctrl_state == DEC_CTRL_OK ? &l->ring.ctrl : NULL;
    l->res.sym = l->sym;
    l->res.bias = ring->load_bias;
    if (cmd_filter_resolve(&l->show, &ld, l->elf, l->source, &l->fo, &l->ft, l->err,
                           sizeof l->err) < 0) {
        l->failed = 1;
        return -1;
    }
    if (l->ro.style == RENDER_BRACES && !(ring->flags & CYG_F_CALLSITES)) {
        snprintf(l->err, sizeof l->err, "%s: --style=braces needs call sites, and this stream "
                 "has none", l->source);
        l->failed = 1;
        return -1;
    }
    if (!cmd_hook_note(&ld, &l->show, &l->fo, l->hook_note, sizeof l->hook_note))
        l->hook_note[0] = 0;
    if (l->view) {
        view_configure(l->view, l->sym, ring->load_bias, ring->ts_hz, l->ro.has_time,
                       l->ro.addr_width);
        /* the same cost --plain's trees take out (l->fo), said in the tree pane's header */
        view_set_hook_cost(l->view, &l->fo.hook, l->hook_note[0] ? l->hook_note : NULL);
    }
    l->configured = 1;
    return 0;
}

static uint64_t ctx_hash(const void *arg, size_t pos)
{
    return oaindex_hash_u64(((const struct live *)arg)->ctx[pos].id);
}

static int ctx_is(const void *arg, size_t pos, const void *key)
{
    return ((const struct live *)arg)->ctx[pos].id == *(const uint32_t *)key;
}

static struct live_ctx *plain_ctx(struct live *l, uint32_t id)
{
    struct live_ctx *c;
    size_t *slot;

    if (l->cur >= 0 && l->ctx[l->cur].id == id)
        return &l->ctx[l->cur];
    if (oaindex_reserve(&l->ctx_ix, 16, ctx_hash, l) < 0 ||
        !(slot = oaindex_slot(&l->ctx_ix, oaindex_hash_u64(id), ctx_is, l, &id)))
        return NULL;
    if (*slot)
        return &l->ctx[*slot - 1];
    if (vec_grow(&l->ctx, &l->ctx_cap, l->nctx, sizeof *l->ctx, 8) < 0)
        return NULL;
    c = &l->ctx[l->nctx];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->render = render_new(stdout, &l->ro, l->sym, l->ring.load_bias);
    /* Live, the depth the trace starts at is unknown: exits of calls made before it are
     * counted as unmatched, not shown. */
    if (!c->render ||
        pipeline_chain_open(&c->ch, render_sink(c->render), &l->fo, 0, pipeline_func_of,
                            &l->res) < 0) {
        render_free(c->render);
        return NULL;
    }
    if (l->nctx == 0) {
        /* as tree says it, in its style: the first line */
        if (l->ro.style == RENDER_TREE && l->ro.has_time && l->hook_note[0])
            printf("# %s\n", l->hook_note);
        render_header(c->render);
    }
    oaindex_put(&l->ctx_ix, slot, l->nctx++);
    return c;
}

/* "# context N "NAME"" and then end: the header of context c in --plain, as the tree heads it. */
static void plain_header(const struct live *l, const struct live_ctx *c, const char *end)
{
    char label[512];

    names_ctx_label(l->names, l->sym, l->ring.load_bias, l->ring.word_bytes, c->id, c->os_tid,
                    c->vfork, label, sizeof label);
    printf("# %s%s", label, end);
}

/* --plain: the event goes to its context's tree; a line says when the context changes. A loss
 * may have taken any context's events: every tree forgets what it cannot know, and the
 * current one shows the line. */
static void plain_event(struct live *l, const struct ev *e)
{
    struct live_ctx *c;
    int idx;

    if (e->kind != EV_LOST && l->show.have_thread &&
        (l->show.thread_name ? !names_ctx(l->names, e->ctx) ||
                                   strcmp(names_ctx(l->names, e->ctx), l->show.thread_name)
                             : e->ctx != l->show.thread))
        return;
    if (!filter_time_keep(&l->ft, e))
        return;
    /* A ring lapped before the follow came: no tree yet, the first one says it first. */
    if (e->kind == EV_LOST && l->cur < 0) {
        uint64_t n = l->lost0.addr + e->addr;

        if (!l->lost0.addr)
            l->lost0 = *e;
        l->lost0.addr = n;
        return;
    }
    if (e->kind == EV_LOST) {
        idx = l->cur;
        for (unsigned i = 0; i < l->nctx; i++)
            if ((int)i != idx)
                tree_lost(l->ctx[i].ch.tree);
    } else {
        if (!(c = plain_ctx(l, e->ctx)))
            goto oom;
        idx = (int)(c - l->ctx);
        if (e->kind == EV_THREAD) {
            c->os_tid = e->addr;
            c->vfork = e->data == CYG_THREAD_VFORK;
        }
        if (idx != l->cur && l->nctx > 1) {
            if (l->cur >= 0)
                render_flush(l->ctx[l->cur].render);
            l->head_due = 1;
        }
        if (l->head_due && e->kind != EV_CONTEXT && e->kind != EV_NAME) {
            plain_header(l, c, "\n");
            l->head_due = 0;
        }
        l->cur = idx;
        if (l->lost0.addr) {
            if (tree_feed(l->ctx[idx].ch.tree, &l->lost0) < 0)
                goto oom;
            l->lost0.addr = 0;
        }
    }
    if (tree_feed(l->ctx[idx].ch.tree, e) == 0)
        return;
oom:
    snprintf(l->err, sizeof l->err, "out of memory");
    l->failed = 1;
}

/* An event of the source: counted, named, shown. */
static void on_event(struct live *l, const struct ev *e)
{
    if (l->failed)
        return;
    if (!l->configured && l->link && configure(l, source_describe(l->src)) < 0)
        return;
    if (e->kind == EV_LOST) {
        if (e->data == EV_LOST_LINK)
            l->lost_link += e->addr;
        else
            l->lost_target += e->addr;
    } else {
        l->events++;
    }
    if (e->kind == EV_FAULT)
        l->fault = 1;
    names_feed(l->names, e, l->ring.word_bytes);
    if (l->view)
        view_event(l->view, e);
    else
        plain_event(l, e);
}

/* The lines so far out to the standard output; one that cannot be written ends the session
 * (a full disk would otherwise take a followed program's events for ever, and show nothing). */
static void plain_flush(struct live *l)
{
    if (l->cur >= 0 && render_flush(l->ctx[l->cur].render) < 0)
        cmd_stdout_error(errno);
    if (cmd_stdout_failed())
        l->out_failed = 1;
}

/* The bytes of the link, as they are read: counted, and kept (--save), with the host's time
 * of the read after the last frame it completed (a host time frame, cyg_stream.h), which
 * export maps the target's clock with. */
static void on_bytes(void *arg, const void *buf, size_t n)
{
    struct live *l = arg;
    const uint8_t *b = buf, *z;
    uint8_t h[SFRAME_HOST_MAX];
    size_t k = n, hn = 0;

    l->bytes += (uint64_t)n;
    if (l->save && n && (z = memrchr(b, 0, n))) {
        k = (size_t)(z - b) + 1;
        hn = sframe_host(h, mono_ns());
    }
    if (l->save && (fwrite(b, 1, k, l->save) != k || fwrite(h, 1, hn, l->save) != hn ||
                    fwrite(b + k, 1, n - k, l->save) != n - k)) {
        snprintf(l->err, sizeof l->err, "%s: cannot write: %s", l->save_path, strerror(errno));
        l->failed = 1;
    }
}

/* The followed program started again: its trees start over. */
static void restart(struct live *l)
{
    l->configured = 0;
    if (!l->plain)
        return;
    for (unsigned i = 0; i < l->nctx; i++) {
        pipeline_chain_close(&l->ctx[i].ch);
        render_free(l->ctx[i].render);
    }
    l->nctx = 0;
    oaindex_free(&l->ctx_ix);
    l->cur = -1;
    l->lost0.addr = 0;
    printf("# the program started again\n");
}

/* After a look at the source: what the status shows. A stream's new description may say the
 * target froze or reset; a followed ring's state and what fired since (the renderers name
 * triggers by it, the notes say it at the end). */
static void track(struct live *l, uint64_t bytes)
{
    const struct dec_ring *r = source_describe(l->src);

    if (l->link) {
        if (l->bytes != bytes && l->configured && r)
            configure(l, r);
        return;
    }
    l->ring.state = r->state;
    if (l->ring.ctrl_state == DEC_CTRL_OK && r->ctrl_state == DEC_CTRL_OK)
        l->ring.ctrl = r->ctrl;
}

/* Takes what the source has now (a link: what one read gives, waiting at most wait_ms); 0
 * while it lasts, -1 once it ended. */
static int pump(struct live *l, int wait_ms)
{
    uint64_t bytes = l->bytes;
    struct ev e;
    int rc;

    source_set_wait(l->src, wait_ms);
    do {
        if (!l->configured && !l->link && configure(l, source_describe(l->src)) < 0)
            return -1;
        while (!l->failed &&
               (rc = source_next(l->src, &e, l->link_error, sizeof l->link_error)) == 1)
            on_event(l, &e);
        if (l->failed)
            return -1;
        if (rc == SOURCE_NEW)
            restart(l);
    } while (rc == SOURCE_NEW);
    if (rc != -1)
        track(l, bytes);
    if (rc == SOURCE_AGAIN)
        return 0;
    if (rc == 0 && !l->link_error[0])
        snprintf(l->link_error, sizeof l->link_error, "end of stream");
    l->ended_ok = rc == 0;
    l->connected = 0;
    return -1;
}

/* Tries to open the followed ring: the program may not have made it yet. 0 when open. */
static int follow_try(struct live *l)
{
    char why[256];

    struct follow *f = follow_open(l->follow_path, l->from_start, why, sizeof why);

    if (f) {
        l->link_error[0] = 0;
        if ((l->src = source_open_follow(f, l->follow_path, LIVE_FOLLOW_MAX, l->err,
                                         sizeof l->err)))
            return 0;
        l->failed = 1;
        return -1;
    }
    /* No ring yet: the one that comes is made after we came, and all of it is news (its
     * main's entry, the calls before our first look). "From now" is for a ring that was
     * there already. */
    l->from_start = 1;
    if (!l->link_error[0] && l->plain)
        fprintf(stderr, "cygtrace: %s: %s; waiting for the program (CYGTRACE_OUT=%s)\n",
                l->follow_path, why, l->follow_path);
    snprintf(l->link_error, sizeof l->link_error, "waiting for %s: %s", l->follow_path, why);
    return -1;
}

static void fill_status(const struct live *l, struct view_status *st)
{
    struct source_stats ss = {0};
    const struct sframe_stats *fs = &ss.fr;
    const struct sdec_stats *ds = &ss.sd;

    if (l->src)
        source_stats(l->src, &ss);
    memset(st, 0, sizeof *st);
    st->link = l->source;
    st->connected = l->connected;
    st->link_error = l->connected ? NULL : l->link_error;
    st->events = l->events;
    st->bytes = l->bytes;
    st->lost_target = l->lost_target;
    st->lost_link = l->lost_link;
    st->bad_frames = fs->bad + ds->malformed;
    st->have_desc = l->configured;
    st->state = l->ring.state;
    st->fault = l->fault;
}

/* --gdb: how often the channel was read and how long each read held the target. */
static void rtt_notes(const struct live *l, FILE *f, const char *p)
{
    struct rtt_stats st;

    if (!l->rtt)
        return;
    rtt_poller_stats(l->rtt, &st);
    fprintf(f,
            "%srtt: %" PRIu64 " polls in %.1f s (%.1f a second); the target halted %.3f ms a "
            "poll (median; mean %.3f, max %.3f); %.1f bytes a poll (max %" PRIu32 "); the "
            "channel was full at %" PRIu64 " polls\n",
            p, st.polls, st.seconds, st.seconds > 0 ? (double)(st.polls - 1) / st.seconds : 0.0,
            st.halt_median_ms, st.halt_mean_ms, st.halt_max_ms,
            st.polls ? (double)st.bytes / (double)st.polls : 0.0, st.max_bytes, st.full);
}

/* The end of a --plain session: the calls still open, then what was lost and a summary, as
 * notes: "#" lines in the tree style, on stderr in the others (whose output stays exact). */
static void plain_finish(struct live *l)
{
    FILE *f = l->ro.style == RENDER_TREE ? stdout : stderr;
    const char *p = l->ro.style == RENDER_TREE ? "# " : "cygtrace: note: ";
    struct source_stats ss;

    for (unsigned i = 0; i < l->nctx; i++) {
        if (l->nctx > 1)
            plain_header(l, &l->ctx[i], ": calls still open\n");
        tree_finish(l->ctx[i].ch.tree);
        l->unmatched += tree_unmatched(l->ctx[i].ch.tree);
        render_flush(l->ctx[i].render);
    }
    if (l->link) {
        source_stats(l->src, &ss);
        cmd_stream_notes(f, p, &ss.fr, &ss.sd);
        if (!l->configured)
            fprintf(f, "%sno stream description came: nothing to decode (is the target "
                       "streaming, at this baud?)\n", p);
    } else if (l->lost_target) {
        fprintf(f, "%s%" PRIu64 " events were lost: %s\n", p, l->lost_target,
                (l->ring.flags & CYG_F_OVERWRITE) ? "the program lapped the reader"
                                                  : "the ring was full (stop mode)");
    }
    {
        char cp[64];

        snprintf(cp, sizeof cp, "%scontrol: ", p);
        fmt_ctrl_notes(f, cp, &l->ring, l->sym);
    }
    rtt_notes(l, f, p);
    fprintf(f, "%s%" PRIu64 " events", p, l->events);
    if (l->link)
        fprintf(f, ", %" PRIu64 " bytes (%.2f bytes/event)", l->bytes,
                l->events ? (double)l->bytes / (double)l->events : 0.0);
    fprintf(f, "; %s\n", l->link_error[0] ? l->link_error
                          : live_stop                 ? "interrupted"
                                                      : "the time given is up");
    cmd_stdout_failed();
}

/* What parse_args learns of the options besides l's. */
struct live_args {
    struct live *l;
    double *duration;
    int kind;     /* the source's option: OPT_SERIAL... or CMD_GDB_WHERE */
    int sources;  /* how many were given */
    int gdb_opts; /* an option that goes with --gdb only */
};

static int take_option(void *arg, int c, char *val)
{
    struct live_args *a = arg;
    struct live *l = a->l;
    unsigned long long hz;
    char *end;
    int rc;

    /* --gdb is one of the sources: the GDB server options are live's own, not required. */
    if ((rc = cmd_gdb_option(c, val, &l->gdb)) < 0)
        return 2;
    if (rc == 1 && c != CMD_GDB_WHERE) {
        a->gdb_opts = 1;
        return 0;
    }
    switch (c) {
    case OPT_PLAIN:
        l->plain = 1;
        break;
    case OPT_SAVE:
        l->save_path = val;
        break;
    case CMD_GDB_WHERE:
    case OPT_SERIAL:
    case OPT_TCP:
    case OPT_FILE:
    case OPT_FOLLOW:
        a->kind = c;
        l->source = val;
        a->sources++;
        break;
    case OPT_DURATION:
        *a->duration = strtod(val, &end);
        if (end == val || *end || !(*a->duration > 0)) {
            cmd_error("--duration=%s: not a number of seconds", val);
            return 2;
        }
        break;
    case OPT_FROM_START:
        l->from_start = 1;
        break;
    default: /* OPT_POLL */
        if (cmd_parse_u64(val, &hz) < 0 || hz < 1 || hz > LIVE_POLL_MAX) {
            cmd_error("--poll=%s: not a rate in Hz (1..%d)", val, LIVE_POLL_MAX);
            return 2;
        }
        l->poll_hz = (unsigned)hz;
        a->gdb_opts = 1;
        break;
    }
    return 0;
}

static int parse_args(struct live *l, int argc, char **argv, double *duration)
{
    static const struct option opts[] = {CMD_SHOW_LONGOPTS,
                                         CMD_GDB_LONGOPTS,
                                         {"poll", required_argument, 0, OPT_POLL},
                                         {"plain", no_argument, 0, OPT_PLAIN},
                                         {"save", required_argument, 0, OPT_SAVE},
                                         {"serial", required_argument, 0, OPT_SERIAL},
                                         {"tcp", required_argument, 0, OPT_TCP},
                                         {"file", required_argument, 0, OPT_FILE},
                                         {"follow", required_argument, 0, OPT_FOLLOW},
                                         {"duration", required_argument, 0, OPT_DURATION},
                                         {"from-start", no_argument, 0, OPT_FROM_START},
                                         {"help", no_argument, 0, CMD_OPTS_HELP},
                                         {0, 0, 0, 0}};
    struct live_args a = {.l = l, .duration = duration};
    const struct cmd_opts p = {.cmd = "live", .table = opts, .show = &l->show, .usage = usage,
                               .take = take_option, .arg = &a};
    int rc, kind;

    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    kind = a.kind;
    if (a.sources != 1) {
        cmd_error("live: needs one source: --serial, --tcp, --file, --follow or --gdb (see "
                  "'cygtrace live --help')");
        return 2;
    }
    if (a.gdb_opts && kind != CMD_GDB_WHERE) {
        cmd_error("live: --poll, --monitor, --attach and --timeout go with --gdb");
        return 2;
    }
    if (cmd_opts_need(argc, "live", 1, "the ELF file of the traced program"))
        return 2;
    if (kind == OPT_FOLLOW && l->save_path) {
        cmd_error("live: --save keeps a stream; a followed ring is a file already");
        return 2;
    }
    l->elf = argv[optind];
    return -kind; /* go on: which source */
}

/* Looks for the control block until it appears (a target just reset, or held at reset by its
 * probe, has not laid it out yet) or --timeout: halts the target for each look, lets it run
 * between them, and leaves it halted (for the poller's first read, or for the detach). */
static int find_rtt(struct live *l, char *why, size_t whylen)
{
    static const char *const syms[] = {"cygtrace_rtt", "_SEGGER_RTT"};
    struct rtt_range ram[RTT_MAX_RANGES];
    struct rtt_mem m = rtt_mem_rsp(l->rsp);
    uint64_t cand[2];
    const char *cand_name[2];
    unsigned ncand = 0;
    char names[256], more[512];
    double deadline = mono_s() + l->gdb.timeout_ms / 1000.0;
    int nram, rc;

    for (unsigned i = 0; i < 2; i++)
        if (sym_find(l->sym, syms[i], &cand[ncand], NULL) == 0)
            cand_name[ncand++] = syms[i];
    if ((nram = rtt_ram_ranges(l->elf, ram, RTT_MAX_RANGES, names, sizeof names, more,
                               sizeof more)) < 0) {
        snprintf(why, whylen, "%s: %s", l->elf, more);
        return RTT_EBAD;
    }
    for (;;) {
        if (rsp_halt(l->rsp, why, whylen) < 0)
            return RTT_EMEM;
        rc = rtt_find(&m, sym_word_bytes(l->sym), cand, ncand, ram, (unsigned)nram, &l->ch, why,
                      whylen);
        if (rc != RTT_ENONE || mono_s() >= deadline || cmd_gdb_signal())
            break;
        /* Looks as often as polls: a block that appears has a channel that fills. */
        if (rsp_continue(l->rsp, why, whylen) < 0)
            return RTT_EMEM;
        usleep(1000000 / l->poll_hz);
    }
    if (rc == RTT_ENONE) {
        snprintf(more, sizeof more, "%.400s", why);
        snprintf(why, whylen,
                 "no RTT control block after %g s (%s; symbols: %s%s%s; RAM: %s); "
                 "is the firmware built with cygtrace's RTT sink (or SEGGER's RTT), and is it %s?",
                 l->gdb.timeout_ms / 1000.0, more, ncand ? cand_name[0] : "none",
                 ncand > 1 ? " " : "", ncand > 1 ? cand_name[1] : "",
                 names[0] ? names : "none in the ELF", l->elf);
        return RTT_ENONE;
    }
    if (rc == 0) {
        l->ch_where = "a scan of RAM";
        for (unsigned i = 0; i < ncand && !l->ch.scanned; i++)
            if (cand[i] == l->ch.block)
                l->ch_where = cand_name[i];
    }
    return rc;
}

/* --gdb: connects, finds the channel and starts the poller, whose link the loop reads. */
static int open_rtt(struct live *l)
{
    char why[1024];
    int rc;

    if (!(l->rsp = cmd_gdb_connect(&l->gdb, l->source)))
        return -1;
    rc = find_rtt(l, why, sizeof why);
    if (rc == RTT_EMEM || cmd_gdb_signal()) {
        cmd_gdb_error(why, l->source, "");
        return -1;
    }
    if (rc < 0) {
        cmd_error("%s: %s", l->source, why);
        return -1;
    }
    if (!l->ch.named)
        cmd_error("warning: %s: the control block at 0x%" PRIx64 " has no up buffer named \"%s\": "
                  "reading up buffer 0 (\"%s\")",
                  l->source, l->ch.block, CYG_RTT_CHANNEL_NAME, l->ch.name);
    if (l->plain)
        fprintf(stderr,
                "cygtrace: note: rtt: up buffer %u \"%s\" (%" PRIu32 " bytes at 0x%" PRIx64
                ") of the control block at 0x%" PRIx64 " (%s), read %u times a second\n",
                l->ch.index, l->ch.name, l->ch.size, l->ch.buffer, l->ch.block, l->ch_where,
                l->poll_hz);
    if (!(l->rtt = rtt_poller_start(l->rsp, &l->ch, l->poll_hz, why, sizeof why)) ||
        !(l->link = wire_open_rtt(l->rtt, l->source, why, sizeof why))) {
        l->rtt = NULL;
        cmd_error("%s: %s", l->source, why);
        return -1;
    }
    return 0;
}

/* --gdb, once the loop is over: the poller's last read (the target halted for the detach)
 * comes through, then its end. A run that ended by the clock or the user did not end by the
 * link. */
static void finish_rtt(struct live *l)
{
    double deadline = mono_s() + LIVE_DRAIN_MS / 1000.0;
    int by_link = !l->connected;

    rtt_poller_stop(l->rtt);
    while (l->connected && !l->failed && mono_s() < deadline)
        pump(l, 100);
    if (!by_link && l->ended_ok) {
        l->connected = 1;
        l->link_error[0] = 0;
    }
}

static int open_source(struct live *l, int kind)
{
    char why[256];

    if (kind == OPT_FOLLOW) {
        l->follow_path = l->source;
        return 0;
    }
    if (kind == CMD_GDB_WHERE) {
        if (open_rtt(l) < 0)
            return -1;
    } else {
        if (kind == OPT_SERIAL)
            l->link = wire_open_serial(l->source, why, sizeof why);
        else if (kind == OPT_TCP)
            l->link = wire_open_tcp(l->source, why, sizeof why);
        else
            l->link = wire_open_file(l->source, why, sizeof why);
        if (!l->link) {
            cmd_error("%s: %s", l->source, why);
            return -1;
        }
    }
    if (!(l->src = source_open_wire(l->link, on_bytes, l, why, sizeof why))) {
        l->link = NULL; /* closed, and the poller with it */
        l->rtt = NULL;
        cmd_error("out of memory");
        return -1;
    }
    return 0;
}

/* The loop: the source, the keys, the screen, until the source ends, the time is up, the user
 * quits or a signal comes. */
static void run(struct live *l, double duration)
{
    double start = mono_s(), last_draw = 0, deadline = duration > 0 ? start + duration : 0;
    int ended = 0;
    struct view_status st;

    while (!live_stop && !l->failed && (deadline == 0 || mono_s() < deadline)) {
        if (!ended && (l->src || (l->follow_path && follow_try(l) == 0)))
            ended = pump(l, l->view ? 0 : LIVE_TICK_MS) < 0;
        if (!ended && l->follow_path && !l->view)
            usleep(LIVE_TICK_MS * 1000);
        if (!l->view) {
            plain_flush(l);
            if (ended || l->out_failed)
                break;
            continue;
        }
        /* The view: wait for a key or the link, at most one tick. */
        {
            struct pollfd p[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                                  {.fd = l->link && !ended ? wire_fd(l->link) : -1,
                                   .events = POLLIN}};

            poll(p, 2, l->follow_path && !ended ? LIVE_TICK_MS / 2 : LIVE_TICK_MS);
        }
        if (view_input(l->view))
            break;
        if (mono_s() - last_draw >= 0.1) {
            fill_status(l, &st);
            view_draw(l->view, &st);
            last_draw = mono_s();
        }
    }
}

int cmd_live(int argc, char **argv)
{
    struct live l = {.cur = -1, .connected = 1, .poll_hz = LIVE_POLL_HZ};
    struct sigaction sa;
    double duration = 0;
    char why[256];
    int rc, kind;

    cmd_show_init(&l.show);
    cmd_gdb_init(&l.gdb);
    rc = parse_args(&l, argc, argv, &duration);
    if (rc >= 0)
        return rc;
    kind = -rc;
    if (!l.plain && (l.show.only || l.show.hide || l.show.have_min || l.show.range.on)) {
        cmd_error("live: --only, --hide, --min-time and --time-range need --plain");
        return 2;
    }
    if (!(l.names = names_new())) {
        cmd_error("live: out of memory");
        return 1;
    }
    l.ro.names = l.names;
    l.ro.style = (enum render_style)l.show.style;
    l.ro.max_depth = l.show.max_depth;
    l.ro.collapse = l.show.collapse;
    l.ro.show = l.show.show;
    if (l.show.color > 0 || (l.show.color < 0 && cmd_color_auto()))
        l.ro.show |= RENDER_COLOR;
    if (!(l.sym = sym_open(l.elf, why, sizeof why))) {
        cmd_error("%s: %s", l.elf, why);
        names_free(l.names);
        return 1;
    }
    names_set_symbols(l.names, l.sym, 0); /* a firmware's: live streams come from firmware */
    if (l.show.show & (RENDER_SRCLINE | RENDER_SIGNATURES))
        l.ro.dwarf = dwarf_src_open(l.elf); /* read lazily; NULL (no memory): names only */
    rc = 1;
    if (l.save_path && !(l.save = fopen(l.save_path, "wb"))) {
        snprintf(l.err, sizeof l.err, "%s: %s", l.save_path, strerror(errno));
        l.failed = 1;
        goto out;
    }
    /* Before the view: what finding the source says (--gdb may look for a while) stays on
     * the screen. */
    if (open_source(&l, kind) < 0)
        goto out;
    if (!l.plain && !(l.view = view_open(why, sizeof why))) {
        cmd_error("live: %s", why);
        goto out;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll returns, the loop ends cleanly */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    run(&l, duration);
    if (l.rtt)
        finish_rtt(&l);
    if (l.follow_path && !l.src && !l.failed) {
        snprintf(l.err, sizeof l.err, "%s: no cygtrace buffer came (%s)", l.source,
                 strstr(l.link_error, ": ") ? strstr(l.link_error, ": ") + 2 : l.link_error);
        l.failed = 1;
    }
    rc = 0;
out:
    if (l.view)
        view_close(l.view);
    if (l.plain && !l.failed && !l.out_failed && rc == 0)
        plain_finish(&l);
    else if (rc == 0)
        rtt_notes(&l, stderr, "cygtrace: note: ");
    if (l.failed) {
        cmd_error("%s", l.err);
        rc = 1;
    } else if (rc == 0 && l.link_error[0] && !l.connected && !l.ended_ok) {
        cmd_error("%s: %s", l.source, l.link_error);
        rc = 1;
    }
    if (l.save)
        fclose(l.save);
    for (unsigned i = 0; i < l.nctx; i++) {
        pipeline_chain_close(&l.ctx[i].ch);
        render_free(l.ctx[i].render);
    }
    free(l.ctx);
    oaindex_free(&l.ctx_ix);
    if (l.src)
        source_close(l.src); /* the link, and the poller with it: the target is halted, or lost */
    else
        rtt_poller_free(l.rtt);
    if (l.rsp)
        cmd_gdb_close(l.rsp); /* the detach resumes the target */
    dwarf_src_close(l.ro.dwarf);
    sym_close(l.sym);
    names_free(l.names);
    return rc;
}
