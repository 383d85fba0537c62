# SPDX-License-Identifier: MIT
# examples/riscv/riscv.mk - the RISC-V firmware examples, included by the top Makefile:
#   make firmware-riscv  ->  $(O)/firmware/riscv-<board>/{crash,demo,wrap}.elf
# for QEMU's sifive_e (FE310) and virt boards, RV32IMAC in machine mode. Part of `make` (all)
# when riscv64-unknown-elf-gcc is there; one SKIP line otherwise.
#
# The programs are instrumented (-finstrument-functions -O1 -fno-inline); the start code, the
# board support and the runtime (target/riscv, mcycle as the clock) are not. No C library: the
# runtime calls none, and the examples only libgcc.

RV_CC ?= riscv64-unknown-elf-gcc
RVEX_DIR := examples/riscv
RVEX_BOARDS := sifive_e virt
RVEX_PROGRAMS := crash demo wrap
RVEX_ARCH := -march=rv32imac -mabi=ilp32
# The RISC-V runtime (target/sources.mk): what the programs do not call (the drain, the RTT
# sink), --gc-sections drops.
RVEX_RT_SRC := $(CYGTRACE_RT_SRC_core) $(CYGTRACE_RT_SRC_riscv)
RVEX_CFLAGS := -std=gnu11 $(WARN) -g $(RVEX_ARCH) -ffreestanding -ffunction-sections $(FWEX_EXTRA) \
               -fdata-sections -Icommon -Itarget/core -Itarget/riscv -I$(RVEX_DIR)
RVEX_INSTR := -finstrument-functions -O1 -fno-inline
RVEX_PLAIN := -fno-instrument-functions -Os
RVEX_LDFLAGS := $(RVEX_ARCH) -nostdlib -nostartfiles -Wl,--gc-sections -Wl,--build-id \
                -L$(RVEX_DIR)
# What is not RISC-V's own is shared with the Cortex-M examples (examples/firmware/): the
# board's printing (board_base.h, board_print.h), the crash's calls, and the demo program itself.
# A program's source: $(RVEX_DIR)/PROGRAM.c unless rvex_src_PROGRAM says otherwise.
rvex_src_demo := examples/firmware/demo.c
# wrap: demo.c run often enough to lap the ring.
rvex_src_wrap := examples/firmware/demo.c
rvex_def_wrap := -DDEMO_RUNS=60

.PHONY: firmware-riscv
all: firmware-riscv
ifneq ($(shell command -v $(RV_CC) 2>/dev/null),)
firmware-riscv: $(foreach b,$(RVEX_BOARDS),$(foreach p,$(RVEX_PROGRAMS),$(O)/firmware/riscv-$(b)/$(p).elf))
else
firmware-riscv:
	@echo "  SKIP    RISC-V firmware examples: $(RV_CC) not found (make deps installs it)"
endif

# rvex_rules BOARD: objects under $(O)/firmware/riscv-BOARD/obj, one ELF per program.
define rvex_rules
RVEX_SUPPORT_$(1) := $(patsubst %.c,$(O)/firmware/riscv-$(1)/obj/%.o,$(RVEX_RT_SRC) \
    $(RVEX_DIR)/start.c $(RVEX_DIR)/board_common.c $(RVEX_DIR)/board_$(1).c)

$(O)/firmware/riscv-$(1)/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [riscv-$(1)])$(RV_CC) $(RVEX_CFLAGS) $(DEPFLAGS) $(RVEX_PLAIN) \
	    -c $$< -o $$@

endef

# rvex_prog BOARD PROGRAM: the instrumented object and the ELF (explicit rules: make keeps the
# objects, no intermediates).
define rvex_prog
$(O)/firmware/riscv-$(1)/prog/$(2).o: $(or $(rvex_src_$(2)),$(RVEX_DIR)/$(2).c)
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [riscv-$(1) $(2)])$(RV_CC) $(RVEX_CFLAGS) $(DEPFLAGS) $(RVEX_INSTR) \
	    $(rvex_def_$(2)) -c $$< -o $$@
$(O)/firmware/riscv-$(1)/$(2).elf: $(O)/firmware/riscv-$(1)/prog/$(2).o $$(RVEX_SUPPORT_$(1)) \
                                $(RVEX_DIR)/$(1).ld $(RVEX_DIR)/sections.ld
	$$(call say,LD,$$@)$(RV_CC) $(RVEX_LDFLAGS) -Wl,-Map=$$@.map -T $(RVEX_DIR)/$(1).ld \
	    -o $$@ $$(filter %.o,$$^) -lgcc
endef
$(foreach b,$(RVEX_BOARDS),$(eval $(call rvex_rules,$(b))))
$(foreach b,$(RVEX_BOARDS),$(foreach p,$(RVEX_PROGRAMS),$(eval $(call rvex_prog,$(b),$(p)))))
