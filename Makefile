# SPDX-License-Identifier: MIT
# cygtrace - one Makefile for the host tool, the runtimes, the examples and the tests.
#
#   make            build/cygtrace, build/linux/libcygtrace.{a,so}, examples, firmware cores
#   make demo       install missing packages, build, crash a firmware under QEMU, pull its
#                   trace through the GDB server and print the call tree (demo-linux: Linux;
#                   demo-live: a firmware streaming its calls, watched with cygtrace live;
#                   demo-rtt: the same over RTT, read through QEMU's GDB server;
#                   demo-merge: a firmware and a Linux program it answers, one timeline;
#                   demo-freertos: a FreeRTOS firmware's tasks and interrupts, a tree each;
#                   demo-zephyr: the same for a Zephyr application, built with the module;
#                   demo-riscv: the crash demo on a RISC-V firmware, QEMU's virt board)
#   make check      install missing packages, build, run every test
#   make deps       install missing Debian packages (quick and silent when all are there)
#   make bench      hook cost and decode throughput benchmarks (bench/)
#   make fuzz       libFuzzer on the dump decoder, the stream decoder, the GDB protocol
#                   parser, the wrappers' signature table and the objects cygtrace wrap reads
#                   (FUZZ_SECONDS=N each, default 60; tests/fuzz/fuzz.mk)
#   make stress     the runtime under stress: 100M events from 4 threads and their signal
#                   handlers, kill -9 trials, Cortex-M interrupts and faults (tests/stress/)
#   make install PREFIX=/usr/local [DESTDIR=...]   (make uninstall: the same files gone)
#   make deb        the Debian package: build/deb/cygtrace_VERSION_ARCH.deb (debian/)
#   V=1 shows full commands; O=dir builds out of tree (default: build).
#   SANITIZE=1 builds with ASan and UBSan into build-san (make check SANITIZE=1);
#   VALGRIND=1 makes check run the host tool under valgrind in the end-to-end scripts.

# Sanitized objects never mix with plain ones: SANITIZE=1 has a build directory of its own.
ifeq ($(SANITIZE),1)
O ?= build-san
endif
O ?= build
PREFIX ?= /usr/local
CC ?= gcc
ARM_CC ?= arm-none-eabi-gcc

ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

WARN := -Wall -Wextra -Werror
# Every object's header dependencies, as the compiler saw them (OBJ.d beside OBJ.o, read back by
# the -include lines below); -MP: a header deleted since is no error.
DEPFLAGS := -MMD -MP
CFLAGS ?= -O2 -g
# SANITIZE=1: ASan and UBSan on what BASE_CFLAGS builds (the host tool, the Check runner,
# fake_gdb, noisy); any finding ends the process (-fno-sanitize-recover), so the test fails.
# Not sanitized, on purpose:
# - the Linux runtime (RT_CFLAGS): its hooks run on every call and inside signal handlers, so
#   they stay uninstrumented and async-signal-safe, and cygtrace record preloads
#   libcygtrace.so into programs that carry no sanitizer runtime;
# - the instrumented examples (INSTR): the tests check their deliberate faults (hardcases' NULL
#   store and abort must die by SIGSEGV and SIGABRT with the fault in the trace), which UBSan
#   reports as "store to null pointer" and exits 1, and ASan's own SIGSEGV handler takes over
#   (ASan dies with its report, the runtime, which only replaces default actions, sees nothing);
#   and cygtrace record preloads the plain libcygtrace.so, which ASan refuses to start with
#   ("ASan runtime does not come first in initial library list");
# - the firmware (arm-none-eabi): there is no sanitizer runtime for bare metal.
ifeq ($(SANITIZE),1)
# float-cast-overflow is not in gcc's "undefined": a double too large for uint64_t (a duration
# from a corrupt clock rate, found by tests/fuzz) is caught only with it.
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
CFLAGS += $(SAN_FLAGS) -fno-omit-frame-pointer
LDFLAGS += $(SAN_FLAGS)
endif
BASE_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm)

.PHONY: all demo demo-linux demo-live demo-rtt demo-merge demo-freertos demo-zephyr demo-riscv check deps install clean bench runtime host examples firmware-cores fuzz
all: host runtime examples firmware-cores firmware
# The runtime's sources, per port (CYGTRACE_RT_SRC_core, CYGTRACE_RT_SRC_linux...), for this
# file and the examples'.
include target/sources.mk
include examples/firmware/firmware.mk
include examples/riscv/riscv.mk
include examples/freertos/freertos.mk
include examples/zephyr/zephyr.mk
# The header dependencies of what those three build, all of it under $(O)/firmware.
-include $(shell find $(O)/firmware -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------------------------------------
# common/ and the target runtime

COMMON_SRC := common/crc32.c common/cobs.c common/cyg_spec.c
RT_SRC := $(CYGTRACE_RT_SRC_core) $(CYGTRACE_RT_SRC_linux)
RT_INC := -Icommon -Itarget/core -Itarget/linux
RT_CFLAGS := -std=gnu11 $(WARN) -O2 -g -fPIC -fno-instrument-functions -fvisibility=hidden \
             -fno-stack-protector
RT_OBJ := $(patsubst %.c,$(O)/linux/obj/%.o,$(RT_SRC))

runtime: $(O)/linux/libcygtrace.a $(O)/linux/libcygtrace.so

$(O)/linux/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(RT_CFLAGS) $(DEPFLAGS) $(RT_INC) -c $< -o $@
-include $(RT_OBJ:.o=.d)

$(O)/linux/libcygtrace.a: $(RT_OBJ)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

# setjmp and longjmp (cygtrace_jmp.c): the shared runtime defines them and looks the C library's
# up; the static one defines __wrap_NAME for a program linked with CYGTRACE_JMP_WRAP (also in
# cygtrace-static.pc), since with -static its own NAME would leave the program none to call.
RT_JMP_SO := $(O)/linux/obj/target/linux/cygtrace_jmp-preload.o
CYGTRACE_JMP_WRAP := -Wl,--wrap=_setjmp,--wrap=setjmp,--wrap=__sigsetjmp,--wrap=longjmp \
                     -Wl,--wrap=_longjmp,--wrap=siglongjmp,--wrap=__longjmp_chk
$(RT_JMP_SO): target/linux/cygtrace_jmp.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< [preload])$(CC) $(RT_CFLAGS) $(DEPFLAGS) $(RT_INC) -DCYG_JMP_PRELOAD -c $< -o $@
-include $(RT_JMP_SO:.o=.d)

$(O)/linux/libcygtrace.so: $(filter-out %/cygtrace_jmp.o,$(RT_OBJ)) $(RT_JMP_SO)
	$(call say,LD,$@)$(CC) -shared -Wl,-soname,libcygtrace.so -o $@ $^ -lpthread

# The core must build freestanding for every Cortex-M core, with -Werror.
CORES := cortex-m0:-mcpu=cortex-m0 \
         cortex-m3:-mcpu=cortex-m3 \
         cortex-m4f:-mcpu=cortex-m4@-mfpu=fpv4-sp-d16@-mfloat-abi=hard \
         cortex-m7:-mcpu=cortex-m7@-mfpu=fpv5-d16@-mfloat-abi=hard \
         cortex-m33:-mcpu=cortex-m33
CORE_NAMES := $(foreach c,$(CORES),$(firstword $(subst :, ,$(c))))
core_flags = $(subst @, ,$(word 2,$(subst :, ,$(filter $(1):%,$(CORES)))))
FW_CFLAGS := -std=gnu11 $(WARN) -Os -g -mthumb -ffreestanding -fno-instrument-functions \
             -ffunction-sections -fdata-sections -Icommon -Itarget/core -Itarget/cortex-m
FW_SRC := $(CYGTRACE_RT_SRC_core) $(CYGTRACE_RT_SRC_cortex-m)

ifneq ($(shell command -v $(ARM_CC) 2>/dev/null),)
firmware-cores: $(foreach c,$(CORE_NAMES),$(O)/$(c)/libcygtrace.a)
else
firmware-cores:
	@echo "  SKIP    firmware cores: $(ARM_CC) not found (make deps installs it)"
endif

define core_rule
$(O)/$(1)/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$< [$(1)])$(ARM_CC) $(FW_CFLAGS) $(DEPFLAGS) $(call core_flags,$(1)) \
	    -c $$< -o $$@
$(O)/$(1)/libcygtrace.a: $(patsubst %.c,$(O)/$(1)/obj/%.o,$(FW_SRC))
	$$(call say,AR,$$@)rm -f $$@ && arm-none-eabi-ar rcs $$@ $$^
-include $(patsubst %.c,$(O)/$(1)/obj/%.d,$(FW_SRC))
endef
$(foreach c,$(CORE_NAMES),$(eval $(call core_rule,$(c))))

# ---------------------------------------------------------------------------------------------
# host/: a library of modules (what the tests link) and the cygtrace command

HOST_CMD_SRC := $(wildcard host/cmd/*.c)
HOST_LIB_SRC := $(filter-out $(HOST_CMD_SRC),$(wildcard host/*/*.c)) $(COMMON_SRC)
HOST_INC := -Icommon -Ihost
# The live view needs ncurses(w); without it, view.c builds as a stub that says so.
HOST_CURSES := $(firstword $(foreach p,ncursesw ncurses,$(shell pkg-config --exists $(p) && echo $(p))))
# export --format=sqlite: libsqlite3 (libsqlite3-dev), required as libdwarf is.
HOST_LIBS := -lbfd -ldwarf -lm $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3) $(if $(HOST_CURSES),$(shell pkg-config --libs $(HOST_CURSES)))
$(O)/host/obj/host/output/view.o: BASE_CFLAGS += $(if $(HOST_CURSES),-DVIEW_CURSES $(shell pkg-config --cflags $(HOST_CURSES)))
HOST_LIB_OBJ := $(patsubst %.c,$(O)/host/obj/%.o,$(HOST_LIB_SRC))
HOST_CMD_OBJ := $(patsubst %.c,$(O)/host/obj/%.o,$(HOST_CMD_SRC))

host: $(O)/cygtrace

$(O)/host/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(BASE_CFLAGS) $(DEPFLAGS) -D_GNU_SOURCE \
	    -DCYGTRACE_VERSION='"$(or $(RELEASE),0.1)"' -DCYGTRACE_GIT='"$(VERSION)"' $(HOST_INC) \
	    -c $< -o $@
-include $(HOST_LIB_OBJ:.o=.d) $(HOST_CMD_OBJ:.o=.d)

$(O)/host/libcyghost.a: $(HOST_LIB_OBJ)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

$(O)/cygtrace: $(HOST_CMD_OBJ) $(O)/host/libcyghost.a
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS)

# --version says the release (debian/changelog's, RELEASE below) and, built from a git checkout,
# the commit: "cygtrace 0.1 (git b96971e)". The package's build passes VERSION: its copy of the
# tree has no .git of its own.
VERSION := $(shell git describe --always --dirty 2>/dev/null)

# main.c prints them: rebuilt when they change (the stamp is rewritten only then).
$(O)/host/version.stamp: version-force
	@mkdir -p $(@D)
	@echo '$(RELEASE) $(VERSION)' | cmp -s - $@ || echo '$(RELEASE) $(VERSION)' >$@
$(O)/host/obj/host/cmd/main.o: $(O)/host/version.stamp
.PHONY: version-force
version-force:

# ---------------------------------------------------------------------------------------------
# examples

INSTR := -finstrument-functions -g -O1 -fno-inline -fno-omit-frame-pointer
EXAMPLES := crumble hardcases ticker ping diffdemo
examples: $(foreach e,$(EXAMPLES),$(O)/examples/$(e)) $(O)/examples/diffdemo-b

$(O)/examples/%: examples/%/*.c $(O)/linux/libcygtrace.a
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -Itarget/core -o $@ \
	    $(filter %.c,$^) $(O)/linux/libcygtrace.a -lpthread $(CYGTRACE_JMP_WRAP)

# examples/diffdemo's other build, for cygtrace diff: one function slower, one call path
# changed, one loop iteration more.
$(O)/examples/diffdemo-b: examples/diffdemo/diffdemo.c $(O)/linux/libcygtrace.a
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -Itarget/core -DSLOWER -DDETOUR -DEXTRA \
	    -o $@ $< $(O)/linux/libcygtrace.a -lpthread $(CYGTRACE_JMP_WRAP)

# examples/libs: a PIE program, the shared library it links and a plugin it dlopens, all
# instrumented and none linked with the runtime: cygtrace record preloads libcygtrace.so.
LIBS_EX := $(O)/examples/libs
examples: $(LIBS_EX)/libsdemo
$(LIBS_EX)/libshape.so: examples/libs/shape.c
$(LIBS_EX)/plugin.so: examples/libs/plugin.c
$(LIBS_EX)/libshape.so $(LIBS_EX)/plugin.so:
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -fPIC -shared -o $@ $<
$(LIBS_EX)/libsdemo: examples/libs/libsdemo.c $(LIBS_EX)/libshape.so $(LIBS_EX)/plugin.so
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -fPIE -pie -o $@ $< -L$(LIBS_EX) \
	    -lshape -Wl,-rpath,'$$ORIGIN'
# The same linked with libcygtrace.a, exporting the hooks to its libraries: no preload needed.
examples: $(LIBS_EX)/libsdemo-static
$(LIBS_EX)/libsdemo-static: examples/libs/libsdemo.c $(LIBS_EX)/libshape.so $(LIBS_EX)/plugin.so \
                            $(O)/linux/libcygtrace.a
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -Itarget/core -fPIE -pie -rdynamic -o $@ \
	    $< -L$(LIBS_EX) -lshape -Wl,-rpath,'$$ORIGIN' $(O)/linux/libcygtrace.a -lpthread

# examples/wrap: calls into precompiled code traced through GNU ld's --wrap. A vendor's library
# (vend.c: -g, not instrumented) in libvend.a; the wrappers `cygtrace wrap` writes for it from
# its DWARF (vend/) and for the C library functions of libc.sig (libc/), both generated by the
# host tool of this build; wrapdemo, an instrumented program linked with them and the runtime.
# The same library for Cortex-M3, with its wrappers (cm3/), for firmware to link.
WRAP_EX := $(O)/examples/wrap
WRAP_GEN_CFLAGS := -std=gnu11 $(WARN) -O2 -g -fno-instrument-functions -Itarget/core -Icommon
examples: $(WRAP_EX)/wrapdemo
$(WRAP_EX)/obj/vend.o: examples/wrap/vend.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) -std=gnu11 $(WARN) $(DEPFLAGS) -g -O1 -fno-instrument-functions \
	    -c $< -o $@
$(WRAP_EX)/libvend.a: $(WRAP_EX)/obj/vend.o
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^
$(WRAP_EX)/vend/cygtrace_wrap.c $(WRAP_EX)/vend/cygtrace_wrap.flags &: $(WRAP_EX)/libvend.a \
                                                                      $(O)/cygtrace
	$(call say,WRAP,$<)$(O)/cygtrace wrap -q -o $(WRAP_EX)/vend $<
$(WRAP_EX)/libc/cygtrace_wrap.c $(WRAP_EX)/libc/cygtrace_wrap.flags &: examples/wrap/libc.sig \
                                                                      $(O)/cygtrace
	$(call say,WRAP,$<)$(O)/cygtrace wrap -q -o $(WRAP_EX)/libc --signatures=$<
$(WRAP_EX)/vend/cygtrace_wrap.o: $(WRAP_EX)/vend/cygtrace_wrap.c
	$(call say,CC,$<)$(CC) $(WRAP_GEN_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(WRAP_EX)/libc/cygtrace_wrap.o: $(WRAP_EX)/libc/cygtrace_wrap.c
	$(call say,CC,$<)$(CC) $(WRAP_GEN_CFLAGS) $(DEPFLAGS) -c $< -o $@
# The wrappers' objects, then the library their __real_NAME calls resolve to.
WRAP_DEMO_IN := $(WRAP_EX)/vend/cygtrace_wrap.o $(WRAP_EX)/libc/cygtrace_wrap.o \
                $(WRAP_EX)/libvend.a $(O)/linux/libcygtrace.a
$(WRAP_EX)/wrapdemo: examples/wrap/wrapdemo.c examples/wrap/vend.h $(WRAP_DEMO_IN) \
                     $(WRAP_EX)/vend/cygtrace_wrap.flags $(WRAP_EX)/libc/cygtrace_wrap.flags
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -Iexamples/wrap -o $@ $< $(WRAP_DEMO_IN) \
	    @$(WRAP_EX)/vend/cygtrace_wrap.flags @$(WRAP_EX)/libc/cygtrace_wrap.flags -lpthread

WRAP_CM3 := $(WRAP_EX)/cm3
ifneq ($(shell command -v $(ARM_CC) 2>/dev/null),)
examples: $(WRAP_CM3)/libvend.a $(WRAP_CM3)/cygtrace_wrap.o
endif
$(WRAP_CM3)/obj/vend.o: examples/wrap/vend.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< [cortex-m3])$(ARM_CC) -mcpu=cortex-m3 -mthumb -std=gnu11 $(WARN) -g -Os \
	    -ffreestanding -ffunction-sections -fdata-sections -fno-instrument-functions $(DEPFLAGS) \
	    -c $< -o $@
$(WRAP_CM3)/libvend.a: $(WRAP_CM3)/obj/vend.o
	$(call say,AR,$@)rm -f $@ && arm-none-eabi-ar rcs $@ $^
$(WRAP_CM3)/cygtrace_wrap.c $(WRAP_CM3)/cygtrace_wrap.flags &: $(WRAP_CM3)/libvend.a $(O)/cygtrace
	$(call say,WRAP,$<)$(O)/cygtrace wrap -q -o $(WRAP_CM3) $<
$(WRAP_CM3)/cygtrace_wrap.o: $(WRAP_CM3)/cygtrace_wrap.c
	$(call say,CC,$< [cortex-m3])$(ARM_CC) $(FW_CFLAGS) $(DEPFLAGS) -Os -mcpu=cortex-m3 -c $< -o $@
-include $(addsuffix .d,$(basename $(WRAP_EX)/obj/vend.o $(WRAP_EX)/vend/cygtrace_wrap.o \
    $(WRAP_EX)/libc/cygtrace_wrap.o $(WRAP_CM3)/obj/vend.o $(WRAP_CM3)/cygtrace_wrap.o))

# tests/harm.c: a program that tries to get hurt by the runtime it carries (linux_safety.sh),
# linked with libcygtrace.a, and without it for cygtrace record's preload.
examples: $(O)/tests/harm $(O)/tests/harm-dyn $(O)/tests/ring_writer
$(O)/tests/harm: tests/harm.c $(O)/linux/libcygtrace.a
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -o $@ $< $(O)/linux/libcygtrace.a -lpthread
# tests/ring_writer: a program linked with the runtime that records what check_follow.c says.
$(O)/tests/ring_writer: tests/ring_writer.c tests/ring_writer.h $(O)/linux/libcygtrace.a
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) -O2 -Itarget/core -Itests -o $@ $< \
	    $(O)/linux/libcygtrace.a -lpthread
# tests/jumps.c: longjmps (longjmp_linux.sh), linked with libcygtrace.a (and its jump wrappers),
# and without it built
# with _FORTIFY_SOURCE (longjmp is __longjmp_chk there) for cygtrace record's preload.
examples: $(O)/tests/jumps $(O)/tests/jumps-dyn
$(O)/tests/jumps: tests/jumps.c $(O)/linux/libcygtrace.a
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -o $@ $< $(O)/linux/libcygtrace.a -lpthread \
	    $(CYGTRACE_JMP_WRAP)
$(O)/tests/jumps-dyn: tests/jumps.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -D_FORTIFY_SOURCE=2 -o $@ $< -lpthread
$(O)/tests/harm-dyn: tests/harm.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -o $@ $<

# ---------------------------------------------------------------------------------------------
# tests: one Check runner with every module's suite, then the end-to-end scripts

TEST_SRC := $(wildcard tests/check_*.c) tests/ringgen.c tests/testdir.c tests/fakegdb.c
TEST_OBJ := $(patsubst %.c,$(O)/tests/obj/%.o,$(TEST_SRC))

$(O)/tests/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(BASE_CFLAGS) $(DEPFLAGS) -D_GNU_SOURCE $(HOST_INC) -Itarget/core \
	    -Itests -c $< -o $@
-include $(TEST_OBJ:.o=.d)

# The runner links the real Linux runtime too: the round-trip tests drive its hooks directly.
$(O)/tests/check_cygtrace: $(TEST_OBJ) $(O)/host/libcyghost.a $(O)/linux/libcygtrace.a
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS) $(CHECK_LIBS) -pthread

-include tests/fixtures.mk
-include tests/pull.mk
-include tests/stream.mk
include tests/stress/stress.mk
include tests/fuzz/fuzz.mk
include docs/man/man.mk

# check sets a fresh machine up (the packages, as make deps), but where what the build and the
# tests use is there, however installed, it needs neither apt nor root (tools/deps.sh check).
check:
	$(Q)tools/deps.sh check
	$(Q)$(MAKE) --no-print-directory all $(O)/tests/check_cygtrace sym-fixtures pull-fixtures stream-fixtures
	$(Q)VALGRIND=$(VALGRIND) tests/run.sh $(O)

# ---------------------------------------------------------------------------------------------

deps:
	$(Q)tools/deps.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh $(O)

demo-linux: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh $(O) linux

demo-live: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh $(O) live

demo-rtt: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh $(O) rtt

demo-merge: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh $(O) merge

demo-riscv: deps
	$(Q)$(MAKE) --no-print-directory host firmware-riscv
	$(Q)tools/demo.sh $(O) riscv

demo-freertos: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh $(O) freertos

demo-zephyr: deps
	$(Q)$(MAKE) --no-print-directory host zephyr-firmware
	$(Q)tools/demo.sh $(O) zephyr

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory -f bench/bench.mk O=$(O)
	$(Q)bench/cortex-m/run.sh $(O)
	$(Q)bench/cortex-m/baud.sh $(O)

# ---------------------------------------------------------------------------------------------
# make install PREFIX=... DESTDIR=..., make uninstall (the same PREFIX and DESTDIR), make deb.
# INSTALL_LIST is the one list of what goes where, for both and for the Debian package (whose
# debian/rules runs make install PREFIX=/usr). Under PREFIX:
#   bin/cygtrace                         the host tool
#   lib/libcygtrace.a, lib/libcygtrace.so
#                                        the Linux runtime. lib/, not a multiarch directory:
#                                        cygtrace record preloads ../lib/libcygtrace.so from the
#                                        tool's own directory. The soname is unversioned on
#                                        purpose: the interface is the compiler's hooks (and
#                                        cygtrace.h), and record preloads it by that name
#   lib/pkgconfig/cygtrace.pc            shared: -I.../include/cygtrace -lcygtrace
#   lib/pkgconfig/cygtrace-static.pc     static: -I.../include/cygtrace -l:libcygtrace.a -lpthread
#                                        and the --wrap options of setjmp and longjmp
#                                        and the --wrap options of setjmp and longjmp
#   include/cygtrace/                    cygtrace.h, cygtrace_wrap.h, cyg_format.h, cygtrace_cm.h,
#                                        cygtrace_config.h (which cygtrace_cm.h includes),
#                                        cygtrace_rtt.h
#   lib/cygtrace/CORE/libcygtrace.a      the Cortex-M runtimes, default settings (CORE_NAMES;
#                                        when $(ARM_CC) is there)
#   lib/cmake/cygtrace/                  cygtrace-config.cmake (+ -version): find_package(cygtrace)
#   share/cygtrace/                      cygtrace.mk, cygtrace.cmake, cygtrace.gdb, and the
#                                        runtime's sources (common/, target/) they build from,
#                                        with their list (target/sources.mk); the Zephyr module
#                                        (target/zephyr: ZEPHYR_EXTRA_MODULES names it there)
#   share/man/man1, man3                 the man pages, once docs/man/man.mk gives them
#   share/bash-completion/completions/cygtrace   tools/cygtrace.bash, if there
# Each entry reads DEST|MODE|SOURCE, DEST relative to PREFIX.

RELEASE := $(shell sed -n '1s/^[^ ]* (\([^)-]*\).*/\1/p' debian/changelog 2>/dev/null)
inst = $(foreach f,$(3),$(1)/$(notdir $(f))|$(2)|$(f))
inst_tree = $(foreach f,$(3),$(1)/$(f)|$(2)|$(f))
HAVE_ARM_CC := $(if $(shell command -v $(ARM_CC) 2>/dev/null),yes)
INSTALL_HEADERS := target/core/cygtrace.h target/core/cygtrace_wrap.h common/cyg_format.h \
                   target/cortex-m/cygtrace_cm.h target/core/cygtrace_config.h \
                   target/core/cygtrace_rtt.h
INSTALL_LIST = \
    $(call inst,bin,755,$(O)/cygtrace) \
    $(call inst,lib,644,$(O)/linux/libcygtrace.a $(O)/linux/libcygtrace.so) \
    $(call inst,lib/pkgconfig,644,$(O)/pkg/cygtrace.pc $(O)/pkg/cygtrace-static.pc) \
    $(call inst,include/cygtrace,644,$(INSTALL_HEADERS)) \
    $(if $(HAVE_ARM_CC),$(foreach c,$(CORE_NAMES),$(call inst,lib/cygtrace/$(c),644,$(O)/$(c)/libcygtrace.a))) \
    $(call inst,lib/cmake/cygtrace,644,tools/cygtrace-config.cmake \
                                       $(O)/pkg/cygtrace-config-version.cmake) \
    $(call inst,share/cygtrace,644,tools/cygtrace.gdb tools/cygtrace.mk tools/cygtrace.cmake) \
    $(call inst_tree,share/cygtrace,644,$(wildcard common/*.[ch] target/*/*.[ch] \
                                        target/sources.mk target/rtos/*/*.[ch] \
                                        target/rtos/*/*.mk target/zephyr/include/*.h \
                                        target/zephyr/zephyr/*)) \
    $(call inst,share/man/man1,644,$(MAN1_PAGES)) \
    $(call inst,share/man/man3,644,$(MAN3_PAGES)) \
    $(call inst,share/bash-completion/completions,644,$(wildcard tools/cygtrace.bash))
inst_dest = $(DESTDIR)$(PREFIX)/$(word 1,$(subst |, ,$(1)))
inst_mode = $(word 2,$(subst |, ,$(1)))
inst_src = $(word 3,$(subst |, ,$(1)))
# The completion is named after the command.
inst_name = $(patsubst %/cygtrace.bash,%/cygtrace,$(1))
define newline


endef

.PHONY: uninstall deb install-gen-force
# PREFIX and the version go into these: written at every install (cheap), as PREFIX may change.
$(O)/pkg/%: tools/%.in install-gen-force
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(or $(RELEASE),0.1)|g' $< >$@
install-gen-force:

# The folders install puts files in; those of them (and of their parents) that were not there
# before are written to INSTALL_DIRS_FILE, one a line (a later install adds to the list), for
# uninstall to remove when they are empty again. Not with DESTDIR: a package's files are staged
# there, and its package manager owns the folders.
INSTALL_DIRS = $(sort $(foreach e,$(INSTALL_LIST),$(patsubst %/,%,$(dir $(call inst_name,$(call inst_dest,$(e)))))))
INSTALL_DIRS_FILE = $(DESTDIR)$(PREFIX)/share/cygtrace/installed-dirs

install: $(foreach e,$(INSTALL_LIST),$(call inst_src,$(e)))
	$(Q)new=$$(for d in $(INSTALL_DIRS); do \
	    while [ ! -d "$$d" ] && [ "$$d" != / ] && [ "$$d" != . ]; do echo "$$d"; d=$$(dirname "$$d"); done; \
	done); \
	$(foreach e,$(INSTALL_LIST),install -D -m $(call inst_mode,$(e)) $(call inst_src,$(e)) \
	    $(call inst_name,$(call inst_dest,$(e))) &&) \
	if [ -z "$(DESTDIR)" ]; then \
	    { [ -f "$(INSTALL_DIRS_FILE)" ] && cat "$(INSTALL_DIRS_FILE)"; printf '%s\n' $$new; } | \
	        sort -u | grep . >"$(INSTALL_DIRS_FILE).new"; \
	    mv "$(INSTALL_DIRS_FILE).new" "$(INSTALL_DIRS_FILE)"; \
	fi
	@echo "  INSTALL $(DESTDIR)$(PREFIX) ($(words $(INSTALL_LIST)) files)"

# What install put there, then the folders it made, deepest first, each only if empty (never
# a folder that was there before it, such as /usr/local/bin).
uninstall:
	$(Q)dirs=$$(cat "$(INSTALL_DIRS_FILE)" 2>/dev/null | sort -r); \
	rm -f $(foreach e,$(INSTALL_LIST),$(call inst_name,$(call inst_dest,$(e)))) && \
	rm -rf $(DESTDIR)$(PREFIX)/share/cygtrace $(DESTDIR)$(PREFIX)/lib/cygtrace \
	    $(DESTDIR)$(PREFIX)/lib/cmake/cygtrace $(DESTDIR)$(PREFIX)/include/cygtrace && \
	for d in $$dirs; do [ -d "$$d" ] && rmdir --ignore-fail-on-non-empty "$$d"; done; true
	@echo "  UNINST  $(DESTDIR)$(PREFIX)"

# make deb: the Debian package, built by dpkg-buildpackage in a copy of the tree
# ($(DEB_DIR)/cygtrace-VERSION/, so that nothing is written beside the tree), lands in
# $(DEB_DIR)/cygtrace_VERSION_ARCH.deb with its .buildinfo, .changes and -dbgsym .ddeb.
DEB_DIR := $(O)/deb
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_FILE = $(DEB_DIR)/cygtrace_$(RELEASE)_$(DEB_ARCH).deb
# make exports its command line's variables (O=, PREFIX=, CFLAGS=...) to recipes: the package's
# own build must not see them (its make clean would remove $(O) itself).
DEB_UNSET = $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),-u $(v)))
DEB_SRC := Makefile README.md common host target tools debian docs examples tests bench
deb: deps
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/cygtrace-$(RELEASE)
	$(Q)tar -cf - --exclude=tests/tmp $(DEB_SRC) | tar -xf - -C $(DEB_DIR)/cygtrace-$(RELEASE)
	$(call say,DPKG,$(DEB_DIR)/build.log)cd $(DEB_DIR)/cygtrace-$(RELEASE) && \
	    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u O $(DEB_UNSET) DEB_CYGTRACE_VERSION=$(VERSION) \
	    DEB_BUILD_OPTIONS="nocheck $(DEB_BUILD_OPTIONS)" \
	    dpkg-buildpackage -us -uc -b -jauto >../build.log 2>&1 || \
	    { tail -n 30 ../build.log; echo "cygtrace: make deb: dpkg-buildpackage failed; see $(DEB_DIR)/build.log"; exit 1; }
	$(Q)rm -rf $(DEB_DIR)/cygtrace-$(RELEASE)
	@echo "  DEB     $(DEB_FILE)"

clean:
	rm -rf $(O)
