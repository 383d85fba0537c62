/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bfdq.h - libbfd, quietly: what every reader of ELF files through bfd (sym.c, wrapin.c) needs
 * first. A library must not print; bfd would, on stderr. */
#ifndef BFDQ_H
#define BFDQ_H

#include <bfd.h>
#include <stdbool.h>

/* Initialises bfd once per process, with an error handler that prints nothing (the callers say
 * what went wrong, once). 0, or -1 when the library is not the version we were built with. */
int bfdq_ready(void);

/* bfd_check_format, quiet: bfd 2.39+ gathers the warnings of bfd_check_format ("section
 * extending past end of file") and writes them with fprintf(stderr) (format.c: print_warnmsg),
 * past the error handler. For the length of the call the stdio stream stderr (not the
 * process's fd 2, which nothing else sees change) is one that discards what it is given. The
 * host tool is single-threaded; if that stream cannot be made the warnings just show. */
bool bfdq_check_format(bfd *abfd, bfd_format format);

#endif
