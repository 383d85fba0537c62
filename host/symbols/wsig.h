/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wsig.h - the signatures of wrapped functions (cygtrace wrap), as the wrappers' table in the
 * ELF's .cygtrace_wrap section gives them: parameter names, types and enumerators, so that a
 * wrapped call shows as "vend_set_mode(m=VEND_FAST) = VEND_SLOW". docs/FORMAT.md 7.2 has the
 * table's format. The records carry what a value is (an int, a string...): without a table a
 * call still shows its values, unnamed. */
#ifndef WSIG_H
#define WSIG_H

#include <stddef.h>
#include <stdint.h>

#include "cyg_format.h"

#define WSIG_SECTION ".cygtrace_wrap"
#define WSIG_PREFIX "__wrap_" /* what --wrap names the wrapper of f */

struct wsig_enum {
    unsigned n;
    int64_t *values;
    char **names;
};

struct wsig_value {
    char *name;                  /* a parameter's name; NULL for the return value */
    char *type;                  /* as C, for display */
    const struct wsig_enum *en;  /* its enumerators, or NULL */
    char *en_id;                 /* (the parser's: the id en was looked up by) */
};

struct wsig_fn {
    char *name;
    unsigned n;                  /* parameters */
    struct wsig_value p[CYG_VAL_MAX_ARGS];
    struct wsig_value ret;
    unsigned order;              /* (the parser's: its place in the table) */
};

struct wsig;

/* Parses the text of one or more tables (len bytes; NUL bytes end nothing). A malformed line is
 * skipped and counted (wsig_bad_lines), the rest kept: the section comes from a file the user
 * may not trust. NULL when out of memory. */
struct wsig *wsig_parse(const char *text, size_t len);

/* Lines of the text that were skipped as malformed. */
unsigned wsig_bad_lines(const struct wsig *w);

/* Functions the table describes. w may be NULL. */
unsigned wsig_count(const struct wsig *w);

/* The signature of the function named name, or NULL. w may be NULL. */
const struct wsig_fn *wsig_find(const struct wsig *w, const char *name);

/* The name a wrapper's symbol shows as: "vend_add" for "__wrap_vend_add"; NULL when name is no
 * wrapper's. */
const char *wsig_wrapped_name(const char *name);

/* Frees the table. NULL is fine. */
void wsig_free(struct wsig *w);

#endif
