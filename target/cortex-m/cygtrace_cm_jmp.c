/* SPDX-License-Identifier: MIT */
/* cygtrace_cm_jmp.c - setjmp and longjmp of the C library (newlib's), recorded: a SETJMP record
 * (the buffer's address) before the real setjmp, a LONGJMP record before the real longjmp, so
 * that the host closes the calls a longjmp skipped at the depth of its setjmp (docs/FORMAT.md
 * 7.6). Optional: a firmware that uses setjmp adds this file and links with
 *     -Wl,--wrap=setjmp,--wrap=longjmp
 * (without them it must not link this file: __real_setjmp would be undefined).
 *
 * setjmp returns twice: its wrapper records, then branches to the real one with the caller's
 * registers and return address as they were, leaving no frame of its own behind. Thumb-1 only
 * (ARMv6-M too): r0 and r1 (the buffer, longjmp's value) and lr are kept across the record on
 * an 8-byte aligned stack; r2 and r3 are scratch in the calling convention.
 */
#include "cygtrace.h"

#define CYG_CM_JMP_WRAP(name, jump)                                                            \
    __asm__("  .syntax unified\n"                                                              \
            "  .section .text.__wrap_" #name ",\"ax\",%progbits\n"                             \
            "  .global __wrap_" #name "\n"                                                     \
            "  .type __wrap_" #name ", %function\n"                                            \
            "  .thumb_func\n"                                                                  \
            "__wrap_" #name ":\n"                                                              \
            "  push {r0, r1, r2, lr}\n"                                                        \
            "  movs r1, r0\n"                                                                  \
            "  movs r0, #" #jump "\n"                                                          \
            "  bl cygtrace_jump\n"                                                             \
            "  pop {r0, r1, r2, r3}\n"                                                         \
            "  mov lr, r3\n"                                                                   \
            "  ldr r3, =__real_" #name "\n"                                                    \
            "  bx r3\n"                                                                        \
            "  .ltorg\n"                                                                       \
            "  .size __wrap_" #name ", .-__wrap_" #name "\n"                                   \
            "  .text\n")

CYG_CM_JMP_WRAP(setjmp, 0);
CYG_CM_JMP_WRAP(longjmp, 1);
