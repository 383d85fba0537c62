/* SPDX-License-Identifier: MIT */
/* rec4.c - what a ring's events cost in version 4 records (docs/FORMAT.md section 14), and
 * that they come back: reads a dump of today's records (version 1 to 3), writes its events as a
 * version 4 writer would (a call 4 bytes, a special 4 to 12, a TIME record each time the clock's
 * bits from T - 1 up move), decodes that ring through the host's reader and compares event for
 * event (kinds, functions, contexts, data, times). Prints one line of sizes and one of the
 * comparison; exits 1 when they differ.
 *   rec4 DUMP [F [OUT]]   F: the function field's width, default 17; OUT: where to save the
 *                         version 4 ring too */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "source/source.h"
#include "util/le.h"

struct out {
    uint32_t *w;
    size_t n, cap;
};

static void push(struct out *o, uint32_t w)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 1024;
        if (!(o->w = realloc(o->w, o->cap * 4))) {
            fprintf(stderr, "rec4: out of memory\n");
            exit(2);
        }
    }
    o->w[o->n++] = w;
}

static void special(struct out *o, unsigned type, uint32_t data, uint32_t payload)
{
    unsigned n = cyg4_special_words(data, payload);

    for (unsigned i = 0; i < n; i++) /* the lap bits are the decoding ring's: set later */
        push(o, cyg4_special_word(i, type, data, payload, 0, 28, n));
}

static unsigned sp_type(const struct ev *e, uint32_t *data)
{
    *data = e->data & 0xffffffu;
    switch (e->kind) {
    case EV_CONTEXT: return CYG_SP_CONTEXT;
    case EV_MARK: *data = (uint32_t)e->cls << 19 | (e->data & 0x7ffffu); return CYG_SP_MARK;
    case EV_FAULT: return CYG_SP_FAULT;
    case EV_FAULT_LR: return CYG_SP_FAULT_LR;
    case EV_START: return CYG_SP_START;
    case EV_STOP: return CYG_SP_STOP;
    case EV_VALUE: return CYG_SP_VALUE;
    case EV_TRIGGER: return CYG_SP_TRIGGER;
    case EV_SCHED: return CYG_SP_SCHED;
    case EV_NAME: return CYG_SP_NAME;
    case EV_SETJMP: return CYG_SP_SETJMP;
    case EV_LONGJMP: return CYG_SP_LONGJMP;
    default: return 0;
    }
}

int main(int argc, char **argv)
{
    unsigned f = argc > 2 ? (unsigned)atoi(argv[2]) : CYG4_FN_DEFAULT, t = 30 - f, k = 1;
    char err[512];
    struct src *s;
    struct dec_ring r;
    struct dec *d;
    struct ev e, *ev = NULL;
    size_t nev = 0, cev = 0, events = 0, calls = 0, times = 0, glue_times = 0, records = 0;
    struct out o = {0};
    uint64_t epoch = 0;
    int have = 0, bad = 0;
    size_t kinds[16] = {0}, kbytes[16] = {0};
    static const char *const kname[16] = {"?", "thread", "context", "mark", "fault", "fault_lr",
                                          "start", "stop", "pad", "value", "trigger", "time",
                                          "sched", "name", "setjmp", "longjmp"};

    if (argc < 2 || f < CYG4_FN_MIN || f > CYG4_FN_MAX) {
        fprintf(stderr, "usage: rec4 DUMP [F: %u..%u]\n", CYG4_FN_MIN, CYG4_FN_MAX);
        return 2;
    }
    if (!(s = src_open_file(argv[1], err, sizeof err)) || hdr_locate(s, &r, err, sizeof err) < 0 ||
        !(d = dec_open(s, &r))) {
        fprintf(stderr, "rec4: %s: %s\n", argv[1], err);
        return 2;
    }
    if (r.word_bytes != 4) {
        fprintf(stderr, "rec4: %s: a ring of %u-byte words; these records are for 32-bit "
                "targets\n", argv[1], r.word_bytes);
        return 2;
    }
    dec_raw(d);
    while (dec_next(d, &e) > 0) {
        uint32_t data;
        unsigned type;

        if (e.kind == EV_PAD || e.kind == EV_HOLE || e.kind == EV_LOST || e.kind == EV_UNKNOWN)
            continue;
        records++;
        if (e.kind == EV_TIME) { /* the RTOS glue's: one word within the epoch, else a TIME */
            uint64_t c = e.time;

            if (have && c >> (t - 1) == epoch) {
                special(&o, CYG4_SP_TIMELO, 0, (uint32_t)c & ((1u << t) - 1));
            } else {
                special(&o, CYG_SP_TIME, 0, (uint32_t)c);
                epoch = c >> (t - 1);
            }
            have = 1;
            glue_times++;
            continue;
        }
        if (nev == cev && !(ev = realloc(ev, (cev = cev ? cev * 2 : 1024) * sizeof *ev))) {
            fprintf(stderr, "rec4: out of memory\n");
            return 2;
        }
        ev[nev++] = e;
        events++;
        if (e.kind == EV_ENTER || e.kind == EV_EXIT) {
            uint64_t c = e.time;

            if ((r.flags & CYG_F_TIMESTAMPS) && (!have || c >> (t - 1) != epoch)) {
                special(&o, CYG_SP_TIME, 0, (uint32_t)c);
                epoch = c >> (t - 1);
                times++;
            }
            have = 1;
            push(&o, cyg4_call((uint32_t)e.addr | (e.kind == EV_EXIT), (uint32_t)c, 0, 28, f));
            calls++;
            continue;
        }
        if ((type = sp_type(&e, &data)) != 0) {
            size_t before = o.n;

            special(&o, type, data, (uint32_t)e.addr);
            kinds[type & 15]++;
            kbytes[type & 15] += (o.n - before) * 4;
        }
    }
    dec_close(d);
    src_close(s);
    if (!events) {
        fprintf(stderr, "rec4: %s: no events\n", argv[1]);
        return 2;
    }
    printf("%s: %zu events (%zu calls, %zu others), %zu TIME records of the RTOS glue\n"
           "  today: %zu records of %u bytes: %.2f bytes per event, %.0f events per KB\n"
           "  version 4 (F %u, T %u): %zu bytes (%zu TIME records added): %.2f bytes per event, "
           "%.0f events per KB, %.2fx\n",
           argv[1], events, calls, events - calls, glue_times, records, r.rec_bytes,
           (double)records * r.rec_bytes / events, 1024.0 * events / ((double)records * r.rec_bytes),
           f, t, o.n * 4, times, (double)o.n * 4 / events, 1024.0 * events / ((double)o.n * 4),
           (double)records * r.rec_bytes / ((double)o.n * 4));

    printf("  specials:");
    for (unsigned i = 0; i < 16; i++)
        if (kinds[i])
            printf(" %s %zu (%.1f bytes each)", kname[i], kinds[i], (double)kbytes[i] / kinds[i]);
    printf("\n");
    /* The words into a ring of their own (stop mode, big enough), read back. */
    while (((size_t)1 << k) < o.n + 1)
        k++;
    {
        size_t bytes = CYG_HDR_BYTES + ((size_t)4 << k);
        uint8_t *buf = calloc(1, bytes);
        struct source *x;
        size_t i = 0;
        uint64_t base_a = 0, base_e = 0;
        int based = 0;

        for (size_t j = 0; j < ((size_t)1 << k); j++)
            le_put(buf + CYG_HDR_BYTES + j * 4, j < o.n ? (o.w[j] & ~CYG4_L) | cyg4_lap(j, k)
                                                         : CYG4_FILL, 4);
        memcpy(buf, CYG_MAGIC, 8);
        le_put(buf + CYG_OFF_VERSION, CYG_VERSION4, 2);
        buf[CYG_OFF_WORD] = 4;
        buf[CYG_OFF_REC] = 4;
        buf[CYG_OFF_CAP_LOG2] = (uint8_t)k;
        buf[CYG_OFF_FLAGS] = (uint8_t)(r.flags & (CYG_F_TIMESTAMPS));
        le_put(buf + CYG_OFF_MACHINE, r.machine, 2);
        le_put(buf + CYG_OFF_HDR, CYG_HDR_BYTES, 4);
        buf[CYG_OFF_TS_BITS] = 32;
        buf[CYG_OFF_BUILD_ID_LEN] = (uint8_t)r.build_id_len;
        memcpy(buf + CYG_OFF_BUILD_ID, r.build_id, r.build_id_len);
        le_put(buf + CYG_OFF_TS_HZ, r.ts_hz, 8);
        le_put(buf + CYG_OFF_LOST, r.lost, 8);
        buf[CYG_OFF_RESETS] = (uint8_t)r.resets;
        buf[CYG_OFF_REC4] = (uint8_t)f;
        le_put(buf + CYG_OFF_TEXT_BASE, 0xffffffffu, 4);
        for (size_t j = 0; j < nev; j++) /* the lowest function's window */
            if ((ev[j].kind == EV_ENTER || ev[j].kind == EV_EXIT) &&
                (uint32_t)ev[j].addr < le_get(buf + CYG_OFF_TEXT_BASE, 4))
                le_put(buf + CYG_OFF_TEXT_BASE, (uint32_t)ev[j].addr & ~1u, 4);
        if (le_get(buf + CYG_OFF_TEXT_BASE, 4) == 0xffffffffu)
            le_put(buf + CYG_OFF_TEXT_BASE, 0, 4);
        le_put(buf + CYG_OFF_CHECK, crc32_update(0, buf, CYG_OFF_CHECK), 4);
        buf[CYG_OFF_STATE] = (uint8_t)r.state;
        le_put(buf + CYG_OFF_HEAD, o.n, 8);
        if (argc > 3) {
            FILE *fo = fopen(argv[3], "wb");

            if (!fo || fwrite(buf, 1, bytes, fo) != bytes || fclose(fo) != 0) {
                fprintf(stderr, "rec4: %s: cannot write it\n", argv[3]);
                return 2;
            }
        }
        if (!(x = source_open_src(src_open_mem("v4", buf, bytes, 1), err, sizeof err))) {
            fprintf(stderr, "rec4: the version 4 ring: %s\n", err);
            return 1;
        }
        while (source_next(x, &e, err, sizeof err) == 1) {
            const struct ev *a = i < nev ? &ev[i] : NULL;
            int call = e.kind == EV_ENTER || e.kind == EV_EXIT;

            if (a && call && !based) {
                base_a = a->time;
                base_e = e.time;
                based = 1;
            }
            if (!a || a->kind != e.kind || a->addr != e.addr || a->ctx != e.ctx ||
                (!call && (a->data != e.data || a->cls != e.cls)) ||
                (call && a->time - base_a != e.time - base_e)) {
                if (bad++ < 5)
                    fprintf(stderr, "rec4: event %zu differs: kind %u/%u addr %" PRIx64 "/%" PRIx64
                            "\n", i, a ? a->kind : 0, e.kind, a ? a->addr : 0, e.addr);
            }
            i++;
        }
        source_close(x);
        if (i != nev)
            bad++;
        printf("  read back: %zu of %zu events, %s\n", i, nev, bad ? "DIFFERENT" : "the same");
    }
    free(ev);
    free(o.w);
    return bad ? 1 : 0;
}
