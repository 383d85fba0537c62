/* SPDX-License-Identifier: MIT */
/* cyg_spec.c - trigger texts (cyg_spec.h). */
#include "cyg_spec.h"

#include <string.h>

#include "cyg_format.h"

_Static_assert(CYG_MARK_ID_MASK == 524287u, "cyg_spec_why() names the largest mark id");

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static int hex_prefix(const char *s, size_t n)
{
    return n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

int cyg_spec_u32(const char *s, size_t n, uint32_t *v)
{
    unsigned base = hex_prefix(s, n) ? 16u : 10u;
    uint64_t x = 0;
    size_t i = base == 16u ? 2u : 0u;

    if (n == 0)
        return -1;
    for (; i < n; i++) {
        int d = hex_digit(s[i]);

        if (d < 0 || (unsigned)d >= base || (x = x * base + (unsigned)d) > UINT32_MAX)
            return -1;
    }
    *v = (uint32_t)x;
    return 0;
}

/* Whether the n bytes at s (0x and hex digits) are an address of 64 bits other than 0: more
 * digits would be cut (strtoull saturates), and 0 is no function. */
static int addr_ok(const char *s, size_t n)
{
    size_t i = 2;

    while (i < n && s[i] == '0')
        i++;
    return i < n && n - i <= 16;
}

int cyg_spec_name_ok(const char *s, size_t n)
{
    if (hex_prefix(s, n)) {
        for (size_t i = 2; i < n; i++)
            if (hex_digit(s[i]) < 0)
                return 0;
        return addr_ok(s, n);
    }
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];

        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '.' ||
              ch == '$' || (i > 0 && ch >= '0' && ch <= '9')))
            return 0;
    }
    return 1;
}

/* Whether the n bytes at s are the word w. */
static int is(const char *s, size_t n, const char *w)
{
    return n == strlen(w) && memcmp(s, w, n) == 0;
}

enum cyg_spec_err cyg_spec_trigger(const char *text, size_t len, struct cyg_spec *s)
{
    const char *at = memchr(text, '@', len), *what, *plus;
    size_t wlen;

    memset(s, 0, sizeof *s);
    if (!at)
        return CYG_SPEC_EFORM;
    s->kind_len = (size_t)(at - text);
    what = at + 1;
    plus = memchr(what, '+', len - (size_t)(what - text));
    wlen = (size_t)((plus ? plus : text + len) - what);
    if (is(text, s->kind_len, "start"))
        s->kind = CYG_TRIG_START;
    else if (is(text, s->kind_len, "stop"))
        s->kind = CYG_TRIG_STOP;
    else if (is(text, s->kind_len, "freeze"))
        s->kind = CYG_TRIG_FREEZE;
    else
        return CYG_SPEC_EKIND;
    if (plus && s->kind != CYG_TRIG_FREEZE)
        return CYG_SPEC_EPLUS;
    if (plus && cyg_spec_u32(plus + 1, len - (size_t)(plus + 1 - text), &s->after) < 0)
        return CYG_SPEC_EAFTER;
    if (wlen > 5 && memcmp(what, "mark:", 5) == 0) {
        if (s->kind != CYG_TRIG_FREEZE)
            return CYG_SPEC_EMARKKIND;
        if (cyg_spec_u32(what + 5, wlen - 5, &s->mark) < 0 || s->mark > CYG_MARK_ID_MASK)
            return CYG_SPEC_EMARK;
        s->kind = CYG_TRIG_FREEZE_MARK;
        return CYG_SPEC_OK;
    }
    s->name = what; /* also for the message when it is no name */
    s->name_len = wlen;
    if (cyg_spec_name_ok(what, wlen))
        return CYG_SPEC_OK;
    /* Hex digits, but too many of them or all zeros. */
    if (hex_prefix(what, wlen)) {
        size_t i = 2;

        while (i < wlen && hex_digit(what[i]) >= 0)
            i++;
        if (i == wlen)
            return CYG_SPEC_EADDR;
    }
    return CYG_SPEC_ENAME;
}

const char *cyg_spec_why(enum cyg_spec_err err)
{
    switch (err) {
    case CYG_SPEC_OK:
        return "a trigger";
    case CYG_SPEC_EFORM:
        return "not KIND@WHERE (start@FUNC, stop@FUNC, freeze@FUNC[+N], freeze@mark:ID[+N])";
    case CYG_SPEC_EKIND:
        return "unknown kind (start, stop or freeze)";
    case CYG_SPEC_EPLUS:
        return "only a freeze takes +N";
    case CYG_SPEC_EAFTER:
        return "+N is not a number of events (0 to 4294967295)";
    case CYG_SPEC_EMARKKIND:
        return "only a freeze fires on a mark";
    case CYG_SPEC_EMARK:
        return "the mark id is not a number from 0 to 524287";
    case CYG_SPEC_ENAME:
        return "not a function's name";
    case CYG_SPEC_EADDR:
        return "not an address from 0x1 to 0xffffffffffffffff";
    }
    return "not a trigger";
}

int cyg_spec_events(const char *text, size_t n, uint32_t *mask)
{
    const char *p = text, *end = text + n;

    if (is(text, n, "all") || is(text, n, "none")) {
        *mask = text[0] == 'a' ? UINT32_MAX : 0;
        return 0;
    }
    if (hex_prefix(text, n))
        return cyg_spec_u32(text, n, mask);
    *mask = 0;
    for (;;) {
        const char *e = memchr(p, ',', (size_t)(end - p)), *dash;
        size_t len = (size_t)((e ? e : end) - p);
        uint32_t lo, hi;

        dash = memchr(p, '-', len);
        if (dash ? cyg_spec_u32(p, (size_t)(dash - p), &lo) < 0 ||
                       cyg_spec_u32(dash + 1, len - (size_t)(dash + 1 - p), &hi) < 0
                 : cyg_spec_u32(p, len, &lo) < 0)
            return -1;
        if (!dash)
            hi = lo;
        if (lo > hi || hi >= CYG_MARK_CLASSES)
            return -1;
        for (uint32_t k = lo; k <= hi; k++)
            *mask |= (uint32_t)1 << k;
        if (!e)
            return 0;
        p = e + 1;
    }
}
