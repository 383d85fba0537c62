# SPDX-License-Identifier: MIT
# bench/bench.mk - the benchmarks behind `make bench`: hook cost per event against empty hooks,
# uftrace and an etrace-style hook; instructions per event; decode throughput. Run from the top
# of the tree:  make -f bench/bench.mk O=build   (docs/PERFORMANCE.md explains the numbers).
#
# Every workload is one instrumented object (fib.o, fib_mt.o) linked with each hook variant in
# turn, so the variants differ in their hooks and nothing else.
#
# drain_rate: the events per second the stream drain sustains without loss at 115200 and
# 921600 baud (a Linux harness with a sink throttled to baud/10 bytes/s; about a minute).
#
# Durations corrected for the hooks' cost: bench/hookcost.sh, fib(N) traced (its total as
# recorded and corrected) against the same source untraced.
#
# Wrapped calls (cygtrace wrap): bench/wrap.sh (x86-64, ns per call) and bench/cortex-m/wrap.sh
# (Cortex-M3 under QEMU, instructions per call and flash per wrapper), a plain call against an
# instrumented one and a wrapped one; their own makefiles (bench/wrap.mk,
# bench/cortex-m/wrap.mk) build what they run, the generator's output included.

O ?= build
CC ?= gcc
B := $(O)/bench

ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

BENCH_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g
INSTR := -finstrument-functions
RT := $(O)/linux/libcygtrace.a
RT_NOTS := $(B)/nots/linux/libcygtrace.a

# fib_plain and fib_mt_plain define no hooks: glibc's empty ones resolve them at run time, and a
# preloaded runtime (cygtrace's .so, uftrace's libmcount) takes their place.
BINS := $(addprefix $(B)/,fib_empty fib_plain fib_cygtrace fib_nots fib_etrace \
                          fib_mt_empty fib_mt_plain fib_mt_cygtrace fib_mt_nots prims)

.PHONY: all runtimes bins
all: runtimes
	$(Q)$(MAKE) --no-print-directory -f bench/bench.mk O=$(O) bins
	$(Q)bench/run.sh $(O)
	$(Q)FIB_N=22 RUNS=9 bench/hookcost.sh $(O)
	$(Q)CYGTRACE_OFF=1 $(B)/drain_rate 115200 921600
	$(Q)bench/wrap.sh $(O)
	$(Q)bench/cortex-m/wrap.sh $(O)

# The runtime as `make` builds it, and a second copy from the same sources and the same flags
# with timestamps off: CC carries the -D so that the top Makefile's flags stay the only ones.
# run.sh checks the flags byte of each trace, so a copy that missed the -D cannot pass for one.
runtimes:
	$(Q)$(MAKE) --no-print-directory -f Makefile O=$(O) runtime $(O)/host/libcyghost.a
	$(Q)$(MAKE) --no-print-directory -f Makefile O=$(B)/nots CC='$(CC) -DCYGTRACE_TIMESTAMPS=0' \
	    runtime

bins: $(BINS) $(B)/drain_rate

$(B)/obj/%.o: bench/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(BENCH_CFLAGS) $(if $(filter fib%,$*),$(INSTR)) -c $< -o $@

# fib untraced: the same source, not instrumented, for bench/hookcost.sh (durations corrected
# for the hooks' cost against the real thing). Without sibling-call optimisation: GCC would
# turn one of fib's two recursive calls into a loop, which the instrumented build cannot do, and
# the untraced run would make half the calls.
$(B)/obj/fib_untraced.o: bench/fib.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(BENCH_CFLAGS) -fno-optimize-sibling-calls -c $< -o $@
$(B)/fib_untraced: $(B)/obj/fib_untraced.o
	$(call say,LD,$@)$(CC) -o $@ $^

$(B)/fib_empty: $(B)/obj/fib.o $(B)/obj/hooks_empty.o
$(B)/fib_plain: $(B)/obj/fib.o
$(B)/fib_cygtrace: $(B)/obj/fib.o $(RT)
$(B)/fib_nots: $(B)/obj/fib.o $(RT_NOTS)
$(B)/fib_etrace: $(B)/obj/fib.o $(B)/obj/hooks_etrace.o
$(B)/fib_mt_empty: $(B)/obj/fib_mt.o $(B)/obj/hooks_empty.o
$(B)/fib_mt_plain: $(B)/obj/fib_mt.o
$(B)/fib_mt_cygtrace: $(B)/obj/fib_mt.o $(RT)
$(B)/fib_mt_nots: $(B)/obj/fib_mt.o $(RT_NOTS)
$(B)/prims: $(B)/obj/prims.o

$(BINS):
	$(call say,LD,$@)$(CC) -o $@ $^ -lpthread

# The stream drain against the host's decoder: the runtime, and the host library it decodes with.
$(B)/obj/drain_rate.o: bench/drain_rate.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(BENCH_CFLAGS) -Icommon -Ihost -Itarget/core -c $< -o $@
# (The decoder names contexts by their symbols: libbfd and libdwarf come along.)
$(B)/drain_rate: $(B)/obj/drain_rate.o $(O)/host/libcyghost.a $(RT)
	$(call say,LD,$@)$(CC) -o $@ $^ -lbfd -ldwarf -lpthread
