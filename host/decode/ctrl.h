/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ctrl.h - the ring's control area (version 3, docs/FORMAT.md 2.7): triggers, record-time
 * filters and the classes of marks, as bytes (what a dump holds, what `cygtrace arm` writes
 * into a target) and as the text a user types ("freeze@boom+10", "start@main",
 * "freeze@mark:7+100"). Knows nothing of symbols: names are resolved by the caller. */
#ifndef CTRL_H
#define CTRL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cyg_format.h"

struct ctrl_trig {
    unsigned kind;         /* CYG_TRIG_* */
    uint64_t what;         /* the function's address (as the hooks see it), or a mark id */
    uint32_t after;        /* a freeze: events after the trigger's own */
    unsigned fired;        /* CYG_TRIGF_FIRED (the runtime's) */
};

struct ctrl {
    uint32_t gen, applied; /* the request's generation, and the one the runtime applied */
    uint32_t events;       /* classes of marks recorded */
    uint32_t depth;        /* 0: every depth */
    unsigned ntrig, nexcl;
    struct ctrl_trig trig[CYG_CTRL_TRIGS];
    uint64_t excl[CYG_CTRL_EXCLS];
    unsigned hide;         /* bit i: excl[i] hides its callees too */
    unsigned fired;        /* 1 + the trigger that fired last; 0: none */
    unsigned nfired;       /* triggers fired (to 255) */
    unsigned gate;         /* 1 while start/stop triggers let events in */
    uint64_t fired_head, fired_ts;
};

/* The defaults (nothing armed, every class enabled): what the runtime writes at init. */
void ctrl_init(struct ctrl *c);

/* Whether anything is armed or filtered (the classes aside). */
int ctrl_armed(const struct ctrl *c);

/* Parses CYG_CTRL_BYTES bytes of a control area (word_bytes 4 or 8: a 32-bit target's
 * addresses are the low words). Returns 0, or -1 with what is wrong in err when they are not
 * one (no magic; counts past the area's room), for the caller to prefix with where they
 * lie. */
int ctrl_parse(struct ctrl *c, const uint8_t *b, unsigned word_bytes, char *err,
               size_t errlen);

/* Writes the request's part of c (gen, events, depth, triggers, exclusions, hide) into b, a
 * control area as read from the target. The runtime's fields (magic, applied, fired...) are
 * left as b has them, but for the triggers' fired flags: a trigger written anew has not
 * fired. */
void ctrl_store(const struct ctrl *c, uint8_t *b);

/* One item of a user's spec, before its name is resolved. */
struct ctrl_spec {
    enum { CTRL_SPEC_TRIG = 1, CTRL_SPEC_EXCL } type;
    unsigned kind;         /* CTRL_SPEC_TRIG: CYG_TRIG_* */
    char name[128];        /* the function's name (or "0x..." for an address); "" for a mark */
    uint32_t mark;         /* CYG_TRIG_FREEZE_MARK: the mark's id */
    uint32_t after;
    int hide;              /* CTRL_SPEC_EXCL: hides the callees too */
};

/* Parses one trigger: start@FUNC, stop@FUNC, freeze@FUNC[+N], freeze@mark:ID[+N]. Returns 0,
 * or -1 with a one-line reason in err. */
int ctrl_parse_trigger(const char *text, struct ctrl_spec *s, char *err, size_t errlen);

/* Parses a comma-separated list of triggers into s (room for max); returns how many, or -1 with
 * err set (naming the item). */
int ctrl_parse_triggers(const char *list, struct ctrl_spec *s, unsigned max, char *err,
                        size_t errlen);

/* Parses a comma-separated list of function names to exclude (hide: their callees too). */
int ctrl_parse_excludes(const char *list, int hide, struct ctrl_spec *s, unsigned max,
                        char *err, size_t errlen);

/* Parses a class mask: a 0x number, or a list of classes and ranges ("0,3-5"; "15" is class
 * 15), "all" or "none". Returns 0, or -1 with err set. */
int ctrl_parse_events(const char *text, uint32_t *mask, char *err, size_t errlen);

/* Adds a resolved item to c (addr: the function's address, for triggers on a function and
 * exclusions). Returns 0, or -1 with err set when the area has no room left. */
int ctrl_add(struct ctrl *c, const struct ctrl_spec *s, uint64_t addr, char *err, size_t errlen);

/* Names a function for display: returns the name of the function at addr, or NULL. */
typedef const char *(*ctrl_name_fn)(void *arg, uint64_t addr);

/* "freeze@boom+10": trigger i of c, named through name (NULL: addresses in hex), into buf. */
const char *ctrl_trig_text(const struct ctrl *c, unsigned i, ctrl_name_fn name, void *arg,
                           char *buf, size_t len);

/* One line per armed item, each starting with prefix: "trigger freeze@boom+10 (fired)",
 * "exclude noisy", "hide init_tables (and its callees)", "depth 3", "events 0x0000000f"; and
 * "fired freeze@boom+10 at event N" when one fired. Returns the lines written (0: nothing
 * armed). */
unsigned ctrl_describe(const struct ctrl *c, ctrl_name_fn name, void *arg, const char *prefix,
                       FILE *f);

#endif
