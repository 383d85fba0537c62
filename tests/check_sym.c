/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_sym.c - the symbolizer against real ELF files: tests/fixtures/symsrc.c built for
 * x86-64 (PIE), Cortex-M3 (Thumb) and RISC-V by tests/fixtures.mk, a stripped copy and random
 * bytes. What sym.c reads through libbfd is checked against readelf and nm, which do not share
 * its code paths. The fixtures are found under $CYGTRACE_BUILD (default "build"). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/sym.h"

#define MAX_SYMS 256

struct fixture {
    const char *file;     /* under $CYGTRACE_BUILD/tests/fixtures/ */
    const char *cc_env;   /* variable naming its compiler, NULL when always built */
    const char *cc;       /* the compiler's default name */
    unsigned machine;     /* e_machine */
    unsigned word;        /* pointer bytes */
    int pie;              /* ET_DYN */
    int all_sized;        /* every function has st_size, so the end of the last one is exact */
};

static const struct fixture fixtures[] = {
    { "sym_x86_64", NULL, NULL, 62, 8, 1, 0 },
    { "sym_arm", "ARM_CC", "arm-none-eabi-gcc", 40, 4, 0, 1 },
    { "sym_riscv", "RISCV_CC", "riscv64-unknown-elf-gcc", 243, 8, 0, 1 },
};
#define N_FIXTURES ((int)(sizeof(fixtures) / sizeof(fixtures[0])))

/* One line of `readelf -sW`, the reference the table is checked against. */
struct ref_sym {
    char name[128];
    uint64_t value; /* raw st_value: Thumb functions are odd */
    uint64_t size;
    int func;
    int object;
    int defined;
};

struct ref {
    struct ref_sym s[MAX_SYMS];
    int n;
};

static void fixture_path(char *buf, size_t len, const char *file)
{
    const char *dir = getenv("CYGTRACE_BUILD");

    snprintf(buf, len, "%s/tests/fixtures/%s", dir && *dir ? dir : "build", file);
}

/* The cross compiler tests/fixtures.mk uses for f, as it would find it. */
static const char *fixture_cc(const struct fixture *f)
{
    const char *cc = f->cc_env ? getenv(f->cc_env) : NULL;

    return cc && *cc ? cc : f->cc;
}

static int compiler_present(const struct fixture *f)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", fixture_cc(f));
    return system(cmd) == 0;
}

/* Opens fixture f into *t and its path into path. Returns 0 when the fixture is a cross build
 * whose compiler is not installed (the test then has nothing to check); a fixture that could
 * have been built but was not is a failure. */
static int fixture_open(const struct fixture *f, char *path, size_t len, struct sym_table **t)
{
    char err[128] = "";

    fixture_path(path, len, f->file);
    if (access(path, R_OK) != 0) {
        ck_assert_msg(f->cc && !compiler_present(f),
                      "%s missing; build it with make -f tests/fixtures.mk", path);
        fprintf(stderr, "check_sym: %s not installed, skipping %s\n", fixture_cc(f), f->file);
        return 0;
    }
    *t = sym_open(path, err, sizeof(err));
    ck_assert_msg(*t != NULL, "%s: %s", path, err);
    return 1;
}

static void ref_load(struct ref *r, const char *path)
{
    char cmd[600], line[512];
    FILE *p;

    r->n = 0;
    snprintf(cmd, sizeof(cmd), "readelf -sW '%s'", path);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while (fgets(line, sizeof(line), p) && r->n < MAX_SYMS) {
        char value[32], size[32], type[16], bind[16], vis[16], ndx[16];
        struct ref_sym *s = &r->s[r->n];

        if (sscanf(line, " %*u: %31s %31s %15s %15s %15s %15s %127s", value, size, type, bind,
                   vis, ndx, s->name) != 7)
            continue;
        s->value = strtoull(value, NULL, 16);
        s->size = strtoull(size, NULL, 0);
        s->func = strcmp(type, "FUNC") == 0;
        s->object = strcmp(type, "OBJECT") == 0;
        s->defined = strcmp(ndx, "UND") != 0 && strcmp(ndx, "ABS") != 0;
        r->n++;
    }
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_int_gt(r->n, 0);
}

static const struct ref_sym *ref_find(const struct ref *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->s[i].name, name) == 0 && r->s[i].defined)
            return &r->s[i];
    ck_abort_msg("readelf does not list %s", name);
    return NULL;
}

/* The address a lookup must report: the ELF value, Thumb bit cleared on ARM. */
static uint64_t ref_start(const struct fixture *f, const struct ref_sym *s)
{
    return f->machine == 40 && s->func ? s->value & ~(uint64_t)1 : s->value;
}

static void expect_hit(const struct sym_table *t, uint64_t addr, const char *name, uint64_t start)
{
    const struct sym_info *si = sym_lookup(t, addr);

    ck_assert_msg(si != NULL, "lookup 0x%llx: NULL, want %s", (unsigned long long)addr, name);
    ck_assert_str_eq(si->name, name);
    ck_assert_uint_eq(si->start, start);
}

static const char *const fn_names[] = { "sym_static_fn", "sym_global_fn", "main" };

/* Start, middle and last byte of each function; one past the end is not that function. */
START_TEST(test_sym_lookup_functions)
{
    const struct fixture *f = &fixtures[_i];
    struct sym_table *t = NULL;
    char path[512];
    struct ref r;

    if (!fixture_open(f, path, sizeof(path), &t))
        return;
    ref_load(&r, path);
    for (size_t k = 0; k < sizeof(fn_names) / sizeof(fn_names[0]); k++) {
        const struct ref_sym *s = ref_find(&r, fn_names[k]);
        uint64_t start = ref_start(f, s);
        const struct sym_info *past;

        ck_assert_msg(s->func && s->size > 0, "%s: %s is not a sized function", path, s->name);
        expect_hit(t, start, s->name, start);
        expect_hit(t, start + s->size / 2, s->name, start);
        expect_hit(t, start + s->size - 1, s->name, start);
        ck_assert_uint_eq(sym_lookup(t, start)->size, s->size);
        past = sym_lookup(t, start + s->size);
        if (past) {
            ck_assert_str_ne(past->name, s->name);
            ck_assert_uint_eq(past->start, start + s->size);
        }
    }
    sym_close(t);
}
END_TEST

/* The generic ARM target leaves bit 0 of a Thumb function's value set; the table must not. */
START_TEST(test_sym_thumb_bit)
{
    const struct fixture *f = &fixtures[1];
    struct sym_table *t = NULL;
    char path[512];
    struct ref r;

    if (!fixture_open(f, path, sizeof(path), &t))
        return;
    ref_load(&r, path);
    for (size_t k = 0; k < sizeof(fn_names) / sizeof(fn_names[0]); k++) {
        const struct ref_sym *s = ref_find(&r, fn_names[k]);
        uint64_t even = s->value & ~(uint64_t)1;

        ck_assert_msg(s->value & 1, "%s: %s has no Thumb bit in the ELF", path, s->name);
        expect_hit(t, even, s->name, even);
        expect_hit(t, even | 1, s->name, even);
        ck_assert_uint_eq(sym_lookup(t, even)->start & 1, 0);
        /* sym_func_at: the start, with or without the Thumb bit; not an address inside */
        ck_assert_ptr_eq(sym_func_at(t, even), sym_lookup(t, even));
        ck_assert_ptr_eq(sym_func_at(t, even | 1), sym_lookup(t, even));
        ck_assert_ptr_null(sym_func_at(t, even + 2));
    }
    sym_close(t);
}
END_TEST

/* Cortex-M: the handlers in the ELF's vector table are known by their exception numbers;
 * other functions, and other architectures' tables, are not. */
START_TEST(test_sym_vector_table)
{
    struct sym_table *t = NULL;
    uint64_t a, size;
    char path[512];

    if (!fixture_open(&fixtures[1], path, sizeof(path), &t))
        return;
    ck_assert_int_eq(sym_find(t, "sym_static_fn", &a, &size), 0);
    ck_assert_uint_eq(sym_exception(t, a & ~(uint64_t)1), 15);
    ck_assert_int_eq(sym_find(t, "sym_global_fn", &a, &size), 0);
    ck_assert_uint_eq(sym_exception(t, a & ~(uint64_t)1), 17);
    ck_assert_int_eq(sym_find(t, "main", &a, &size), 0);
    ck_assert_uint_eq(sym_exception(t, a & ~(uint64_t)1), 0);
    sym_close(t);
    if (!fixture_open(&fixtures[0], path, sizeof(path), &t))
        return;
    ck_assert_int_eq(sym_find(t, "sym_static_fn", &a, &size), 0);
    ck_assert_uint_eq(sym_exception(t, a), 0);
    sym_close(t);
}
END_TEST

START_TEST(test_sym_header_fields)
{
    const struct fixture *f = &fixtures[_i];
    struct sym_table *t = NULL;
    char path[512];

    if (!fixture_open(f, path, sizeof(path), &t))
        return;
    ck_assert_uint_eq(sym_machine(t), f->machine);
    ck_assert_uint_eq(sym_word_bytes(t), f->word);
    ck_assert_int_eq(sym_is_pie(t), f->pie);
    ck_assert_uint_ge(sym_count(t), 3);
    sym_close(t);
}
END_TEST

static int hex_nibble(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Reads the "Build ID: <hex>" line of `readelf -n`; returns the byte count. */
static size_t readelf_build_id(const char *path, uint8_t *id, size_t max)
{
    char cmd[600], line[512];
    size_t n = 0;
    FILE *p;

    snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while (fgets(line, sizeof(line), p)) {
        const char *hex = strstr(line, "Build ID: ");
        if (!hex || n)
            continue;
        for (hex += 10; hex_nibble(hex[0]) >= 0 && hex_nibble(hex[1]) >= 0 && n < max; hex += 2)
            id[n++] = (uint8_t)(hex_nibble(hex[0]) << 4 | hex_nibble(hex[1]));
    }
    pclose(p);
    return n;
}

START_TEST(test_sym_build_id)
{
    const struct fixture *f = &fixtures[_i];
    struct sym_table *t = NULL;
    const uint8_t *id;
    uint8_t want[64];
    size_t n, want_n;
    char path[512];

    if (!fixture_open(f, path, sizeof(path), &t))
        return;
    want_n = readelf_build_id(path, want, sizeof(want));
    ck_assert_msg(want_n > 0, "%s: readelf shows no build-id", path);
    n = sym_build_id(t, &id);
    ck_assert_uint_eq(n, want_n);
    ck_assert_mem_eq(id, want, n);
    sym_close(t);
}
END_TEST

START_TEST(test_sym_find_variable)
{
    const struct fixture *f = &fixtures[_i];
    struct sym_table *t = NULL;
    uint64_t addr = 0, size = 0;
    const struct ref_sym *s;
    char path[512];
    struct ref r;

    if (!fixture_open(f, path, sizeof(path), &t))
        return;
    ref_load(&r, path);
    s = ref_find(&r, "cygtrace_ctl");
    ck_assert_int_eq(sym_find(t, "cygtrace_ctl", &addr, &size), 0);
    ck_assert_uint_eq(addr, s->value);
    ck_assert_uint_eq(size, 128);
    /* functions too, at the address a lookup reports */
    s = ref_find(&r, "sym_global_fn");
    ck_assert_int_eq(sym_find(t, "sym_global_fn", &addr, &size), 0);
    ck_assert_uint_eq(addr, ref_start(f, s));
    ck_assert_uint_eq(size, s->size);
    ck_assert_int_eq(sym_find(t, "no_such_symbol", &addr, &size), -1);
    ck_assert_int_eq(sym_find(t, "$t", &addr, &size), -1);
    sym_close(t);
}
END_TEST

/* Below the first function, past the last one and at the top of the address space: NULL. */
START_TEST(test_sym_lookup_outside)
{
    const struct fixture *f = &fixtures[_i];
    struct sym_table *t = NULL;
    uint64_t first = UINT64_MAX, last_end = 0;
    char path[512];
    struct ref r;

    if (!fixture_open(f, path, sizeof(path), &t))
        return;
    ref_load(&r, path);
    for (int i = 0; i < r.n; i++) {
        const struct ref_sym *s = &r.s[i];
        uint64_t start = ref_start(f, s);
        if (!s->func || !s->defined)
            continue;
        first = start < first ? start : first;
        last_end = start + s->size > last_end ? start + s->size : last_end;
    }
    ck_assert_uint_gt(first, 0);
    ck_assert_ptr_null(sym_lookup(t, first - 1));
    ck_assert_ptr_null(sym_lookup(t, 0));
    ck_assert_ptr_null(sym_lookup(t, UINT64_MAX));
    if (f->all_sized) {
        ck_assert_ptr_nonnull(sym_lookup(t, last_end - 1));
        ck_assert_ptr_null(sym_lookup(t, last_end));
    }
    sym_close(t);
}
END_TEST

/* Every text symbol nm lists is found at its address, under its name or an alias's. */
START_TEST(test_sym_nm_agrees)
{
    struct sym_table *t = NULL;
    char path[512], cmd[600], line[512];
    struct {
        uint64_t addr;
        char name[128];
    } nm[MAX_SYMS];
    int n = 0;
    FILE *p;

    fixture_open(&fixtures[0], path, sizeof(path), &t);
    snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", path);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while (fgets(line, sizeof(line), p) && n < MAX_SYMS) {
        unsigned long long addr;
        char type;

        if (sscanf(line, "%llx %c %127s", &addr, &type, nm[n].name) == 3 &&
            (type == 'T' || type == 't')) {
            nm[n].addr = addr;
            n++;
        }
    }
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_int_ge(n, 3);
    for (int i = 0; i < n; i++) {
        const struct sym_info *si = sym_lookup(t, nm[i].addr);
        int alias = 0;

        ck_assert_msg(si != NULL, "nm's %s at 0x%llx not found", nm[i].name,
                      (unsigned long long)nm[i].addr);
        ck_assert_uint_eq(si->start, nm[i].addr);
        for (int j = 0; j < n; j++)
            alias |= nm[j].addr == nm[i].addr && strcmp(nm[j].name, si->name) == 0;
        ck_assert_msg(alias, "0x%llx: got %s, nm says %s", (unsigned long long)nm[i].addr,
                      si->name, nm[i].name);
    }
    ck_assert_uint_ge(sym_count(t), (size_t)n);
    sym_close(t);
}
END_TEST

/* Opens path, which must fail with exactly the reason want. */
static void expect_error(const char *path, const char *want)
{
    char err[128] = "";
    struct sym_table *t = sym_open(path, err, sizeof(err));

    ck_assert_msg(t == NULL, "%s: opened, want \"%s\"", path, want);
    ck_assert_str_eq(err, want);
}

START_TEST(test_sym_error_missing)
{
    expect_error("/nonexistent/cygtrace/sym_x86_64", strerror(ENOENT));
}
END_TEST

START_TEST(test_sym_error_directory)
{
    char path[512];

    fixture_path(path, sizeof(path), "");
    expect_error(path, strerror(EISDIR));
}
END_TEST

START_TEST(test_sym_error_random)
{
    char path[512];

    fixture_path(path, sizeof(path), "sym_random");
    ck_assert_msg(access(path, R_OK) == 0, "%s missing; run make -f tests/fixtures.mk", path);
    expect_error(path, "not an ELF file");
}
END_TEST

START_TEST(test_sym_error_stripped)
{
    char path[512];

    fixture_path(path, sizeof(path), "sym_x86_64_stripped");
    ck_assert_msg(access(path, R_OK) == 0, "%s missing; run make -f tests/fixtures.mk", path);
    expect_error(path, "no function symbols (stripped?)");
}
END_TEST

/* Writes len bytes of data to a new temporary file; returns its path in path. */
static void temp_write(char *path, size_t plen, const void *data, size_t len)
{
    const char *dir = getenv("TMPDIR");
    FILE *fp;
    int fd;

    snprintf(path, plen, "%s/check_sym_XXXXXX", dir && *dir ? dir : "/tmp");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    fp = fdopen(fd, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(data, 1, len, fp), len);
    ck_assert_int_eq(fclose(fp), 0);
}

/* Reads a whole fixture into malloc'd memory. */
static uint8_t *slurp(const char *file, size_t *len)
{
    char path[512];
    uint8_t *buf;
    FILE *fp;
    long n;

    fixture_path(path, sizeof(path), file);
    fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "%s: %s", path, strerror(errno));
    ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
    n = ftell(fp);
    ck_assert_int_gt(n, 0);
    rewind(fp);
    buf = malloc((size_t)n);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

START_TEST(test_sym_error_empty)
{
    char path[512];

    temp_write(path, sizeof(path), "", 0);
    expect_error(path, "not an ELF file");
    unlink(path);
}
END_TEST

/* Every prefix of a real ELF is refused: without the whole magic it is not ELF, with it it is
 * truncated (the section headers are at the end of the file). */
START_TEST(test_sym_error_truncated)
{
    static const size_t cuts[] = { 1, 3, 4, 5, 16, 51, 52, 63, 64, 200, 1000, 4096 };
    char path[512];
    size_t len;
    uint8_t *elf = slurp("sym_x86_64", &len);

    for (size_t i = 0; i <= sizeof(cuts) / sizeof(cuts[0]); i++) {
        size_t cut = i < sizeof(cuts) / sizeof(cuts[0]) ? cuts[i] : len - 1;

        temp_write(path, sizeof(path), elf, cut);
        expect_error(path, cut < 4 ? "not an ELF file" : "truncated ELF file");
        unlink(path);
    }
    free(elf);
}
END_TEST

/* Random damage to a real ELF: sym_open may refuse it or not, but must not crash or read out
 * of bounds (run under valgrind with CK_FORK=no to see the latter). Deterministic seed. */
START_TEST(test_sym_corrupt_no_crash)
{
    size_t len;
    uint8_t *elf = slurp("sym_x86_64", &len);
    uint8_t *copy = malloc(len);
    unsigned seed = 12345;
    char path[512], err[128];

    ck_assert_ptr_nonnull(copy);
    for (int round = 0; round < 100; round++) {
        struct sym_table *t;

        memcpy(copy, elf, len);
        for (int k = 0; k < 1 + round % 16; k++) {
            size_t r, at;

            seed = seed * 1103515245u + 12345u;
            r = seed >> 8;
            at = r % len;
            /* odd rounds hit the ELF header and the file's tail (section headers, .symtab),
             * where damage matters most */
            if (round & 1)
                at = (k & 1) ? len - 1 - r % (len < 2048 ? len : 2048) : r % 64;
            copy[at] = (uint8_t)(seed >> 24);
        }
        temp_write(path, sizeof(path), copy, len);
        err[0] = '\0';
        t = sym_open(path, err, sizeof(err));
        if (t) {
            for (uint64_t a = 0; a < 0x5000; a += 7)
                sym_lookup(t, a);
            sym_find(t, "main", NULL, NULL);
            sym_close(t);
        } else {
            ck_assert_msg(err[0] != '\0', "round %d: NULL without a reason", round);
        }
        unlink(path);
    }
    free(copy);
    free(elf);
}
END_TEST

Suite *sym_suite(void)
{
    Suite *s = suite_create("sym");
    TCase *tc = tcase_create("fixtures");

    tcase_add_loop_test(tc, test_sym_lookup_functions, 0, N_FIXTURES);
    tcase_add_test(tc, test_sym_thumb_bit);
    tcase_add_test(tc, test_sym_vector_table);
    tcase_add_loop_test(tc, test_sym_header_fields, 0, N_FIXTURES);
    tcase_add_loop_test(tc, test_sym_build_id, 0, N_FIXTURES);
    tcase_add_loop_test(tc, test_sym_find_variable, 0, N_FIXTURES);
    tcase_add_loop_test(tc, test_sym_lookup_outside, 0, N_FIXTURES);
    tcase_add_test(tc, test_sym_nm_agrees);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, test_sym_error_missing);
    tcase_add_test(tc, test_sym_error_directory);
    tcase_add_test(tc, test_sym_error_random);
    tcase_add_test(tc, test_sym_error_stripped);
    tcase_add_test(tc, test_sym_error_empty);
    tcase_add_test(tc, test_sym_error_truncated);
    tcase_add_test(tc, test_sym_corrupt_no_crash);
    tcase_set_timeout(tc, 120); /* the corruption rounds under valgrind */
    suite_add_tcase(s, tc);
    return s;
}
