/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_wrapgen.c - cygtrace wrap's library part: the prototype parser (wrapproto.c) on good
 * and bad lines, typedefs and the reasons a function is not wrapped; the parameter names a
 * wrapper uses; the C, flags and signature table written (wrapgen.c), exactly, and compiled
 * with -Werror; the DWARF reader (wrapin.c, elfrel.c, wrapdw.c) on objects, archives and
 * shared libraries compiled during the test for x86-64 (DWARF 4 and 5), i386, Cortex-M and
 * RISC-V (32 and 64 bits): every target's DWARF must give the same signature table. A cross
 * compiler that is not installed skips its target. Run from the source tree (it compiles the
 * generated C against target/core and common). */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "testdir.h"
#include "wrap/wrapgen.h"
#include "wrap/wrapin.h"
#include "wrap/wrapproto.h"

/* ---- helpers ---- */

struct bad {
    unsigned n;
    unsigned line[16];
    char what[16][200];
};

static void on_bad(void *arg, unsigned line, const char *what)
{
    struct bad *b = arg;

    if (b->n < 16) {
        b->line[b->n] = line;
        snprintf(b->what[b->n], sizeof b->what[b->n], "%s", what);
    }
    b->n++;
}

static struct wrapgen_set *parse(const char *text, struct bad *b)
{
    struct wrapgen_set *s = wrapgen_set_new();
    struct bad local = {0};

    ck_assert_ptr_nonnull(s);
    ck_assert_int_ge(wrapproto_parse(text, strlen(text), s, on_bad, b ? b : &local), 0);
    if (!b)
        ck_assert_msg(local.n == 0, "line %u: %s", local.line[0], local.what[0]);
    return s;
}

static const struct wrapgen_fn *fn_of(const struct wrapgen_set *s, const char *name)
{
    const struct wrapgen_fn *fn = wrapgen_set_find(s, name);

    ck_assert_msg(fn != NULL, "%s is not in the set", name);
    return fn;
}

/* Checks a value's kind, C type, shown type and (for a parameter) name. */
static void check_type(const struct wrapgen_type *t, enum wrapgen_kind kind, const char *c,
                       const char *shown, const char *what)
{
    ck_assert_msg(t->kind == kind, "%s: kind %s, want %s", what, wrapgen_kind_name(t->kind),
                  wrapgen_kind_name(kind));
    ck_assert_msg(!strcmp(t->c, c), "%s: C type '%s', want '%s'", what, t->c, c);
    ck_assert_msg(!strcmp(t->shown, shown), "%s: shown '%s', want '%s'", what, t->shown, shown);
}

static void check_param(const struct wrapgen_fn *fn, unsigned i, const char *name,
                        enum wrapgen_kind kind, const char *c, const char *shown)
{
    char what[128];

    snprintf(what, sizeof what, "%s parameter %u", fn->name, i);
    ck_assert_uint_gt(fn->n, i);
    ck_assert_msg(!strcmp(fn->p[i].name, name), "%s: name '%s', want '%s'", what, fn->p[i].name,
                  name);
    check_type(&fn->p[i].t, kind, c, shown, what);
}

/* The functions of the set that are not skipped, by name. */
static size_t wrapped(const struct wrapgen_set *s, const struct wrapgen_fn **v, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < wrapgen_set_count(s); i++) {
        const struct wrapgen_fn *fn = wrapgen_set_at(s, i);
        size_t k = n;

        if (fn->skip || n == max)
            continue;
        while (k > 0 && strcmp(v[k - 1]->name, fn->name) > 0) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = fn;
        n++;
    }
    return n;
}

/* What f writes, as a string (malloc'd). */
static char *written(int (*f)(FILE *, const struct wrapgen_fn *const *, size_t, const char *),
                     const struct wrapgen_fn *const *fns, size_t n, const char *origin)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(f(m, fns, n, origin), 0);
    fclose(m);
    return buf;
}

static int write_flags(FILE *f, const struct wrapgen_fn *const *fns, size_t n, const char *o)
{
    (void)o;
    return wrapgen_write_flags(f, fns, n);
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(testdir_path(name), "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static int have(const char *tool)
{
    char cmd[256];

    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

static void setup(void)
{
    testdir_make("wrapgen");
}

static void teardown(void)
{
    testdir_remove();
}

/* ---- the prototype parser ---- */

START_TEST(test_wrapgen_proto_types)
{
    struct wrapgen_set *s = parse(
        "// a comment\n"
        "# another\n"
        "\n"
        "   \t\n"
        "int open(const char *path, int flags, unsigned int mode);\n"
        "ssize_t read(int fd, void *buf, size_t count) // trailing comment\n"
        "void free(void *ptr);\n"
        "extern unsigned long long f_ints(signed char a, unsigned char b, short c, "
        "unsigned short d, long e, unsigned f, long long int g, char h, _Bool i, bool j);\n"
        "float f_real(double d, float f);\n"
        "int f_posix(off_t o, mode_t m, pid_t p, intptr_t ip, uintptr_t up, int8_t i8, "
        "uint64_t u64, ptrdiff_t pd);\n"
        "const char *f_ptrs(char *s, char *const t, const char **pp, char *const *cp, "
        "volatile char *v, const void *cv, struct stat *st, const struct stat *cst, FILE *fp, "
        "int (*cb)(int, char *), char *argv[], enum mode m, unsigned char *bytes);\n"
        "int f_void();\n"
        "int f_comments(int /* the first */ a);\n",
        NULL);
    const struct wrapgen_fn *fn;

    ck_assert_uint_eq(wrapgen_set_count(s), 9);
    fn = fn_of(s, "open");
    ck_assert_ptr_null(fn->skip);
    ck_assert_uint_eq(fn->n, 3);
    check_type(&fn->ret, WRAPGEN_INT, "int", "int", "open returns");
    check_param(fn, 0, "path", WRAPGEN_STR, "const char *", "const char *");
    check_param(fn, 1, "flags", WRAPGEN_INT, "int", "int");
    check_param(fn, 2, "mode", WRAPGEN_UINT, "unsigned int", "unsigned int");
    fn = fn_of(s, "read");
    check_type(&fn->ret, WRAPGEN_INT, "intptr_t", "ssize_t", "read returns");
    check_param(fn, 1, "buf", WRAPGEN_PTR, "void *", "void *");
    check_param(fn, 2, "count", WRAPGEN_UINT, "size_t", "size_t");
    fn = fn_of(s, "free");
    check_type(&fn->ret, WRAPGEN_VOID, "void", "void", "free returns");
    fn = fn_of(s, "f_ints");
    check_type(&fn->ret, WRAPGEN_UINT, "long long unsigned int", "unsigned long long", "f_ints");
    check_param(fn, 0, "a", WRAPGEN_INT, "signed char", "signed char");
    check_param(fn, 1, "b", WRAPGEN_UINT, "unsigned char", "unsigned char");
    check_param(fn, 2, "c", WRAPGEN_INT, "short int", "short");
    check_param(fn, 3, "d", WRAPGEN_UINT, "short unsigned int", "unsigned short");
    check_param(fn, 4, "e", WRAPGEN_INT, "long int", "long");
    check_param(fn, 5, "f", WRAPGEN_UINT, "unsigned int", "unsigned");
    check_param(fn, 6, "g", WRAPGEN_INT, "long long int", "long long int");
    check_param(fn, 7, "h", WRAPGEN_CHAR, "char", "char");
    check_param(fn, 8, "i", WRAPGEN_BOOL, "_Bool", "_Bool");
    check_param(fn, 9, "j", WRAPGEN_BOOL, "_Bool", "bool");
    fn = fn_of(s, "f_real");
    check_type(&fn->ret, WRAPGEN_F32, "float", "float", "f_real returns");
    check_param(fn, 0, "d", WRAPGEN_F64, "double", "double");
    fn = fn_of(s, "f_posix");
    check_param(fn, 0, "o", WRAPGEN_INT, "long int", "off_t");
    check_param(fn, 1, "m", WRAPGEN_UINT, "unsigned int", "mode_t");
    check_param(fn, 2, "p", WRAPGEN_INT, "int", "pid_t");
    check_param(fn, 3, "ip", WRAPGEN_INT, "intptr_t", "intptr_t");
    check_param(fn, 4, "up", WRAPGEN_UINT, "uintptr_t", "uintptr_t");
    check_param(fn, 5, "i8", WRAPGEN_INT, "int8_t", "int8_t");
    check_param(fn, 6, "u64", WRAPGEN_UINT, "uint64_t", "uint64_t");
    check_param(fn, 7, "pd", WRAPGEN_INT, "ptrdiff_t", "ptrdiff_t");
    fn = fn_of(s, "f_ptrs");
    check_type(&fn->ret, WRAPGEN_STR, "const char *", "const char *", "f_ptrs returns");
    check_param(fn, 0, "s", WRAPGEN_STR, "char *", "char *");
    check_param(fn, 1, "t", WRAPGEN_STR, "char *", "char *const");
    check_param(fn, 2, "pp", WRAPGEN_PTR, "void *", "const char **");
    check_param(fn, 3, "cp", WRAPGEN_PTR, "const void *", "char *const *");
    check_param(fn, 4, "v", WRAPGEN_PTR, "void *", "volatile char *");
    check_param(fn, 5, "cv", WRAPGEN_PTR, "const void *", "const void *");
    check_param(fn, 6, "st", WRAPGEN_PTR, "void *", "struct stat *");
    check_param(fn, 7, "cst", WRAPGEN_PTR, "const void *", "const struct stat *");
    check_param(fn, 8, "fp", WRAPGEN_PTR, "void *", "FILE *");
    check_param(fn, 9, "cb", WRAPGEN_PTR, "void *", "int (*)(int, char *)");
    check_param(fn, 10, "argv", WRAPGEN_PTR, "void *", "char *[]");
    check_param(fn, 11, "m", WRAPGEN_INT, "int", "enum mode");
    check_param(fn, 12, "bytes", WRAPGEN_PTR, "void *", "unsigned char *");
    ck_assert_ptr_null(fn_of(s, "f_ptrs")->p[11].t.en);
    ck_assert_uint_eq(fn_of(s, "f_void")->n, 0);
    check_param(fn_of(s, "f_comments"), 0, "a", WRAPGEN_INT, "int", "int");
    /* in file order */
    ck_assert_str_eq(wrapgen_set_at(s, 0)->name, "open");
    ck_assert_str_eq(wrapgen_set_at(s, 8)->name, "f_comments");
    wrapgen_set_free(s);
}
END_TEST

START_TEST(test_wrapgen_proto_typedefs)
{
    struct wrapgen_set *s = parse("typedef unsigned long my_size;\n"
                                  "typedef const char *cstr;\n"
                                  "typedef char *str_t;\n"
                                  "typedef struct point point_t;\n"
                                  "typedef int (*cb_t)(int);\n"
                                  "typedef enum mode mode_e;\n"
                                  "typedef my_size size2;\n"
                                  "typedef unsigned int size_t;\n"
                                  "my_size t_a(cstr a, const str_t b, point_t *c, cb_t d, "
                                  "mode_e e, size2 f, size_t g, str_t *h);\n"
                                  "point_t t_b(int x);\n",
                                  NULL);
    const struct wrapgen_fn *fn = fn_of(s, "t_a");

    ck_assert_uint_eq(wrapgen_set_count(s), 2);
    check_type(&fn->ret, WRAPGEN_UINT, "long unsigned int", "my_size", "t_a returns");
    check_param(fn, 0, "a", WRAPGEN_STR, "const char *", "cstr");
    /* const str_t is char *const: the characters are not const */
    check_param(fn, 1, "b", WRAPGEN_STR, "char *", "const str_t");
    check_param(fn, 2, "c", WRAPGEN_PTR, "void *", "point_t *");
    check_param(fn, 3, "d", WRAPGEN_PTR, "void *", "cb_t");
    check_param(fn, 4, "e", WRAPGEN_INT, "int", "mode_e");
    check_param(fn, 5, "f", WRAPGEN_UINT, "long unsigned int", "size2");
    /* the file's own typedef wins over the known one */
    check_param(fn, 6, "g", WRAPGEN_UINT, "unsigned int", "size_t");
    check_param(fn, 7, "h", WRAPGEN_PTR, "void *", "str_t *");
    ck_assert_str_eq(fn_of(s, "t_b")->skip, "returns point_t by value");
    wrapgen_set_free(s);
}
END_TEST

/* Lines that cannot be wrapped are parsed all the same, and say why. */
START_TEST(test_wrapgen_proto_skips)
{
    struct wrapgen_set *s = parse(
        "int printf(const char *fmt, ...);\n"
        "struct pt s_ret(int a);\n"
        "int s_arg(int a, union u b, struct pt c);\n"
        "long double s_ld(int a);\n"
        "int s_ld2(int a, long double b);\n"
        "int s_file(FILE f);\n"
        "int s_many(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int k, "
        "int l, int m, int n, int o, int p);\n"
        "int s_fifteen(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, "
        "int k, int l, int m, int n, int o);\n",
        NULL);

    ck_assert_str_eq(fn_of(s, "printf")->skip, "variadic");
    ck_assert_str_eq(fn_of(s, "s_ret")->skip, "returns struct pt by value");
    ck_assert_str_eq(fn_of(s, "s_arg")->skip, "parameter 1 (b): union u by value");
    ck_assert_str_eq(fn_of(s, "s_ld")->skip, "returns long double");
    ck_assert_str_eq(fn_of(s, "s_ld2")->skip, "parameter 1 (b): long double");
    ck_assert_str_eq(fn_of(s, "s_file")->skip, "parameter 0 (f): FILE by value");
    ck_assert_str_eq(fn_of(s, "s_many")->skip, "16 parameters, more than 15");
    ck_assert_ptr_null(fn_of(s, "s_fifteen")->skip);
    ck_assert_uint_eq(fn_of(s, "s_fifteen")->n, 15);
    wrapgen_set_free(s);
}
END_TEST

#define BAD(line, what)                                                                            \
    {                                                                                              \
        line, sizeof line - 1, what                                                                \
    }

static const struct {
    const char *line;
    size_t len; /* a NUL byte may be in it */
    const char *what;
} bad_lines[] = {
    BAD("int f(foo x);", "unknown type 'foo'; name it first with a line 'typedef <type> foo;'"),
    BAD("int f(unsigned float x);", "not a C type: 'unsigned float'"),
    BAD("int f(long short x);", "not a C type: 'long short'"),
    BAD("int f(signed unsigned x);", "not a C type: 'signed unsigned'"),
    BAD("int f(size_t int x);", "not a C type: 'size_t int'"),
    BAD("int f(int x", "expected ')', not the end of the line"),
    BAD("int f(void, int x);",
        "a parameter of type void (only '(void)' alone means no parameters)"),
    BAD("int f(void x);", "a parameter of type void (only '(void)' alone means no parameters)"),
    BAD("int f(int x) int;", "unexpected 'int' after the declaration"),
    BAD("int f(int x) @;", "unexpected '@'"),
    BAD("int f(int x); /* never ends", "a comment that does not end on its line"),
    BAD("int f;", "not a prototype: expected TYPE NAME(PARAMETERS);"),
    BAD("int (*f(int))(int);", "not a prototype: expected TYPE NAME(PARAMETERS);"),
    BAD("f(int x);", "unknown type 'f'; name it first with a line 'typedef <type> f;'"),
    BAD("struct { int x; } f(void);", "unexpected '{'"),
    BAD("struct *f(void);", "expected a name after 'struct', not '*'"),
    BAD("int f(int a, ... , int b);", "expected ')', not ','"),
    BAD("int f(int (*cb)int);", "expected a parameter list after '(*...)', not 'int'"),
    BAD("typedef int;", "expected a name, not ';'"),
    BAD("typedef int a[4];", "an array here is not supported"),
    BAD("int f(char \xc3\xa9);", "unexpected byte 0xc3"),
    BAD("int f(int x)\x00;", "a NUL byte (not a text file?)"),
};

START_TEST(test_wrapgen_proto_bad_lines)
{
    static const char good[] = "int good(int a);\n";
    char text[256];
    size_t len = sizeof good - 1;
    struct wrapgen_set *s = wrapgen_set_new();
    struct bad b = {0};

    /* after a good line: the bad one is line 2 */
    memcpy(text, good, len);
    memcpy(text + len, bad_lines[_i].line, bad_lines[_i].len);
    len += bad_lines[_i].len;
    text[len++] = '\n';
    ck_assert_int_eq(wrapproto_parse(text, len, s, on_bad, &b), 1);
    ck_assert_uint_eq(b.n, 1);
    ck_assert_uint_eq(b.line[0], 2);
    ck_assert_msg(!strcmp(b.what[0], bad_lines[_i].what), "'%s': '%s', want '%s'",
                  bad_lines[_i].line, b.what[0], bad_lines[_i].what);
    ck_assert_uint_eq(wrapgen_set_count(s), 1); /* the good line only */
    wrapgen_set_free(s);
}
END_TEST

/* A second prototype of a function and a second typedef of a name are bad lines; the first
 * stays. Every bad line is told, the good ones around them are kept. */
START_TEST(test_wrapgen_proto_twice)
{
    struct bad b = {0};
    struct wrapgen_set *s = parse("int f(int a);\n"
                                  "typedef int t;\n"
                                  "long f(long b);\n"
                                  "typedef long t;\n"
                                  "junk\n"
                                  "t g(t x);\n",
                                  &b);

    ck_assert_uint_eq(b.n, 3);
    ck_assert_uint_eq(b.line[0], 3);
    ck_assert_str_eq(b.what[0], "f: a second prototype (the first one stays)");
    ck_assert_uint_eq(b.line[1], 4);
    ck_assert_str_eq(b.what[1], "typedef t: named already on line 2");
    ck_assert_uint_eq(b.line[2], 5);
    ck_assert_str_eq(b.what[2], "unknown type 'junk'; name it first with a line 'typedef <type> "
                                "junk;'");
    check_param(fn_of(s, "f"), 0, "a", WRAPGEN_INT, "int", "int");
    check_param(fn_of(s, "g"), 0, "x", WRAPGEN_INT, "int", "t");
    wrapgen_set_free(s);
}
END_TEST

/* ---- names ---- */

START_TEST(test_wrapgen_names)
{
    char long_name[WRAPGEN_NAME_MAX + 2];
    struct wrapgen_set *s = parse("int n_a(int, int a, int);\n"
                                  "int n_b(int p1, int, int p0);\n"
                                  "int n_c(int cyg_fn, int CYGTRACE_RET, int uintptr_t, "
                                  "int __x, int restrict_, int p3);\n"
                                  "int n_d(int a, int a);\n",
                                  NULL);
    const struct wrapgen_fn *fn = fn_of(s, "n_a");

    ck_assert_str_eq(fn->p[0].name, "p0");
    ck_assert_str_eq(fn->p[1].name, "a");
    ck_assert_str_eq(fn->p[2].name, "p2");
    fn = fn_of(s, "n_b");
    ck_assert_str_eq(fn->p[0].name, "p1");
    ck_assert_str_eq(fn->p[1].name, "p1_"); /* p1 is taken, and p0 comes later */
    ck_assert_str_eq(fn->p[2].name, "p0");
    fn = fn_of(s, "n_c");
    ck_assert_str_eq(fn->p[0].name, "p0");
    ck_assert_str_eq(fn->p[1].name, "p1");
    ck_assert_str_eq(fn->p[2].name, "p2");
    ck_assert_str_eq(fn->p[3].name, "p3_"); /* the last keeps its own p3 */
    ck_assert_str_eq(fn->p[4].name, "restrict_");
    ck_assert_str_eq(fn->p[5].name, "p3");
    fn = fn_of(s, "n_d");
    ck_assert_str_eq(fn->p[0].name, "a");
    ck_assert_str_eq(fn->p[1].name, "p1");
    ck_assert(wrapgen_name_ok("value"));
    ck_assert(!wrapgen_name_ok("int"));
    ck_assert(!wrapgen_name_ok("bool"));
    ck_assert(!wrapgen_name_ok("cyg_r"));
    ck_assert(!wrapgen_name_ok("9lives"));
    ck_assert(!wrapgen_name_ok("a-b"));
    ck_assert_ptr_null(wrapgen_refused("vend_add"));
    ck_assert_str_eq(wrapgen_refused("__cyg_profile_func_enter"),
                     "a function of cygtrace's runtime, which its wrapper would call");
    ck_assert_ptr_nonnull(wrapgen_refused("cygtrace_wrap_value"));
    ck_assert_str_eq(wrapgen_refused("__wrap_vend_add"), "a wrapper's name already");
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    ck_assert_ptr_null(wrapgen_refused(long_name + 1));
    ck_assert_str_eq(wrapgen_refused(long_name), "a name longer than 512 characters");
    wrapgen_set_free(s);
}
END_TEST

/* ---- what is written ---- */

/* vend_add, vend_reset, an enum recorded signed, a string, a 64-bit integer. */
static struct wrapgen_set *sample(void)
{
    static const struct wrapgen_enumerator items[] = {{0, "M_OFF"}, {7, "M_FAST"}, {-1, "M_BAD"}};
    static const struct wrapgen_enum en = {3, items};
    struct wrapgen_set *s = parse("int vend_add(int a, int b);\n"
                                  "void vend_reset(void);\n"
                                  "unsigned vend_set(unsigned m, const char *why);\n"
                                  "unsigned vend_get(void);\n"
                                  "uint64_t vend_big(uint64_t x, double d);\n",
                                  NULL);
    struct wrapgen_fn *set = (struct wrapgen_fn *)fn_of(s, "vend_set");
    struct wrapgen_fn *get = (struct wrapgen_fn *)fn_of(s, "vend_get");

    /* as the DWARF reader gives an unsigned enum */
    set->p[0].t = (struct wrapgen_type){WRAPGEN_INT, "unsigned int", "enum mode", "int", &en};
    set->ret = set->p[0].t;
    get->ret = set->p[0].t;
    return s;
}

static const char sample_table[] = "cygtrace-wrap 1\n"
                                   "F\tvend_add\t2\tint\t-\tint\n"
                                   "P\t0\ta\tint\t-\tint\n"
                                   "P\t1\tb\tint\t-\tint\n"
                                   "F\tvend_big\t2\tuint\t-\tuint64_t\n"
                                   "P\t0\tx\tuint\t-\tuint64_t\n"
                                   "P\t1\td\tf64\t-\tdouble\n"
                                   "F\tvend_get\t0\tint\te1\tenum mode\n"
                                   "F\tvend_reset\t0\tvoid\t-\tvoid\n"
                                   "F\tvend_set\t2\tint\te1\tenum mode\n"
                                   "P\t0\tm\tint\te1\tenum mode\n"
                                   "P\t1\twhy\tstr\t-\tconst char *\n"
                                   "E\te1\t0\tM_OFF\n"
                                   "E\te1\t7\tM_FAST\n"
                                   "E\te1\t-1\tM_BAD\n";

START_TEST(test_wrapgen_table)
{
    struct wrapgen_set *s = sample();
    const struct wrapgen_fn *v[8];
    size_t n = wrapped(s, v, 8), len;
    char *t = wrapgen_table(v, n, &len);

    ck_assert_ptr_nonnull(t);
    ck_assert_str_eq(t, sample_table);
    ck_assert_uint_eq(len, strlen(sample_table));
    free(t);
    t = wrapgen_table(v, 0, &len);
    ck_assert_str_eq(t, "cygtrace-wrap 1\n");
    free(t);
    /* what would end a field or a line does not get in */
    ((struct wrapgen_fn *)v[0])->ret.shown = "int\tx\ny";
    t = wrapgen_table(v, 1, &len);
    ck_assert_str_eq(t, "cygtrace-wrap 1\nF\tvend_add\t2\tint\t-\tint?x?y\n"
                        "P\t0\ta\tint\t-\tint\nP\t1\tb\tint\t-\tint\n");
    free(t);
    wrapgen_set_free(s);
}
END_TEST

START_TEST(test_wrapgen_c_and_flags)
{
    static const char head[] =
        "/* cygtrace_wrap.c - written by 'cygtrace wrap' from libvend.a, bad?/name; do not edit, "
        "run it again.\n"
        " * Link this file and the runtime with @cygtrace_wrap.flags: a call to a function below "
        "then\n"
        " * reaches __wrap_NAME, which records it with its arguments and return value, and calls "
        "the\n"
        " * function itself (__real_NAME). Build it with -I for the runtime's target/core and "
        "common. */\n"
        "#include \"cygtrace_wrap.h\"\n"
        "\n"
        "extern int __real_vend_add(int a, int b);\n"
        "int __wrap_vend_add(int a, int b);\n"
        "CYGTRACE_NOINSTR int __wrap_vend_add(int a, int b)\n"
        "{\n"
        "    void *const cyg_fn = (void *)__wrap_vend_add;\n"
        "    void *const cyg_site = __builtin_return_address(0);\n"
        "    int cyg_r;\n"
        "\n"
        "    if (!cygtrace_wrap_enter(cyg_fn, cyg_site))\n"
        "        return __real_vend_add(a, b);\n"
        "    CYGTRACE_WRAP_INT(cyg_fn, 0, a);\n"
        "    CYGTRACE_WRAP_INT(cyg_fn, 1, b);\n"
        "    cyg_r = __real_vend_add(a, b);\n"
        "    CYGTRACE_WRAP_INT(cyg_fn, CYGTRACE_RET, cyg_r);\n"
        "    cygtrace_wrap_exit(cyg_fn, cyg_site);\n"
        "    return cyg_r;\n"
        "}\n"
        "\n"
        "extern uint64_t __real_vend_big(uint64_t x, double d);\n";
    static const char reset[] = "extern void __real_vend_reset(void);\n"
                                "void __wrap_vend_reset(void);\n"
                                "CYGTRACE_NOINSTR void __wrap_vend_reset(void)\n"
                                "{\n"
                                "    void *const cyg_fn = (void *)__wrap_vend_reset;\n"
                                "    void *const cyg_site = __builtin_return_address(0);\n"
                                "\n"
                                "    if (!cygtrace_wrap_enter(cyg_fn, cyg_site)) {\n"
                                "        __real_vend_reset();\n"
                                "        return;\n"
                                "    }\n"
                                "    __real_vend_reset();\n"
                                "    cygtrace_wrap_exit(cyg_fn, cyg_site);\n"
                                "}\n";
    static const char set[] = "    CYGTRACE_WRAP_INT(cyg_fn, 0, (int)m);\n"
                              "    CYGTRACE_WRAP_STR(cyg_fn, 1, why);\n"
                              "    cyg_r = __real_vend_set(m, why);\n"
                              "    CYGTRACE_WRAP_INT(cyg_fn, CYGTRACE_RET, (int)cyg_r);\n";
    static const char tail[] =
        "/* The signature table: what cygtrace shows the values above as. */\n"
        "__asm__(\".pushsection .cygtrace_wrap,\\\"\\\",%progbits\\n\"\n"
        "        \"\\t.ascii \\\"cygtrace-wrap 1\\\\n\\\"\\n\"\n"
        "        \"\\t.ascii \\\"F\\\\tvend_add\\\\t2\\\\tint\\\\t-\\\\tint\\\\n\\\"\\n\"\n";
    struct wrapgen_set *s = sample();
    const struct wrapgen_fn *v[8];
    size_t n = wrapped(s, v, 8);
    char *c = written(wrapgen_write_c, v, n, "libvend.a, bad*/name"), *f;

    ck_assert_msg(!strncmp(c, head, strlen(head)), "the C begins:\n%.1500s", c);
    ck_assert_msg(strstr(c, reset) != NULL, "no vend_reset wrapper in:\n%s", c);
    ck_assert_msg(strstr(c, set) != NULL, "no vend_set body in:\n%s", c);
    ck_assert_msg(strstr(c, tail) != NULL, "no table in:\n%s", c);
    ck_assert_msg(strstr(c, "        \"\\t.ascii \\\"E\\\\te1\\\\t-1\\\\tM_BAD\\\\n\\\"\\n\"\n"
                            "        \"\\t.popsection\");\n") != NULL,
                  "the table does not end right:\n%s", strstr(c, "__asm__"));
    f = written(write_flags, v, n, NULL);
    ck_assert_str_eq(f, "-Wl,--wrap=vend_add\n-Wl,--wrap=vend_big\n-Wl,--wrap=vend_get\n"
                        "-Wl,--wrap=vend_reset\n-Wl,--wrap=vend_set\n");
    free(c);
    free(f);
    wrapgen_set_free(s);
}
END_TEST

/* The table's bytes, as the compiler puts them in the section: what the C's escapes mean. */
START_TEST(test_wrapgen_c_compiles)
{
    struct wrapgen_set *s = sample();
    const struct wrapgen_fn *v[8];
    size_t n = wrapped(s, v, 8);
    char *c = written(wrapgen_write_c, v, n, "sample"), *got;
    static const char *const cores[] = {
        "-mcpu=cortex-m0",
        "-mcpu=cortex-m3",
        "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard",
        "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard",
        "-mcpu=cortex-m33",
    };
    FILE *fp;
    long len;

    put("w.c", c);
    ck_assert_int_eq(sh("gcc -std=gnu11 -Wall -Wextra -Werror -O2 -Itarget/core -Icommon -c %s "
                        "-o %s",
                        testdir_path("w.c"), testdir_path("w.o")),
                     0);
    ck_assert_int_eq(sh("objcopy -O binary --only-section=.cygtrace_wrap --set-section-flags "
                        ".cygtrace_wrap=alloc,load %s %s",
                        testdir_path("w.o"), testdir_path("t.bin")),
                     0);
    fp = fopen(testdir_path("t.bin"), "rb");
    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    len = ftell(fp);
    rewind(fp);
    got = calloc(1, (size_t)len + 1);
    ck_assert_uint_eq(fread(got, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    ck_assert_str_eq(got, sample_table);
    if (have("arm-none-eabi-gcc"))
        for (size_t i = 0; i < sizeof cores / sizeof *cores; i++)
            ck_assert_msg(sh("arm-none-eabi-gcc -mthumb %s -std=gnu11 -Wall -Wextra -Werror -O2 "
                             "-Itarget/core -Icommon -c %s -o %s",
                             cores[i], testdir_path("w.c"), testdir_path("w.o")) == 0,
                          "does not build for %s", cores[i]);
    free(got);
    free(c);
    wrapgen_set_free(s);
}
END_TEST

/* ---- the DWARF reader ---- */

/* What every target's DWARF must say of it: the same signature table. */
static const char dw_src[] =
    "#include <stdarg.h>\n"
    "#include <stdbool.h>\n"
    "#include <stdint.h>\n"
    "struct pt { int x, y; };\n"
    "enum mode { M_OFF, M_ON, M_BAD = -2 };\n"
    "enum flags { F_A = 1, F_HIGH = 0x80000000u };\n"
    "typedef unsigned long my_size;\n"
    "typedef const char *cstr;\n"
    "volatile int sink;\n"
    "int w_add(int a, int b) { return a + b; }\n"
    "cstr w_name(int id) { return id ? \"x\" : 0; }\n"
    "double w_scale(double v, float f) { return v * f; }\n"
    "my_size w_size(const struct pt *p, char *const s, volatile char *v, char **pp)\n"
    "{ return (my_size)(p->x + s[0] + v[0] + **pp); }\n"
    "enum mode w_mode(enum mode m, enum flags f) { return f ? m : M_BAD; }\n"
    "uint64_t w_big(uint64_t x, int64_t y, unsigned char u, signed char sc, char c, bool b,\n"
    "               short sh) { return x + (uint64_t)y + u + sc + c + b + sh; }\n"
    "void w_void(void) { sink++; }\n"
    "int w_fp(int (*cb)(int), void *p, const void *cp) { return cb(p == cp); }\n"
    "__attribute__((weak)) int w_weak(int x) { return x; }\n"
    "static int w_static(int x) { return x + sink; }\n"
    "int w_calls_static(void) { return w_static(1); }\n"
    "int w_var(int n, ...) { va_list ap; va_start(ap, n); n += va_arg(ap, int); va_end(ap);\n"
    "                        return n; }\n"
    "struct pt w_mid(struct pt a) { return a; }\n"
    "long double w_ld(long double x) { return x / 3; }\n"
    "int w_kr(a) int a; { return a; }\n"
    "int w_many(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int k,\n"
    "           int l, int m, int n, int o, int p) { return a + p; }\n";

static const char dw_table[] = "cygtrace-wrap 1\n"
                               "F\tw_add\t2\tint\t-\tint\n"
                               "P\t0\ta\tint\t-\tint\n"
                               "P\t1\tb\tint\t-\tint\n"
                               "F\tw_big\t7\tuint\t-\tuint64_t\n"
                               "P\t0\tx\tuint\t-\tuint64_t\n"
                               "P\t1\ty\tint\t-\tint64_t\n"
                               "P\t2\tu\tuint\t-\tunsigned char\n"
                               "P\t3\tsc\tint\t-\tsigned char\n"
                               "P\t4\tc\tchar\t-\tchar\n"
                               "P\t5\tb\tbool\t-\t_Bool\n"
                               "P\t6\tsh\tint\t-\tshort int\n"
                               "F\tw_calls_static\t0\tint\t-\tint\n"
                               "F\tw_fp\t3\tint\t-\tint\n"
                               "P\t0\tcb\tptr\t-\tint (*)(int)\n"
                               "P\t1\tp\tptr\t-\tvoid *\n"
                               "P\t2\tcp\tptr\t-\tconst void *\n"
                               "F\tw_mode\t2\tint\te1\tenum mode\n"
                               "P\t0\tm\tint\te1\tenum mode\n"
                               "P\t1\tf\tint\te2\tenum flags\n"
                               "F\tw_name\t1\tstr\t-\tcstr\n"
                               "P\t0\tid\tint\t-\tint\n"
                               "F\tw_scale\t2\tf64\t-\tdouble\n"
                               "P\t0\tv\tf64\t-\tdouble\n"
                               "P\t1\tf\tf32\t-\tfloat\n"
                               "F\tw_size\t4\tuint\t-\tmy_size\n"
                               "P\t0\tp\tptr\t-\tconst struct pt *\n"
                               "P\t1\ts\tstr\t-\tchar *const\n"
                               "P\t2\tv\tptr\t-\tvolatile char *\n"
                               "P\t3\tpp\tptr\t-\tchar **\n"
                               "F\tw_void\t0\tvoid\t-\tvoid\n"
                               "F\tw_weak\t1\tint\t-\tint\n"
                               "P\t0\tx\tint\t-\tint\n"
                               "E\te1\t0\tM_OFF\n"
                               "E\te1\t1\tM_ON\n"
                               "E\te1\t-2\tM_BAD\n"
                               "E\te2\t1\tF_A\n"
                               "E\te2\t-2147483648\tF_HIGH\n";

static const struct {
    const char *skip_fn, *why;
} dw_skips[] = {
    {"w_var", "variadic"},
    {"w_mid", "parameter 0 (a): struct pt by value"},
    {"w_ld", "parameter 0 (x): long double"},
    {"w_kr", "an old-style (K&R) definition: its arguments are promoted"},
    {"w_many", "16 parameters, more than 15"},
};

/* A target: its compiler and flags, and the C types its DWARF resolves to. */
static const struct {
    const char *name, *cc, *flags;
    const char *size_c, *big_c, *mode_c, *flags_c;
} targets[] = {
    {"x86-64 DWARF 5", "gcc", "-gdwarf-5", "long unsigned int", "long unsigned int", "int",
     "unsigned int"},
    {"x86-64 DWARF 4", "gcc", "-gdwarf-4", "long unsigned int", "long unsigned int", "int",
     "unsigned int"},
    {"i386", "gcc", "-m32 -ffreestanding -g", "long unsigned int", "long long unsigned int", "int",
     "unsigned int"},
    {"Cortex-M3", "arm-none-eabi-gcc", "-mcpu=cortex-m3 -mthumb -ffreestanding -g",
     "long unsigned int", "long long unsigned int", "signed char", "unsigned int"},
    {"RISC-V 64", "riscv64-unknown-elf-gcc", "-ffreestanding -g", "long unsigned int",
     "long unsigned int", "int", "unsigned int"},
    {"RISC-V 32", "riscv64-unknown-elf-gcc", "-march=rv32imac -mabi=ilp32 -ffreestanding -g",
     "long unsigned int", "long long unsigned int", "int", "unsigned int"},
};
#define N_TARGETS (sizeof targets / sizeof *targets)

static int all(void *arg, const char *name)
{
    (void)arg;
    (void)name;
    return 1;
}

/* Reads path into a new set; err gets the reason when it fails. */
static struct wrapgen_set *read_in(const char *path, int *rc, size_t *defined, char *err,
                                   size_t errlen)
{
    struct wrapgen_set *s = wrapgen_set_new();

    ck_assert_ptr_nonnull(s);
    *rc = wrapin_read(path, all, NULL, s, defined, err, errlen);
    return s;
}

/* Builds dw_src for target t into NAME.o; 0 when its compiler is missing. */
static int build_target(unsigned t, const char *obj, const char *extra)
{
    if (!have(targets[t].cc)) {
        fprintf(stderr, "check_wrapgen: %s not installed, skipping %s\n", targets[t].cc,
                targets[t].name);
        return 0;
    }
    put("w.c", dw_src);
    ck_assert_msg(sh("%s %s %s -O1 -w -c %s -o %s", targets[t].cc, targets[t].flags, extra,
                     testdir_path("w.c"), testdir_path(obj)) == 0,
                  "%s: does not compile", targets[t].name);
    return 1;
}

/* Checks what the DWARF of path gave: the table, the skips, the C types of this target. */
static void check_dwarf_set(unsigned t, const struct wrapgen_set *s)
{
    const struct wrapgen_fn *v[32];
    size_t n = wrapped(s, v, 32), len;
    char *table = wrapgen_table(v, n, &len);

    ck_assert_msg(!strcmp(table, dw_table), "%s: the table is\n%s", targets[t].name, table);
    for (size_t i = 0; i < sizeof dw_skips / sizeof *dw_skips; i++)
        ck_assert_msg(!strcmp(fn_of(s, dw_skips[i].skip_fn)->skip, dw_skips[i].why), "%s: %s: '%s'",
                      targets[t].name, dw_skips[i].skip_fn, fn_of(s, dw_skips[i].skip_fn)->skip);
    ck_assert_ptr_null(wrapgen_set_find(s, "w_static"));
    ck_assert_str_eq(fn_of(s, "w_size")->ret.c, targets[t].size_c);
    ck_assert_str_eq(fn_of(s, "w_big")->ret.c, targets[t].big_c);
    ck_assert_str_eq(fn_of(s, "w_big")->p[1].t.c,
                     !strcmp(targets[t].big_c, "long unsigned int") ? "long int" : "long long int");
    ck_assert_str_eq(fn_of(s, "w_mode")->ret.c, targets[t].mode_c);
    ck_assert_ptr_null(fn_of(s, "w_mode")->ret.cast); /* signed: as it is */
    ck_assert_str_eq(fn_of(s, "w_mode")->p[1].t.c, targets[t].flags_c);
    ck_assert_str_eq(fn_of(s, "w_mode")->p[1].t.cast, "int"); /* unsigned: recorded signed */
    ck_assert_str_eq(fn_of(s, "w_size")->p[1].t.c, "char *");
    ck_assert_str_eq(fn_of(s, "w_size")->p[0].t.c, "const void *");
    ck_assert_str_eq(fn_of(s, "w_name")->ret.c, "const char *");
    free(table);
}

/* A relocatable object: its DWARF relocated in memory (RISC-V's too, which libdwarf cannot). */
START_TEST(test_wrapgen_dwarf_object)
{
    char err[256] = "";
    size_t defined;
    int rc;
    struct wrapgen_set *s;

    if (!build_target((unsigned)_i, "w.o", ""))
        return;
    s = read_in(testdir_path("w.o"), &rc, &defined, err, sizeof err);
    ck_assert_msg(rc == 0, "%s: %s", targets[_i].name, err);
    ck_assert_uint_eq(defined, 15);
    check_dwarf_set((unsigned)_i, s);
    wrapgen_set_free(s);
}
END_TEST

/* The wrappers written from each target's DWARF build for it with -Werror. */
START_TEST(test_wrapgen_dwarf_c_builds)
{
    char err[256] = "", *c;
    size_t defined, n;
    int rc;
    const struct wrapgen_fn *v[32];
    struct wrapgen_set *s;

    if (!build_target((unsigned)_i, "w.o", ""))
        return;
    s = read_in(testdir_path("w.o"), &rc, &defined, err, sizeof err);
    ck_assert_int_eq(rc, 0);
    n = wrapped(s, v, 32);
    c = written(wrapgen_write_c, v, n, "w.o");
    put("gen.c", c);
    ck_assert_msg(sh("%s %s -std=gnu11 -Wall -Wextra -Werror -O2 -Itarget/core -Icommon -c %s "
                     "-o %s",
                     targets[_i].cc, targets[_i].flags, testdir_path("gen.c"),
                     testdir_path("gen.o")) == 0,
                  "%s: the wrappers do not build:\n%s", targets[_i].name, c);
    free(c);
    wrapgen_set_free(s);
}
END_TEST

/* An archive: each member's own DWARF; a member without any has its functions skipped. */
START_TEST(test_wrapgen_dwarf_archive)
{
    char err[256] = "";
    size_t defined;
    int rc;
    struct wrapgen_set *s;
    const char *why = "no signature (member nodebug.o: no DWARF); build it with -g, or give its "
                      "prototype with --signatures";

    build_target(0, "w.o", "");
    put("nodebug.c", "int nd_one(int x) { return x; }\nvoid nd_two(void) { }\n");
    ck_assert_int_eq(sh("cd %s && gcc -O1 -c nodebug.c && ar rcs libw.a w.o nodebug.o", testdir()),
                     0);
    s = read_in(testdir_path("libw.a"), &rc, &defined, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_uint_eq(defined, 17);
    check_dwarf_set(0, s);
    ck_assert_str_eq(fn_of(s, "nd_one")->skip, why);
    ck_assert_str_eq(fn_of(s, "nd_two")->skip, why);
    wrapgen_set_free(s);
}
END_TEST

/* A shared library: its dynamic symbols, its DWARF from the file. */
START_TEST(test_wrapgen_dwarf_shared)
{
    char err[256] = "";
    size_t defined;
    int rc;
    struct wrapgen_set *s;

    build_target(0, "w.o", "-fPIC");
    ck_assert_int_eq(sh("cd %s && gcc -shared -o libw.so w.o", testdir()), 0);
    s = read_in(testdir_path("libw.so"), &rc, &defined, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    check_dwarf_set(0, s);
    wrapgen_set_free(s);
    /* stripped: every function skipped, for want of DWARF */
    ck_assert_int_eq(sh("cd %s && strip -g libw.so", testdir()), 0);
    s = read_in(testdir_path("libw.so"), &rc, &defined, err, sizeof err);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(fn_of(s, "w_add")->skip, "no signature (the input: no DWARF); build it "
                                              "with -g, or give its prototype with --signatures");
    wrapgen_set_free(s);
}
END_TEST

/* Symbol versions: open@@GLIBC_2.2.5 is open; an old version (open@GLIBC_2.0) cannot be
 * linked to and is no function to wrap. */
START_TEST(test_wrapgen_shared_versions)
{
    char err[256] = "";
    size_t defined;
    int rc;
    struct wrapgen_set *s;

    put("ver.c", "int w_new(int x) { return x + 1; }\n"
                 "int w_old_impl(int x) { return x; }\n"
                 "__asm__(\".symver w_old_impl,w_old@VERS_0\");\n");
    put("ver.map", "VERS_0 { global: w_old; local: *; };\nVERS_1 { global: w_new; } VERS_0;\n");
    ck_assert_int_eq(sh("cd %s && gcc -g -fPIC -shared -Wl,--version-script=ver.map -o libver.so "
                        "ver.c && nm -D libver.so | grep -q ' w_new@@VERS_1$' && "
                        "nm -D libver.so | grep -q ' w_old@VERS_0$'",
                        testdir()),
                     0);
    s = read_in(testdir_path("libver.so"), &rc, &defined, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_uint_eq(defined, 1);
    ck_assert_uint_eq(wrapgen_set_count(s), 1);
    ck_assert_ptr_null(fn_of(s, "w_new")->skip);
    check_param(fn_of(s, "w_new"), 0, "x", WRAPGEN_INT, "int", "int");
    wrapgen_set_free(s);
}
END_TEST

START_TEST(test_wrapgen_input_errors)
{
    static const struct {
        const char *file, *make, *err;
    } cases[] = {
        {"missing.a", NULL, "No such file or directory"},
        {"text.a", "echo not an archive >text.a",
         "not an ELF object, static library or shared library"},
        {"empty.o", ": >empty.o", "not an ELF object, static library or shared library"},
        {"exe", "printf 'int main(void){return 0;}' >m.c && gcc -no-pie -o exe m.c",
         "an executable; wrap takes a static library, an object or a shared library"},
        {"bad.a", "echo junk >junk.txt && ar rcs bad.a junk.txt",
         "member junk.txt: not an ELF object"},
        {".", NULL, "not a regular file"},
    };
    char err[256], path[512];
    size_t defined;
    int rc;

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct wrapgen_set *s;

        if (cases[i].make)
            ck_assert_int_eq(sh("cd %s && %s", testdir(), cases[i].make), 0);
        snprintf(path, sizeof path, "%s/%s", testdir(), cases[i].file);
        err[0] = 0;
        s = read_in(path, &rc, &defined, err, sizeof err);
        ck_assert_msg(rc == -1 && !strcmp(err, cases[i].err), "%s: rc %d, '%s'", cases[i].file, rc,
                      err);
        wrapgen_set_free(s);
    }
}
END_TEST

Suite *wrapgen_suite(void)
{
    Suite *s = suite_create("wrapgen");
    TCase *tc = tcase_create("proto");
    TCase *dw = tcase_create("dwarf");

    tcase_add_test(tc, test_wrapgen_proto_types);
    tcase_add_test(tc, test_wrapgen_proto_typedefs);
    tcase_add_test(tc, test_wrapgen_proto_skips);
    tcase_add_loop_test(tc, test_wrapgen_proto_bad_lines, 0,
                        (int)(sizeof bad_lines / sizeof *bad_lines));
    tcase_add_test(tc, test_wrapgen_proto_twice);
    tcase_add_test(tc, test_wrapgen_names);
    tcase_add_test(tc, test_wrapgen_table);
    tcase_add_test(tc, test_wrapgen_c_and_flags);
    suite_add_tcase(s, tc);
    tcase_add_checked_fixture(dw, setup, teardown);
    tcase_set_timeout(dw, 120);
    tcase_add_test(dw, test_wrapgen_c_compiles);
    tcase_add_loop_test(dw, test_wrapgen_dwarf_object, 0, (int)N_TARGETS);
    tcase_add_loop_test(dw, test_wrapgen_dwarf_c_builds, 0, (int)N_TARGETS);
    tcase_add_test(dw, test_wrapgen_dwarf_archive);
    tcase_add_test(dw, test_wrapgen_dwarf_shared);
    tcase_add_test(dw, test_wrapgen_shared_versions);
    tcase_add_test(dw, test_wrapgen_input_errors);
    suite_add_tcase(s, dw);
    return s;
}
