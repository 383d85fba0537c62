# SPDX-License-Identifier: MIT
# tools/cygtrace.mk - cygtrace in a firmware built with make. In your Makefile:
#
#   CYGTRACE_DIR := path/to/cygtrace   # the source tree, or PREFIX/share/cygtrace once installed
#   CYGTRACE_CPU := -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard   # your CPU flags
#   CYGTRACE_DEFINES := -DCYGTRACE_CM_CLOCK=3            # optional: runtime settings
#   CYGTRACE_EXCLUDE_FILES := src/fast_isr.c drivers/%.c  # optional: not instrumented
#   CYGTRACE_EXCLUDE_FUNCTIONS := SysTick_Handler crc_   # optional: not instrumented
#   include $(CYGTRACE_DIR)/tools/cygtrace.mk          # installed: $(CYGTRACE_DIR)/cygtrace.mk
#
#   %.o: %.c
#   	$(CC) $(CFLAGS) $(CYGTRACE_CFLAGS) -c $< -o $@       # instruments, unless excluded
#   app.elf: $(OBJS) $(CYGTRACE_LIB)
#   	$(CC) $(LDFLAGS) $(CYGTRACE_LDFLAGS) -o $@ $(OBJS) $(CYGTRACE_LIB)
#
# CYGTRACE_CFLAGS looks at $< to pick the flags of each file, so it belongs in the recipe (or in
# a recursively expanded CFLAGS), not in a := variable. The runtime itself is built once, with
# your compiler and CPU flags and without instrumentation, into $(CYGTRACE_BUILD)/libcygtrace.a.
# Your startup code calls cygtrace_cm_init() (cygtrace_cm.h); your linker script keeps
# .noinit out of the load segments and defines __cygtrace_build_id (examples/firmware/sections.ld
# shows both).
#
# CYGTRACE_EXCLUDE_FILES are make patterns matched against the source path as your rule names
# it. CYGTRACE_EXCLUDE_FUNCTIONS are names (or parts of names: GCC matches substrings) for
# -finstrument-functions-exclude-function-list.
#
# A precompiled library (a vendor's, without -finstrument-functions) is traced through
# wrappers that the host tool writes from its DWARF, one line a library (after the include):
#
#   $(call cygtrace_wrap,vendor/libdrv.a,build/wrap/drv)                   # all its functions
#   $(call cygtrace_wrap,vendor/libdrv.a,build/wrap/drv,--functions=drv_* --signatures=drv.sig)
#
#   app.elf: $(OBJS) $(CYGTRACE_WRAP_OBJS) vendor/libdrv.a $(CYGTRACE_LIB)
#   	$(CC) $(LDFLAGS) $(CYGTRACE_LDFLAGS) -o $@ $(OBJS) $(CYGTRACE_WRAP_OBJS) vendor/libdrv.a \
#   	    $(CYGTRACE_LIB)
#
# Each call writes the rules that run "$(CYGTRACE_TOOL) wrap -o DIR OPTIONS LIB" (again when the
# library changes) and build DIR/cygtrace_wrap.o like the runtime; it adds that object to
# CYGTRACE_WRAP_OBJS and @DIR/cygtrace_wrap.flags (the -Wl,--wrap=NAME of each function) to
# CYGTRACE_LDFLAGS. The wrappers' objects come before the library in the link, the runtime
# after. CYGTRACE_TOOL is the cygtrace binary (default: CYGTRACE_DIR/build/cygtrace in the
# source tree, PREFIX/bin/cygtrace once installed, else cygtrace from PATH). A signatures file
# named in OPTIONS is not a prerequisite: touch the library when it changes. A comma would end
# OPTIONS: give --functions once a pattern (--functions=drv_* --functions=spi_*).

CYGTRACE_DIR ?= $(error CYGTRACE_DIR: set it to the cygtrace source tree)
CYGTRACE_CC ?= $(CC)
CYGTRACE_AR ?= $(if $(filter %gcc,$(CYGTRACE_CC)),$(patsubst %gcc,%ar,$(CYGTRACE_CC)),ar)
CYGTRACE_PORT ?= cortex-m
CYGTRACE_BUILD ?= build/cygtrace
CYGTRACE_CPU ?=
CYGTRACE_DEFINES ?=
CYGTRACE_EXCLUDE_FILES ?=
CYGTRACE_EXCLUDE_FUNCTIONS ?=
CYGTRACE_TOOL ?= $(firstword $(wildcard $(CYGTRACE_DIR)/build/cygtrace \
                                         $(CYGTRACE_DIR)/../../bin/cygtrace) cygtrace)
CYGTRACE_WRAP_OBJS :=

cygtrace_comma := ,
cygtrace_empty :=
cygtrace_space := $(cygtrace_empty) $(cygtrace_empty)
cygtrace_fnlist := $(subst $(cygtrace_space),$(cygtrace_comma),$(strip \
    $(subst $(cygtrace_comma),$(cygtrace_space),$(CYGTRACE_EXCLUDE_FUNCTIONS))))

CYGTRACE_INCLUDES := -I$(CYGTRACE_DIR)/target/core -I$(CYGTRACE_DIR)/target/$(CYGTRACE_PORT) \
                     -I$(CYGTRACE_DIR)/common
CYGTRACE_INSTR := -finstrument-functions \
    $(if $(cygtrace_fnlist),-finstrument-functions-exclude-function-list=$(cygtrace_fnlist))
# Recursive on purpose: $< is the file being compiled.
CYGTRACE_CFLAGS = $(CYGTRACE_INCLUDES) $(CYGTRACE_DEFINES) \
    $(if $(filter $(CYGTRACE_EXCLUDE_FILES),$<),-fno-instrument-functions,$(CYGTRACE_INSTR))
# The runtime reads the build-id note at boot; the host checks it against the ELF.
CYGTRACE_LDFLAGS := -Wl,--build-id
CYGTRACE_LIB := $(CYGTRACE_BUILD)/libcygtrace.a

# The runtime's sources, the port's among them: target/sources.mk, the one list that every
# build of the runtime reads. The stream drain, COBS and the RTT sink are in it: a firmware that
# never calls cygtrace_drain() links none of it (--gc-sections).
include $(CYGTRACE_DIR)/target/sources.mk
cygtrace_src := $(addprefix $(CYGTRACE_DIR)/,$(CYGTRACE_RT_SRC_core) \
    $(or $(CYGTRACE_RT_SRC_$(CYGTRACE_PORT)),$(error CYGTRACE_PORT: no port $(CYGTRACE_PORT))))
cygtrace_obj := $(addprefix $(CYGTRACE_BUILD)/,$(notdir $(cygtrace_src:.c=.o)))
# Each object's headers, as the compiler saw them: OBJ.d beside OBJ.o, read back at the end.
cygtrace_depflags := -MMD -MP
# -Os, as the top Makefile builds the Cortex-M runtime (bench/cortex-m measures it that way).
CYGTRACE_RT_CFLAGS ?= -std=gnu11 -Os -g -ffreestanding -ffunction-sections -fdata-sections

# Included before your first rule, this file must not become the default goal.
cygtrace_goal := $(.DEFAULT_GOAL)

# cygtrace_wrap LIB,DIR[,OPTIONS]: the rules of one wrapped library (see above). Both files come
# from one run: a grouped target where make has them (4.3), else the flags follow the C file.
# Called before your first rule, it must not make its own the default goal either.
define cygtrace_wrap
$(eval cygtrace_goal := $(.DEFAULT_GOAL))
$(eval $(call cygtrace_wrap_rules,$(strip $(1)),$(patsubst %/,%,$(strip $(2))),$(3)))
$(eval .DEFAULT_GOAL := $(cygtrace_goal))
endef
define cygtrace_wrap_rules
ifneq ($(filter grouped-target,$(.FEATURES)),)
$(2)/cygtrace_wrap.c $(2)/cygtrace_wrap.flags &: $(1)
	@mkdir -p $(2)
	$$(CYGTRACE_TOOL) wrap -o $(2) $(3) $(1)
else
$(2)/cygtrace_wrap.c: $(1)
	@mkdir -p $(2)
	$$(CYGTRACE_TOOL) wrap -o $(2) $(3) $(1)
$(2)/cygtrace_wrap.flags: $(2)/cygtrace_wrap.c ;
endif
$(2)/cygtrace_wrap.o: $(2)/cygtrace_wrap.c $(2)/cygtrace_wrap.flags
	$$(CYGTRACE_CC) $$(CYGTRACE_CPU) $$(CYGTRACE_RT_CFLAGS) $$(CYGTRACE_DEFINES) \
	    $$(CYGTRACE_INCLUDES) $(cygtrace_depflags) -fno-instrument-functions -c $$< -o $$@
-include $(2)/cygtrace_wrap.d
CYGTRACE_WRAP_OBJS += $(2)/cygtrace_wrap.o
CYGTRACE_LDFLAGS += @$(2)/cygtrace_wrap.flags
endef

$(CYGTRACE_LIB): $(cygtrace_obj)
	$(CYGTRACE_AR) rcs $@ $^

define cygtrace_obj_rule
$(CYGTRACE_BUILD)/$(notdir $(1:.c=.o)): $(1)
	@mkdir -p $(CYGTRACE_BUILD)
	$$(CYGTRACE_CC) $$(CYGTRACE_CPU) $$(CYGTRACE_RT_CFLAGS) $$(CYGTRACE_DEFINES) \
	    $$(CYGTRACE_INCLUDES) $(cygtrace_depflags) -fno-instrument-functions -c $$< -o $$@
endef
$(foreach s,$(cygtrace_src),$(eval $(call cygtrace_obj_rule,$(s))))
-include $(cygtrace_obj:.o=.d)

.DEFAULT_GOAL := $(cygtrace_goal)
