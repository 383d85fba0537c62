/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_tree.c - "cygtrace tree": decode a dump (or a RAM image) and print its call trees. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opts.h"
#include "source/load.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace tree [options] [ELF] [DUMP]\n%s%s"
               "  --ram=ADDR                  DUMP is a RAM image that starts at ADDR\n",
            cmd_show_usage, cmd_tree_usage);
}

/* --ram=ADDR: the dump is a RAM image that starts there. */
struct tree_ram {
    int have;
    unsigned long long addr;
};

static int take_ram(void *arg, int c, char *val)
{
    struct tree_ram *ram = arg;

    (void)c; /* 'r', the only option of tree's own */
    if (cmd_parse_u64(val, &ram->addr) < 0) {
        cmd_error("--ram=%s: not an address", val);
        return 2;
    }
    ram->have = 1;
    return 0;
}

int cmd_tree(int argc, char **argv)
{
    static const struct option opts[] = {CMD_SHOW_LONGOPTS,
                                         CMD_TREE_LONGOPTS,
                                         {"ram", required_argument, 0, 'r'},
                                         {"help", no_argument, 0, CMD_OPTS_HELP},
                                         {0, 0, 0, 0}};
    struct show_opts o;
    struct tree_ram ram = {0};
    const struct cmd_opts p = {.cmd = "tree", .table = opts, .show = &o, .usage = usage,
                               .take = take_ram, .arg = &ram};
    struct cmd_inputs in;
    struct load l;
    int rc;

    cmd_show_init(&o);
    if ((rc = cmd_opts_parse(&p, argc, argv)) >= 0)
        return rc;
    if ((rc = cmd_load_args(argc, argv, "tree", o.force ? CMD_LOAD_FORCE : 0, &in, &l)) != 0)
        return rc;
    /* In a RAM image the block must sit where it says it lives: else the image is not of this
     * RAM, or not from the address given. */
    if (ram.have && l.ring.ctl_addr != ram.addr + l.ring.off && !o.force) {
        cmd_error("%s: the control block is at offset 0x%" PRIx64 " but says it lives at 0x%" PRIx64
                  ", not at 0x%llx + 0x%" PRIx64 "; check --ram or use --force",
                  in.dump, l.ring.off, l.ring.ctl_addr, ram.addr, l.ring.off);
        load_close(&l);
        return 1;
    }
    rc = cmd_show(&l, in.elf, in.dump, &o);
    return cmd_load_close(&l, rc);
}
