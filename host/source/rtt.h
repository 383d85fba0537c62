/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rtt.h - the reader of an RTT up channel (common/cyg_rtt.h, docs/FORMAT.md section 13): finds
 * a control block in target memory (at a symbol's address, else by scanning the RAM sections
 * for its ID), checks it, picks the channel named "cygtrace", and reads the bytes that came
 * since the last read. And the poller that does this through a GDB server while the target
 * runs: halt, read, advance rd_off, resume, HZ times a second, on a thread of its own, into a
 * socket that a link reads (wire_open_rtt), so that the live loop reads it as any stream.
 *
 * Target memory is read through struct rtt_mem, a GDB server's (rtt_mem_rsp) or a test's. */
#ifndef RTT_H
#define RTT_H

#include <stddef.h>
#include <stdint.h>

#define RTT_MAX_BUFFERS 32      /* more up or down buffers than this: not a control block */
#define RTT_MAX_SIZE (1u << 28) /* a bigger channel is a corrupt descriptor */
#define RTT_NAME_MAX 32         /* what is read of a channel's name */
#define RTT_SCAN_MAX (4u << 20) /* the most bytes of RAM a scan reads */
#define RTT_POLL_BYTES 16384u   /* the most bytes one poll reads: it bounds the halt */
#define RTT_MAX_RANGES 16

/* rtt_mem's codes: memory that cannot be read (the server answered an error: a wrong address),
 * and a source that failed altogether (the connection). */
enum { RTT_MEM_BAD = -1, RTT_MEM_FAIL = -2 };

/* Where target memory comes from. read and write return 0, or an RTT_MEM_* code with the reason
 * in err. */
struct rtt_mem {
    int (*read)(void *arg, uint64_t addr, void *buf, size_t len, char *err, size_t errlen);
    int (*write)(void *arg, uint64_t addr, const void *buf, size_t len, char *err, size_t errlen);
    void *arg;
};

/* A span of target RAM to scan. */
struct rtt_range {
    uint64_t addr, size;
};

/* The up channel the reader takes. */
struct rtt_chan {
    uint64_t block;  /* the control block's address */
    uint64_t desc;   /* the channel's descriptor's */
    uint64_t buffer; /* its bytes' */
    uint32_t size;
    unsigned word;  /* the target's pointer size: 4 or 8 */
    unsigned index; /* among the up buffers */
    unsigned max_up, max_down;
    int named;                   /* 1: the one named "cygtrace"; 0: up buffer 0, for want of it */
    int scanned;                 /* found by the scan, not at a symbol */
    char name[RTT_NAME_MAX + 1]; /* as the target names it, "" for none */
};

/* rtt_find's and rtt_read's results besides a count. */
enum { RTT_EMEM = -1, RTT_ENONE = -2, RTT_EBAD = -3 };

/* What one read found. */
struct rtt_read_info {
    uint32_t avail; /* bytes the channel held */
    int full;       /* it held size - 1: the target had no room for more */
    int not_set_up; /* the ID was gone (a target that reset and is not through its init) */
};

/* Checks the 24 bytes that start a control block: 0 with *max_up and *max_down, RTT_ENONE when
 * the ID is not there, RTT_EBAD with the reason in why when the counts are not sane. */
int rtt_check_header(const uint8_t *hdr, unsigned *max_up, unsigned *max_down, char *why,
                     size_t whylen);

/* Checks a buffer descriptor (word-sized pointers) and fills ch's buffer and size: 1 active,
 * 0 unused (no buffer, or size 0), RTT_EBAD with the reason in why (offsets beyond the size, a
 * size beyond RTT_MAX_SIZE, a buffer that wraps the address space). *wr and *rd get its
 * offsets. */
int rtt_check_desc(const uint8_t *desc, unsigned word, struct rtt_chan *ch, uint32_t *wr,
                   uint32_t *rd, char *why, size_t whylen);

/* Finds the channel: a control block at each candidate address in turn (symbols), else the
 * first one whose ID a scan of ram finds at 4-byte alignment; in it, the up buffer named
 * "cygtrace", else up buffer 0 (ch->named 0). 0; RTT_ENONE when no ID is anywhere (err says
 * where it looked); RTT_EBAD when the block found is not sane or has no usable up buffer;
 * RTT_EMEM when the memory source failed. */
int rtt_find(const struct rtt_mem *m, unsigned word, const uint64_t *cand, unsigned ncand,
             const struct rtt_range *ram, unsigned nram, struct rtt_chan *ch, char *err,
             size_t errlen);

/* Reads what the channel holds, up to cap bytes (in two pieces where it wraps), and stores the
 * new rd_off, with the target halted. Checks the block again first (a target that reset may
 * have moved or corrupted it; one not through its init yet gives 0 and info->not_set_up).
 * Returns the bytes read; RTT_EBAD (err says what is corrupt) or RTT_EMEM. */
long rtt_read(const struct rtt_mem *m, struct rtt_chan *ch, uint8_t *buf, size_t cap,
              struct rtt_read_info *info, char *err, size_t errlen);

/* The ELF file's writable allocated sections with contents in RAM (.data, .bss, .noinit...),
 * adjacent ones merged: their count (up to max), or -1 with a reason in err. names gets their
 * names, for messages (".data .bss"). */
int rtt_ram_ranges(const char *elf, struct rtt_range *r, unsigned max, char *names, size_t nameslen,
                   char *err, size_t errlen);

/* --- through a GDB server --------------------------------------------------------------------- */

struct rsp;

/* A memory source over a GDB server: an "E NN" answer is RTT_MEM_BAD, the rest RTT_MEM_FAIL. */
struct rtt_mem rtt_mem_rsp(struct rsp *c);

/* What a poller measured. */
struct rtt_stats {
    uint64_t polls;     /* reads of the channel (the last one's halt is the detach's) */
    uint64_t bytes;     /* bytes read */
    uint64_t full;      /* polls that found the channel full: the target lost records */
    uint32_t max_bytes; /* the most of one poll */
    double halt_median_ms, halt_max_ms, halt_mean_ms; /* from the halt to the resume */
    double seconds;                                   /* from the first poll to the last */
};

struct rtt_poller;

/* Starts polling ch through c at hz polls a second on a thread of its own, the target running
 * between polls. c is the poller's until rtt_poller_stop; the target should be running (or
 * held by the server, which the first poll finds). NULL with a reason in err. */
struct rtt_poller *rtt_poller_start(struct rsp *c, const struct rtt_chan *ch, unsigned hz,
                                    char *err, size_t errlen);

/* Returns the descriptor the bytes come out of (a stream socket); it ends when the poller
 * does. */
int rtt_poller_fd(const struct rtt_poller *p);

/* Once its descriptor ended: 1 when the poller ended normally (stopped, the target exited or
 * stopped by itself; why says which, "" when stopped), 0 when it failed (why says how). */
int rtt_poller_end(struct rtt_poller *p, char *why, size_t whylen);

/* Stops the poller: a last poll reads what the channel holds and leaves the target halted, for
 * the detach (rsp_close) to resume it; a server that does not answer within a second has its
 * wait cut short. The bytes still come out of the descriptor, then its end. Safe twice. */
void rtt_poller_stop(struct rtt_poller *p);

/* Fills st; after rtt_poller_stop. */
void rtt_poller_stats(const struct rtt_poller *p, struct rtt_stats *st);

/* Stops and frees the poller (not the connection). NULL is fine. */
void rtt_poller_free(struct rtt_poller *p);

#endif
