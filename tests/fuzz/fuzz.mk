# SPDX-License-Identifier: GPL-3.0-or-later
# tests/fuzz/fuzz.mk - libFuzzer targets for the decoders, the GDB remote protocol client and
# cygtrace wrap's inputs, their seed corpus, and the plain-compiler replay of the regression
# inputs.
#
# Included by the top Makefile.
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="dump stream rsp wsig wrap"] [FUZZ_PARALLEL=1] [FUZZ_RUNS=N]
#       builds each target with clang (-fsanitize=fuzzer,address,undefined) into $(O)/fuzz/,
#       makes the seed corpus, runs each target FUZZ_SECONDS (FUZZ_PARALLEL of them at once, 2
#       at most), keeps the corpus it grows in $(O)/fuzz/corpus/TARGET/, prints executions,
#       exec/s, coverage and findings per target, and fails on any crash, hang or leak.
#       FUZZ_RUNS=N stops a target after N executions (FUZZ_SECONDS still bounds it).
#   The normal build (all) makes $(O)/tests/fuzz_replay_TARGET (the same targets, the normal
#   compiler, a main() that feeds files) and the seeds; tests/e2e/fuzz_regress.sh replays
#   tests/fuzz/regress/TARGET/ and the seeds through them.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_PARALLEL ?= 1
FUZZ_TARGETS ?= dump stream rsp wsig wrap
FUZZ_DIR := $(O)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=gnu11 $(WARN) -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE \
               -DCYGTRACE_VERSION='"fuzz"' $(HOST_INC) -Itests -Itests/fuzz -Itarget/core
FUZZ_HOST_OBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(HOST_LIB_SRC))
FUZZ_SEEDS := $(FUZZ_DIR)/seeds
# The Cortex-M3 build of the wrap example's library, a seed of fuzz_wrap where its compiler is.
FUZZ_WRAP_CM3 := $(if $(shell command -v $(ARM_CC) 2>/dev/null),$(O)/examples/wrap/cm3/obj/vend.o)

.PHONY: fuzz fuzz-build fuzz-seeds fuzz-replay

# The library as the fuzzer sees it: instrumented for coverage and sanitizers, no main.
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CLANG,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) \
	    -c $< -o $@
-include $(shell find $(FUZZ_DIR)/obj $(O)/tests/obj/tests/fuzz -name '*.d' 2>/dev/null)
# No rule makes a dependency file: else make, remaking what it includes, would try its built-in
# %: %.o on it (and build fibloop_fp_drain.d.o through fibloop_%.o, then link it).
%.d: ;

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o $(FUZZ_DIR)/obj/tests/fuzz/fuzzsink.o \
                    $(FUZZ_HOST_OBJ)
	$(call say,LD,$@)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(HOST_LIBS) -pthread

fuzz-build: $(foreach t,$(FUZZ_TARGETS),$(FUZZ_DIR)/fuzz_$(t))

# ---- seeds: made by the real runtime, ringgen and rsp_frame (seedgen.c), and real rings of
# the crumble and hardcases examples; each file starts with the target's mode bytes.
$(FUZZ_DIR)/seedgen: tests/fuzz/seedgen.c $(O)/tests/obj/tests/ringgen.o $(O)/host/libcyghost.a \
                     $(O)/linux/libcygtrace.a
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(BASE_CFLAGS) $(LDFLAGS) -D_GNU_SOURCE $(HOST_INC) -Itests \
	    -Itarget/core -o $@ $^ $(HOST_LIBS) -lpthread

$(FUZZ_SEEDS)/.done: $(FUZZ_DIR)/seedgen $(O)/examples/crumble $(O)/examples/hardcases \
                     $(O)/examples/wrap/wrapdemo $(FUZZ_WRAP_CM3) tests/fuzz/fuzz.mk
	$(Q)rm -rf $(FUZZ_SEEDS) && mkdir -p $(FUZZ_SEEDS)/dump $(FUZZ_SEEDS)/stream $(FUZZ_SEEDS)/rsp \
	    $(FUZZ_SEEDS)/wsig $(FUZZ_SEEDS)/wrap
	$(call say,GEN,$(FUZZ_SEEDS))CYGTRACE_OFF=1 $(FUZZ_DIR)/seedgen $(FUZZ_SEEDS) >/dev/null
	$(Q)for e in crumble hardcases; do \
	    CYGTRACE_OUT=$(FUZZ_SEEDS)/$$e.ring CYGTRACE_SIZE=4K timeout 10 $(O)/examples/$$e \
	        >/dev/null 2>&1; \
	    { printf '\000\000'; cat $(FUZZ_SEEDS)/$$e.ring; } >$(FUZZ_SEEDS)/dump/example-$$e || exit 1; \
	    rm -f $(FUZZ_SEEDS)/$$e.ring $(FUZZ_SEEDS)/$$e.ring.maps; \
	done
	$(Q)objcopy --dump-section .cygtrace_wrap=$(FUZZ_SEEDS)/wsig/wrapdemo-table \
	    $(O)/examples/wrap/wrapdemo $(FUZZ_SEEDS)/wsig/.scratch && rm -f $(FUZZ_SEEDS)/wsig/.scratch
	$(Q){ cat $(FUZZ_SEEDS)/wsig/wrapdemo-table; printf '\000\200\100\000\002\000\000\000\000\000'; \
	    printf '\321\160\000temper'; } >$(FUZZ_SEEDS)/wsig/wrapdemo-values
	$(Q)cp $(O)/examples/wrap/obj/vend.o $(FUZZ_SEEDS)/wrap/vend-x86_64.o && \
	    cp $(O)/examples/wrap/libvend.a $(FUZZ_SEEDS)/wrap/libvend-x86_64.a && \
	    $(if $(FUZZ_WRAP_CM3),cp $(FUZZ_WRAP_CM3) $(FUZZ_SEEDS)/wrap/vend-cortex-m3.o &&) \
	    $(CC) -std=gnu11 -g -gdwarf-4 -O1 -c examples/wrap/vend.c \
	        -o $(FUZZ_SEEDS)/wrap/vend-x86_64-dwarf4.o && \
	    $(CC) -std=gnu11 -g -O1 -shared -fPIC -nostdlib -ffreestanding -Wl,--build-id=none \
	        -Wl,-z,noseparate-code -o $(FUZZ_SEEDS)/wrap/libvend-x86_64.so examples/wrap/vend.c
	$(Q)touch $@

fuzz-seeds: $(FUZZ_SEEDS)/.done

fuzz: fuzz-build fuzz-seeds
	$(Q)FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh $(O) $(FUZZ_SECONDS) $(FUZZ_PARALLEL) $(FUZZ_TARGETS)

# ---- the replay drivers: the normal compiler and flags (SANITIZE=1 applies), no libFuzzer

$(O)/tests/fuzz_replay_%: $(O)/tests/obj/tests/fuzz/fuzz_%.o $(O)/tests/obj/tests/fuzz/fuzzsink.o \
                          $(O)/tests/obj/tests/fuzz/replay.o $(O)/host/libcyghost.a
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS) -pthread

fuzz-replay: $(foreach t,dump stream rsp wsig wrap,$(O)/tests/fuzz_replay_$(t)) fuzz-seeds

all: fuzz-replay

# Objects that pattern rules chain through: kept, so that a rebuild is incremental.
.SECONDARY: $(FUZZ_HOST_OBJ) $(foreach f,$(addprefix _,$(FUZZ_TARGETS)) sink,$(FUZZ_DIR)/obj/tests/fuzz/fuzz$(f).o) \
            $(foreach f,fuzz_dump fuzz_stream fuzz_rsp fuzz_wsig fuzz_wrap fuzzsink replay,$(O)/tests/obj/tests/fuzz/$(f).o)
