# bench/cortex-m/cortex-m.mk - the Cortex-M hook-cost firmware for mps2-an385 (Cortex-M3): one
# instrumented fib.o linked with each hook variant in turn. run.sh builds and runs them:
#   bench/cortex-m/run.sh [BUILD_DIR]
#
#   fib_plain   fib.c without -finstrument-functions: no hook calls at all
#   fib_empty   empty hooks: the calls -finstrument-functions adds, and nothing else
#   fib_dwt     the runtime, DWT CYCCNT clock (the Cortex-M3 default; it reads 0 under QEMU,
#               but the instructions are the same)
#   fib_timer   the runtime, the board timer through cygtrace_user_clock() (the examples)
#   fib_nots    the runtime without timestamps (CYGTRACE_TIMESTAMPS=0)
#
# The stream drain (fibloop.c: fib(10) 100 times, the board timer as clock):
#   loop_empty  empty hooks
#   loop_timer  the runtime, no drain
#   loop_null   the runtime, cygtrace_drain() after each fib(10) into a sink that takes all
#   loop_uart   the same into the UART (QEMU's takes every byte at once)
# Every runtime variant links the drain: a firmware that never calls it gets the same hooks.

O ?= build
ARM_CC ?= arm-none-eabi-gcc
B := $(O)/bench/cortex-m
EX := examples/firmware

ifeq ($(V),1)
say :=
else
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

CPU := -mcpu=cortex-m3 -mthumb
CFLAGS := -std=gnu11 -Wall -Wextra -Werror -g $(CPU) -ffreestanding -ffunction-sections \
          -fdata-sections -Icommon -Itarget/core -Itarget/cortex-m -I$(EX)
# The runtime as the Cortex-M cores build it (-Os, see the top Makefile).
RT_CFLAGS := $(CFLAGS) -Os -fno-instrument-functions
RT_SRC := target/core/cygtrace.c target/core/cygtrace_drain.c target/cortex-m/cygtrace_cm.c \
          common/crc32.c common/cobs.c
SUPPORT_SRC := $(EX)/startup.c $(EX)/board_common.c $(EX)/boards/cmsdk.c
LDFLAGS := $(CPU) -nostartfiles --specs=nano.specs -Wl,--gc-sections -Wl,--build-id -L$(EX) \
           -T $(EX)/boards/mps2-an385.ld
VARIANTS := plain empty dwt timer nots
LOOP_VARIANTS := empty timer null uart
rt_def_dwt := -DCYGTRACE_CM_CLOCK=1
rt_def_timer := -DCYGTRACE_CM_CLOCK=3
rt_def_nots := -DCYGTRACE_TIMESTAMPS=0

.PHONY: all
all: $(VARIANTS:%=$(B)/fib_%.elf) $(LOOP_VARIANTS:%=$(B)/loop_%.elf)

$(B)/obj/fib_instr.o: bench/cortex-m/fib.c $(EX)/board.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(ARM_CC) $(CFLAGS) -O1 -fno-inline -finstrument-functions -c $< -o $@
$(B)/obj/fib_plain.o: bench/cortex-m/fib.c $(EX)/board.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(ARM_CC) $(CFLAGS) -O1 -fno-inline -c $< -o $@
loop_def_empty := -DBENCH_SINK=0 -DBENCH_EMPTY
loop_def_timer := -DBENCH_SINK=0
loop_def_null := -DBENCH_SINK=1
loop_def_uart := -DBENCH_SINK=2
$(LOOP_VARIANTS:%=$(B)/obj/fibloop_%.o): $(B)/obj/fibloop_%.o: bench/cortex-m/fibloop.c $(EX)/board.h
	@mkdir -p $(dir $@)
	$(call say,CC,$< [$*])$(ARM_CC) $(CFLAGS) -O1 -fno-inline -finstrument-functions \
	    $(loop_def_$*) -c $< -o $@
$(B)/obj/support/%.o: $(EX)/%.c $(wildcard $(EX)/*.h target/cortex-m/*.h)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(ARM_CC) $(RT_CFLAGS) -DCYGTRACE_CM_CLOCK=3 -c $< -o $@
$(B)/obj/hooks_empty.o: bench/cortex-m/hooks_empty.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(ARM_CC) $(RT_CFLAGS) -c $< -o $@

# One copy of the runtime per variant, each with its own defines.
define rt_variant
$(B)/obj/rt_$(1)/%.o: %.c $(wildcard common/*.h target/core/*.h target/cortex-m/*.h)
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(RT_CFLAGS) $(rt_def_$(1)) -c $$< -o $$@
RT_OBJ_$(1) := $(patsubst %.c,$(B)/obj/rt_$(1)/%.o,$(RT_SRC))
endef
$(foreach v,dwt timer nots,$(eval $(call rt_variant,$(v))))

SUPPORT_OBJ := $(patsubst $(EX)/%.c,$(B)/obj/support/%.o,$(SUPPORT_SRC))
$(B)/fib_plain.elf: $(B)/obj/fib_plain.o $(B)/obj/hooks_empty.o $(SUPPORT_OBJ)
$(B)/fib_empty.elf: $(B)/obj/fib_instr.o $(B)/obj/hooks_empty.o $(SUPPORT_OBJ)
$(B)/fib_dwt.elf: $(B)/obj/fib_instr.o $(RT_OBJ_dwt) $(SUPPORT_OBJ)
$(B)/fib_timer.elf: $(B)/obj/fib_instr.o $(RT_OBJ_timer) $(SUPPORT_OBJ)
$(B)/fib_nots.elf: $(B)/obj/fib_instr.o $(RT_OBJ_nots) $(SUPPORT_OBJ)
$(B)/loop_empty.elf: $(B)/obj/fibloop_empty.o $(B)/obj/hooks_empty.o $(SUPPORT_OBJ)
$(B)/loop_timer.elf: $(B)/obj/fibloop_timer.o $(RT_OBJ_timer) $(SUPPORT_OBJ)
$(B)/loop_null.elf: $(B)/obj/fibloop_null.o $(RT_OBJ_timer) $(SUPPORT_OBJ)
$(B)/loop_uart.elf: $(B)/obj/fibloop_uart.o $(RT_OBJ_timer) $(SUPPORT_OBJ)
$(VARIANTS:%=$(B)/fib_%.elf) $(LOOP_VARIANTS:%=$(B)/loop_%.elf): $(EX)/boards/mps2-an385.ld \
    $(EX)/sections.ld
	$(call say,LD,$@)$(ARM_CC) $(LDFLAGS) -o $@ $(filter %.o,$^)
