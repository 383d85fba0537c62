/* SPDX-License-Identifier: MIT */
/* cygtrace_port.h (riscv) - the port contract of cygtrace_internal.h for 32-bit RISC-V
 * microcontrollers running in machine mode on one hart: RV32 with the A extension (rv32imac,
 * rv32imafc, ...), bare metal.
 *
 * Reservation: one AMOADD.W, lock-free. An AMO is a single instruction: an interrupt comes
 * before or after it, never in the middle, so no retry loop (LR/SC would need one) and no
 * critical section (masking mstatus.MIE would cost a CSR read and two CSR writes on every
 * event). It is also atomic against other harts, but the rest of the port is single-hart:
 * cyg_port_release() orders only this hart's stores.
 *
 * CSRs are accessed through .insn encodings: GCC 12 with binutils 2.38 or later rejects csrr
 * under -march=rv32imac (Zicsr became an extension of its own), and adding _zicsr to -march
 * would break older toolchains. The encodings are the same instructions (objdump shows them as
 * csrr/csrw).
 *
 * Settings (besides those of cygtrace_config.h; set them with -D):
 */
#ifndef CYGTRACE_PORT_H
#define CYGTRACE_PORT_H

#include <stdint.h>

#if !defined(__riscv) || __riscv_xlen != 32
#error "target/riscv is the port for 32-bit RISC-V (-march=rv32...)"
#endif
#ifndef __riscv_atomic
#error "target/riscv needs the A extension (AMOADD.W): build with -march=rv32imac or similar"
#endif

/* Timestamp clock: 0 none, 1 mcycle (the core clock; under qemu-system-riscv32 -icount
 * shift=0 it counts instructions, without -icount it reads the host's TSC), 2 the CLINT's mtime
 * at CYGTRACE_RV_MTIME (its low word: the timebase, 10 MHz on QEMU's virt board, 32768 Hz on
 * sifive_e), 3 a function of yours, uint32_t cygtrace_user_clock(void), that returns a counter
 * going up. Default: 1. */
#ifndef CYGTRACE_RV_CLOCK
#define CYGTRACE_RV_CLOCK 1
#endif

/* Address of the CLINT's mtime register (CYGTRACE_RV_CLOCK 2). Default: 0x0200BFF8, where the
 * SiFive CLINT has it (QEMU's virt and sifive_e, the FE310, the GD32VF103's timer differs). */
#ifndef CYGTRACE_RV_MTIME
#define CYGTRACE_RV_MTIME 0x0200BFF8u
#endif

/* Width in bits of cygtrace_user_clock()'s counter (CYGTRACE_RV_CLOCK 3). Default: 32. */
#ifndef CYGTRACE_RV_USER_CLOCK_BITS
#define CYGTRACE_RV_USER_CLOCK_BITS 32
#endif

/* As on Cortex-M: a run-time choice of call sites would cost every event a test; build with
 * -DCYGTRACE_CALLSITES=1 for 16-byte records with call sites. Default: 0. */
#ifndef CYGTRACE_CALLSITES
#define CYGTRACE_CALLSITES 0
#endif

/* The public header: its settings, and the firmware defaults of cygtrace_config.h, before
 * the core reads them. */
#include "cygtrace_rv.h"

#include "cygtrace_internal.h"

#if CYGTRACE_RV_CLOCK < 0 || CYGTRACE_RV_CLOCK > 3
#error "CYGTRACE_RV_CLOCK must be 0 (none), 1 (mcycle), 2 (CLINT mtime) or 3 (user)"
#endif
#if CYGTRACE_RV_USER_CLOCK_BITS < 8 || CYGTRACE_RV_USER_CLOCK_BITS > 32
#error "CYGTRACE_RV_USER_CLOCK_BITS must be 8..32"
#endif
#if CYGTRACE_CALLSITES == 2
#error "CYGTRACE_CALLSITES=2 (chosen at run time) is not for RISC-V firmware: use 0 or 1"
#endif

#define CYG_PORT_MACHINE 243u /* EM_RISCV */

#if CYGTRACE_RV_CLOCK == 3
#define CYG_PORT_TS_BITS CYGTRACE_RV_USER_CLOCK_BITS
uint32_t cygtrace_user_clock(void);
#endif

/* CSR numbers, and csrr/csrw as .insn (see above): I-type, opcode SYSTEM (0x73), funct3 2
 * (CSRRS with rs1 x0: a read) or 1 (CSRRW with rd x0: a write). */
#define CYG_RV_MSTATUS 0x300
#define CYG_RV_MTVEC 0x305
#define CYG_RV_MEPC 0x341
#define CYG_RV_MCAUSE 0x342
#define CYG_RV_MTVAL 0x343
#define CYG_RV_MCYCLE 0xB00
#define CYG_RV_STR_(x) #x
#define CYG_RV_STR(x) CYG_RV_STR_(x)
/* The immediate is signed 12 bits: the CSR number sign-extended, in the assembler's arithmetic. */
#define CYG_RV_CSR_IMM(csr) "((" CYG_RV_STR(csr) " ^ 0x800) - 0x800)"
#define CYG_RV_CSRR(csr, v) \
    __asm__ volatile(".insn i 0x73, 2, %0, x0, " CYG_RV_CSR_IMM(csr) : "=r"(v))
#define CYG_RV_CSRW(csr, v) \
    __asm__ volatile(".insn i 0x73, 1, x0, %0, " CYG_RV_CSR_IMM(csr) ::"r"(v) : "memory")

#define CYG_RV_INLINE __attribute__((no_instrument_function, always_inline)) static inline

CYG_RV_INLINE uintptr_t cyg_port_reserve(volatile uintptr_t *head)
{
    uintptr_t old;

    __asm__ volatile("amoadd.w %0, %2, (%1)" : "=r"(old) : "r"(head), "r"(1u) : "memory");
    return old;
}

/* cyg_port_reserve, adding n (a version 4 special's slots, in one step). */
CYG_RV_INLINE uintptr_t cyg_port_reserve_n(volatile uintptr_t *head, uintptr_t n)
{
    uintptr_t old;

    __asm__ volatile("amoadd.w %0, %2, (%1)" : "=r"(old) : "r"(head), "r"(n) : "memory");
    return old;
}

/* GCC 12 has no inline sub-word compare-and-swap on RISC-V (it would call
 * __atomic_compare_exchange_1, which no bare-metal libgcc has): LR/SC on the aligned word that
 * holds the byte. Off the fast path (state changes only). */
#define CYG_PORT_CAS_STATE 1
CYG_RV_INLINE int cyg_port_cas_state(volatile uint8_t *state, uint8_t from, uint8_t to)
{
    uintptr_t a = (uintptr_t)state, shift = (a & 3u) * 8u, old, tmp;
    volatile uint32_t *w = (volatile uint32_t *)(a & ~(uintptr_t)3);
    uint32_t mask = 0xFFu << shift, f = (uint32_t)from << shift, t = (uint32_t)to << shift;
    int ok;

    __asm__ volatile("1: lr.w %0, (%3)\n\t"
                     "and %1, %0, %4\n\t"
                     "bne %1, %5, 2f\n\t"
                     "xor %1, %0, %5\n\t" /* the byte is from: from ^ from ^ to = to */
                     "xor %1, %1, %6\n\t"
                     "sc.w %1, %1, (%3)\n\t"
                     "bnez %1, 1b\n"
                     "2:"
                     : "=&r"(old), "=&r"(tmp), "+m"(*w)
                     : "r"(w), "r"(mask), "r"(f), "r"(t)
                     : "memory");
    ok = (old & mask) == f;
    return ok;
}

CYG_RV_INLINE uintptr_t cyg_port_now(void)
{
#if CYGTRACE_RV_CLOCK == 1
    uintptr_t v;

    CYG_RV_CSRR(CYG_RV_MCYCLE, v);
    return v;
#elif CYGTRACE_RV_CLOCK == 2
    return *(volatile uint32_t *)CYGTRACE_RV_MTIME;
#elif CYGTRACE_RV_CLOCK == 3
    return cygtrace_user_clock();
#else
    return 0;
#endif
}

/* Nothing to start at boot: mcycle runs from reset, and the CLINT's mtime always. */
CYG_RV_INLINE void cyg_port_clock_start(void)
{
}

/* Nor any clock to fall back to. */
CYG_RV_INLINE unsigned cyg_port_clock_down(void)
{
    return 0;
}

/* No CYG_PORT_TSTATE: machine mode has no IPSR that says "in a trap handler" for free (mcause
 * keeps its value after mret), so the control area's depth and hide filters keep one state for
 * the whole hart, which stays right because traps nest and return. No CYG_PORT_STORE_PAIR:
 * RV32 without D has no 64-bit store; two SW, b (with the lap bit) last. */

/* The ring in a static buffer (target/core/cygtrace_static.c), under cygtrace_rv.h's names and
 * settings, and the rest of the contract, as every single-core bare-metal port has it. */
#define CYG_STATIC_API(name) cygtrace_rv_##name
#define CYG_STATIC_BYTES CYGTRACE_RV_BUFFER_BYTES
#define CYG_STATIC_KEEP CYGTRACE_RV_KEEP
#include "cygtrace_static.h"

#endif
