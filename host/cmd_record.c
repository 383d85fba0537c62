/* cmd_record.c - "cygtrace record": run a -finstrument-functions program with the runtime
 * preloaded (as uftrace preloads libmcount), wait for it, and say what was recorded.
 *
 * The program's hooks resolve to glibc's empty __cyg_profile_func_* stubs unless something
 * interposes them: LD_PRELOAD of libcygtrace.so does. A program linked with libcygtrace.a
 * keeps its own copy and only takes the environment. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "cyg_format.h"
#include "dec.h"
#include "modmap.h"
#include "src.h"

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
               "  --callsites         record call sites too (for --style=braces)\n");
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

/* After the run: how much the trace holds, or why there is none. */
static int report(const char *out, const char *prog);

/* The rings of the run's other processes (forked, exec'ed), as the first one's map lists
 * them; returns how many of them could not be read. */
static int report_children(const char *out, const char *prog)
{
    char path[PATH_MAX + 8], err[256];
    struct modmap *m;
    int bad = 0;

    snprintf(path, sizeof path, "%s.maps", out);
    if (!(m = modmap_open(path, err, sizeof err)))
        return 0;
    for (size_t i = 0; i < modmap_children(m); i++) {
        const struct modmap_process *c = modmap_child(m, i);

        if (!strcmp(c->how, "exec"))
            fprintf(stderr, "cygtrace: process %" PRIu32 " exec'ed a program that recorded too:\n",
                    c->pid);
        else
            fprintf(stderr, "cygtrace: process %" PRIu32 " (%s of %" PRIu32 ") recorded too:\n",
                    c->pid, c->how, c->ppid);
        bad += report(c->ring, prog) < 0;
    }
    modmap_close(m);
    return bad;
}

static int report(const char *out, const char *prog)
{
    char err[256];
    const char *why;
    struct src *s = src_open_file(out, err, sizeof err);
    struct dec_ring r;

    if (!s) {
        cmd_error("%s: no trace was written: is it built with -finstrument-functions?", prog);
        return -1;
    }
    if (dec_locate(s, &r, &why) < 0) {
        cmd_error("%s: %s", out, why);
        src_close(s);
        return -1;
    }
    fprintf(stderr, "cygtrace: %s: %" PRIu64 " records%s, %" PRIu64 " lost; decode with "
                    "'cygtrace tree %s %s'\n",
            out, r.head, r.head > r.cap && (r.flags & CYG_F_OVERWRITE) ? " (wrapped)" : "",
            r.lost, prog, out);
    src_close(s);
    return 0;
}

int cmd_record(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"size", required_argument, 0, 's'},
        {"mode", required_argument, 0, 'm'},   {"callsites", no_argument, 0, 'c'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *out = "cygtrace.out", *size = NULL, *mode = NULL;
    char lib[PATH_MAX], abs_out[PATH_MAX], maps[PATH_MAX + 8];
    int c, callsites = 0, status;
    pid_t pid;

    optind = 1;
    opterr = 0; /* our own one-line message instead of getopt's */
    while ((c = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 's': size = optarg; break;
        case 'm':
            if (strcmp(optarg, "overwrite") && strcmp(optarg, "stop")) {
                cmd_error("--mode=%s: neither overwrite nor stop", optarg);
                return 2;
            }
            mode = optarg;
            break;
        case 'c': callsites = 1; break;
        case 'h': usage(stdout); return 0;
        default: cmd_bad_option(argv, "record"); return 2;
        }
    }
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
    if (set_env(out, size, mode, callsites, lib) < 0) {
        cmd_error("record: cannot set the environment");
        return 1;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        cmd_error("record: fork: %s", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        execvp(argv[optind], argv + optind);
        cmd_error("%s: cannot run: %s", argv[optind], strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return 127;
    if (WIFSIGNALED(status))
        fprintf(stderr, "cygtrace: %s: killed by signal %d (%s); the trace survives\n",
                argv[optind], WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (report(out, argv[optind]) < 0 || report_children(out, argv[optind]))
        return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
