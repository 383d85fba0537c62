# examples/firmware/firmware.mk - the QEMU firmware examples, included by the top Makefile:
#   make firmware  ->  $(O)/firmware/<board>/<program>.elf for every board and program below.
#
# The programs are instrumented (-finstrument-functions -O1 -fno-inline); the startup code, the
# board support and the runtime are not. The runtime is built per board from its sources, with
# the board's CPU flags and the board's timer as the trace's clock (CYGTRACE_CM_CLOCK=3): under
# QEMU the DWT cycle counter reads 0.

FWEX_DIR := examples/firmware
FWEX_PROGRAMS := demo crash reset
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
fwex_def_mps2-an505 := -DCMSDK_UART=0x50200000u -DCMSDK_TIMER=0x50000000u \
                       -DCMSDK_CLOCK_HZ=20000000u

FWEX_RT_SRC := target/core/cygtrace.c target/cortex-m/cygtrace_cm.c common/crc32.c
FWEX_CFLAGS := -std=gnu11 $(WARN) -g -mthumb -ffreestanding -ffunction-sections \
               -fdata-sections -DCYGTRACE_CM_CLOCK=3 -Icommon -Itarget/core -Itarget/cortex-m \
               -I$(FWEX_DIR)
FWEX_INSTR := -finstrument-functions -O1 -fno-inline
FWEX_PLAIN := -fno-instrument-functions -Os
FWEX_LDFLAGS := -nostartfiles --specs=nano.specs -Wl,--gc-sections -Wl,--build-id \
                -L$(FWEX_DIR)
FWEX_DEPS := $(wildcard common/*.h target/core/*.h target/cortex-m/*.h $(FWEX_DIR)/*.h)

.PHONY: firmware
ifneq ($(shell command -v $(ARM_CC) 2>/dev/null),)
firmware: $(foreach b,$(FWEX_BOARDS),$(foreach p,$(FWEX_PROGRAMS),$(O)/firmware/$(b)/$(p).elf))
else
firmware:
	@echo "  SKIP    firmware examples: $(ARM_CC) not found (make deps installs it)"
endif

# fwex_elf BOARD PROGRAM: an explicit rule, so that make keeps the objects (no intermediates).
define fwex_elf
$(O)/firmware/$(1)/$(2).elf: $(O)/firmware/$(1)/obj/$(FWEX_DIR)/$(2).o $$(FWEX_SUPPORT_$(1)) \
                             $(FWEX_DIR)/boards/$(1).ld $(FWEX_DIR)/sections.ld
	$$(call say,LD,$$@)$(ARM_CC) $(fwex_cpu_$(1)) -mthumb $(FWEX_LDFLAGS) \
	    -T $(FWEX_DIR)/boards/$(1).ld -o $$@ $$(filter %.o,$$^)
endef

# fwex_rules BOARD: objects under $(O)/firmware/BOARD/obj, one ELF per program.
define fwex_rules
FWEX_SUPPORT_$(1) := $(patsubst %.c,$(O)/firmware/$(1)/obj/%.o,$(FWEX_RT_SRC) \
    $(FWEX_DIR)/startup.c $(FWEX_DIR)/board_common.c $(fwex_board_$(1)))

$(O)/firmware/$(1)/obj/%.o: %.c $(FWEX_DEPS)
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(FWEX_CFLAGS) $(fwex_cpu_$(1)) $(fwex_def_$(1)) \
	    $$(if $$(filter $(FWEX_PROGRAMS:%=$(FWEX_DIR)/%.c),$$<),$(FWEX_INSTR),$(FWEX_PLAIN)) \
	    -c $$< -o $$@
endef
$(foreach b,$(FWEX_BOARDS),$(eval $(call fwex_rules,$(b))))
$(foreach b,$(FWEX_BOARDS),$(foreach p,$(FWEX_PROGRAMS),$(eval $(call fwex_elf,$(b),$(p)))))
