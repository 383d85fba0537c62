/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_common.c - what the subcommands share: messages, number parsing, and the talk with a GDB
 * server of the commands that reach a target through one (pull, arm). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "output/outfile.h"
#include "source/rsp.h"
#include "source/rspwhere.h"
#include "util/vec.h"

/* Set once the standard output's write error was said: it is said once, whoever sees it. */
static int stdout_told;

void cmd_stdout_error(int e)
{
    if (stdout_told)
        return;
    stdout_told = 1;
    fprintf(stderr, "cygtrace: standard output: %s\n", e ? strerror(e) : "a write failed");
}

void cmd_error(const char *fmt, ...)
{
    va_list ap;

    if (fflush(stdout) != 0) /* what came before the message fails to come: said first */
        cmd_stdout_error(errno);
    fputs("cygtrace: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static char **notes_kept;
static size_t notes_n, notes_cap;

void cmd_note_later(const char *fmt, ...)
{
    va_list ap;
    char *t;

    va_start(ap, fmt);
    if (vasprintf(&t, fmt, ap) < 0)
        t = NULL;
    va_end(ap);
    if (!t)
        return; /* out of memory: a note is what may go */
    if (vec_grow(&notes_kept, &notes_cap, notes_n, sizeof *notes_kept, 8) < 0) {
        free(t);
        return;
    }
    notes_kept[notes_n++] = t;
}

void cmd_notes_end(int print)
{
    for (size_t i = 0; i < notes_n; i++) {
        if (print)
            fprintf(stderr, "cygtrace: note: %s\n", notes_kept[i]);
        free(notes_kept[i]);
    }
    free(notes_kept);
    notes_kept = NULL;
    notes_n = notes_cap = 0;
}

int cmd_stdout_failed(void)
{
    int e;

    if (stdout_told)
        return 1;
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    e = errno;
    cmd_stdout_error(e);
    return 1;
}

int cmd_stdout_close(int rc)
{
    int bad = ferror(stdout), e;

    errno = 0;
    if (fflush(stdout) != 0)
        bad = 1;
    e = errno;
    /* A close that fails says what a write-back found (NFS); one of a descriptor that was
     * closed all along, with nothing written to it, lost nothing. */
    if (fclose(stdout) != 0 && (bad || errno != EBADF)) {
        if (!bad)
            e = errno;
        bad = 1;
    }
    if (!bad)
        return rc;
    cmd_stdout_error(e);
    return rc ? rc : 1;
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

/* Whether path is an ELF file (its first bytes); 0 for one that cannot be read, and for what
 * is no regular file (a named pipe would block the open). */
static int is_elf(const char *path)
{
    unsigned char b[4];
    struct stat st;
    int fd, yes;

    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
        (fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return 0;
    yes = read(fd, b, 4) == 4 && b[0] == 0x7f && !memcmp(b + 1, "ELF", 3);
    close(fd);
    return yes;
}

int cmd_inputs(int argc, char **argv, const char *cmd, int elf_optional, struct cmd_inputs *in)
{
    int n = argc - optind;
    char err[8192];

    in->elf = NULL;
    in->dump = CMD_DEFAULT_DUMP;
    if (n > 2) {
        cmd_error("%s: needs [ELF] [DUMP], %d files given (see 'cygtrace %s --help')", cmd, n, cmd);
        return 2;
    }
    if (n == 2) {
        in->elf = argv[optind];
        in->dump = argv[optind + 1];
        return 0;
    }
    if (n == 1 && is_elf(argv[optind]))
        in->elf = argv[optind];
    else if (n == 1)
        in->dump = argv[optind];
    if (access(in->dump, F_OK) < 0) {
        cmd_error("%s: %s; give the trace: cygtrace %s %s DUMP", in->dump, strerror(errno), cmd,
                  in->elf ? in->elf : "[ELF]");
        return 1;
    }
    if (in->elf)
        return 0;
    if (load_program(in->dump, in->found, sizeof in->found, err, sizeof err) == 0) {
        in->elf = in->found;
        return 0;
    }
    if (elf_optional) /* what is wrong with the map, load says; the rest needs no ELF */
        return 0;
    if (err[0])
        cmd_error("%s; give the ELF: cygtrace %s ELF %s", err, cmd, in->dump);
    else
        cmd_error("%s: no %s.maps names the program that wrote it (a firmware's dump or a "
                  "saved stream); give the ELF: cygtrace %s ELF %s", in->dump, in->dump, cmd,
                  in->dump);
    return 1;
}

int cmd_load_args(int argc, char **argv, const char *cmd, unsigned flags, struct cmd_inputs *in,
                  struct load *l)
{
    char err[512];
    int rc;

    if ((rc = cmd_inputs(argc, argv, cmd, !!(flags & CMD_LOAD_NO_ELF), in)) != 0)
        return rc;
    if (load_open(l, in->elf, in->dump, !!(flags & CMD_LOAD_FORCE), err, sizeof err) < 0) {
        cmd_error("%s", err);
        return 1;
    }
    cmd_load_warn(l);
    return 0;
}

/* Set once the dump's change was said: a read error it caused and the command's end say it
 * once. */
static int dump_told;

int cmd_dump_changed(struct load *l)
{
    char err[768];

    if (dump_told)
        return 1;
    if (!l->source || source_check(l->source, err, sizeof err) == 0)
        return 0;
    cmd_error("%s", err);
    dump_told = 1;
    return 1;
}

int cmd_load_close(struct load *l, int rc)
{
    if (cmd_dump_changed(l) && !rc)
        rc = 1;
    load_close(l);
    return rc;
}

void cmd_ctx_header(const struct load *l, const struct tree_scan *sc, uint32_t id)
{
    size_t k = dec_ctx_find(sc->ctx, &sc->ctx_ix, id);
    const struct dec_ctx *c = k == SIZE_MAX ? NULL : &sc->ctx[k];
    char label[512];

    names_ctx_label(l->names, l->sym, l->ring.load_bias, l->ring.word_bytes, id, c ? c->os_tid : 0,
                    c && c->vfork, label, sizeof label);
    printf("# %s, %" PRIu64 " events\n", label, c ? c->events : 0);
}

const char *cmd_clock_stood(const struct load *l, const struct source_stats *st)
{
    uint64_t at;

    if (!(l->ring.flags & CYG_F_TIMESTAMPS) || !source_clock_stood(st, &at))
        return NULL;
    if (at)
        return "all timestamps are the same: the clock did not run";
    /* a Cortex-M's cycle counter that its debug unit keeps off (or QEMU, which has none) */
    return l->ring.machine == 40 ? "all timestamps are 0: the clock did not run (DWT off?)"
                                 : "all timestamps are 0: the clock did not run";
}

void cmd_notes_times(const struct load *l, const struct source_stats *st, uint64_t hz,
                     uint64_t partial)
{
    const char *stood = cmd_clock_stood(l, st);

    if (!(l->ring.flags & CYG_F_TIMESTAMPS))
        printf("# the trace has no timestamps: only the calls are counted\n");
    else if (stood)
        printf("# %s; only the calls are counted\n", stood);
    else if (!l->ring.ts_hz)
        printf("# times in clock ticks: the trace does not say the clock's rate\n");
    else if (!hz)
        printf("# times in clock ticks of %" PRIu64 " Hz\n", l->ring.ts_hz);
    if (partial)
        printf("# %" PRIu64 " calls are only partly in the trace (entered before it, never "
               "returned, or still running): their known part is counted\n", partial);
}

void cmd_notes_run(const struct cmd_filter_run *run, uint64_t dropped)
{
    if (run->forced)
        printf("# %" PRIu64 " calls shorter than --min-time were kept: more than %u events "
               "happened inside them before it was known\n", run->forced, FILTER_HOLD);
    if (run->unmatched)
        printf("# %" PRIu64 " exits matched no call and were skipped\n", run->unmatched);
    if (dropped)
        printf("# %" PRIu64 " events could not be counted (out of memory)\n", dropped);
}

void cmd_load_warn(const struct load *l)
{
    if (l->warning[0])
        cmd_error("warning: %s", l->warning);
    if (l->map_err[0]) /* a Linux ring's names its libraries, a pulled firmware's its tasks */
        cmd_error("warning: %s; what it names (shared libraries' functions, tasks) stays "
                  "unnamed", l->map_err);
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

/* --- a GDB server ----------------------------------------------------------------------------- */

void cmd_gdb_init(struct cmd_gdb *g)
{
    memset(g, 0, sizeof *g);
    g->timeout_ms = 5000;
}

int cmd_gdb_option(int c, const char *arg, struct cmd_gdb *g)
{
    struct rspwhere w;
    char err[512], *end;
    unsigned long long n;
    double secs;

    switch (c) {
    case CMD_GDB_WHERE:
        if (rspwhere_parse(arg, &w, err, sizeof err) < 0) {
            cmd_error("--gdb=%s: %s", arg, err);
            return -2;
        }
        g->where = arg;
        return 1;
    case CMD_GDB_MONITOR:
        if (g->nmonitor == CMD_GDB_MAX_MONITOR) {
            cmd_error("--monitor: at most %d commands", CMD_GDB_MAX_MONITOR);
            return -2;
        }
        g->monitor[g->nmonitor++] = arg;
        return 1;
    case CMD_GDB_ATTACH:
        if (cmd_parse_u64(arg, &n) < 0 || n > ULONG_MAX) {
            cmd_error("--attach=%s: not a target number", arg);
            return -2;
        }
        g->have_attach = 1;
        g->attach = (unsigned long)n;
        return 1;
    case CMD_GDB_TIMEOUT:
        errno = 0;
        secs = strtod(arg, &end);
        if (errno || end == arg || *end || !(secs > 0 && secs <= 3600)) {
            cmd_error("--timeout=%s: not a number of seconds (0 < S <= 3600)", arg);
            return -2;
        }
        g->timeout_ms = secs * 1000 < 1 ? 1 : (int)(secs * 1000);
        return 1;
    default:
        return 0;
    }
}

int cmd_gdb_check(const struct cmd_gdb *g, const char *cmd)
{
    if (g->where)
        return 0;
    cmd_error("%s: needs --gdb=HOST:PORT or --gdb=/dev/TTY (see 'cygtrace %s --help')", cmd, cmd);
    return 2;
}

/* Ctrl-C (or a kill) while we talk to the target: the wait ends at once (rsp_set_stop), and the
 * command still detaches, so that the target is not left stopped under its debugger (or with
 * a breakpoint in it); only then does the process die of the signal. */
static volatile sig_atomic_t gdb_signal;

static void on_signal(int sig)
{
    gdb_signal = sig;
}

/* on: our handler for the signals that end a program, except those ignored (nohup); off: the
 * dispositions as they were. */
static void catch_signals(int on)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    static struct sigaction old[3];
    static int caught[3];
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a wait ends at once */
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) {
        if (on && sigaction(sigs[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
            caught[i] = sigaction(sigs[i], &sa, NULL) == 0;
        else if (!on && caught[i])
            caught[i] = sigaction(sigs[i], &old[i], NULL) != 0;
    }
}

static void monitor_output(void *arg, const char *text, size_t len)
{
    (void)arg;
    fwrite(text, 1, len, stderr);
}

struct rsp *cmd_gdb_connect(const struct cmd_gdb *g, const char *name)
{
    char err[1024];
    struct rsp *c;

    catch_signals(1);
    rsp_set_stop(&gdb_signal); /* every wait ends at once on Ctrl-C, not at --timeout */
    if (!(c = rsp_connect(g->where, g->timeout_ms, err, sizeof err))) {
        cmd_error("gdb %s", err);
        return NULL;
    }
    for (unsigned i = 0; i < g->nmonitor; i++)
        if (rsp_monitor(c, g->monitor[i], monitor_output, NULL, err, sizeof err) < 0)
            goto fail;
    if (g->have_attach && rsp_attach(c, g->attach, err, sizeof err) < 0)
        goto fail;
    return c;
fail:
    cmd_gdb_error(err, name, "");
    rsp_close(c);
    return NULL;
}

int cmd_gdb_signal(void)
{
    return gdb_signal;
}

void cmd_gdb_error(const char *err, const char *name, const char *what)
{
    /* Whatever the wait was (a reply, console output, a read), Ctrl-C ended it. */
    if (gdb_signal)
        cmd_error("%s: interrupted; detached from the target", name);
    else
        cmd_error("%s: %s%s", name, what, err);
}

int cmd_gdb_close(struct rsp *c)
{
    rsp_close(c);
    catch_signals(0);
    rsp_set_stop(NULL);
    if (gdb_signal) /* now that the target is free, die of the signal as the user meant */
        raise(gdb_signal);
    return gdb_signal;
}
