/* cmd_common.c - what the subcommands share: messages and number parsing. */
#include <errno.h>
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

int cmd_parse_u64(const char *s, unsigned long long *v)
{
    char *end;

    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return (errno || *end) ? -1 : 0;
}
