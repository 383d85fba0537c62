# SPDX-License-Identifier: MIT
# examples/freertos/freertos.mk - the FreeRTOS example (main.c), included by the top Makefile
# after examples/firmware/firmware.mk, whose boards, startup code and runtime objects it uses:
#   make firmware  ->  $(O)/firmware/<board>/freertos.elf        fault after FREERTOS_ROUNDS
#                                                                rounds, a big ring
#                      $(O)/firmware/<board>/freertos_wrap.elf   400 rounds in the default ring
#                                                                (512 records): it wraps
#                      $(O)/firmware/<board>/freertos_live.elf   no fault; the idle task drains
#                                                                the ring over the UART
#                      $(O)/firmware/<board>/freertos_rtt.elf    the same into the RTT channel,
#                                                                for `cygtrace live --gdb`
# The kernel is not part of this tree: FREERTOS_DIR names a FreeRTOS-Kernel (V11) source tree
# (https://github.com/FreeRTOS/FreeRTOS-Kernel; ours is commit 4269c69, after V11.1.0), by
# default the one next to this checkout, ../shared/thirdparty/FreeRTOS-Kernel, when there is
# one (our CI's); without it, the example is skipped, and so are its tests
# (tests/e2e/freertos.sh), by name. The kernel is built the way
# target/rtos/freertos/freertos.mk says, a copy per board.
FREERTOS_DIR ?= $(wildcard $(CURDIR)/../shared/thirdparty/FreeRTOS-Kernel)
FREX_DIR := examples/freertos
FREX_PROGRAMS := freertos freertos_wrap freertos_live freertos_rtt
FREX_BOARDS := mps2-an385 mps2-an386 mps2-an505 microbit
FREERTOS_ROUNDS ?= 40

# Per board: the port, the core's clock (SysTick's), and what main.c needs to know.
frex_port_mps2-an385 := GCC/ARM_CM3
frex_port_mps2-an386 := GCC/ARM_CM4F
frex_port_mps2-an505 := GCC/ARM_CM33_NTZ/non_secure
frex_port_microbit := GCC/ARM_CM0
frex_def_mps2-an385 := -DFREERTOS_CPU_HZ=25000000u
frex_def_mps2-an386 := -DFREERTOS_CPU_HZ=25000000u
frex_def_mps2-an505 := -DFREERTOS_CPU_HZ=20000000u -DCMSDK_TIMER1_IRQ=4
# 16 KB of RAM: a heap of 6 KB next to the ring of 1024 records, which holds 4 rounds whole
# (freertos_wrap.elf is the one that wraps).
frex_def_microbit := -DFREERTOS_CPU_HZ=16000000u -DFREERTOS_HEAP=6144
frex_rounds_microbit := 4

FREX_KERNEL_CFLAGS := -std=gnu11 -g -mthumb -ffreestanding -ffunction-sections -fdata-sections \
                      -Os -I$(FREX_DIR) -I$(FWEX_DIR)

.PHONY: freertos-firmware
ifneq ($(shell command -v $(ARM_CC) 2>/dev/null),)
ifeq ($(wildcard $(FREERTOS_DIR)/tasks.c),)
firmware: freertos-firmware
freertos-firmware:
	@echo "  SKIP    FreeRTOS example: no FreeRTOS-Kernel at FREERTOS_DIR='$(FREERTOS_DIR)' (get V11 from https://github.com/FreeRTOS/FreeRTOS-Kernel and set FREERTOS_DIR to it)"
else
firmware: freertos-firmware
freertos-firmware: $(foreach b,$(FREX_BOARDS),$(FREX_PROGRAMS:%=$(O)/firmware/$(b)/%.elf))

include target/rtos/freertos/freertos.mk

# frex_cc BOARD SOURCE OBJECT FLAGS: one kernel or glue object (explicit: the kernel's sources
# are in three folders).
define frex_cc
$(3): $(2)
	@mkdir -p $$(@D)
	$$(call say,CC,$$(notdir $$<) [$(1) FreeRTOS])$(ARM_CC) $$(frex_flags_$(1)) $(DEPFLAGS) $(4) \
	    -c $$< -o $$@
endef

# frex_rules BOARD: the kernel, the glue and the three programs under $(O)/firmware/BOARD,
# from what freertos.mk gives for the board's port.
define frex_rules
FREERTOS_PORT := $(frex_port_$(1))
frex_obj_$(1) := $(O)/firmware/$(1)/freertos
frex_flags_$(1) := $(FREX_KERNEL_CFLAGS) $(fwex_cpu_$(1)) $(fwex_def_$(1)) $(frex_def_$(1)) \
                   $$(CYGTRACE_FREERTOS_CFLAGS)
frex_kflags_$(1) := $$(CYGTRACE_FREERTOS_KERNEL_CFLAGS)
frex_ksrc_$(1) := $$(CYGTRACE_FREERTOS_KERNEL_SRC)
frex_psrc_$(1) := $$(CYGTRACE_FREERTOS_PORT_SRC)
frex_common_$(1) := $$(patsubst %.c,$$(frex_obj_$(1))/kernel/%.o,$$(notdir $$(frex_ksrc_$(1)))) \
                    $$(patsubst %.c,$$(frex_obj_$(1))/port/%.o,$$(notdir $$(frex_psrc_$(1)))) \
                    $$(frex_obj_$(1))/cygtrace_freertos.o
endef

# frex_programs BOARD: the programs' rules.
define frex_programs
# The programs: main.c, instrumented as the firmware examples are, three ways.
$$(frex_obj_$(1))/freertos.o: FREX_PDEF := -DFREERTOS_ROUNDS=$(or $(frex_rounds_$(1)),$(FREERTOS_ROUNDS)) \
    -DCYGTRACE_CM_BUFFER_BYTES=$(fwex_stress_ring_$(1))
$$(frex_obj_$(1))/freertos_wrap.o: FREX_PDEF := -DFREERTOS_ROUNDS=400
$$(frex_obj_$(1))/freertos_live.o: FREX_PDEF := -DFREERTOS_LIVE
$$(frex_obj_$(1))/freertos_rtt.o: FREX_PDEF := -DFREERTOS_LIVE -DFREERTOS_RTT
$(FREX_PROGRAMS:%=$$(frex_obj_$(1))/%.o): $$(frex_obj_$(1))/%.o: $(FREX_DIR)/main.c
	@mkdir -p $$(@D)
	$$(call say,CC,$$< [$(1) $$*])$(ARM_CC) $$(frex_flags_$(1)) $(WARN) $(FWEX_CFLAGS) \
	    $(fwex_clock_$(1)) \
	    $(DEPFLAGS) $(FWEX_INSTR) $$(FREX_PDEF) -c $$< -o $$@

# freertos.elf: the big ring of the stress program (its cygtrace_static.o), the others the default.
$(O)/firmware/$(1)/freertos.elf: $$(frex_obj_$(1))/freertos.o $$(frex_common_$(1)) \
    $$(FWEX_SUPPORT_$(1)_stress)
$(O)/firmware/$(1)/freertos_wrap.elf: $$(frex_obj_$(1))/freertos_wrap.o $$(frex_common_$(1)) \
    $$(FWEX_SUPPORT_$(1))
$(O)/firmware/$(1)/freertos_live.elf: $$(frex_obj_$(1))/freertos_live.o $$(frex_common_$(1)) \
    $$(FWEX_SUPPORT_$(1))
$(O)/firmware/$(1)/freertos_rtt.elf: $$(frex_obj_$(1))/freertos_rtt.o $$(frex_common_$(1)) \
    $$(FWEX_SUPPORT_$(1))
$(FREX_PROGRAMS:%=$(O)/firmware/$(1)/%.elf): $(FWEX_DIR)/boards/$(1).ld $(FWEX_DIR)/sections.ld
	$$(call say,LD,$$@)$(ARM_CC) $(fwex_cpu_$(1)) -mthumb $(FWEX_LDFLAGS) \
	    -Wl,-Map=$$@.map -T $(FWEX_DIR)/boards/$(1).ld -o $$@ $$(filter %.o %.a,$$^)
endef
# frex_objs BOARD: the objects' rules, from the sources frex_rules found.
frex_objs = $(foreach s,$(frex_ksrc_$(1)),$(eval $(call frex_cc,$(1),$(s),$(frex_obj_$(1))/kernel/$(notdir \
                $(s:.c=.o)),$(frex_kflags_$(1))))) \
            $(foreach s,$(frex_psrc_$(1)),$(eval $(call frex_cc,$(1),$(s),$(frex_obj_$(1))/port/$(notdir \
                $(s:.c=.o)),))) \
            $(eval $(call frex_cc,$(1),$(CYGTRACE_FREERTOS_GLUE_SRC),$(frex_obj_$(1))/cygtrace_freertos.o, \
                $(WARN) -fno-instrument-functions))
$(foreach b,$(FREX_BOARDS),$(eval $(call frex_rules,$(b)))$(call frex_objs,$(b))$(eval $(call frex_programs,$(b))))
endif
endif
