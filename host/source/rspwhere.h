/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rspwhere.h - where a GDB server is, as "--gdb=" gives it: HOST:PORT ("tcp:" in front is
 * fine, [ADDR]:PORT for IPv6, :PORT for this machine), or a serial device path[:BAUD]. */
#ifndef RSPWHERE_H
#define RSPWHERE_H

#include <stddef.h>

#define RSPWHERE_DEFAULT_BAUD 115200u

/* A parsed address. */
struct rspwhere {
    int serial;     /* 1: path is a tty; 0: host and port are a TCP address */
    char host[256]; /* without IPv6 brackets; "127.0.0.1" when ":PORT" left it out */
    char port[8];
    char path[512];
    unsigned baud; /* serial only; RSPWHERE_DEFAULT_BAUD unless given */
};

/* Parses a --gdb= argument into w; 0, or -1 with a reason in err. */
int rspwhere_parse(const char *s, struct rspwhere *w, char *err, size_t errlen);

#endif
