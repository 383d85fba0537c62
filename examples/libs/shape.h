/* SPDX-License-Identifier: MIT */
/* shape.h - the API of libshape.so, the instrumented shared library libsdemo links. */
#ifndef SHAPE_H
#define SHAPE_H

/* Returns the area of a w by h rectangle, the long way round (calls inside the library). */
long shape_area(long w, long h);

#endif
