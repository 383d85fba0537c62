/* bfdq.c - libbfd, quietly. */
#include "symbols/bfdq.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

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

bool bfdq_check_format(bfd *abfd, bfd_format format)
{
    int null_fd, saved = -1;
    bool ok;

    fflush(stderr);
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd >= 0) {
        saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
        if (saved >= 0 && dup2(null_fd, 2) < 0) {
            close(saved);
            saved = -1;
        }
        close(null_fd);
    }
    ok = bfd_check_format(abfd, format);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    return ok;
}
