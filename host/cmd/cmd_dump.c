/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_dump.c - "cygtrace dump": the records of a trace one by one, as the decoder reads them,
 * for whoever debugs a trace (or the runtime): slot, sequence number, thread or context,
 * clock, kind, the raw address word and what it names. No tree, no repair. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "output/fmt.h"
#include "source/load.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace dump [ELF] [DUMP]\n");
}

/* What a record says, beyond its kind and address word. */
static void what(const struct load *l, const struct ev *e, char *buf, size_t len)
{
    uint64_t bias = l->ring.load_bias;
    struct fmt_namer nm = {l->sym, bias, l->ring.word_bytes == 4, {0}};
    char a[256], b[256];

    buf[0] = 0;
    switch (e->kind) {
    case EV_ENTER:
    case EV_EXIT:
    case EV_FAULT:
    case EV_FAULT_LR:
        fmt_addr(l->sym, bias, e->addr, a, sizeof a);
        if (e->site) {
            fmt_addr(l->sym, bias, e->site, b, sizeof b);
            snprintf(buf, len, "%s <- %s", a, b);
        } else if (e->kind == EV_FAULT || e->kind == EV_FAULT_LR) {
            snprintf(buf, len, "%s (kind %" PRIu32 ")", a, e->data);
        } else {
            snprintf(buf, len, "%s", a);
        }
        break;
    case EV_THREAD:
        snprintf(buf, len,
                 e->data == CYG_THREAD_VFORK ? "vfork child, pid %" PRIu64 : "tid %" PRIu64,
                 e->addr);
        break;
    case EV_CONTEXT:
        names_ctx_text(l->names, l->sym, bias, e->data, e->addr, a, sizeof a);
        snprintf(buf, len, "to %" PRIu32 " (%s)", e->data, a);
        break;
    case EV_MARK:
        fmt_mark(e, buf, len);
        break;
    case EV_TRIGGER:
        fmt_trigger(&nm, l->ring.ctrl_state == DEC_CTRL_OK ? &l->ring.ctrl : NULL, e, buf, len);
        break;
    case EV_SCHED:
        fmt_sched(l->names, l->sym, bias, e, buf, len);
        break;
    case EV_LOST:
        snprintf(buf, len, "%" PRIu64 " records lost", e->addr);
        break;
    case EV_UNKNOWN:
        snprintf(buf, len, "type %" PRIu32, e->data);
        break;
    case EV_SETJMP:
    case EV_LONGJMP:
        snprintf(buf, len, "buffer 0x%" PRIx64, e->addr);
        break;
    case EV_VALUE:
    case EV_NAME:
        snprintf(buf, len, "data 0x%" PRIx32, e->data);
        break;
    default:
        break;
    }
}

/* The slots between two records that hold none of their own: one # line. */
static void gap(uint64_t from, uint64_t to)
{
    if (to > from)
        printf("# %" PRIu64 " slot%s (sequence %" PRIu64 "..%" PRIu64 ") hold no record of "
               "their own: never written, not yet, or written over\n",
               to - from, to - from == 1 ? "" : "s", from, to - 1);
}

static int list(struct load *l, const char *dump)
{
    const struct dec_ring *r = &l->ring;
    int w = (int)r->word_bytes * 2, timed = !!(r->flags & CYG_F_TIMESTAMPS), rc;
    struct source_stats st;
    uint64_t next;
    struct ev e;
    char err[512], text[640];

    source_raw(l->source);
    source_stats(l->source, &st);
    next = l->stream ? 0 : st.dec.first_seq;
    printf("%8s %12s %7s %20s  %-8s  %-*s  %s\n", "SLOT", "SEQ", "CTX", "TIME", "KIND", w + 2,
           "ADDRESS", "WHAT");
    while ((rc = source_next(l->source, &e, err, sizeof err)) == 1) {
        char slot[24] = "-", t[24] = "-";

        names_feed(l->names, &e, r->word_bytes);
        if (!l->stream) {
            gap(next, e.seq);
            snprintf(slot, sizeof slot, "%" PRIu64, e.seq & (r->cap - 1));
        }
        next = e.seq + 1;
        if (timed)
            snprintf(t, sizeof t, "%" PRIu64, e.time);
        what(l, &e, text, sizeof text);
        printf("%8s %12" PRIu64 " %7" PRIu32 " %20s  %-8s  0x%0*" PRIx64 "%s%s\n", slot, e.seq,
               e.ctx, t, fmt_kind(e.kind), w, e.addr, text[0] ? "  " : "", text);
    }
    if (rc < 0) {
        if (!cmd_dump_changed(l)) /* a file cut short says so, not "read error" */
            cmd_error("%s", err[0] ? err : "read error");
        return 1;
    }
    if (cmd_dump_changed(l)) /* a shorter list must not end as if whole */
        return 1;
    source_stats(l->source, &st);
    if (!l->stream) {
        gap(next, st.dec.end_seq);
        if (st.dec.overwritten)
            printf("# %" PRIu64 " older records were written over (the ring wrapped)\n",
                   st.dec.overwritten);
        if (st.dec.truncated)
            printf("# %" PRIu64 " slots are missing: %s is shorter than its ring\n",
                   st.dec.truncated, dump);
    }
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, CMD_OPTS_HELP}, {0, 0, 0, 0}};
    const struct cmd_opts p = {.cmd = "dump", .table = opts, .usage = usage};
    struct cmd_inputs in;
    struct load l;
    int rc;

    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    /* as info: a trace that does not match its ELF is what one looks at records for */
    if ((rc = cmd_load_args(argc, argv, "dump", CMD_LOAD_FORCE | CMD_LOAD_NO_ELF, &in, &l)) != 0)
        return rc;
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    rc = list(&l, in.dump);
    return cmd_load_close(&l, rc);
}
