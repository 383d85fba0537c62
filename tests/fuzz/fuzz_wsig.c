/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_wsig.c - libFuzzer target: the wrappers' signature table (.cygtrace_wrap), which comes
 * from an ELF file the user may not trust, parsed and used as the renderers use it, with the
 * words of wrapped calls' values (VALUE records) put back together and written as C.
 *
 * Input: the table's text, then a 0x00 byte, then value words of 9 bytes each: 3 bytes of the
 * record's data (the check bits are replaced by the right ones 7 times in 8, so that most words
 * reach the assembly), 6 of the word. Every function of the table is looked up by the names that
 * its F lines give, and the values are written with each signature and with none. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "symbols/wsig.h"
#include "decode/wval.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FN 0x8001234u /* the wrapper the values are said to be of */

static void show(const struct wval_set *v, const struct wsig_fn *sig)
{
    char buf[300]; /* shorter than a long value's text: the cut must hold */
    const struct wval *ret = wval_ret(v);

    wval_args_text(v, sig, buf, sizeof buf);
    if (strlen(buf) >= sizeof buf)
        abort();
    if (ret)
        wval_text(ret, sig ? &sig->ret : NULL, buf, 7);
    for (unsigned i = 0; i < v->n; i++)
        wval_text(&v->v[i], NULL, buf, 1 + i % 40);
}

/* The names of the F lines ("F\tNAME\t..."), looked up one after the other. */
static void each_function(const struct wsig *w, const char *text, size_t len,
                          const struct wval_set *v)
{
    for (size_t at = 0; at + 2 < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;

        if (text[at] == 'F' && text[at + 1] == '\t') {
            char name[256];
            size_t n = 0;

            for (size_t i = at + 2; i < end && text[i] != '\t' && n + 1 < sizeof name; i++)
                name[n++] = text[i];
            name[n] = '\0';
            show(v, wsig_find(w, name));
        }
        at = end + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *zero = memchr(data, 0, size);
    size_t tlen = zero ? (size_t)(zero - data) : size;
    struct wsig *w = wsig_parse((const char *)data, tlen);
    struct wval_set v;

    wval_reset(&v);
    for (size_t at = tlen + 1; at + 9 <= size; at += 9) {
        const uint8_t *p = data + at;
        uint32_t d = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
        uint64_t word = 0;

        if (p[0] & 7u) /* the right check, mostly */
            d = (d & ~(CYG_VAL_CHECK_MASK << CYG_VAL_CHECK_SHIFT)) |
                cyg_val_check(FN) << CYG_VAL_CHECK_SHIFT;
        for (unsigned i = 0; i < 6; i++)
            word |= (uint64_t)p[3 + i] << (8 * i);
        wval_add(&v, FN, d, word);
    }
    show(&v, NULL);
    if (w)
        each_function(w, (const char *)data, tlen, &v);
    wsig_count(w);
    wsig_bad_lines(w);
    wsig_free(w);
    return 0;
}
