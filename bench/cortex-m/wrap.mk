# SPDX-License-Identifier: MIT
# bench/cortex-m/wrap.mk - the wrapped-call benchmark firmware for the Cortex-M3 (mps2-an385):
# wrapcall.c calling bench/wrap_work.c's functions three ways. bench/cortex-m/wrap.sh builds
# (after the host tool and $(O)/cortex-m3/libcygtrace.a) and runs them:
#   bench/cortex-m/wrap.sh [BUILD_DIR]
#
# $(B)/call_VARIANT.elf, VARIANT one of:
#   plain     wrap_work.c built plainly: nothing recorded
#   instr     wrap_work.c built with -finstrument-functions: entry and exit recorded
#   wrapped   wrap_work.c built plainly into libwork.a, wrapped by `cygtrace wrap` from its
#             DWARF ($(B)/gen/, generated here): entry, arguments, return value, exit
# All three link the runtime as `make` builds it for the M3, $(O)/cortex-m3/libcygtrace.a (-Os,
# the DWT clock, which reads 0 under QEMU: the instructions are those of real hardware), and
# wrap_work.c is built -Os in each; only the call path differs.

O ?= build
ARM_CC ?= arm-none-eabi-gcc
B := $(O)/bench/cortex-m/wrap
EX := examples/firmware
WARN := -Wall -Wextra -Werror
DEPFLAGS := -MMD -MP # each object's headers, as the compiler saw them (read back below)

ifeq ($(V),1)
say :=
else
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

.PHONY: all
all:

# The board's CPU flags (fwex_cpu_BOARD), sources and defines: those of the examples.
include target/sources.mk
include $(EX)/firmware.mk

BOARD := mps2-an385
CPU := $(fwex_cpu_$(BOARD))
BASE_CFLAGS := -std=gnu11 $(WARN) $(DEPFLAGS) -g -mthumb $(CPU) -ffreestanding \
               -ffunction-sections -fdata-sections -Icommon -Itarget/core -Itarget/cortex-m -I$(EX)
PLAIN := -Os -fno-instrument-functions
LDFLAGS := $(CPU) -mthumb -nostartfiles --specs=nano.specs -Wl,--gc-sections -Wl,--build-id \
           -L$(EX)
RT := $(O)/cortex-m3/libcygtrace.a
SUPPORT := $(patsubst $(EX)/%.c,$(B)/obj/support/%.o,$(EX)/startup.c $(EX)/board_common.c \
               $(fwex_board_$(BOARD))) $(B)/obj/recorded_rt.o
VARIANTS := plain instr wrapped

all: $(VARIANTS:%=$(B)/call_%.elf)

$(B)/obj/support/%.o: $(EX)/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< [wrap bench])$(ARM_CC) $(BASE_CFLAGS) $(PLAIN) $(fwex_def_$(BOARD)) \
	    -DCYGTRACE_CM_CLOCK=3 -c $< -o $@
$(B)/obj/recorded_rt.o: bench/cortex-m/recorded_rt.c target/core/cygtrace.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(ARM_CC) $(BASE_CFLAGS) $(PLAIN) -c $< -o $@
# The loop: -O1 as the other benchmark workloads, recording nothing itself.
$(B)/obj/wrapcall.o: bench/cortex-m/wrapcall.c $(EX)/board.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(ARM_CC) $(BASE_CFLAGS) -O1 -fno-inline -c $< -o $@
$(B)/obj/work_plain.o: bench/wrap_work.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< [plain])$(ARM_CC) $(BASE_CFLAGS) $(PLAIN) -c $< -o $@
$(B)/obj/work_instr.o: bench/wrap_work.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< [instr])$(ARM_CC) $(BASE_CFLAGS) -Os -finstrument-functions -c $< -o $@
$(B)/libwork.a: $(B)/obj/work_plain.o
	$(call say,AR,$@)rm -f $@ && arm-none-eabi-ar rcs $@ $^
# The generator: both files from one run.
$(B)/gen/cygtrace_wrap.c $(B)/gen/cygtrace_wrap.flags &: $(B)/libwork.a $(O)/cygtrace
	$(call say,WRAP,$<)$(O)/cygtrace wrap -q -o $(B)/gen $<
$(B)/obj/cygtrace_wrap.o: $(B)/gen/cygtrace_wrap.c
	$(call say,CC,$<)$(ARM_CC) $(BASE_CFLAGS) $(PLAIN) -c $< -o $@

$(B)/call_plain.elf: $(B)/obj/work_plain.o
$(B)/call_instr.elf: $(B)/obj/work_instr.o
# The wrappers, then the library their __real_NAME calls resolve to.
$(B)/call_wrapped.elf: $(B)/obj/cygtrace_wrap.o $(B)/libwork.a $(B)/gen/cygtrace_wrap.flags
$(B)/call_wrapped.elf: LINK := @$(B)/gen/cygtrace_wrap.flags
$(VARIANTS:%=$(B)/call_%.elf): $(B)/obj/wrapcall.o $(SUPPORT) $(RT) $(EX)/boards/$(BOARD).ld \
                               $(EX)/sections.ld
	$(call say,LD,$@)$(ARM_CC) $(LDFLAGS) -T $(EX)/boards/$(BOARD).ld -Wl,-Map=$(@:.elf=.map) \
	    -o $@ $(filter %.o,$^) $(filter-out $(RT),$(filter %.a,$^)) $(RT) $(LINK)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
# No rule makes a dependency file: else make, remaking what it includes, would try its built-in
# %: %.o on it (and build fibloop_fp_drain.d.o through fibloop_%.o, then link it).
%.d: ;
