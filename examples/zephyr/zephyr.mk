# SPDX-License-Identifier: MIT
# examples/zephyr/zephyr.mk - the Zephyr example (examples/zephyr), included by the top Makefile:
#   make zephyr-firmware (and make firmware) ->
#       $(O)/firmware/qemu_cortex_m3/zephyr.elf         faults after 40 rounds
#       $(O)/firmware/qemu_cortex_m3/zephyr_kernel.elf  the same, the kernel instrumented too
#       $(O)/firmware/qemu_cortex_m3/zephyr_live.elf    no fault; the idle thread drains the ring
#                                                       over the UART (cygtrace live)
#       $(O)/firmware/qemu_cortex_m3/zephyr_rtt.elf     the same into an RTT channel (live --gdb)
# each built by examples/zephyr/build.sh with cmake and ninja in $(O)/zephyr/PROGRAM (ninja
# knows what changed: make always asks it). Zephyr is not part of this tree: ZEPHYR_BASE names a
# Zephyr tree (3.x/4.x), by default the subset for qemu_cortex_m3 next to this checkout,
# ../shared/thirdparty/zephyr/zephyr, when there is one (our CI's), and ZEPHYR_MODULES the
# modules a tree without west needs (there: its CMSIS_6). Without them the example is skipped,
# and so are its tests (tests/e2e/zephyr.sh), by name.
ZEPHYR_BASE ?= $(wildcard $(CURDIR)/../shared/thirdparty/zephyr/zephyr)
ZEPHYR_MODULES ?= $(wildcard $(CURDIR)/../shared/thirdparty/zephyr/modules/hal/cmsis_6)
ZEPHYR_PYTHON ?= /usr/bin/python3
ZEX_BUILD = ZEPHYR_BASE='$(ZEPHYR_BASE)' ZEPHYR_MODULES='$(ZEPHYR_MODULES)' \
            ZEPHYR_PYTHON='$(ZEPHYR_PYTHON)' examples/zephyr/build.sh $(O)

.PHONY: zephyr-firmware
firmware: zephyr-firmware
zephyr-firmware:
	$(Q)$(ZEX_BUILD) zephyr
	$(Q)$(ZEX_BUILD) zephyr_kernel -DCONFIG_CYGTRACE_INSTRUMENT_KERNEL=y -DCONFIG_CYGTRACE_RING_LOG2=11
	$(Q)$(ZEX_BUILD) zephyr_live -DZEPHYR_ROUNDS=0 -DEXTRA_CONF_FILE=live.conf
	$(Q)$(ZEX_BUILD) zephyr_rtt -DZEPHYR_ROUNDS=0 -DEXTRA_CONF_FILE=rtt.conf
