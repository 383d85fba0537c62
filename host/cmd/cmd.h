/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd.h - the subcommands. Each parses its options (through cmd_opts.h), prints its own messages
 * ("cygtrace: INPUT: what is wrong") and returns the exit status: 0 done, 1 bad input or
 * failure, 2 bad usage. */
#ifndef CMD_H
#define CMD_H

#include <stdint.h>
#include <stdio.h>

#include "model/filter.h"
#include "model/pipeline.h"
#include "model/timebase.h"
#include "source/load.h"

/* cygtrace tree [options] [ELF] [DUMP]: the call tree. */
int cmd_tree(int argc, char **argv);

/* cygtrace info [ELF] [DUMP]: what the control block says. */
int cmd_info(int argc, char **argv);

/* cygtrace dump [ELF] [DUMP]: the records one by one. */
int cmd_dump(int argc, char **argv);

/* cygtrace record [options] -- PROGRAM [ARGS]: runs a program with the runtime preloaded. */
int cmd_record(int argc, char **argv);

/* cygtrace report [options] [ELF] [DUMP]: a flat profile per function. */
int cmd_report(int argc, char **argv);

/* cygtrace graph [--function=FUNC] [options] [ELF] [DUMP]: the aggregated call graph. */
int cmd_graph(int argc, char **argv);

/* cygtrace diff [options] ELF1 DUMP1 ELF2 DUMP2: two traces compared, calls and costs. */
int cmd_diff(int argc, char **argv);

/* cygtrace export --format=chrome|folded|callgrind [options] [ELF] [DUMP]: for other tools. */
int cmd_export(int argc, char **argv);

/* cygtrace pull [options] ELF: read the buffer out of a target through a GDB server. */
int cmd_pull(int argc, char **argv);

/* cygtrace arm [options] ELF: write triggers and filters into a target through a GDB server. */
int cmd_arm(int argc, char **argv);

/* How call trees are shown: the options of "tree", shared with "pull" (cmd_show.c). */
struct show_opts {
    int style;          /* enum render_style */
    unsigned max_depth; /* 0: all */
    int collapse;
    int have_thread;
    uint32_t thread;
    const char *thread_name; /* --thread=NAME: a context's name, resolved after the scan
                                (cmd_show_thread); NULL: --thread=N or none */
    int force;          /* decode even when the ELF does not match */
    unsigned show;      /* RENDER_SRCLINE, RENDER_SIGNATURES, RENDER_FULL_PATH */
    int color;          /* --color: 1 always, 0 never, -1 auto (a terminal, TERM, NO_COLOR) */
    const char *only, *hide; /* --only, --hide: function names (cmd_filter.c) */
    int have_min;
    struct filter_dur min;   /* --min-time */
    struct filter_time range; /* --time-range (in ticks once resolved) */
    struct filter_dur from, to;
    int raw_times;           /* --raw-times: durations as recorded, the hooks' cost in them */
    int have_hook_cost;      /* --hook-cost=TIME given */
    double hook_cost;        /* ... its figure per event, in ns (hook_cost_ns) or ticks */
    int hook_cost_ns;
};

enum {
    CMD_SHOW_STYLE = 0x100,
    CMD_SHOW_DEPTH,
    CMD_SHOW_NO_COLLAPSE,
    CMD_SHOW_THREAD,
    CMD_SHOW_FORCE,
    CMD_SHOW_ONLY,
    CMD_SHOW_HIDE,
    CMD_SHOW_MIN_TIME,
    CMD_SHOW_TIME_RANGE,
    CMD_SHOW_SRCLINE,
    CMD_SHOW_SIGNATURES,
    CMD_SHOW_COLOR,
    CMD_SHOW_NO_ARGS,
    CMD_SHOW_TIME,
    CMD_SHOW_TID,
    CMD_SHOW_RAW_TIMES,
    CMD_SHOW_HOOK_COST,
};

/* getopt_long entries of the show options, to put in a command's own table. */
#define CMD_SHOW_LONGOPTS                                                                          \
    {"style", required_argument, 0, CMD_SHOW_STYLE},                                              \
        {"depth", required_argument, 0, CMD_SHOW_DEPTH},                                          \
        {"no-collapse", no_argument, 0, CMD_SHOW_NO_COLLAPSE},                                    \
        {"thread", required_argument, 0, CMD_SHOW_THREAD},                                        \
        {"force", no_argument, 0, CMD_SHOW_FORCE},                                        \
        {"only", required_argument, 0, CMD_SHOW_ONLY},                                    \
        {"hide", required_argument, 0, CMD_SHOW_HIDE},                                    \
        {"min-time", required_argument, 0, CMD_SHOW_MIN_TIME},                            \
        {"time-range", required_argument, 0, CMD_SHOW_TIME_RANGE},                        \
        {"srcline", optional_argument, 0, CMD_SHOW_SRCLINE},                              \
        {"signatures", no_argument, 0, CMD_SHOW_SIGNATURES},                              \
        {"color", required_argument, 0, CMD_SHOW_COLOR},                                  \
        {"no-args", no_argument, 0, CMD_SHOW_NO_ARGS},                                    \
        CMD_HOOK_LONGOPTS

/* getopt_long entries of the hooks' cost options (in the show options; graph takes them
 * alone). */
#define CMD_HOOK_LONGOPTS                                                                          \
    {"raw-times", no_argument, 0, CMD_SHOW_RAW_TIMES},                                            \
        {"hook-cost", required_argument, 0, CMD_SHOW_HOOK_COST}

/* getopt_long entries of the commands that print the tree itself (tree, pull): its columns. */
#define CMD_TREE_LONGOPTS                                                                          \
    {"time", no_argument, 0, CMD_SHOW_TIME}, {"tid", no_argument, 0, CMD_SHOW_TID}

/* Whether --color=auto means colour: stdout is a terminal, TERM is set and not "dumb", and
 * NO_COLOR is unset or empty. */
int cmd_color_auto(void);

/* The usage lines of CMD_HOOK_LONGOPTS. */
#define CMD_HOOK_USAGE                                                                             \
    "  --raw-times                 durations as recorded, the hooks' own cost in them (by\n"   \
    "                              default it is taken out, as the trace measured it)\n"       \
    "  --hook-cost=TIME            the hooks' cost per event to take out (12ns, or ticks),\n"  \
    "                              instead of the trace's figure\n"

/* The usage lines of the show options, and of CMD_TREE_LONGOPTS. */
extern const char cmd_show_usage[];
extern const char cmd_tree_usage[];

/* Sets the defaults. */
void cmd_show_init(struct show_opts *o);

/* export --format=sqlite -o DB, after export's options (o, outname: -o's, may be NULL): n
 * inputs, ELF DUMP pairs from optind (n 1: as cmd_inputs finds them), a trace each; off: the
 * ns --offset shifts each by, or NULL when none was given. With several inputs or an offset,
 * their times go on one clock (cmd_export_map). cmd_export_sqlite.c. Returns the exit
 * status. */
int cmd_export_sqlite(int argc, char **argv, const struct show_opts *o, const char *outname,
                      unsigned n, const int64_t *off);

/* Puts input dump (l open) on the common clock of merged inputs (timebase.h): a saved stream
 * by its host times, a Linux ring by its map's clock pairs, then offset (ns) added; says how
 * on stderr, or that it could not. 0, or 1 after a message. cmd_export.c. */
int cmd_export_map(struct load *l, const char *dump, int64_t offset, struct timebase *tb);

/* Takes an option getopt_long returned: 1 if it was a show option, 0 if not, -2 after a
 * message about a bad value. */
int cmd_show_option(int c, const char *arg, struct show_opts *o);

/* Prints each context's call tree of the trace l holds (elf and dump name the inputs in
 * messages); returns the exit status. */
int cmd_show(struct load *l, const char *elf, const char *dump, const struct show_opts *o);

/* Takes a filter option of the show options (cmd_filter.c): as cmd_show_option. */
int cmd_filter_option(int c, const char *arg, struct show_opts *o);

/* Turns o's filters into what filter.h takes for the trace l holds: names to addresses,
 * durations to ticks (fo->max_depth stays 0: the caller decides who limits the depth); 0, or
 * -1 with "INPUT: what is wrong" in err. */
int cmd_filter_resolve(const struct show_opts *o, const struct load *l, const char *elf,
                       const char *dump, struct filter_opts *fo, struct filter_time *ft,
                       char *err, size_t errlen);

/* The line that says the durations shown are corrected for the hooks' cost, as fo (from
 * cmd_filter_resolve) applies it to the trace l holds: "durations corrected for hook cost: 12.3
 * ns per event (measured by the runtime; --raw-times to show as recorded)", without a prefix
 * or newline, in buf; NULL when nothing is taken out. */
const char *cmd_hook_note(const struct load *l, const struct show_opts *o,
                          const struct filter_opts *fo, char *buf, size_t len);

/* What cmd_filter_run learned of the trace, for the caller's headers and notes. */
struct cmd_filter_run {
    struct tree_scan sc;  /* the contexts (of the events in the time range) */
    struct source_stats st;
    uint64_t unmatched;   /* exits that matched no call */
    uint64_t forced;      /* calls kept because the --min-time hold was full */
    char hook[256];       /* the hooks' cost taken out (cmd_hook_note), "" when none is */
};

/* The thread or context --thread picks: o->thread, or the context o->thread_name names (the
 * scan fed l->names). 0 with *id set, or -1 after a message (dump names the trace). */
int cmd_show_thread(const struct load *l, const struct show_opts *o, const char *dump,
                    uint32_t *id);

/* Says that the thread or context --thread picks (id, as cmd_show_thread gave it) has no
 * events to show. */
void cmd_show_no_thread(const struct show_opts *o, const char *dump, uint32_t id);

/* Gives the sink that context c's filtered tree feeds; NULL when out of memory. */
typedef pipeline_sink_of cmd_sink_of;

/* Builds every context's call tree (only --thread's, if given) through o's filters (--depth
 * too) into the sinks sink_of gives, in two passes over the trace (the scan, then all the
 * trees at once); run->sc is the caller's to free. Returns the exit status after its
 * messages. */
int cmd_filter_run(struct load *l, const char *elf, const char *dump, const struct show_opts *o,
                   cmd_sink_of sink_of, void *arg, struct cmd_filter_run *run);

/* Prints, each on a line that starts with prefix, what a stream lost or dropped. */
void cmd_stream_notes(FILE *f, const char *prefix, const struct sframe_stats *fr,
                      const struct sdec_stats *sd);

/* cygtrace live [options] SOURCE ELF: a running target's calls as they happen. */
int cmd_live(int argc, char **argv);

/* cygtrace wrap [options] [INPUT...]: wrappers (GNU ld --wrap) that trace the calls into a
 * precompiled library. */
int cmd_wrap(int argc, char **argv);

/* Prints "cygtrace: " and the formatted message to stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A note ("cygtrace: note: ...") kept until the command knows its output is whole: a command
 * of several inputs that fails at a later one says its error alone. cmd_notes_end(1) prints
 * the notes kept, in order; cmd_notes_end(0) drops them. */
void cmd_note_later(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_notes_end(int print);

/* Whether a write to the standard output failed so far (a full disk, a closed descriptor):
 * 1 after saying so once ("cygtrace: standard output: REASON"), else 0. A command that would
 * go on for long (a live session, a big dump) asks between its pieces of output and stops. */
int cmd_stdout_failed(void);

/* Says once "cygtrace: standard output: REASON", e the errno of the failed write (0: not
 * known, as when a flush inside printf hit it: the stream keeps the error, not the reason). */
void cmd_stdout_error(int e);

/* The end of every command (main): flushes and closes the standard output and says once why
 * it could not be written. Returns rc, or 1 in place of 0 when the output was not all
 * written: a full disk never leaves a cut report and status 0. */
int cmd_stdout_close(int rc);

/* The trace a command reads when it is given none: what the Linux runtime writes by default. */
#define CMD_DEFAULT_DUMP "cygtrace.out"

/* What a command that reads a trace was given after its options, [ELF] [DUMP], as uftrace
 * takes them: ELF DUMP; one file, an ELF (the dump is CMD_DEFAULT_DUMP) or a dump; nothing
 * (CMD_DEFAULT_DUMP). Without an ELF, the program is the one the dump's map names
 * (load_program). */
struct cmd_inputs {
    const char *elf;  /* NULL: none (info, which reads a dump without one) */
    const char *dump;
    char found[4096]; /* the ELF the map named */
};

/* Resolves the inputs into in; elf_optional: a dump whose program cannot be found is read
 * without one. Returns 0, or the exit
 * status after a message: 2 when there are more than two, 1 when the dump or its program
 * cannot be found. */
int cmd_inputs(int argc, char **argv, const char *cmd, int elf_optional, struct cmd_inputs *in);

#define CMD_LOAD_FORCE (1u << 0)  /* a trace that does not match its ELF is read all the same */
#define CMD_LOAD_NO_ELF (1u << 1) /* a dump whose program cannot be found is read without one */

/* Opens the ELF and the dump that follow the options (cmd_inputs, into in) into l, as flags
 * (CMD_LOAD_*) say, and warns of what it could not check. Returns 0, or the exit status after
 * a message: 2 for a usage error, 1 when they cannot be found or loaded or do not belong
 * together. */
int cmd_load_args(int argc, char **argv, const char *cmd, unsigned flags, struct cmd_inputs *in,
                  struct load *l);

/* Whether the dump l reads changed while it was read (source_check: cut short, replaced): 1
 * after saying so (once, whoever asks), else 0. Asked after a read error, which a file cut
 * short gives, before its own message; and before an output is kept. */
int cmd_dump_changed(struct load *l);

/* The end of a command that read a dump: load_close, and rc; or 1 in place of 0 after the
 * message when the dump changed while it was read (a shorter tree must not look whole). */
int cmd_load_close(struct load *l, int rc);

/* Prints what load_open could not check or use (l->warning, l->map_err) as warnings. */
void cmd_load_warn(const struct load *l);

/* Refuses an output file (NULL: the standard output) that is one of the inputs (elf, dump and
 * DUMP.maps; NULL ones are skipped), through links too: 0, or 1 after a message. */
int cmd_check_output(const char *out, const char *elf, const char *dump);

/* Prints the line above context id's part of a report or a graph, headed as the tree heads it
 * (names_ctx_label), its OS id and events from the scan sc: "# thread 3 (tid 77), 120 events",
 * "# context 2 "uart", 40 events". */
void cmd_ctx_header(const struct load *l, const struct tree_scan *sc, uint32_t id);

/* The first notes under a report's or a graph's numbers: what the times are in (hz: what they
 * are shown with, 0 for clock ticks; st: the scan's, whether the clock ran), and how many calls
 * are only partly in the trace. */
void cmd_notes_times(const struct load *l, const struct source_stats *st, uint64_t hz,
                     uint64_t partial);

/* What a trace whose clock stood still says (source_clock_stood, over the pass st): "all
 * timestamps are 0: the clock did not run (DWT off?)", a line without its end; NULL when the
 * clock ran, or the trace has no timestamps. */
const char *cmd_clock_stood(const struct load *l, const struct source_stats *st);

/* The last notes under them: what the filtered trees skipped or kept (run), and the events
 * that could not be counted (dropped, out of memory). */
void cmd_notes_run(const struct cmd_filter_run *run, uint64_t dropped);

/* --- a GDB server (pull, arm; cmd_common.c) --------------------------------------------------- */

#define CMD_GDB_MAX_MONITOR 16

/* The options that say which GDB server and how to reach the target behind it. */
struct cmd_gdb {
    const char *where; /* --gdb: HOST:PORT or /dev/TTY[:BAUD], checked by rspwhere_parse */
    const char *monitor[CMD_GDB_MAX_MONITOR]; /* --monitor, in order */
    unsigned nmonitor;
    int have_attach;
    unsigned long attach;
    int timeout_ms; /* --timeout; 5000 */
};

enum {
    CMD_GDB_WHERE = 0x200,
    CMD_GDB_MONITOR,
    CMD_GDB_ATTACH,
    CMD_GDB_TIMEOUT,
};

/* getopt_long entries of the GDB server options, to put in a command's own table. */
#define CMD_GDB_LONGOPTS                                                                           \
    {"gdb", required_argument, 0, CMD_GDB_WHERE},                                                  \
        {"monitor", required_argument, 0, CMD_GDB_MONITOR},                                        \
        {"attach", required_argument, 0, CMD_GDB_ATTACH},                                          \
        {"timeout", required_argument, 0, CMD_GDB_TIMEOUT}

/* Sets the defaults. */
void cmd_gdb_init(struct cmd_gdb *g);

/* Takes an option getopt_long returned: 1 if it was a GDB server option, 0 if not, -2 after a
 * message about a bad value. */
int cmd_gdb_option(int c, const char *arg, struct cmd_gdb *g);

/* After the options: 0, or 2 after a message when --gdb is missing (cmd names the command). */
int cmd_gdb_check(const struct cmd_gdb *g, const char *cmd);

struct rsp;

/* Catches SIGINT, SIGTERM and SIGHUP (a wait on the server ends at once on one; cmd_gdb_signal
 * says which), connects, runs the --monitor commands and attaches (--attach). Returns the
 * connection, or NULL after a message (name, "gdb WHERE", names the server in it); either way
 * cmd_gdb_close follows. */
struct rsp *cmd_gdb_connect(const struct cmd_gdb *g, const char *name);

/* Returns the signal that came since cmd_gdb_connect, or 0. */
int cmd_gdb_signal(void);

/* Says why a talk with the server failed: interrupted by a signal, or what (a prefix such as
 * "cyg_rt: ", or "") and err, the reason the failed rsp_* call wrote. */
void cmd_gdb_error(const char *err, const char *name, const char *what);

/* Detaches and closes c (NULL is fine) and gives the signals back their dispositions; then,
 * if a signal came, dies of it as the user meant. Returns that signal if it did not die, or 0. */
int cmd_gdb_close(struct rsp *c);

/* Parses a whole decimal or 0x number into *v; 0, or -1 when s is not one. */
int cmd_parse_u64(const char *s, unsigned long long *v);

#endif
