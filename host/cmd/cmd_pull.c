/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_pull.c - "cygtrace pull": read the ring out of a target's memory through a GDB server
 * (OpenOCD, pyOCD, J-Link, Black Magic Probe, QEMU, gdbserver) and print its call tree, or save
 * it as a dump that "cygtrace tree" decodes later.
 *
 * The ELF says where to look: the runtime's cyg_rt starts with a pointer to the control block.
 * The block is read alone first and checked against the ELF (machine, build-id) before the
 * records are trusted or even read; a ring of megabytes over a slow probe is not read for
 * nothing. Then the block and the records (and a version 3 ring's control area after them) are
 * read in one go, so that what is saved is exactly what a Linux program's trace file holds: the
 * block followed by the records and the control area. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "cyg_format.h"
#include "cyg_v4l.h"
#include "decode/dec4l.h"
#include "decode/hdr.h"
#include "util/le.h"
#include "source/load.h"
#include "symbols/modmap.h"
#include "symbols/names.h"
#include "output/outfile.h"
#include "source/rsp.h"
#include "source/rtos.h"
#include "util/vec.h"

#define PULL_PROGRESS_MIN (64u << 10) /* smaller reads are over before a progress line helps */
#define PULL_MAX_BYTES ((uint64_t)1 << 32)
#define AT_ENTRY_TYPE 9 /* the program's entry point, in the auxiliary vector */

struct pull_opts {
    struct cmd_gdb gdb;
    const char *out;
    int halt;
    struct show_opts show;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cygtrace pull --gdb=WHERE [options] ELF\n"
            "  --gdb=HOST:PORT             a GDB server: OpenOCD :3333, pyOCD, J-Link, QEMU -gdb,\n"
            "                              gdbserver\n"
            "  --gdb=/dev/ttyACM0[:BAUD]   a serial GDB server (Black Magic Probe); 115200\n"
            "  -o, --output=FILE           save the dump to FILE (decode it with cygtrace tree)\n"
            "  --halt                      stop the target while reading (it resumes when we\n"
            "                              detach); by default it is left running as found\n"
            "  --monitor=CMD               run a monitor command first (repeatable)\n"
            "  --attach=N                  attach to target N first (Black Magic Probe:\n"
            "                              --monitor=swdp_scan --attach=1)\n"
            "  --timeout=SECONDS           give up on a silent server after this long (5)\n"
            "%s%s",
            cmd_show_usage, cmd_tree_usage);
}

/* --- progress on stderr ----------------------------------------------------------------------- */

struct progress {
    struct timespec start;
    double last;
    int show;  /* stderr is a terminal and the read is long enough */
    int shown; /* a progress line is on the screen */
};

static double since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int progress(void *arg, uint64_t done, uint64_t total)
{
    struct progress *p = arg;
    double t = since(&p->start);

    if (cmd_gdb_signal()) /* Ctrl-C: the read stops at the next packet, and pull detaches */
        return 1;
    if (!p->show || (done < total && t - p->last < 0.2))
        return 0;
    p->last = t;
    p->shown = 1;
    fprintf(stderr, "\rcygtrace: pulling %" PRIu64 " of %" PRIu64 " KB (%3u%%), %.0f KB/s ",
            done >> 10, total >> 10, (unsigned)(done * 100 / total),
            t > 0 ? (double)done / 1024 / t : 0.0);
    if (done == total) {
        fputc('\n', stderr);
        p->shown = 0;
    }
    return 0;
}

/* --- the target ------------------------------------------------------------------------------- */

/* Run-time minus link-time address of a PIE: AT_ENTRY from the auxiliary vector minus the
 * ELF's e_entry (gdbserver), or qOffsets (some stubs). */
static int load_bias(struct rsp *c, const struct sym_table *sym, uint64_t *bias)
{
    uint64_t at_entry;
    uint8_t *auxv;
    size_t len;
    char err[320]; /* unused: the caller says what both failures mean */

    if (rsp_auxv(c, &auxv, &len, err, sizeof err) == 0) {
        int found =
            rspcodec_auxv_find(auxv, len, sym_word_bytes(sym), AT_ENTRY_TYPE, &at_entry);

        free(auxv);
        if (found == 0) {
            *bias = at_entry - sym_entry(sym);
            return 0;
        }
    }
    if (rsp_offsets(c, bias, err, sizeof err) == 0)
        return 0;
    return -1;
}

/* What load.c's check says of a whole dump, said of the control block alone. */
static int check_block(const struct dec_ring *r, struct sym_table *sym, const char *elf,
                       const char *name)
{
    const uint8_t *id;
    size_t n = sym_build_id(sym, &id);
    char a[80], b[80];

    if (sym_machine(sym) != r->machine || sym_word_bytes(sym) != r->word_bytes) {
        cmd_error("%s: the target runs %s (%u-bit) code but %s is %s (%u-bit); use --force to "
                  "pull anyway",
                  name, dec_machine_name(r->machine), r->word_bytes * 8, elf,
                  dec_machine_name(sym_machine(sym)), sym_word_bytes(sym) * 8);
        return -1;
    }
    if (sym_build_id_match(sym, r->build_id, r->build_id_len) != 0)
        return 0;
    load_hex(r->build_id, r->build_id_len, a, sizeof a);
    load_hex(id, n, b, sizeof b);
    cmd_error("%s: the target runs another build (build-id %s, %s has %s); give the ELF it "
              "runs, or use --force to pull anyway",
              name, a, elf, b);
    return -1;
}

/* Through a temporary file: an error or Ctrl-C leaves what path held before. */
static int write_dump(const char *path, const void *buf, size_t len)
{
    char err_buf[512];
    struct outfile *of = outfile_open(path, err_buf, sizeof err_buf);

    if (!of || fwrite(buf, 1, len, outfile_stream(of)) != len) {
        if (of)
            snprintf(err_buf, sizeof err_buf, "cannot write: %s", strerror(errno));
        outfile_abort(of);
        cmd_error("%s: %s", path, err_buf);
        return -1;
    }
    if (outfile_commit(of, err_buf, sizeof err_buf) < 0) {
        cmd_error("%s: %s", path, err_buf);
        return -1;
    }
    return 0;
}

/* Connects, finds the ring and reads it whole into *buf. Returns 0 with the connection in *cp
 * (the caller closes it), or 1 after a message. */
static int pull(const struct pull_opts *o, const char *elf, struct sym_table *sym, const char *name,
                uint8_t **buf, size_t *len, struct rsp **cp)
{
    unsigned word = sym_word_bytes(sym);
    uint64_t rt, bias = 0, ctl, total;
    uint8_t ptr[8], blk[CYG_HDR_BYTES], vblk[CYG_HDR_BYTES];
    int v4 = 0;
    struct progress prog = {0};
    struct dec_ring r;
    const char *what = "";
    char why[256];
    struct rsp *c;
    char err[512];
    int e;

    *buf = NULL;
    if (sym_find(sym, "cyg_rt", &rt, NULL) < 0) {
        cmd_error("%s: ELF has no cyg_rt symbol: is the cygtrace runtime linked in?", elf);
        return 1;
    }
    if (!(c = cmd_gdb_connect(&o->gdb, name)))
        goto out;
    if (o->halt && rsp_halt(c, err, sizeof err) < 0)
        goto rsp_fail;
    if (sym_is_pie(sym) && load_bias(c, sym, &bias) < 0) {
        if (cmd_gdb_signal())
            goto rsp_fail;
        cmd_error("%s: %s is position-independent and the server tells neither its auxiliary "
                  "vector nor qOffsets: cannot find where it is loaded",
                  name, elf);
        goto out;
    }
    what = "cyg_rt: ";
    if (rsp_read_mem(c, rt + bias, ptr, word, NULL, NULL, err, sizeof err) < 0)
        goto rsp_fail;
    ctl = le_get(ptr, word);
    what = "the control block: ";
    if (ctl && rsp_read_mem(c, ctl, blk, sizeof blk, NULL, NULL, err, sizeof err) < 0)
        goto rsp_fail;
    /* a version 4 ring of 64-bit Linux: pulled as it is, parsed as the version 3 ring it stands
     * for (decode/dec4l.c) */
    if (ctl && (v4 = dec4l_is(blk, sizeof blk) && blk[CYG_OFF_REC] == CYG_V4L_REC_BYTES))
        dec4l_block(blk, vblk);
    if (!ctl || hdr_parse(v4 ? vblk : blk, sizeof blk, &r, why, sizeof why) < 0) {
        if (!ctl || memcmp(blk, CYG_MAGIC, 8) != 0)
            cmd_error("%s: the runtime has not set up its buffer yet (cyg_rt points at no "
                      "control block), or the target runs another program than %s",
                      name, elf);
        else
            cmd_error("%s: the control block at 0x%" PRIx64 ": %s", name, ctl, why);
        goto out;
    }
    if (!o->show.force && check_block(&r, sym, elf, name) < 0)
        goto out;
    /* A version 3 ring's control area follows its records: the dump keeps it (the triggers
     * and filters in force, which one fired). */
    total = dec_ctrl_off(&r) + (r.version >= 3 ? CYG_CTRL_BYTES : 0);
    if (v4)
        total = CYG_HDR_BYTES + r.cap * CYG_V4L_REC_BYTES + CYG_CTRL_BYTES + CYG_V4L_TABLE_BYTES;
    if (r.cap_log2 >= 40 || total > PULL_MAX_BYTES || total > SIZE_MAX / 2) {
        cmd_error("%s: the control block at 0x%" PRIx64 " says the ring holds %" PRIu64
                  " bytes: too large to pull",
                  name, ctl, total);
        goto out;
    }
    if (!(*buf = malloc(total))) {
        cmd_error("%s: out of memory for %" PRIu64 " bytes", name, total);
        goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &prog.start);
    prog.show = isatty(STDERR_FILENO) && total > PULL_PROGRESS_MIN;
    what = "the records: ";
    if (cmd_gdb_signal())
        goto rsp_fail;
    e = rsp_read_mem(c, ctl, *buf, total, progress, &prog, err, sizeof err);
    if (prog.shown)
        fputc('\n', stderr);
    if (e < 0)
        goto rsp_fail;
    *len = total;
    *cp = c;
    return 0;
rsp_fail:
    cmd_gdb_error(err, name, what);
out:
    cmd_gdb_close(c);
    free(*buf);
    *buf = NULL;
    return 1;
}

/* --- names the kernel keeps -------------------------------------------------------------------- */

static int read_target(void *arg, uint64_t addr, void *buf, size_t len)
{
    char err[320]; /* rtos says which read failed */

    return rsp_read_mem(arg, addr, buf, len, NULL, NULL, err, sizeof err);
}

/* A FreeRTOS or Zephyr target's task and queue names, for the contexts of the pulled ring: those its NAME
 * records give, and from the kernel's memory those a wrapped ring no longer names. NULL when
 * the program has no glue, or nothing could be read (then a warning says why). */
static struct names *pull_names(struct rsp *c, const char *elf, const char *name, uint8_t *buf,
                                size_t len, int force)
{
    struct names *n = NULL;
    uint32_t *ids = NULL;
    uint64_t *handles = NULL;
    size_t count = 0, ids_cap = 0, handles_cap = 0;
    struct load l;
    struct ev e;
    char err[512];
    int got;

    if (load_attach(&l, elf, src_open_mem(name, buf, len, 0), force, err, sizeof err) < 0)
        return NULL; /* said again, and better, by the decoding that follows */
    if ((!rtos_has_freertos(l.sym) && !rtos_has_zephyr(l.sym)) || !(n = names_new()) ||
        source_rewind(l.source) < 0)
        goto out;
    /* The contexts and their handles (the last wins, as for the decoder), and the names the
     * records still hold. */
    while ((got = source_next(l.source, &e, NULL, 0)) > 0) {
        size_t i;

        names_feed(n, &e, l.ring.word_bytes);
        if (e.kind != EV_CONTEXT)
            continue;
        for (i = 0; i < count && ids[i] != e.data; i++)
            ;
        if (i == count) {
            if (vec_grow(&ids, &ids_cap, count, sizeof *ids, 16) < 0 ||
                vec_grow(&handles, &handles_cap, count, sizeof *handles, 16) < 0)
                goto out;
            ids[count++] = e.data;
        }
        handles[i] = e.addr;
    }
    if (got == 0 && (rtos_has_zephyr(l.sym)
                         ? rtos_zephyr_names(l.sym, read_target, c, ids, handles, count, n, err,
                                             sizeof err)
                         : rtos_freertos_names(l.sym, read_target, c, ids, handles, count, n,
                                               err, sizeof err)) < 0)
        cmd_error("warning: %s: task names: %s", name, err);
out:
    load_close(&l);
    free(ids);
    free(handles);
    return n;
}

/* DUMP.maps beside a saved dump: the names pulled from the target, which the dump's records
 * may no longer hold. */
static int write_names(const char *dump, const struct names *n)
{
    char path[4096], err_buf[512];
    struct outfile *of;

    if (snprintf(path, sizeof path, "%s.maps", dump) >= (int)sizeof path) {
        cmd_error("%s: path too long for its .maps", dump);
        return -1;
    }
    if (!n) { /* no names: one left by an earlier pull into the same file would lie */
        if (unlink(path) < 0 && errno != ENOENT) {
            cmd_error("%s: cannot remove the names of an earlier pull: %s", path,
                      strerror(errno));
            return -1;
        }
        return 0;
    }
    if (!(of = outfile_open(path, err_buf, sizeof err_buf))) {
        cmd_error("%s: %s", path, err_buf);
        return -1;
    }
    if (modmap_write_names(outfile_stream(of), n) < 0 || ferror(outfile_stream(of))) {
        outfile_abort(of);
        cmd_error("%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    if (outfile_commit(of, err_buf, sizeof err_buf) < 0) {
        cmd_error("%s: %s", path, err_buf);
        return -1;
    }
    return 0;
}

static int take_option(void *arg, int c, char *val)
{
    struct pull_opts *o = arg;

    if (c == 'o')
        o->out = val;
    else /* 'H' */
        o->halt = 1;
    return 0;
}

/* The options into o: -1 to go on, else the exit status (after --help, or a message). */
static int parse_opts(int argc, char **argv, struct pull_opts *o)
{
    static const struct option opts[] = {CMD_SHOW_LONGOPTS,
                                         CMD_TREE_LONGOPTS,
                                         CMD_GDB_LONGOPTS,
                                         {"output", required_argument, 0, 'o'},
                                         {"halt", no_argument, 0, 'H'},
                                         {"help", no_argument, 0, CMD_OPTS_HELP},
                                         {0, 0, 0, 0}};
    const struct cmd_opts p = {.cmd = "pull", .table = opts, .shortopts = "o:", .show = &o->show,
                               .gdb = &o->gdb, .usage = usage, .take = take_option, .arg = o};
    int rc;

    memset(o, 0, sizeof *o);
    cmd_show_init(&o->show);
    cmd_gdb_init(&o->gdb);
    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    return cmd_opts_need(argc, "pull", 1, "one ELF file") ? 2 : -1;
}

int cmd_pull(int argc, char **argv)
{
    struct pull_opts o;
    struct sym_table *sym;
    struct names *names;
    struct rsp *c;
    struct load l;
    const char *elf;
    char err[512], name[300];
    uint8_t *buf;
    size_t len;
    int rc = parse_opts(argc, argv, &o);

    if (rc >= 0)
        return rc;
    elf = argv[optind];
    if (cmd_check_output(o.out, elf, NULL))
        return 1;
    if (!(sym = sym_open(elf, err, sizeof err))) {
        cmd_error("%s: %s", elf, err);
        return 1;
    }
    snprintf(name, sizeof name, "gdb %s", o.gdb.where);
    rc = pull(&o, elf, sym, name, &buf, &len, &c);
    sym_close(sym);
    if (rc)
        return rc;
    /* Still attached: the kernel's names are read now, then the target goes on. */
    names = pull_names(c, elf, name, buf, len, o.show.force);
    cmd_gdb_close(c);
    if (o.out) {
        rc = write_dump(o.out, buf, len) < 0;
        if (!rc)
            rc = write_names(o.out, names) < 0;
        names_free(names);
        free(buf);
        return rc;
    }
    if (load_attach(&l, elf, src_open_mem(name, buf, len, 1), o.show.force, err, sizeof err) < 0) {
        cmd_error("%s", err);
        names_free(names);
        return 1;
    }
    if (names) { /* a pulled ring has no DUMP.maps: these are all the names there are */
        names_free(l.names);
        l.names = names;
        names_set_symbols(l.names, l.sym, l.ring.load_bias);
    }
    cmd_load_warn(&l);
    rc = cmd_show(&l, elf, name, &o.show);
    load_close(&l);
    return rc;
}
