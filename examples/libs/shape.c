/* SPDX-License-Identifier: MIT */
/* shape.c - libshape.so: an instrumented shared library, linked by libsdemo (DT_NEEDED), so it
 * is loaded before the program's first call; its functions must be named with the library. */
#include "shape.h"

static volatile long shape_sink;

/* Static: named from the library's own symbol table, not from any export. */
static long shape_row(long w)
{
    shape_sink += w;
    return w;
}

long shape_area(long w, long h)
{
    long a = 0;

    for (long i = 0; i < h; i++)
        a += shape_row(w);
    return a;
}
