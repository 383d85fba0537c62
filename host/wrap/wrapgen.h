/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wrapgen.h - what `cygtrace wrap` knows of a function it wraps, and what it writes: the
 * wrappers in C (each call to f reaches __wrap_f through GNU ld's --wrap=f, records the call,
 * its arguments and its return value, and calls __real_f), the linker flags, and the signature
 * table the host reads back from the ELF (host/wsig.c):
 *
 *   cygtrace-wrap 1
 *   F <name> <params> <ret kind> <ret enum> <return type as C>
 *   P <index> <name> <kind> <enum> <type as C>        (one per parameter, after its F line)
 *   E <enum id> <value> <enumerator>
 *
 * fields separated by one tab, lines ending in \n. A kind is int uint ptr f32 f64 str bool char
 * void; an enum is "-" or an id (e1, e2...) of the block whose E lines give its enumerators
 * (values in decimal, sign-extended from the enum's size, as the wrappers record them).
 *
 * The signature readers (wrapproto.c: C prototypes; wrapdw.c: DWARF) fill a wrapgen_set; the
 * set owns every string and array its functions point at. */
#ifndef WRAPGEN_H
#define WRAPGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define WRAPGEN_MAX_PARAMS 15u /* CYG_VAL_MAX_ARGS: arguments a value record can name */
#define WRAPGEN_NAME_MAX 512u  /* a longer function name (C++'s) would not fit the host's lines */

/* How a value is recorded and shown: the CYG_VK_* kinds in the same order, and void. */
enum wrapgen_kind {
    WRAPGEN_INT,  /* signed integers and enums: CYGTRACE_WRAP_INT */
    WRAPGEN_UINT, /* unsigned integers (unsigned char too): CYGTRACE_WRAP_UINT */
    WRAPGEN_PTR,  /* any pointer but a string, function pointers too */
    WRAPGEN_F32,
    WRAPGEN_F64,
    WRAPGEN_STR, /* char * and const char * */
    WRAPGEN_BOOL,
    WRAPGEN_CHAR, /* plain char only: signed char is an int, unsigned char a uint */
    WRAPGEN_VOID, /* a return type only */
};

struct wrapgen_enumerator {
    int64_t value; /* sign-extended from the enum's size */
    const char *name;
};

struct wrapgen_enum {
    unsigned n;
    const struct wrapgen_enumerator *items;
};

struct wrapgen_type {
    enum wrapgen_kind kind;
    const char *c;     /* as the wrapper declares it, ABI-equal to the real type without the
                          library's headers: "long unsigned int", "const char *", "void *" */
    const char *shown; /* as the source names it, for the table: "uint64_t", "enum vend_mode" */
    const char *cast;  /* NULL, or the type to record the value as ("int" for an enum whose
                          integer type is unsigned: enums are recorded signed) */
    const struct wrapgen_enum *en; /* an enum's enumerators, or NULL */
};

struct wrapgen_param {
    const char *name; /* a C identifier that clashes with nothing the wrapper uses */
    struct wrapgen_type t;
};

struct wrapgen_fn {
    const char *name;
    const char *skip; /* NULL, or why it cannot be wrapped ("variadic") */
    struct wrapgen_type ret;
    unsigned n;
    struct wrapgen_param p[WRAPGEN_MAX_PARAMS];
};

struct wrapgen_set;

/* An empty set; NULL when out of memory. */
struct wrapgen_set *wrapgen_set_new(void);

/* Frees the set and everything its functions point at. NULL is fine. */
void wrapgen_set_free(struct wrapgen_set *s);

/* n zeroed bytes that live as long as the set; NULL when out of memory. */
void *wrapgen_alloc(struct wrapgen_set *s, size_t n);

/* A copy of str (len bytes of it, then a NUL) that lives as long as the set; NULL when out of
 * memory. */
char *wrapgen_strndup(struct wrapgen_set *s, const char *str, size_t len);

/* As wrapgen_strndup, all of str. */
char *wrapgen_strdup(struct wrapgen_set *s, const char *str);

/* A string formatted as printf does, living as long as the set; NULL when out of memory. */
char *wrapgen_printf(struct wrapgen_set *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Adds a copy of fn (whose strings must live as long as the set) unless the set has a function
 * of that name already: 1 added, 0 already there (the set is unchanged), -1 out of memory. */
int wrapgen_set_add(struct wrapgen_set *s, const struct wrapgen_fn *fn);

/* The function called name, or NULL. */
const struct wrapgen_fn *wrapgen_set_find(const struct wrapgen_set *s, const char *name);

/* The number of functions, and the i-th in the order they were added. */
size_t wrapgen_set_count(const struct wrapgen_set *s);
const struct wrapgen_fn *wrapgen_set_at(const struct wrapgen_set *s, size_t i);

/* The name of a kind as the table writes it ("int", "uint", ... "void"). */
const char *wrapgen_kind_name(enum wrapgen_kind k);

/* The C type of an integer of bytes bytes (1, 2, 4 or 8), signed or not: "int",
 * "short unsigned int", ...; NULL for another size. */
const char *wrapgen_int_type(unsigned bytes, int is_signed);

/* Whether name can be a parameter of a wrapper: a C identifier, no keyword, none of the names
 * the wrapper and cygtrace_wrap.h use (cyg_*, CYG*, the stdint types). */
int wrapgen_name_ok(const char *name);

/* NULL, or why a function called name must not be wrapped whatever its signature: one of the
 * runtime's (its wrapper would call itself), a wrapper already, a name too long. */
const char *wrapgen_refused(const char *name);

/* Gives each parameter of fn a name the wrapper can use: its own when wrapgen_name_ok and no
 * other parameter has it, else p<index> (or p<index>_, p<index>__...). 0, -1 out of memory. */
int wrapgen_fix_names(struct wrapgen_set *s, struct wrapgen_fn *fn);

/* The signature table of the n functions (none skipped) as its text, malloc'd, NUL-terminated,
 * its length in *len; NULL when out of memory. */
char *wrapgen_table(const struct wrapgen_fn *const *fns, size_t n, size_t *len);

/* Writes the wrappers of the n functions (none skipped) and their table as one C file to f.
 * origin names the inputs in its first comment. 0, or -1 on a write error or out of memory. */
int wrapgen_write_c(FILE *f, const struct wrapgen_fn *const *fns, size_t n, const char *origin);

/* Writes one "-Wl,--wrap=NAME" line per function to f. 0, or -1 on a write error. */
int wrapgen_write_flags(FILE *f, const struct wrapgen_fn *const *fns, size_t n);

#endif
