/* cmd_tree.c - "cygtrace tree": decode a dump (or a RAM image) and print its call trees. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "source/load.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: cygtrace tree [options] ELF DUMP\n%s"
               "  --ram=ADDR                  DUMP is a RAM image that starts at ADDR\n",
            cmd_show_usage);
}

int cmd_tree(int argc, char **argv)
{
    static const struct option opts[] = {CMD_SHOW_LONGOPTS,
                                         {"ram", required_argument, 0, 'r'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct show_opts o;
    struct load l;
    unsigned long long ram = 0;
    int c, have_ram = 0, rc;

    cmd_show_init(&o);
    optind = 1;
    opterr = 0; /* our own one-line message instead of getopt's */
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if ((rc = cmd_show_option(c, optarg, &o)) == 1)
            continue;
        if (rc < 0)
            return 2;
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == 'r') {
            if (cmd_parse_u64(optarg, &ram) < 0) {
                cmd_error("--ram=%s: not an address", optarg);
                return 2;
            }
            have_ram = 1;
            continue;
        }
        cmd_bad_option(argv, "tree");
        return 2;
    }
    if ((rc = cmd_load_args(argc, argv, "tree", o.force, &l)) != 0)
        return rc;
    /* In a RAM image the block must sit where it says it lives: else the image is not of this
     * RAM, or not from the address given. */
    if (have_ram && l.ring.ctl_addr != ram + l.ring.off && !o.force) {
        cmd_error("%s: the control block is at offset 0x%" PRIx64 " but says it lives at 0x%" PRIx64
                  ", not at 0x%llx + 0x%" PRIx64 "; check --ram or use --force",
                  argv[optind + 1], l.ring.off, l.ring.ctl_addr, ram, l.ring.off);
        load_close(&l);
        return 1;
    }
    rc = cmd_show(&l, argv[optind], argv[optind + 1], &o);
    load_close(&l);
    return rc;
}
