/* dwarf.c - source lines and signatures from DWARF with libdwarf.
 *
 * An address is mapped to its compilation unit through a sorted table of address ranges
 * (.debug_aranges, or each unit's low/high pc and its functions' when the ELF has no aranges),
 * built at the first query. A unit's line rows and functions are read when first needed and
 * kept in a small LRU cache of units. */
#include "symbols/dwarf.h"
#include "symbols/dwarf_internal.h"

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_DEPTH 16 /* deeper type chains (or a cycle) print as "?" */

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
    if (d->nranges == d->capranges) {
        size_t cap = d->capranges ? d->capranges * 2 : 64;
        struct dw_range *n = realloc(d->ranges, cap * sizeof *n);

        if (!n)
            return -1;
        d->ranges = n;
        d->capranges = cap;
    }
    d->ranges[d->nranges++] = (struct dw_range){lo, hi, cu};
    return 0;
}

static int range_cmp(const void *a, const void *b)
{
    const struct dw_range *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* An unsigned attribute (DW_AT_decl_line, ...); 0 when absent. */
static Dwarf_Unsigned attr_u(Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Unsigned v = 0;

    if (dwarf_attr(die, at, &a, NULL) != DW_DLV_OK)
        return 0;
    if (dwarf_formudata(a, &v, NULL) != DW_DLV_OK) {
        Dwarf_Signed sv = 0; /* DW_FORM_implicit_const (DWARF 5) only reads as signed */

        v = dwarf_formsdata(a, &sv, NULL) == DW_DLV_OK && sv > 0 ? (Dwarf_Unsigned)sv : 0;
    }
    dwarf_dealloc_attribute(a);
    return v;
}

/* A flag attribute (DW_AT_prototyped, ...); 0 when absent. */
static int attr_flag(Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Bool v = 0;

    if (dwarf_attr(die, at, &a, NULL) != DW_DLV_OK)
        return 0;
    if (dwarf_formflag(a, &v, NULL) != DW_DLV_OK)
        v = 0;
    dwarf_dealloc_attribute(a);
    return !!v;
}

static int has_attr(Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Bool b = 0;

    return dwarf_hasattr(die, at, &b, NULL) == DW_DLV_OK && b;
}

/* The DIE a reference attribute points at (DW_AT_type, DW_AT_specification, ...), or NULL. */
static Dwarf_Die attr_die(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Off off;
    Dwarf_Die t = NULL;

    if (dwarf_attr(die, at, &a, NULL) != DW_DLV_OK)
        return NULL;
    if (dwarf_global_formref(a, &off, NULL) == DW_DLV_OK &&
        dwarf_offdie_b(dbg, off, 1, &t, NULL) != DW_DLV_OK)
        t = NULL;
    dwarf_dealloc_attribute(a);
    return t;
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
    Dwarf_Die die = NULL, next;
    int rc = 0;

    if (depth > 8 || dwarf_child(parent, &die, NULL) != DW_DLV_OK)
        return 0;
    while (die && !rc) {
        Dwarf_Half tag = 0;
        uint64_t lo, hi;

        dwarf_tag(die, &tag, NULL);
        if (tag == DW_TAG_subprogram && !die_pc(die, &lo, &hi))
            rc = fn(arg, die, lo, hi);
        else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
                 tag == DW_TAG_structure_type)
            rc = walk_fns(dbg, die, depth + 1, fn, arg);
        if (dwarf_siblingof_b(dbg, die, 1, &next, NULL) != DW_DLV_OK)
            next = NULL;
        dwarf_dealloc_die(die);
        die = next;
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

/* Without a handler libdwarf aborts on an error we did not ask about; with one it returns
 * DW_DLV_ERROR, and each call here treats that as "not there". */
static void dw_error(Dwarf_Error err, Dwarf_Ptr arg)
{
    (void)err;
    (void)arg;
}

/* The first query opens the DWARF and builds the table of unit ranges. */
static int dw_open(struct dwarf_src *d)
{
    Dwarf_Arange *ar = NULL;
    Dwarf_Signed n = 0;

    if (d->state)
        return d->state == 1 ? 0 : DWARF_NO_INFO;
    d->state = -1;
    if (dwarf_init_path(d->path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, dw_error, NULL, &d->dbg,
                        NULL, 0, NULL, NULL) != DW_DLV_OK)
        return DWARF_NO_INFO;
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
        return DWARF_NO_INFO;
    if (!d->nranges) {
        /* No code described at all: as good as no debug info. */
        dwarf_finish(d->dbg, NULL);
        d->state = -1;
        return DWARF_NO_INFO;
    }
    qsort(d->ranges, d->nranges, sizeof *d->ranges, range_cmp);
    return 0;
}

static const struct dw_range *range_of(const struct dwarf_src *d, uint64_t addr)
{
    size_t lo = 0, hi = d->nranges;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (d->ranges[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
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

    if (c->nfns == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        struct dw_fn *n = realloc(c->fns, cap * sizeof *n);

        if (!n)
            return -1;
        c->fns = n;
        a->cap = cap;
    }
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
    *rc = c ? 0 : DWARF_UNKNOWN;
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
    size_t lo = 0, hi = c->nrows;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (c->rows[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
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
        return DWARF_UNKNOWN;
    copy(file, filelen, c->lfiles[row->file]);
    *line = row->line;
    return 0;
}

/* ---- signatures: C declarators built inside out ---- */

struct sbuf {
    char *p;
    size_t len, n;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (b->n >= b->len)
        return;
    va_start(ap, fmt);
    k = vsnprintf(b->p + b->n, b->len - b->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->n = b->n + (size_t)k < b->len ? b->n + (size_t)k : b->len - 1;
}

static void params(Dwarf_Debug dbg, Dwarf_Die fn, int named, unsigned depth, struct sbuf *b);

/* Writes into b the declaration of decl (a name, or "" for a bare type) with type t. */
static void type_decl(Dwarf_Debug dbg, Dwarf_Die t, const char *decl, unsigned depth,
                      struct sbuf *b)
{
    char inner[512];
    Dwarf_Half tag = 0;
    Dwarf_Die sub;
    char *name = NULL;
    const char *sp = *decl && decl[0] != '[' ? " " : "";

    if (!t) {
        sb_add(b, "void%s%s", sp, decl);
        return;
    }
    if (depth > TYPE_DEPTH) {
        sb_add(b, "?%s%s", sp, decl);
        return;
    }
    dwarf_tag(t, &tag, NULL);
    sub = attr_die(dbg, t, DW_AT_type);
    switch (tag) {
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type: {
        const char *op = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&"
                                                                                          : "&&";
        Dwarf_Half st = 0;

        if (sub)
            dwarf_tag(sub, &st, NULL);
        if (st == DW_TAG_subroutine_type || st == DW_TAG_array_type)
            snprintf(inner, sizeof inner, "(%s%s)", op, decl);
        else
            snprintf(inner, sizeof inner, "%s%s", op, decl);
        type_decl(dbg, sub, inner, depth + 1, b);
        break;
    }
    case DW_TAG_const_type:
    case DW_TAG_volatile_type:
    case DW_TAG_restrict_type: {
        /* A chain of qualifiers prints in the usual order: "const volatile int". */
        unsigned q = 0;
        Dwarf_Half st = tag;
        char qs[32];

        for (unsigned k = 0; k < 4; k++) {
            Dwarf_Die n;

            q |= st == DW_TAG_const_type ? 1u : st == DW_TAG_volatile_type ? 2u : 4u;
            st = 0;
            if (!sub || dwarf_tag(sub, &st, NULL) != DW_DLV_OK ||
                (st != DW_TAG_const_type && st != DW_TAG_volatile_type &&
                 st != DW_TAG_restrict_type))
                break;
            n = attr_die(dbg, sub, DW_AT_type);
            dwarf_dealloc_die(sub);
            sub = n;
        }
        snprintf(qs, sizeof qs, "%s%s%s", q & 1u ? "const " : "", q & 2u ? "volatile " : "",
                 q & 4u ? "restrict " : "");
        qs[strlen(qs) - 1] = 0;
        if (st == DW_TAG_pointer_type) { /* "char *const p" */
            snprintf(inner, sizeof inner, "%s%s%s", qs, *decl ? " " : "", decl);
            type_decl(dbg, sub, inner, depth + 1, b);
        } else { /* "const char" */
            sb_add(b, "%s ", qs);
            type_decl(dbg, sub, decl, depth + 1, b);
        }
        break;
    }
    case DW_TAG_array_type: {
        Dwarf_Die r = NULL, next;
        size_t k = (size_t)snprintf(inner, sizeof inner, "%s", decl);

        if (dwarf_child(t, &r, NULL) != DW_DLV_OK)
            r = NULL;
        while (r) {
            Dwarf_Attribute a;
            Dwarf_Unsigned v = 0;

            if (dwarf_attr(r, DW_AT_count, &a, NULL) == DW_DLV_OK) {
                dwarf_formudata(a, &v, NULL);
                dwarf_dealloc_attribute(a);
            } else if (dwarf_attr(r, DW_AT_upper_bound, &a, NULL) == DW_DLV_OK) {
                if (dwarf_formudata(a, &v, NULL) == DW_DLV_OK)
                    v++;
                dwarf_dealloc_attribute(a);
            }
            if (k < sizeof inner)
                k += (size_t)snprintf(inner + k, sizeof inner - k, v ? "[%llu]" : "[]",
                                      (unsigned long long)v);
            if (dwarf_siblingof_b(dbg, r, 1, &next, NULL) != DW_DLV_OK)
                next = NULL;
            dwarf_dealloc_die(r);
            r = next;
        }
        type_decl(dbg, sub, inner, depth + 1, b);
        break;
    }
    case DW_TAG_subroutine_type: {
        struct sbuf pb = {inner, sizeof inner, 0};

        sb_add(&pb, "%s(", decl);
        params(dbg, t, 0, depth + 1, &pb);
        sb_add(&pb, ")");
        type_decl(dbg, sub, inner, depth + 1, b);
        break;
    }
    default: {
        const char *kw = tag == DW_TAG_structure_type ? "struct "
                         : tag == DW_TAG_union_type   ? "union "
                         : tag == DW_TAG_enumeration_type ? "enum "
                         : tag == DW_TAG_class_type   ? "class "
                                                      : "";

        if (dwarf_diename(t, &name, NULL) != DW_DLV_OK)
            name = NULL;
        sb_add(b, "%s%s%s%s", kw, name ? name : "<anonymous>", sp, decl);
        break;
    }
    }
    if (sub)
        dwarf_dealloc_die(sub);
}

void dwarf_src_type_text(Dwarf_Debug dbg, Dwarf_Die t, const char *decl, char *buf, size_t len)
{
    struct sbuf b = {buf, len, 0};

    if (!len)
        return;
    buf[0] = 0;
    type_decl(dbg, t, decl, 0, &b);
}

Dwarf_Unsigned dwarf_src_attr_u(Dwarf_Die die, Dwarf_Half at)
{
    return attr_u(die, at);
}

int dwarf_src_attr_flag(Dwarf_Die die, Dwarf_Half at)
{
    return attr_flag(die, at);
}

Dwarf_Die dwarf_src_attr_die(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
    return attr_die(dbg, die, at);
}

/* "int i, char *s" (named: a function's parameters) or "int, char *" (a function type's);
 * "void" for none when prototyped, "..." for the variable part. */
static void params(Dwarf_Debug dbg, Dwarf_Die fn, int named, unsigned depth, struct sbuf *b)
{
    Dwarf_Die die = NULL, next;
    unsigned n = 0;

    if (dwarf_child(fn, &die, NULL) != DW_DLV_OK)
        die = NULL;
    while (die) {
        Dwarf_Half tag = 0;

        dwarf_tag(die, &tag, NULL);
        if (tag == DW_TAG_formal_parameter) {
            char *name = NULL;
            Dwarf_Die t = attr_die(dbg, die, DW_AT_type);
            /* C++'s implicit "this" is not written in a declaration */
            if (!attr_flag(die, DW_AT_artificial)) {
                if (!named || dwarf_diename(die, &name, NULL) != DW_DLV_OK)
                    name = NULL;
                sb_add(b, "%s", n++ ? ", " : "");
                type_decl(dbg, t, name ? name : "", depth, b);
            }
            if (t)
                dwarf_dealloc_die(t);
        } else if (tag == DW_TAG_unspecified_parameters) {
            sb_add(b, "%s...", n++ ? ", " : "");
        }
        if (dwarf_siblingof_b(dbg, die, 1, &next, NULL) != DW_DLV_OK)
            next = NULL;
        dwarf_dealloc_die(die);
        die = next;
    }
    if (!n && attr_flag(fn, DW_AT_prototyped))
        sb_add(b, "void");
}

/* The DIE that holds a function's name and declaration: itself, or what its
 * DW_AT_specification (C++ member defined outside its class) or DW_AT_abstract_origin (an
 * out-of-line copy of an inline function) points at. NULL: die itself. */
static Dwarf_Die decl_die(Dwarf_Debug dbg, Dwarf_Die die)
{
    Dwarf_Die o = attr_die(dbg, die, DW_AT_specification);

    if (!o)
        o = attr_die(dbg, die, DW_AT_abstract_origin);
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
    char *name = NULL;

    if (!c)
        return rc;
    for (size_t i = 0; i < c->nfns && !fn; i++)
        if (addr >= c->fns[i].lo && addr < c->fns[i].hi)
            fn = &c->fns[i];
    if (!fn || dwarf_offdie_b(d->dbg, fn->off, 1, &die, NULL) != DW_DLV_OK)
        return DWARF_UNKNOWN;
    o = decl_die(d->dbg, die);
    nd = o && !attr_u(die, DW_AT_decl_line) ? o : die;
    fno = attr_u(nd, DW_AT_decl_file);
    ln = attr_u(nd, DW_AT_decl_line);
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
    if (sig && siglen) {
        struct sbuf b = {sig, siglen, 0};

        sig[0] = 0;
        if (dwarf_diename(die, &name, NULL) != DW_DLV_OK &&
            (!o || dwarf_diename(o, &name, NULL) != DW_DLV_OK))
            name = NULL;
        sb_add(&b, "%s(", name ? name : "?");
        /* an out-of-line copy's parameters only point back at the abstract ones */
        params(d->dbg, o && has_attr(die, DW_AT_abstract_origin) ? o : die, 1, 0, &b);
        sb_add(&b, ")");
    }
    if (o)
        dwarf_dealloc_die(o);
    dwarf_dealloc_die(die);
    return 0;
}
