/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c - parses the subcommand and dispatches; everything else lives in cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cyg_format.h"
#include "cyg_stream.h"

#ifndef CYGTRACE_VERSION
#define CYGTRACE_VERSION "0.1"
#endif
#ifndef CYGTRACE_GIT
#define CYGTRACE_GIT "" /* not built from a git checkout */
#endif

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
} cmds[] = {
    {"tree", cmd_tree, "print the call tree of a trace"},
    {"report", cmd_report, "a flat profile: calls, total, self, avg, max per function"},
    {"graph", cmd_graph, "the call graph of a function: its callers and what it called"},
    {"diff", cmd_diff, "compare two traces: where the calls diverge, what got slower"},
    {"export", cmd_export, "write a trace for Perfetto, flame graphs or KCachegrind"},
    {"info", cmd_info, "show what a trace's control block says"},
    {"dump", cmd_dump, "list a trace's records one by one, as they are in the ring"},
    {"pull", cmd_pull, "read the trace out of a target through a GDB server"},
    {"arm", cmd_arm, "arm triggers and record-time filters in a target through a GDB server"},
    {"live", cmd_live, "watch a running target's calls: serial, TCP, pipe, or a Linux ring"},
    {"record", cmd_record, "run a -finstrument-functions program with the runtime preloaded"},
    {"wrap", cmd_wrap, "write wrappers that trace the calls into a precompiled library"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace COMMAND [options] ...\n\ncommands:\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].what);
    fprintf(f, "\n'cygtrace COMMAND --help' shows a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return cmd_stdout_close(0);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("cygtrace %s%s%s%s\n"
               "reads ring buffers of format versions %u to %u and live streams of versions %u "
               "to %u\n",
               CYGTRACE_VERSION, CYGTRACE_GIT[0] ? " (git " : "", CYGTRACE_GIT,
               CYGTRACE_GIT[0] ? ")" : "", CYG_VERSION_MIN, CYG_VERSION, CYG_STREAM_VERSION_MIN,
               CYG_STREAM_VERSION);
        return cmd_stdout_close(0);
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            return cmd_stdout_close(cmds[i].run(argc - 1, argv + 1));
    cmd_error("%s: unknown command; try 'cygtrace --help'", argv[1]);
    return 2;
}
