/* SPDX-License-Identifier: MIT */
/* cygtrace_linux.h - what the Linux port's files share; not for users.
 *
 * The port lives inside other people's processes. Everything below that may run at a hook's
 * first event (a forked child's set-up) keeps to system calls and the port's own helpers:
 * no malloc, no stdio, no lock of the C library, so that it is safe in a signal handler too.
 */
#ifndef CYGTRACE_LINUX_H
#define CYGTRACE_LINUX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cygtrace_internal.h"

/* --- cygtrace_file.c: messages and the trace's files ------------------------------------- */

/* Remembers which file descriptor 2 is, so that later messages go there only while it is
 * still that file (a daemon may close it and open its own data as fd 2). */
void cyg_file_note_stderr(void) CYG_HIDDEN;

/* Writes "cygtrace: WHAT[: WHY][: strerror(err)]" as one line to the noted stderr; async-
 * signal-safe. what2 and err may be NULL and 0. */
void cyg_say(const char *what, const char *what2, int err) CYG_HIDDEN;

/* Appends s to the string at out (size len), cutting it to fit; returns out. */
char *cyg_cat(char *out, size_t len, const char *s) CYG_HIDDEN;

/* Appends s as a field of RING.maps (a path: the rest of its line): a byte below 0x20, 0x7f
 * and up, and a backslash as \xNN, so that no name can end the line or start another
 * (docs/FORMAT.md section 12); cut to fit between escapes, never inside one; returns out. */
char *cyg_cat_escaped(char *out, size_t len, const char *s) CYG_HIDDEN;

/* Appends v in decimal; returns out. */
char *cyg_cat_ulong(char *out, size_t len, unsigned long v) CYG_HIDDEN;

/* Opens path (O_WRONLY or O_RDWR in access) as a private file of this user: created 0600 if it
 * does not exist; if it does, only a regular file of this user with a single link, never
 * through a symbolic link at its last component. Returns a descriptor (O_CLOEXEC), or -1 after
 * saying on stderr why, and then otherwise (what follows: "not tracing"). */
int cyg_file_open_private(const char *path, int access, const char *otherwise) CYG_HIDDEN;

/* Opens path for appending only if it is the very file (dev, ino) of an earlier open: a map
 * that was removed or replaced since is not written to. Returns a descriptor or -1. */
int cyg_file_reopen(const char *path, dev_t dev, ino_t ino) CYG_HIDDEN;

/* The result of cyg_file_map_ring. */
struct cyg_file_ring {
    void *mem;       /* the shared mapping, or NULL */
    size_t bytes;    /* its length: the records' share is a power of two, the header on top */
    int busy;        /* path is the live ring of another process */
    uint32_t owner;  /* that process's pid, as its control block says (0: not known yet) */
};

/* Maps path as this process's ring of records_bytes (a power of two) plus the header:
 * opens it privately, takes the exclusive flock that marks it in use for as long as the
 * mapping lives (no descriptor is kept), empties it, and reserves its blocks so that no store
 * to it can fault on a full disk, halving the size down to min_bytes when they do not fit.
 * Says on stderr what it could not do; sets busy without a word when another process holds
 * the file. */
struct cyg_file_ring cyg_file_map_ring(const char *path, size_t records_bytes,
                                       size_t min_bytes) CYG_HIDDEN;

/* --- cygtrace_maps.c: the map of loaded objects -------------------------------------------- */

/* Whether a loaded object other than this runtime's own calls the hooks (a dynamic relocation
 * against __cyg_profile_func_enter), or the runtime is linked into the program itself. */
int cyg_maps_instrumented(void) CYG_HIDDEN;

/* Whether addr, a link-time address of the program, lies in one of its executable segments. */
int cyg_maps_in_code(uint64_t addr) CYG_HIDDEN;

/* The program's load bias and GNU build-id (*id, returns its length; 0: none). */
size_t cyg_maps_image(uint64_t *bias, const uint8_t **id) CYG_HIDDEN;

/* Creates path.maps (private, emptied) and writes the header and the process line, then the
 * objects: from dl_iterate_phdr, or, for a forked child (copy_from: its parent's map, which
 * names the same objects), copied line by line with system calls only. Returns 0, or -1 when
 * no map could be made (the ring stays: its addresses go unnamed). */
int cyg_maps_start(const char *path, const char *process_line, const char *copy_from) CYG_HIDDEN;

/* Appends the objects loaded since the last call (after a dlopen). */
void cyg_maps_refresh(void) CYG_HIDDEN;

/* Appends "thread INDEX TID[ vfork]" to this process's map, so that a thread whose THREAD
 * record the ring has overwritten keeps its OS id; system calls only (a thread's first event
 * may be in a signal handler). */
void cyg_maps_thread(unsigned index, long tid, int vfork) CYG_HIDDEN;
/* Appends "clock TICKS NS": the ring's clock and CLOCK_MONOTONIC read together (FORMAT.md
 * section 12), so that a host puts this trace and others on one clock. */
void cyg_maps_clock(uint64_t ticks, uint64_t ns) CYG_HIDDEN;

/* Appends line to another process's map (the run's first process: "child" lines). */
void cyg_maps_append_to(const char *maps_path, const char *line) CYG_HIDDEN;

/* In a forked child: the map to write is the child's own, once it sets up. */
void cyg_maps_forget(void) CYG_HIDDEN;

/* --- cygtrace_peek.c: the loaded objects' bytes, read without faulting ------------------- */

#define CYG_PEEK_WAYS 4u       /* windows kept */
#define CYG_PEEK_WINDOW 4096u  /* bytes a window: at most a page, aligned */

/* What cyg_peek reads through: a few windows of memory copied, and /proc/self/mem's
 * descriptor when that is the way (-1: not opened; -2: cannot be). */
struct cyg_peek {
    uintptr_t at[CYG_PEEK_WAYS];
    unsigned valid; /* a bit per window */
    unsigned next;
    int mem_fd;
    unsigned char win[CYG_PEEK_WAYS][CYG_PEEK_WINDOW];
};

/* A reader (mapped memory, no malloc), or NULL. */
struct cyg_peek *cyg_peek_new(void) CYG_HIDDEN;

/* Closes its descriptor and unmaps it; pk may be NULL. */
void cyg_peek_free(struct cyg_peek *pk) CYG_HIDDEN;

/* Copies len bytes of this process's memory at from into to, through the kernel: a byte that
 * cannot be read (unmapped, or a file mapping past the end of its file, where a plain read
 * raises SIGBUS) fails the copy instead of faulting. Returns 0, or -1. */
int cyg_peek(struct cyg_peek *pk, void *to, const void *from, size_t len) CYG_HIDDEN;

/* --- cygtrace_syms.c: functions by name ---------------------------------------------------- */

#define CYG_SYMS_MAX 24u      /* names looked up at once */
#define CYG_SYMS_NAME_MAX 128u /* a name's bytes with its NUL, at most */

/* What cyg_syms_find found for one name. */
struct cyg_syms_hit {
    uintptr_t addr;  /* the run-time address of the definition chosen; 0: none */
    unsigned here;   /* definitions at distinct addresses in the object of the one chosen */
    unsigned count;  /* definitions at distinct addresses in all the objects */
    unsigned ifunc;  /* STT_GNU_IFUNC symbols of that name (never chosen) */
    char where[64];  /* that object: "the program", or its file's name */
    char other[64];  /* another object that defines it too, or "" */
};

/* Looks up n (at most CYG_SYMS_MAX) function names in the loaded objects (cygtrace_syms.c says
 * how) into hits[0..n): the program's definition first, else the first library's in load
 * order; in one object a global definition before a weak one before a static one. Files are
 * read with bounded preads; no malloc, no descriptor kept. Returns how many were found. */
unsigned cyg_syms_find(const char *const *names, unsigned n, struct cyg_syms_hit *hits)
    CYG_HIDDEN;

/* --- cygtrace_linux.c: the settings ------------------------------------------------------- */

/* A CYGTRACE_* variable that is set and not empty; never for a privileged program (read with
 * secure_getenv). */
const char *cyg_linux_env(const char *name) CYG_HIDDEN;

/* --- cygtrace_envctrl.c: triggers and filters from the environment ------------------------ */

/* Reads CYGTRACE_TRIGGER, _EXCLUDE, _HIDE, _DEPTH and _EVENTS, with the other settings (before
 * any ring: messages about their syntax come first). */
void cyg_envctrl_read(void) CYG_HIDDEN;

/* Arms what they name in the ring just made (cygtrace_init done, not started yet); at the
 * first set-up, after resolving the names (bias: the program's load bias, for 0x addresses).
 * System calls only in a forked child (forked set), whose set-up runs at its first event. */
void cyg_envctrl_arm(int forked, uint64_t bias) CYG_HIDDEN;

/* After a dlopen: arms the names that nothing loaded before defined, if what it brought does. */
void cyg_envctrl_dlopened(uint64_t bias) CYG_HIDDEN;

#endif
