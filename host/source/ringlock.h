/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ringlock.h - whether a running traced process still writes a ring file. The Linux runtime
 * holds flock(LOCK_EX) on its ring for as long as it has it mapped (the lock goes with the
 * process: at its exit, also by kill -9, or when it unmaps the ring); a shared lock that cannot
 * be had is that writer. Commands ask before they replace or remove a ring. */
#ifndef RINGLOCK_H
#define RINGLOCK_H

/* Returns 1 when a running process holds the ring file at path, 0 when none does (also when
 * there is no such file, or path is a symbolic link, which the runtime never writes through),
 * -1 with errno set when it cannot tell (the file cannot be opened for reading). */
int ringlock_held(const char *path);

#endif
