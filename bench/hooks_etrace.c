/* SPDX-License-Identifier: MIT */
/* hooks_etrace.c - the etrace way: one text line per event through stdio, as etrace's ptrace.c
 * does (it writes to a FIFO named TRACE; here a file, BENCH_ETRACE_OUT or etrace.out). */
#include <stdio.h>
#include <stdlib.h>

#define NOINSTR __attribute__((no_instrument_function))

static FILE *trace_file;

NOINSTR __attribute__((constructor)) static void trace_open(void)
{
    const char *path = getenv("BENCH_ETRACE_OUT");

    trace_file = fopen(path && *path ? path : "etrace.out", "w");
}

NOINSTR __attribute__((destructor)) static void trace_close(void)
{
    if (trace_file)
        fclose(trace_file);
    trace_file = NULL;
}

NOINSTR void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    if (trace_file)
        fprintf(trace_file, "enter %p\n", fn);
}

NOINSTR void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)site;
    if (trace_file)
        fprintf(trace_file, "exit %p\n", fn);
}
