/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dwarf.c - source lines and signatures from DWARF with libdwarf.
 *
 * An address is mapped to its compilation unit through a sorted table of address ranges
 * (.debug_aranges, or each unit's low/high pc and its functions' when the ELF has no aranges),
 * built at the first query. A unit's line rows and functions are read when first needed and
 * kept in a small LRU cache of units. The signatures are printed by dwdecl.c. */
#include "symbols/dwarf.h"

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/dwdecl.h"
#include "symbols/dwdie.h"
#include "util/sorted.h"
#include "util/vec.h"

struct dw_range {
    uint64_t lo, hi;
    Dwarf_Off cu;
};

struct dw_row {
    uint64_t addr;
    uint32_t file; /* index into the unit's line files */
    uint32_t line; /* 0: end of a sequence */
};

struct dw_fn {
    uint64_t lo, hi;
    Dwarf_Off off; /* the subprogram DIE */
};

struct dw_cu {
    Dwarf_Off off;
    unsigned long used; /* LRU clock */
    int have_lines;
    struct dw_row *rows;
    size_t nrows;
    char **lfiles; /* line files by number, strdup'd; NULL where unused */
    size_t nlfiles;
    struct dw_fn *fns;
    size_t nfns;
    char **dfiles; /* DW_AT_decl_file names (dwarf_srcfiles) */
    Dwarf_Signed ndfiles;
    unsigned version; /* of the line table (else of the unit) */
};

struct dwarf_src {
    char *path;
    int state; /* 0 not opened yet, 1 open, -1 no DWARF */
    Dwarf_Debug dbg;
    struct dw_range *ranges;
    size_t nranges, capranges;
    struct dw_cu cus[DWARF_CU_CACHE];
    unsigned long clock;
};

struct dwarf_src *dwarf_src_open(const char *path)
{
    struct dwarf_src *d = calloc(1, sizeof *d);

    if (!d)
        return NULL;
    d->path = strdup(path);
    if (!d->path) {
        free(d);
        return NULL;
    }
    return d;
}

static void cu_drop(struct dwarf_src *d, struct dw_cu *c)
{
    for (size_t i = 0; i < c->nlfiles; i++)
        free(c->lfiles[i]);
    free(c->lfiles);
    free(c->rows);
    free(c->fns);
    if (c->dfiles) {
        for (Dwarf_Signed i = 0; i < c->ndfiles; i++)
            dwarf_dealloc(d->dbg, c->dfiles[i], DW_DLA_STRING);
        dwarf_dealloc(d->dbg, c->dfiles, DW_DLA_LIST);
    }
    memset(c, 0, sizeof *c);
}

void dwarf_src_close(struct dwarf_src *d)
{
    if (!d)
        return;
    for (unsigned i = 0; i < DWARF_CU_CACHE; i++)
        if (d->cus[i].used)
            cu_drop(d, &d->cus[i]);
    if (d->state == 1)
        dwarf_finish(d->dbg, NULL);
    free(d->ranges);
    free(d->path);
    free(d);
}

static int add_range(struct dwarf_src *d, uint64_t lo, uint64_t hi, Dwarf_Off cu)
{
    if (hi <= lo)
        return 0;
    if (vec_grow(&d->ranges, &d->capranges, d->nranges, sizeof *d->ranges, 64) < 0)
        return -1;
    d->ranges[d->nranges++] = (struct dw_range){lo, hi, cu};
    return 0;
}

static int range_cmp(const void *a, const void *b)
{
    const struct dw_range *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The code range of a DIE with DW_AT_low_pc / DW_AT_high_pc (address or, DWARF 4+, length). */
static int die_pc(Dwarf_Die die, uint64_t *lo, uint64_t *hi)
{
    Dwarf_Addr l, h;
    Dwarf_Half form;
    enum Dwarf_Form_Class cls;

    if (dwarf_lowpc(die, &l, NULL) != DW_DLV_OK ||
        dwarf_highpc_b(die, &h, &form, &cls, NULL) != DW_DLV_OK)
        return -1;
    *lo = l;
    *hi = cls == DW_FORM_CLASS_CONSTANT ? l + h : h;
    return 0;
}

/* Calls fn on each subprogram with code under die (into namespaces and classes, for C++). */
static int walk_fns(Dwarf_Debug dbg, Dwarf_Die parent, unsigned depth,
                    int (*fn)(void *arg, Dwarf_Die die, uint64_t lo, uint64_t hi), void *arg)
{
    Dwarf_Die die = depth > 8 ? NULL : dwdie_child(parent);
    int rc = 0;

    for (; die && !rc; die = dwdie_next(dbg, die)) {
        Dwarf_Half tag = dwdie_tag(die);
        uint64_t lo, hi;

        if (tag == DW_TAG_subprogram && !die_pc(die, &lo, &hi))
            rc = fn(arg, die, lo, hi);
        else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
                 tag == DW_TAG_structure_type)
            rc = walk_fns(dbg, die, depth + 1, fn, arg);
    }
    if (die)
        dwarf_dealloc_die(die);
    return rc;
}

struct fn_range_arg {
    struct dwarf_src *d;
    Dwarf_Off cu;
};

static int fn_range(void *arg, Dwarf_Die die, uint64_t lo, uint64_t hi)
{
    struct fn_range_arg *a = arg;

    (void)die;
    return add_range(a->d, lo, hi, a->cu);
}

/* Without .debug_aranges: each unit's low/high pc, or its functions' when it has a range
 * list instead (code in several sections). */
static int ranges_from_units(struct dwarf_src *d)
{
    Dwarf_Unsigned next;
    Dwarf_Half ver, cu_type;

    for (;;) {
        Dwarf_Die cu = NULL;
        Dwarf_Off off;
        uint64_t lo, hi;
        int rc;

        if (dwarf_next_cu_header_d(d->dbg, 1, NULL, &ver, NULL, NULL, NULL, NULL, NULL, NULL,
                                   &next, &cu_type, NULL) != DW_DLV_OK)
            return 0;
        if (dwarf_siblingof_b(d->dbg, NULL, 1, &cu, NULL) != DW_DLV_OK)
            continue;
        dwarf_dieoffset(cu, &off, NULL);
        if (!die_pc(cu, &lo, &hi) && hi > lo)
            rc = add_range(d, lo, hi, off);
        else {
            struct fn_range_arg a = {d, off};

            rc = walk_fns(d->dbg, cu, 0, fn_range, &a);
        }
        dwarf_dealloc_die(cu);
        if (rc < 0)
            return -1;
    }
}

/* The first query opens the DWARF and builds the table of unit ranges. */
static int dw_open(struct dwarf_src *d)
{
    Dwarf_Arange *ar = NULL;
    Dwarf_Signed n = 0;
    Dwarf_Error derr = NULL; /* libdwarf writes through it unchecked on some errors */
    int rc;

    if (d->state)
        return d->state == 1 ? 0 : -1;
    d->state = -1;
    rc = dwarf_init_path(d->path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, dwdie_quiet, NULL,
                         &d->dbg, NULL, 0, NULL, &derr);
    if (derr)
        dwarf_dealloc_error(NULL, derr);
    if (rc != DW_DLV_OK)
        return -1;
    d->state = 1;
    if (dwarf_get_aranges(d->dbg, &ar, &n, NULL) == DW_DLV_OK) {
        for (Dwarf_Signed i = 0; i < n; i++) {
            Dwarf_Unsigned seg, segsz, len;
            Dwarf_Addr start;
            Dwarf_Off cu;

            if (dwarf_get_arange_info_b(ar[i], &seg, &segsz, &start, &len, &cu, NULL) ==
                DW_DLV_OK)
                add_range(d, start, start + len, cu);
            dwarf_dealloc(d->dbg, ar[i], DW_DLA_ARANGE);
        }
        dwarf_dealloc(d->dbg, ar, DW_DLA_LIST);
    }
    if (!d->nranges && ranges_from_units(d) < 0)
        return -1;
    if (!d->nranges) {
        /* No code described at all: as good as no debug info. */
        dwarf_finish(d->dbg, NULL);
        d->state = -1;
        return -1;
    }
    qsort(d->ranges, d->nranges, sizeof *d->ranges, range_cmp);
    return 0;
}

static const struct dw_range *range_of(const struct dwarf_src *d, uint64_t addr)
{
    size_t lo = sorted_upto(d->ranges, d->nranges, sizeof *d->ranges,
                            offsetof(struct dw_range, lo), addr);

    /* Ranges of different units do not overlap; a unit may have several. */
    return lo && addr < d->ranges[lo - 1].hi ? &d->ranges[lo - 1] : NULL;
}

static int row_cmp(const void *a, const void *b)
{
    const struct dw_row *x = a, *y = b;

    /* Stable enough: an end-of-sequence row sorts before a row starting at the same address. */
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return (x->line != 0) - (y->line != 0);
}

/* The unit's line table, as sorted rows and the names of its files. */
static int load_lines(struct dwarf_src *d, struct dw_cu *c, Dwarf_Die cu)
{
    Dwarf_Unsigned ver;
    Dwarf_Small tables;
    Dwarf_Line_Context ctx;
    Dwarf_Line *lines;
    Dwarf_Signed n;
    int rc = -1;

    c->have_lines = 1;
    if (dwarf_srclines_b(cu, &ver, &tables, &ctx, NULL) != DW_DLV_OK)
        return 0;
    /* DW_AT_decl_file numbers the line table's files: its version says from where (an
     * assembler may write a version 4 table for a version 5 unit). */
    c->version = (unsigned)ver;
    if (dwarf_srclines_from_linecontext(ctx, &lines, &n, NULL) != DW_DLV_OK || n <= 0) {
        rc = 0;
        goto out;
    }
    c->rows = malloc((size_t)n * sizeof *c->rows);
    if (!c->rows)
        goto out;
    for (Dwarf_Signed i = 0; i < n; i++) {
        Dwarf_Addr a = 0;
        Dwarf_Unsigned ln = 0, fno = 0;
        Dwarf_Bool end = 0;
        char *name;

        dwarf_lineaddr(lines[i], &a, NULL);
        dwarf_lineno(lines[i], &ln, NULL);
        dwarf_line_srcfileno(lines[i], &fno, NULL);
        dwarf_lineendsequence(lines[i], &end, NULL);
        if (fno > 65535)
            continue;
        if (fno >= c->nlfiles) {
            char **nf = realloc(c->lfiles, (fno + 1) * sizeof *nf);

            if (!nf)
                goto out;
            memset(nf + c->nlfiles, 0, (fno + 1 - c->nlfiles) * sizeof *nf);
            c->lfiles = nf;
            c->nlfiles = fno + 1;
        }
        if (!c->lfiles[fno] && dwarf_linesrc(lines[i], &name, NULL) == DW_DLV_OK) {
            c->lfiles[fno] = strdup(name);
            dwarf_dealloc(d->dbg, name, DW_DLA_STRING);
        }
        c->rows[c->nrows++] = (struct dw_row){a, (uint32_t)fno, end ? 0 : (uint32_t)ln};
    }
    qsort(c->rows, c->nrows, sizeof *c->rows, row_cmp);
    rc = 0;
out:
    dwarf_srclines_dealloc_b(ctx);
    return rc;
}

struct fn_list_arg {
    struct dw_cu *c;
    size_t cap;
};

static int fn_list(void *arg, Dwarf_Die die, uint64_t lo, uint64_t hi)
{
    struct fn_list_arg *a = arg;
    struct dw_cu *c = a->c;

    if (vec_grow(&c->fns, &a->cap, c->nfns, sizeof *c->fns, 32) < 0)
        return -1;
    c->fns[c->nfns].lo = lo;
    c->fns[c->nfns].hi = hi;
    dwarf_dieoffset(die, &c->fns[c->nfns].off, NULL);
    c->nfns++;
    return 0;
}

/* The cached unit at offset off, read (and an older one dropped) when not cached. */
static struct dw_cu *cu_get(struct dwarf_src *d, Dwarf_Off off)
{
    struct dw_cu *c = &d->cus[0];
    struct fn_list_arg fa;
    Dwarf_Die cu;
    Dwarf_Half ver = 0, offsz = 0;

    for (unsigned i = 0; i < DWARF_CU_CACHE; i++) {
        if (d->cus[i].used && d->cus[i].off == off) {
            d->cus[i].used = ++d->clock;
            return &d->cus[i];
        }
        if (d->cus[i].used < c->used)
            c = &d->cus[i];
    }
    if (c->used)
        cu_drop(d, c);
    if (dwarf_offdie_b(d->dbg, off, 1, &cu, NULL) != DW_DLV_OK)
        return NULL;
    c->off = off;
    c->used = ++d->clock;
    dwarf_get_version_of_die(cu, &ver, &offsz);
    c->version = ver; /* until the line table says */
    fa = (struct fn_list_arg){c, 0};
    if (load_lines(d, c, cu) < 0 || walk_fns(d->dbg, cu, 0, fn_list, &fa) < 0) {
        dwarf_dealloc_die(cu);
        cu_drop(d, c);
        return NULL;
    }
    if (dwarf_srcfiles(cu, &c->dfiles, &c->ndfiles, NULL) != DW_DLV_OK) {
        c->dfiles = NULL;
        c->ndfiles = 0;
    }
    dwarf_dealloc_die(cu);
    return c;
}

static struct dw_cu *cu_at(struct dwarf_src *d, uint64_t addr, int *rc)
{
    const struct dw_range *r;
    struct dw_cu *c;

    *rc = dw_open(d);
    if (*rc < 0)
        return NULL;
    r = range_of(d, addr);
    c = r ? cu_get(d, r->cu) : NULL;
    *rc = c ? 0 : -1;
    return c;
}

static void copy(char *dst, size_t len, const char *src)
{
    if (len)
        snprintf(dst, len, "%s", src ? src : "");
}

/* The row holding addr: the last row at or before it, unless a sequence ended in between. */
static const struct dw_row *row_at(const struct dw_cu *c, uint64_t addr)
{
    size_t lo =
        sorted_upto(c->rows, c->nrows, sizeof *c->rows, offsetof(struct dw_row, addr), addr);

    return lo && c->rows[lo - 1].line ? &c->rows[lo - 1] : NULL;
}

int dwarf_src_line(struct dwarf_src *d, uint64_t addr, char *file, size_t filelen,
                   unsigned *line)
{
    int rc;
    struct dw_cu *c = cu_at(d, addr, &rc);
    const struct dw_row *row;

    if (!c)
        return rc;
    row = row_at(c, addr);
    if (!row || row->file >= c->nlfiles || !c->lfiles[row->file])
        return -1;
    copy(file, filelen, c->lfiles[row->file]);
    *line = row->line;
    return 0;
}

/* The DIE that holds a function's name and declaration: itself, or what its
 * DW_AT_specification (C++ member defined outside its class) or DW_AT_abstract_origin (an
 * out-of-line copy of an inline function) points at. NULL: die itself. */
static Dwarf_Die decl_die(Dwarf_Debug dbg, Dwarf_Die die)
{
    Dwarf_Die o = dwdie_ref(dbg, die, DW_AT_specification);

    if (!o)
        o = dwdie_ref(dbg, die, DW_AT_abstract_origin);
    return o;
}

int dwarf_src_func(struct dwarf_src *d, uint64_t addr, char *file, size_t filelen,
                   unsigned *line, char *sig, size_t siglen)
{
    int rc;
    struct dw_cu *c = cu_at(d, addr, &rc);
    const struct dw_fn *fn = NULL;
    Dwarf_Die die, o, nd;
    Dwarf_Unsigned fno, ln;

    if (!c)
        return rc;
    for (size_t i = 0; i < c->nfns && !fn; i++)
        if (addr >= c->fns[i].lo && addr < c->fns[i].hi)
            fn = &c->fns[i];
    if (!fn || dwarf_offdie_b(d->dbg, fn->off, 1, &die, NULL) != DW_DLV_OK)
        return -1;
    o = decl_die(d->dbg, die);
    nd = o && !dwdie_u(die, DW_AT_decl_line) ? o : die;
    fno = dwdie_u(nd, DW_AT_decl_file);
    ln = dwdie_u(nd, DW_AT_decl_line);
    /* DWARF 5 numbers files from 0, earlier versions from 1 (0: none). */
    if (c->version < 5)
        fno = fno ? fno - 1 : (Dwarf_Unsigned)c->ndfiles;
    if (ln && fno < (Dwarf_Unsigned)c->ndfiles) {
        copy(file, filelen, c->dfiles[fno]);
        *line = (unsigned)ln;
    } else {
        const struct dw_row *row = row_at(c, fn->lo);

        if (!row || row->file >= c->nlfiles || !c->lfiles[row->file]) {
            copy(file, filelen, "");
            *line = 0;
        } else {
            copy(file, filelen, c->lfiles[row->file]);
            *line = row->line;
        }
    }
    if (sig && siglen)
        dwdecl_func(d->dbg, die, o, sig, siglen);
    if (o)
        dwarf_dealloc_die(o);
    dwarf_dealloc_die(die);
    return 0;
}
