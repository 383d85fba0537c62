/* fuzz_dump.c - libFuzzer target: a ring dump (or a RAM image holding one, or a saved stream)
 * decoded and printed the way "cygtrace tree" does it, without an ELF: load_attach finds the
 * control block, one pass learns the contexts, one pass per context builds and renders its
 * tree (to /dev/null).
 *
 * Input byte 0 picks the mode, byte 1 the renderer's options:
 *   mode bit 0 clear: the rest is the dump as it is (seeded with real dumps, so the fuzzer
 *                     mutates records behind a header that checks);
 *   mode bit 0 set:   the next 10 bytes choose the control block's fields and the harness
 *                     writes a valid block (magic, CRC) in front of the rest, the records;
 *                     mode bit 1 puts 36 bytes of RAM before it (dec_locate's scan).
 * Random bytes die at the block's CRC; the second mode gets every input past it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "fuzzsink.h"
#include "load.h"

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
    uint8_t *b = calloc(1, at + CYG_HDR_BYTES + n);
    uint8_t *h;

    if (!b)
        return NULL;
    h = b + at;
    memcpy(h, CYG_MAGIC, 8);
    put_le(h + CYG_OFF_VERSION, CYG_VERSION, 2);
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
    if (p && fuzzsink_tree(&s, 0, (unsigned)-c->min_depth) == 0)
        while (load_pass_next(p, &e) > 0)
            if (e.ctx == c->id)
                tree_feed(s.t[0], &e);
    fuzzsink_close(&s);
    load_pass_close(p);
}

/* The decoder's own bookkeeping: every slot between first and end is decoded, unwritten or
 * truncated, exactly once. A miscount is a bug even when nothing crashes. */
static void check_stats(const struct load *l, const struct load_stats *st)
{
    const struct dec_stats *d = &st->dec;

    if (l->stream)
        return;
    if (d->decoded + d->unwritten + d->truncated != d->end_seq - d->first_seq)
        abort();
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
    load_close(&l);
    return 0;
}
