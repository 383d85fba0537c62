/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_wrap.c - "cygtrace wrap": wrappers that trace the calls into precompiled code (a vendor's
 * static library, a C library) through GNU ld's --wrap, with the functions' signatures from
 * the code's DWARF or from a file of C prototypes. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "output/outfile.h"
#include "util/vec.h"
#include "wrap/wrapgen.h"
#include "wrap/wrapin.h"
#include "wrap/wrapproto.h"

#define WRAP_SIG_MAX (16u << 20) /* a signatures file larger than this is not one */
#define WRAP_PATTERNS 256u

enum { WRAP_OPT_FUNCTIONS = 0x200, WRAP_OPT_EXCLUDE, WRAP_OPT_SIGNATURES };

struct patterns {
    const char *p[WRAP_PATTERNS];
    unsigned matched[WRAP_PATTERNS]; /* functions each one matched */
    unsigned n;
};

struct wrap {
    const char *dir;
    int quiet;                     /* -q: no line for a skipped function, no summary */
    const char *sigfile;
    struct patterns only, exclude;
    struct wrapgen_set *sigs;      /* --signatures' functions */
    struct wrapgen_set *seen;      /* the functions decided on, wrapped or not: names only */
    const struct wrapgen_fn **fns; /* wrapped */
    size_t n, cap, skipped;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace wrap [options] [INPUT...]\n"
               "Writes wrappers that record the calls into the functions an INPUT defines (a\n"
               "static library, an object or a shared library), with their arguments and return\n"
               "values, and the flags that link them in (GNU ld --wrap):\n"
               "  DIR/cygtrace_wrap.c      compile it with -I for target/core and common\n"
               "  DIR/cygtrace_wrap.flags  link with @DIR/cygtrace_wrap.flags\n"
               "Signatures come from the INPUT's DWARF (build it with -g), or from FILE.\n"
               "  -o DIR                   where to write (default: the current directory)\n"
               "  --functions=PATTERN,...  only the functions whose names match (shell globs)\n"
               "  --exclude=PATTERN,...    not the functions whose names match\n"
               "  --signatures=FILE        C prototypes, one a line (typedef lines too): they win\n"
               "                           over the DWARF; without INPUT, its functions are\n"
               "                           the ones wrapped\n"
               "  -q, --quiet              no line for each function skipped, no summary (a\n"
               "                           build's rule); errors are still said\n");
}

/* Adds the comma-separated patterns of arg; -1 after a message when there are too many. */
static int add_patterns(struct patterns *ps, char *arg, const char *opt)
{
    for (char *save = NULL, *p = strtok_r(arg, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        if (ps->n == WRAP_PATTERNS) {
            cmd_error("--%s: more than %u patterns", opt, WRAP_PATTERNS);
            return -1;
        }
        ps->p[ps->n++] = p;
    }
    return 0;
}

static int matches(struct patterns *ps, const char *name)
{
    int hit = 0;

    for (unsigned i = 0; i < ps->n; i++)
        if (fnmatch(ps->p[i], name, 0) == 0) {
            ps->matched[i]++;
            hit = 1;
        }
    return hit;
}

static int wanted(void *arg, const char *name)
{
    struct wrap *w = arg;

    return (!w->only.n || matches(&w->only, name)) && !matches(&w->exclude, name);
}

static int take_option(void *arg, int c, char *val)
{
    struct wrap *w = arg;

    if (c == 'q') {
        w->quiet = 1;
    } else if (c == 'o') {
        /* "dir/" is dir: the messages say dir/cygtrace_wrap.c, as the user would */
        for (size_t n = strlen(val); n > 1 && val[n - 1] == '/'; n--)
            val[n - 1] = 0;
        w->dir = val;
    } else if (c == WRAP_OPT_SIGNATURES) {
        w->sigfile = val;
    } else if (add_patterns(c == WRAP_OPT_FUNCTIONS ? &w->only : &w->exclude, val,
                            c == WRAP_OPT_FUNCTIONS ? "functions" : "exclude") < 0) {
        return 2;
    }
    return 0;
}

/* The options into w: -1 to go on, else the exit status (after --help, or a message). */
static int parse_args(int argc, char **argv, struct wrap *w)
{
    static const struct option opts[] = {{"functions", required_argument, 0, WRAP_OPT_FUNCTIONS},
                                         {"exclude", required_argument, 0, WRAP_OPT_EXCLUDE},
                                         {"signatures", required_argument, 0, WRAP_OPT_SIGNATURES},
                                         {"output", required_argument, 0, 'o'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, CMD_OPTS_HELP},
                                         {0, 0, 0, 0}};
    const struct cmd_opts p = {.cmd = "wrap", .table = opts, .shortopts = "o:hq",
                               .usage = usage, .take = take_option, .arg = w};
    int rc;

    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    if (optind == argc && !w->sigfile) {
        cmd_error("wrap: needs a library, an object or --signatures=FILE (see 'cygtrace wrap "
                  "--help')");
        return 2;
    }
    if (!*w->dir) {
        cmd_error("wrap: -o: an empty directory name");
        return 2;
    }
    return -1;
}

/* ---- the signatures file ---- */

static void bad_line(void *file, unsigned line, const char *what)
{
    cmd_error("%s:%u: %s", (const char *)file, line, what);
}

/* The whole of f (a pipe too) into *text, up to WRAP_SIG_MAX bytes: its length, or -1 with
 * errno (EFBIG: too large). */
static long read_all(FILE *f, char **text)
{
    size_t len = 0, cap = 0;
    char *p = NULL, *n;

    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            if (cap > WRAP_SIG_MAX + 1 || !(n = realloc(p, cap))) {
                errno = cap > WRAP_SIG_MAX + 1 ? EFBIG : ENOMEM;
                free(p);
                return -1;
            }
            p = n;
        }
        len += fread(p + len, 1, cap - len, f);
        if (ferror(f)) {
            free(p);
            return -1;
        }
        if (feof(f))
            break;
    }
    *text = p;
    return (long)len;
}

/* Reads and parses --signatures; 0, or 1 after its messages (every bad line is told, and
 * nothing is written: a build must not go on with a signature it did not mean). */
static int read_sigfile(struct wrap *w)
{
    FILE *f = fopen(w->sigfile, "r");
    char *text = NULL;
    long len;
    int nbad;

    if (!f || (len = read_all(f, &text)) < 0) {
        cmd_error("%s: %s", w->sigfile, errno == EFBIG ? "larger than 16 MiB" : strerror(errno));
        if (f)
            fclose(f);
        return 1;
    }
    fclose(f);
    if (!(w->sigs = wrapgen_set_new()) ||
        (nbad = wrapproto_parse(text, (size_t)len, w->sigs, bad_line, (void *)w->sigfile)) < 0) {
        cmd_error("%s: out of memory", w->sigfile);
        nbad = 1;
    }
    free(text);
    return nbad != 0;
}

/* ---- deciding ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const struct wrapgen_fn *const *)a)->name,
                  (*(const struct wrapgen_fn *const *)b)->name);
}

/* The functions of set by name; NULL when out of memory. */
static const struct wrapgen_fn **sorted(const struct wrapgen_set *set, size_t *n)
{
    const struct wrapgen_fn **v;

    *n = wrapgen_set_count(set);
    if (!(v = malloc((*n ? *n : 1) * sizeof *v)))
        return NULL;
    for (size_t i = 0; i < *n; i++)
        v[i] = wrapgen_set_at(set, i);
    qsort(v, *n, sizeof *v, by_name);
    return v;
}

/* Wraps fn, or says why not (from names where it was found). 0, -1 out of memory. */
static int decide(struct wrap *w, const struct wrapgen_fn *fn, const char *from)
{
    const struct wrapgen_fn *sig = w->sigs ? wrapgen_set_find(w->sigs, fn->name) : NULL;
    struct wrapgen_fn name = {.name = fn->name};

    if (wrapgen_set_find(w->seen, fn->name))
        return 0; /* two inputs define it: the first one's */
    if (wrapgen_set_add(w->seen, &name) < 0)
        return -1;
    if (sig) { /* the file wins: a user correcting the DWARF */
        fn = sig;
        from = w->sigfile;
    }
    if (fn->skip || wrapgen_refused(fn->name)) {
        if (!w->quiet)
            cmd_error("%s: %s: not wrapped: %s", from, fn->name,
                      fn->skip ? fn->skip : wrapgen_refused(fn->name));
        w->skipped++;
        return 0;
    }
    if (vec_grow(&w->fns, &w->cap, w->n, sizeof *w->fns, 64) < 0)
        return -1;
    w->fns[w->n++] = fn;
    return 0;
}

/* Decides each function of set, found in from (filter: those wanted only). 0, or 1 after a
 * message. */
static int decide_all(struct wrap *w, const struct wrapgen_set *set, const char *from, int filter)
{
    size_t n;
    const struct wrapgen_fn **v = sorted(set, &n);
    int rc = v ? 0 : -1;

    for (size_t i = 0; !rc && i < n; i++)
        if (!filter || wanted(w, v[i]->name))
            rc = decide(w, v[i], from);
    free(v);
    if (rc < 0) {
        cmd_error("%s: out of memory", from);
        return 1;
    }
    return 0;
}

/* One input: its functions and their signatures, decided on. *set is its own (the wrapped
 * functions point into it: the caller frees it at the end). 0, or 1 after a message. */
static int read_input(struct wrap *w, const char *path, struct wrapgen_set **set)
{
    char err[512];
    size_t defined;

    if (!(*set = wrapgen_set_new())) {
        cmd_error("%s: out of memory", path);
        return 1;
    }
    if (wrapin_read(path, wanted, w, *set, &defined, err, sizeof err) < 0) {
        cmd_error("%s: %s", path, err);
        return 1;
    }
    if (!defined) {
        cmd_error("%s: defines no functions", path);
        return 1;
    }
    return decide_all(w, *set, path, 0);
}

/* ---- writing ---- */

/* mkdir -p: 0, or -1 with errno. */
static int make_dirs(const char *dir)
{
    char p[PATH_MAX];
    size_t len = strlen(dir);

    if (len >= sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(p, dir, len + 1);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The directory, made when missing: 0, or 1 after a message. */
static int check_dir(const char *dir, int make)
{
    struct stat st;

    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        cmd_error("%s: not a directory; -o takes the directory to write into", dir);
        return 1;
    }
    if (errno != ENOENT || (make && make_dirs(dir) != 0)) {
        cmd_error("%s: %s", dir, strerror(errno));
        return 1;
    }
    return 0;
}

/* "libvend.a, libc.sig": the inputs by their names without directories (the generated file
 * does not change with the build directory). */
static void origin_of(const struct wrap *w, int argc, char **argv, char *buf, size_t len)
{
    size_t k = 0;

    buf[0] = 0;
    for (int i = optind; i < argc + (w->sigfile != NULL) && k < len; i++) {
        const char *p = i < argc ? argv[i] : w->sigfile; /* the file last */
        const char *slash = strrchr(p, '/');

        k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", slash ? slash + 1 : p);
    }
}

/* Writes DIR/name (the C file, or the flags) through a temporary file. 0, or 1 after a
 * message. */
static int write_one(const struct wrap *w, const char *name, const char *origin, int c_file)
{
    char path[PATH_MAX], err[512];
    struct outfile *of;
    int rc;

    if (snprintf(path, sizeof path, "%s/%s", w->dir, name) >= (int)sizeof path) {
        cmd_error("%s: path too long", w->dir);
        return 1;
    }
    if (!(of = outfile_open(path, err, sizeof err))) {
        cmd_error("%s: %s", path, err);
        return 1;
    }
    rc = c_file ? wrapgen_write_c(outfile_stream(of), w->fns, w->n, origin)
                : wrapgen_write_flags(outfile_stream(of), w->fns, w->n);
    if (rc < 0) {
        outfile_abort(of);
        cmd_error("%s: cannot write it (or out of memory)", path);
        return 1;
    }
    if (outfile_commit(of, err, sizeof err) < 0) {
        cmd_error("%s: %s", path, err);
        return 1;
    }
    return 0;
}

/* The outputs must not be the inputs (a mistaken -o): 0, or 1 after a message. */
static int check_outputs(const struct wrap *w, int argc, char **argv)
{
    static const char *const names[] = {"cygtrace_wrap.c", "cygtrace_wrap.flags"};
    const char *in[64];
    size_t n = 0;
    char path[PATH_MAX];

    for (int i = optind; i < argc && n < 63; i++)
        in[n++] = argv[i];
    if (w->sigfile)
        in[n++] = w->sigfile;
    for (size_t k = 0; k < 2; k++) {
        int hit;

        snprintf(path, sizeof path, "%s/%s", w->dir, names[k]);
        if ((hit = outfile_same(path, in, n)) >= 0) {
            cmd_error("%s: is an input (%s); write the output elsewhere", path, in[hit]);
            return 1;
        }
    }
    return 0;
}

static void pattern_notes(const struct patterns *ps, const char *opt)
{
    for (unsigned i = 0; i < ps->n; i++)
        if (!ps->matched[i])
            cmd_error("warning: --%s=%s matches no function", opt, ps->p[i]);
}

static int write_all(struct wrap *w, int argc, char **argv)
{
    char origin[1024];

    if (check_dir(w->dir, 1))
        return 1;
    origin_of(w, argc, argv, origin, sizeof origin);
    if (write_one(w, "cygtrace_wrap.c", origin, 1) || write_one(w, "cygtrace_wrap.flags", NULL, 0))
        return 1;
    if (!w->quiet)
        fprintf(stderr, "cygtrace: %s/cygtrace_wrap.c: wrapped %zu function%s, skipped %zu\n",
                w->dir, w->n, w->n == 1 ? "" : "s", w->skipped);
    return 0;
}

int cmd_wrap(int argc, char **argv)
{
    struct wrap w = {.dir = "."};
    struct wrapgen_set **sets = NULL;
    int rc = parse_args(argc, argv, &w), nin;

    if (rc >= 0)
        return rc;
    rc = 1;
    nin = argc - optind;
    if (check_dir(w.dir, 0) || check_outputs(&w, argc, argv) || (w.sigfile && read_sigfile(&w)))
        goto out;
    if (!(w.seen = wrapgen_set_new()) || !(sets = calloc((size_t)nin + 1, sizeof *sets))) {
        cmd_error("wrap: out of memory");
        goto out;
    }
    for (int i = 0; i < nin; i++)
        if (read_input(&w, argv[optind + i], &sets[i]))
            goto out;
    if (!nin && decide_all(&w, w.sigs, w.sigfile, 1))
        goto out;
    pattern_notes(&w.only, "functions");
    pattern_notes(&w.exclude, "exclude");
    if (!w.n) {
        const char *what = nin == 1 ? argv[optind] : nin ? "wrap" : w.sigfile;

        cmd_error("%s: no function to wrap%s; nothing written", what,
                  !w.skipped ? "" : w.quiet ? " (all were skipped: run without -q to see why)"
                                            : " (all were skipped, see above)");
        goto out;
    }
    rc = write_all(&w, argc, argv);
out:
    for (int i = 0; sets && i < nin; i++)
        wrapgen_set_free(sets[i]);
    free(sets);
    free(w.fns);
    wrapgen_set_free(w.seen);
    wrapgen_set_free(w.sigs);
    return rc;
}
