/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sqlout.c - the trace as SQLite tables (sqlout.h), a row per call as it ends (calltime.h). */
#include "output/sqlout.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "model/calltime.h"
#include "model/timebase.h"
#include "output/fmt.h"
#include "symbols/wsig.h"
#include "util/oaindex.h"
#include "util/vec.h"

/* The tables; indexes come after the rows of a new database (sqlout_end), which loads faster
 * than keeping them up to date row by row. */
static const char schema[] =
    "CREATE TABLE traces(trace INTEGER PRIMARY KEY, exported TEXT, elf TEXT, dump TEXT,"
    " build_id TEXT, machine INTEGER, word_bytes INTEGER, pid INTEGER, clock_hz INTEGER,"
    " time_unit TEXT, state TEXT, lost INTEGER, calls INTEGER, contexts INTEGER,"
    " functions INTEGER, cygtrace TEXT, clock TEXT, offset INTEGER);"
    "CREATE TABLE contexts(trace INTEGER NOT NULL, context INTEGER NOT NULL, kind TEXT,"
    " name TEXT, os_tid INTEGER, label TEXT, PRIMARY KEY (trace, context));"
    "CREATE TABLE functions(trace INTEGER NOT NULL, function INTEGER NOT NULL, name TEXT,"
    " address INTEGER, file TEXT, line INTEGER, PRIMARY KEY (trace, function));"
    "CREATE TABLE calls(call INTEGER PRIMARY KEY, trace INTEGER NOT NULL,"
    " context INTEGER NOT NULL, depth INTEGER NOT NULL, function INTEGER NOT NULL,"
    " start INTEGER, duration INTEGER, self INTEGER, parent INTEGER, ended TEXT NOT NULL,"
    " site INTEGER);"
    "CREATE TABLE call_values(call INTEGER NOT NULL, trace INTEGER NOT NULL, arg INTEGER,"
    " name TEXT, value TEXT);"
    "CREATE TABLE marks(trace INTEGER NOT NULL, context INTEGER NOT NULL, time INTEGER,"
    " call INTEGER, id INTEGER, class INTEGER, value INTEGER);"
    "CREATE TABLE faults(trace INTEGER NOT NULL, context INTEGER NOT NULL, time INTEGER,"
    " call INTEGER, kind TEXT, code INTEGER, pc INTEGER, lr INTEGER, text TEXT);";

static const char indexes[] =
    "CREATE INDEX IF NOT EXISTS calls_function ON calls(trace, function);"
    "CREATE INDEX IF NOT EXISTS calls_parent ON calls(parent);"
    "CREATE INDEX IF NOT EXISTS calls_context ON calls(trace, context, start);"
    "CREATE INDEX IF NOT EXISTS call_values_call ON call_values(call);"
    "CREATE INDEX IF NOT EXISTS marks_time ON marks(trace, time);"
    "CREATE INDEX IF NOT EXISTS faults_time ON faults(trace, time);";

enum stmt { ST_CALL, ST_FUNC, ST_CTX, ST_VALUE, ST_MARK, ST_FAULT, ST_FAULT_LR, ST_N };

static const char *const stmt_sql[ST_N] = {
    [ST_CALL] = "INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    [ST_FUNC] = "INSERT INTO functions VALUES (?,?,?,?,?,?)",
    [ST_CTX] = "INSERT OR IGNORE INTO contexts VALUES (?,?,?,?,?,?)",
    [ST_VALUE] = "INSERT INTO call_values VALUES (?,?,?,?,?)",
    [ST_MARK] = "INSERT INTO marks VALUES (?,?,?,?,?,?,?)",
    [ST_FAULT] = "INSERT INTO faults VALUES (?,?,?,?,?,?,?,?,?)",
    [ST_FAULT_LR] = "UPDATE faults SET lr = ?, text = ? WHERE rowid = ?",
};

/* One level of a context's stack (calltime.h). */
struct level {
    struct calltime_level ct;
    int64_t id;    /* the call's id: given at its entry (a frame from before the trace: when a
                      child or a mark first needs it); 0 none yet */
    uint64_t site; /* its call site, 0 if not recorded */
};

struct sctx {
    struct sqlout *s;
    uint32_t id;
    struct calltime stack; /* struct level */
    struct ev fault;       /* the latest fault, for the LR record after it */
    int64_t fault_row;     /* its row, 0 none */
};

struct sqlout {
    sqlite3 *db;
    sqlite3_stmt *st[ST_N];
    struct sqlout_opts o;
    int new_db;
    int ended;
    int64_t trace;
    int64_t first_call, next_call;
    uint64_t calls, nfuncs, nctx_rows;
    unsigned batch;  /* rows since the last commit (new database) */
    char err[256];   /* the first write that failed, "" none */
    uint64_t failed; /* calltime's count of what it could not account for */
    struct sctx **ctx;
    size_t nctx, ctx_cap;
    uint64_t *fn_addr; /* function id - 1 -> its run-time address */
    size_t fn_cap;
    struct oaindex fn_ix; /* address -> index in fn_addr */
};

static void fail(struct sqlout *s, const char *what)
{
    if (!s->err[0])
        snprintf(s->err, sizeof s->err, "%s: %s", what, sqlite3_errmsg(s->db));
}

static int exec(struct sqlout *s, const char *sql)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        fail(s, "cannot write");
        return -1;
    }
    return 0;
}

/* Runs a bound statement and resets it; a new database commits every SQLOUT_BATCH rows. */
static int run(struct sqlout *s, enum stmt k)
{
    sqlite3_stmt *st = s->st[k];
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        fail(s, "cannot write");
        return -1;
    }
    if (s->new_db && ++s->batch >= SQLOUT_BATCH) {
        s->batch = 0;
        return exec(s, "COMMIT; BEGIN");
    }
    return 0;
}

/* SQLite's integers are signed: an address or a count past 2^63 (none a real trace has)
 * saturates. */
static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
    sqlite3_bind_int64(st, i, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void bind_u64_or_null(sqlite3_stmt *st, int i, uint64_t v)
{
    if (v)
        bind_u64(st, i, v);
}

static void bind_text(sqlite3_stmt *st, int i, const char *t)
{
    if (t)
        sqlite3_bind_text(st, i, t, -1, SQLITE_TRANSIENT);
}

/* A time in ticks as the trace's unit: ns when the clock rate is known; on the common clock
 * (o.tb), timebase_ns's. */
static void bind_time(const struct sqlout *s, sqlite3_stmt *st, int i, uint64_t ticks)
{
    if (!s->o.timestamps)
        return; /* NULL */
    if (s->o.tb)
        sqlite3_bind_int64(st, i, timebase_ns(s->o.tb, ticks));
    else
        bind_u64(st, i, s->o.hz ? fmt_duration_ns(ticks, s->o.hz) : ticks);
}

/* A duration of len ticks from start, as bind_time's times: on the common clock, the
 * difference of its ends there (its rate applies), never negative. */
static int64_t span(const struct sqlout *s, uint64_t start, uint64_t len)
{
    int64_t d;

    if (!s->o.tb)
        return s->o.hz ? (int64_t)fmt_duration_ns(len, s->o.hz) : (int64_t)len;
    d = timebase_ns(s->o.tb, start + len) - timebase_ns(s->o.tb, start);
    return d < 0 ? 0 : d;
}

/* ---- functions */

static uint64_t fn_hash(const void *arg, size_t pos)
{
    return oaindex_hash_u64(((const struct sqlout *)arg)->fn_addr[pos]);
}

static int fn_match(const void *arg, size_t pos, const void *key)
{
    return ((const struct sqlout *)arg)->fn_addr[pos] == *(const uint64_t *)key;
}

/* The id of the function at run-time address addr, its row written when it is new; -1 when
 * that failed. */
static int64_t fn_id(struct sqlout *s, uint64_t addr)
{
    uint64_t h = oaindex_hash_u64(addr);
    size_t pos = oaindex_find(&s->fn_ix, h, fn_match, s, &addr), *slot;
    sqlite3_stmt *st = s->st[ST_FUNC];
    char name[512], file[1024];
    unsigned line;

    if (pos != SIZE_MAX)
        return (int64_t)pos + 1;
    if (vec_grow(&s->fn_addr, &s->fn_cap, s->nfuncs, sizeof *s->fn_addr, 256) < 0 ||
        oaindex_reserve(&s->fn_ix, 512, fn_hash, s) < 0) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return -1;
    }
    slot = oaindex_slot(&s->fn_ix, h, fn_match, s, &addr);
    s->fn_addr[s->nfuncs] = addr;
    oaindex_put(&s->fn_ix, slot, s->nfuncs);
    s->nfuncs++;
    fmt_addr(s->o.sym, s->o.bias, addr, name, sizeof name);
    sqlite3_bind_int64(st, 1, s->trace);
    sqlite3_bind_int64(st, 2, (int64_t)s->nfuncs);
    bind_text(st, 3, name);
    bind_u64(st, 4, addr - s->o.bias);
    if (s->o.dwarf &&
        dwarf_src_func(s->o.dwarf, addr - s->o.bias, file, sizeof file, &line, NULL, 0) == 0) {
        bind_text(st, 5, file);
        sqlite3_bind_int64(st, 6, line);
    }
    return run(s, ST_FUNC) < 0 ? -1 : (int64_t)s->nfuncs;
}

/* ---- calls */

static struct level *level(struct sctx *c, unsigned d)
{
    return calltime_at(&c->stack, d);
}

/* The id of the call at level d (below the levels in use), given now if it has none: a frame
 * from before the trace whose child or mark needs it. */
static int64_t level_id(struct sctx *c, unsigned d)
{
    struct level *l = level(c, d);

    if (!l->id)
        l->id = c->s->next_call++;
    return l->id;
}

/* The arguments (ret 0) or the return value (ret 1) of wrapped call id of addr. */
static void values(struct sctx *c, int64_t id, uint64_t addr, const struct wval_set *vals, int ret)
{
    struct sqlout *s = c->s;
    const struct wsig_fn *sig = sym_wrapped_sig(s->o.sym, addr - s->o.bias);
    sqlite3_stmt *st = s->st[ST_VALUE];
    char text[512];

    for (unsigned i = 0; i < vals->n && !s->err[0]; i++) {
        const struct wval *v = &vals->v[i];
        const struct wsig_value *p = v->idx == CYG_VAL_RET    ? (sig ? &sig->ret : NULL)
                                     : sig && v->idx < sig->n ? &sig->p[v->idx]
                                                              : NULL;

        if ((v->idx == CYG_VAL_RET) != ret)
            continue;
        wval_text(v, p, text, sizeof text);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, s->trace);
        if (!ret)
            sqlite3_bind_int64(st, 3, v->idx);
        bind_text(st, 4, ret ? "return" : p && p->name ? p->name : NULL);
        bind_text(st, 5, text);
        run(s, ST_VALUE);
    }
}

static int s_open(void *arg, struct calltime *ct, unsigned d, const struct tree_frame *f)
{
    struct sctx *c = arg;
    struct level *l = level(c, d);

    (void)ct;
    l->id = c->s->next_call++;
    l->site = f->site;
    if (f->vals && !c->s->err[0])
        values(c, l->id, f->addr, f->vals, 0);
    return 0;
}

static const char *ended(enum calltime_how how)
{
    return how == CALLTIME_RETURNED ? "returned"
           : how == CALLTIME_OPEN   ? "no-exit"
                                    : "entered-before";
}

static int s_close(void *arg, struct calltime *ct, unsigned d, const struct calltime_call *call)
{
    struct sctx *c = arg;
    struct sqlout *s = c->s;
    struct level *l = level(c, d);
    sqlite3_stmt *st = s->st[ST_CALL];
    int64_t id = level_id(c, d), fn;

    (void)ct;
    if (s->err[0] || (fn = fn_id(s, call->addr)) < 0)
        return 0; /* counted as ever: the trees' times stay those of report */
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, s->trace);
    sqlite3_bind_int64(st, 3, c->id);
    sqlite3_bind_int64(st, 4, d);
    sqlite3_bind_int64(st, 5, fn);
    bind_time(s, st, 6, call->start);
    if (s->o.timestamps && !s->o.tb) {
        uint64_t self = call->dur > call->kids ? call->dur - call->kids : 0;

        bind_u64(st, 7, (uint64_t)span(s, call->start, call->dur));
        bind_u64(st, 8, (uint64_t)span(s, call->start, self));
    } else if (s->o.timestamps) { /* the difference of the mapped ends: its self likewise */
        int64_t dur = span(s, call->start, call->dur);
        int64_t kids = span(s, call->start, call->kids < call->dur ? call->kids : call->dur);

        sqlite3_bind_int64(st, 7, dur);
        sqlite3_bind_int64(st, 8, dur > kids ? dur - kids : 0);
    }
    if (d)
        sqlite3_bind_int64(st, 9, level_id(c, d - 1));
    bind_text(st, 10, ended(call->how));
    if (call->how != CALLTIME_BEFORE)
        bind_u64_or_null(st, 11, l->site);
    if (run(s, ST_CALL) == 0)
        s->calls++;
    if (call->how == CALLTIME_RETURNED && call->vals && wval_ret(call->vals))
        values(c, id, call->addr, call->vals, 1);
    return 0;
}

/* A call made unknown by a loss vanishes: no row; its children's parent is set to NULL at the
 * end (sqlout_end). */
static void s_drop(void *arg, struct calltime *ct, unsigned d)
{
    struct level *l = level(arg, d);

    (void)ct;
    if (l->ct.open)
        l->id = 0;
}

/* The call open around a record at depth d (the tree's open frames), or 0. */
static int64_t open_call(struct sctx *c, unsigned d)
{
    return d && d - 1 < c->stack.n ? level_id(c, d - 1) : 0;
}

static void s_special(void *arg, struct calltime *ct, const struct ev *e, unsigned d)
{
    struct sctx *c = arg;
    struct sqlout *s = c->s;
    sqlite3_stmt *st;
    char text[512];
    int64_t call;

    (void)ct;
    if (s->err[0] || (e->kind != EV_MARK && e->kind != EV_FAULT && e->kind != EV_FAULT_LR &&
                      e->kind != EV_TRIGGER))
        return;
    call = open_call(c, d);
    if (e->kind == EV_FAULT_LR) {
        if (!c->fault_row)
            return;
        st = s->st[ST_FAULT_LR];
        fmt_fault(s->o.sym, s->o.bias, 2 * s->o.word_bytes, &c->fault, e, text, sizeof text);
        bind_u64(st, 1, e->addr);
        bind_text(st, 2, text);
        sqlite3_bind_int64(st, 3, c->fault_row);
        run(s, ST_FAULT_LR);
        c->fault_row = 0;
        return;
    }
    if (e->kind == EV_MARK) {
        st = s->st[ST_MARK];
        sqlite3_bind_int64(st, 1, s->trace);
        sqlite3_bind_int64(st, 2, c->id);
        bind_time(s, st, 3, e->time);
        if (call)
            sqlite3_bind_int64(st, 4, call);
        sqlite3_bind_int64(st, 5, e->data);
        sqlite3_bind_int64(st, 6, e->cls);
        bind_u64(st, 7, e->addr);
        run(s, ST_MARK);
        return;
    }
    st = s->st[ST_FAULT];
    if (e->kind == EV_FAULT) {
        fmt_fault(s->o.sym, s->o.bias, 2 * s->o.word_bytes, e, NULL, text, sizeof text);
    } else {
        struct fmt_namer nm = {s->o.sym, s->o.bias, s->o.word_bytes == 4, {0}};

        fmt_trigger(&nm, s->o.ctrl, e, text, sizeof text);
    }
    sqlite3_bind_int64(st, 1, s->trace);
    sqlite3_bind_int64(st, 2, c->id);
    bind_time(s, st, 3, e->time);
    if (call)
        sqlite3_bind_int64(st, 4, call);
    bind_text(st, 5, e->kind == EV_FAULT ? "fault" : "trigger");
    sqlite3_bind_int64(st, 6, e->data);
    bind_u64(st, 7, e->addr);
    bind_text(st, 9, text);
    if (run(s, ST_FAULT) == 0 && e->kind == EV_FAULT) {
        c->fault = *e;
        c->fault_row = sqlite3_last_insert_rowid(s->db);
    }
}

static const struct calltime_ops s_ops = {s_open, s_close, s_drop, s_special, NULL};

/* ---- the database */

/* The integer the first column of sql's first row holds, into *v: 0, or -1. */
static int query_int(sqlite3 *db, const char *sql, int64_t *v)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

int sqlout_is_ours(const char *path, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    int64_t id = 0;
    int ours = 0;

    /* read-write when it may: a journal a killed append left behind is rolled back first */
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        query_int(db, "PRAGMA application_id", &id) < 0)
        snprintf(err, errlen, "not a cygtrace database (SQLite: %s)",
                 db ? sqlite3_errmsg(db) : "out of memory");
    else if (id != SQLOUT_APP_ID)
        snprintf(err, errlen,
                 "not a cygtrace database (an SQLite database of another "
                 "application)");
    else
        ours = 1;
    sqlite3_close(db);
    return ours;
}

static int prepare(struct sqlout *s)
{
    for (unsigned k = 0; k < ST_N; k++)
        if (sqlite3_prepare_v3(s->db, stmt_sql[k], -1, SQLITE_PREPARE_PERSISTENT, &s->st[k],
                               NULL) != SQLITE_OK) {
            fail(s, "cannot prepare");
            return -1;
        }
    return 0;
}

/* The traces row, which gives the trace its id. */
static int trace_row(struct sqlout *s)
{
    static const char sql[] =
        "INSERT INTO traces (trace, exported, elf, dump, build_id, machine, word_bytes, pid,"
        " clock_hz, time_unit, state, lost, cygtrace, clock, offset) VALUES ((SELECT"
        " coalesce(max(trace), 0) + 1 FROM traces), strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?, ?,"
        " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    const struct timebase *tb = s->o.tb;
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        fail(s, "cannot write");
        return -1;
    }
    bind_text(st, 1, s->o.elf);
    bind_text(st, 2, s->o.dump);
    bind_text(st, 3, s->o.build_id);
    sqlite3_bind_int64(st, 4, s->o.machine);
    sqlite3_bind_int64(st, 5, s->o.word_bytes);
    bind_u64_or_null(st, 6, s->o.pid);
    bind_u64_or_null(st, 7, s->o.hz);
    if (s->o.timestamps) {
        bind_text(st, 8, s->o.hz || (tb && tb->mapped) ? "ns" : "ticks");
        bind_text(st, 12, tb && tb->mapped ? "host-monotonic" : "own");
        if (tb)
            sqlite3_bind_int64(st, 13, tb->offset_ns);
    }
    bind_text(st, 9, s->o.state);
    bind_u64(st, 10, s->o.lost);
#ifdef CYGTRACE_VERSION
    bind_text(st, 11, CYGTRACE_VERSION);
#endif
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        fail(s, "cannot write");
        return -1;
    }
    s->trace = sqlite3_last_insert_rowid(s->db);
    return 0;
}

/* A new database's tables, or an existing one checked: whether it is ours, and of a schema
 * this host writes. */
static int setup(struct sqlout *s, char *err, size_t errlen)
{
    int64_t v = 0;

    if (s->new_db) {
        /* A fresh file that is renamed into place once complete: no journal, no sync. */
        char sql[256];

        snprintf(sql, sizeof sql,
                 "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = "
                 "-16384; PRAGMA application_id = %d; PRAGMA user_version = %d; BEGIN",
                 SQLOUT_APP_ID, SQLOUT_SCHEMA);
        return exec(s, sql) < 0 || exec(s, schema) < 0 ? -1 : 0;
    }
    sqlite3_busy_timeout(s->db, 5000);
    if (query_int(s->db, "PRAGMA application_id", &v) < 0 || v != SQLOUT_APP_ID) {
        snprintf(err, errlen, "not a cygtrace database");
        return -1;
    }
    if (query_int(s->db, "PRAGMA user_version", &v) < 0 || v != SQLOUT_SCHEMA) {
        snprintf(err, errlen,
                 "a cygtrace database of schema %" PRId64 ", this cygtrace writes "
                 "schema %d; name a new file",
                 v, SQLOUT_SCHEMA);
        return -1;
    }
    /* One transaction for the whole trace: a reader never sees half of it, and an error or a
     * kill leaves the database as it was (the journal rolls it back). */
    if (exec(s, "PRAGMA cache_size = -16384; BEGIN IMMEDIATE") < 0)
        return -1;
    return 0;
}

struct sqlout *sqlout_open(const char *path, int new_db, const struct sqlout_opts *o, char *err,
                           size_t errlen)
{
    struct sqlout *s = calloc(1, sizeof *s);
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (new_db ? SQLITE_OPEN_CREATE : 0);

    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->o = *o;
    s->new_db = new_db;
    err[0] = 0;
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot open: %s", s->db ? sqlite3_errmsg(s->db) : "out of memory");
        sqlout_free(s);
        return NULL;
    }
    if (setup(s, err, errlen) < 0 || trace_row(s) < 0 ||
        query_int(s->db, "SELECT coalesce(max(call), 0) + 1 FROM calls", &s->first_call) < 0 ||
        prepare(s) < 0) {
        if (!err[0])
            snprintf(err, errlen, "%s", s->err[0] ? s->err : sqlite3_errmsg(s->db));
        sqlout_free(s);
        return NULL;
    }
    s->next_call = s->first_call;
    return s;
}

/* What a context is: a Linux thread; on a 32-bit target, a task (a context named by an RTOS
 * glue's NAME records or the map), an interrupt (one known by its handler: names_ctx_called),
 * else a context. */
static const char *ctx_kind(const struct sqlout *s, uint32_t ctx, const char *called)
{
    if (s->o.word_bytes == 8)
        return "thread";
    return names_ctx(s->o.names, ctx) ? "task" : called ? "interrupt" : "context";
}

const struct tree_sink *sqlout_sink(struct sqlout *s, uint32_t ctx, uint64_t os_tid, int vfork)
{
    sqlite3_stmt *st = s->st[ST_CTX];
    char label[512], buf[NAMES_MAX + 64];
    const char *name;
    struct sctx *c;

    if (vec_grow(&s->ctx, &s->ctx_cap, s->nctx, sizeof *s->ctx, 16) < 0 ||
        !(c = calloc(1, sizeof *c)))
        return NULL;
    s->ctx[s->nctx++] = c;
    c->s = s;
    c->id = ctx;
    calltime_init(&c->stack, &s_ops, c, sizeof(struct level), NULL, &s->failed);
    names_ctx_label(s->o.names, s->o.sym, s->o.bias, s->o.word_bytes, ctx, os_tid, vfork, label,
                    sizeof label);
    name = names_ctx_called(s->o.names, s->o.sym, s->o.bias, ctx, 0, buf, sizeof buf);
    sqlite3_bind_int64(st, 1, s->trace);
    sqlite3_bind_int64(st, 2, ctx);
    bind_text(st, 3, ctx_kind(s, ctx, name));
    bind_text(st, 4, name);
    bind_u64_or_null(st, 5, os_tid);
    bind_text(st, 6, label);
    if (run(s, ST_CTX) < 0)
        return NULL;
    s->nctx_rows++;
    return calltime_sink(&c->stack);
}

int64_t sqlout_trace(const struct sqlout *s)
{
    return s->trace;
}

uint64_t sqlout_calls(const struct sqlout *s)
{
    return s->calls;
}

/* The trace's row completed, and the calls, marks and faults that name a call it has no row
 * of: 0, or -1 with the reason in err. */
static int trace_end(struct sqlout *s, char *err, size_t errlen)
{
    char sql[1024];

    if (!s->err[0] && s->failed)
        snprintf(s->err, sizeof s->err, "out of memory");
    if (s->err[0]) {
        snprintf(err, errlen, "%s", s->err);
        return -1;
    }
    /* A parent, or the call around a mark or a fault, that has no row: a frame from before
     * the trace that never exited in it, or a call a loss made unknown. */
    snprintf(sql, sizeof sql,
             "UPDATE traces SET calls = %" PRIu64 ", contexts = %" PRIu64 ", functions = %" PRIu64
             " WHERE trace = %" PRId64 ";"
             "UPDATE calls SET parent = NULL WHERE call >= %" PRId64 " AND parent IS NOT NULL"
             " AND NOT EXISTS (SELECT 1 FROM calls p WHERE p.call = calls.parent);"
             "UPDATE marks SET call = NULL WHERE trace = %" PRId64 " AND call IS NOT NULL"
             " AND NOT EXISTS (SELECT 1 FROM calls p WHERE p.call = marks.call);"
             "UPDATE faults SET call = NULL WHERE trace = %" PRId64 " AND call IS NOT NULL"
             " AND NOT EXISTS (SELECT 1 FROM calls p WHERE p.call = faults.call);",
             s->calls, s->nctx_rows, s->nfuncs, s->trace, s->first_call, s->trace, s->trace);
    if (exec(s, sql) < 0) {
        snprintf(err, errlen, "%s", s->err);
        return -1;
    }
    return 0;
}

/* The contexts of the trace written, whose trees finished. */
static void ctx_free(struct sqlout *s)
{
    for (size_t i = 0; i < s->nctx; i++) {
        calltime_free(&s->ctx[i]->stack);
        free(s->ctx[i]);
    }
    s->nctx = 0;
}

int sqlout_next(struct sqlout *s, const struct sqlout_opts *o, char *err, size_t errlen)
{
    if (trace_end(s, err, errlen) < 0)
        return -1;
    ctx_free(s);
    oaindex_free(&s->fn_ix);
    s->nfuncs = s->calls = s->nctx_rows = 0;
    s->o = *o;
    s->first_call = s->next_call;
    if (trace_row(s) < 0) {
        snprintf(err, errlen, "%s", s->err);
        return -1;
    }
    return 0;
}

int sqlout_end(struct sqlout *s, char *err, size_t errlen)
{
    if (trace_end(s, err, errlen) < 0)
        return -1;
    if (exec(s, indexes) < 0 || exec(s, "COMMIT") < 0) {
        snprintf(err, errlen, "%s", s->err);
        return -1;
    }
    s->ended = 1;
    return 0;
}

void sqlout_free(struct sqlout *s)
{
    if (!s)
        return;
    for (unsigned k = 0; k < ST_N; k++)
        sqlite3_finalize(s->st[k]);
    if (s->db && !s->ended && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(s->db);
    ctx_free(s);
    free(s->ctx);
    free(s->fn_addr);
    oaindex_free(&s->fn_ix);
    free(s);
}
