/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outfile.h - the files the host tool writes (export -o, pull -o), written so that nothing is
 * ever destroyed: an output that is one of the command's inputs is refused before anything is
 * opened, and a regular file is written into a temporary file beside it and renamed over it
 * only once complete. An error, Ctrl-C or a kill leaves the old file (or none) in place, never
 * half of a new one. What is not a regular file (a terminal, /dev/null, a named pipe) is
 * written directly: there is nothing to rename there. */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct outfile;

/* Whether path (it may not exist yet) is the same file as inputs[i], through symbolic or hard
 * links: returns that i, or -1 when it is none of them. NULL inputs are skipped. */
int outfile_same(const char *path, const char *const *inputs, size_t n);

/* Whether the open descriptor fd (the standard output) is inputs[i]: that i, or -1. */
int outfile_fd_same(int fd, const char *const *inputs, size_t n);

/* Opens path for writing through a temporary file in its directory; NULL with a one-line
 * reason in err. Until outfile_commit or outfile_abort, SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * remove the temporary file and then end the process as they would have: one outfile at a
 * time. */
struct outfile *outfile_open(const char *path, char *err, size_t errlen);

/* The stream to write to. */
FILE *outfile_stream(struct outfile *o);

/* The temporary file's path, for a writer that opens it by name (an SQLite database); NULL
 * when path is written directly (not a regular file). */
const char *outfile_tmpname(const struct outfile *o);

/* Flushes and closes, then renames the temporary file over path (the mode of the file it
 * replaces is kept; a new file gets 0666 less the umask); frees o. 0, or -1 with a reason in
 * err and path left as it was. */
int outfile_commit(struct outfile *o, char *err, size_t errlen);

/* Closes and removes the temporary file, leaving path as it was; frees o. NULL is fine. */
void outfile_abort(struct outfile *o);

#endif
