/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wval.c - a wrapped call's values from its VALUE records, and their C text. */
#include "decode/wval.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The value a new word of idx starts, or continues: the last one, when it is idx's and still
 * waiting for words. */
static struct wval *open_value(struct wval_set *s, unsigned idx)
{
    struct wval *v = s->n ? &s->v[s->n - 1] : NULL;

    return v && v->idx == idx && !v->done ? v : NULL;
}

int wval_add(struct wval_set *s, uint64_t fn, uint32_t data, uint64_t word)
{
    unsigned idx = data & CYG_VAL_IDX_MASK;
    unsigned part = (data >> CYG_VAL_PART_SHIFT) & CYG_VAL_PART_MASK;
    unsigned len = (data >> CYG_VAL_LEN_SHIFT) & CYG_VAL_LEN_MASK;
    unsigned kind = (data >> CYG_VAL_KIND_SHIFT) & CYG_VAL_KIND_MASK;
    struct wval *v = open_value(s, idx);

    if (((data >> CYG_VAL_CHECK_SHIFT) & CYG_VAL_CHECK_MASK) != cyg_val_check(fn) || len > 8)
        return -1;
    if (part == 0) {
        /* Arguments come in order, each once, and the return value after them: anything else
         * is another call's (this one's entry was lost) or words were lost. */
        const struct wval *prev = s->n ? &s->v[s->n - 1] : NULL;

        if (v || s->n > CYG_VAL_MAX_ARGS || (prev && (!prev->done || prev->idx >= idx)))
            return -1;
        v = &s->v[s->n++];
        memset(v, 0, offsetof(struct wval, str));
        v->idx = (uint8_t)idx;
        v->kind = (uint8_t)kind;
        v->word = (uint8_t)len;
    } else if (!v || part != v->parts || v->kind != kind) {
        return -1;
    }
    if (kind == CYG_VK_STR) {
        for (unsigned i = 0; i < len; i++)
            v->str[v->len++] = (char)(word >> (8 * i));
        v->trunc = (data & CYG_VAL_TRUNC) != 0;
        v->null = (data & CYG_VAL_NULL) != 0;
    } else if (part < 2) {
        /* two words only on a 32-bit target: the low one first */
        v->v |= part ? word << 32 : word;
    } else {
        return -1;
    }
    v->parts++;
    v->done = (data & CYG_VAL_LAST) != 0;
    return 0;
}

const struct wval *wval_ret(const struct wval_set *s)
{
    const struct wval *v = s->n ? &s->v[s->n - 1] : NULL;

    return v && v->idx == CYG_VAL_RET ? v : NULL;
}

/* An integer of a 32-bit target's single word is sign-extended here (a 64-bit target's word
 * is already). */
static int64_t signed_value(const struct wval *v)
{
    if (v->parts == 1 && v->word == 4)
        return (int32_t)(uint32_t)v->v;
    return (int64_t)v->v;
}

/* Appends c to a quoted string or character, escaped as C would write it. */
static size_t put_escaped(char *p, unsigned char c, char quote)
{
    switch (c) {
    case '\n':
        return (size_t)sprintf(p, "\\n");
    case '\t':
        return (size_t)sprintf(p, "\\t");
    case '\r':
        return (size_t)sprintf(p, "\\r");
    case '\\':
        return (size_t)sprintf(p, "\\\\");
    default:
        break;
    }
    if (c == (unsigned char)quote)
        return (size_t)sprintf(p, "\\%c", quote);
    if (c < 0x20 || c >= 0x7f)
        return (size_t)sprintf(p, "\\x%02x", c);
    *p = (char)c;
    return 1;
}

static size_t string_text(const struct wval *v, char *buf, size_t len)
{
    char tmp[sizeof v->str * 4 + 8], *p = tmp;

    if (v->null)
        return (size_t)snprintf(buf, len, "NULL");
    *p++ = '"';
    for (unsigned i = 0; i < v->len; i++)
        p += put_escaped(p, (unsigned char)v->str[i], '"');
    *p++ = '"';
    if (v->trunc)
        p += sprintf(p, "...");
    *p = '\0';
    return (size_t)snprintf(buf, len, "%s", tmp);
}

static size_t enum_text(const struct wsig_enum *en, int64_t x, char *buf, size_t len)
{
    for (unsigned i = 0; i < en->n; i++)
        if (en->values[i] == x)
            return (size_t)snprintf(buf, len, "%s", en->names[i]);
    return (size_t)snprintf(buf, len, "%" PRId64, x);
}

static size_t float_text(const struct wval *v, char *buf, size_t len)
{
    double d;

    if (v->kind == CYG_VK_F32) {
        uint32_t u = (uint32_t)v->v;
        float f;

        memcpy(&f, &u, sizeof f);
        d = f;
    } else {
        uint64_t u = v->v;

        memcpy(&d, &u, sizeof d);
    }
    return (size_t)snprintf(buf, len, "%g", d);
}

size_t wval_text(const struct wval *v, const struct wsig_value *sig, char *buf, size_t len)
{
    size_t n;

    if (len == 0)
        return 0;
    if (!v->done)
        return (size_t)snprintf(buf, len, "?");
    switch (v->kind) {
    case CYG_VK_INT:
        if (sig && sig->en)
            n = enum_text(sig->en, signed_value(v), buf, len);
        else
            n = (size_t)snprintf(buf, len, "%" PRId64, signed_value(v));
        break;
    case CYG_VK_UINT:
        n = (size_t)snprintf(buf, len, "%" PRIu64, v->v);
        break;
    case CYG_VK_PTR:
        n = v->v ? (size_t)snprintf(buf, len, "0x%" PRIx64, v->v)
                 : (size_t)snprintf(buf, len, "NULL");
        break;
    case CYG_VK_F32:
    case CYG_VK_F64:
        n = float_text(v, buf, len);
        break;
    case CYG_VK_STR:
        n = string_text(v, buf, len);
        break;
    case CYG_VK_BOOL:
        n = (size_t)snprintf(buf, len, "%s", v->v ? "true" : "false");
        break;
    default: { /* CYG_VK_CHAR */
        char tmp[8], *p = tmp;

        *p++ = '\'';
        p += put_escaped(p, (unsigned char)v->v, '\'');
        *p++ = '\'';
        *p = '\0';
        n = (size_t)snprintf(buf, len, "%s", tmp);
        break;
    }
    }
    return n < len ? n : len - 1;
}

/* Appends to buf (len bytes, n used): what does not fit is cut, and n stays below len. */
static void append(char *buf, size_t len, size_t *n, const char *text, size_t tlen)
{
    if (*n + 1 >= len)
        return;
    if (tlen > len - 1 - *n)
        tlen = len - 1 - *n;
    memcpy(buf + *n, text, tlen);
    *n += tlen;
    buf[*n] = '\0';
}

size_t wval_args_text(const struct wval_set *s, const struct wsig_fn *sig, char *buf, size_t len)
{
    unsigned nargs = 0, at = 0;
    size_t n = 0;
    char one[sizeof s->v[0].str * 4 + 64];

    if (len == 0)
        return 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < s->n; i++)
        if (s->v[i].idx != CYG_VAL_RET && s->v[i].idx + 1u > nargs)
            nargs = s->v[i].idx + 1u;
    if (sig && sig->n > nargs)
        nargs = sig->n;
    for (unsigned a = 0; a < nargs; a++) {
        const struct wsig_value *p = sig && a < sig->n ? &sig->p[a] : NULL;

        if (a)
            append(buf, len, &n, ", ", 2);
        if (p && p->name) {
            append(buf, len, &n, p->name, strlen(p->name));
            append(buf, len, &n, "=", 1);
        }
        while (at < s->n && s->v[at].idx < a)
            at++;
        if (at < s->n && s->v[at].idx == a)
            append(buf, len, &n, one, wval_text(&s->v[at], p, one, sizeof one));
        else
            append(buf, len, &n, "?", 1);
    }
    return n;
}
