/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_fake.c - a Check runner for tests/e2e/runner.sh: suite alpha passes, beta has one
 * failing test among two. */
#include <check.h>
#include <stdlib.h>
START_TEST(test_a_ok) { ck_assert_int_eq(1, 1); } END_TEST
START_TEST(test_b_bad) { ck_assert_int_eq(1, 2); } END_TEST
START_TEST(test_b_ok) { ck_assert_int_eq(2, 2); } END_TEST
int main(void) {
  Suite *a = suite_create("alpha"), *b = suite_create("beta");
  TCase *ta = tcase_create("core"), *tb = tcase_create("core");
  tcase_add_test(ta, test_a_ok); suite_add_tcase(a, ta);
  tcase_add_test(tb, test_b_bad); tcase_add_test(tb, test_b_ok); suite_add_tcase(b, tb);
  SRunner *sr = srunner_create(a); srunner_add_suite(sr, b);
  srunner_run_all(sr, CK_NORMAL); int n = srunner_ntests_failed(sr); srunner_free(sr);
  return n ? EXIT_FAILURE : EXIT_SUCCESS; }
