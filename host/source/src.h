/* SPDX-License-Identifier: GPL-3.0-or-later */
/* src.h - a source of dump bytes: a file read with pread (bounded memory whatever its size) or
 * a buffer already in memory (a dump pulled from a target). Random access: the decoder reads a
 * wrapped ring from the middle. */
#ifndef SRC_H
#define SRC_H

#include <stddef.h>
#include <stdint.h>

struct src;

/* Opens a regular file, and only one: never waits on a named pipe nor opens a device; NULL
 * with a reason in err (strerror text, "is a directory", "a named pipe, not a file", ...). */
struct src *src_open_file(const char *path, char *err, size_t errlen);

/* What is wrong with a file of type mode (st_mode) where a regular file is needed ("a named
 * pipe, not a file", ...), or NULL for a regular file. */
const char *src_not_regular(unsigned mode);

/* Wraps len bytes at buf; the source frees buf on close when owned is set. */
struct src *src_open_mem(const char *name, void *buf, size_t len, int owned);

/* Reads up to len bytes at off into buf; returns the bytes read (fewer at the end of the size
 * src_size gave at open), or -1: a read error, or a file that ends before that size (it shrank
 * since: src_check says so). */
long src_read(struct src *s, uint64_t off, void *buf, size_t len);

/* Whether the file is still what was opened: 0; or -1 with what changed in err ("the file
 * shrank from N to M bytes while it was read") when its size differs now, or a read found it
 * shorter than at open. A writer that cuts or replaces a dump under a reader would otherwise
 * give a shorter tree that looks whole. Memory is never changed: 0. */
int src_check(struct src *s, char *err, size_t errlen);

/* Returns how many of the len bytes at off the source really holds: all of them but a sparse
 * file's holes (which read as zeros, and cost time to read all the same). */
uint64_t src_data_bytes(struct src *s, uint64_t off, uint64_t len);

/* Returns the size in bytes. */
uint64_t src_size(const struct src *s);

/* Returns the name given at open (the path for files). */
const char *src_name(const struct src *s);

/* A view of a source: its bytes as another layout shows them (a version 4 ring as the
 * version 3 ring it stands for: decode/dec4l.c). Its functions read the source through the
 * _raw calls. */
struct src_view {
    long (*read)(void *ctx, struct src *s, uint64_t off, void *buf, size_t len);
    uint64_t (*data)(void *ctx, struct src *s, uint64_t off, uint64_t len);
    uint64_t (*size)(void *ctx, const struct src *s);
    void (*free)(void *ctx);
};

/* Puts view v (with its ctx, freed with the source or the next view) in front of the source:
 * src_read, src_data_bytes and src_size go through it from now on. NULL: none. */
void src_set_view(struct src *s, const struct src_view *v, void *ctx);

/* src_read, src_data_bytes and src_size of the bytes themselves, whatever the view. */
long src_read_raw(struct src *s, uint64_t off, void *buf, size_t len);
uint64_t src_data_bytes_raw(struct src *s, uint64_t off, uint64_t len);
uint64_t src_size_raw(const struct src *s);

/* Closes the source. NULL is fine. */
void src_close(struct src *s);

#endif
