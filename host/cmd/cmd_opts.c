/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_opts.c - the one getopt_long loop of the commands (cmd_opts.h). */
#include "cmd/cmd_opts.h"
#include "cmd/cmd.h"

/* After getopt_long returned '?': says which option was wrong, in one line. getopt's own
 * message is off (opterr): it would be a second line, worded otherwise. */
static void bad_option(char **argv, const char *cmd)
{
    const char *opt = argv[optind - 1];

    if (optopt && opt[0] == '-' && opt[1] != '-')
        cmd_error("%s: -%c: unknown option or missing value; see 'cygtrace %s --help'", cmd,
                  optopt, cmd);
    else
        cmd_error("%s: %s: unknown option or missing value; see 'cygtrace %s --help'", cmd, opt,
                  cmd);
}

/* One option: -1 to go on, else the exit status (0 after --help). The shared sets first: their
 * codes (CMD_SHOW_*, CMD_GDB_*) are none of a command's own. */
static int take(const struct cmd_opts *p, int c, char **argv)
{
    int rc;

    if (c == CMD_OPTS_HELP) {
        p->usage(stdout);
        return 0;
    }
    if (p->show && (rc = cmd_show_option(c, optarg, p->show)) != 0)
        return rc == 1 ? -1 : 2;
    if (p->gdb && (rc = cmd_gdb_option(c, optarg, p->gdb)) != 0)
        return rc == 1 ? -1 : 2;
    if (c != '?' && p->take)
        return (rc = p->take(p->arg, c, optarg)) ? rc : -1;
    bad_option(argv, p->cmd);
    return 2;
}

int cmd_opts_parse(const struct cmd_opts *p, int argc, char **argv)
{
    const char *shortopts = p->shortopts ? p->shortopts : "";
    int c, rc;

    optind = 1;
    opterr = 0; /* our own one-line message instead of getopt's */
    while ((c = getopt_long(argc, argv, shortopts, p->table, NULL)) != -1)
        if ((rc = take(p, c, argv)) >= 0)
            return rc;
    if (p->gdb && (rc = cmd_gdb_check(p->gdb, p->cmd)))
        return rc;
    return -1;
}

int cmd_opts_need(int argc, const char *cmd, int n, const char *what)
{
    if (argc - optind == n)
        return 0;
    cmd_error("%s: needs %s (see 'cygtrace %s --help')", cmd, what, cmd);
    return 2;
}
