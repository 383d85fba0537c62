# SPDX-License-Identifier: GPL-3.0-or-later
# tests/pull.mk - the fake GDB server that the "cygtrace pull" tests talk to
# (tests/e2e/pull_bad.sh, fw_arm.sh, live_rtt.sh): bad servers no real one can be made to be.
#
# Included by the top Makefile (check needs $(O)/tests/fake_gdb), or on its own:
#   make -f tests/pull.mk O=build

O ?= build
CC ?= gcc
BASE_CFLAGS ?= -std=gnu11 -Wall -Wextra -Werror -O2 -g

.PHONY: pull-fixtures
pull-fixtures: $(O)/tests/fake_gdb

$(O)/tests/fake_gdb: tests/fake_gdb.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(BASE_CFLAGS) -o $@ $<
