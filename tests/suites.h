/* suites.h - every module's Check suite, for the runner in check_main.c. */
#ifndef SUITES_H
#define SUITES_H

#include <check.h>

Suite *format_suite(void);
Suite *dec_suite(void);
Suite *tree_suite(void);
Suite *render_suite(void);
Suite *sym_suite(void);
Suite *runtime_suite(void);
Suite *rsp_suite(void);
Suite *rttread_suite(void);
Suite *wire_suite(void);
Suite *follow_suite(void);
Suite *stream_suite(void);
Suite *fnstat_suite(void);
Suite *drain_suite(void);
Suite *vlines_suite(void);
Suite *filter_suite(void);
Suite *export_suite(void);
Suite *modmap_suite(void);
Suite *names_suite(void);
Suite *dwarf_suite(void);
Suite *ringlock_suite(void);
Suite *outfile_suite(void);
Suite *load_suite(void);
Suite *wrapgen_suite(void);
Suite *wval_suite(void);
Suite *graph_suite(void);
Suite *ctrl_suite(void);
Suite *control_suite(void);
Suite *rtt_suite(void);
Suite *rtos_suite(void);
Suite *taskstat_suite(void);

#endif
