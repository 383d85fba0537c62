/* SPDX-License-Identifier: MIT */
/* cygtrace_wrap.h - what the wrappers that `cygtrace wrap` writes include: one macro a value,
 * whatever the target's word size, so that one generated file builds for Linux and for every
 * Cortex-M core. fn is the wrapper's own address; idx the argument (0..14) or CYGTRACE_RET.
 * Each records nothing unless the ring is recording (cygtrace.h). */
#ifndef CYGTRACE_WRAP_H
#define CYGTRACE_WRAP_H

#include <stdint.h>

#include "cyg_format.h"
#include "cygtrace.h"

#define CYGTRACE_RET CYG_VAL_RET

/* A float's or a double's bits (a union: no aliasing trouble, no library call). */
static inline CYGTRACE_NOINSTR uint32_t cygtrace_f32_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } v = {.f = f};
    return v.u;
}

static inline CYGTRACE_NOINSTR uint64_t cygtrace_f64_bits(double d)
{
    union {
        double d;
        uint64_t u;
    } v = {.d = d};
    return v.u;
}

/* An integer of any size up to 64 bits: one word when it fits, else two (32-bit targets). */
#define CYGTRACE_WRAP_INTK(fn, idx, kind, x, wide, word)                                           \
    (sizeof(x) > sizeof(uintptr_t)                                                               \
         ? cygtrace_wrap_value64((fn), CYGTRACE_VALUE((idx), (kind)), (uint64_t)(wide)(x))        \
         : cygtrace_wrap_value((fn), CYGTRACE_VALUE((idx), (kind)), (uintptr_t)(word)(x)))

/* Signed integers and enums (sign-extended). */
#define CYGTRACE_WRAP_INT(fn, idx, x) CYGTRACE_WRAP_INTK(fn, idx, CYG_VK_INT, x, int64_t, intptr_t)
/* Unsigned integers. */
#define CYGTRACE_WRAP_UINT(fn, idx, x)                                                             \
    CYGTRACE_WRAP_INTK(fn, idx, CYG_VK_UINT, x, uint64_t, uintptr_t)
/* _Bool, and char (shown as a character). */
#define CYGTRACE_WRAP_BOOL(fn, idx, x)                                                             \
    cygtrace_wrap_value((fn), CYGTRACE_VALUE((idx), CYG_VK_BOOL), (uintptr_t)!!(x))
#define CYGTRACE_WRAP_CHAR(fn, idx, x)                                                             \
    cygtrace_wrap_value((fn), CYGTRACE_VALUE((idx), CYG_VK_CHAR), (uintptr_t)(unsigned char)(x))
/* Any pointer but a string: its address. */
#define CYGTRACE_WRAP_PTR(fn, idx, x)                                                              \
    cygtrace_wrap_value((fn), CYGTRACE_VALUE((idx), CYG_VK_PTR), (uintptr_t)(const void *)(x))
/* float and double. */
#define CYGTRACE_WRAP_F32(fn, idx, x)                                                              \
    cygtrace_wrap_value((fn), CYGTRACE_VALUE((idx), CYG_VK_F32), cygtrace_f32_bits(x))
#define CYGTRACE_WRAP_F64(fn, idx, x)                                                              \
    cygtrace_wrap_value64((fn), CYGTRACE_VALUE((idx), CYG_VK_F64), cygtrace_f64_bits(x))
/* char *, const char *: the string's first CYGTRACE_WRAP_STRING bytes. */
#define CYGTRACE_WRAP_STR(fn, idx, x)                                                              \
    cygtrace_wrap_string((fn), CYGTRACE_VALUE((idx), CYG_VK_STR), (const char *)(x))

#endif
