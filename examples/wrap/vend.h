/* SPDX-License-Identifier: MIT */
/* vend.h - a vendor's library as cygtrace wrap meets it: precompiled with -g but not
 * instrumented, its calls traced through wrappers (examples/wrap/README.md). Each kind of
 * value a wrapper records has a function here, and so has each thing it cannot wrap. */
#ifndef VEND_H
#define VEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vend_point {
    int x, y;
};

/* Signed: VEND_BROKEN is negative. */
enum vend_mode { VEND_OFF, VEND_SLOW, VEND_FAST = 7, VEND_BROKEN = -1 };

/* Unsigned (no negative enumerator), flags. */
enum vend_color { VEND_RED = 1, VEND_GREEN = 2, VEND_BLUE = 4 };

typedef uint32_t vend_u32;

int vend_add(int a, int b);
const char *vend_name(int id); /* NULL for an unknown id */
double vend_scale(double v, int k);
int vend_dist(const struct vend_point *p); /* Manhattan distance to the origin */
void vend_reset(void);
enum vend_mode vend_set_mode(enum vend_mode m); /* returns the mode before */
unsigned vend_paint(enum vend_color c, unsigned char level);
uint64_t vend_mix64(uint64_t x, long long y);
float vend_half(float f);
bool vend_is_even(unsigned v);
char vend_upper(char c);
size_t vend_len(const char *s); /* 0 for NULL */
vend_u32 vend_checksum(const uint8_t *data, size_t n);
int vend_apply(int (*f)(int), int v);

/* What cygtrace wrap cannot wrap (it says why): these calls are not traced. */
int vend_sum(int n, ...);                                             /* variadic */
struct vend_point vend_mid(struct vend_point a, struct vend_point b); /* structs by value */
long double vend_precise(long double x);                              /* long double */

#endif
