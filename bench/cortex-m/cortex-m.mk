# SPDX-License-Identifier: MIT
# bench/cortex-m/cortex-m.mk - the Cortex-M benchmark firmware, for every QEMU board of the
# examples: microbit (Cortex-M0), mps2-an385 (M3), mps2-an386 (M4F), mps2-an505 (M33). One
# instrumented fib.o per board linked with each hook variant in turn. run.sh builds and runs them:
#   bench/cortex-m/run.sh [BUILD_DIR]
#
# $(B)/BOARD/fib_VARIANT.elf, VARIANT one of:
#   plain     fib.c without -finstrument-functions: no hook calls at all
#   empty     empty hooks: the calls -finstrument-functions adds, and nothing else
#   pmt       the "Poor Man's Trace" ring with its critical section (hooks_pmt.c), no time
#   pmt_ts    the same with the board timer in each element
#   nots      the runtime without timestamps (CYGTRACE_TIMESTAMPS=0)
#   timer     the runtime, the board timer through cygtrace_user_clock() (the examples)
#   mmio      the runtime, the board timer's count register read by the hooks
#             (CYGTRACE_CM_CLOCK=4): the CMSDK boards, not the micro:bit (its nRF51 timer
#             is read through a capture, which takes a function)
#   armed     the timer runtime with its control area (CYGTRACE_CONTROL=1), a freeze trigger
#             and an exclusion armed that never match: every event through the control area's
#             slow path (armed6: 6 triggers and 12 exclusions, the area full)
#   dwt       the runtime, DWT CYCCNT clock (the default where the core has one: not on the M0;
#             it reads 0 under QEMU, but the instructions are the same)
#   ctimer, cdwt  timer and dwt with the portable core's hooks in C (CYGTRACE_CM_ASM_HOOKS=0),
#             what the port's hooks in assembly replace (issue 18)
#
# The stream drain, on mps2-an385 only (fibloop.c: fib(10) 100 times, the board timer as clock):
#   loop_empty  empty hooks
#   loop_timer  the runtime, no drain
#   loop_null   the runtime, cygtrace_drain() after each fib(10) into a sink that takes all
#   loop_uart   the same into the UART (QEMU's takes every byte at once)
# Every runtime variant links the drain: a firmware that never calls it gets the same hooks.
#
# Footprint: $(B)/BOARD/fp_nodrain.elf and fp_drain.elf, fibloop.c linked with the library the
# top Makefile builds for the board's core, $(O)/CORE/libcygtrace.a (make firmware-cores), with
# a link map (.map) that run.sh reads.
# The same on mps2-an385 (M3) with the runtime built with other settings, the library's sources
# compiled as the top Makefile does plus FP_SETTING's flags: $(B)/mps2-an385/fp_SETTING.elf
# and fp_SETTING_drain.elf.

O ?= build
ARM_CC ?= arm-none-eabi-gcc
B := $(O)/bench/cortex-m
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

# The runtime's sources; the boards' CPU flags (fwex_cpu_BOARD), sources (fwex_board_BOARD) and
# defines (fwex_def_BOARD) are those of the examples.
include target/sources.mk
include $(EX)/firmware.mk

BOARDS := microbit mps2-an385 mps2-an386 mps2-an505
# The core of each board among those the top Makefile builds a libcygtrace.a for.
core_microbit := cortex-m0
core_mps2-an385 := cortex-m3
core_mps2-an386 := cortex-m4f
core_mps2-an505 := cortex-m33

BASE_CFLAGS := -std=gnu11 $(WARN) $(DEPFLAGS) -g -mthumb -ffreestanding -ffunction-sections \
               -fdata-sections -Icommon -Itarget/core -Itarget/cortex-m -I$(EX)
# The runtime and the hooks as the Cortex-M cores build them (-Os, see the top Makefile).
RT_CFLAGS := $(BASE_CFLAGS) -Os -fno-instrument-functions
WORK_CFLAGS := $(BASE_CFLAGS) -O1 -fno-inline
RT_SRC := $(CYGTRACE_RT_SRC_core) $(CYGTRACE_RT_SRC_cortex-m)
LDFLAGS := -mthumb -nostartfiles --specs=nano.specs -Wl,--gc-sections -Wl,--build-id -L$(EX)

RT_VARIANTS := nots timer mmio dwt ctimer cdwt v4 cv4
VARIANTS := plain empty pmt pmt_ts $(RT_VARIANTS) armed armed6 rec4
variants_microbit := $(filter-out dwt cdwt mmio rec4 v4,$(VARIANTS)) # ARMv6-M: no DWT cycle
                                                                 # counter, no LDREX
rt_def_dwt := -DCYGTRACE_CM_CLOCK=1
# Version 4 records (FORMAT.md 14): the DWT variant's runtime writing one word an event.
rt_def_v4 := -DCYGTRACE_CM_CLOCK=1 -DCYGTRACE_REC4=1
# The same through the core's C hooks and the board timer (a function): every core, the M0 too.
rt_def_cv4 := -DCYGTRACE_CM_CLOCK=3 -DCYGTRACE_CM_ASM_HOOKS=0 -DCYGTRACE_REC4=1
rt_def_timer := -DCYGTRACE_CM_CLOCK=3
# The CMSDK timer's VALUE register (TIMER0 + 4, examples/firmware/boards/cmsdk.c), counting down.
rt_def_mmio := -DCYGTRACE_CM_CLOCK=4 -DCYGTRACE_CM_CLOCK_DOWN=1
rt_def_mmio_mps2-an385 := -DCYGTRACE_CM_CLOCK_ADDR=0x40000004u
rt_def_mmio_mps2-an386 := -DCYGTRACE_CM_CLOCK_ADDR=0x40000004u
rt_def_mmio_mps2-an505 := -DCYGTRACE_CM_CLOCK_ADDR=0x50000004u
rt_def_cdwt := -DCYGTRACE_CM_CLOCK=1 -DCYGTRACE_CM_ASM_HOOKS=0
rt_def_ctimer := -DCYGTRACE_CM_CLOCK=3 -DCYGTRACE_CM_ASM_HOOKS=0
# No clock to start at boot either (the micro:bit's M0 has no SysTick in QEMU).
rt_def_nots := -DCYGTRACE_TIMESTAMPS=0 -DCYGTRACE_CM_CLOCK=3
# The armed variants' runtime: the timer's, with the control area (off by default on firmware).
rt_def_ctl := -DCYGTRACE_CM_CLOCK=3 -DCYGTRACE_CONTROL=1
# FP_SETTINGS: min, no warm-reset keeping and no stop mode (the minimal configuration,
# PERFORMANCE.md, with fp_minnf below); nokeep, nostop, each alone; control, the control area
# (what cygtrace arm needs).
FP_SETTINGS := min nokeep nostop control
rt_def_min := -DCYGTRACE_CM_KEEP=0 -DCYGTRACE_STOP_MODE=0 -DCYGTRACE_CM_CLOCK_FALLBACK=0
rt_def_nokeep := -DCYGTRACE_CM_KEEP=0
rt_def_nostop := -DCYGTRACE_STOP_MODE=0
rt_def_control := -DCYGTRACE_CONTROL=1
LOOP_VARIANTS := empty timer null uart
loop_def_empty := -DBENCH_SINK=0 -DBENCH_EMPTY
loop_def_timer := -DBENCH_SINK=0
loop_def_null := -DBENCH_SINK=1
loop_def_uart := -DBENCH_SINK=2
loop_def_fp_nodrain := -DBENCH_SINK=0 -DBENCH_HEAD=0
loop_def_fp_drain := -DBENCH_SINK=1 -DBENCH_HEAD=0
-include $(shell find $(B) -name '*.d' 2>/dev/null)
# No rule makes a dependency file: else make, remaking what it includes, would try its built-in
# %: %.o on it (and build fibloop_fp_drain.d.o through fibloop_%.o, then link it).
%.d: ;
# fib.c and what it includes (the workload, shared with bench/riscv and the host benches).
FIB_DEPS := bench/cortex-m/fib.c bench/fib_fw.h bench/fib_work.h $(EX)/board.h $(EX)/board_base.h

# board_rules BOARD: its objects under $(B)/BOARD/obj, its ELFs in $(B)/BOARD.
define board_rules
$(1)_D := $(B)/$(1)
$(1)_CPU := $(fwex_cpu_$(1))
$(1)_SUPPORT := $$(patsubst $(EX)/%.c,$(B)/$(1)/obj/support/%.o, \
    $(EX)/startup.c $(EX)/board_common.c $(fwex_board_$(1)))
$(1)_ELFS := $$(foreach v,$$(or $$(variants_$(1)),$(VARIANTS)),$(B)/$(1)/fib_$$(v).elf) \
             $(B)/$(1)/fp_nodrain.elf $(B)/$(1)/fp_drain.elf \
             $(if $(filter mps2-an385,$(1)),$(LOOP_VARIANTS:%=$(B)/$(1)/loop_%.elf)) \
             $$($(1)_FP)
all: $$($(1)_ELFS)

$(B)/$(1)/obj/fib_instr.o: $(FIB_DEPS)
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(WORK_CFLAGS) $$($(1)_CPU) -finstrument-functions \
	    -c $$< -o $$@
$(B)/$(1)/obj/fib_armed.o $(B)/$(1)/obj/fib_armed6.o: $(B)/$(1)/obj/fib_%.o: $(FIB_DEPS) \
    target/core/cygtrace.h
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1) $$*])$(ARM_CC) $(WORK_CFLAGS) $$($(1)_CPU) \
	    -finstrument-functions -DBENCH_ARMED=$$(if $$(filter armed6,$$*),2,1) -c $$< -o $$@
$(B)/$(1)/obj/fib_plain.o: $(FIB_DEPS)
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(WORK_CFLAGS) $$($(1)_CPU) -c $$< -o $$@
$(B)/$(1)/obj/fibloop_%.o: bench/cortex-m/fibloop.c $(EX)/board.h target/core/cygtrace.h
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1) $$*])$(ARM_CC) $(WORK_CFLAGS) $$($(1)_CPU) \
	    -finstrument-functions $$(loop_def_$$*) -c $$< -o $$@
$(B)/$(1)/obj/support/%.o: $(EX)/%.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(RT_CFLAGS) $$($(1)_CPU) $(fwex_def_$(1)) \
	    -DCYGTRACE_CM_CLOCK=3 -c $$< -o $$@
$(B)/$(1)/obj/hooks_empty.o: bench/cortex-m/hooks_empty.c bench/hooks_empty.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(RT_CFLAGS) $$($(1)_CPU) -c $$< -o $$@
$(B)/$(1)/obj/hooks_pmt.o: bench/cortex-m/hooks_pmt.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(RT_CFLAGS) $$($(1)_CPU) -c $$< -o $$@
$(B)/$(1)/obj/hooks_pmt_ts.o: bench/cortex-m/hooks_pmt.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1) ts])$(ARM_CC) $(RT_CFLAGS) $$($(1)_CPU) -DPMT_TIMESTAMP=1 \
	    -c $$< -o $$@
$(B)/$(1)/obj/hooks_rec4.o: bench/cortex-m/hooks_rec4.c common/cyg_format.h
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(RT_CFLAGS) -Icommon $$($(1)_CPU) -c $$< -o $$@
$(B)/$(1)/obj/recorded_rt.o: bench/cortex-m/recorded_rt.c target/core/cygtrace.h
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(RT_CFLAGS) $$($(1)_CPU) -c $$< -o $$@

$(B)/$(1)/fib_armed.elf $(B)/$(1)/fib_armed6.elf: $(B)/$(1)/fib_%.elf: $(B)/$(1)/obj/fib_%.o \
    $(B)/$(1)/obj/recorded_rt.o $(patsubst %.c,$(B)/$(1)/obj/rt_ctl/%.o,$(RT_SRC))
$(B)/$(1)/fib_plain.elf: $(B)/$(1)/obj/fib_plain.o $(B)/$(1)/obj/hooks_empty.o
$(B)/$(1)/fib_empty.elf: $(B)/$(1)/obj/fib_instr.o $(B)/$(1)/obj/hooks_empty.o
$(B)/$(1)/fib_pmt.elf: $(B)/$(1)/obj/fib_instr.o $(B)/$(1)/obj/hooks_pmt.o
$(B)/$(1)/fib_pmt_ts.elf: $(B)/$(1)/obj/fib_instr.o $(B)/$(1)/obj/hooks_pmt_ts.o
$(B)/$(1)/fib_rec4.elf: $(B)/$(1)/obj/fib_instr.o $(B)/$(1)/obj/hooks_rec4.o
$(B)/$(1)/fp_nodrain.elf: $(B)/$(1)/obj/fibloop_fp_nodrain.o $(O)/$(core_$(1))/libcygtrace.a
$(B)/$(1)/fp_drain.elf: $(B)/$(1)/obj/fibloop_fp_drain.o $(O)/$(core_$(1))/libcygtrace.a
$$($(1)_ELFS): $$($(1)_SUPPORT) $(EX)/boards/$(1).ld $(EX)/sections.ld
	$$(call say,LD,$$@)$(ARM_CC) $$($(1)_CPU) $(LDFLAGS) -T $(EX)/boards/$(1).ld \
	    -Wl,-Map=$$(@:.elf=.map) -o $$@ $$(filter %.o %.a,$$^)
endef

# rt_objs BOARD VARIANT: a copy of the runtime with the variant's defines; rt_rules: and its
# firmware.
define rt_objs
$(B)/$(1)/obj/rt_$(2)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1) $(2)])$(ARM_CC) $(RT_CFLAGS) $$($(1)_CPU) $(rt_def_$(2)) \
	    $(rt_def_$(2)_$(1)) -c $$< -o $$@
endef
define rt_rules
$(call rt_objs,$(1),$(2))
$(B)/$(1)/fib_$(2).elf: $(B)/$(1)/obj/fib_instr.o $(B)/$(1)/obj/recorded_rt.o \
                        $(patsubst %.c,$(B)/$(1)/obj/rt_$(2)/%.o,$(RT_SRC))
endef

# The drain loops, on the AN385 with the board-timer runtime.
define loop_rules
$(B)/$(1)/loop_$(2).elf: $(B)/$(1)/obj/fibloop_$(2).o \
    $(if $(filter empty,$(2)),$(B)/$(1)/obj/hooks_empty.o, \
         $(patsubst %.c,$(B)/$(1)/obj/rt_timer/%.o,$(RT_SRC)))
endef

# fp_rules SETTING: the footprint ELFs of mps2-an385 with the runtime built so.
define fp_rules
$(call rt_objs,mps2-an385,$(1))
$(B)/mps2-an385/fp_$(1).elf: $(B)/mps2-an385/obj/fibloop_fp_nodrain.o
$(B)/mps2-an385/fp_$(1)_drain.elf: $(B)/mps2-an385/obj/fibloop_fp_drain.o
$(B)/mps2-an385/fp_$(1).elf $(B)/mps2-an385/fp_$(1)_drain.elf: \
    $(patsubst %.c,$(B)/mps2-an385/obj/rt_$(1)/%.o,$(RT_SRC))
mps2-an385_FP := $$(mps2-an385_FP) $(B)/mps2-an385/fp_$(1).elf $(B)/mps2-an385/fp_$(1)_drain.elf
endef
$(foreach v,$(FP_SETTINGS),$(eval $(call fp_rules,$(v))))
# fp_minnf.elf, fp_minnf_drain.elf: the minimal configuration in a firmware that leaves the
# runtime's fault handler out of its vector table (startup.c with
# STARTUP_FAULT_HANDLER=Default_Handler): no fault records. Their own link, as they take
# another startup object.
$(B)/mps2-an385/obj/support_nf/startup.o: $(EX)/startup.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< [mps2-an385 no fault handler])$(ARM_CC) $(RT_CFLAGS) \
	    $(fwex_cpu_mps2-an385) $(fwex_def_mps2-an385) -DCYGTRACE_CM_CLOCK=3 \
	    -DSTARTUP_FAULT_HANDLER=Default_Handler -c $< -o $@
$(B)/mps2-an385/fp_minnf.elf: $(B)/mps2-an385/obj/fibloop_fp_nodrain.o
$(B)/mps2-an385/fp_minnf_drain.elf: $(B)/mps2-an385/obj/fibloop_fp_drain.o
$(B)/mps2-an385/fp_minnf.elf $(B)/mps2-an385/fp_minnf_drain.elf: \
    $(B)/mps2-an385/obj/support_nf/startup.o \
    $(patsubst $(EX)/%.c,$(B)/mps2-an385/obj/support/%.o,$(EX)/board_common.c \
        $(fwex_board_mps2-an385)) \
    $(patsubst %.c,$(B)/mps2-an385/obj/rt_min/%.o,$(RT_SRC)) $(EX)/boards/mps2-an385.ld \
    $(EX)/sections.ld
	$(call say,LD,$@)$(ARM_CC) $(fwex_cpu_mps2-an385) $(LDFLAGS) -T $(EX)/boards/mps2-an385.ld \
	    -Wl,-Map=$(@:.elf=.map) -o $@ $(filter %.o %.a,$^)
all: $(B)/mps2-an385/fp_minnf.elf $(B)/mps2-an385/fp_minnf_drain.elf
$(foreach b,$(BOARDS),$(foreach v,$(RT_VARIANTS),$(eval $(call rt_rules,$(b),$(v)))))
$(foreach b,$(BOARDS),$(eval $(call rt_objs,$(b),ctl)))
$(foreach v,$(LOOP_VARIANTS),$(eval $(call loop_rules,mps2-an385,$(v))))
$(foreach b,$(BOARDS),$(eval $(call board_rules,$(b))))
