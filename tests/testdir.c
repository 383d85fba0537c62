/* SPDX-License-Identifier: GPL-3.0-or-later */
/* testdir.c - see testdir.h. */
#include "testdir.h"

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

static char dir[128];

void testdir_make(const char *name)
{
    snprintf(dir, sizeof dir, "/tmp/cygtrace-%s-XXXXXX", name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path); /* what cannot go stays: the rest still goes */
    return 0;
}

void testdir_remove(void)
{
    if (dir[0])
        nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    dir[0] = 0;
}

const char *testdir(void)
{
    return dir;
}

const char *testdir_path(const char *name)
{
    static char p[8][256];
    static unsigned i;
    char *s = p[i++ % 8];

    snprintf(s, sizeof p[0], "%s/%s", dir, name);
    return s;
}
