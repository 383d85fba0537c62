/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fakegdb.h - the unit tests' side of tests/fake_gdb.c, a fake GDB server: start it in one of
 * its modes over an image of target memory, connect to it, and see how it ended. */
#ifndef FAKEGDB_H
#define FAKEGDB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/rsp.h"

#define FAKE_ADDR 0x20000000u /* where the image sits in the fake target's memory */
#define FAKE_BYTES 1024u      /* the image's size, unless given */

struct fake {
    pid_t pid;
    char where[32];           /* "127.0.0.1:PORT" */
    struct rsp *c;            /* connected */
    char err[512];            /* for the requests' reasons */
};

/* Starts fake_gdb MODE (see fake_gdb.c) serving the FAKE_BYTES of image at FAKE_ADDR (NULL:
 * bytes i & 0xff), in the current test directory (testdir_make), and connects. */
void fake_start(struct fake *f, const char *mode, const uint8_t *image);

/* The same with len bytes of image (not NULL). */
void fake_start_n(struct fake *f, const char *mode, const uint8_t *image, size_t len);

/* Detaches; returns fake_gdb's exit status (0: it saw the detach). */
int fake_end(struct fake *f);

#endif
