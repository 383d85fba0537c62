/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_record.c - "cygtrace record": run a -finstrument-functions program with the runtime
 * preloaded (as uftrace preloads libmcount), wait for it, and say what was recorded. Its exit
 * status is the program's (128 + N when signal N killed it, 127 when it could not be run),
 * whatever the trace turned out to be: record can sit in a script or a make rule in place of
 * the program.
 *
 * The program's hooks resolve to glibc's empty __cyg_profile_func_* stubs unless something
 * interposes them: LD_PRELOAD of libcygtrace.so does. A program linked with libcygtrace.a
 * keeps its own copy and only takes the environment.
 *
 * Triggers and record-time filters (--trigger, --exclude, --hide, --depth, --events) reach the
 * runtime through the environment (CYGTRACE_TRIGGER...), which resolves the names in the
 * program and its libraries: here only their syntax is checked (ctrl.c, as the runtime parses
 * it), so that a typo stops record before the program runs rather than being a line on the
 * program's stderr. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "decode/ctrl.h"
#include "cyg_format.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "symbols/modmap.h"
#include "source/ringlock.h"
#include "source/src.h"

/* Finds libcygtrace.so beside this binary: build/ layout, then an installed one. */
static int find_runtime(char *out, size_t len)
{
    static const char *const rel[] = {"/linux/libcygtrace.so", "/../lib/libcygtrace.so"};
    char exe[PATH_MAX], *slash;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

    if (n <= 0)
        return -1;
    exe[n] = 0;
    if (!(slash = strrchr(exe, '/')))
        return -1;
    *slash = 0;
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        if (strlen(exe) + strlen(rel[i]) >= len)
            continue;
        strcpy(out, exe);
        strcat(out, rel[i]);
        if (access(out, R_OK) == 0)
            return 0;
    }
    return -1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace record [options] [--] PROGRAM [ARGS...]\n"
               "  -o, --output=FILE   trace file (default cygtrace.out)\n"
               "  --size=BYTES        ring size, K/M/G suffixes (default 16M)\n"
               "  --mode=overwrite|stop  keep the newest events (default) or the oldest\n"
               "  --callsites         record call sites too (for --style=braces)\n"
               "  --trigger=SPEC      start@FUNC, stop@FUNC, freeze@FUNC[+N], freeze@mark:ID[+N];\n"
               "                      comma-separated or repeated, at most %u\n"
               "  --exclude=FUNC,...  do not record these functions' own events (their callees'\n"
               "                      are)\n"
               "  --hide=FUNC,...     do not record these functions nor anything they call\n"
               "                      (at most %u functions with --exclude)\n"
               "  --depth=N           record calls to depth N of each thread only (0: all)\n"
               "  --events=MASK       classes of marks recorded: all, none, 0x mask or 0,3-5\n",
            CYG_CTRL_TRIGS, CYG_CTRL_EXCLS);
}

/* What --trigger and the filters ask for, as the runtime's variables want them. */
struct ctl_opts {
    char *trigger, *exclude, *hide; /* comma-separated lists (options repeat), or NULL */
    const char *depth, *events;
};

/* Appends item to the comma-separated list *list (allocated). Returns 0, or -1. */
static int list_add(char **list, const char *item)
{
    char *l;

    if (!*list)
        return (*list = strdup(item)) ? 0 : -1;
    if (asprintf(&l, "%s,%s", *list, item) < 0)
        return -1;
    free(*list);
    *list = l;
    return 0;
}

/* Checks the specs as the runtime will parse them. Returns 0, or -1 after one line. */
static int ctl_check(const struct ctl_opts *o)
{
    struct ctrl_spec spec[CYG_CTRL_EXCLS];
    char err[256], *end;
    int nexcl = 0, nhide = 0;
    uint32_t mask;
    unsigned long long depth;

    if (o->trigger && ctrl_parse_triggers(o->trigger, spec, CYG_CTRL_TRIGS, err, sizeof err) < 0) {
        cmd_error("record: --trigger: %s", err);
        return -1;
    }
    if ((o->exclude &&
         (nexcl = ctrl_parse_excludes(o->exclude, 0, spec, CYG_CTRL_EXCLS, err, sizeof err)) < 0) ||
        (o->hide &&
         (nhide = ctrl_parse_excludes(o->hide, 1, spec, CYG_CTRL_EXCLS, err, sizeof err)) < 0)) {
        cmd_error("record: --%s: %s", nexcl < 0 ? "exclude" : "hide", err);
        return -1;
    }
    if (nexcl + nhide > (int)CYG_CTRL_EXCLS) {
        cmd_error("record: --exclude and --hide: %d functions; at most %u between them",
                  nexcl + nhide, CYG_CTRL_EXCLS);
        return -1;
    }
    if (o->depth) {
        errno = 0;
        depth = strtoull(o->depth, &end, 10);
        if (!*o->depth || strspn(o->depth, "0123456789") != strlen(o->depth) || errno ||
            depth > UINT32_MAX) {
            cmd_error("record: --depth=%s: not a number of levels (0: every depth)", o->depth);
            return -1;
        }
    }
    if (o->events && ctrl_parse_events(o->events, &mask, err, sizeof err) < 0) {
        cmd_error("record: --%s", err);
        return -1;
    }
    return 0;
}

/* The variables of the control specs given (the others stay as the environment has them). */
static int ctl_env(const struct ctl_opts *o)
{
    return (o->trigger ? setenv("CYGTRACE_TRIGGER", o->trigger, 1) : 0) |
           (o->exclude ? setenv("CYGTRACE_EXCLUDE", o->exclude, 1) : 0) |
           (o->hide ? setenv("CYGTRACE_HIDE", o->hide, 1) : 0) |
           (o->depth ? setenv("CYGTRACE_DEPTH", o->depth, 1) : 0) |
           (o->events ? setenv("CYGTRACE_EVENTS", o->events, 1) : 0);
}

/* Sets an environment variable for the child, appending to LD_PRELOAD. */
static int set_env(const char *out, const char *size, const char *mode, int callsites,
                   const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    char *pre;
    int rc;

    if (old && *old) {
        if (asprintf(&pre, "%s:%s", lib, old) < 0)
            return -1;
    } else if (!(pre = strdup(lib)))
        return -1;
    /* Without CYGTRACE_RING the program is the run's first process: its ring is out. */
    rc = setenv("LD_PRELOAD", pre, 1) | setenv("CYGTRACE_OUT", out, 1) |
         unsetenv("CYGTRACE_RING");
    free(pre);
    if (size)
        rc |= setenv("CYGTRACE_SIZE", size, 1);
    if (mode)
        rc |= setenv("CYGTRACE_MODE", mode, 1);
    if (callsites)
        rc |= setenv("CYGTRACE_CALLSITES", "1", 1);
    return rc;
}

/* The ELF that wrote ring out, for the hint: the first object of its map (a process that
 * exec'ed another program, a shell that exec'ed the program), or prog as the user named it
 * when that is the same file or there is no map. Into buf (len bytes). */
static const char *ring_program(const char *out, const char *prog, char *buf, size_t len)
{
    char path[PATH_MAX + 8], err[256];
    struct stat a, b;
    struct modmap *m;

    snprintf(path, sizeof path, "%s.maps", out);
    if (!(m = modmap_open(path, err, sizeof err)))
        return prog;
    if (modmap_count(m) > 0) {
        const char *elf = modmap_object(m, 0)->path;

        /* A name without a slash was found on PATH: only the map's path says where. */
        if (!strchr(prog, '/') || stat(prog, &a) < 0 || stat(elf, &b) < 0 ||
            a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
            snprintf(buf, len, "%s", elf);
            prog = buf;
        }
    }
    modmap_close(m);
    return prog;
}

/* After the run: how much the trace holds, or why there is none. */
static void report(const char *out, const char *prog);

/* The rings of the run's other processes (forked, exec'ed), as the first one's map lists
 * them. */
static void report_children(const char *out, const char *prog)
{
    char path[PATH_MAX + 8], err[256];
    struct modmap *m;

    snprintf(path, sizeof path, "%s.maps", out);
    if (!(m = modmap_open(path, err, sizeof err)))
        return;
    for (size_t i = 0; i < modmap_children(m); i++) {
        const struct modmap_process *c = modmap_child(m, i);

        if (!strcmp(c->how, "exec"))
            fprintf(stderr, "cygtrace: process %" PRIu32 " exec'ed a program that recorded too:\n",
                    c->pid);
        else
            fprintf(stderr, "cygtrace: process %" PRIu32 " (%s of %" PRIu32 ") recorded too:\n",
                    c->pid, c->how, c->ppid);
        report(c->ring, prog);
    }
    modmap_close(m);
}

static volatile sig_atomic_t record_child; /* the program's pid, for on_term */

static void on_term(int sig)
{
    if (record_child > 0)
        kill((pid_t)record_child, sig);
}

/* on: the dispositions for the time the program runs, else back to what they were. Keyboard
 * signals reach the program from the terminal and are its to act on: record waits for it all
 * the same, as a shell does. A SIGTERM or SIGHUP for record is handed on to the program.
 * SIGCHLD is the default, or an inherited SIG_IGN would leave no status to wait for. */
static void program_signals(int on)
{
    static const int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD};
    static struct sigaction old[sizeof sigs / sizeof sigs[0]];
    struct sigaction sa;

    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        if (!on) {
            sigaction(sigs[i], &old[i], NULL);
            continue;
        }
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigs[i] == SIGCHLD)
            sa.sa_handler = SIG_DFL;
        else if (sigs[i] == SIGTERM || sigs[i] == SIGHUP)
            sa.sa_handler = on_term;
        else
            sa.sa_handler = SIG_IGN;
        sigaction(sigs[i], &sa, &old[i]);
    }
}

/* Runs argv[0] with argv and waits for it. Returns its wait status; -1 after a message when
 * it could not be run (127 is the status to give), -2 when it could not be waited for. */
static int run_program(char **argv)
{
    int status, err = 0, p[2];
    ssize_t n;
    pid_t pid, w;

    /* The program's exec closes p[1]: a read that ends without data means it runs. */
    if (pipe2(p, O_CLOEXEC) < 0) {
        cmd_error("record: pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    program_signals(1);
    pid = fork();
    if (pid == 0) {
        program_signals(0);
        close(p[0]);
        execvp(argv[0], argv);
        err = errno;
        cmd_error("%s: cannot run: %s", argv[0], strerror(err));
        n = write(p[1], &err, sizeof err); /* the end of the pipe alone would say it runs */
        (void)n;
        _exit(127);
    }
    if (pid < 0) {
        cmd_error("record: fork: %s", strerror(errno));
        program_signals(0);
        close(p[0]);
        close(p[1]);
        return -1;
    }
    record_child = pid;
    close(p[1]);
    while ((n = read(p[0], &err, sizeof err)) < 0 && errno == EINTR)
        ;
    close(p[0]);
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    err = errno;
    record_child = 0;
    program_signals(0);
    if (n > 0)
        return -1;
    if (w < 0) {
        cmd_error("%s: cannot wait for it: %s", argv[0], strerror(err));
        return -2;
    }
    return status;
}

static void report(const char *out, const char *prog)
{
    char err[512];
    struct src *s = src_open_file(out, err, sizeof err);
    struct dec_ring r;
    char elf[PATH_MAX];

    if (!s) {
        cmd_error("%s: no trace was written: is it built with -finstrument-functions?", prog);
        return;
    }
    if (hdr_locate(s, &r, err, sizeof err) < 0) {
        cmd_error("%s", err);
        src_close(s);
        return;
    }
    if (r.chunk_log2) {
        /* head counts slots, and threads leave the ends of their chunks unused: the records
         * are what a pass over the ring finds. */
        struct dec *d = dec_open(s, &r);
        struct dec_stats st = {0};
        struct ev e;

        while (d && dec_next(d, &e) > 0)
            ;
        if (d)
            dec_get_stats(d, &st);
        dec_close(d);
        fprintf(stderr, "cygtrace: %s: %" PRIu64 " records%s (%" PRIu64 " slots written), %" PRIu64
                        " lost; decode with 'cygtrace tree %s %s'\n",
                out, st.decoded,
                r.head > r.cap && (r.flags & CYG_F_OVERWRITE) ? " held, wrapped" : "",
                r.head, r.lost, ring_program(out, prog, elf, sizeof elf), out);
    } else {
        fprintf(stderr, "cygtrace: %s: %" PRIu64 " records%s, %" PRIu64 " lost; decode with "
                        "'cygtrace tree %s %s'\n",
                out, r.head, r.head > r.cap && (r.flags & CYG_F_OVERWRITE) ? " (wrapped)" : "",
                r.lost, ring_program(out, prog, elf, sizeof elf), out);
    }
    src_close(s);
}

static int record_run(int argc, char **argv, const char *out, const char *size,
                      const char *mode, int callsites, const struct ctl_opts *ctl);

/* record's options. */
struct record_args {
    const char *out, *size, *mode;
    int callsites;
    int oom; /* a list could not grow: said once, after the options */
    struct ctl_opts ctl;
};

static int take_option(void *arg, int c, char *val)
{
    struct record_args *a = arg;

    switch (c) {
    case 'o': a->out = val; break;
    case 's': a->size = val; break;
    case 'm':
        if (strcmp(val, "overwrite") && strcmp(val, "stop")) {
            cmd_error("--mode=%s: neither overwrite nor stop", val);
            return 2;
        }
        a->mode = val;
        break;
    case 'c': a->callsites = 1; break;
    case 'T': a->oom |= list_add(&a->ctl.trigger, val); break;
    case 'X': a->oom |= list_add(&a->ctl.exclude, val); break;
    case 'H': a->oom |= list_add(&a->ctl.hide, val); break;
    case 'D': a->ctl.depth = val; break;
    default: a->ctl.events = val; break; /* 'E' */
    }
    return 0;
}

int cmd_record(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"size", required_argument, 0, 's'},
        {"mode", required_argument, 0, 'm'},   {"callsites", no_argument, 0, 'c'},
        {"trigger", required_argument, 0, 'T'}, {"exclude", required_argument, 0, 'X'},
        {"hide", required_argument, 0, 'H'},   {"depth", required_argument, 0, 'D'},
        {"events", required_argument, 0, 'E'}, {"help", no_argument, 0, CMD_OPTS_HELP},
        {0, 0, 0, 0}};
    struct record_args a = {.out = "cygtrace.out"};
    /* '+': the options end at the program's name, whose own options follow it. */
    const struct cmd_opts p = {.cmd = "record", .table = opts, .shortopts = "+o:",
                               .usage = usage, .take = take_option, .arg = &a};
    int rc;

    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        goto out;
    if (a.oom) {
        cmd_error("record: out of memory");
        rc = 1;
        goto out;
    }
    if (ctl_check(&a.ctl) < 0) {
        rc = 2;
        goto out;
    }
    rc = record_run(argc, argv, a.out, a.size, a.mode, a.callsites, &a.ctl);
out:
    free(a.ctl.trigger);
    free(a.ctl.exclude);
    free(a.ctl.hide);
    return rc;
}

/* The rest of record, once the options are known. */
static int record_run(int argc, char **argv, const char *out, const char *size,
                      const char *mode, int callsites, const struct ctl_opts *ctl)
{
    char lib[PATH_MAX], abs_out[PATH_MAX], maps[PATH_MAX + 8];
    int status, held;

    if (optind >= argc) {
        cmd_error("record: needs a program to run (cygtrace record -- ./app args)");
        return 2;
    }
    if (find_runtime(lib, sizeof lib) < 0) {
        cmd_error("libcygtrace.so: not found beside the cygtrace binary; run 'make'");
        return 1;
    }
    /* The program may chdir: give it an absolute path. */
    if (out[0] != '/' && getcwd(abs_out, sizeof abs_out - strlen(out) - 2)) {
        strcat(abs_out, "/");
        strcat(abs_out, out);
        out = abs_out;
    }
    /* A ring that a traced process still maps is its to write: neither it nor its map is
     * touched, and the program does not run. */
    if ((held = ringlock_held(out)) != 0) {
        if (held > 0)
            cmd_error("%s: in use by a running traced process; choose another --output", out);
        else
            cmd_error("%s: cannot tell whether a traced process writes it (%s); choose another "
                      "--output",
                      out, strerror(errno));
        return 1;
    }
    if (unlink(out) < 0 && errno != ENOENT) {
        cmd_error("%s: cannot replace: %s", out, strerror(errno));
        return 1;
    }
    /* A stale map would name children that this run does not have. */
    snprintf(maps, sizeof maps, "%s.maps", out);
    if (unlink(maps) < 0 && errno != ENOENT) {
        cmd_error("%s: cannot replace: %s", maps, strerror(errno));
        return 1;
    }
    if (set_env(out, size, mode, callsites, lib) < 0 || ctl_env(ctl) < 0) {
        cmd_error("record: cannot set the environment");
        return 1;
    }
    if ((status = run_program(argv + optind)) < 0)
        return status == -1 ? 127 : 1;
    if (WIFSIGNALED(status))
        fprintf(stderr, "cygtrace: %s: killed by signal %d (%s)%s\n", argv[optind],
                WTERMSIG(status), strsignal(WTERMSIG(status)),
                access(out, F_OK) == 0 ? "; the trace survives" : "");
    /* What the trace holds, or why there is none, is said; the status stays the program's. */
    report(out, argv[optind]);
    report_children(out, argv[optind]);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
