/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hdr.c - a ring's control block: parsed, checked, located. */
#include "decode/hdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_v4l.h"
#include "decode/dec4l.h"
#include "decode/dec4m.h"
#include "cyg_format.h"
#include "util/le.h"

int hdr_check(const struct dec_ring *r, char *err, size_t errlen)
{
    const char *why = NULL;

    if (dec4m_ring(r))
        why = dec4m_check(r);
    else if (r->word_bytes != 4 && r->word_bytes != 8)
        why = "word size is neither 4 nor 8";
    else if (r->rec_bytes != r->word_bytes * ((r->flags & CYG_F_CALLSITES) ? 4u : 2u))
        why = "record size does not fit the word size and flags";
    else if (r->cap_log2 < 1 || r->cap_log2 > (r->word_bytes == 4 ? 28u : 40u))
        why = "capacity out of range";
    else if (r->chunk_log2 > r->cap_log2 || r->ts_bits < 1 ||
             r->ts_bits > (r->word_bytes == 4 ? CYG32_TS_BITS : CYG64_TS_BITS) ||
             r->build_id_len > CYG_BUILD_ID_MAX || r->state > CYG_S_FULL)
        why = "inconsistent fields";
    if (!why)
        return 0;
    snprintf(err, errlen, "control block: %s", why);
    return -1;
}

/* The version, first: a block of another version may lay its fields out otherwise. */
static int parse_version(const uint8_t *p, size_t len, char *err, size_t errlen)
{
    unsigned version;

    if (len < CYG_HDR_BYTES) {
        snprintf(err, errlen, "%s", len ? "too short for a control block (128 bytes)"
                                        : "empty file");
        return -1;
    }
    if (memcmp(p, CYG_MAGIC, 8)) {
        snprintf(err, errlen, "not a cygtrace dump (no CYGTRACE control block)");
        return -1;
    }
    if (crc32_update(0, p, CYG_OFF_CHECK) != (uint32_t)le_get(p + CYG_OFF_CHECK, 4)) {
        snprintf(err, errlen, "control block checksum mismatch (corrupted header)");
        return -1;
    }
    version = (unsigned)le_get(p + CYG_OFF_VERSION, 2);
    if (dec4l_is(p, len) && p[CYG_OFF_REC] == CYG_V4L_REC_BYTES) { /* through dec4l's view */
        snprintf(err, errlen, "a version 4 ring (64-bit Linux, 8-byte records): read it with "
                              "info, tree, dump...; to follow a program live, record it with "
                              "CYGTRACE_FORMAT=3");
        return -1;
    }
    if (version < CYG_VERSION_MIN || (version > CYG_VERSION && !dec4m_version(p, version))) {
        snprintf(err, errlen, "%s", version > CYG_VERSION
                                        ? "dump format is newer than this cygtrace (update it)"
                                        : "unknown dump format version");
        return -1;
    }
    return (int)version;
}

int hdr_parse(const uint8_t *p, size_t len, struct dec_ring *r, char *err, size_t errlen)
{
    int version;

    memset(r, 0, sizeof *r);
    if ((version = parse_version(p, len, err, errlen)) < 0)
        return -1;
    r->version = (unsigned)version;
    r->chunk_log2 = version >= 2 ? p[CYG_OFF_CHUNK_LOG2] : 0; /* a reserved byte in 1 */
    dec4m_parse(p, r);
    r->word_bytes = p[CYG_OFF_WORD];
    r->rec_bytes = p[CYG_OFF_REC];
    r->cap_log2 = p[CYG_OFF_CAP_LOG2];
    r->flags = p[CYG_OFF_FLAGS];
    r->machine = (unsigned)le_get(p + CYG_OFF_MACHINE, 2);
    r->build_id_len = p[CYG_OFF_BUILD_ID_LEN];
    r->ts_bits = p[CYG_OFF_TS_BITS];
    r->ctl_addr = le_get(p + CYG_OFF_CTL_ADDR, 8);
    r->load_bias = le_get(p + CYG_OFF_LOAD_BIAS, 8);
    r->state = p[CYG_OFF_STATE];
    r->resets = p[CYG_OFF_RESETS];
    r->head = le_get(p + CYG_OFF_HEAD, 8);
    r->lost = le_get(p + CYG_OFF_LOST, 8);
    r->ts_hz = le_get(p + CYG_OFF_TS_HZ, 8);
    r->pid = (uint32_t)le_get(p + CYG_OFF_PID, 4);
    /* reserved (zero) before the runtime measured its hooks: none known */
    r->hook_cost = (uint32_t)le_get(p + CYG_OFF_HOOK_COST, 4);
    r->page_cost = (uint32_t)le_get(p + CYG_OFF_PAGE_COST, 4);
    r->page_log2 = p[CYG_OFF_PAGE_LOG2];
    if (hdr_check(r, err, errlen) < 0)
        return -1;
    if (le_get(p + CYG_OFF_HDR, 4) != CYG_HDR_BYTES) {
        snprintf(err, errlen, "control block: inconsistent fields");
        return -1;
    }
    if (r->word_bytes == 4) {
        /* 32-bit targets move only the low words of the counters */
        r->head &= 0xffffffffu;
        r->lost &= 0xffffffffu;
    }
    memcpy(r->build_id, p + CYG_OFF_BUILD_ID, r->build_id_len);
    r->cap = (uint64_t)1 << r->cap_log2;
    return 0;
}

/* Not a dump: maybe a RAM image with the block somewhere. Scans for the magic, 4-byte
 * aligned, keeping the first block that validates; otherwise why says why the first
 * lookalike block failed. Each read overlaps the next chunk by a control block, so a block
 * is never split. 0, 1 when there is none, or -1 on a read error. */
static int scan(struct src *s, uint8_t *buf, size_t chunk, struct dec_ring *r, char *why,
                size_t whylen)
{
    uint64_t size = src_size(s);
    char lookalike[256];
    int lookalikes = 0;

    for (uint64_t off = 0; off < size; off += chunk) {
        long n = src_read(s, off, buf, chunk + CYG_HDR_BYTES);

        if (n < 0)
            return -1;
        for (long i = 0; i + 8 <= n && i < (long)chunk; i += 4) {
            if (memcmp(buf + i, CYG_MAGIC, 8))
                continue;
            if (hdr_parse(buf + i, (size_t)(n - i), r, lookalike, sizeof lookalike) == 0) {
                r->off = off + (uint64_t)i;
                return 0;
            }
            if (!lookalikes++)
                snprintf(why, whylen, "%s", lookalike);
        }
    }
    return 1;
}

int hdr_locate(struct src *s, struct dec_ring *r, char *err, size_t errlen)
{
    const size_t chunk = 1u << 16;
    uint8_t *buf = malloc(chunk + CYG_HDR_BYTES);
    char why[256];
    long n;
    int rc = -1, v4;

    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", src_name(s));
        return -1;
    }
    /* a version 4 ring of 64-bit Linux reads as the version 3 ring it stands for */
    if ((v4 = dec4l_attach(s, why, sizeof why)) < 0) {
        snprintf(err, errlen, "%s: %s", src_name(s), why);
        free(buf);
        return -1;
    }
    n = src_read(s, 0, buf, CYG_HDR_BYTES);
    if (n >= 0 && hdr_parse(buf, (size_t)n, r, why, sizeof why) == 0)
        rc = 0;
    else if (n >= 0)
        rc = scan(s, buf, chunk, r, why, sizeof why);
    free(buf);
    if (rc == 0)
        r->stored_rec = v4 > 0 ? CYG_V4L_REC_BYTES : 0;
    if (rc == 0 && hdr_ctrl_read(s, r) < 0)
        rc = -1;
    if (rc)
        snprintf(err, errlen, "%s: %s", src_name(s), rc < 0 ? "read error" : why);
    return rc ? -1 : 0;
}

void hdr_ctrl_parse(struct dec_ring *r, const uint8_t *p, size_t have, uint64_t end)
{
    r->ctrl_state = DEC_CTRL_NONE;
    if (r->version < 3 || !dec4m_has_area(r))
        return;
    if (have < CYG_CTRL_BYTES) {
        r->ctrl_state = DEC_CTRL_SHORT;
        r->ctrl_end = end;
        return;
    }
    r->ctrl_state = ctrl_parse(&r->ctrl, p, r->word_bytes, r->ctrl_why, sizeof r->ctrl_why) == 0
                        ? DEC_CTRL_OK
                        : DEC_CTRL_BAD;
}

int hdr_ctrl_read(struct src *s, struct dec_ring *r)
{
    uint8_t area[CYG_CTRL_BYTES];
    long n = 0;

    if (r->version < 3 || !dec4m_has_area(r)) {
        r->ctrl_state = DEC_CTRL_NONE;
        return 0;
    }
    /* A ring whose records already run past the source's end (a header that claims 2^40
     * records) has no area there to read. */
    if (r->off + dec_ctrl_off(r) < src_size(s) &&
        (n = src_read(s, r->off + dec_ctrl_off(r), area, sizeof area)) < 0)
        return -1;
    hdr_ctrl_parse(r, area, (size_t)n, src_size(s));
    return 0;
}
