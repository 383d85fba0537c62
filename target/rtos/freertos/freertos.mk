# SPDX-License-Identifier: MIT
# target/rtos/freertos/freertos.mk - the FreeRTOS kernel built for tracing with cygtrace, for a
# firmware's Makefile to include. In:
#   FREERTOS_DIR   the FreeRTOS-Kernel source tree
#   FREERTOS_PORT  its port under portable/: GCC/ARM_CM0, GCC/ARM_CM3, GCC/ARM_CM4F,
#                  GCC/ARM_CM33_NTZ/non_secure
#   CYGTRACE_DIR   the cygtrace tree (default: the one this file is in)
# Out:
#   CYGTRACE_FREERTOS_KERNEL_SRC     the kernel's sources to build instrumented, with
#   CYGTRACE_FREERTOS_KERNEL_CFLAGS  (your CPU flags, optimisation and FreeRTOSConfig.h's folder
#                                    come on top)
#   CYGTRACE_FREERTOS_PORT_SRC       sources to build WITHOUT -finstrument-functions: list.c and
#                                    the port (its handlers switch stacks)
#   CYGTRACE_FREERTOS_CFLAGS         the include paths anything that includes FreeRTOS.h needs
#   CYGTRACE_FREERTOS_GLUE_SRC       the glue, built without -finstrument-functions
CYGTRACE_DIR ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))../../..)

CYGTRACE_FREERTOS_CFLAGS = -I$(FREERTOS_DIR)/include -I$(FREERTOS_DIR)/portable/$(FREERTOS_PORT) \
    -I$(CYGTRACE_DIR)/target/rtos/freertos -I$(CYGTRACE_DIR)/target/core -I$(CYGTRACE_DIR)/common

# Not traced: vTaskSwitchContext (its entry would land in one task's tree, its exit in
# another's), the idle task's loop and what it calls every time round (the ring would fill with
# it), and the port's inline helpers in portmacro*.h (BASEPRI and the like: a call record around
# every critical section, a pair of instructions each). Both lists match substrings: of names,
# of the paths of the files the functions are defined in.
CYGTRACE_FREERTOS_EXCLUDE := vTaskSwitchContext,prvIdleTask,prvCheckTasksWaitingTermination
CYGTRACE_FREERTOS_EXCLUDE_FILES := portmacro
CYGTRACE_FREERTOS_KERNEL_CFLAGS = $(CYGTRACE_FREERTOS_CFLAGS) -finstrument-functions \
    -finstrument-functions-exclude-function-list=$(CYGTRACE_FREERTOS_EXCLUDE) \
    -finstrument-functions-exclude-file-list=$(CYGTRACE_FREERTOS_EXCLUDE_FILES)

CYGTRACE_FREERTOS_KERNEL_SRC = $(addprefix $(FREERTOS_DIR)/,tasks.c queue.c event_groups.c \
    stream_buffer.c timers.c portable/MemMang/heap_4.c)
CYGTRACE_FREERTOS_PORT_SRC = $(FREERTOS_DIR)/list.c \
    $(wildcard $(FREERTOS_DIR)/portable/$(FREERTOS_PORT)/*.c)
CYGTRACE_FREERTOS_GLUE_SRC = $(CYGTRACE_DIR)/target/rtos/freertos/cygtrace_freertos.c
