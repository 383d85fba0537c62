/* cmd_common.c - what the subcommands share: messages and number parsing. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "outfile.h"

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
    cmd_load_warn(l);
    return 0;
}

void cmd_load_warn(const struct load *l)
{
    if (l->warning[0])
        cmd_error("warning: %s", l->warning);
    if (l->map_err[0])
        cmd_error("warning: %s; the functions of shared libraries stay unnamed", l->map_err);
}

int cmd_check_output(const char *out, const char *elf, const char *dump)
{
    static const char *const what[] = {"the ELF", "the dump", "the dump's map"};
    char maps[4096];
    const char *in[3] = {elf, dump, NULL};
    int i;

    if (dump && snprintf(maps, sizeof maps, "%s.maps", dump) < (int)sizeof maps)
        in[2] = maps;
    i = out ? outfile_same(out, in, 3) : outfile_fd_same(STDOUT_FILENO, in, 3);
    if (i < 0)
        return 0;
    cmd_error("%s: is %s (an input); write the output elsewhere", out ? out : "standard output",
              what[i]);
    return 1;
}
