/* load.c - the ELF and the dump, opened and checked against each other. */
#include "load.h"

#include <stdio.h>
#include <string.h>

void load_hex(const uint8_t *id, size_t len, char *buf, size_t buflen)
{
    size_t o = 0;

    buf[0] = 0;
    for (size_t i = 0; i < len && o + 3 <= buflen; i++)
        o += (size_t)snprintf(buf + o, buflen - o, "%02x", id[i]);
}

/* Every check that says the dump did not come from this ELF. */
static int check_match(struct load *l, const char *elf, const char *dump, int force, char *err,
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
        snprintf(err, errlen, "%s: %s", src_name(src), reason);
        goto fail;
    }
    if (l->sym && check_match(l, elf, src_name(src), force, err, errlen) < 0)
        goto fail;
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

void load_close(struct load *l)
{
    sym_close(l->sym);
    src_close(l->src);
    memset(l, 0, sizeof *l);
}
