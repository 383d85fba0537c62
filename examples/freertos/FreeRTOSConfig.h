/* SPDX-License-Identifier: MIT */
/* FreeRTOSConfig.h - the FreeRTOS example's kernel configuration, for every board: the port
 * (ARM_CM0, ARM_CM3, ARM_CM4F, ARM_CM33_NTZ) comes from the build, the CPU from its flags.
 * The last line is what a firmware adds to trace with cygtrace. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* The SysTick's clock, the core's: 25 MHz on the AN385/AN386, 20 MHz on the AN505 (the build
 * says). The micro:bit has no SysTick: its tick is TIMER1 (main.c's vPortSetupTimerInterrupt). */
#ifndef FREERTOS_CPU_HZ
#define FREERTOS_CPU_HZ 25000000u
#endif
/* Heap for the tasks' stacks and TCBs, the queue and the semaphores: the micro:bit has 16 KB
 * of RAM, a ring in it too. */
#ifndef FREERTOS_HEAP
#define FREERTOS_HEAP 16384
#endif

#define configCPU_CLOCK_HZ FREERTOS_CPU_HZ
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configUSE_TICKLESS_IDLE 0
#define configMAX_PRIORITIES 4
#define configMINIMAL_STACK_SIZE 128
#define configMAX_TASK_NAME_LEN 12
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 1
#define configQUEUE_REGISTRY_SIZE 4
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 0
#define configUSE_COUNTING_SEMAPHORES 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configUSE_TIMERS 0
#define configUSE_CO_ROUTINES 0
#define configUSE_NEWLIB_REENTRANT 0
#define configSUPPORT_STATIC_ALLOCATION 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configTOTAL_HEAP_SIZE FREERTOS_HEAP
#define configUSE_MALLOC_FAILED_HOOK 0
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configGENERATE_RUN_TIME_STATS 0
#define configUSE_TICK_HOOK 0
#define configUSE_STATS_FORMATTING_FUNCTIONS 0
/* The kernel is built once for the three programs: freertos_live's hook drains, the others'
 * do nothing. */
#define configUSE_IDLE_HOOK 1

/* Interrupt priorities (the top bits count; every core here implements at least 2): the
 * kernel's at the lowest, the API callable from 0x80 down, the example's timer at 0xC0. */
#define configKERNEL_INTERRUPT_PRIORITY 0xFF
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0x80
#define configMAX_API_CALL_INTERRUPT_PRIORITY configMAX_SYSCALL_INTERRUPT_PRIORITY

/* ARMv8-M (the AN505): no TrustZone split, no MPU, no FPU (built soft-float): the kernel runs
 * secure, as the board boots. */
#define configENABLE_TRUSTZONE 0
#define configRUN_FREERTOS_SECURE_ONLY 1
#define configENABLE_MPU 0
#define configENABLE_FPU 0
#define configENABLE_MVE 0

#define INCLUDE_vTaskDelay 1
#define INCLUDE_vTaskDelayUntil 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_vTaskDelete 0
#define INCLUDE_xTaskGetSchedulerState 1

/* An assertion that fails says where on the UART, then waits for a debugger. */
void freertos_assert_failed(const char *file, int line);
#define configASSERT(x)                                                                      \
    do {                                                                                     \
        if (!(x))                                                                            \
            freertos_assert_failed(__FILE__, __LINE__);                                      \
    } while (0)

/* The ports' handlers under the names of startup.c's vector table (ARM_CM0 and ARM_CM33_NTZ
 * use them already). */
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler
#endif

#include "cygtrace_freertos.h"

#endif
