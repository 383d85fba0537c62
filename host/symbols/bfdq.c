/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bfdq.c - libbfd, quietly. */
#include "symbols/bfdq.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>

static void bfd_quiet(const char *fmt, va_list ap)
{
    (void)fmt;
    (void)ap;
}

int bfdq_ready(void)
{
    static int done; /* the only global state: bfd_init() wants one call per process */

    if (!done) {
        if (bfd_init() != BFD_INIT_MAGIC)
            return -1;
        bfd_set_error_handler(bfd_quiet);
        done = 1;
    }
    return 0;
}

static ssize_t discard(void *cookie, const char *buf, size_t len)
{
    (void)cookie;
    (void)buf;
    return (ssize_t)len;
}

bool bfdq_check_format(bfd *abfd, bfd_format format)
{
    /* glibc's stderr is a variable that may be assigned ("Standard Streams"), and libbfd
     * prints through it */
    FILE *saved = stderr, *null = fopencookie(NULL, "w", (cookie_io_functions_t){.write = discard});
    bool ok;

    if (null)
        stderr = null;
    ok = bfd_check_format(abfd, format);
    if (null) {
        stderr = saved;
        fclose(null);
    }
    return ok;
}
