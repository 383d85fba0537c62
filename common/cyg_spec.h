/* SPDX-License-Identifier: MIT */
/* cyg_spec.h - the text of a trigger, as users type it ("freeze@boom+10", "start@main",
 * "freeze@mark:7+100"), parsed the same by the host (cygtrace arm, cygtrace record) and the
 * Linux runtime (CYGTRACE_TRIGGER). Freestanding C99 (<stddef.h>, <stdint.h>, <string.h>); no
 * allocation, no locale. docs/FORMAT.md 2.7 has what the kinds mean. */
#ifndef CYG_SPEC_H
#define CYG_SPEC_H

#include <stddef.h>
#include <stdint.h>

/* A trigger, parsed. */
struct cyg_spec {
    unsigned kind;          /* CYG_TRIG_* of cyg_format.h */
    uint32_t after;         /* a freeze: events after the trigger's own (+N; 0 without) */
    uint32_t mark;          /* CYG_TRIG_FREEZE_MARK: the mark's id */
    const char *name;       /* a function's name (or 0x and its address): name_len bytes of
                               the text (also with CYG_SPEC_ENAME); NULL for a mark */
    size_t name_len;
    size_t kind_len;        /* the kind's bytes at the start of the text (for messages) */
};

/* Why a text is not a trigger. */
enum cyg_spec_err {
    CYG_SPEC_OK = 0,
    CYG_SPEC_EFORM,         /* no '@' */
    CYG_SPEC_EKIND,         /* not start, stop or freeze */
    CYG_SPEC_EPLUS,         /* +N on a start or stop */
    CYG_SPEC_EAFTER,        /* +N not a number of 32 bits */
    CYG_SPEC_EMARKKIND,     /* a mark for a start or stop */
    CYG_SPEC_EMARK,         /* the mark id not a number of 19 bits */
    CYG_SPEC_ENAME,         /* the function not a name */
    CYG_SPEC_EADDR,         /* 0x and an address of more than 64 bits, or 0 */
};

/* Parses the trigger in the len bytes at text (no terminator needed) into *s. */
enum cyg_spec_err cyg_spec_trigger(const char *text, size_t len, struct cyg_spec *s);

/* The reason for err, one phrase: "only a freeze takes +N". */
const char *cyg_spec_why(enum cyg_spec_err err);

/* Whether the n bytes at s name a function: a C identifier (C++ names are given mangled; '.'
 * and '$' as compilers make them), or 0x and hex digits (an address). */
int cyg_spec_name_ok(const char *s, size_t n);

/* The n bytes at s as a decimal number, or 0x and hex digits (a leading 0 is no octal), that
 * fits 32 bits: 0, or -1 when they are not one. */
int cyg_spec_u32(const char *s, size_t n, uint32_t *v);

/* The classes of marks recorded, as the n bytes at text give them: "all", "none", 0x and a
 * mask, or classes and ranges of 0..31 ("0,3-5"; "15" is class 15). 0, or -1 when they are
 * none of these. */
int cyg_spec_events(const char *text, size_t n, uint32_t *mask);

#endif
