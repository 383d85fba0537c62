# SPDX-License-Identifier: MIT
# examples/firmware/firmware.mk - the QEMU firmware examples, included by the top Makefile:
#   make firmware  ->  $(O)/firmware/<board>/<program>.elf for every board and program below.
#
# The programs are instrumented (-finstrument-functions -O1 -fno-inline); the startup code, the
# board support and the runtime are not. The runtime is built per board from its sources, with
# the board's CPU flags and the board's timer as the trace's clock (fwex_clock_BOARD): under
# QEMU the DWT cycle counter reads 0. With the control area (CYGTRACE_CONTROL=1, off by default
# on firmware): `cygtrace arm` arms these examples (tests/e2e/fw_arm.sh), stress_armed arms
# itself, and the FreeRTOS examples, which take these flags, are armed too.

FWEX_DIR := examples/firmware
FWEX_PROGRAMS := demo crash reset stress stress_ow stress_armed fault_hook stream stream_crash stream_live \
                 wrapped wrapped_live rtt jumps echo demo_hookcost fwdiff fwdiff_b
FWEX_BOARDS := mps2-an385 mps2-an386 mps2-an505 microbit

# Per board: CPU flags, board source, defines for the board source.
fwex_cpu_mps2-an385 := -mcpu=cortex-m3
fwex_cpu_mps2-an386 := -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
fwex_cpu_mps2-an505 := -mcpu=cortex-m33
fwex_cpu_microbit := -mcpu=cortex-m0
fwex_board_mps2-an385 := $(FWEX_DIR)/boards/cmsdk.c
fwex_board_mps2-an386 := $(FWEX_DIR)/boards/cmsdk.c
fwex_board_mps2-an505 := $(FWEX_DIR)/boards/cmsdk.c
fwex_board_microbit := $(FWEX_DIR)/boards/nrf51.c
# The AN505 boots secure: its UART0 and TIMER0 through their secure aliases; 20 MHz.
fwex_def_mps2-an505 := -DCMSDK_UART=0x50200000u -DCMSDK_UART1=0x50201000u -DCMSDK_TIMER=0x50000000u \
                       -DCMSDK_CLOCK_HZ=20000000u
# The nRF51 has no SysTick: stress.c interrupts with its TIMER1 instead.
fwex_def_microbit := -DBOARD_NRF51
# The trace's clock: on the CMSDK boards the hooks read TIMER0's VALUE register themselves
# (CYGTRACE_CM_CLOCK=4, counting down); the nRF51's timer is read through a capture, a
# function (CYGTRACE_CM_CLOCK=3, cygtrace_user_clock() in boards/nrf51.c). After FWEX_CFLAGS.
fwex_clock_cmsdk = -UCYGTRACE_CM_CLOCK -DCYGTRACE_CM_CLOCK=4 -DCYGTRACE_CM_CLOCK_DOWN=1 \
                   -DCYGTRACE_CM_CLOCK_ADDR=$(1)
fwex_clock_mps2-an385 := $(call fwex_clock_cmsdk,0x40000004u)
fwex_clock_mps2-an386 := $(call fwex_clock_cmsdk,0x40000004u)
fwex_clock_mps2-an505 := $(call fwex_clock_cmsdk,0x50000004u)
# stress: a ring of 32768 records (1024 in the micro:bit's 16 KB of RAM), so that thousands of
# interrupts land in the hooks before it is full: its own copy of cygtrace_static.o, and stress.c
# built with the same CYGTRACE_CM_BUFFER_BYTES, as cygtrace_cm.h wants.
fwex_stress_ring_mps2-an385 := 262528
fwex_stress_ring_mps2-an386 := 262528
fwex_stress_ring_mps2-an505 := 262528
fwex_stress_ring_microbit := 8576

# stress_ow, fault_hook and reset: the runtime without the control area, the firmware default (the
# others have it, for cygtrace arm): interrupts and faults inside both kinds of hooks.
FWEX_NOCTL := stress_ow fault_hook reset
FWEX_NOCTL_DEF := -UCYGTRACE_CONTROL -DCYGTRACE_CONTROL=0

# FWEX_EXTRA: defines for every object (tests/e2e/fw_rec4.sh builds the stress programs with
# version 4 records so, into a build folder of its own).
# The Cortex-M runtime (target/sources.mk, which the includer has read).
FWEX_RT_SRC := $(CYGTRACE_RT_SRC_core) $(CYGTRACE_RT_SRC_cortex-m)
FWEX_CFLAGS := -std=gnu11 $(WARN) -g -mthumb -ffreestanding -ffunction-sections $(FWEX_EXTRA) \
               -fdata-sections -DCYGTRACE_CM_CLOCK=3 -DCYGTRACE_CONTROL=1 -Icommon -Itarget/core \
               -Itarget/cortex-m -I$(FWEX_DIR)
FWEX_INSTR := -finstrument-functions -O1 -fno-inline
FWEX_PLAIN := -fno-instrument-functions -Os
FWEX_LDFLAGS := -nostartfiles --specs=nano.specs -Wl,--gc-sections -Wl,--build-id \
                -L$(FWEX_DIR)

# wrapped, wrapped_live: calls into a vendor driver that comes precompiled, recorded with their
# arguments and return values by the wrappers `cygtrace wrap` writes. Per board, as a user's
# build would do it: driver/drv.c built as a vendor builds it (-g -Os, no
# -finstrument-functions, none of the runtime's include paths or defines) into
# $(O)/firmware/BOARD/libdrv.a; `cygtrace wrap` reads the library's DWARF and writes
# $(O)/firmware/BOARD/wrap/cygtrace_wrap.c, built like the runtime, and cygtrace_wrap.flags
# (-Wl,--wrap=NAME a line), which the link takes as @FILE.
# The generator is the host tool of this build: a change to it writes the wrappers again.
FWEX_WRAPPED := wrapped wrapped_live
FWEX_DRV_CFLAGS := -std=gnu11 $(WARN) -g -Os -mthumb -ffreestanding -ffunction-sections \
                   -fdata-sections -fno-instrument-functions

.PHONY: firmware
ifneq ($(shell command -v $(ARM_CC) 2>/dev/null),)
firmware: $(foreach b,$(FWEX_BOARDS),$(foreach p,$(FWEX_PROGRAMS),$(O)/firmware/$(b)/$(p).elf))
else
firmware:
	@echo "  SKIP    firmware examples: $(ARM_CC) not found (make deps installs it)"
endif

# fwex_elf BOARD PROGRAM: an explicit rule, so that make keeps the objects (no intermediates).
# A program links FWEX_SUPPORT_BOARD_PROGRAM instead of FWEX_SUPPORT_BOARD when there is one.
define fwex_elf
$(O)/firmware/$(1)/$(2).elf: $(O)/firmware/$(1)/obj/$(FWEX_DIR)/$(2).o \
                             $$(or $$(FWEX_SUPPORT_$(1)_$(2)),$$(FWEX_SUPPORT_$(1))) \
                             $(FWEX_DIR)/boards/$(1).ld $(FWEX_DIR)/sections.ld
	$$(call say,LD,$$@)$(ARM_CC) $(fwex_cpu_$(1)) -mthumb $(FWEX_LDFLAGS) \
	    -Wl,-Map=$$@.map -T $(FWEX_DIR)/boards/$(1).ld -o $$@ $$(filter %.o %.a,$$^) \
	    $$(FWEX_LINK)
endef

# fwex_rules BOARD: objects under $(O)/firmware/BOARD/obj, one ELF per program.
define fwex_rules
FWEX_SUPPORT_$(1) := $(patsubst %.c,$(O)/firmware/$(1)/obj/%.o,$(FWEX_RT_SRC) \
    $(FWEX_DIR)/startup.c $(FWEX_DIR)/board_common.c $(fwex_board_$(1)))

$(O)/firmware/$(1)/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(FWEX_CFLAGS) $(DEPFLAGS) $(fwex_cpu_$(1)) \
	    $(fwex_def_$(1)) $(fwex_clock_$(1)) $$(FWEX_RING) $$(FWEX_CTL) \
	    $$(if $$(filter $(FWEX_PROGRAMS:%=$(FWEX_DIR)/%.c),$$<),$(FWEX_INSTR),$(FWEX_PLAIN)) \
	    -c $$< -o $$@

# FWEX_NOCTL's programs link the runtime as a firmware builds it by default, without the control
# area (CYGTRACE_CONTROL=0: hooks without the test of last), a copy of it under obj/noctl.
FWEX_SUPPORT_$(1)_noctl := $$(patsubst $(O)/firmware/$(1)/obj/%,$(O)/firmware/$(1)/obj/noctl/%, \
                                      $$(FWEX_SUPPORT_$(1)))
$(O)/firmware/$(1)/obj/noctl/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1) noctl])$(ARM_CC) $(FWEX_CFLAGS) $(DEPFLAGS) $(fwex_cpu_$(1)) \
	    $(fwex_def_$(1)) $(fwex_clock_$(1)) $(FWEX_NOCTL_DEF) $(FWEX_PLAIN) -c $$< -o $$@
$(FWEX_NOCTL:%=$(O)/firmware/$(1)/obj/$(FWEX_DIR)/%.o): FWEX_CTL := $(FWEX_NOCTL_DEF)
$(foreach p,$(FWEX_NOCTL),$$(eval FWEX_SUPPORT_$(1)_$(p) := $$$$(FWEX_SUPPORT_$(1)_noctl)))

# stream_crash and stream_live are stream.c built with STREAM_CRASH, and for ever.
$(O)/firmware/$(1)/obj/$(FWEX_DIR)/stream_crash.o: $(FWEX_DIR)/stream.c
$(O)/firmware/$(1)/obj/$(FWEX_DIR)/stream_live.o: $(FWEX_DIR)/stream.c
# rtt is stream.c built with STREAM_RTT: for ever, into the RTT channel.
$(O)/firmware/$(1)/obj/$(FWEX_DIR)/rtt.o: $(FWEX_DIR)/stream.c
# stress_ow is stress.c built with STRESS_OVERWRITE, in the default ring (512 records).
$(O)/firmware/$(1)/obj/$(FWEX_DIR)/stress_ow.o: $(FWEX_DIR)/stress.c
$(O)/firmware/$(1)/obj/$(FWEX_DIR)/stress_armed.o: $(FWEX_DIR)/stress.c
# fwdiff_b is fwdiff.c built with FWDIFF_B (cygtrace diff's second build).
$(O)/firmware/$(1)/obj/$(FWEX_DIR)/fwdiff_b.o: $(FWEX_DIR)/fwdiff.c

# wrapped_live is wrapped.c built with WRAPPED_LIVE.
$(O)/firmware/$(1)/obj/$(FWEX_DIR)/wrapped_live.o: $(FWEX_DIR)/wrapped.c

# The driver library, its wrappers (generated: both files from one run), and the programs that
# link them: the wrappers' object, then the library that their __real_NAME calls resolve to.
fwex_wrap_dir := $(O)/firmware/$(1)/wrap
$(O)/firmware/$(1)/driver/drv.o: $(FWEX_DIR)/driver/drv.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(FWEX_DRV_CFLAGS) $(DEPFLAGS) $(fwex_cpu_$(1)) \
	    -c $$< -o $$@
$(O)/firmware/$(1)/libdrv.a: $(O)/firmware/$(1)/driver/drv.o
	$$(call say,AR,$$@)rm -f $$@ && arm-none-eabi-ar rcs $$@ $$^
$$(fwex_wrap_dir)/cygtrace_wrap.c $$(fwex_wrap_dir)/cygtrace_wrap.flags &: \
    $(O)/firmware/$(1)/libdrv.a $(O)/cygtrace
	$$(call say,WRAP,$$<)$(O)/cygtrace wrap -q -o $$(@D) $$<
$$(fwex_wrap_dir)/cygtrace_wrap.o: $$(fwex_wrap_dir)/cygtrace_wrap.c
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(FWEX_CFLAGS) $(DEPFLAGS) $(fwex_cpu_$(1)) \
	    $(fwex_clock_$(1)) $(FWEX_PLAIN) -c $$< -o $$@
FWEX_SUPPORT_$(1)_wrapped := $$(FWEX_SUPPORT_$(1)) $$(fwex_wrap_dir)/cygtrace_wrap.o \
                            $(O)/firmware/$(1)/libdrv.a
FWEX_SUPPORT_$(1)_wrapped_live := $$(FWEX_SUPPORT_$(1)_wrapped)
$(FWEX_WRAPPED:%=$(O)/firmware/$(1)/%.elf): $$(fwex_wrap_dir)/cygtrace_wrap.flags
$(FWEX_WRAPPED:%=$(O)/firmware/$(1)/%.elf): FWEX_LINK := @$$(fwex_wrap_dir)/cygtrace_wrap.flags

# jumps: newlib's setjmp and longjmp, recorded by the runtime's optional wrappers of them.
FWEX_SUPPORT_$(1)_jumps := $$(FWEX_SUPPORT_$(1)) $(O)/firmware/$(1)/obj/target/cortex-m/cygtrace_cm_jmp.o
$(O)/firmware/$(1)/jumps.elf: FWEX_LINK := -Wl,--wrap=setjmp,--wrap=longjmp

# stress: FWEX_SUPPORT_BOARD_stress, with the ring of fwex_stress_ring_BOARD (the buffer is
# cygtrace_static.o's).
fwex_stress_cm := $(O)/firmware/$(1)/obj/stress/cygtrace_static.o
FWEX_SUPPORT_$(1)_stress := $$(patsubst %/target/core/cygtrace_static.o,$$(fwex_stress_cm), \
                                        $$(FWEX_SUPPORT_$(1)))
$(O)/firmware/$(1)/obj/$(FWEX_DIR)/stress.o $$(fwex_stress_cm): \
    FWEX_RING := -DCYGTRACE_CM_BUFFER_BYTES=$(fwex_stress_ring_$(1))
$$(fwex_stress_cm): target/core/cygtrace_static.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1) stress])$(ARM_CC) $(FWEX_CFLAGS) $(DEPFLAGS) $(fwex_cpu_$(1)) \
	    $(fwex_clock_$(1)) $$(FWEX_RING) $(FWEX_PLAIN) -c $$< -o $$@

# demo_hookcost: FWEX_SUPPORT_BOARD with cygtrace_static.o built with a hook cost given.
fwex_hook_cm := $(O)/firmware/$(1)/obj/hookcost/cygtrace_static.o
FWEX_SUPPORT_$(1)_demo_hookcost := $$(patsubst %/target/core/cygtrace_static.o,$$(fwex_hook_cm), \
                                               $$(FWEX_SUPPORT_$(1)))
$$(fwex_hook_cm): target/core/cygtrace_static.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1) hookcost])$(ARM_CC) $(FWEX_CFLAGS) $(DEPFLAGS) $(fwex_cpu_$(1)) \
	    $(fwex_def_$(1)) $(fwex_clock_$(1)) -DCYGTRACE_HOOK_COST=12 $(FWEX_PLAIN) -c $$< -o $$@
endef
$(foreach b,$(FWEX_BOARDS),$(eval $(call fwex_rules,$(b))))
$(foreach b,$(FWEX_BOARDS),$(foreach p,$(FWEX_PROGRAMS),$(eval $(call fwex_elf,$(b),$(p)))))
