/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_opts.h - the commands' option parsing: one getopt_long loop for all of them. A command
 * describes its options (its getopt_long table, which of the shared sets it takes, its --help
 * and a function for its own options) and cmd_opts_parse runs the loop, so that every command
 * answers --help, an unknown option and a bad value of a shared one the same way. */
#ifndef CMD_OPTS_H
#define CMD_OPTS_H

#include <getopt.h>
#include <stdio.h>

struct show_opts;
struct cmd_gdb;

/* The code of --help in every command's table (and -h where the short options have it). */
#define CMD_OPTS_HELP 'h'

struct cmd_opts {
    const char *cmd;             /* "tree": the command, for messages */
    const struct option *table;  /* getopt_long's: every long option the command takes */
    const char *shortopts;       /* getopt_long's; NULL: none */
    struct show_opts *show;      /* takes the show options into it (cmd_show_option); or NULL */
    struct cmd_gdb *gdb;         /* takes the GDB server options into it (cmd_gdb_option) and
                                    wants --gdb; or NULL */
    void (*usage)(FILE *f);      /* --help */
    /* Takes one of the command's own options (c as getopt_long returns it, val its value or
     * NULL): 0, or the exit status after a message about the value. NULL: none. */
    int (*take)(void *arg, int c, char *val);
    void *arg;
};

/* Parses argv's options as p says, optind at the first operand after it: -1 to go on, or the
 * exit status: 0 after --help, 2 after a message (an unknown option, a bad value, no --gdb). */
int cmd_opts_parse(const struct cmd_opts *p, int argc, char **argv);

/* After cmd_opts_parse: 0 when n operands follow the options, else 2 after "CMD: needs WHAT
 * (see 'cygtrace CMD --help')". */
int cmd_opts_need(int argc, const char *cmd, int n, const char *what);

#endif
