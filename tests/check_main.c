/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_main.c - runs every module's Check suite in one runner, so one summary line counts them
 * all. The suites are those of SUITES (suites.h). */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
#define SUITES_ADD(name) srunner_add_suite(sr, name##_suite());
    SRunner *sr = srunner_create(NULL);
    int failed;

    SUITES(SUITES_ADD)
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
