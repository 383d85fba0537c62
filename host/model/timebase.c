/* SPDX-License-Identifier: GPL-3.0-or-later */
/* timebase.c - inputs' clocks mapped onto one, and the fit of a stream's arrival times. */
#include "model/timebase.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Rounds to the nearest integer, halves away from 0 (no libm). */
static int64_t round_i64(double v)
{
    return (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
}

static int cmp_pt(const void *pa, const void *pb)
{
    const struct timebase_pt *a = pa, *b = pb;

    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return (a->y > b->y) - (a->y < b->y);
}

/* Whether b lies on or above the segment a-c, coordinates relative to o in double: what the
 * monotone chain pops. Differences of int64 times of one run fit a double's 53 bits. */
static int not_below(const struct timebase_pt *o, const struct timebase_pt *a,
                     const struct timebase_pt *b, const struct timebase_pt *c)
{
    double ax = (double)(a->x - o->x), ay = (double)(a->y - o->y);
    double bx = (double)(b->x - o->x) - ax, by = (double)(b->y - o->y) - ay;
    double cx = (double)(c->x - o->x) - ax, cy = (double)(c->y - o->y) - ay;

    return bx * cy - by * cx <= 0;
}

static double line_at(const struct timebase_fit *f, int64_t x)
{
    return (double)f->y0 + f->slope * (double)(x - f->x0);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return (a > b) - (a < b);
}

/* The residuals' median and maximum; the median from a sorted copy (the max alone when out of
 * memory: the median then says the max). */
static void residuals(const struct timebase_pt *p, size_t n, struct timebase_fit *f)
{
    double *r = malloc(n * sizeof *r), d;

    f->max = 0;
    for (size_t i = 0; i < n; i++) {
        d = (double)p[i].y - line_at(f, p[i].x);
        if (d < 0) /* rounding: the line is under every point */
            d = 0;
        if (d > f->max)
            f->max = d;
        if (r)
            r[i] = d;
    }
    if (!r) {
        f->median = f->max;
        return;
    }
    qsort(r, n, sizeof *r, cmp_double);
    f->median = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
    free(r);
}

int timebase_fit(struct timebase_pt *p, size_t n, struct timebase_fit *f)
{
    struct timebase_pt *hull;
    size_t h = 0, e;
    double xbar = 0;

    memset(f, 0, sizeof *f);
    if (!n || !(hull = malloc(n * sizeof *hull)))
        return -1;
    qsort(p, n, sizeof *p, cmp_pt);
    /* The lower hull (monotone chain) over the lowest point of each x, which sorts first. */
    for (size_t i = 0; i < n; i++) {
        xbar += ((double)(p[i].x - p[0].x) - xbar) / (double)(i + 1);
        if (h && hull[h - 1].x == p[i].x)
            continue;
        while (h >= 2 && not_below(&p[0], &hull[h - 2], &hull[h - 1], &p[i]))
            h--;
        hull[h++] = p[i];
    }
    /* The sum of y - line(x) over the points is n * (ybar - line(xbar)): of the lines under
     * every point, the one highest over the mean x holds the hull's edge there. */
    f->n = n;
    if (h == 1) {
        f->slope = 1;
        f->x0 = hull[0].x;
        f->y0 = hull[0].y;
    } else {
        for (e = 0; e + 2 < h && (double)(hull[e + 1].x - p[0].x) < xbar; e++)
            ;
        f->slope = (double)(hull[e + 1].y - hull[e].y) / (double)(hull[e + 1].x - hull[e].x);
        f->x0 = hull[e].x;
        f->y0 = hull[e].y;
    }
    free(hull);
    residuals(p, n, f);
    return 0;
}

int64_t timebase_own_ns(uint64_t hz, uint64_t ticks)
{
    uint64_t secs;

    if (!hz || hz == 1000000000u)
        return (int64_t)(ticks & INT64_MAX);
    secs = ticks / hz;
    if (secs > (uint64_t)INT64_MAX / 1000000000u - 1)
        return INT64_MAX;
    return (int64_t)(secs * 1000000000u +
                     (uint64_t)((double)(ticks % hz) * 1e9 / (double)hz + 0.5));
}

void timebase_set_fit(struct timebase *tb, const struct timebase_fit *f)
{
    tb->mapped = 1;
    tb->slope = f->slope;
    tb->x0 = f->x0;
    tb->y0 = f->y0;
}

int timebase_set_pairs(struct timebase *tb, const uint64_t ticks[2], const int64_t ns[2],
                       unsigned n)
{
    int64_t x0 = timebase_own_ns(tb->hz, ticks[0]), x1;

    if (!n)
        return -1;
    tb->mapped = 1;
    tb->slope = 1;
    tb->x0 = x0;
    tb->y0 = ns[0];
    if (n < 2 || ticks[1] == ticks[0])
        return 0;
    x1 = timebase_own_ns(tb->hz, ticks[1]);
    if (x1 < x0 || ns[1] < ns[0])
        return -1;
    tb->slope = (double)(ns[1] - ns[0]) / (double)(x1 - x0);
    return 0;
}

int64_t timebase_ns(const struct timebase *tb, uint64_t ticks)
{
    int64_t x = timebase_own_ns(tb->hz, ticks);

    if (tb->mapped)
        x = tb->y0 + round_i64(tb->slope * (double)(x - tb->x0));
    return x + tb->offset_ns;
}

int timebase_parse_offset(const char *s, int64_t *ns)
{
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    char *end;
    double v;

    if (!*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || errno || strspn(s, "+-0123456789.eE") < (size_t)(end - s) || !(v == v) || v > 9.2e18 || v < -9.2e18)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].unit)) {
            v *= units[i].ns;
            if (v > 9.2e18 || v < -9.2e18)
                return -1;
            *ns = round_i64(v);
            return 0;
        }
    return -1;
}
