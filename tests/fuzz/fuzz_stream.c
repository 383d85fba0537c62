/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_stream.c - libFuzzer target: a live stream as "cygtrace live" reads it. Link bytes go
 * to the deframer (sframe: 0x00 delimiters, COBS, CRC-32) in chunks of random size, each good
 * frame to the stream decoder (sdec), each event to a call tree per context rendered to
 * /dev/null.
 *
 * Input byte 0 picks the mode, byte 1 the renderer's options, byte 2 seeds the chunk sizes:
 *   mode bit 0 clear: the rest is the link's bytes as they are (noise, half frames, ...);
 *   mode bit 0 set:   the rest is payloads, each "u8 n, n bytes", which the harness frames as
 *                     the target's drain does (payload, CRC-32, COBS, 0x00). Random payloads
 *                     would die at the CRC; these all reach the decoder. The deframer must
 *                     then deliver every one of them: a frame lost is a bug (abort). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cobs.h"
#include "cyg_format.h"
#include "crc32.h"
#include "cyg_stream.h"
#include "fuzzsink.h"
#include "decode/sdec.h"
#include "decode/sframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
    struct sdec *dec;
    struct fuzzsink sink;
    int sink_ready;
};

static void on_ev(void *arg, const struct ev *e)
{
    struct run *r = arg;

    fuzzsink_feed(&r->sink, e);
}

static void on_frame(void *arg, const uint8_t *payload, size_t len)
{
    struct run *r = arg;
    const struct sdec_desc *d;

    sdec_frame(r->dec, payload, len);
    /* the renderer learns the clock from the first description, as cmd_live does */
    if (!r->sink_ready && (d = sdec_desc(r->dec))) {
        r->sink_ready = 1;
        r->sink.ro.ts_hz = d->ring.ts_hz;
        r->sink.ro.has_time = !!(d->ring.flags & CYG_F_TIMESTAMPS);
        r->sink.ro.addr_width = d->ring.word_bytes * 2;
    }
}

/* Frames "n, payload" records into wire; returns the frame count, or -1 out of memory. */
static long frame_all(const uint8_t *p, size_t n, uint8_t **wire, size_t *wlen)
{
    uint8_t raw[CYG_FRAME_RAW_MAX];
    uint8_t *w = malloc(n * 4 + 16); /* worst case: 2 input bytes, 7 on the wire */
    size_t o = 0;
    long frames = 0;

    if (!w)
        return -1;
    while (n) {
        size_t k = p[0] % (CYG_FRAME_PAYLOAD_MAX + 1);
        uint32_t crc;

        p++, n--;
        if (k > n)
            k = n;
        if (k == 0)
            continue; /* a frame carries one byte at least */
        memcpy(raw, p, k);
        crc = crc32_update(0, raw, k);
        for (unsigned i = 0; i < 4; i++)
            raw[k + i] = (uint8_t)(crc >> (8 * i));
        o += cobs_encode(raw, k + 4, w + o);
        w[o++] = 0;
        frames++;
        p += k;
        n -= k;
    }
    *wire = w;
    *wlen = o;
    return frames;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct run r = {0};
    struct sframe *fr = NULL;
    struct sframe_stats st;
    uint8_t *wire = NULL;
    const uint8_t *p;
    size_t n;
    long frames = -1;
    uint32_t rng;

    if (size < 3)
        return 0;
    rng = 0x9e3779b9u ^ data[2];
    fuzzsink_opts(&r.sink, data[1], 0, 0, 4);
    if (data[0] & 1) {
        if ((frames = frame_all(data + 3, size - 3, &wire, &n)) < 0)
            return 0;
        p = wire;
    } else {
        p = data + 3;
        n = size - 3;
    }
    if (!(r.dec = sdec_new(on_ev, &r)) || !(fr = sframe_new(on_frame, &r)))
        goto out;
    while (n) {
        size_t k;

        rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5; /* xorshift32 */
        k = 1 + rng % 300;
        if (k > n)
            k = n;
        sframe_feed(fr, p, k);
        p += k;
        n -= k;
    }
    sframe_get_stats(fr, &st);
    if (frames >= 0 && st.frames != (uint64_t)frames)
        abort(); /* a valid frame was dropped */
out:
    fuzzsink_close(&r.sink);
    sframe_free(fr);
    sdec_free(r.dec);
    free(wire);
    return 0;
}
