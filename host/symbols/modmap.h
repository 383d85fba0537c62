/* SPDX-License-Identifier: GPL-3.0-or-later */
/* modmap.h - the map of a Linux process's loaded objects (RING.maps, written by the runtime
 * beside the ring): names the functions of shared libraries and dlopen'ed plugins, and says
 * which process wrote the ring and which other processes of the run wrote their own.
 *
 * The file, one line each, fields separated by one space, numbers in hex without 0x:
 *   cygtrace-maps 1
 *   process PID PPID HOW PARENT        HOW: start (first process of the run), fork or exec;
 *                                      PARENT: the ring of the process it came from, or -
 *   object START END BIAS BUILD-ID PATH  run-time address range of the object's segments,
 *                                      run-time minus link-time address, GNU build-id (or -),
 *                                      absolute path (the rest of the line); the first object
 *                                      is the program itself; later lines win where ranges
 *                                      overlap (an object dlclose'd and another loaded there)
 *   child PID PPID HOW RING            in the first process's map only: a process of the run
 *                                      that records into RING (decimal PIDs)
 *   ctxname ID NAME                    context ID (decimal) is called NAME (the rest of the
 *                                      line): a firmware dump's, written by cygtrace pull -o
 *   objname HANDLE TYPE NAME           the kernel object at HANDLE is of type TYPE (decimal,
 *                                      CYG_OBJ_*) and called NAME
 * In a NAME, \xNN (two hex digits) stands for a byte outside printable ASCII, and for a
 * backslash; in a PATH, PARENT or RING too (a path may hold a newline), where a backslash
 * that starts no such escape is itself. Unknown lines are skipped, so that later runtimes may
 * add kinds. */
#ifndef MODMAP_H
#define MODMAP_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "symbols/names.h"
#include "symbols/sym.h"

struct modmap;

struct modmap_object {
    uint64_t start, end; /* run-time addresses, end exclusive */
    uint64_t bias;       /* run-time minus link-time address */
    uint8_t build_id[32];
    size_t build_id_len;
    const char *path;
    const char *base; /* the file name without its directory: what names show */
};

struct modmap_process {
    uint32_t pid, ppid; /* 0 when the map does not say */
    const char *how;    /* "start", "fork", "exec", or "" */
    const char *ring;   /* PARENT of a process line, RING of a child line; "" for none */
};

/* Parses a map held in text (len bytes); NULL with a reason in err when it is not one. */
struct modmap *modmap_parse(const char *text, size_t len, char *err, size_t errlen);

/* Beyond any map the runtime writes (a line per loaded object): a file larger is refused. */
#define MODMAP_MAX_BYTES (16u << 20)

/* Reads the file path; NULL with err[0] == 0 when there is no such file, NULL with a reason
 * in err when it cannot be read or is not a map (not a regular file, larger than
 * MODMAP_MAX_BYTES). */
struct modmap *modmap_open(const char *path, char *err, size_t errlen);

/* Frees the map and every object file it opened. NULL is fine. */
void modmap_close(struct modmap *m);

/* The names of its ctxname and objname lines, handed over (the caller frees them); NULL when
 * it has none, or they were handed over already. */
struct names *modmap_take_names(struct modmap *m);

/* Writes a map that holds the names of n (its "cygtrace-maps 1" line, a ctxname line per named
 * context, an objname line per named object) to f: 0, or -1 on a write error. */
int modmap_write_names(FILE *f, const struct names *n);

/* Returns the number of objects; modmap_object(m, i) is the i-th, in file order. */
size_t modmap_count(const struct modmap *m);

/* Returns the i-th object (i < modmap_count). */
const struct modmap_object *modmap_object(const struct modmap *m, size_t i);

/* Returns what the process line says (zeros and "" when there is none). */
const struct modmap_process *modmap_process(const struct modmap *m);

/* Returns the number of child lines; modmap_child(m, i) is the i-th. */
size_t modmap_children(const struct modmap *m);

/* Returns the i-th child line (i < modmap_children). */
const struct modmap_process *modmap_child(const struct modmap *m, size_t i);

/* The OS thread id of thread index, from the map's thread lines (*vfork: a vfork child, the id
 * its pid); 0 when the map does not say (m may be NULL). */
uint32_t modmap_thread(const struct modmap *m, uint32_t index, int *vfork);

/* The ring's clock against CLOCK_MONOTONIC ns, from the map's clock lines: the first
 * (set-up) and the last (exit) pair. Returns how many (0, 1 or 2; m may be NULL). */
unsigned modmap_clock(const struct modmap *m, uint64_t ticks[2], int64_t ns[2]);

/* The function at run-time address addr in an object other than the program: the object's
 * ELF is opened on the first address that falls in it (not at all when its build-id differs
 * from the map's), and the function comes back named "BASE:NAME" with its start in the
 * program's link-time addresses (run-time minus main_bias), as sym_lookup on the program's
 * table gives them. NULL when no object of the map holds it or it holds no function there. */
const struct sym_info *modmap_lookup(struct modmap *m, uint64_t addr, uint64_t main_bias);

/* Makes sym_lookup on the program's table main (loaded at main_bias) fall back on the map for
 * the addresses it does not know. m must outlive main's use. */
void modmap_attach(struct modmap *m, struct sym_table *main, uint64_t main_bias);

#endif
