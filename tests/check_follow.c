/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_follow.c - following a ring while it is written: the real Linux runtime in child
 * processes (tests/ring_writer: its set-up from CYGTRACE_OUT, a new run truncating the file),
 * threads of this process writing a file mapping through the runtime's hooks, and rings built
 * byte by byte (tests/ringgen.h) for the exact cases: a slot reserved and not written, a 32-bit
 * counter wrapping, the events matching dec.c's. Children die with the test (a closed pipe, and
 * PR_SET_PDEATHSIG) and are killed and reaped by pid. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cyg_format.h"
#include "cygtrace.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "source/follow.h"
#include "ring_writer.h"
#include "ringgen.h"
#include "suites.h"
#include "testdir.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static void dir_setup(void)
{
    testdir_make("follow");
}

static void dir_teardown(void)
{
    testdir_remove();
}

static long long now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* --- what a poll delivered -------------------------------------------------------------------- */

#define SEEN_MAX 8192

struct seen {
    struct ev ev[SEEN_MAX];
    size_t n;        /* events kept */
    uint64_t lost;   /* sum of EV_LOST counts */
    uint64_t losses; /* EV_LOST events */
    uint64_t recs;   /* other events */
};

static void on_ev(void *arg, const struct ev *e)
{
    struct seen *s = arg;

    if (s->n < SEEN_MAX)
        s->ev[s->n++] = *e;
    if (e->kind == EV_LOST) {
        ck_assert_uint_eq(e->data, EV_LOST_TARGET);
        ck_assert_uint_gt(e->addr, 0);
        s->lost += e->addr;
        s->losses++;
    } else {
        s->recs++;
    }
}

static long poll_all(struct follow *f, struct seen *s)
{
    char err[256] = "";
    long n = follow_poll(f, on_ev, s, (size_t)-1, err, sizeof err);

    ck_assert_msg(n >= 0, "follow_poll: %s", err);
    return n;
}

/* --- a writer: the real runtime in a child process -------------------------------------------- */

struct writer {
    pid_t pid;
    int cmd, ack;
};

/* Starts tests/ring_writer, whose runtime writes path (CYGTRACE_OUT) as told: it sets the ring
 * up before main, as in any program. size: CYGTRACE_SIZE. */
static void writer_start(struct writer *w, const char *path, const char *size)
{
    const char *build = getenv("CYGTRACE_BUILD");
    char prog[PATH_MAX];
    int c[2], a[2];

    snprintf(prog, sizeof prog, "%s/tests/ring_writer", build && *build ? build : "build");
    ck_assert_msg(access(prog, X_OK) == 0, "%s is missing: run make", prog);

    ck_assert_int_eq(pipe(c), 0);
    ck_assert_int_eq(pipe(a), 0);
    w->pid = fork();
    ck_assert_int_ge(w->pid, 0);
    if (w->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (dup2(c[0], 0) < 0 || dup2(a[1], 1) < 0)
            _exit(126);
        setenv("CYGTRACE_OUT", path, 1);
        setenv("CYGTRACE_SIZE", size, 1);
        unsetenv("CYGTRACE_MODE");
        unsetenv("CYGTRACE_CALLSITES");
        unsetenv("CYGTRACE_OFF");
        unsetenv("CYGTRACE_RING");
        execl(prog, prog, (char *)NULL);
        _exit(127);
    }
    close(c[0]);
    close(a[1]);
    w->cmd = c[1];
    w->ack = a[0];
}

/* Has the writer record pairs enter/exit pairs and waits (5 s at most) until it has. */
static void writer_do(struct writer *w, uint32_t pairs, uint64_t base)
{
    struct ring_writer_cmd m = {.pairs = pairs, .base = base};
    struct pollfd pf = {.fd = w->ack, .events = POLLIN};
    char k;

    ck_assert_int_eq(write(w->cmd, &m, sizeof m), (ssize_t)sizeof m);
    ck_assert_int_eq(poll(&pf, 1, 5000), 1);
    ck_assert_int_eq(read(w->ack, &k, 1), 1);
}

/* Ends the writer: its pipe closes, it exits; killed if it has not within 2 s. */
static void writer_stop(struct writer *w)
{
    int st;

    close(w->cmd);
    close(w->ack);
    for (int i = 0; i < 200 && waitpid(w->pid, &st, WNOHANG) == 0; i++)
        usleep(10000);
    if (kill(w->pid, 0) == 0) {
        kill(w->pid, SIGKILL);
        waitpid(w->pid, &st, 0);
    }
}

/* The events of one writer command, from index i of s: pairs enter/exit of base + 16 * k. */
static void check_pairs(const struct seen *s, size_t i, uint32_t pairs, uint64_t base)
{
    ck_assert_uint_ge(s->n, i + 2 * (size_t)pairs);
    for (uint32_t k = 0; k < pairs; k++) {
        const struct ev *en = &s->ev[i + 2 * k], *ex = en + 1;

        ck_assert_uint_eq(en->kind, EV_ENTER);
        ck_assert_uint_eq(en->addr, base + 16 * k);
        ck_assert_uint_eq(ex->kind, EV_EXIT);
        ck_assert_uint_eq(ex->addr, base + 16 * k);
        ck_assert_uint_eq(ex->seq, en->seq + 1);
        ck_assert_uint_ge(ex->time, en->time);
    }
}

/* --- rings made byte by byte, as files -------------------------------------------------------- */

static void write_file(const char *path, const void *buf, size_t len)
{
    FILE *fp = fopen(path, "wb");

    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(buf, 1, len, fp), len);
    ck_assert_int_eq(fclose(fp), 0);
}

/* A writable shared mapping of the whole file: the test's side of the ring. */
static uint8_t *map_rw(const char *path, size_t len)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    void *p;

    ck_assert_int_ge(fd, 0);
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    ck_assert_ptr_ne(p, MAP_FAILED);
    return p;
}

/* Publishes the generator's ring into the mapping: records first, the control block last. */
static void publish(uint8_t *map, struct ringgen *g, unsigned state)
{
    rg_seal(g, 0, state);
    memcpy(map + CYG_HDR_BYTES, g->buf + CYG_HDR_BYTES, g->size - CYG_HDR_BYTES);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(map, g->buf, CYG_HDR_BYTES);
}

static void put_pid(uint8_t *hdr, uint32_t pid)
{
    memcpy(hdr + CYG_OFF_PID, &pid, 4);
}

/* --- tests ------------------------------------------------------------------------------------ */

/* What is not (yet) a ring is refused with a reason: the program has not started, or the file
 * is something else. */
START_TEST(test_follow_open_errors)
{
    char err[256];
    struct ringgen g;

    ck_assert_ptr_null(follow_open(testdir_path("ring"), 1, err, sizeof err));
    ck_assert_str_eq(err, "no such file");
    write_file(testdir_path("empty"), "", 0);
    ck_assert_ptr_null(follow_open(testdir_path("empty"), 1, err, sizeof err));
    ck_assert_str_eq(err, "empty file");
    write_file(testdir_path("text"), "hello, world\n", 13);
    ck_assert_ptr_null(follow_open(testdir_path("text"), 1, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "too short"));
    ck_assert_ptr_null(follow_open(testdir(), 1, err, sizeof err));
    ck_assert_str_eq(err, "is a directory");
    ck_assert_int_eq(mkfifo(testdir_path("fifo"), 0600), 0);
    ck_assert_ptr_null(follow_open(testdir_path("fifo"), 1, err, sizeof err)); /* at once */
    ck_assert_str_eq(err, "not a regular file");
    unlink(testdir_path("fifo"));
    /* A control block that promises more records than the file has. */
    rg_init(&g, 8, 6, CYG_F_OVERWRITE);
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(testdir_path("ring"), g.buf, g.size / 2);
    ck_assert_ptr_null(follow_open(testdir_path("ring"), 1, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "shorter"));
    rg_free(&g);
    follow_close(NULL);
    unlink(testdir_path("ring"));
}
END_TEST

/* The real runtime writes, we poll, it writes more: each poll brings exactly the new events. A
 * follow opened later without from_start sees only what comes after it. */
START_TEST(test_follow_live_runtime)
{
    static struct seen s, t;
    const char *path = testdir_path("ring");
    struct follow *f, *g;
    struct writer w;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    unlink(path);
    writer_start(&w, path, "64K");
    writer_do(&w, 10, 0x401000);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_uint_eq(follow_ring(f)->pid, (uint32_t)w.pid);
    ck_assert_uint_eq(follow_ring(f)->state, CYG_S_RUNNING);
    ck_assert_uint_eq(follow_ring(f)->cap, 4096);
    ck_assert_int_eq(poll_all(f, &s), 22);
    ck_assert_uint_eq(s.ev[0].kind, EV_THREAD);
    ck_assert_uint_eq(s.ev[0].addr, (uint64_t)w.pid); /* the main thread's id is the pid */
    ck_assert_uint_eq(s.ev[1].kind, EV_START);
    check_pairs(&s, 2, 10, 0x401000);
    for (size_t i = 0; i < s.n; i++)
        ck_assert_uint_eq(s.ev[i].seq, i);
    ck_assert_int_eq(poll_all(f, &s), 0);
    ck_assert_int_eq(follow_restarted(f), 0);

    g = follow_open(path, 0, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    ck_assert_int_eq(poll_all(g, &t), 0);
    writer_do(&w, 5, 0x402000);
    ck_assert_int_eq(poll_all(f, &s), 10);
    check_pairs(&s, 22, 5, 0x402000);
    ck_assert_uint_eq(s.ev[22].seq, 22);
    ck_assert_int_eq(poll_all(g, &t), 10);
    check_pairs(&t, 0, 5, 0x402000);
    ck_assert_uint_eq(t.ev[0].seq, 22);
    ck_assert_uint_eq(follow_ring(f)->head, 64); /* slots: the writer's first chunk */
    ck_assert_uint_eq(s.lost + t.lost, 0);
    follow_close(g);
    follow_close(f);
    writer_stop(&w);
    unlink(path);
}
END_TEST

/* The slots that hold no event (chunks of 64), with the records read and lost: head. */
static void check_slots(const struct seen *s, const struct follow *f)
{
    uint64_t pad, unfilled, pending;

    follow_slots(f, &pad, &unfilled, &pending);
    ck_assert_uint_eq(s->recs + s->lost + pad + unfilled + pending, follow_ring(f)->head);
}

/* A writer that laps the reader: EV_LOSTs with the exact count where the records went (the rest
 * of the chunk the reader waited on, then up to the oldest the ring still holds), then those. A
 * 4 KB ring holds 256 records, in chunks of 64. */
START_TEST(test_follow_lapped_exact)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct follow *f;
    struct writer w;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    unlink(path);
    writer_start(&w, path, "4K");
    writer_do(&w, 1, 0x1000);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_uint_eq(follow_ring(f)->cap, 256);
    ck_assert_int_eq(poll_all(f, &s), 4);
    writer_do(&w, 1000, 0x100000); /* seq 4 to 2003: head 2048, the ring holds 1792 on */
    ck_assert_uint_eq(follow_ring(f)->head, 64);
    ck_assert_int_eq(poll_all(f, &s), 2 + 2004 - 1792);
    ck_assert_uint_eq(follow_ring(f)->head, 2048);
    ck_assert_uint_eq(s.ev[4].kind, EV_LOST);
    ck_assert_uint_eq(s.ev[4].seq, 4);
    ck_assert_uint_eq(s.ev[4].addr, 64 - 4);
    ck_assert_uint_eq(s.ev[5].kind, EV_LOST);
    ck_assert_uint_eq(s.ev[5].seq, 64);
    ck_assert_uint_eq(s.ev[5].addr, 1792 - 64);
    ck_assert_uint_eq(s.ev[6].seq, 1792);
    check_pairs(&s, 6, 106, 0x100000 + 16 * (1000 - 106));
    ck_assert_uint_eq(s.ev[s.n - 1].addr, 0x100000 + 16 * 999);
    check_slots(&s, f);

    /* Less than a lap: nothing lost. */
    writer_do(&w, 100, 0x200000);
    ck_assert_int_eq(poll_all(f, &s), 200);
    ck_assert_uint_eq(s.losses, 2);
    check_slots(&s, f);
    follow_close(f);
    writer_stop(&w);
    unlink(path);
}
END_TEST

/* A slot reserved and not written stops the poll there; written later, it comes with the rest;
 * one the writer left half a ring behind is lost, as one that a dead writer left. */
START_TEST(test_follow_unwritten_slot)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct follow *f;
    uint8_t *map;
    uint64_t a, b;
    char err[256] = "";
    pid_t dead;

    memset(&s, 0, sizeof s);
    rg_init(&g, 8, 6, CYG_F_OVERWRITE); /* 64 records */
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    map = map_rw(path, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    for (int i = 0; i < 3; i++)
        rg_event(&g, 0, 0x1000 + 16 * (unsigned)i, 100 + (unsigned)i, 1, 0);
    rg_skip(&g); /* seq 3: reserved, not written yet */
    rg_event(&g, 0, 0x2000, 200, 1, 0);
    rg_event(&g, 1, 0x2000, 201, 1, 0);
    publish(map, &g, CYG_S_RUNNING);
    ck_assert_int_eq(poll_all(f, &s), 3);
    ck_assert_int_eq(poll_all(f, &s), 0);
    ck_assert_int_eq(poll_all(f, &s), 0);

    /* The writer finishes seq 3, b last. */
    rg_encode(8, 6, 3, 0, 0x1030, 150, 1, &a, &b);
    memcpy(g.buf + CYG_HDR_BYTES + 3 * 16, &a, 8);
    memcpy(g.buf + CYG_HDR_BYTES + 3 * 16 + 8, &b, 8);
    memcpy(map + CYG_HDR_BYTES + 3 * 16, &a, 8);
    __atomic_store_n((uint64_t *)(void *)(map + CYG_HDR_BYTES + 3 * 16 + 8), b, __ATOMIC_RELEASE);
    ck_assert_int_eq(poll_all(f, &s), 3);
    ck_assert_uint_eq(s.ev[3].seq, 3);
    ck_assert_uint_eq(s.ev[3].addr, 0x1030);
    ck_assert_uint_eq(s.ev[3].time, 150);
    ck_assert_uint_eq(s.ev[5].seq, 5);
    ck_assert_uint_eq(s.losses, 0);

    /* seq 6 never written; the writer goes on: half a ring ahead, we still wait... */
    rg_skip(&g);
    for (int i = 0; i < 31; i++)
        rg_event(&g, 0, 0x3000 + 16 * (unsigned)i, 300 + (unsigned)i, 1, 0);
    publish(map, &g, CYG_S_RUNNING);
    ck_assert_int_eq(poll_all(f, &s), 0); /* head 38: 32 ahead of seq 6, cap / 2 = 32 */
    /* ...one more and it is more than half a ring ahead: seq 6 is lost. */
    rg_event(&g, 0, 0x3200, 332, 1, 0);
    publish(map, &g, CYG_S_RUNNING);
    ck_assert_int_eq(poll_all(f, &s), 1 + 32);
    ck_assert_uint_eq(s.ev[6].kind, EV_LOST);
    ck_assert_uint_eq(s.ev[6].seq, 6);
    ck_assert_uint_eq(s.ev[6].addr, 1);
    ck_assert_uint_eq(s.ev[6].time, 201); /* the time decoding had reached */
    ck_assert_uint_eq(s.ev[7].seq, 7);
    ck_assert_uint_eq(s.ev[7].addr, 0x3000);

    /* A writer process that is gone will not come back to its slot. */
    dead = fork();
    ck_assert_int_ge(dead, 0);
    if (dead == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
    rg_skip(&g);
    rg_event(&g, 0, 0x4000, 400, 1, 0);
    rg_event(&g, 1, 0x4000, 401, 1, 0);
    publish(map, &g, CYG_S_RUNNING);
    ck_assert_int_eq(poll_all(f, &s), 0); /* pid 0: no process to ask about */
    put_pid(map, (uint32_t)dead);
    ck_assert_int_eq(poll_all(f, &s), 3);
    ck_assert_uint_eq(s.ev[s.n - 3].kind, EV_LOST);
    ck_assert_uint_eq(s.ev[s.n - 3].seq, 39);
    ck_assert_uint_eq(s.ev[s.n - 3].addr, 1);
    ck_assert_uint_eq(s.ev[s.n - 1].kind, EV_EXIT);
    ck_assert_uint_eq(s.recs + s.lost, g.head);
    follow_close(f);
    munmap(map, g.size);
    rg_free(&g);
    unlink(path);
}
END_TEST

/* A new run of the program truncates the file and writes a new ring: the follow starts over
 * (once, said once), whether its head is below the old one or above it. */
START_TEST(test_follow_restart)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct follow *f;
    struct writer w;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    unlink(path);
    writer_start(&w, path, "64K");
    writer_do(&w, 20, 0x1000);
    f = follow_open(path, 0, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_int_eq(poll_all(f, &s), 0);
    writer_do(&w, 1, 0x1000);
    ck_assert_int_eq(poll_all(f, &s), 2);
    writer_stop(&w);
    ck_assert_int_eq(poll_all(f, &s), 0);
    ck_assert_int_eq(follow_restarted(f), 0);

    /* Second run, fewer records than the first had: the head went backwards. */
    writer_start(&w, path, "64K");
    writer_do(&w, 3, 0x2000);
    s.n = 0;
    ck_assert_int_eq(poll_all(f, &s), 0); /* finds the new run, says nothing of it yet */
    ck_assert_int_eq(follow_restarted(f), 1);
    ck_assert_int_eq(follow_restarted(f), 0);
    ck_assert_int_eq(poll_all(f, &s), 8);
    ck_assert_uint_eq(follow_ring(f)->pid, (uint32_t)w.pid);
    ck_assert_uint_eq(s.ev[0].kind, EV_THREAD);
    ck_assert_uint_eq(s.ev[0].seq, 0);
    check_pairs(&s, 2, 3, 0x2000);
    writer_stop(&w);

    /* Third run, more records than the second, and no poll while it set up: another pid. */
    writer_start(&w, path, "64K");
    writer_do(&w, 50, 0x3000);
    s.n = 0;
    ck_assert_int_eq(poll_all(f, &s), 0);
    ck_assert_int_eq(follow_restarted(f), 1);
    ck_assert_int_eq(poll_all(f, &s), 102);
    ck_assert_uint_eq(s.ev[0].seq, 0);
    check_pairs(&s, 2, 50, 0x3000);

    /* Fourth run, in a smaller file: another shape, another mapping. */
    writer_stop(&w);
    writer_start(&w, path, "4K");
    writer_do(&w, 2, 0x4000);
    s.n = 0;
    ck_assert_int_eq(poll_all(f, &s), 0);
    ck_assert_int_eq(follow_restarted(f), 1);
    ck_assert_int_eq(poll_all(f, &s), 6);
    ck_assert_uint_eq(follow_ring(f)->cap, 256);
    check_pairs(&s, 2, 2, 0x4000);
    writer_do(&w, 1, 0x5000);
    ck_assert_int_eq(poll_all(f, &s), 2);
    ck_assert_int_eq(follow_restarted(f), 0);
    follow_close(f);
    writer_stop(&w);
    unlink(path);
}
END_TEST

/* The file replaced by another (a new inode: removed and made again, or renamed over). */
START_TEST(test_follow_file_replaced)
{
    static struct seen s;
    const char *path = testdir_path("ring"), *other = testdir_path("other");
    struct ringgen g;
    struct follow *f;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    rg_init(&g, 8, 6, CYG_F_OVERWRITE);
    rg_event(&g, 0, 0x1000, 1, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_int_eq(poll_all(f, &s), 1);

    /* Same pid (0), same head: only the inode says it is another ring. */
    rg_free(&g);
    rg_init(&g, 8, 6, CYG_F_OVERWRITE);
    rg_event(&g, 0, 0x2000, 1, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(other, g.buf, g.size);
    ck_assert_int_eq(rename(other, path), 0);
    ck_assert_int_eq(poll_all(f, &s), 0);
    ck_assert_int_eq(follow_restarted(f), 1);
    ck_assert_int_eq(poll_all(f, &s), 1);
    ck_assert_uint_eq(s.ev[1].addr, 0x2000);
    rg_free(&g);
    follow_close(f);
    unlink(path);
}
END_TEST

/* The file cut short under the mapping: reading it would raise SIGBUS. Cut while we deliver
 * (between two batches), the poll ends early; cut and left empty, the polls say nothing for a
 * while, then that there is no ring any more. Removed, the same. */
struct cutter {
    struct seen *s;
    const char *path;
    int done;
};

static void cut_on_first(void *arg, const struct ev *e)
{
    struct cutter *c = arg;

    if (!c->done++)
        ck_assert_int_eq(truncate(c->path, 0), 0);
    on_ev(c->s, e);
}

START_TEST(test_follow_truncated_under_us)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct cutter c = {.s = &s, .path = path};
    struct ringgen g;
    struct follow *f;
    char err[256] = "";
    long n;
    long long t0;

    memset(&s, 0, sizeof s);
    rg_init(&g, 8, 12, CYG_F_OVERWRITE); /* 4096 records: several batches */
    for (int i = 0; i < 3000; i++)
        rg_event(&g, i & 1, 0x1000 + 16 * (unsigned)(i / 2), (unsigned)i, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    n = follow_poll(f, cut_on_first, &c, (size_t)-1, err, sizeof err);
    ck_assert_int_gt(n, 0);
    ck_assert_int_lt(n, 3000); /* the batches after the cut were not read */
    ck_assert_int_eq(follow_poll(f, on_ev, &s, 100, err, sizeof err), 0);

    /* Written again (the new run's set-up): a restart. */
    write_file(path, g.buf, g.size);
    s.n = 0;
    ck_assert_int_eq(poll_all(f, &s), 0);
    ck_assert_int_eq(follow_restarted(f), 1);
    ck_assert_int_eq(poll_all(f, &s), 3000);

    /* Left empty: 0 for a few seconds, then an error. */
    ck_assert_int_eq(truncate(path, 0), 0);
    t0 = now_ms();
    while ((n = follow_poll(f, on_ev, &s, 100, err, sizeof err)) == 0 && now_ms() - t0 < 10000)
        usleep(50000);
    ck_assert_int_eq(n, -1);
    ck_assert_int_ge(now_ms() - t0, 2000);
    ck_assert_msg(strstr(err, "no longer holds a ring") != NULL, "%s", err);

    /* Removed: the same, with its own reason. */
    write_file(path, g.buf, g.size);
    follow_close(f);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_int_eq(unlink(path), 0);
    t0 = now_ms();
    while ((n = follow_poll(f, on_ev, &s, 100, err, sizeof err)) >= 0 && now_ms() - t0 < 10000)
        usleep(50000);
    ck_assert_int_eq(n, -1);
    ck_assert_str_eq(err, "the file went away");
    follow_close(f);
    rg_free(&g);
}
END_TEST

static void ev_eq(const struct ev *a, const struct ev *b)
{
    ck_assert_uint_eq(a->seq, b->seq);
    ck_assert_uint_eq(a->kind, b->kind);
    ck_assert_uint_eq(a->addr, b->addr);
    ck_assert_uint_eq(a->time, b->time);
    ck_assert_uint_eq(a->site, b->site);
    ck_assert_uint_eq(a->ctx, b->ctx);
    ck_assert_uint_eq(a->data, b->data);
}

/* Follows the ring in path from its start, max events per poll, into s (fresh). */
static void follow_all(const char *path, size_t max, struct seen *s)
{
    char err[256] = "";
    struct follow *f = follow_open(path, 1, err, sizeof err);
    long n;

    ck_assert_msg(f != NULL, "%s", err);
    memset(s, 0, sizeof *s);
    while ((n = follow_poll(f, on_ev, s, max, err, sizeof err)) > 0)
        ck_assert_uint_le((size_t)n, max);
    ck_assert_int_eq(n, 0);
    follow_close(f);
}

/* Follow and dec.c decode the same ring to the same events: 32- and 64-bit records, call
 * sites, contexts, specials, timestamps that wrap, a slot never written, a lapped ring; in
 * polls of any size. */
START_TEST(test_follow_matches_dec)
{
    static struct seen s, t;
    static const struct {
        unsigned word, cap_log2, flags, ts_bits;
    } rings[] = {
        {8, 6, CYG_F_OVERWRITE, 0},
        {8, 5, CYG_F_OVERWRITE | CYG_F_CALLSITES, 0},
        {4, 6, CYG_F_OVERWRITE, 12},
        {4, 7, 0, 0},
    };
    const char *path = testdir_path("ring");

    for (size_t r = 0; r < sizeof rings / sizeof rings[0]; r++) {
        struct ringgen g;
        struct dec_ring dr;
        struct dec_stats st;
        struct src *src;
        struct dec *d;
        char why[256] = "";
        struct ev e;
        size_t i = 0;

        rg_init(&g, rings[r].word, rings[r].cap_log2, rings[r].flags);
        g.ts_bits = rings[r].ts_bits;
        for (unsigned k = 0; k < 100; k++) {
            if (k == 20)
                rg_skip(&g); /* more than half a ring behind the head at the end */
            if (k % 17 == 0)
                rg_special(&g, CYG_SP_CONTEXT, k, 0x20000000 + k, 1);
            if (k % 23 == 0)
                rg_special(&g, CYG_SP_MARK, 7, k, 2);
            rg_event(&g, k & 1, 0x8000 + 64 * (k / 2), (uint64_t)k * 1000, 1 + (k & 1), 0x9000 + k);
        }
        rg_seal(&g, 0, CYG_S_FROZEN);
        write_file(path, g.buf, g.size);

        src = src_open_file(path, (char[64]){0}, 64);
        ck_assert_ptr_nonnull(src);
        ck_assert_int_eq(hdr_locate(src, &dr, why, sizeof why), 0);
        d = dec_open(src, &dr);
        follow_all(path, (size_t)-1, &s);
        while (dec_next(d, &e) > 0) {
            while (i < s.n && s.ev[i].kind == EV_LOST)
                i++;
            ck_assert_uint_lt(i, s.n);
            ev_eq(&s.ev[i], &e);
            i++;
        }
        ck_assert_uint_eq(i, s.n);
        dec_get_stats(d, &st);
        ck_assert_uint_eq(s.recs, st.decoded);
        /* From the ring's start: what it no longer holds is lost too, said first. */
        ck_assert_uint_eq(s.lost, st.overwritten + st.unwritten);
        ck_assert_uint_eq(s.losses, (st.overwritten ? 1 : 0) + (st.unwritten ? 1 : 0));
        if (st.overwritten) {
            ck_assert_uint_eq(s.ev[0].kind, EV_LOST);
            ck_assert_uint_eq(s.ev[0].seq, 0);
            ck_assert_uint_eq(s.ev[0].addr, st.overwritten);
        }
        dec_close(d);
        src_close(src);

        /* Any poll size gives the same events, losses included. */
        for (size_t max = 1; max <= 5; max += 2) {
            follow_all(path, max, &t);
            ck_assert_uint_eq(t.n, s.n);
            for (size_t j = 0; j < s.n; j++)
                ev_eq(&t.ev[j], &s.ev[j]);
        }
        rg_free(&g);
    }
    unlink(path);
}
END_TEST

/* A block the runtime has sealed but not yet given its pid and clock rate (its set-up, a
 * millisecond): not attached to, as the caller takes the load bias and the rate from it. */
START_TEST(test_follow_waits_for_setup)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct follow *f;
    uint32_t pid = (uint32_t)getpid();
    char err[256] = "";

    memset(&s, 0, sizeof s);
    rg_init(&g, 8, 6, CYG_F_OVERWRITE | CYG_F_LAPTAG);
    rg_special(&g, CYG_SP_START, 0, 0, 1);
    rg_seal(&g, 0, CYG_S_RUNNING);
    memset(g.buf + CYG_OFF_TS_HZ, 0, 8);
    write_file(path, g.buf, g.size);
    ck_assert_ptr_null(follow_open(path, 1, err, sizeof err));
    ck_assert_str_eq(err, "the program is still setting its ring up");
    memcpy(g.buf + CYG_OFF_PID, &pid, 4);
    memcpy(g.buf + CYG_OFF_TS_HZ, &(uint64_t){1000000000u}, 8);
    write_file(path, g.buf, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_uint_eq(follow_ring(f)->pid, pid);
    ck_assert_int_eq(poll_all(f, &s), 1);
    follow_close(f);
    rg_free(&g);
    unlink(path);
}
END_TEST

/* A program that lapped its ring before the follow came (it started after "live --from-start"
 * and wrote more than a ringful before the first poll): from the start means from its first
 * record, so what it overwrote is one EV_LOST at seq 0, not skipped. Without from_start, what
 * was there before is no one's business. */
START_TEST(test_follow_from_start_lapped_before_open)
{
    static struct seen s, t;
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct follow *f, *h;
    uint8_t *map;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    rg_init(&g, 8, 6, CYG_F_OVERWRITE | CYG_F_LAPTAG); /* 64 records */
    for (unsigned i = 0; i < 100; i++)
        rg_event(&g, (int)(i & 1), 0x1000 + 16 * (i / 2), i, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    map = map_rw(path, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    h = follow_open(path, 0, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_int_eq(poll_all(f, &s), 1 + 64);
    ck_assert_uint_eq(s.ev[0].kind, EV_LOST);
    ck_assert_uint_eq(s.ev[0].seq, 0);
    ck_assert_uint_eq(s.ev[0].addr, 100 - 64);
    ck_assert_uint_eq(s.ev[1].seq, 100 - 64);
    ck_assert_uint_eq(s.ev[1].addr, 0x1000 + 16 * 18);
    ck_assert_uint_eq(s.recs + s.lost, 100);
    ck_assert_int_eq(poll_all(h, &t), 0);

    /* Then as before: the new records, and no loss while the reader keeps up. */
    for (unsigned i = 0; i < 10; i++)
        rg_event(&g, (int)(i & 1), 0x2000 + 16 * (i / 2), 200 + i, 1, 0);
    publish(map, &g, CYG_S_RUNNING);
    ck_assert_int_eq(poll_all(f, &s), 10);
    ck_assert_int_eq(poll_all(h, &t), 10);
    ck_assert_uint_eq(s.recs + s.lost, 110);
    ck_assert_uint_eq(s.losses + t.losses, 1);
    follow_close(h);
    follow_close(f);
    munmap(map, g.size);
    rg_free(&g);
    unlink(path);
}
END_TEST

/* Stop mode: once the ring is full the runtime drops events and counts them in the control
 * block's lost. Each rise of that counter comes as one EV_LOST after the records, so that
 * read + lost is what the program made; a follow that starts later takes the count as it is. */
START_TEST(test_follow_stop_mode_lost)
{
    static struct seen s, t;
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct follow *f, *h;
    uint8_t *map;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    rg_init(&g, 8, 6, CYG_F_LAPTAG); /* stop mode, 64 records */
    for (unsigned i = 0; i < 40; i++)
        rg_event(&g, (int)(i & 1), 0x1000 + 16 * (i / 2), i, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    map = map_rw(path, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_int_eq(poll_all(f, &s), 40);
    for (unsigned i = 40; i < 64; i++)
        rg_event(&g, (int)(i & 1), 0x1000 + 16 * (i / 2), i, 1, 0);
    g.head++; /* the reservation that found the ring full, as the runtime's */
    rg_seal(&g, 36, CYG_S_FULL);
    memcpy(map + CYG_HDR_BYTES, g.buf + CYG_HDR_BYTES, g.size - CYG_HDR_BYTES);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(map, g.buf, CYG_HDR_BYTES);
    ck_assert_int_eq(poll_all(f, &s), 24 + 1);
    ck_assert_uint_eq(s.ev[63].seq, 63);
    ck_assert_uint_eq(s.ev[64].kind, EV_LOST);
    ck_assert_uint_eq(s.ev[64].seq, 64);
    ck_assert_uint_eq(s.ev[64].addr, 36);
    ck_assert_int_eq(poll_all(f, &s), 0);
    h = follow_open(path, 0, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);

    /* More dropped: the rise only, to both. */
    rg_seal(&g, 50, CYG_S_FULL);
    memcpy(map, g.buf, CYG_HDR_BYTES);
    ck_assert_int_eq(poll_all(f, &s), 1);
    ck_assert_uint_eq(s.ev[65].addr, 14);
    ck_assert_uint_eq(s.recs + s.lost, 64 + 50);
    ck_assert_int_eq(poll_all(h, &t), 1);
    ck_assert_uint_eq(t.lost, 14);
    follow_close(h);
    follow_close(f);
    munmap(map, g.size);
    rg_free(&g);
    unlink(path);
}
END_TEST

/* Writes record seq of g's ring (a call record of thread, time ts) into both g and the mapping,
 * word b last: a writer that stores after the others. */
static void store_late(struct ringgen *g, uint8_t *map, uint64_t seq, int exit, uint64_t fn,
                       uint64_t ts, unsigned thread)
{
    uint64_t a, b, h = g->head;
    size_t off = CYG_HDR_BYTES + (seq & (((uint64_t)1 << g->cap_log2) - 1)) * g->rec;

    g->head = seq;
    rg_event(g, exit, fn, ts, thread, 0);
    g->head = h;
    memcpy(&a, g->buf + off, 8);
    memcpy(&b, g->buf + off + 8, 8);
    memcpy(map + off, &a, 8);
    __atomic_store_n((uint64_t *)(void *)(map + off + 8), b, __ATOMIC_RELEASE);
}

/* Each thread's events in its order, across chunks: thread 1 took the last slot of its chunk
 * (seq 3) and a signal came before its store; the handler's records went to a chunk of their
 * own (4..7), not yet written when the reader first looked, so that both chunks wait. The
 * handler's records come in first: they must wait for seq 3, which the thread stores once the
 * handler is done. (Seen as a thread's later-chunk record delivered before an earlier chunk's
 * in stress_linux.sh's armed runs, where every event takes the slow path.) */
START_TEST(test_follow_chunk_order_across_pending)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct follow *f;
    uint8_t *map;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    rg_init(&g, 8, 6, CYG_F_OVERWRITE | CYG_F_LAPTAG); /* 64 records */
    g.chunk_log2 = 2;                                  /* chunks of 4 */
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    map = map_rw(path, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    rg_event(&g, 0, 0x1000, 10, 1, 0); /* seq 0..2 */
    rg_event(&g, 0, 0x1100, 11, 1, 0);
    rg_event(&g, 1, 0x1100, 12, 1, 0);
    rg_skip(&g); /* seq 3: taken, the signal came before its store */
    rg_skip(&g); /* seq 4..7: the handler's chunk, claimed */
    rg_skip(&g);
    rg_skip(&g);
    rg_skip(&g);
    publish(map, &g, CYG_S_RUNNING);
    ck_assert_int_eq(poll_all(f, &s), 3);

    /* The handler records (seq 4, 5), and is still at it: nothing of thread 1 yet. */
    store_late(&g, map, 4, 0, 0x9000, 13, 1);
    store_late(&g, map, 5, 1, 0x9000, 14, 1);
    ck_assert_int_eq(poll_all(f, &s), 0);
    ck_assert_int_eq(poll_all(f, &s), 0);

    /* The thread stores seq 3: then all of it, in its order. */
    store_late(&g, map, 3, 1, 0x1000, 15, 1);
    ck_assert_int_eq(poll_all(f, &s), 3);
    for (size_t i = 0; i < s.n; i++)
        ck_assert_uint_eq(s.ev[i].seq, i);
    ck_assert_uint_eq(s.lost, 0);
    follow_close(f);
    munmap(map, g.size);
    rg_free(&g);
    unlink(path);
}
END_TEST

/* A chunk with a record of another thread in it: a record torn by a writer a lap late (its word
 * a stored between the chunk's thread's a and b, FORMAT.md 3.3; seen in stress_linux.sh's armed
 * runs). The chunk then has no one owner: its slot still unwritten waits for every thread, and
 * thread 1's record in the next chunk comes after it, not before (with the torn record's thread
 * taken for the owner, thread 1's later records passed its pending slot). */
START_TEST(test_follow_chunk_torn_owner)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct follow *f;
    uint8_t *map;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    rg_init(&g, 8, 6, CYG_F_OVERWRITE | CYG_F_LAPTAG); /* 64 records */
    g.chunk_log2 = 2;                                  /* chunks of 4 */
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    map = map_rw(path, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    rg_event(&g, 0, 0x1000, 10, 1, 0); /* seq 0: thread 1's */
    rg_event(&g, 0, 0x2000, 11, 2, 0); /* seq 1: torn, thread 2's word a */
    rg_skip(&g);                       /* seq 2, 3: thread 1's, not stored yet */
    rg_skip(&g);
    rg_event(&g, 1, 0x1000, 14, 1, 0); /* seq 4: thread 1's next chunk */
    publish(map, &g, CYG_S_RUNNING);
    ck_assert_int_eq(poll_all(f, &s), 2);
    ck_assert_int_eq(poll_all(f, &s), 0); /* seq 4 waits for seq 2 */

    store_late(&g, map, 2, 0, 0x1100, 12, 1);
    store_late(&g, map, 3, 1, 0x1100, 13, 1);
    ck_assert_int_eq(poll_all(f, &s), 3);
    for (size_t i = 0; i < s.n; i++)
        ck_assert_uint_eq(s.ev[i].seq, i);
    ck_assert_uint_eq(s.lost, 0);
    follow_close(f);
    munmap(map, g.size);
    rg_free(&g);
    unlink(path);
}
END_TEST

/* dec.c's rule for a chunk's last slot after a written one that holds a record stored two laps
 * late (its lap bit right, its tag not): the record of the chunk's thread there is lost, one
 * record said lost, not a chunk's unused end (which would leave read + lost short of what was
 * written). Its writer gone, the reader says so at once; the unused end of the next chunk
 * stays no event. */
START_TEST(test_follow_chunk_end_late_store)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct follow *f;
    uint64_t a, b, pad, unfilled, pending;
    uint8_t *p;
    char err[256] = "";
    pid_t dead;

    memset(&s, 0, sizeof s);
    rg_init(&g, 8, 4, CYG_F_OVERWRITE | CYG_F_LAPTAG); /* 16 records */
    g.chunk_log2 = 2;
    for (unsigned i = 0; i < 40; i++) /* laps 0 to 2 */
        rg_event(&g, (int)(i & 1), 0x1000 + (i & ~1u) * 16, 100 + i, 1, 0);
    rg_event(&g, 0, 0xa0, 200, 1, 0); /* seq 40..43: thread 1 */
    rg_event(&g, 1, 0xa0, 201, 1, 0);
    rg_event(&g, 0, 0xb0, 202, 1, 0);
    rg_event(&g, 1, 0xb0, 203, 1, 0); /* seq 43, then covered by the late store */
    rg_event(&g, 0, 0xc0, 204, 1, 0); /* seq 44..47: thread 1 goes on, its end unused */
    rg_skip(&g);
    rg_skip(&g);
    rg_skip(&g);
    /* the writer of seq 11 (two laps before) stores its record over seq 43's */
    rg_encode(8, 4, 11, 0, 0xdead0, 7, 2, &a, &b);
    b = cyg64_lap_tag(11, 4) | 7;
    p = g.buf + CYG_HDR_BYTES + (43 & 15) * 16;
    memcpy(p, &a, 8);
    memcpy(p + 8, &b, 8);
    rg_seal(&g, 0, CYG_S_RUNNING);
    dead = fork();
    ck_assert_int_ge(dead, 0);
    if (dead == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
    put_pid(g.buf, (uint32_t)dead);
    write_file(path, g.buf, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    while (poll_all(f, &s) > 0) /* the frontier waits at seq 44 for the chunk before */
        ;
    for (size_t i = 0; i < s.n; i++)
        ck_assert(s.ev[i].addr != 0xdead0);
    ck_assert_uint_eq(s.recs, 13 - 1); /* 32..44, but 43 */
    ck_assert_uint_eq(s.lost, 32 + 1);
    ck_assert_uint_eq(s.ev[s.n - 2].kind, EV_LOST);
    ck_assert_uint_eq(s.ev[s.n - 2].seq, 43);
    ck_assert_uint_eq(s.ev[s.n - 2].addr, 1);
    ck_assert_uint_eq(s.ev[s.n - 1].seq, 44);
    follow_slots(f, &pad, &unfilled, &pending);
    ck_assert_uint_eq(unfilled, 3);
    check_slots(&s, f);
    follow_close(f);
    rg_free(&g);
    unlink(path);
}
END_TEST

/* A 32-bit target's counter wraps at 2^32: the follow goes on, it is no new run. */
START_TEST(test_follow_counter_wraps)
{
    static struct seen s;
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct follow *f;
    uint8_t *map;
    char err[256] = "";

    memset(&s, 0, sizeof s);
    rg_init(&g, 4, 6, CYG_F_OVERWRITE);
    g.head = 0xfffffff0u;
    for (int i = 0; i < 8; i++)
        rg_event(&g, 0, 0x1000 + 16 * (unsigned)i, (unsigned)i, 0, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    map = map_rw(path, g.size);
    f = follow_open(path, 0, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    for (int i = 0; i < 20; i++)
        rg_event(&g, 1, 0x2000 + 16 * (unsigned)i, 100 + (unsigned)i, 0, 0);
    publish(map, &g, CYG_S_RUNNING);
    ck_assert_uint_eq(map[CYG_OFF_HEAD], 12); /* 0xfffffff0 + 28, low word */
    ck_assert_int_eq(poll_all(f, &s), 20);
    ck_assert_int_eq(follow_restarted(f), 0);
    for (int i = 0; i < 20; i++) {
        ck_assert_uint_eq(s.ev[i].kind, EV_EXIT);
        ck_assert_uint_eq(s.ev[i].addr, 0x2000 + 16 * (unsigned)i);
        ck_assert_uint_eq(s.ev[i].time, 100 + (unsigned)i);
    }
    follow_close(f);
    munmap(map, g.size);
    rg_free(&g);
    unlink(path);
}
END_TEST

/* Threads of this process record through the real hooks into a small ring of a file mapping
 * while we follow it: what we read plus what we are told we lost is what they wrote, and every
 * event we read is one a thread really wrote, in its order (a record torn between two laps
 * would break a thread's sequence). */
#define WRITERS 3
#define WRITER_PAIRS 300000

static int stress_pause; /* 0: flat out, lapping the reader all the time */

static void *stress_writer(void *arg)
{
    uint64_t base = (uint64_t)(uintptr_t)arg << 32;

    for (uint64_t i = 0; i < WRITER_PAIRS; i++) {
        __cyg_profile_func_enter((void *)(uintptr_t)(base + 16 * i), NULL);
        __cyg_profile_func_exit((void *)(uintptr_t)(base + 16 * i), NULL);
        if (stress_pause && (i & 255) == 255)
            usleep(50); /* bursts, so that the reader keeps up for most of it */
    }
    return NULL;
}

struct order {
    uint64_t next[64]; /* per thread index: the lowest call number allowed next, * 2 + exit */
    uint64_t owner[64];
    uint64_t last_seq[64]; /* per thread index: its last record's sequence number, + 1 */
    uint64_t recs, lost;
    char bad[160]; /* the first thing wrong (asserting per event would slow us down) */
};

static void stress_bad(struct order *o, const struct ev *e, const char *what)
{
    if (!o->bad[0])
        snprintf(o->bad, sizeof o->bad, "seq %llu kind %u ctx %u addr 0x%llx: %s",
                 (unsigned long long)e->seq, e->kind, e->ctx, (unsigned long long)e->addr, what);
}

static void on_stress(void *arg, const struct ev *e)
{
    struct order *o = arg;
    uint64_t step;

    /* A chunked ring comes in each thread's order, not in sequence order across threads. */
    if (e->kind == EV_LOST) {
        o->lost += e->addr;
        return;
    }
    o->recs++;
    if (e->ctx < 64) {
        if (e->seq < o->last_seq[e->ctx])
            stress_bad(o, e, "not after its thread's one before");
        o->last_seq[e->ctx] = e->seq + 1;
    }
    if (e->kind != EV_ENTER && e->kind != EV_EXIT)
        return;
    if (e->ctx >= 64) {
        stress_bad(o, e, "no such thread");
        return;
    }
    if (!o->owner[e->ctx])
        o->owner[e->ctx] = e->addr >> 32;
    if (e->addr >> 32 != o->owner[e->ctx])
        stress_bad(o, e, "another thread's function");
    step = ((e->addr & 0xffffffffu) / 16) * 2 + (e->kind == EV_EXIT);
    if (step < o->next[e->ctx])
        stress_bad(o, e, "backwards in its thread"); /* forward only, losses aside */
    o->next[e->ctx] = step + 1;
}

START_TEST(test_follow_concurrent_writers)
{
    static struct order o;
    const char *path = testdir_path("ring");
    size_t size = CYG_HDR_BYTES + 4096 * 16 + CYG_CTRL_BYTES; /* and the control area */
    pthread_t t[WRITERS];
    struct follow *f;
    uint8_t *map;
    char err[256] = "";
    long n, polls = 0;
    int fd, joined[WRITERS] = {0};

    memset(&o, 0, sizeof o);
    stress_pause = _i;
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
    close(fd);
    map = map_rw(path, size);
    ck_assert_int_eq(cygtrace_init(map, size, CYG_F_OVERWRITE | CYGTRACE_INIT_ZEROED), 4096);
    put_pid(map, (uint32_t)getpid()); /* as the Linux set-up does: a follow waits for it */
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    for (uintptr_t i = 0; i < WRITERS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, stress_writer, (void *)(i + 1)), 0);
    for (int done = 0; done < WRITERS;) {
        n = follow_poll(f, on_stress, &o, 3000, err, sizeof err);
        ck_assert_msg(n >= 0, "%s", err);
        polls++;
        for (int i = 0; i < WRITERS; i++)
            if (!joined[i] && pthread_tryjoin_np(t[i], NULL) == 0) {
                joined[i] = 1;
                done++;
            }
        if (n == 0)
            usleep(100);
    }
    while ((n = follow_poll(f, on_stress, &o, 3000, err, sizeof err)) > 0)
        ;
    ck_assert_int_eq(n, 0);
    ck_assert_msg(!o.bad[0], "%s", o.bad);
    /* THREAD and START of this thread, THREAD of each writer, their pairs: read, or in the
     * slots lost; the other slots of the chunks hold no event. */
    {
        uint64_t made = (uint64_t)WRITERS * WRITER_PAIRS * 2 + 2 + WRITERS, pad, unfilled, wait;

        follow_slots(f, &pad, &unfilled, &wait);
        ck_assert_uint_eq(o.recs + o.lost + pad + unfilled + wait, follow_ring(f)->head);
        ck_assert_uint_le(o.recs, made);
        ck_assert_uint_ge(o.recs + o.lost, made);
        if (!o.lost)
            ck_assert_uint_eq(o.recs, made);
        /* The last ringful of slots at least: records, or slots that hold none. */
        ck_assert_uint_ge(o.recs + pad + unfilled + wait, 4096);
    }
    if (stress_pause) { /* with the pauses we keep up for the most part */
        ck_assert_uint_gt(polls, 1);
        ck_assert_uint_gt(o.recs, o.lost);
    }
    fprintf(stderr, "follow stress (%s): %llu read, %llu lost, %ld polls\n",
            stress_pause ? "bursts" : "flat out", (unsigned long long)o.recs,
            (unsigned long long)o.lost, polls);
    follow_close(f);
    /* The mapping stays: the runtime's exit handler still looks at its control block. */
    unlink(path);
}
END_TEST

/* A version 3 ring file: its control area is followed too (what fired, as the runtime writes
 * it), TRIGGER records come as events; a file without the area is followed all the same. */
START_TEST(test_follow_control_area)
{
    const char *path = testdir_path("ring");
    struct ringgen g;
    struct seen s;
    struct follow *f;
    char err[256] = "";
    uint8_t *map;

    memset(&s, 0, sizeof s);
    rg_init(&g, 8, 6, CYG_F_OVERWRITE);
    rg_trigger(&g, 0, CYG_TRIG_FREEZE, 0x1000, 3, 0);
    rg_event(&g, 0, 0x1000, 1, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_uint_eq(follow_ring(f)->ctrl_state, DEC_CTRL_OK);
    ck_assert_uint_eq(follow_ring(f)->ctrl.ntrig, 1);
    ck_assert_uint_eq(follow_ring(f)->ctrl.fired, 0);
    ck_assert_int_eq(poll_all(f, &s), 1);

    /* it fires: the record, then the runtime's fields */
    map = map_rw(path, g.size);
    rg_fired(&g, 0, CYG_TRIG_FREEZE, 0x1000, 1);
    memcpy(map + CYG_HDR_BYTES + 16, g.buf + CYG_HDR_BYTES + 16, 16);
    map[g.size - CYG_CTRL_BYTES + CYG_CTRL_OFF_FIRED] = 1;
    map[g.size - CYG_CTRL_BYTES + CYG_CTRL_OFF_NFIRED] = 1;
    __atomic_store_n((uint64_t *)(void *)(map + CYG_OFF_HEAD), g.head, __ATOMIC_RELEASE);
    ck_assert_int_eq(poll_all(f, &s), 1);
    ck_assert_uint_eq(s.ev[1].kind, EV_TRIGGER);
    ck_assert_uint_eq(s.ev[1].addr, 0x1000);
    ck_assert_uint_eq(s.ev[1].data, 0 | CYG_TRIG_FREEZE << CYG_TRIGD_KIND_SHIFT);
    ck_assert_uint_eq(follow_ring(f)->ctrl.fired, 1);
    munmap(map, g.size);
    follow_close(f);

    /* without the area (a file of the records alone): no area, the records all the same */
    rg_seal(&g, 0, CYG_S_RUNNING);
    write_file(path, g.buf, g.size - CYG_CTRL_BYTES);
    f = follow_open(path, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_uint_eq(follow_ring(f)->ctrl_state, DEC_CTRL_SHORT);
    s.n = 0;
    ck_assert_int_eq(poll_all(f, &s), 2);
    follow_close(f);
    rg_free(&g);
}
END_TEST

Suite *follow_suite(void)
{
    Suite *s = suite_create("follow");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, dir_setup, dir_teardown);
    tcase_add_test(tc, test_follow_open_errors);
    tcase_add_test(tc, test_follow_control_area);
    tcase_add_test(tc, test_follow_live_runtime);
    tcase_add_test(tc, test_follow_lapped_exact);
    tcase_add_test(tc, test_follow_unwritten_slot);
    tcase_add_test(tc, test_follow_restart);
    tcase_add_test(tc, test_follow_file_replaced);
    tcase_add_test(tc, test_follow_truncated_under_us);
    tcase_add_test(tc, test_follow_matches_dec);
    tcase_add_test(tc, test_follow_counter_wraps);
    tcase_add_test(tc, test_follow_waits_for_setup);
    tcase_add_test(tc, test_follow_from_start_lapped_before_open);
    tcase_add_test(tc, test_follow_stop_mode_lost);
    tcase_add_test(tc, test_follow_chunk_order_across_pending);
    tcase_add_test(tc, test_follow_chunk_torn_owner);
    tcase_add_test(tc, test_follow_chunk_end_late_store);
    tcase_add_loop_test(tc, test_follow_concurrent_writers, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
