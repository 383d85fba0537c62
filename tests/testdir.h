/* SPDX-License-Identifier: GPL-3.0-or-later */
/* testdir.h - a temporary directory for the suites that make files: made by a fixture,
 * removed with everything in it by the matching teardown. */
#ifndef TESTDIR_H
#define TESTDIR_H

/* Makes /tmp/cygtrace-NAME-XXXXXX (fails the test when it cannot). */
void testdir_make(const char *name);

/* Removes the directory and all it holds. */
void testdir_remove(void);

/* The directory itself. */
const char *testdir(void);

/* The path of name in the directory; the last 8 results stay valid. */
const char *testdir_path(const char *name);

#endif
