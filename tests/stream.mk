# SPDX-License-Identifier: GPL-3.0-or-later
# tests/stream.mk - noisy, the filter that puts bit flips, dropped and duplicated bytes on a
# stream (or on a TCP link, --tcp-proxy), for the live-stream tests against a noisy line.
#
# Included by the top Makefile (check needs $(O)/tests/noisy), or on its own:
#   make -f tests/stream.mk O=build

O ?= build
CC ?= gcc
BASE_CFLAGS ?= -std=gnu11 -Wall -Wextra -Werror -O2 -g

.PHONY: stream-fixtures
stream-fixtures: $(O)/tests/noisy

$(O)/tests/noisy: tests/noisy.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE -o $@ $<
