# SPDX-License-Identifier: GPL-3.0-or-later
# tests/stress/stress.mk - the runtime under stress on Linux: 4 threads and their signal
# handlers into one small ring while a reader follows it, and kill -9 trials.
#
#   make stress        the full runs: 100 million events, 200 kill -9 trials (a few minutes)
#   make check         runs tests/e2e/stress_linux.sh and crash_linux.sh reduced (~30 s)
#
# Included by the top Makefile; STRESS_EVENTS, STRESS_RING, STRESS_TRIALS and STRESS_SEED
# override the full runs' defaults.

STRESS_EVENTS ?= 100000000
STRESS_RING ?= 64K
STRESS_TRIALS ?= 200
STRESS_SEED ?=
SB := $(O)/tests/stress

.PHONY: stress stress-bins
stress-bins: $(SB)/stress_linux $(SB)/stress_check | deps
check: stress-bins

# The workload: instrumented like the examples; -rdynamic so that it finds its own hooks'
# extent (dladdr1) and counts the signals that came in the middle of one.
$(SB)/stress_linux: tests/stress/stress_linux.c tests/stress/stress_pattern.h \
                    $(O)/linux/libcygtrace.a
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -std=gnu11 $(WARN) $(INSTR) -rdynamic -Itarget/core -Icommon \
	    -o $@ $< $(O)/linux/libcygtrace.a -lpthread -ldl

# The checker: the host's decoder and follower, not instrumented.
$(SB)/stress_check: tests/stress/stress_check.c tests/stress/stress_pattern.h \
                    $(O)/host/libcyghost.a
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(HOST_INC) -o $@ $< \
	    $(O)/host/libcyghost.a $(HOST_LIBS)

# Both scripts run, whatever the first says; the rule fails if either did.
stress: stress-bins $(O)/cygtrace
	$(Q)rc=0; \
	STRESS_EVENTS=$(STRESS_EVENTS) STRESS_RING=$(STRESS_RING) CYGTRACE_BUILD=$(O) \
	    bash tests/e2e/stress_linux.sh || rc=1; \
	STRESS_TRIALS=$(STRESS_TRIALS) STRESS_SEED=$(STRESS_SEED) CYGTRACE_BUILD=$(O) \
	    bash tests/e2e/crash_linux.sh || rc=1; \
	exit $$rc

# ---- Cortex-M under QEMU (tests/e2e/fw_overwrite.sh, fw_fault_in_hook.sh) --------------------
#   make stress-fw     STRESS_FW_TRIALS (50) trials per board of each: overwrite mode with an
#                      interrupt recording in the middle of records, and a fault injected
#                      inside the hook (a few minutes); make stress runs it too.
#   make check         runs both reduced (1 and 5 trials per board, ~25 s)
# STRESS_FW_SEED sets the first trial's seed (default: random, printed).

STRESS_FW_TRIALS ?= 50
STRESS_FW_SEED ?=

.PHONY: stress-fw
stress: stress-fw
# Both scripts run, whatever the first says; the rule fails if either did.
stress-fw: firmware $(O)/cygtrace
	$(Q)rc=0; \
	FW_TRIALS=$(STRESS_FW_TRIALS) FW_SEED=$(STRESS_FW_SEED) CYGTRACE_BUILD=$(O) \
	    bash tests/e2e/fw_overwrite.sh || rc=1; \
	FW_TRIALS=$(STRESS_FW_TRIALS) FW_SEED=$(STRESS_FW_SEED) CYGTRACE_BUILD=$(O) \
	    bash tests/e2e/fw_fault_in_hook.sh || rc=1; \
	exit $$rc
