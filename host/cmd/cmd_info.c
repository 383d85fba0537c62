/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_info.c - "cygtrace info": what a dump's control block says, and what its records hold. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "source/load.h"
#include "output/fmt.h"
#include "model/tree.h"
#include "symbols/wsig.h"

static const char *state_name(unsigned s)
{
    static const char *const names[] = {"stopped", "recording", "frozen", "full (stopped)"};

    return s < 4 ? names[s] : "?";
}

/* The hooks' cost the trace says (FORMAT.md 2.8), which the durations shown are corrected
 * for; nothing when it says none. */
static void print_hooks(const struct dec_ring *r)
{
    double ticks = (r->hook_cost & CYG_HOOK_COST_MASK) / 256.0;

    if (!(r->hook_cost & CYG_HOOK_COST_MASK))
        return;
    if (r->ts_hz)
        printf("hooks:      %.1f ns an event", ticks * 1e9 / (double)r->ts_hz);
    else
        printf("hooks:      %.2f ticks an event", ticks);
    printf(" (%s)", r->hook_cost & CYG_HOOK_COST_GIVEN ? "given at build time" : "measured");
    if (r->page_cost && r->page_log2 && r->ts_hz)
        printf(", %.1f us more for a record that faults a new %u KiB page in",
               r->page_cost * 1e6 / (double)r->ts_hz, (1u << r->page_log2) / 1024u);
    printf("\n");
}

/* What a ring and a stream both say. */
static void print_common(const struct load *l)
{
    const struct dec_ring *r = &l->ring;
    const uint8_t *id;
    char hex[80];

    printf("lost:       %" PRIu64 "\n", r->lost);
    if (r->ts_hz)
        printf("clock:      %" PRIu64 " Hz", r->ts_hz);
    else
        printf("clock:      %s", (r->flags & CYG_F_TIMESTAMPS) ? "rate unknown" : "none");
    if ((r->flags & CYG_F_TS_DOWN) && r->machine == 40)
        printf(", SysTick (the cycle counter did not count at boot)");
    else if (r->flags & CYG_F_TS_DOWN)
        printf(", counting down, %u bits", r->ts_bits);
    printf("\n");
    print_hooks(r);
    load_hex(r->build_id, r->build_id_len, hex, sizeof hex);
    printf("build-id:   %s", r->build_id_len ? hex : "(none recorded)");
    if (l->sym && !l->machine_match)
        printf(" (DOES NOT MATCH the ELF: it is %s (%u-bit), the dump %s (%u-bit))",
               dec_machine_name(sym_machine(l->sym)), sym_word_bytes(l->sym) * 8,
               dec_machine_name(r->machine), r->word_bytes * 8);
    else if (l->sym)
        printf(" (%s)", l->id_match > 0    ? "matches the ELF"
                        : l->id_match == 0 ? "DOES NOT MATCH the ELF"
                        : r->build_id_len  ? "cannot check: the ELF has none"
                        : sym_build_id(l->sym, &id) ? "cannot check: the dump has none"
                                                    : "cannot check: neither has one");
    printf("\n");
    if (r->pid)
        printf("process:    %" PRIu32 "\n", r->pid);
    if (r->load_bias)
        printf("load bias:  0x%" PRIx64 "\n", r->load_bias);
    if (r->resets)
        printf("resets:     %u warm resets survived\n", r->resets);
    if (wsig_count(sym_wsig(l->sym)) || wsig_bad_lines(sym_wsig(l->sym))) {
        printf("wrappers:   %u functions described (cygtrace wrap)",
               wsig_count(sym_wsig(l->sym)));
        if (wsig_bad_lines(sym_wsig(l->sym)))
            printf(", %u malformed lines of the ELF's %s skipped",
                   wsig_bad_lines(sym_wsig(l->sym)), WSIG_SECTION);
        printf("\n");
    }
}

/* What DUMP.maps says: how this process came to be, its objects, the other processes' rings. */
static void print_map(const struct modmap *m)
{
    const struct modmap_process *p = modmap_process(m);

    if (!strcmp(p->how, "start"))
        printf("run:        first process of the run\n");
    else if (!strcmp(p->how, "fork"))
        printf("run:        forked from process %" PRIu32 ", which records into %s\n", p->ppid,
               p->ring);
    else if (!strcmp(p->how, "exec"))
        printf("run:        a program exec'ed by process %" PRIu32 " (before the exec: %s)\n",
               p->pid, p->ring);
    for (size_t i = 0; i < modmap_count(m); i++) {
        const struct modmap_object *o = modmap_object(m, i);

        printf("%s 0x%" PRIx64 "-0x%" PRIx64 " %s\n", i ? "object:    " : "program:   ", o->start,
               o->end, o->path);
    }
    for (size_t i = 0; i < modmap_children(m); i++) {
        const struct modmap_process *c = modmap_child(m, i);

        printf("also:       process %" PRIu32 " (%s, parent %" PRIu32 ") records into %s\n",
               c->pid, c->how, c->ppid, c->ring);
    }
}

/* A version 3 ring's control area: the triggers and filters in force, which one fired. */
static void print_control(const struct load *l)
{
    const struct dec_ring *r = &l->ring;

    if (r->ctrl_state == DEC_CTRL_SHORT)
        printf("control:    missing (the dump ends at byte %" PRIu64 ")\n", r->ctrl_end);
    else if (r->ctrl_state == DEC_CTRL_BAD)
        printf("control:    unreadable (%s)\n", r->ctrl_why);
    else if (r->ctrl_state == DEC_CTRL_OK && !fmt_ctrl_notes(stdout, "control:    ", r, l->sym))
        printf("control:    none armed\n");
}

static void print_ring(const struct load *l, const char *dump)
{
    const struct dec_ring *r = &l->ring;
    unsigned rec_bytes;

    printf("%-12s%s", l->stream ? "stream:" : "dump:", dump);
    if (l->stream) {
        printf(" (a saved live stream: what its first description says)\n");
        printf("format:     %s, %u-bit%s%s\n", dec_machine_name(r->machine), r->word_bytes * 8,
               (r->flags & CYG_F_TIMESTAMPS) ? ", timestamps" : "",
               (r->flags & CYG_F_CALLSITES) ? ", call sites" : "");
        printf("ring:       %" PRIu64 " records on the target\n", r->cap);
        printf("state:      %s\n", state_name(r->state));
        print_common(l);
        return;
    }
    if (r->off)
        printf(" (control block at offset 0x%" PRIx64 ")", r->off);
    /* a version 4 ring: its own record size, not its rewriting's (32-bit) or view's (64-bit) */
    rec_bytes = r->stored_rec ? r->stored_rec : r->expanded ? r->expanded : r->rec_bytes;
    printf("\nformat:     version %u, %s, %u-byte records%s%s", r->stored_rec ? 4u : r->version,
           dec_machine_name(r->machine), rec_bytes,
           (r->flags & CYG_F_TIMESTAMPS) ? ", timestamps" : "",
           (r->flags & CYG_F_CALLSITES) ? ", call sites" : "");
    if (r->chunk_log2)
        printf(", chunks of %u", 1u << r->chunk_log2);
    if (r->expanded)
        printf(", function field %u bits", r->rec4 & CYG4_FN_MASK);
    printf("\n");
    printf("capacity:   %" PRIu64 " records (%" PRIu64 " bytes)\n", r->cap, r->cap * rec_bytes);
    printf("mode:       %s\n", (r->flags & CYG_F_OVERWRITE) ? "overwrite (flight recorder)"
                                                            : "stop when full");
    printf("state:      %s\n", state_name(r->state));
    /* In stop mode head also counts the reservations refused once full: they are lost. */
    printf("written:    %" PRIu64 " %s\n",
           (r->flags & CYG_F_OVERWRITE) || r->head < r->cap ? r->head : r->cap,
           r->chunk_log2 ? "slots reserved (records and the unused ends of chunks)" : "records");
    printf("lapped:     %s\n", (r->flags & CYG_F_OVERWRITE) && r->head > r->cap ? "yes" : "no");
    print_common(l);
    print_control(l);
}

/* A named kernel object: "object:     queue "jobs" at 0x20001234". */
static void print_obj(void *arg, uint64_t handle, unsigned objtype, const char *name)
{
    static const char *const types[] = {
        "object", "queue",  "semaphore", "mutex",   "event group", "stream buffer",
        "object", "object", "object",    "object",  "k_sem",       "k_mutex",
        "k_queue", "k_msgq", "k_stack",  "k_pipe"};

    (void)arg;
    printf("object:     %s \"%s\" at 0x%" PRIx64 "\n",
           objtype < sizeof types / sizeof *types ? types[objtype] : "object", name, handle);
}

static int print_records(struct load *l)
{
    struct tree_scan sc = {0};
    struct source_stats ls;
    const struct dec_stats *st = &ls.dec;
    struct ev e;
    uint64_t t_first = 0, t_last = 0;
    const char *stood;
    char span[32];
    int rc;

    if (source_rewind(l->source) < 0)
        return -1;
    while ((rc = source_next(l->source, &e, NULL, 0)) > 0) {
        names_feed(l->names, &e, l->ring.word_bytes);
        if (tree_scan_add(&sc, &e) < 0) {
            rc = -1;
            break;
        }
        if (e.kind == EV_ENTER || e.kind == EV_EXIT) {
            t_first = t_first ? t_first : e.time;
            t_last = e.time;
        }
    }
    source_stats(l->source, &ls);
    if (rc == 0 && l->stream) {
        printf("received:   %" PRIu64 " frames, %" PRIu64 " bytes, %" PRIu64 " events\n",
               ls.fr.frames, ls.fr.bytes, ls.sd.events);
        cmd_stream_notes(stdout, "            ", &ls.fr, &ls.sd);
        if (ls.sd.host) /* counted in the frames and bytes above */
            printf("host times: %" PRIu64 " frames (live --save's: the host's clock when the "
                   "frames before each arrived, for a merged export)\n", ls.sd.host);
        printf("bytes/event: %.2f\n", ls.sd.events ? (double)ls.fr.bytes / ls.sd.events : 0.0);
    } else if (rc == 0) {
        printf("held:       %" PRIu64 " records (sequence %" PRIu64 "..%" PRIu64 ")\n",
               st->decoded, st->first_seq, st->end_seq);
        printf("overwritten: %" PRIu64 "\n", st->overwritten);
        printf("unwritten:  %" PRIu64 " slots reserved but never written", st->unwritten);
        if (st->unwritten && l->ring.chunk_log2)
            printf(": %" PRIu64 " in the middle of a chunk (a writer died or was late), the rest "
                   "at the ends of chunks of threads still running", st->holes);
        printf("\n");
        if (st->padding && l->ring.expanded)
            printf("padding:    %" PRIu64 " more words of specials\n", st->padding);
        else if (st->padding)
            printf("padding:    %" PRIu64 " slots of chunks that their threads left\n",
                   st->padding);
        if (st->truncated)
            printf("truncated:  %" PRIu64 " records missing from the dump\n", st->truncated);
    }
    stood = rc == 0 ? cmd_clock_stood(l, &ls) : NULL;
    if (stood) {
        printf("span:       none: %s\n", stood);
    } else if (rc == 0 && (l->ring.flags & CYG_F_TIMESTAMPS) && t_last > t_first) {
        fmt_duration(t_last - t_first, l->ring.ts_hz, span, sizeof span);
        printf("span:       %s from the first call to the last\n", span);
    }
    pipeline_scan_threads(l, &sc);
    for (unsigned i = 0; rc == 0 && i < sc.n; i++) {
        char nb[256];
        const char *name = names_ctx_called(l->names, l->sym, l->ring.load_bias, sc.ctx[i].id, 0,
                                           nb, sizeof nb);

        printf("%s %-5u %" PRIu64 " events", l->ring.word_bytes == 8 ? "thread " : "context",
               sc.ctx[i].id, sc.ctx[i].events);
        if (sc.ctx[i].os_tid)
            printf(sc.ctx[i].vfork ? ", vfork child pid %" PRIu64 : ", tid %" PRIu64,
                   sc.ctx[i].os_tid);
        if (name)
            printf(", \"%s\"", name);
        printf("\n");
    }
    if (rc == 0)
        names_each_obj(l->names, print_obj, NULL);
    tree_scan_free(&sc);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace info [ELF] [DUMP]\n");
}

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, CMD_OPTS_HELP}, {0, 0, 0, 0}};
    const struct cmd_opts p = {.cmd = "info", .table = opts, .usage = usage};
    const char *dump;
    struct cmd_inputs in;
    struct load l;
    int rc;

    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    /* info shows a mismatch rather than refusing: it is how one finds out. */
    if ((rc = cmd_load_args(argc, argv, "info", CMD_LOAD_FORCE | CMD_LOAD_NO_ELF, &in, &l)) != 0)
        return rc;
    dump = in.dump;
    print_ring(&l, dump);
    if (l.map)
        print_map(l.map);
    rc = print_records(&l);
    if (rc < 0 && !cmd_dump_changed(&l))
        cmd_error("%s: read error", dump);
    return cmd_load_close(&l, rc < 0);
}
