/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wval.h - the arguments and return value of one wrapped call, put back together from its
 * VALUE records (docs/FORMAT.md 7.1), and written as C: "a=2, b=3", "\"two\"", "VEND_FAST". */
#ifndef WVAL_H
#define WVAL_H

#include <stddef.h>
#include <stdint.h>

#include "cyg_format.h"
#include "symbols/wsig.h"

struct wval {
    uint8_t idx;    /* the argument, or CYG_VAL_RET */
    uint8_t kind;   /* CYG_VK_* */
    uint8_t parts;  /* words received so far */
    uint8_t done;   /* the last word came */
    uint8_t trunc;  /* a string cut short */
    uint8_t null;   /* a NULL string */
    uint8_t word;   /* bytes in the target's word (non-strings), for sign extension */
    uint8_t len;    /* a string's bytes */
    uint64_t v;
    char str[CYG_VAL_MAX_PARTS * 8];
};

struct wval_set {
    unsigned n;     /* values, in the order they came */
    struct wval v[CYG_VAL_MAX_ARGS + 1];
};

static inline void wval_reset(struct wval_set *s)
{
    s->n = 0;
}

/* Adds the word of a VALUE record (data: CYG_VAL_*) to the values of a call of the function at
 * fn (its run-time address): 0, or -1 when it is not this call's (its check names another
 * function, or it comes out of order: the call's entry, or a word, was lost). */
int wval_add(struct wval_set *s, uint64_t fn, uint32_t data, uint64_t word);

/* The return value, or NULL when none came (a void function, or it was lost). */
const struct wval *wval_ret(const struct wval_set *s);

/* Writes the value v as C (a parameter of enum type shows its enumerator: sig may be NULL)
 * into buf: "2", "-7", "0x7ffd1234", "NULL", "\"two\"", "\"a long str\"...", "1.5", "true",
 * "'x'", "?" (words lost). Returns the length written (truncated to fit). */
size_t wval_text(const struct wval *v, const struct wsig_value *sig, char *buf, size_t len);

/* Writes the arguments, "a=2, b=\"x\"" (names from sig, which may be NULL: "2, \"x\"");
 * an argument the signature has but no record gave is "?". Returns the length. */
size_t wval_args_text(const struct wval_set *s, const struct wsig_fn *sig, char *buf,
                      size_t len);

#endif
