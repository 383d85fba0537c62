/* SPDX-License-Identifier: GPL-3.0-or-later */
/* seedgen.c - the fuzz targets' seed corpus, made at build time from the real producers:
 * rings recorded by the real Linux runtime (its hooks called directly on a small buffer) and
 * by tests/ringgen.c (32-bit firmware rings, which a Linux host cannot record), the stream the
 * runtime's real drain sends for them, and GDB server replies: the vectors of
 * tests/check_rsp.c and the sessions tests/fake_gdb.c plays, framed by rspcodec_frame.
 *
 *   seedgen OUTDIR   writes OUTDIR/dump/, OUTDIR/stream/, OUTDIR/rsp/ (the directories must
 *                    exist); each file starts with the target's mode and option bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cobs.h"
#include "cyg_format.h"
#include "cyg_stream.h"
#include "cygtrace.h"
#include "ringgen.h"
#include "source/rspcodec.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#define RECS 64u /* small rings: the seeds stay small, and overwrite mode wraps */
#define WIRE_MAX (1u << 16)

static const char *outdir;
static unsigned nfiles;
static uint64_t ring[(CYG_HDR_BYTES + RECS * 32u + CYG_CTRL_BYTES) / 8];
static uint8_t wire[WIRE_MAX];
static size_t wire_len;

static void save(const char *target, const char *name, const uint8_t *pre, size_t npre,
                 const void *p, size_t n)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s/%s", outdir, target, name);
    if (!(f = fopen(path, "wb")) || fwrite(pre, 1, npre, f) != npre ||
        fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "seedgen: %s: cannot write\n", path);
        exit(1);
    }
    nfiles++;
}

static size_t take(void *arg, const void *buf, size_t len)
{
    (void)arg;
    if (len > WIRE_MAX - wire_len)
        len = WIRE_MAX - wire_len;
    memcpy(wire + wire_len, buf, len);
    wire_len += len;
    return len;
}

/* Nested calls, a repeated leaf, a mark, a context switch, calls left open, a fault. */
static void record(unsigned calls, int fault)
{
    void *site = (void *)0x401234;

    for (unsigned i = 0; i < calls; i++) {
        __cyg_profile_func_enter((void *)(uintptr_t)(0x401000 + 0x40 * (i % 5)), site);
        __cyg_profile_func_enter((void *)0x402000, (void *)0x401010);
        __cyg_profile_func_exit((void *)0x402000, (void *)0x401010);
        if (i % 3 == 0)
            __cyg_profile_func_exit((void *)(uintptr_t)(0x401000 + 0x40 * (i % 5)), site);
    }
    cygtrace_mark(7, 0xbeef);
    cygtrace_context(2, 0x1234);
    /* What an RTOS glue writes: names, a timed switch, a block, a wake, a resume. */
    cygtrace_name(0, 3, "consumer", 16);
    cygtrace_name(CYG_NAME_OBJECT | CYG_OBJ_QUEUE << CYG_NAME_OBJ_SHIFT, 0x5000, "jobs", 16);
    cygtrace_sched(CYG_SCHED_BLOCK, CYG_OBJ_QUEUE << CYG_SCHED_OBJ_SHIFT, 0x5000);
    cygtrace_switch(3, 0x2000);
    cygtrace_sched(CYG_SCHED_WAKE, 2u << CYG_SCHED_ID_SHIFT, 0x1234);
    cygtrace_switch(2, 0x1234);
    cygtrace_sched(CYG_SCHED_RESUME, 3u << CYG_SCHED_ID_SHIFT, 0x2000);
    __cyg_profile_func_enter((void *)0x403000, site);
    if (fault)
        cygtrace_fault(CYG_FAULT_SIGNAL + 11, 0x403010, 0x403004);
}

/* The stream of the ring, split into its payloads: "u8 n, payload" as fuzz_stream's framed
 * mode takes them. */
static size_t payloads(uint8_t *out)
{
    uint8_t raw[CYG_FRAME_WIRE_MAX];
    size_t o = 0, start = 0;

    for (size_t i = 0; i < wire_len; i++) {
        long n;

        if (wire[i])
            continue;
        n = i > start ? cobs_decode(wire + start, i - start, raw) : -1;
        if (n > (long)CYG_FRAME_CRC_BYTES) {
            out[o++] = (uint8_t)(n - CYG_FRAME_CRC_BYTES);
            memcpy(out + o, raw, (size_t)n - CYG_FRAME_CRC_BYTES);
            o += (size_t)n - CYG_FRAME_CRC_BYTES;
        }
        start = i + 1;
    }
    return o;
}

static void runtime_seeds(void)
{
    static const unsigned modes[] = {0, CYG_F_OVERWRITE, CYG_F_CALLSITES,
                                     CYG_F_OVERWRITE | CYG_F_CALLSITES};
    static uint8_t framed[2 * WIRE_MAX];
    static const uint8_t id[20] = {0xde, 0xad, 0xbe, 0xef};

    for (unsigned m = 0; m < 4; m++) {
        for (unsigned calls = 3; calls <= 40; calls += 37) {
            unsigned rec = m & 2 ? 32 : 16;
            size_t bytes = CYG_HDR_BYTES + RECS * rec + CYG_CTRL_BYTES; /* the control area too */
            uint8_t pre[3] = {0, (uint8_t)(m * 17 + calls), (uint8_t)calls};
            char name[64];

            memset(ring, 0, sizeof ring);
            if (cygtrace_init(ring, bytes, modes[m]) != RECS) {
                fprintf(stderr, "seedgen: cygtrace_init refused a ring of %u records\n", RECS);
                exit(1);
            }
            cygtrace_set_build_id(id, sizeof id);
            cygtrace_start();
            wire_len = 0;
            cygtrace_drain_init(take, NULL);
            record(calls, calls > 3);
            cygtrace_drain_flush();
            cygtrace_stop();
            snprintf(name, sizeof name, "linux-%u-%u", m, calls);
            save("dump", name, pre, 2, ring, bytes);
            save("stream", name, pre, 3, wire, wire_len);
            pre[0] = 1;
            snprintf(name, sizeof name, "linux-%u-%u-framed", m, calls);
            save("stream", name, pre, 3, framed, payloads(framed));
        }
    }
}

/* 32- and 64-bit rings from ringgen; also in fuzz_dump's synthesised-header mode (mode 1:
 * ten field bytes, then the records). */
static void ringgen_seeds(void)
{
    for (unsigned v = 0; v < 6; v++) {
        struct ringgen g;
        unsigned word = v & 1 ? 8 : 4;
        unsigned flags = CYG_F_TIMESTAMPS | (v & 2 ? CYG_F_CALLSITES : 0) |
                         (v & 4 ? CYG_F_OVERWRITE : 0) | (word == 8 ? CYG_F_THREADS : 0);
        uint8_t pre[2] = {0, (uint8_t)(v * 37)};
        uint8_t synth[12] = {1, (uint8_t)(v * 37), (uint8_t)((word == 8) | flags << 1), 5, 0,
                             29, 1, 0, 0, 0, 0, 0};
        char name[64];

        rg_init(&g, word, 5, flags);
        /* version 3 (but one of version 2): the control area, triggers armed and fired, marks
         * of a class */
        if (v == 5)
            g.version = 2;
        rg_trigger(&g, 0, CYG_TRIG_FREEZE, 0x8000160, 4, CYG_TRIGF_FIRED);
        rg_trigger(&g, 1, CYG_TRIG_FREEZE_MARK, 7, 0, 0);
        rg_ctrl(&g)[CYG_CTRL_OFF_FIRED] = 1;
        rg_ctrl(&g)[CYG_CTRL_OFF_NFIRED] = 1;
        rg_ctrl(&g)[CYG_CTRL_OFF_NEXCL] = 1;
        rg_ctrl(&g)[CYG_CTRL_OFF_EVENTS] = 0x0f;
        for (unsigned i = 0; i < 20; i++) {
            rg_event(&g, 0, 0x8000100 + 0x20 * (i % 4), 10 * i, i % 2, 0x8000010);
            if (i % 9 == 3)
                rg_fired(&g, 0, CYG_TRIG_FREEZE, 0x8000160, i % 2);
            if (i % 6 == 2)
                rg_special(&g, CYG_SP_MARK, (i % 4) << CYG_MARK_CLASS_SHIFT | 7, i, i % 2);
            if (i % 7 == 3)
                rg_special(&g, CYG_SP_CONTEXT, 1 + i % 2, 0x20001000, 0);
            if (i % 5 == 4)
                rg_skip(&g);
            rg_event(&g, 1, 0x8000100 + 0x20 * (i % 4), 10 * i + 5, i % 2, 0x8000010);
        }
        rg_special(&g, CYG_SP_FAULT, CYG_FAULT_HARD, 0x8000104, 0);
        rg_special(&g, CYG_SP_FAULT_LR, CYG_FAULT_HARD, 0x8000011, 0);
        rg_seal(&g, 0, CYG_S_FROZEN);
        snprintf(name, sizeof name, "ringgen-%u", v);
        save("dump", name, pre, 2, g.buf, g.size);
        /* and through report and the other exports, behind the filters (fuzz_dump's mode
         * bits 2-7): each format, a time range, a minimum, only and hide */
        {
            static const uint8_t export_modes[6] = {0x04, 0x08, 0x18, 0x28, 0x44, 0x88};
            uint8_t xpre[2] = {export_modes[v], (uint8_t)(v * 37 + 0x12)};

            snprintf(name, sizeof name, "ringgen-%u-export", v);
            save("dump", name, xpre, 2, g.buf, g.size);
        }
        synth[7] = (uint8_t)g.head; /* head, low byte */
        synth[6] = (uint8_t)(1 | (v == 5 ? 1 : 2) << 2 | 0x40); /* running, the version, magic */
        synth[3] = 4; /* 2^5 records, as the ring's: the control area where the records end */
        snprintf(name, sizeof name, "ringgen-%u-synth", v);
        save("dump", name, synth, sizeof synth, g.buf + CYG_HDR_BYTES, g.size - CYG_HDR_BYTES);
        /* the same ring inside a RAM image: hdr_locate scans for it */
        {
            uint8_t *img = calloc(1, g.size + 256);

            if (!img)
                exit(1);
            memcpy(img + 256, g.buf, g.size);
            snprintf(name, sizeof name, "ringgen-%u-ram", v);
            save("dump", name, pre, 2, img, g.size + 256);
            free(img);
        }
        rg_free(&g);
    }
}

/* Replies as tests/check_rsp.c checks them (pure mode, byte 0 = 0). */
static const char *const rsp_vectors[] = {
    "$OK#9a", "$OK#9A", "$#00", "$0* #7a", "$OK9a", "$OK#9", "$a*#8b", "$0*~#d8",
    "$a}\x04#00", "E01", "E.text", "PacketSize=4000;QStartNoAckMode+;binary-upload+",
    "PacketSize=;qXfer:auxv:read+", "localhost:1234", "[::1]:3333", "/dev/ttyACM0:230400",
    "tcp::2331", "0011223344556677", "0001000000000000210000000000000000000000",
};

/* A session as tests/fake_gdb.c serves it: the handshake, then one reply per request of
 * fuzz_rsp's session, in order. */
static void session(const char *name, int ack, const char *supported, const char *mem)
{
    /* auxv: AT_SYSINFO_EHDR (0x21) = 0x1000, then AT_NULL; 'l' + 32 bytes */
    static const char auxv[33] = "l\x21\0\0\0\0\0\0\0\x00\x10";
    static const char *const rest[] = {"OK" /* monitor */, auxv, "Text=0;Data=0;Bss=0", "S05",
                                       "T05"};
    static char buf[1 << 14];
    uint8_t pre[2] = {1, 15}; /* read 1 + 15 * 16 bytes */
    size_t o = 0;
    long k;

    if (ack)
        buf[o++] = '+';
    k = rspcodec_frame(supported, strlen(supported), buf + o, sizeof buf - o);
    o += (size_t)k;
    if (strstr(supported, "QStartNoAckMode+")) {
        k = rspcodec_frame("OK", 2, buf + o, sizeof buf - o);
        o += (size_t)k;
    }
    k = rspcodec_frame("T05thread:01;", 13, buf + o, sizeof buf - o); /* '?' */
    o += (size_t)k;
    memcpy(buf + o, "$O68656c6c6f0a#", 15); /* console output before the reply */
    o += 15;
    o += (size_t)snprintf(buf + o, 3, "%02x", rspcodec_checksum("O68656c6c6f0a", 13));
    k = rspcodec_frame(mem, strlen(mem), buf + o, sizeof buf - o);
    o += (size_t)k;
    for (unsigned i = 0; i < sizeof rest / sizeof rest[0]; i++) {
        size_t n = i == 1 ? sizeof auxv : strlen(rest[i]);

        k = rspcodec_frame(rest[i], n, buf + o, sizeof buf - o);
        o += (size_t)k;
    }
    save("rsp", name, pre, 2, buf, o);
}

static void rsp_seeds(void)
{
    static char hex[2 * 241 + 1];
    char name[32];

    for (unsigned i = 0; i < sizeof rsp_vectors / sizeof rsp_vectors[0]; i++) {
        uint8_t pre[2] = {0, (uint8_t)(i * 29)};

        snprintf(name, sizeof name, "vector-%02u", i);
        save("rsp", name, pre, 2, rsp_vectors[i], strlen(rsp_vectors[i]));
    }
    for (unsigned i = 0; i < 241; i++)
        snprintf(hex + 2 * i, 3, "%02x", i * 7 & 0xff);
    session("session-hex-ack", 1, "PacketSize=4000", hex);
    session("session-hex-noack", 0, "PacketSize=400;QStartNoAckMode+;qXfer:auxv:read+", hex);
    session("session-binary", 0, "PacketSize=1000;QStartNoAckMode+;binary-upload+", "b0000*}");
    session("session-error", 1, "PacketSize=100", "E01");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: seedgen OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    runtime_seeds();
    ringgen_seeds();
    rsp_seeds();
    printf("seedgen: %u seeds in %s\n", nfiles, outdir);
    return 0;
}
