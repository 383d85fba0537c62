# SPDX-License-Identifier: GPL-3.0-or-later
# tests/fixtures.mk - the ELF files tests/check_sym.c reads, built into $(O)/tests/fixtures/.
#
# Included by the top Makefile, or on its own: make -f tests/fixtures.mk O=build
# A cross fixture whose compiler is missing is skipped, not an error; check_sym then skips the
# tests that need it only when that compiler is missing too.

O ?= build
CC ?= gcc
ARM_CC ?= arm-none-eabi-gcc
RISCV_CC ?= riscv64-unknown-elf-gcc
STRIP ?= strip

SYM_FIX_DIR := $(O)/tests/fixtures
SYM_FIX_SRC := tests/fixtures/symsrc.c
# -g -O1 like the examples; the cross builds have no C library, so main is the entry point.
SYM_FIX_CFLAGS := -std=gnu11 -g -O1 -Wl,--build-id
SYM_FIX_BARE := -nostdlib -ffreestanding -Wl,-e,main

SYM_FIXTURES := $(SYM_FIX_DIR)/sym_x86_64 $(SYM_FIX_DIR)/sym_x86_64_stripped \
                $(SYM_FIX_DIR)/sym_arm $(SYM_FIX_DIR)/sym_riscv $(SYM_FIX_DIR)/sym_random

.PHONY: sym-fixtures
sym-fixtures: $(SYM_FIXTURES)

# Runs the cross compiler $(1) with the rest of the line, or says SKIP when it is not installed
# (the target is then not made, so make retries once the compiler appears).
sym_cross = if command -v $(1) >/dev/null 2>&1; then $(1) $(2); \
            else echo "  SKIP    $@ ($(1) not found)"; fi

$(SYM_FIX_DIR)/sym_x86_64: $(SYM_FIX_SRC)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(SYM_FIX_CFLAGS) -fPIE -pie -o $@ $<

$(SYM_FIX_DIR)/sym_x86_64_stripped: $(SYM_FIX_DIR)/sym_x86_64
	$(call say,STRIP,$@)$(STRIP) --strip-all -o $@ $<

$(SYM_FIX_DIR)/sym_arm: $(SYM_FIX_SRC)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(call sym_cross,$(ARM_CC),-mcpu=cortex-m3 -mthumb $(SYM_FIX_CFLAGS) \
	    $(SYM_FIX_BARE) -o $@ $<)

$(SYM_FIX_DIR)/sym_riscv: $(SYM_FIX_SRC)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(call sym_cross,$(RISCV_CC),$(SYM_FIX_CFLAGS) $(SYM_FIX_BARE) -o $@ $<)

# Garbage that must be refused cleanly; random once, then kept.
$(SYM_FIX_DIR)/sym_random:
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)head -c 4096 /dev/urandom >$@

# tests/check_dwarf.c's: dwarfsrc.c with DWARF 4 and 5 (x86-64), GCC's default for each cross
# compiler (arm-none-eabi-gcc 12: DWARF 5 units with a version 4 line table), and no DWARF.
DWARF_FIX_SRC := tests/fixtures/dwarfsrc.c
DWARF_FIXTURES := $(SYM_FIX_DIR)/dwarf_x86_64_v4 $(SYM_FIX_DIR)/dwarf_x86_64_v5 \
                  $(SYM_FIX_DIR)/dwarf_x86_64_nodebug $(SYM_FIX_DIR)/dwarf_arm \
                  $(SYM_FIX_DIR)/dwarf_riscv
sym-fixtures: $(DWARF_FIXTURES)

$(SYM_FIX_DIR)/dwarf_x86_64_v%: $(DWARF_FIX_SRC)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(SYM_FIX_CFLAGS) -gdwarf-$* -fPIE -pie -o $@ $<

$(SYM_FIX_DIR)/dwarf_x86_64_nodebug: $(DWARF_FIX_SRC)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(filter-out -g,$(SYM_FIX_CFLAGS)) -fPIE -pie -o $@ $<

$(SYM_FIX_DIR)/dwarf_arm: $(DWARF_FIX_SRC)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(call sym_cross,$(ARM_CC),-mcpu=cortex-m3 -mthumb $(SYM_FIX_CFLAGS) \
	    $(SYM_FIX_BARE) -o $@ $<)

$(SYM_FIX_DIR)/dwarf_riscv: $(DWARF_FIX_SRC)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(call sym_cross,$(RISCV_CC),$(SYM_FIX_CFLAGS) $(SYM_FIX_BARE) -o $@ $<)
