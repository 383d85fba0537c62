/* load.c - the ELF and the dump, opened and checked against each other. */
#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "sread.h"

void load_hex(const uint8_t *id, size_t len, char *buf, size_t buflen)
{
    size_t o = 0;

    buf[0] = 0;
    for (size_t i = 0; i < len && o + 3 <= buflen; i++)
        o += (size_t)snprintf(buf + o, buflen - o, "%02x", id[i]);
}

/* Every check that says the dump did not come from this ELF. */
int load_check(struct load *l, const char *elf, const char *dump, int force, char *err,
               size_t errlen)
{
    const uint8_t *id;
    size_t n = sym_build_id(l->sym, &id);
    char a[80], b[80];

    if (sym_machine(l->sym) != l->ring.machine || sym_word_bytes(l->sym) != l->ring.word_bytes) {
        if (force)
            return 0;
        snprintf(err, errlen, "%s: recorded on %s (%u-bit) but %s is %s (%u-bit); use --force "
                 "to decode anyway", dump, dec_machine_name(l->ring.machine),
                 l->ring.word_bytes * 8, elf, dec_machine_name(sym_machine(l->sym)),
                 sym_word_bytes(l->sym) * 8);
        return -1;
    }
    if (!n || !l->ring.build_id_len) {
        l->id_match = -1;
        return 0;
    }
    l->id_match = n == l->ring.build_id_len && !memcmp(id, l->ring.build_id, n);
    if (l->id_match || force)
        return 0;
    load_hex(l->ring.build_id, l->ring.build_id_len, a, sizeof a);
    load_hex(id, n, b, sizeof b);
    snprintf(err, errlen, "%s: recorded by another build (build-id %s, %s has %s); use --force "
             "to decode anyway", dump, a, elf, b);
    return -1;
}

/* DUMP.maps beside a ring file: its shared libraries are named through the program's table.
 * A map that is missing or unreadable leaves the names as they were (addresses). */
static void load_map(struct load *l)
{
    char path[4096], why[256];

    if (l->stream || snprintf(path, sizeof path, "%s.maps", src_name(l->src)) >= (int)sizeof path)
        return;
    if ((l->map = modmap_open(path, why, sizeof why)) && l->sym)
        modmap_attach(l->map, l->sym, l->ring.load_bias);
}

int load_attach(struct load *l, const char *elf, struct src *src, int force, char *err,
                size_t errlen)
{
    char why[256];
    const char *reason;

    memset(l, 0, sizeof *l);
    l->src = src;
    l->id_match = -1;
    if (elf && !(l->sym = sym_open(elf, why, sizeof why))) {
        snprintf(err, errlen, "%s: %s", elf, why);
        goto fail;
    }
    if (dec_locate(l->src, &l->ring, &reason) < 0) {
        struct sdec_desc d;
        const char *sreason;

        /* Not a ring: a saved stream ("cygtrace live --save")? When it holds no frame at all,
         * the ring's reason says best what is wrong. */
        if (sread_probe(l->src, &d, &sreason) < 0) {
            snprintf(err, errlen, "%s: %s", src_name(src),
                     strstr(sreason, "no stream frame") ? reason : sreason);
            goto fail;
        }
        load_ring_of_desc(&d, &l->ring);
        l->stream = 1;
    }
    if (l->sym && load_check(l, elf, src_name(src), force, err, errlen) < 0)
        goto fail;
    load_map(l);
    return 0;
fail:
    load_close(l);
    return -1;
}

int load_open(struct load *l, const char *elf, const char *dump, int force, char *err,
              size_t errlen)
{
    char why[256];
    struct src *src = src_open_file(dump, why, sizeof why);

    memset(l, 0, sizeof *l);
    if (!src) {
        snprintf(err, errlen, "%s: %s", dump, why);
        return -1;
    }
    return load_attach(l, elf, src, force, err, errlen);
}

void load_ring_of_desc(const struct sdec_desc *d, struct dec_ring *ring)
{
    memset(ring, 0, sizeof *ring);
    ring->word_bytes = d->word_bytes;
    ring->rec_bytes = d->word_bytes * ((d->flags & CYG_F_CALLSITES) ? 4 : 2);
    ring->cap_log2 = d->cap_log2;
    ring->cap = d->cap_log2 < 64 ? UINT64_C(1) << d->cap_log2 : 0;
    ring->flags = d->flags;
    ring->state = d->state;
    ring->machine = d->machine;
    ring->ts_bits = d->ts_bits;
    ring->resets = d->resets;
    ring->build_id_len = d->build_id_len;
    memcpy(ring->build_id, d->build_id, sizeof ring->build_id);
    ring->load_bias = d->load_bias;
    ring->lost = d->lost;
    ring->ts_hz = d->ts_hz;
    ring->pid = d->pid;
}

struct load_pass {
    struct dec *dec;     /* a ring, or */
    struct sread *sread; /* a stream */
};

struct load_pass *load_pass_open(struct load *l)
{
    struct load_pass *p = calloc(1, sizeof *p);

    if (!p)
        return NULL;
    if (l->stream)
        p->sread = sread_open(l->src);
    else
        p->dec = dec_open(l->src, &l->ring);
    if (!p->sread && !p->dec) {
        free(p);
        return NULL;
    }
    return p;
}

int load_pass_next(struct load_pass *p, struct ev *e)
{
    return p->dec ? dec_next(p->dec, e) : sread_next(p->sread, e);
}

int load_pass_count(struct load_pass *p, struct dec_counts *c)
{
    return p->dec ? dec_count(p->dec, c) : -2;
}

void load_pass_stats(const struct load_pass *p, struct load_stats *st)
{
    memset(st, 0, sizeof *st);
    if (p->dec)
        dec_get_stats(p->dec, &st->dec);
    else
        sread_get_stats(p->sread, &st->fr, &st->sd);
}

void load_pass_close(struct load_pass *p)
{
    if (!p)
        return;
    dec_close(p->dec);
    sread_close(p->sread);
    free(p);
}

void load_close(struct load *l)
{
    sym_close(l->sym);
    modmap_close(l->map);
    src_close(l->src);
    memset(l, 0, sizeof *l);
}
