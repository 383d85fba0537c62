/* SPDX-License-Identifier: GPL-3.0-or-later */
/* suites.h - every module's Check suite, for the runner in check_main.c: one list, which
 * declares them here and runs them there. Add a suite: write tests/check_<module>.c with
 * <module>_suite() and add its line to SUITES (in the order the runner runs them). */
#ifndef SUITES_H
#define SUITES_H

#include <check.h>

#define SUITES(X)                       \
    X(format)                           \
    X(dec)                              \
    X(hdr)                              \
    X(dec4m)                            \
    X(tree)                             \
    X(render)                           \
    X(sym)                              \
    X(runtime)                          \
    X(rsp)                              \
    X(rttread)                          \
    X(wire)                             \
    X(follow)                           \
    X(stream)                           \
    X(fnstat)                           \
    X(drain)                            \
    X(vlines)                           \
    X(filter)                           \
    X(export)                           \
    X(pbenc)                            \
    X(perfetto)                         \
    X(timebase)                         \
    X(sqlout)                           \
    X(modmap)                           \
    X(names)                            \
    X(dwarf)                            \
    X(ringlock)                         \
    X(outfile)                          \
    X(load)                             \
    X(source)                           \
    X(pipeline)                         \
    X(wrapgen)                          \
    X(wval)                             \
    X(graph)                            \
    X(ctrl)                             \
    X(control)                          \
    X(rtt)                              \
    X(rtos)                             \
    X(taskstat)                         \
    X(ctxtab)                           \
    X(crc32)                            \
    X(diff)                             \
    X(dec4l)

#define SUITES_DECLARE(name) Suite *name##_suite(void);
SUITES(SUITES_DECLARE)
#undef SUITES_DECLARE

#endif
