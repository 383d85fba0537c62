# SPDX-License-Identifier: MIT
# target/sources.mk - the runtime's sources: the one list that every build of the runtime reads
# (the top Makefile, the examples' and the benchmarks' makefiles, tools/cygtrace.mk, and
# tools/cygtrace.cmake, which parses the lines below: "CYGTRACE_RT_SRC_<name> := files", the
# paths relative to the cygtrace tree, or to share/cygtrace once installed; nothing else on a
# line that starts so). A port's runtime is CYGTRACE_RT_SRC_core and CYGTRACE_RT_SRC_<port>.
#
# Every port's: the stream drain, COBS and the RTT sink too, which a firmware that never calls
# cygtrace_drain() does not link (-ffunction-sections here, --gc-sections in its link).
CYGTRACE_RT_SRC_core := target/core/cygtrace.c target/core/cygtrace_ctrl.c \
    target/core/cygtrace_mark.c target/core/cygtrace_drain.c target/core/cygtrace_rtt.c \
    common/crc32.c common/cobs.c
# The ports' own. The bare-metal ports keep their ring in a static buffer (cygtrace_static.c).
CYGTRACE_RT_SRC_cortex-m := target/core/cygtrace_static.c target/cortex-m/cygtrace_cm.c
CYGTRACE_RT_SRC_riscv := target/core/cygtrace_static.c target/riscv/cygtrace_rv.c
CYGTRACE_RT_SRC_linux := target/linux/cygtrace_file.c target/linux/cygtrace_linux.c \
    target/linux/cygtrace_envctrl.c target/linux/cygtrace_maps.c target/linux/cygtrace_syms.c \
    target/linux/cygtrace_peek.c target/linux/cygtrace_jmp.c common/cyg_spec.c
