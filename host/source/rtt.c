/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rtt.c - the RTT reader: the control block found and checked, the channel read, and the
 * poller that reads it through a GDB server while the target runs.
 *
 * A plain GDB server cannot read memory while the core runs (most probes' servers refuse,
 * QEMU's gdbstub stops the machine for any byte it receives), so each poll halts the target,
 * reads the channel, stores rd_off and resumes it: the halt lasts a few round trips to the
 * server, whatever the rate. The bytes a poll reads are bounded (RTT_POLL_BYTES), so is the
 * halt. Everything read is checked again at each poll: a target that reset lays its block out
 * anew (or into another place, another build), and a corrupt descriptor must never make us
 * read or write outside the buffer it claims.
 *
 * The poller runs on a thread of its own and hands the bytes over a socket, so that the live
 * loop (and its view) never waits on the server. It leaves the target halted when it ends:
 * QEMU takes any byte sent to a running machine as an interrupt and drops it, so a detach sent
 * to a running target would be lost; sent to a halted one, it resumes it (rsp_close). */
#include "source/rtt.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cyg_rtt.h"
#include "util/le.h"
#include "source/rsp.h"
#include "util/mono.h"

#define RTT_SCAN_CHUNK 4096u
#define RTT_HIST_US 10u     /* the halt-time histogram's bucket */
#define RTT_HIST 20000u     /* buckets: up to 200 ms; longer ones count in the last */
#define RTT_GIVE_UP_MS 1000 /* how long a stopped poller's server may take before we cut it */
#define RTT_SOCK_BYTES (1 << 20)
#define RTT_DRAIN_POLLS 64 /* reads of a channel at the end: RTT_POLL_BYTES each */

/* The ID as a control block starts: the string and its NUL (the padding after is not looked
 * at: tools write it differently). */
#define RTT_ID_CMP 11u

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)le_get(p, 4);
}

int rtt_check_header(const uint8_t *hdr, unsigned *max_up, unsigned *max_down, char *why,
                     size_t whylen)
{
    int32_t up = (int32_t)get32(hdr + CYG_RTT_OFF_MAX_UP);
    int32_t down = (int32_t)get32(hdr + CYG_RTT_OFF_MAX_DOWN);

    if (memcmp(hdr, CYG_RTT_ID, RTT_ID_CMP) != 0)
        return RTT_ENONE;
    if (up < 1 || up > (int32_t)RTT_MAX_BUFFERS || down < 0 || down > (int32_t)RTT_MAX_BUFFERS) {
        snprintf(why, whylen,
                 "%" PRId32 " up and %" PRId32 " down buffers: not a sane count "
                 "(1..%u up, 0..%u down)",
                 up, down, RTT_MAX_BUFFERS, RTT_MAX_BUFFERS);
        return RTT_EBAD;
    }
    *max_up = (unsigned)up;
    *max_down = (unsigned)down;
    return 0;
}

int rtt_check_desc(const uint8_t *desc, unsigned word, struct rtt_chan *ch, uint32_t *wr,
                   uint32_t *rd, char *why, size_t whylen)
{
    uint64_t buffer = le_get(desc + CYG_RTT_DESC_BUFFER(word), word);
    uint32_t size = get32(desc + CYG_RTT_DESC_SIZE(word));
    uint64_t top = word == 8 ? UINT64_MAX : UINT32_MAX;

    *wr = get32(desc + CYG_RTT_DESC_WR_OFF(word));
    *rd = get32(desc + CYG_RTT_DESC_RD_OFF(word));
    if (!buffer || !size)
        return 0;
    if (size < 2 || size > RTT_MAX_SIZE)
        snprintf(why, whylen, "a size of %" PRIu32 " bytes", size);
    else if (buffer > top - size + 1)
        snprintf(why, whylen,
                 "a buffer at 0x%" PRIx64 " of %" PRIu32 " bytes past the end of "
                 "memory",
                 buffer, size);
    else if (*wr >= size || *rd >= size)
        snprintf(why, whylen,
                 "wr_off %" PRIu32 " and rd_off %" PRIu32 " for a size of %" PRIu32
                 " (each must be below it)",
                 *wr, *rd, size);
    else {
        ch->buffer = buffer;
        ch->size = size;
        return 1;
    }
    return RTT_EBAD;
}

/* A channel's name into ch->name ("" when it has none or it cannot be read): 0, or RTT_EMEM
 * with the reason in err. */
static int read_name(const struct rtt_mem *m, uint64_t at, struct rtt_chan *ch, char *err,
                     size_t errlen)
{
    int rc = RTT_MEM_BAD;

    memset(ch->name, 0, sizeof ch->name);
    /* A short name near the end of a memory region: the long read fails, a short one not. */
    if (at && (rc = m->read(m->arg, at, ch->name, RTT_NAME_MAX, err, errlen)) == RTT_MEM_BAD)
        rc = m->read(m->arg, at, ch->name, sizeof CYG_RTT_CHANNEL_NAME, err, errlen);
    if (rc == RTT_MEM_FAIL)
        return RTT_EMEM;
    if (rc < 0)
        memset(ch->name, 0, sizeof ch->name);
    ch->name[RTT_NAME_MAX] = 0;
    for (char *p = ch->name; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            *p = '?'; /* it goes into messages */
    return 0;
}

/* Memory the server would not read while looking for the block: said when none is found. */
struct unread {
    unsigned n;
    char why[200];
};

static void note_unread(struct unread *u, const char *why)
{
    if (!u->n++)
        snprintf(u->why, sizeof u->why, "%s", why);
}

/* The block at addr: its channel into ch. 0, RTT_ENONE (no ID), RTT_EBAD, RTT_EMEM. */
static int open_block(const struct rtt_mem *m, unsigned word, uint64_t addr, struct rtt_chan *ch,
                      struct unread *u, char *err, size_t errlen)
{
    size_t dsz = CYG_RTT_DESC_BYTES(word);
    uint8_t hdr[CYG_RTT_OFF_BUFFERS], desc[RTT_MAX_BUFFERS * CYG_RTT_DESC_BYTES(8)];
    char why[256], why0[256] = "";
    struct rtt_chan c;
    uint32_t wr, rd;
    int rc, ok0 = 0;

    if ((rc = m->read(m->arg, addr, hdr, sizeof hdr, err, errlen)) == RTT_MEM_BAD)
        note_unread(u, err);
    if (rc < 0)
        return rc == RTT_MEM_FAIL ? RTT_EMEM : RTT_ENONE;
    memset(&c, 0, sizeof c);
    if ((rc = rtt_check_header(hdr, &c.max_up, &c.max_down, why, sizeof why)) < 0) {
        snprintf(err, errlen, "the control block at 0x%" PRIx64 ": %s", addr, why);
        return rc;
    }
    if ((rc = m->read(m->arg, addr + CYG_RTT_OFF_BUFFERS, desc, c.max_up * dsz, err, errlen)) < 0)
        return rc == RTT_MEM_FAIL ? RTT_EMEM : RTT_EBAD;
    c.block = addr;
    c.word = word;
    for (unsigned i = 0; i < c.max_up; i++) {
        const uint8_t *d = desc + i * dsz;

        c.index = i;
        c.desc = addr + CYG_RTT_OFF_BUFFERS + i * dsz;
        rc = rtt_check_desc(d, word, &c, &wr, &rd, why, sizeof why);
        if (read_name(m, le_get(d + CYG_RTT_DESC_NAME(word), word), &c, err, errlen) < 0)
            return RTT_EMEM;
        if (i == 0) {
            ok0 = rc == 1;
            snprintf(why0, sizeof why0, "%s", rc == 0 ? "has no buffer" : why);
            if (ok0)
                *ch = c;
        }
        if (strcmp(c.name, CYG_RTT_CHANNEL_NAME) != 0)
            continue;
        if (rc == 1) {
            c.named = 1;
            *ch = c;
            return 0;
        }
        snprintf(err, errlen, "the control block at 0x%" PRIx64 ": up buffer %u \"%s\": %s", addr,
                 i, c.name, rc == 0 ? "has no buffer" : why);
        return RTT_EBAD;
    }
    if (ok0)
        return 0;
    snprintf(err, errlen,
             "the control block at 0x%" PRIx64 ": no up buffer \"%s\", and up "
             "buffer 0 %s",
             addr, CYG_RTT_CHANNEL_NAME, why0);
    return RTT_EBAD;
}

/* Scans one range for the ID. 0 found, RTT_ENONE, RTT_EBAD (a bad block, err; the scan goes
 * on after it), RTT_EMEM. *scanned counts the bytes read. */
static int scan_range(const struct rtt_mem *m, unsigned word, const struct rtt_range *r,
                      struct rtt_chan *ch, uint64_t *scanned, int *bad, struct unread *u, char *err,
                      size_t errlen)
{
    uint8_t chunk[RTT_SCAN_CHUNK];
    uint64_t start = (r->addr + 3) & ~(uint64_t)3, end = r->addr + r->size, at;
    char why[sizeof u->why]; /* a refused read's: err may hold a bad block's, for rtt_find */
    int rc;

    /* Chunks overlap by the ID's length less one word, so an ID across two is seen. */
    for (at = start; at + CYG_RTT_ID_BYTES <= end && *scanned < RTT_SCAN_MAX;
         at += RTT_SCAN_CHUNK - CYG_RTT_ID_BYTES + 4) {
        size_t n = end - at < RTT_SCAN_CHUNK ? (size_t)(end - at) : RTT_SCAN_CHUNK;

        if ((rc = m->read(m->arg, at, chunk, n, why, sizeof why)) == RTT_MEM_FAIL) {
            snprintf(err, errlen, "%s", why);
            return RTT_EMEM;
        }
        if (rc < 0) {
            note_unread(u, why);
            return RTT_ENONE; /* a section the target does not have where the ELF says */
        }
        *scanned += n;
        for (size_t i = 0; i + CYG_RTT_ID_BYTES <= n; i += 4) {
            if (memcmp(chunk + i, CYG_RTT_ID, RTT_ID_CMP) != 0)
                continue;
            rc = open_block(m, word, at + i, ch, u, err, errlen);
            if (rc == 0 || rc == RTT_EMEM)
                return rc;
            *bad = 1; /* a block that is not one: maybe a later one is */
        }
        if (n < RTT_SCAN_CHUNK)
            break;
    }
    return RTT_ENONE;
}

int rtt_find(const struct rtt_mem *m, unsigned word, const uint64_t *cand, unsigned ncand,
             const struct rtt_range *ram, unsigned nram, struct rtt_chan *ch, char *err,
             size_t errlen)
{
    uint64_t scanned = 0;
    struct unread u = {0, ""};
    int rc, bad = 0, k;

    memset(ch, 0, sizeof *ch);
    for (unsigned i = 0; i < ncand; i++) {
        rc = open_block(m, word, cand[i], ch, &u, err, errlen);
        if (rc != RTT_ENONE) /* found, a bad block where a symbol says it is, a dead server */
            return rc;
    }
    for (unsigned i = 0; i < nram; i++) {
        rc = scan_range(m, word, &ram[i], ch, &scanned, &bad, &u, err, errlen);
        if (rc != RTT_ENONE) {
            ch->scanned = rc == 0;
            return rc;
        }
    }
    if (bad)
        return RTT_EBAD; /* err says what the last one found was */
    k = snprintf(err, errlen,
                 "no \"%s\" ID at the %u address%s given, nor in the %" PRIu64
                 " bytes of RAM scanned",
                 CYG_RTT_ID, ncand, ncand == 1 ? "" : "es", scanned);
    if (u.n && k >= 0 && (size_t)k < errlen)
        snprintf(err + k, errlen - (size_t)k, "; %u read%s refused: %s", u.n, u.n == 1 ? "" : "s",
                 u.why);
    return RTT_ENONE;
}

long rtt_read(const struct rtt_mem *m, struct rtt_chan *ch, uint8_t *buf, size_t cap,
              struct rtt_read_info *info, char *err, size_t errlen)
{
    size_t dsz = CYG_RTT_DESC_BYTES(ch->word), at = (size_t)(ch->desc - ch->block);
    uint8_t blk[CYG_RTT_OFF_BUFFERS + RTT_MAX_BUFFERS * CYG_RTT_DESC_BYTES(8)], rdb[4];
    unsigned up, down;
    uint32_t wr, rd, n, first;
    char why[256];
    int rc;

    memset(info, 0, sizeof *info);
    /* One read from the ID to the descriptor's end: the block is checked at no extra cost. */
    if ((rc = m->read(m->arg, ch->block, blk, at + dsz, err, errlen)) < 0)
        return RTT_EMEM;
    rc = rtt_check_header(blk, &up, &down, why, sizeof why);
    if (rc == RTT_ENONE) {
        info->not_set_up = 1;
        return 0;
    }
    if (rc == 0 && up <= ch->index)
        snprintf(why, sizeof why, "it has %u up buffers now, not the %u it had", up, ch->max_up);
    if (rc == 0 && up > ch->index &&
        (rc = rtt_check_desc(blk + at, ch->word, ch, &wr, &rd, why, sizeof why)) == 0)
        snprintf(why, sizeof why, "up buffer %u has no buffer any more", ch->index);
    if (rc != 1) {
        snprintf(err, errlen, "the control block at 0x%" PRIx64 ": %s", ch->block, why);
        return RTT_EBAD;
    }
    info->avail = wr >= rd ? wr - rd : ch->size - rd + wr;
    info->full = info->avail == ch->size - 1;
    n = info->avail < cap ? info->avail : (uint32_t)cap;
    if (!n)
        return 0;
    first = ch->size - rd < n ? ch->size - rd : n;
    if ((rc = m->read(m->arg, ch->buffer + rd, buf, first, err, errlen)) < 0 ||
        (n > first && (rc = m->read(m->arg, ch->buffer, buf + first, n - first, err, errlen)) < 0))
        return RTT_EMEM;
    /* The bytes are ours once rd_off says so: the target may then write over them. */
    le_put(rdb, (rd + n) % ch->size, 4);
    if ((rc = m->write(m->arg, ch->desc + CYG_RTT_DESC_RD_OFF(ch->word), rdb, 4, err, errlen)) < 0)
        return RTT_EMEM;
    return n;
}

/* --- the ELF's RAM ---------------------------------------------------------------------------- */

static int add_range(struct rtt_range *r, unsigned n, unsigned max, uint64_t addr, uint64_t size)
{
    for (unsigned i = 0; i < n; i++)
        if (addr <= r[i].addr + r[i].size && r[i].addr <= addr + size) { /* touch: merge */
            uint64_t end =
                addr + size > r[i].addr + r[i].size ? addr + size : r[i].addr + r[i].size;

            r[i].addr = addr < r[i].addr ? addr : r[i].addr;
            r[i].size = end - r[i].addr;
            return (int)n;
        }
    if (n == max)
        return (int)n;
    r[n].addr = addr;
    r[n].size = size;
    return (int)n + 1;
}

/* A section header, either class. */
struct shdr {
    uint64_t type, flags, addr, offset, size, name;
};

static int read_shdr(int fd, int is64, uint64_t off, struct shdr *h)
{
    Elf64_Shdr s;
    Elf32_Shdr s32;

    if (is64) {
        if (pread(fd, &s, sizeof s, (off_t)off) != (ssize_t)sizeof s)
            return -1;
        *h = (struct shdr){s.sh_type, s.sh_flags, s.sh_addr, s.sh_offset, s.sh_size, s.sh_name};
    } else {
        if (pread(fd, &s32, sizeof s32, (off_t)off) != (ssize_t)sizeof s32)
            return -1;
        *h = (struct shdr){s32.sh_type,   s32.sh_flags, s32.sh_addr,
                           s32.sh_offset, s32.sh_size,  s32.sh_name};
    }
    return 0;
}

int rtt_ram_ranges(const char *elf, struct rtt_range *r, unsigned max, char *names, size_t nameslen,
                   char *err, size_t errlen)
{
    unsigned char id[EI_NIDENT];
    Elf64_Ehdr eh;
    Elf32_Ehdr eh32;
    struct shdr h, strh = {0};
    uint64_t shoff;
    unsigned shnum, shentsize, shstrndx;
    char *strtab = NULL;
    int fd, is64, n = 0, rc = -1;
    size_t used = 0;

    if (names && nameslen)
        names[0] = 0;
    if ((fd = open(elf, O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (pread(fd, id, sizeof id, 0) != (ssize_t)sizeof id || memcmp(id, ELFMAG, SELFMAG) ||
        id[EI_DATA] != ELFDATA2LSB || (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64)) {
        snprintf(err, errlen, "not a little-endian ELF file");
        goto out;
    }
    is64 = id[EI_CLASS] == ELFCLASS64;
    if (is64 ? pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh
             : pread(fd, &eh32, sizeof eh32, 0) != (ssize_t)sizeof eh32) {
        snprintf(err, errlen, "truncated ELF header");
        goto out;
    }
    /* The host is little-endian too (every machine cygtrace runs on). */
    shoff = is64 ? eh.e_shoff : eh32.e_shoff;
    shnum = is64 ? eh.e_shnum : eh32.e_shnum;
    shentsize = is64 ? eh.e_shentsize : eh32.e_shentsize;
    shstrndx = is64 ? eh.e_shstrndx : eh32.e_shstrndx;
    if (shentsize < (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) || shnum > 4096) {
        snprintf(err, errlen, "no usable section headers");
        goto out;
    }
    /* The names only say in messages what was scanned: without them, no names. */
    if (shstrndx < shnum &&
        read_shdr(fd, is64, shoff + (uint64_t)shstrndx * shentsize, &strh) == 0 &&
        strh.size < 65536 && (strtab = calloc(1, strh.size + 1)) &&
        pread(fd, strtab, strh.size, (off_t)strh.offset) != (ssize_t)strh.size)
        strh.size = 0;
    for (unsigned i = 0; i < shnum; i++) {
        if (read_shdr(fd, is64, shoff + (uint64_t)i * shentsize, &h) < 0) {
            snprintf(err, errlen, "truncated section headers");
            goto out;
        }
        /* .init_array and the like are writable too, but in flash on a firmware. */
        if ((h.type != SHT_PROGBITS && h.type != SHT_NOBITS) || !(h.flags & SHF_ALLOC) ||
            !(h.flags & SHF_WRITE) || !h.size)
            continue;
        n = add_range(r, (unsigned)n, max, h.addr, h.size);
        if (names && strtab && h.name < strh.size && used + 1 < nameslen) {
            used += (size_t)snprintf(names + used, nameslen - used, "%s%s", used ? " " : "",
                                     strtab + h.name);
            if (used >= nameslen)
                used = nameslen - 1;
        }
    }
    rc = n;
out:
    free(strtab);
    close(fd);
    return rc;
}

/* --- a GDB server ----------------------------------------------------------------------------- */

static int rsp_mem_read(void *arg, uint64_t addr, void *buf, size_t len, char *err,
                        size_t errlen)
{
    int rc = rsp_read_mem(arg, addr, buf, len, NULL, NULL, err, errlen);

    return rc == 0 ? 0 : rc == RSP_EREPLY ? RTT_MEM_BAD : RTT_MEM_FAIL;
}

static int rsp_mem_write(void *arg, uint64_t addr, const void *buf, size_t len, char *err,
                         size_t errlen)
{
    int rc = rsp_write_mem(arg, addr, buf, len, err, errlen);

    return rc == 0 ? 0 : rc == RSP_EREPLY ? RTT_MEM_BAD : RTT_MEM_FAIL;
}

struct rtt_mem rtt_mem_rsp(struct rsp *c)
{
    struct rtt_mem m = {rsp_mem_read, rsp_mem_write, c};

    return m;
}

/* --- the poller ------------------------------------------------------------------------------- */

struct rtt_poller {
    struct rsp *c;
    struct rtt_mem m;
    struct rtt_chan ch;
    double period;
    int fd[2]; /* [0] the reader's, [1] the poller's */
    pthread_t th;
    int started;
    int stop;                    /* __atomic: end after the next poll */
    volatile sig_atomic_t abort; /* the server's waits end at once (rsp_set_stop) */
    pthread_mutex_t mu;          /* the end and the numbers */
    int ended, clean;
    char why[512];
    struct rtt_stats st;
    double halt_sum, t_first;
    uint64_t halts; /* polls whose halt ended with a resume */
    uint32_t hist[RTT_HIST];
    uint8_t buf[RTT_POLL_BYTES];
};

static int stopping(struct rtt_poller *p)
{
    return __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE);
}

/* Hands n bytes to the reader; waits while its socket is full (the target runs meanwhile),
 * not once the reader is gone. 0, or -1 when it is. */
static int emit(struct rtt_poller *p, const uint8_t *b, size_t n)
{
    while (n) {
        ssize_t k = send(p->fd[1], b, n, MSG_NOSIGNAL | MSG_DONTWAIT);

        if (k > 0) {
            b += k;
            n -= (size_t)k;
        } else if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd pf = {p->fd[1], POLLOUT, 0};

            if (p->abort)
                return -1;
            poll(&pf, 1, 20);
        } else {
            return -1;
        }
    }
    return 0;
}

/* A poll's numbers; t1 < 0: the last one, whose halt does not end (the detach ends it). */
static void note_poll(struct rtt_poller *p, double t0, double t1, long n, int full)
{
    double ms = (t1 - t0) * 1e3, q;
    unsigned b;

    pthread_mutex_lock(&p->mu);
    if (!p->st.polls)
        p->t_first = t0;
    p->st.polls++;
    p->st.bytes += (uint64_t)n;
    p->st.full += full;
    if ((uint32_t)n > p->st.max_bytes)
        p->st.max_bytes = (uint32_t)n;
    if (t1 < 0) {
        pthread_mutex_unlock(&p->mu);
        return;
    }
    /* a halt of its own (t1 is a time), in the histogram's buckets, the last for the longest */
    q = ms * 1000.0 / RTT_HIST_US;
    b = q <= 0 ? 0 : q < RTT_HIST ? (unsigned)q : RTT_HIST - 1;
    p->halts++;
    p->hist[b]++;
    p->halt_sum += ms;
    if (ms > p->st.halt_max_ms)
        p->st.halt_max_ms = ms;
    p->st.seconds = t1 - p->t_first;
    pthread_mutex_unlock(&p->mu);
}

/* Reads the channel (the target halted) and hands the bytes on: the count, or -1 with the
 * reason in p->why. drain: until it is empty. */
static long read_channel(struct rtt_poller *p, int drain, int *full)
{
    struct rtt_read_info info;
    long n, total = 0;

    *full = 0;
    for (int i = 0; i < (drain ? RTT_DRAIN_POLLS : 1); i++) {
        n = rtt_read(&p->m, &p->ch, p->buf, sizeof p->buf, &info, p->why, sizeof p->why);
        if (n < 0)
            return -1;
        *full |= info.full;
        if (n && emit(p, p->buf, (size_t)n) < 0)
            return total; /* the reader is gone: nobody wants more */
        total += n;
        if ((size_t)n < sizeof p->buf)
            break;
    }
    return total;
}

/* Sleeps until t, waking for a stop. */
static void sleep_until(struct rtt_poller *p, double t)
{
    double left;

    while (!stopping(p) && (left = t - mono_s()) > 0) {
        struct timespec ts;

        if (left > 0.02)
            left = 0.02;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)(left * 1e9);
        nanosleep(&ts, NULL);
    }
}

static void *poll_thread(void *arg)
{
    struct rtt_poller *p = arg;
    double next = mono_s(), t0;
    int running = 0, sig = 0, rc, clean = 0, full;
    char err[sizeof p->why];
    long n;

    p->why[0] = 0;
    for (;;) {
        int last = stopping(p);

        /* A stop of its own (a breakpoint instruction, a fault a server reports) or an exit
         * since the last resume: read what is left and leave it so. */
        if (running && (rc = rsp_wait_stop(p->c, 1, &sig, err, sizeof err)) != RSP_ETIMEOUT) {
            running = 0;
            if (rc == RSP_EREPLY) {
                snprintf(p->why, sizeof p->why, "the target exited");
                clean = 1;
            } else if (rc == 0) {
                if ((n = read_channel(p, 1, &full)) >= 0) {
                    note_poll(p, mono_s(), -1, n, full);
                    snprintf(p->why, sizeof p->why, "the target stopped (signal %d)", sig);
                    clean = 1;
                }
            } else {
                snprintf(p->why, sizeof p->why, "%s", err);
            }
            break;
        }
        t0 = mono_s();
        if ((rc = rsp_halt(p->c, err, sizeof err)) < 0) {
            if (rc == RSP_EREPLY) { /* the exit came as the answer to the interrupt */
                snprintf(p->why, sizeof p->why, "the target exited");
                clean = 1;
            } else {
                snprintf(p->why, sizeof p->why, "%s", err);
            }
            break;
        }
        running = 0;
        if ((n = read_channel(p, last, &full)) < 0)
            break; /* halted: the detach resumes it */
        if (last) {
            note_poll(p, t0, -1, n, full);
            clean = 1;
            break;
        }
        if ((rc = rsp_continue(p->c, err, sizeof err)) < 0) {
            snprintf(p->why, sizeof p->why, "%s", err);
            break;
        }
        running = 1;
        note_poll(p, t0, mono_s(), n, full);
        /* Late polls are not made up for: the target would only be halted more often. */
        next += p->period;
        if (next < mono_s())
            next = mono_s();
        sleep_until(p, next);
    }
    if (p->abort && !clean)
        snprintf(p->why, sizeof p->why, "the GDB server did not answer within %d s",
                 RTT_GIVE_UP_MS / 1000);
    pthread_mutex_lock(&p->mu);
    p->ended = 1;
    p->clean = clean;
    pthread_mutex_unlock(&p->mu);
    shutdown(p->fd[1], SHUT_WR); /* the reader sees the end after the last bytes */
    return NULL;
}

struct rtt_poller *rtt_poller_start(struct rsp *c, const struct rtt_chan *ch, unsigned hz,
                                    char *err, size_t errlen)
{
    struct rtt_poller *p = calloc(1, sizeof *p);
    int big = RTT_SOCK_BYTES, rc;
    sigset_t all, old;

    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->c = c;
    p->m = rtt_mem_rsp(c);
    p->ch = *ch;
    p->period = 1.0 / (hz ? hz : 1);
    pthread_mutex_init(&p->mu, NULL);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p->fd) < 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        free(p);
        return NULL;
    }
    /* What the target streams between two looks of a busy view waits here, not in it. */
    setsockopt(p->fd[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    setsockopt(p->fd[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    fcntl(p->fd[0], F_SETFL, O_NONBLOCK);
    rsp_set_stop(&p->abort);
    /* Signals go to the main thread: its poll() wakes, the poller finishes its poll. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&p->th, NULL, poll_thread, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        snprintf(err, errlen, "cannot start a thread: %s", strerror(rc));
        rtt_poller_free(p);
        return NULL;
    }
    p->started = 1;
    return p;
}

int rtt_poller_fd(const struct rtt_poller *p)
{
    return p->fd[0];
}

int rtt_poller_end(struct rtt_poller *p, char *why, size_t whylen)
{
    int clean;

    pthread_mutex_lock(&p->mu);
    snprintf(why, whylen, "%s", p->why);
    clean = p->ended ? p->clean : 0;
    pthread_mutex_unlock(&p->mu);
    return clean;
}

void rtt_poller_stop(struct rtt_poller *p)
{
    if (p)
        __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
}

void rtt_poller_stats(const struct rtt_poller *p, struct rtt_stats *st)
{
    struct rtt_poller *q = (struct rtt_poller *)p; /* the lock only */
    uint64_t half, seen = 0;

    pthread_mutex_lock(&q->mu);
    *st = p->st;
    if (p->halts) {
        st->halt_mean_ms = p->halt_sum / (double)p->halts;
        half = (p->halts + 1) / 2;
        for (unsigned i = 0; i < RTT_HIST; i++)
            if ((seen += p->hist[i]) >= half) {
                st->halt_median_ms = (i + 0.5) * RTT_HIST_US / 1000.0;
                break;
            }
    }
    pthread_mutex_unlock(&q->mu);
}

void rtt_poller_free(struct rtt_poller *p)
{
    struct timespec ts;

    if (!p)
        return;
    if (p->started) {
        rtt_poller_stop(p);
        /* A poll in progress finishes; a server that is silent has its wait cut short. */
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += RTT_GIVE_UP_MS / 1000;
        if (pthread_timedjoin_np(p->th, NULL, &ts) != 0) {
            p->abort = 1;
            pthread_join(p->th, NULL);
        }
        rsp_cleanup(p->c); /* what follows (the detach) waits a second at most */
    }
    rsp_set_stop(NULL);
    close(p->fd[0]);
    close(p->fd[1]);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
