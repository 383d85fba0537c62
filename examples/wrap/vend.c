/* SPDX-License-Identifier: MIT */
/* vend.c - the vendor's library (vend.h). Freestanding: it builds for Linux and for every
 * Cortex-M core alike, with no C library. */
#include "vend.h"

#include <stdarg.h>

static enum vend_mode mode = VEND_OFF;

int vend_add(int a, int b)
{
    return a + b;
}

const char *vend_name(int id)
{
    static const char *const names[] = {"zero", "one",
                                        "a name longer than the thirty-two bytes "
                                        "a wrapper records"};

    return id >= 0 && id < 3 ? names[id] : NULL;
}

double vend_scale(double v, int k)
{
    return v * k;
}

int vend_dist(const struct vend_point *p)
{
    return (p->x < 0 ? -p->x : p->x) + (p->y < 0 ? -p->y : p->y);
}

void vend_reset(void)
{
    mode = VEND_OFF;
}

enum vend_mode vend_set_mode(enum vend_mode m)
{
    enum vend_mode old = mode;

    mode = m;
    return old;
}

unsigned vend_paint(enum vend_color c, unsigned char level)
{
    return (unsigned)c * 1000u + level;
}

uint64_t vend_mix64(uint64_t x, long long y)
{
    return (x ^ (x >> 29)) + (uint64_t)y;
}

float vend_half(float f)
{
    return f / 2;
}

bool vend_is_even(unsigned v)
{
    return (v & 1u) == 0;
}

char vend_upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

size_t vend_len(const char *s)
{
    size_t n = 0;

    while (s && s[n])
        n++;
    return n;
}

vend_u32 vend_checksum(const uint8_t *data, size_t n)
{
    vend_u32 h = 2166136261u;

    for (size_t i = 0; i < n; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

int vend_apply(int (*f)(int), int v)
{
    return f(v);
}

int vend_sum(int n, ...)
{
    va_list ap;
    int s = 0;

    va_start(ap, n);
    while (n-- > 0)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

struct vend_point vend_mid(struct vend_point a, struct vend_point b)
{
    struct vend_point m = {(a.x + b.x) / 2, (a.y + b.y) / 2};

    return m;
}

long double vend_precise(long double x)
{
    return x / 3;
}
