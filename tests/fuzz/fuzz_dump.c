/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_dump.c - libFuzzer target: a ring dump (or a RAM image holding one, or a saved stream)
 * decoded through the pipeline (pipeline.h) as "cygtrace tree", "report" and "export" drive
 * it, without an ELF: load_attach finds the control block, the scan learns the contexts (its
 * statistics checked), a pass per context builds and renders its tree (to /dev/null); then a
 * scan through the time range and the passes feeding every context's tree behind its filter
 * into the per-function statistics (whose table is formatted as report prints it) and into an
 * export writer (to /dev/null).
 *
 * Input byte 0 picks the mode, byte 1 the options:
 *   mode bit 0 clear: the rest is the dump as it is (seeded with real dumps, so the fuzzer
 *                     mutates records behind a header that checks);
 *   mode bit 0 set:   the next 10 bytes choose the control block's fields and the harness
 *                     writes a valid block (magic, CRC) in front of the rest, the records
 *                     (and, version 3, the control area after them: its magic is stamped
 *                     where the records end when the input reaches there, so that the fuzzer
 *                     mutates the fields behind it);
 *                     mode bit 1 puts 36 bytes of RAM before it (hdr_locate's scan);
 *   mode bits 2-3:    the export format: chrome, folded, callgrind (3: callgrind too);
 *   mode bit 4:       a time range, from (opt & 15) << 4k to 4 << 4k ticks later, k = opt >> 4
 *                     (from a few ticks to far past the end);
 *   mode bit 5:       a minimum duration of 1 << (opt & 31) ticks;
 *   mode bit 6, 7:    only, hide: the first function entered.
 *   opt:              the renderer's options (fuzzsink_opts), and the filters' depth limit.
 * Random bytes die at the block's CRC; the second mode gets every input past it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "output/export.h"
#include "output/fmt.h"
#include "model/filter.h"
#include "model/fnstat.h"
#include "model/taskstat.h"
#include "fuzzsink.h"
#include "model/pipeline.h"
#include "source/load.h"

#define MAX_CTX 16u /* contexts rendered ("tree" does all): each costs a pass and a renderer */
#define SYNTH_FIELDS 10u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A RAM image: [pad] control block built from f[0..9], then the records. */
static uint8_t *synth(const uint8_t *f, const uint8_t *rec, size_t n, int pad, size_t *len)
{
    const size_t at = pad ? 36 : 0;
    unsigned word = f[0] & 1 ? 8 : 4, flags = (f[0] >> 1) & 0xf;
    unsigned ts_max = word == 4 ? CYG32_TS_BITS : CYG64_TS_BITS;
    unsigned version = CYG_VERSION_MIN + (f[4] >> 2 & 3) % (CYG_VERSION - CYG_VERSION_MIN + 1);
    uint8_t *b = calloc(1, at + CYG_HDR_BYTES + n);
    uint8_t *h;
    uint64_t ctrl;

    if (!b)
        return NULL;
    h = b + at;
    memcpy(h, CYG_MAGIC, 8);
    put_le(h + CYG_OFF_VERSION, version, 2);
    h[CYG_OFF_WORD] = (uint8_t)word;
    h[CYG_OFF_REC] = (uint8_t)(word * (flags & CYG_F_CALLSITES ? 4 : 2));
    /* the decoder's whole range: a ring of 2^40 records over a few bytes of dump is input too */
    h[CYG_OFF_CAP_LOG2] = (uint8_t)(1 + f[1] % (word == 4 ? 28 : 40));
    h[CYG_OFF_FLAGS] = (uint8_t)flags;
    put_le(h + CYG_OFF_MACHINE, f[0] & 0x20 ? 40 : 62, 2);
    put_le(h + CYG_OFF_HDR, CYG_HDR_BYTES, 4);
    h[CYG_OFF_BUILD_ID_LEN] = (uint8_t)(f[2] % (CYG_BUILD_ID_MAX + 1));
    h[CYG_OFF_TS_BITS] = (uint8_t)(1 + f[3] % ts_max);
    put_le(h + CYG_OFF_CTL_ADDR, 0x20000000u + at, 8);
    put_le(h + CYG_OFF_CHECK, crc32_update(0, h, CYG_OFF_CHECK), 4);
    h[CYG_OFF_STATE] = (uint8_t)(f[4] % 4);
    /* head: any 32 bits, so both "fewer than the ring holds" and "wrapped many times" */
    put_le(h + CYG_OFF_HEAD, (uint64_t)f[5] | (uint64_t)f[6] << 8 | (uint64_t)f[7] << 16 |
                                 (uint64_t)f[8] << 24, 8);
    put_le(h + CYG_OFF_LOST, f[9], 8);
    put_le(h + CYG_OFF_TS_HZ, f[9] & 1 ? 1000000 : 0, 8);
    memcpy(h + CYG_HDR_BYTES, rec, n);
    ctrl = ((uint64_t)h[CYG_OFF_REC] << h[CYG_OFF_CAP_LOG2]);
    if (version >= 3 && ctrl + 4 <= n && (f[4] & 0x40))
        put_le(h + CYG_HDR_BYTES + ctrl + CYG_CTRL_OFF_MAGIC, CYG_CTRL_MAGIC, 4);
    *len = at + CYG_HDR_BYTES + n;
    return b;
}

/* One context's tree, as "cygtrace tree" prints it: a pass of its own into a renderer. */
static void render_ctx(struct load *l, uint8_t opt, const struct tree_scan *sc,
                       const struct dec_ctx *c, const struct filter_opts *fo)
{
    struct pipeline_tally t = {0, 0, 0};
    struct render *r;
    struct fuzzsink s;

    fuzzsink_opts(&s, opt, l->ring.ts_hz, !!(l->ring.flags & CYG_F_TIMESTAMPS),
                  l->ring.word_bytes);
    s.ro.ctrl = l->ring.ctrl_state == DEC_CTRL_OK ? &l->ring.ctrl : NULL; /* names triggers */
    if (!(r = render_new(fuzzsink_null(), &s.ro, NULL, 0)))
        return;
    render_header(r);
    pipeline_ctx(l, sc, c, render_sink(r), fo, (struct filter_time){0}, &t);
    render_free(r);
}

/* The decoder's own bookkeeping: every slot between first and end is decoded, unwritten,
 * padding, a TIME record (no event) or truncated, exactly once; holes are some of the
 * unwritten. A miscount is a bug even when nothing crashes. */
static void check_stats(const struct load *l, const struct source_stats *st)
{
    const struct dec_stats *d = &st->dec;

    if (l->stream)
        return;
    if (d->decoded + d->unwritten + d->truncated + d->padding + d->times !=
            d->end_seq - d->first_seq ||
        d->holes > d->unwritten)
        abort();
}

/* The filters the mode and option bytes ask for; only and hide both name first, the first
 * function entered. */
static void filters(uint8_t mode, uint8_t opt, uint64_t first, struct filter_opts *fo,
                    struct filter_time *ft)
{
    unsigned k = (opt >> 4) * 4u;

    memset(fo, 0, sizeof *fo);
    memset(ft, 0, sizeof *ft);
    fo->max_depth = (opt >> 2) & 1 ? 3 : 0;
    if (mode & 0x10) {
        ft->on = ft->have_from = ft->have_to = 1;
        ft->from = (uint64_t)(opt & 15) << k;
        ft->to = ft->from + ((uint64_t)4 << k);
    }
    if (mode & 0x20)
        fo->min = (uint64_t)1 << (opt & 31);
    fo->have_only = !!(mode & 0x40);
    fo->only = first;
    fo->have_hide = !!(mode & 0x80);
    fo->hide = first;
}

/* report's table: every key, every number formatted as it prints them. */
static void report_rows(struct fnstat *s, uint64_t hz)
{
    for (int key = 0; key < FNSTAT_KEYS; key++) {
        const struct fnstat_row *rows;
        size_t n;
        char t[32], name[64];

        rows = fnstat_rows(s, (enum fnstat_key)key, &n);
        for (size_t i = 0; rows && i < n; i++) {
            fmt_duration(rows[i].total, hz, t, sizeof t);
            fmt_duration(rows[i].self, hz, t, sizeof t);
            fmt_duration(rows[i].calls ? rows[i].total / rows[i].calls : 0, hz, t, sizeof t);
            fmt_duration(rows[i].max, hz, t, sizeof t);
            fmt_addr(NULL, 0, rows[i].addr, name, sizeof name);
        }
    }
}

/* report's per-context section and the export's schedule, as cmd_report and cmd_export drive
 * them: one pass into the accounting, every interval into the export, the rows and their names
 * formatted. */
static void tasks(struct load *l, const struct filter_time *ft, struct export *x)
{
    struct taskstat *s = taskstat_new(export_taskstat_span, x);
    const struct taskstat_ctx *v;
    unsigned n;
    char buf[128], err[256];

    if (!s)
        return;
    if (taskstat_run(l, *ft, s, err, sizeof err) == 0 && (v = taskstat_contexts(s, &n)))
        for (unsigned i = 0; i < n; i++)
            names_ctx_text(l->names, NULL, 0, v[i].waker, 0, buf, sizeof buf);
    taskstat_free(s);
}

static const struct tree_sink *fnstat_of(void *arg, const struct dec_ctx *c)
{
    return fnstat_sink(arg, c->id);
}

static const struct tree_sink *export_of(void *arg, const struct dec_ctx *c)
{
    return export_sink(arg, c->id, c->os_tid, c->vfork);
}

/* The first function entered: what --only and --hide name. */
static uint64_t first_entered(struct load *l)
{
    struct ev e = {0};

    if (source_rewind(l->source) < 0)
        return 0;
    while (source_next(l->source, &e, NULL, 0) > 0 && e.kind != EV_ENTER)
        ;
    return e.kind == EV_ENTER ? e.addr : 0;
}

/* report and export as cmd_filter_run drives them: a scan of the events in the time range
 * (each context's starting depth), then the pipeline's passes feeding, per context, a tree
 * behind a filter into the statistics, and another into the export. */
static void report_and_export(struct load *l, uint8_t mode, uint8_t opt)
{
    struct export_opts xo = {.format = (enum export_format)(((mode >> 2) & 3) % 3),
                             .hz = l->ring.ts_hz, .pid = 1, .word_bytes = 8};
    struct pipeline_tally t = {0, 0, 0};
    struct tree_scan sc = {0};
    struct source_stats st;
    struct filter_opts fo;
    struct filter_time ft;
    struct fnstat *fs = fnstat_new(NULL, 0);
    struct export *x = export_new(fuzzsink_null(), &xo);
    unsigned checked = 0, known = 0;
    char err[256];

    filters(mode, opt, first_entered(l), &fo, &ft);
    if (fs && x && pipeline_scan(l, ft, &sc, &st, &checked, &known) == 0 &&
        pipeline_run(l, &sc, &fo, ft, NULL, fnstat_of, fs, &t, err, sizeof err) >= 0 &&
        pipeline_run(l, &sc, &fo, ft, NULL, export_of, x, &t, err, sizeof err) >= 0) {
        report_rows(fs, l->ring.ts_hz);
        tasks(l, &ft, x);
        export_end(x, err, sizeof err);
    }
    export_free(x);
    fnstat_free(fs);
    tree_scan_free(&sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tree_scan sc = {.want_index = 1};
    static const struct filter_opts none;
    struct source_stats st;
    struct load l;
    struct src *src;
    unsigned checked = 0, known = 0;
    uint8_t *buf;
    size_t len;
    char err[512];
    uint8_t mode, opt;

    if (size < 2)
        return 0;
    mode = data[0];
    opt = data[1];
    data += 2;
    size -= 2;
    if (mode & 1) {
        if (size < SYNTH_FIELDS)
            return 0;
        buf = synth(data, data + SYNTH_FIELDS, size - SYNTH_FIELDS, mode & 2, &len);
    } else {
        len = size;
        buf = malloc(len ? len : 1);
        if (buf)
            memcpy(buf, data, len);
    }
    if (!buf)
        return 0;
    /* The name has no ".maps" beside it: load_attach looks for one and finds none. */
    src = src_open_mem("fuzz-dump-input", buf, len, 1);
    if (!src) {
        free(buf);
        return 0;
    }
    if (load_attach(&l, NULL, src, 0, err, sizeof err) < 0)
        return 0; /* refused with a reason: what bad input should get */
    if (pipeline_scan(&l, (struct filter_time){0}, &sc, &st, &checked, &known) == 0)
        check_stats(&l, &st);
    for (unsigned i = 0; i < sc.n && i < MAX_CTX; i++)
        if (sc.ctx[i].events)
            render_ctx(&l, opt, &sc, &sc.ctx[i], &none);
    tree_scan_free(&sc);
    fmt_ctrl_notes(fuzzsink_null(), "# control: ", &l.ring, NULL); /* the notes of every tree */
    report_and_export(&l, mode, opt);
    load_close(&l);
    return 0;
}
