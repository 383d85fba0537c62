/* check_main.c - runs every module's Check suite in one runner, so one summary line counts them
 * all. Add a suite: write tests/check_<module>.c with <module>_suite() and list it here. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
    SRunner *sr = srunner_create(format_suite());
    int failed;

    srunner_add_suite(sr, dec_suite());
    srunner_add_suite(sr, tree_suite());
    srunner_add_suite(sr, render_suite());
    srunner_add_suite(sr, sym_suite());
    srunner_add_suite(sr, runtime_suite());
    srunner_add_suite(sr, rsp_suite());
    srunner_add_suite(sr, rttread_suite());
    srunner_add_suite(sr, wire_suite());
    srunner_add_suite(sr, follow_suite());
    srunner_add_suite(sr, stream_suite());
    srunner_add_suite(sr, fnstat_suite());
    srunner_add_suite(sr, drain_suite());
    srunner_add_suite(sr, vlines_suite());
    srunner_add_suite(sr, filter_suite());
    srunner_add_suite(sr, export_suite());
    srunner_add_suite(sr, modmap_suite());
    srunner_add_suite(sr, names_suite());
    srunner_add_suite(sr, dwarf_suite());
    srunner_add_suite(sr, ringlock_suite());
    srunner_add_suite(sr, outfile_suite());
    srunner_add_suite(sr, load_suite());
    srunner_add_suite(sr, wrapgen_suite());
    srunner_add_suite(sr, wval_suite());
    srunner_add_suite(sr, graph_suite());
    srunner_add_suite(sr, ctrl_suite());
    srunner_add_suite(sr, control_suite());
    srunner_add_suite(sr, rtt_suite());
    srunner_add_suite(sr, rtos_suite());
    srunner_add_suite(sr, taskstat_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
