/* fuzz_dump.c - libFuzzer target: a ring dump (or a RAM image holding one, or a saved stream)
 * decoded the way "cygtrace tree", "report" and "export" do it, without an ELF: load_attach
 * finds the control block, one pass learns the contexts, one pass per context builds and
 * renders its tree (to /dev/null); then, as cmd_filter_run drives report and export, a scan
 * through the time range and one pass feeding every context's tree behind its filter into
 * the per-function statistics (whose table is formatted as report prints it) and into an
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
 *                     mode bit 1 puts 36 bytes of RAM before it (dec_locate's scan);
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
#include "model/filter.h"
#include "model/fnstat.h"
#include "model/taskstat.h"
#include "fuzzsink.h"
#include "source/load.h"

#define MAX_CTX 16u /* contexts rendered (cmd_show does all): each costs a pass and a renderer */
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

/* One context's tree, as cmd_show's render_ctx builds it. */
static void render_ctx(struct load *l, uint8_t opt, const struct dec_ctx *c)
{
    struct fuzzsink s;
    struct load_pass *p = load_pass_open(l);
    struct ev e;

    fuzzsink_opts(&s, opt, l->ring.ts_hz, !!(l->ring.flags & CYG_F_TIMESTAMPS),
                  l->ring.word_bytes);
    s.ro.ctrl = l->ring.ctrl_state == DEC_CTRL_OK ? &l->ring.ctrl : NULL; /* names triggers */
    if (p && fuzzsink_tree(&s, 0, (unsigned)-c->min_depth) == 0)
        while (load_pass_next(p, &e) > 0)
            if (e.ctx == c->id)
                tree_feed(s.t[0], &e);
    fuzzsink_close(&s);
    load_pass_close(p);
}

/* The decoder's own bookkeeping: every slot between first and end is decoded, unwritten,
 * padding, a TIME record (no event) or truncated, exactly once; holes are some of the
 * unwritten. A miscount is a bug even when nothing crashes. */
static void check_stats(const struct load *l, const struct load_stats *st)
{
    const struct dec_stats *d = &st->dec;

    if (l->stream)
        return;
    if (d->decoded + d->unwritten + d->truncated + d->padding + d->times !=
            d->end_seq - d->first_seq ||
        d->holes > d->unwritten)
        abort();
}

static FILE *null_out(void)
{
    static FILE *f;

    if (!f && !(f = fopen("/dev/null", "w")))
        abort(); /* the harness cannot run at all: not a finding */
    return f;
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
            render_duration(rows[i].total, hz, t, sizeof t);
            render_duration(rows[i].self, hz, t, sizeof t);
            render_duration(rows[i].calls ? rows[i].total / rows[i].calls : 0, hz, t, sizeof t);
            render_duration(rows[i].max, hz, t, sizeof t);
            render_addr(NULL, 0, rows[i].addr, name, sizeof name);
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
    char buf[128];

    if (!s)
        return;
    if (taskstat_run(l, *ft, s) == 0 && (v = taskstat_contexts(s, &n)))
        for (unsigned i = 0; i < n; i++)
            taskstat_name(l->names, NULL, 0, v[i].waker, buf, sizeof buf);
    taskstat_free(s);
}

/* report and export as cmd_filter_run drives them: a scan of the events in the time range
 * (each context's starting depth), then one pass feeding, per context, a tree behind a filter
 * into the statistics and another into the export. */
static void report_and_export(struct load *l, uint8_t mode, uint8_t opt)
{
    struct export_opts xo = {.format = (enum export_format)(((mode >> 2) & 3) % 3),
                             .hz = l->ring.ts_hz, .pid = 1, .ctx_word = "thread"};
    struct tree_scan sc = {0};
    struct filter_opts fo;
    struct filter_time ft;
    struct fnstat *fs = fnstat_new(NULL, 0);
    struct export *x = export_new(null_out(), &xo);
    struct {
        uint32_t id;
        struct tree *t[2];
        struct filter *f[2];
    } cr[MAX_CTX];
    struct load_pass *p;
    uint64_t first = 0;
    unsigned n = 0;
    struct ev e;

    memset(cr, 0, sizeof cr);
    if (!fs || !x || !(p = load_pass_open(l)))
        goto out;
    filters(mode, opt, 0, &fo, &ft);
    while (load_pass_next(p, &e) > 0) {
        if (!filter_time_keep(&ft, &e))
            continue;
        if (!first && e.kind == EV_ENTER)
            first = e.addr;
        if (tree_scan_add(&sc, &e) < 0)
            break;
    }
    load_pass_close(p);
    filters(mode, opt, first, &fo, &ft); /* the time range's origin found again, pass by pass */
    for (unsigned i = 0; i < sc.n && n < MAX_CTX; i++) {
        const struct tree_sink *sink[2];

        if (!sc.ctx[i].events)
            continue;
        cr[n].id = sc.ctx[i].id;
        sink[0] = fnstat_sink(fs, sc.ctx[i].id);
        sink[1] = export_sink(x, sc.ctx[i].id, sc.ctx[i].os_tid);
        for (unsigned k = 0; k < 2; k++) {
            if (!sink[k] || !(cr[n].f[k] = filter_new(sink[k], &fo)))
                goto out;
            cr[n].t[k] = tree_new(filter_active(&fo) ? filter_sink(cr[n].f[k]) : sink[k],
                                  (unsigned)-sc.ctx[i].min_depth, NULL, NULL);
            if (!cr[n].t[k])
                goto out;
        }
        n++;
    }
    if (!(p = load_pass_open(l)))
        goto out;
    while (load_pass_next(p, &e) > 0) {
        unsigned i;

        if (!filter_time_keep(&ft, &e))
            continue;
        for (i = 0; i < n && cr[i].id != e.ctx; i++)
            ;
        if (i < n && (tree_feed(cr[i].t[0], &e) < 0 || tree_feed(cr[i].t[1], &e) < 0))
            break;
    }
    load_pass_close(p);
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0; k < 2; k++)
            tree_finish(cr[i].t[k]);
    report_rows(fs, l->ring.ts_hz);
    tasks(l, &ft, x);
    export_end(x);
out:
    for (unsigned i = 0; i < MAX_CTX; i++)
        for (unsigned k = 0; k < 2; k++) {
            tree_free(cr[i].t[k]);
            filter_free(cr[i].f[k]);
        }
    export_free(x);
    fnstat_free(fs);
    tree_scan_free(&sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tree_scan sc = {0};
    struct load_stats st;
    struct load l;
    struct load_pass *p;
    struct src *src;
    struct ev e;
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
    if ((p = load_pass_open(&l))) {
        while (load_pass_next(p, &e) > 0)
            if (tree_scan_add(&sc, &e) < 0)
                break;
        load_pass_stats(p, &st);
        check_stats(&l, &st);
        load_pass_close(p);
    }
    for (unsigned i = 0; i < sc.n && i < MAX_CTX; i++)
        if (sc.ctx[i].events)
            render_ctx(&l, opt, &sc.ctx[i]);
    tree_scan_free(&sc);
    render_ctrl_notes(null_out(), "# control: ", &l.ring, NULL); /* the notes of every tree */
    report_and_export(&l, mode, opt);
    load_close(&l);
    return 0;
}
