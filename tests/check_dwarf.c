/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_dwarf.c - the DWARF reader against real ELF files: tests/fixtures/dwarfsrc.c built for
 * x86-64 (DWARF 4 and 5), Cortex-M3 and RISC-V by tests/fixtures.mk. Declaration lines are
 * checked against the source's "@line NAME" tags, signatures against the prototypes written
 * there, and the line of every code address against binutils' addr2line. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/dwarf.h"
#include "suites.h"
#include "symbols/sym.h"

struct fixture {
    const char *file; /* under $CYGTRACE_BUILD/tests/fixtures/ */
    const char *cc;   /* cross compiler; NULL: the host's, always there */
};

static const struct fixture fixtures[] = {
    {"dwarf_x86_64_v4", NULL},
    {"dwarf_x86_64_v5", NULL},
    {"dwarf_arm", "arm-none-eabi-gcc"},
    {"dwarf_riscv", "riscv64-unknown-elf-gcc"},
};
#define N_FIXTURES ((int)(sizeof(fixtures) / sizeof(fixtures[0])))

/* The functions of dwarfsrc.c, their "@line" tag and their prototype as C writes it (DWARF
 * names "unsigned" as "unsigned int", and an array parameter as the pointer it is). */
static const struct {
    const char *name, *sig;
} funcs[] = {
    {"decide", "decide(int i)"},
    {"no_params", "no_params(void)"},
    {"strings", "strings(const char *s, char *const t, const volatile int *v)"},
    {"types", "types(struct point p, struct point *pp, dw_size n, enum colour c, union word w)"},
    {"callback", "callback(int (*fn)(int), void (*done)(void *, unsigned int))"},
    {"matrix", "matrix(int (*rows)[4], char **argv)"},
    {"sum", "sum(int n, ...)"},
    {"done_cb", "done_cb(void *p, unsigned int u)"},
    {"main", "main(void)"},
};
#define N_FUNCS ((int)(sizeof(funcs) / sizeof(funcs[0])))

static void fixture_path(char *buf, size_t len, const char *file)
{
    const char *dir = getenv("CYGTRACE_BUILD");

    snprintf(buf, len, "%s/tests/fixtures/%s", dir && *dir ? dir : "build", file);
}

/* Opens fixture f; 0 when it is a cross build whose compiler is not installed. */
static int fixture_open(const struct fixture *f, char *path, size_t len, struct sym_table **t,
                        struct dwarf_src **d)
{
    char err[128] = "", cmd[128];

    fixture_path(path, len, f->file);
    if (access(path, R_OK) != 0) {
        snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", f->cc ? f->cc : "false");
        ck_assert_msg(f->cc && system(cmd) != 0, "%s missing; run make sym-fixtures", path);
        fprintf(stderr, "check_dwarf: %s not installed, skipping %s\n", f->cc, f->file);
        return 0;
    }
    *t = sym_open(path, err, sizeof err);
    ck_assert_msg(*t != NULL, "%s: %s", path, err);
    *d = dwarf_src_open(path);
    ck_assert_ptr_nonnull(*d);
    return 1;
}

/* The line of src that carries "@line tag" (followed by a space or the line's end). */
static unsigned tag_line(const char *src, const char *tag)
{
    char want[64], line[512];
    unsigned n = 0;
    FILE *f = fopen(src, "r");

    ck_assert_msg(f != NULL, "cannot read %s", src);
    snprintf(want, sizeof want, "@line %s", tag);
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, want);

        n++;
        if (p && (p[strlen(want)] == ' ' || p[strlen(want)] == '\n')) {
            fclose(f);
            return n;
        }
    }
    fclose(f);
    return 0;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');

    return s ? s + 1 : p;
}

START_TEST(test_dwarf_signatures_and_decl_lines)
{
    const struct fixture *f = &fixtures[_i];
    char path[512], file[512], sig[512];
    struct sym_table *t = NULL;
    struct dwarf_src *d = NULL;

    if (!fixture_open(f, path, sizeof path, &t, &d))
        return;
    for (int i = 0; i < N_FUNCS; i++) {
        uint64_t addr, size;
        unsigned line = 0, want;
        int rc;

        ck_assert_msg(sym_find(t, funcs[i].name, &addr, &size) == 0, "%s: no %s", path,
                      funcs[i].name);
        rc = dwarf_src_func(d, addr, file, sizeof file, &line, sig, sizeof sig);
        ck_assert_msg(rc == 0, "%s: %s: %d", path, funcs[i].name, rc);
        ck_assert_str_eq(sig, funcs[i].sig);
        ck_assert_str_eq(base(file), "dwarfsrc.c");
        /* the source the DWARF names is the one checked against */
        if (strcmp(funcs[i].name, "main") && strcmp(funcs[i].name, "done_cb")) {
            want = tag_line(file, funcs[i].name);
            ck_assert_msg(want && line == want, "%s: %s declared at %u, DWARF says %u", path,
                          funcs[i].name, want, line);
        }
        /* an address inside the function names the same function */
        ck_assert_int_eq(dwarf_src_func(d, addr + size - 1, file, sizeof file, &line, NULL, 0),
                         0);
    }
    dwarf_src_close(d);
    sym_close(t);
}
END_TEST

/* Every even code address of every function: the line addr2line (binutils) gives for it. */
START_TEST(test_dwarf_lines_match_addr2line)
{
    const struct fixture *f = &fixtures[_i];
    char path[512], cmd[700], file[512], out[600];
    struct sym_table *t = NULL;
    struct dwarf_src *d = NULL;
    unsigned checked = 0;

    if (!fixture_open(f, path, sizeof path, &t, &d))
        return;
    for (int i = 0; i < N_FUNCS; i++) {
        uint64_t addr, size;
        FILE *p;
        char tmp[] = "/tmp/check_dwarf_XXXXXX";
        int fd = mkstemp(tmp);
        FILE *in;

        ck_assert_int_ge(fd, 0);
        in = fdopen(fd, "w");
        ck_assert_int_eq(sym_find(t, funcs[i].name, &addr, &size), 0);
        for (uint64_t a = addr; a < addr + size; a += 2)
            fprintf(in, "0x%llx\n", (unsigned long long)a);
        fclose(in);
        snprintf(cmd, sizeof cmd, "addr2line -e '%s' <%s", path, tmp);
        p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        for (uint64_t a = addr; a < addr + size; a += 2) {
            unsigned line = 0, want;
            char *colon;

            ck_assert_ptr_nonnull(fgets(out, sizeof out, p));
            colon = strrchr(out, ':');
            ck_assert_ptr_nonnull(colon);
            *colon = 0;
            want = (unsigned)strtoul(colon + 1, NULL, 10);
            if (!want) /* "??:0" or "?": addr2line knows no line either */
                continue;
            ck_assert_int_eq(dwarf_src_line(d, a, file, sizeof file, &line), 0);
            ck_assert_msg(line == want && !strcmp(base(file), base(out)),
                          "%s 0x%llx: addr2line %s:%u, we say %s:%u", path,
                          (unsigned long long)a, out, want, file, line);
            checked++;
        }
        pclose(p);
        unlink(tmp);
    }
    ck_assert_uint_gt(checked, 20);
    dwarf_src_close(d);
    sym_close(t);
}
END_TEST

START_TEST(test_dwarf_no_debug_info)
{
    char path[512], file[64];
    unsigned line;
    struct dwarf_src *d;

    fixture_path(path, sizeof path, "dwarf_x86_64_nodebug");
    ck_assert_msg(access(path, R_OK) == 0, "%s missing; run make sym-fixtures", path);
    d = dwarf_src_open(path);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(dwarf_src_line(d, 0x1000, file, sizeof file, &line), -1);
    ck_assert_int_eq(dwarf_src_func(d, 0x1000, file, sizeof file, &line, NULL, 0),
                     -1);
    dwarf_src_close(d);
    /* opening reads nothing: a missing file is found out at the first query */
    d = dwarf_src_open("/nonexistent/cygtrace/elf");
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(dwarf_src_line(d, 0x1000, file, sizeof file, &line), -1);
    dwarf_src_close(d);
    fixture_path(path, sizeof path, "sym_random");
    d = dwarf_src_open(path);
    ck_assert_int_eq(dwarf_src_line(d, 0x1000, file, sizeof file, &line), -1);
    dwarf_src_close(d);
}
END_TEST

START_TEST(test_dwarf_unknown_address)
{
    char path[512], file[64];
    unsigned line;
    struct sym_table *t = NULL;
    struct dwarf_src *d = NULL;

    if (!fixture_open(&fixtures[1], path, sizeof path, &t, &d))
        return;
    ck_assert_int_eq(dwarf_src_line(d, 0x10, file, sizeof file, &line), -1);
    ck_assert_int_eq(dwarf_src_func(d, ~0ull - 16, file, sizeof file, &line, NULL, 0),
                     -1);
    dwarf_src_close(d);
    sym_close(t);
}
END_TEST

Suite *dwarf_suite(void)
{
    Suite *s = suite_create("dwarf");
    TCase *tc = tcase_create("dwarf");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_dwarf_signatures_and_decl_lines, 0, N_FIXTURES);
    tcase_add_loop_test(tc, test_dwarf_lines_match_addr2line, 0, N_FIXTURES);
    tcase_add_test(tc, test_dwarf_no_debug_info);
    tcase_add_test(tc, test_dwarf_unknown_address);
    suite_add_tcase(s, tc);
    return s;
}
