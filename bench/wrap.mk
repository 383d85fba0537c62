# SPDX-License-Identifier: MIT
# bench/wrap.mk - the wrapped-call benchmark on Linux (x86-64): wrap_call.c calling
# wrap_work.c's functions three ways. bench/wrap.sh builds (after the host tool and the
# runtime) and runs them:  bench/wrap.sh [BUILD_DIR]
#
# $(B)/wrap_VARIANT, VARIANT one of:
#   plain     wrap_work.c built plainly, no runtime: nothing recorded
#   instr     wrap_work.c built with -finstrument-functions, linked with the runtime
#             ($(O)/linux/libcygtrace.a): entry and exit recorded
#   wrapped   wrap_work.c built plainly into libwork.a, wrapped by `cygtrace wrap` from its DWARF
#             ($(B)/gen/, generated here), linked with the runtime: entry, arguments, return
#             value, exit
# wrap_work.c is -O2 -g in each, the loop (wrap_call.c) too and never instrumented.

O ?= build
CC ?= gcc
B := $(O)/bench/wrap

ifeq ($(V),1)
say :=
else
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

# -MMD -MP: each object's headers, as the compiler saw them (read back below).
BENCH_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g -MMD -MP
RT := $(O)/linux/libcygtrace.a
VARIANTS := plain instr wrapped

.PHONY: all
all: $(VARIANTS:%=$(B)/wrap_%)

$(B)/obj/wrap_call.o: bench/wrap_call.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(BENCH_CFLAGS) -c $< -o $@
$(B)/obj/work_plain.o: bench/wrap_work.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< [plain])$(CC) $(BENCH_CFLAGS) -c $< -o $@
$(B)/obj/work_instr.o: bench/wrap_work.c
	@mkdir -p $(dir $@)
	$(call say,CC,$< [instr])$(CC) $(BENCH_CFLAGS) -finstrument-functions -c $< -o $@
$(B)/libwork.a: $(B)/obj/work_plain.o
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^
# The generator: both files from one run.
$(B)/gen/cygtrace_wrap.c $(B)/gen/cygtrace_wrap.flags &: $(B)/libwork.a $(O)/cygtrace
	$(call say,WRAP,$<)$(O)/cygtrace wrap -q -o $(B)/gen $<
$(B)/obj/cygtrace_wrap.o: $(B)/gen/cygtrace_wrap.c
	$(call say,CC,$<)$(CC) $(BENCH_CFLAGS) -Icommon -Itarget/core -c $< -o $@

$(B)/wrap_plain: $(B)/obj/wrap_call.o $(B)/obj/work_plain.o
$(B)/wrap_instr: $(B)/obj/wrap_call.o $(B)/obj/work_instr.o $(RT)
# The wrappers, then the library their __real_NAME calls resolve to, then the runtime.
$(B)/wrap_wrapped: $(B)/obj/wrap_call.o $(B)/obj/cygtrace_wrap.o $(B)/libwork.a $(RT) \
                   $(B)/gen/cygtrace_wrap.flags
$(B)/wrap_wrapped: LINK := @$(B)/gen/cygtrace_wrap.flags
$(VARIANTS:%=$(B)/wrap_%):
	$(call say,LD,$@)$(CC) -o $@ $(filter %.o %.a,$^) $(LINK) -lpthread

-include $(shell find $(B) -name '*.d' 2>/dev/null)
# No rule makes a dependency file: else make, remaking what it includes, would try its built-in
# %: %.o on it (and build fibloop_fp_drain.d.o through fibloop_%.o, then link it).
%.d: ;
