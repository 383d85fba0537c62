/* SPDX-License-Identifier: MIT */
/* cyg_format.h - the ring buffer format: the contract between the target runtime and the host.
 *
 * Freestanding C99 (only <stdint.h>, <stddef.h>): compiled into the firmware, the Linux runtime
 * and the host tool alike. docs/FORMAT.md describes every bit; tests/check_format.c pins it with
 * test vectors. All multi-byte fields are little-endian (every supported target is).
 *
 * A ring is a 128-byte control block followed by 2^cap_log2 records. The control block starts
 * with the magic so that a host can find it in a whole-RAM image.
 */
#ifndef CYG_FORMAT_H
#define CYG_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define CYG_MAGIC "CYGTRACE"           /* 8 bytes, no terminator in the block */
#define CYG_MAGIC_LO 0x54475943u       /* "CYGT" as a little-endian word */
#define CYG_MAGIC_HI 0x45434152u       /* "RACE" */
#define CYG_VERSION 3u                /* 2: chunk_log2 (byte 22), PAD records; 3: the control
                                          area after the records, TRIGGER records, mark
                                          classes */
#define CYG_VERSION_MIN 1u            /* the oldest a host still reads: 1 has no chunks */
#define CYG_HDR_BYTES 128u             /* records start this far from the control block */
#define CYG_BUILD_ID_MAX 32u

/* flags (control block, byte 13) */
#define CYG_F_OVERWRITE (1u << 0)      /* flight recorder: the writer laps the oldest records;
                                          clear: stop when full and count the rest as lost */
#define CYG_F_CALLSITES (1u << 1)      /* records carry the call site (4 words, not 2) */
#define CYG_F_TIMESTAMPS (1u << 2)     /* records carry a timestamp (else the field is 0) */
#define CYG_F_THREADS (1u << 3)        /* 64-bit records carry a thread index */
#define CYG_F_LAPTAG (1u << 4)         /* 64-bit call records carry 11 more bits of their lap
                                          number (CYG64_TAG_*), timestamps 50 bits */
#define CYG_F_TS_DOWN (1u << 5)        /* the clock counts down: a record's timestamp is ~t
                                          (ts_bits wide) of the time t it stands for. A
                                          Cortex-M runtime whose cycle counter did not count at
                                          init falls back to SysTick so (ts_bits 24) */

/* hook_cost (control block, bytes 72..75; docs/FORMAT.md 2.8): what one event's hook costs the
 * program, in 1/256 of a timestamp tick, so that the host can take it out of durations; with
 * page_cost (76..79) and page_log2 (23), what a record costs more when it is the first of its
 * memory page on the ring's first lap. Fields that were reserved (zero) before: older runtimes
 * say 0, none known; older hosts ignore them. */
#define CYG_HOOK_COST_MASK 0x7fffffffu /* bits 30..0: the cost, in 1/256 tick */
#define CYG_HOOK_COST_GIVEN (1u << 31) /* the figure was given at build time, not measured */

/* state (control block, byte 84): who may write records now */
#define CYG_S_STOPPED 0u               /* not recording (before start, after stop) */
#define CYG_S_RUNNING 1u               /* hooks record */
#define CYG_S_FROZEN 2u                /* frozen for good (fault, freeze API): read me */
#define CYG_S_FULL 3u                  /* stop-when-full mode, and full */

/* Control block byte offsets. Bytes 0..79 are written once at init and covered by `check`;
 * the rest changes while the target runs. */
#define CYG_OFF_MAGIC 0u        /* u8[8]  "CYGTRACE"                                         */
#define CYG_OFF_VERSION 8u      /* u16    CYG_VERSION                                        */
#define CYG_OFF_WORD 10u        /* u8     bytes per record word = pointer size: 4 or 8       */
#define CYG_OFF_REC 11u         /* u8     bytes per record: 2 or 4 words                     */
#define CYG_OFF_CAP_LOG2 12u    /* u8     capacity = 1 << cap_log2 records                   */
#define CYG_OFF_FLAGS 13u       /* u8     CYG_F_*                                            */
#define CYG_OFF_MACHINE 14u     /* u16    ELF e_machine of the traced image                  */
#define CYG_OFF_HDR 16u         /* u32    CYG_HDR_BYTES                                      */
#define CYG_OFF_BUILD_ID_LEN 20u /* u8    bytes used in build_id (0: none known)             */
#define CYG_OFF_TS_BITS 21u     /* u8     timestamp bits that count: the clock's width, at
                                   most the record's 30 (32-bit) or 61 (64-bit)             */
#define CYG_OFF_CHUNK_LOG2 22u  /* u8     writers reserve 1 << chunk_log2 slots at a time
                                   (0: one per event); version 2 on, 0 in version 1         */
#define CYG_OFF_CTL_ADDR 24u    /* u64    where this block lives in the target's memory      */
#define CYG_OFF_LOAD_BIAS 32u   /* u64    run-time minus link-time address of the image (PIE)*/
#define CYG_OFF_BUILD_ID 40u    /* u8[32] GNU build-id of the image                          */
#define CYG_OFF_CHECK 80u       /* u32    CRC-32 of bytes 0..79                              */
#define CYG_OFF_STATE 84u       /* u8     CYG_S_*                                            */
#define CYG_OFF_RESETS 85u      /* u8     warm resets survived by this trace (Cortex-M)      */
#define CYG_OFF_HEAD 88u        /* u64    reservations made: the monotonic write counter     */
#define CYG_OFF_LOST 96u        /* u64    events dropped (stop-when-full, misuse)            */
#define CYG_OFF_TS_HZ 104u      /* u64    timestamp ticks per second (0: unknown)            */
#define CYG_OFF_PAGE_LOG2 23u   /* u8     log2 of the page size page_cost is of (0: none)    */
#define CYG_OFF_HOOK_COST 72u   /* u32    the hooks' cost per event, CYG_HOOK_COST_*         */
#define CYG_OFF_PAGE_COST 76u   /* u32    ticks more for a record that faults its page in    */
#define CYG_OFF_PID 112u        /* u32    process id (Linux), 0 on firmware                  */

/* The control block as the target declares it. The host never uses this struct: it parses
 * bytes at the offsets above, whatever its own word size. On a 32-bit target the counters are
 * 32 bits wide (the only width an LDREX/STREX or PRIMASK section updates atomically); the union
 * keeps the layout identical and the high word zero. */
typedef union {
    uintptr_t v;
    uint64_t pad;
} cyg_word64_t;

struct cyg_ctl {
    uint8_t magic[8];         /* init, last: written back to front, so a half-made block
                                 never carries the whole magic */
    uint16_t version;         /* init */
    uint8_t word_bytes;       /* init: sizeof(uintptr_t) */
    uint8_t rec_bytes;        /* init */
    uint8_t cap_log2;         /* init */
    uint8_t flags;            /* init */
    uint16_t machine;         /* init */
    uint32_t hdr_bytes;       /* init */
    uint8_t build_id_len;     /* init */
    uint8_t ts_bits;          /* init */
    uint8_t chunk_log2;       /* init */
    uint8_t page_log2;        /* set-up (Linux): the size of the memory pages page_cost is of */
    uint64_t ctl_addr;        /* init */
    uint64_t load_bias;       /* init */
    uint8_t build_id[CYG_BUILD_ID_MAX]; /* init */
    uint32_t hook_cost;       /* set-up (Linux: measured) or init (firmware: a figure given):
                                 the hooks' cost per event, CYG_HOOK_COST_* (0: none known) */
    uint32_t page_cost;       /* set-up (Linux): ticks an event costs more when its record is
                                 the first of a page on the first lap (the page faults in) */
    uint32_t check;           /* init: crc32 of the bytes above */
    volatile uint8_t state;   /* runtime API: start/stop/freeze; hooks read it first */
    uint8_t resets;           /* boot code (Cortex-M warm-reset survival) */
    uint8_t reserved2[2];
    volatile cyg_word64_t head; /* hooks: reserve = fetch-and-add; the record follows later */
    volatile cyg_word64_t lost; /* hooks (stop-when-full) and runtime */
    uint64_t ts_hz;           /* init; the Linux port refines it at exit */
    uint32_t pid;             /* init (Linux) */
    uint8_t reserved3[12];
};

#define CYG_ASSERT_OFF(f, off) _Static_assert(offsetof(struct cyg_ctl, f) == (off), #f)
CYG_ASSERT_OFF(version, CYG_OFF_VERSION);
CYG_ASSERT_OFF(machine, CYG_OFF_MACHINE);
CYG_ASSERT_OFF(ts_bits, CYG_OFF_TS_BITS);
CYG_ASSERT_OFF(chunk_log2, CYG_OFF_CHUNK_LOG2);
CYG_ASSERT_OFF(ctl_addr, CYG_OFF_CTL_ADDR);
CYG_ASSERT_OFF(build_id, CYG_OFF_BUILD_ID);
CYG_ASSERT_OFF(page_log2, CYG_OFF_PAGE_LOG2);
CYG_ASSERT_OFF(hook_cost, CYG_OFF_HOOK_COST);
CYG_ASSERT_OFF(page_cost, CYG_OFF_PAGE_COST);
CYG_ASSERT_OFF(check, CYG_OFF_CHECK);
CYG_ASSERT_OFF(state, CYG_OFF_STATE);
CYG_ASSERT_OFF(head, CYG_OFF_HEAD);
CYG_ASSERT_OFF(lost, CYG_OFF_LOST);
CYG_ASSERT_OFF(ts_hz, CYG_OFF_TS_HZ);
CYG_ASSERT_OFF(pid, CYG_OFF_PID);
_Static_assert(sizeof(struct cyg_ctl) == CYG_HDR_BYTES, "control block size");

/* Chunks (chunk_log2 > 0, the Linux port). head counts slots reserved, chunk by chunk: a writer
 * takes the 2^chunk_log2 slots [b, b + 2^chunk_log2) (b a multiple of that) with one atomic add
 * and fills them in order, one event a slot, with plain stores, and no other writer touches
 * them. A thread's chunks follow each other in its order of events, so its records stay in
 * sequence order; records of different threads interleave a chunk at a time. A slot of a chunk
 * still being filled (or abandoned: the thread died) is unwritten, as a slot reserved and not yet
 * written is with chunk_log2 = 0. */

/* Records. A record is 2 or 4 words; a word is the target's pointer size.
 *   word 0, "a": the function address (normal record) or a 32/64-bit payload (special record)
 *   word 1, "b": lap bit, kind, timestamp or special type/data
 *   word 2, "c": the call site (only with CYG_F_CALLSITES); word 3 is reserved and zero.
 * The writer stores "b" last, after a release barrier: "b" carries the lap bit, so a slot whose
 * writer died between its reservation and its last store never passes for a record.
 *
 * The lap bit of the record with sequence number s (its reservation number) is
 *     ((s >> cap_log2) & 1) ^ 1
 * so the first lap writes 1 over zeroed memory, the second 0 over the first lap's 1, and so on.
 * A slot whose lap bit is not the one its sequence number calls for was reserved and never
 * written (or not yet): the decoder skips it and counts it. */

/* 32-bit words. a: function address, bit 0 = exit (the Thumb bit, or the zero bit of a 2-byte
 * aligned RISC-V function, is dropped). b: see below. */
#define CYG32_LAP (1u << 31)
#define CYG32_SPECIAL (1u << 30)
#define CYG32_EXIT 1u
#define CYG32_TS_BITS 30u
#define CYG32_TS_MASK ((1u << CYG32_TS_BITS) - 1u)
#define CYG32_TYPE_SHIFT 24u           /* special: b = LAP | SPECIAL | type << 24 | data:24 */
#define CYG32_DATA_MASK 0x00ffffffu

/* 64-bit words. a: thread index in bits 63..48, function address in bits 47..0 (user space).
 * b: LAP | SPECIAL | EXIT | timestamp:61; special: LAP | SPECIAL | type << 56 | thread << 40 |
 * data:40. */
#define CYG64_LAP (UINT64_C(1) << 63)
#define CYG64_SPECIAL (UINT64_C(1) << 62)
#define CYG64_EXIT (UINT64_C(1) << 61)
#define CYG64_TS_BITS 61u
#define CYG64_TS_MASK ((UINT64_C(1) << CYG64_TS_BITS) - 1u)
#define CYG64_ADDR_MASK ((UINT64_C(1) << 48) - 1u)
#define CYG64_THREAD_SHIFT 48u
#define CYG64_TYPE_SHIFT 56u
#define CYG64_STHREAD_SHIFT 40u
#define CYG64_DATA_MASK ((UINT64_C(1) << 40) - 1u)

/* With CYG_F_LAPTAG (set by every 64-bit runtime), a 64-bit call record's b holds bits 1..11 of
 * the inverted lap number in bits 60..50, the timestamp in bits 49..0 (ts_bits <= 50). One lap
 * bit tells a slot's last lap from the one before; it cannot tell a record that a preempted
 * writer stored two laps late, with another thread's record of this lap under it. With the tag,
 * such a stale record passes only if its writer was late by a multiple of 4096 laps. */
#define CYG64_TAG_SHIFT 50u
#define CYG64_TAG_MASK (UINT64_C(0x7ff) << CYG64_TAG_SHIFT)
#define CYG64_TAGGED_TS_BITS 50u
#define CYG64_TAGGED_TS_MASK ((UINT64_C(1) << CYG64_TAGGED_TS_BITS) - 1u)
/* A special record has room for 8 of those bits: its data is then 32 bits (bits 31..0), bits
 * 1..8 of the inverted lap number in bits 39..32 (a late special passes only if its writer
 * was late by a multiple of 512 laps). */
#define CYG64_STAG_MASK (UINT64_C(0xff) << 32)
#define CYG64_TAGGED_DATA_MASK UINT64_C(0xffffffff)

/* Special record types (6 bits). Specials carry no timestamp: they take the time of the record
 * before them. */
#define CYG_SP_THREAD 1u   /* a = OS thread id; the record's thread index is the new thread's;
                              data = 0, or CYG_THREAD_VFORK */
#define CYG_THREAD_VFORK 1u /* THREAD data: a vfork child borrowing its parent's memory; a is
                              its pid */
#define CYG_SP_CONTEXT 2u  /* a = context handle (task, ISR); data = context id now running */
#define CYG_SP_MARK 3u     /* a = user value; data = user mark id */
#define CYG_SP_FAULT 4u    /* a = faulting PC; data = fault kind (CYG_FAULT_*) */
#define CYG_SP_FAULT_LR 5u /* a = LR at the fault (a signal: the faulting address); follows
                              CYG_SP_FAULT */
#define CYG_SP_START 6u    /* recording (re)started: what came before may be unrelated */
#define CYG_SP_STOP 7u     /* recording stopped by the API */
#define CYG_SP_PAD 8u      /* no event: fills a chunk's slots that its thread will not use
                              (the thread ended, or lost a race for a new chunk) */
#define CYG_SP_VALUE 9u    /* a = one word of an argument or the return value of a wrapped
                              call (cygtrace wrap); data: CYG_VAL_* below. It belongs to the
                              innermost call open in its thread or context: the wrapper writes
                              its entry, the arguments, (the call), the return value, its exit */
#define CYG_SP_TRIGGER 10u /* a trigger fired (version 3): a = the function (a start or freeze
                              at its entry, a stop at its exit) or the mark's value; data =
                              CYG_TRIGD_* below */
#define CYG_SP_TIME 11u    /* a clock reading for the specials after it (which have none of
                              their own): a = the timestamp, as a call record of this ring
                              carries it (ts_bits wide); data = 0. An RTOS glue writes it just
                              before a CONTEXT, so that a switch has its own time */
#define CYG_SP_SCHED 12u   /* the scheduler (an RTOS glue, FORMAT.md 7.5): data = CYG_SCHED_*
                              below (the kind in bits 3..0), a = as the kind says */
#define CYG_SP_NAME 13u    /* a name, a word of it a record (FORMAT.md 7.5): data =
                              CYG_NAME_* below. Part 0: a = the key (a context id, an object's
                              handle); parts 1..: a = W bytes of the name in memory order */
#define CYG_SP_SETJMP 14u  /* setjmp (sigsetjmp...) called: a = the jmp_buf's address; data = 0.
                              Written before the real setjmp saves the context, by the thread
                              that calls it: a longjmp to it returns to this record's depth */
#define CYG_SP_LONGJMP 15u /* longjmp (siglongjmp...) called: a = the jmp_buf's address; data
                              = 0. Written before the real longjmp: the calls open since the
                              SETJMP of that buffer in this thread never return */

/* SCHED data (24 bits). Kind in bits 3..0: */
#define CYG_SCHED_KIND_MASK 0xFu
#define CYG_SCHED_BLOCK 1u  /* the current context blocks: a = the object's handle (0 for a
                               delay, a notification, a suspension); bits 7..4 the object's
                               type (CYG_OBJ_*), bits 9..8 the operation (CYG_OP_*) */
#define CYG_SCHED_WAKE 2u   /* the current context made context ID (bits 23..4) ready: a = its
                               handle (the waker's side) */
#define CYG_SCHED_RESUME 3u /* the current context, just switched in, was woken by context ID
                               (bits 23..4): a = the waker's handle (the woken side, right
                               after the CONTEXT) */
#define CYG_SCHED_OBJ_SHIFT 4u
#define CYG_SCHED_OBJ_MASK 0xFu
#define CYG_SCHED_OP_SHIFT 8u
#define CYG_SCHED_OP_MASK 0x3u
#define CYG_SCHED_ID_SHIFT 4u
#define CYG_SCHED_ID_MASK 0xFFFFFu /* 20 bits of a context id */

/* Object types (SCHED BLOCK, NAME of an object). */
#define CYG_OBJ_NONE 0u
#define CYG_OBJ_QUEUE 1u
#define CYG_OBJ_SEMAPHORE 2u  /* binary or counting */
#define CYG_OBJ_MUTEX 3u      /* recursive too */
#define CYG_OBJ_EVENTS 4u     /* an event group */
#define CYG_OBJ_STREAM 5u     /* a stream or message buffer */
#define CYG_OBJ_DELAY 6u      /* a delay: a = the ticks asked for (0: unknown) */
#define CYG_OBJ_NOTIFY 7u     /* a task notification: a = its index */
#define CYG_OBJ_SUSPEND 8u    /* suspended by a call (vTaskSuspend) */
#define CYG_OBJ_TASK 9u       /* a task, as a NAME's object (unused: tasks are contexts) */
/* Zephyr's kernel objects (target/zephyr), shown by their Zephyr type names. */
#define CYG_OBJ_K_SEM 10u     /* k_sem (take) */
#define CYG_OBJ_K_MUTEX 11u   /* k_mutex (lock) */
#define CYG_OBJ_K_QUEUE 12u   /* k_queue, and k_fifo and k_lifo, which are k_queues (get, put) */
#define CYG_OBJ_K_MSGQ 13u    /* k_msgq (get, put) */
#define CYG_OBJ_K_STACK 14u   /* k_stack (pop) */
#define CYG_OBJ_K_PIPE 15u    /* k_pipe (read, write) */

/* Operations (SCHED BLOCK on a queue or a stream; on a Zephyr k_queue, k_msgq or k_pipe: get
 * or read, put or write). */
#define CYG_OP_RECEIVE 0u
#define CYG_OP_SEND 1u
#define CYG_OP_PEEK 2u

/* NAME data (24 bits): */
#define CYG_NAME_PART_MASK 0xFu      /* bits 3..0: which record, 0 the key */
#define CYG_NAME_LAST (1u << 4)      /* the name's last record */
#define CYG_NAME_LEN_SHIFT 5u        /* bits 8..5: the name's bytes in this record, 0..W */
#define CYG_NAME_LEN_MASK 0xFu
#define CYG_NAME_WHAT_SHIFT 9u       /* bit 9: 0 a context (key: its id), 1 an object (key:
                                        its handle) */
#define CYG_NAME_OBJECT (1u << 9)
#define CYG_NAME_OBJ_SHIFT 10u       /* bits 13..10: an object's type (CYG_OBJ_*) */
#define CYG_NAME_OBJ_MASK 0xFu
#define CYG_NAME_MAX_PARTS 16u       /* the key and up to 15 words: 60 bytes on a 32-bit
                                        target, 120 on a 64-bit one */

/* VALUE data: 24 bits, the same on every target. A value is one word (an int, a pointer, a
 * float), two on a 32-bit target for a 64-bit integer or a double (part 0 the low word), or a
 * string's bytes, W to a word in memory order, up to 16 words. */
#define CYG_VAL_IDX_MASK 0xFu       /* bits 3..0: the argument, 0..14, or CYG_VAL_RET */
#define CYG_VAL_RET 15u             /* the return value */
#define CYG_VAL_KIND_SHIFT 4u       /* bits 6..4: CYG_VK_* */
#define CYG_VAL_KIND_MASK 7u
#define CYG_VAL_LAST (1u << 7)      /* the value's last word */
#define CYG_VAL_PART_SHIFT 8u       /* bits 11..8: which word of the value, from 0 */
#define CYG_VAL_PART_MASK 0xFu
#define CYG_VAL_LEN_SHIFT 12u       /* bits 15..12: a string's bytes in this word, 0..W */
#define CYG_VAL_LEN_MASK 0xFu
#define CYG_VAL_TRUNC (1u << 16)    /* a string longer than what was copied (last word) */
#define CYG_VAL_NULL (1u << 17)     /* a string pointer that was NULL (one word, no bytes) */
#define CYG_VAL_CHECK_SHIFT 18u     /* bits 23..18: cyg_val_check() of the call's function: a
                                       value whose call's entry the ring lost does not pass for
                                       one of the call below it */
#define CYG_VAL_CHECK_MASK 0x3Fu
#define CYG_VAL_MAX_PARTS 16u
#define CYG_VAL_MAX_ARGS 15u        /* arguments a wrapped function may have */

/* Value kinds (CYG_VAL_KIND): how a host shows the value. */
#define CYG_VK_INT 0u   /* signed integer (an enum too), sign-extended from its words */
#define CYG_VK_UINT 1u  /* unsigned integer */
#define CYG_VK_PTR 2u   /* an address: hex */
#define CYG_VK_F32 3u   /* a float's bits */
#define CYG_VK_F64 4u   /* a double's bits */
#define CYG_VK_STR 5u   /* a C string's bytes (CYG_VAL_LEN, TRUNC, NULL) */
#define CYG_VK_BOOL 6u
#define CYG_VK_CHAR 7u

/* Six bits of a function's address (bit 0, the Thumb bit, left out), for CYG_VAL_CHECK. A macro
 * for any unsigned type: a 32-bit target computes it in its word, without 64-bit shifts. */
#define CYG_VAL_CHECK_OF(fn) (((fn) >> 1 ^ (fn) >> 7 ^ (fn) >> 13 ^ (fn) >> 19) & CYG_VAL_CHECK_MASK)

static inline unsigned cyg_val_check(uint64_t fn)
{
    return (unsigned)CYG_VAL_CHECK_OF(fn);
}

/* Marks (CYG_SP_MARK data), version 3: the mark's class (0..31) in bits 23..19, its id in bits
 * 18..0, so that the data fits 24 bits on every target. Versions 1 and 2: all of data is the
 * id. */
#define CYG_MARK_ID_MASK 0x7FFFFu
#define CYG_MARK_CLASS_SHIFT 19u
#define CYG_MARK_CLASSES 32u

/* The control area (version 3): CYG_CTRL_BYTES right after the last record (at hdr_bytes +
 * capacity * rec_bytes from the control block; a version 3 ring is that much longer). It is how the recording is steered while it runs:
 * triggers that start, stop or freeze it at a function or a mark, record-time filters and the
 * classes of marks recorded. Whoever changes the request (the host through a debugger, the
 * program through cygtrace_trigger_* and the like, the Linux runtime from its environment)
 * writes the fields, then adds 1 to gen; the runtime applies a request whose gen differs from
 * applied (its hooks take their slow path while anything is armed, and for one event after a
 * change: a host also clears the hooks' word cyg_rt.last, the second word of the symbol cyg_rt,
 * FORMAT.md 10). The runtime writes applied and the fired fields; nobody else does. All fields
 * little-endian; addresses as the hooks see them (a Thumb function's bit 0 is ignored when
 * compared). */
#define CYG_CTRL_BYTES 256u
#define CYG_CTRL_MAGIC 0x43475943u     /* "CYGC" as a little-endian word */
#define CYG_CTRL_TRIGS 6u              /* triggers, at most */
#define CYG_CTRL_EXCLS 12u             /* excluded functions, at most */

/* Byte offsets in the control area. */
#define CYG_CTRL_OFF_MAGIC 0u     /* u32 CYG_CTRL_MAGIC (the runtime, at init)               */
#define CYG_CTRL_OFF_GEN 4u       /* u32 the request's generation: + 1 after each change     */
#define CYG_CTRL_OFF_APPLIED 8u   /* u32 the generation the runtime applied                  */
#define CYG_CTRL_OFF_EVENTS 12u   /* u32 classes of marks recorded: bit c for class c        */
#define CYG_CTRL_OFF_DEPTH 16u    /* u32 record calls to this depth only, per thread or
                                     context (1: the outermost calls; 0: every depth)         */
#define CYG_CTRL_OFF_NTRIG 20u    /* u8  triggers in use, from the first                      */
#define CYG_CTRL_OFF_NEXCL 21u    /* u8  excluded functions in use, from the first            */
#define CYG_CTRL_OFF_HIDE 22u     /* u16 bit i: excluded function i hides its callees too     */
#define CYG_CTRL_OFF_FIRED 24u    /* u8  1 + the trigger that fired last, 0: none (runtime)  */
#define CYG_CTRL_OFF_NFIRED 25u   /* u8  triggers fired so far, to 255 (runtime)             */
#define CYG_CTRL_OFF_GATE 26u     /* u8  1 while start/stop triggers let events in (runtime) */
#define CYG_CTRL_OFF_FIRED_HEAD 32u /* u64 head when it fired (runtime)                     */
#define CYG_CTRL_OFF_FIRED_TS 40u /* u64 the timestamp when it fired (runtime)               */
#define CYG_CTRL_OFF_TRIG 64u     /* CYG_CTRL_TRIGS triggers of CYG_CTRL_TRIG_BYTES          */
#define CYG_CTRL_OFF_EXCL 160u    /* CYG_CTRL_EXCLS u64 function addresses                   */
#define CYG_CTRL_TRIG_BYTES 16u

/* A trigger: u64 what (a function's address, or a mark id), u32 after (a freeze: events
 * recorded after the trigger's own before the ring freezes), u8 kind (CYG_TRIG_*), u8 flags
 * (CYG_TRIGF_*, the runtime's), u16 reserved. */
#define CYG_TRIG_OFF_WHAT 0u
#define CYG_TRIG_OFF_AFTER 8u
#define CYG_TRIG_OFF_KIND 12u
#define CYG_TRIG_OFF_FLAGS 13u

#define CYG_TRIG_START 1u        /* recording begins at the function's entry (and again at
                                    each entry after a stop) */
#define CYG_TRIG_STOP 2u         /* recording stops after the function's exit */
#define CYG_TRIG_FREEZE 3u       /* the ring freezes `after` events after the function's entry */
#define CYG_TRIG_FREEZE_MARK 4u  /* the same at a mark with this id (any class) */
#define CYG_TRIG_KINDS 5u
#define CYG_TRIGF_FIRED 1u       /* it fired at least once */

/* TRIGGER data: the trigger's index in bits 3..0, its kind in bits 7..4. */
#define CYG_TRIGD_IDX_MASK 0xFu
#define CYG_TRIGD_KIND_SHIFT 4u

struct cyg_ctrl_trig {
    cyg_word64_t what;       /* .v: the low word, all a 32-bit target uses */
    uint32_t after;
    uint8_t kind;
    uint8_t flags;
    uint16_t reserved;
};

struct cyg_ctrl {
    uint32_t magic;
    volatile uint32_t gen;
    volatile uint32_t applied;
    uint32_t events;
    uint32_t depth;
    uint8_t ntrig;
    uint8_t nexcl;
    uint16_t hide;
    uint8_t fired;
    uint8_t nfired;
    volatile uint8_t gate;
    uint8_t reserved0[5];
    uint64_t fired_head;
    uint64_t fired_ts;
    uint8_t reserved1[16];
    struct cyg_ctrl_trig trig[CYG_CTRL_TRIGS];
    cyg_word64_t excl[CYG_CTRL_EXCLS];
};

#define CYG_ASSERT_CTRL(f, off) _Static_assert(offsetof(struct cyg_ctrl, f) == (off), #f)
CYG_ASSERT_CTRL(gen, CYG_CTRL_OFF_GEN);
CYG_ASSERT_CTRL(events, CYG_CTRL_OFF_EVENTS);
CYG_ASSERT_CTRL(depth, CYG_CTRL_OFF_DEPTH);
CYG_ASSERT_CTRL(ntrig, CYG_CTRL_OFF_NTRIG);
CYG_ASSERT_CTRL(hide, CYG_CTRL_OFF_HIDE);
CYG_ASSERT_CTRL(fired, CYG_CTRL_OFF_FIRED);
CYG_ASSERT_CTRL(gate, CYG_CTRL_OFF_GATE);
CYG_ASSERT_CTRL(fired_head, CYG_CTRL_OFF_FIRED_HEAD);
CYG_ASSERT_CTRL(fired_ts, CYG_CTRL_OFF_FIRED_TS);
CYG_ASSERT_CTRL(trig, CYG_CTRL_OFF_TRIG);
CYG_ASSERT_CTRL(excl, CYG_CTRL_OFF_EXCL);
_Static_assert(sizeof(struct cyg_ctrl_trig) == CYG_CTRL_TRIG_BYTES, "trigger size");
_Static_assert(sizeof(struct cyg_ctrl) == CYG_CTRL_BYTES, "control area size");
_Static_assert(CYG_CTRL_OFF_TRIG + CYG_CTRL_TRIGS * CYG_CTRL_TRIG_BYTES == CYG_CTRL_OFF_EXCL,
               "control area layout");

/* Fault kinds (CYG_SP_FAULT data): Cortex-M exception numbers, 0x100 + a POSIX signal, or
 * 0x200 + a RISC-V mcause exception code (0..127), 0x80 more when mcause says interrupt (a trap
 * the firmware did not expect); the word after the PC is then ra, as LR on Cortex-M. */
#define CYG_FAULT_HARD 3u
#define CYG_FAULT_MEMMANAGE 4u
#define CYG_FAULT_BUS 5u
#define CYG_FAULT_USAGE 6u
#define CYG_FAULT_SECURE 7u
#define CYG_FAULT_SIGNAL 0x100u
#define CYG_FAULT_RISCV 0x200u
#define CYG_FAULT_RISCV_IRQ 0x80u
#define CYG_FAULT_RISCV_CODE 0x7fu

/* The lap bit value (0 or 1) that record number seq must carry in a ring of 2^cap_log2. */
static inline unsigned cyg_lap(uint64_t seq, unsigned cap_log2)
{
    return (unsigned)((seq >> cap_log2) & 1u) ^ 1u;
}

/* The lap bit and tag (CYG64_LAP | CYG64_TAG_MASK bits of b) that call record number seq
 * carries in a CYG_F_LAPTAG ring of 2^cap_log2. */
static inline uint64_t cyg64_lap_tag(uint64_t seq, unsigned cap_log2)
{
    uint64_t x = ~seq >> cap_log2; /* the inverted lap number */

    return x << 63 | (x << (CYG64_TAG_SHIFT - 1u) & CYG64_TAG_MASK);
}

/* Word b as a chunked writer stores it first, before word a and then b itself (FORMAT.md 3.3):
 * b with these bits flipped, which no reader takes for a record of the slot's lap, nor of the
 * lap after it, which a writer late by a lap finds there. The lap bit alone would not do: the
 * lap bit is the lowest bit of the lap number that the bit and the tag make, so flipped alone
 * it gives the next lap's number in every other lap. With the tag's top bit too (bit 60 of a
 * call record's tag, bit 39 of a special's: the other is a timestamp's or a field's bit, which
 * the final store puts back) the number is 2048 (256) laps away. */
#define CYG64_STORE_FLIP (UINT64_C(1) << 63 | UINT64_C(1) << 60 | UINT64_C(1) << 39)

/* The lap bit and tag (CYG64_LAP | CYG64_STAG_MASK bits of b) of special record number seq in
 * a CYG_F_LAPTAG ring. */
static inline uint64_t cyg64_special_tag(uint64_t seq, unsigned cap_log2)
{
    uint64_t x = ~seq >> cap_log2;

    return x << 63 | (x << 31 & CYG64_STAG_MASK);
}

/* Version 4 records on 32-bit targets (docs/FORMAT.md section 14): one 32-bit word a slot.
 *   call:    0 | L | time:T | address bits F-1..1 | X          (T = 30 - F)
 *   header:  1 | L | 1 | type:6 | n:2 | V bits 20..0           (n more words follow)
 *   more:    1 | L | 0 | V, the next 29 bits
 * V = payload | data << 32. L = (seq >> cap_log2) & 1, not inverted: the records start filled
 * with CYG4_FILL (L set, and a more word with no header: skipped in any lap). Control block
 * byte 120 (CYG_OFF_REC4) holds F and CYG4_AREA; bytes 124..127 (CYG_OFF_TEXT_BASE) the lowest
 * address of the instrumented code, from which the host restores an address's high bits
 * (outside the check: 23 and 72..79 hold the hooks' cost, FORMAT.md 2.8). */
#define CYG_VERSION4 4u
#define CYG_OFF_REC4 120u         /* u8  bits 4..0 F; bit 7 CYG4_AREA                       */
#define CYG_OFF_TEXT_BASE 124u    /* u32 text_base                                           */
#define CYG4_AREA 0x80u           /* the control area follows the records                    */
#define CYG4_FN_MASK 0x1fu
#define CYG4_FN_MIN 12u
#define CYG4_FN_MAX 22u
#define CYG4_FN_DEFAULT 17u
#define CYG4_S (1u << 31)         /* a special's word (0: a call record)                     */
#define CYG4_L (1u << 30)         /* the lap bit                                             */
#define CYG4_H (1u << 29)         /* a special's header (0: a more word)                     */
#define CYG4_X 1u                 /* exit                                                    */
#define CYG4_TYPE_SHIFT 23u
#define CYG4_N_SHIFT 21u
#define CYG4_HDR_BITS 21u         /* bits of V in the header                                 */
#define CYG4_MORE_BITS 29u        /* bits of V in a more word                                */
#define CYG4_FILL 0xc0000000u     /* what init fills the records with                        */
#define CYG4_SP_TIMELO 16u        /* version 4 only: a TIME of the clock's low T bits (payload),
                                     within the writer's epoch: one word                     */

/* The lap bit a version 4 record of sequence number seq carries (in bit 30). Bit cap_log2
 * (at most 28) lies in seq's low word: 32-bit arithmetic, no 64-bit shift for a 32-bit core. */
static inline uint32_t cyg4_lap(uint64_t seq, unsigned cap_log2)
{
    return (((uint32_t)seq >> cap_log2) & 1u) << 30;
}

/* Words of a special of data and payload: 1 + n. In 32-bit arithmetic (a Cortex-M runtime
 * writes them): V's bits 20..0 are the payload's, 49..21 its bits 31..21 and the data's
 * 17..0, 55..50 the data's 23..18. */
static inline unsigned cyg4_special_words(uint32_t data, uint32_t payload)
{
    data &= 0xffffffu;
    return data == 0 && payload < (1u << CYG4_HDR_BITS) ? 1u : data < (1u << 18) ? 2u : 3u;
}

/* Word i (0: the header) of a special at seq, 1 + n words in all (cyg4_special_words). */
static inline uint32_t cyg4_special_word(unsigned i, unsigned type, uint32_t data,
                                         uint32_t payload, uint64_t seq, unsigned cap_log2,
                                         unsigned words)
{
    uint32_t v;

    data &= 0xffffffu;
    if (i == 0)
        v = CYG4_H | (uint32_t)(type & 63u) << CYG4_TYPE_SHIFT |
            (uint32_t)(words - 1u) << CYG4_N_SHIFT | (payload & 0x1fffffu);
    else if (i == 1)
        v = ((payload >> CYG4_HDR_BITS) | data << (32u - CYG4_HDR_BITS)) & 0x1fffffffu;
    else
        v = data >> (CYG4_HDR_BITS + CYG4_MORE_BITS - 32u);
    return CYG4_S | cyg4_lap(seq + i, cap_log2) | v;
}

/* A call record of fn (bit 0: exit) at clock ts, seq, with a function field of F bits. */
static inline uint32_t cyg4_call(uint32_t fn, uint32_t ts, uint64_t seq, unsigned cap_log2,
                                 unsigned f)
{
    return cyg4_lap(seq, cap_log2) | (ts & ((1u << (30u - f)) - 1u)) << f |
           (fn & ((1u << f) - 1u));
}

#endif
