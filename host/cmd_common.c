/* cmd_common.c - what the subcommands share: messages and number parsing. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"

void cmd_error(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fputs("cygtrace: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cmd_bad_option(char **argv, const char *cmd)
{
    const char *opt = argv[optind - 1];

    if (optopt && opt[0] == '-' && opt[1] != '-')
        cmd_error("%s: -%c: unknown option or missing value; see 'cygtrace %s --help'", cmd,
                  optopt, cmd);
    else
        cmd_error("%s: %s: unknown option or missing value; see 'cygtrace %s --help'", cmd, opt,
                  cmd);
}

int cmd_parse_u64(const char *s, unsigned long long *v)
{
    char *end;

    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return (errno || *end) ? -1 : 0;
}

int cmd_load_args(int argc, char **argv, const char *cmd, int force, struct load *l)
{
    char err[512];

    if (argc - optind != 2) {
        cmd_error("%s: needs an ELF file and a dump (see 'cygtrace %s --help')", cmd, cmd);
        return 2;
    }
    if (load_open(l, argv[optind], argv[optind + 1], force, err, sizeof err) < 0) {
        cmd_error("%s", err);
        return 1;
    }
    return 0;
}
