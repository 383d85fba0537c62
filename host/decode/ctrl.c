/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ctrl.c - the ring's control area: bytes to struct and back, and the text of triggers. */
#include "decode/ctrl.h"

#include <string.h>

#include "cyg_spec.h"
#include "util/le.h"

void ctrl_init(struct ctrl *c)
{
    memset(c, 0, sizeof *c);
    c->events = UINT32_MAX;
    c->gate = 1;
}

int ctrl_armed(const struct ctrl *c)
{
    return c->ntrig != 0 || c->nexcl != 0 || c->depth != 0;
}

int ctrl_parse(struct ctrl *c, const uint8_t *b, unsigned word_bytes, char *err, size_t errlen)
{
    uint64_t amask = word_bytes == 4 ? UINT32_MAX : UINT64_MAX;

    ctrl_init(c);
    if (le_get(b + CYG_CTRL_OFF_MAGIC, 4) != CYG_CTRL_MAGIC) {
        snprintf(err, errlen, "control area has no magic");
        return -1;
    }
    c->gen = (uint32_t)le_get(b + CYG_CTRL_OFF_GEN, 4);
    c->applied = (uint32_t)le_get(b + CYG_CTRL_OFF_APPLIED, 4);
    c->events = (uint32_t)le_get(b + CYG_CTRL_OFF_EVENTS, 4);
    c->depth = (uint32_t)le_get(b + CYG_CTRL_OFF_DEPTH, 4);
    c->ntrig = b[CYG_CTRL_OFF_NTRIG];
    c->nexcl = b[CYG_CTRL_OFF_NEXCL];
    c->hide = (unsigned)le_get(b + CYG_CTRL_OFF_HIDE, 2);
    c->fired = b[CYG_CTRL_OFF_FIRED];
    c->nfired = b[CYG_CTRL_OFF_NFIRED];
    c->gate = b[CYG_CTRL_OFF_GATE];
    c->fired_head = le_get(b + CYG_CTRL_OFF_FIRED_HEAD, 8);
    c->fired_ts = le_get(b + CYG_CTRL_OFF_FIRED_TS, 8);
    if (c->ntrig > CYG_CTRL_TRIGS || c->nexcl > CYG_CTRL_EXCLS) {
        snprintf(err, errlen, "control area counts more triggers or exclusions than it has "
                 "room for");
        return -1;
    }
    for (unsigned i = 0; i < c->ntrig; i++) {
        const uint8_t *t = b + CYG_CTRL_OFF_TRIG + i * CYG_CTRL_TRIG_BYTES;
        struct ctrl_trig *tr = &c->trig[i];

        tr->what = le_get(t + CYG_TRIG_OFF_WHAT, 8) & amask;
        tr->after = (uint32_t)le_get(t + CYG_TRIG_OFF_AFTER, 4);
        tr->kind = t[CYG_TRIG_OFF_KIND];
        tr->fired = t[CYG_TRIG_OFF_FLAGS] & CYG_TRIGF_FIRED;
        if (tr->kind == 0 || tr->kind >= CYG_TRIG_KINDS) {
            snprintf(err, errlen, "control area has a trigger of an unknown kind");
            return -1;
        }
    }
    for (unsigned i = 0; i < c->nexcl; i++)
        c->excl[i] = le_get(b + CYG_CTRL_OFF_EXCL + i * 8, 8) & amask;
    /* A request written after the trigger fired (and not applied: a frozen ring) may have
     * fewer triggers: the one that fired is no longer in it. */
    if (c->fired > c->ntrig)
        c->fired = 0;
    return 0;
}

void ctrl_store(const struct ctrl *c, uint8_t *b)
{
    le_put(b + CYG_CTRL_OFF_GEN, c->gen, 4);
    le_put(b + CYG_CTRL_OFF_EVENTS, c->events, 4);
    le_put(b + CYG_CTRL_OFF_DEPTH, c->depth, 4);
    b[CYG_CTRL_OFF_NTRIG] = (uint8_t)c->ntrig;
    b[CYG_CTRL_OFF_NEXCL] = (uint8_t)c->nexcl;
    le_put(b + CYG_CTRL_OFF_HIDE, c->hide, 2);
    memset(b + CYG_CTRL_OFF_TRIG, 0, CYG_CTRL_BYTES - CYG_CTRL_OFF_TRIG);
    for (unsigned i = 0; i < c->ntrig; i++) {
        uint8_t *t = b + CYG_CTRL_OFF_TRIG + i * CYG_CTRL_TRIG_BYTES;

        le_put(t + CYG_TRIG_OFF_WHAT, c->trig[i].what, 8);
        le_put(t + CYG_TRIG_OFF_AFTER, c->trig[i].after, 4);
        t[CYG_TRIG_OFF_KIND] = (uint8_t)c->trig[i].kind;
    }
    for (unsigned i = 0; i < c->nexcl; i++)
        le_put(b + CYG_CTRL_OFF_EXCL + i * 8, c->excl[i], 8);
}

static const char *const kind_names[CYG_TRIG_KINDS] = {NULL, "start", "stop", "freeze", "freeze"};

int ctrl_parse_trigger(const char *text, struct ctrl_spec *s, char *err, size_t errlen)
{
    struct cyg_spec p;
    enum cyg_spec_err e = cyg_spec_trigger(text, strlen(text), &p);

    memset(s, 0, sizeof *s);
    s->type = CTRL_SPEC_TRIG;
    s->kind = p.kind;
    s->after = p.after;
    s->mark = p.mark;
    if (e == CYG_SPEC_EKIND) {
        snprintf(err, errlen, "trigger '%s': unknown kind '%.*s' (start, stop or freeze)", text,
                 (int)p.kind_len, text);
        return -1;
    }
    if (e == CYG_SPEC_ENAME) {
        snprintf(err, errlen, "trigger '%s': '%.*s' is not a function's name", text,
                 (int)p.name_len, p.name);
        return -1;
    }
    if (e != CYG_SPEC_OK) {
        snprintf(err, errlen, "trigger '%s': %s", text, cyg_spec_why(e));
        return -1;
    }
    if (p.name) {
        if (p.name_len >= sizeof s->name) {
            snprintf(err, errlen, "trigger '%.40s...': a function's name of more than %zu bytes",
                     text, sizeof s->name - 1);
            return -1;
        }
        memcpy(s->name, p.name, p.name_len);
        s->name[p.name_len] = 0;
    }
    return 0;
}

/* Splits list at commas into items of at most 255 bytes; calls one for each. */
static int each_item(const char *list, int (*one)(const char *item, void *arg), void *arg,
                     char *err, size_t errlen)
{
    char item[256];
    int n = 0;

    for (const char *p = list;; p++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);

        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, len ? "'%.40s...': too long an item" : "'%s': an empty item",
                     list);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = 0;
        if (one(item, arg) < 0)
            return -1;
        n++;
        if (!e)
            return n;
        p = e;
    }
}

struct list_arg {
    struct ctrl_spec *s;
    unsigned max, n;
    int hide;
    char *err;
    size_t errlen;
    const char *what;
};

static int room(struct list_arg *a, const char *item)
{
    if (a->n < a->max)
        return 0;
    snprintf(a->err, a->errlen, "'%s': more than %u %s", item, a->max, a->what);
    return -1;
}

static int one_trigger(const char *item, void *arg)
{
    struct list_arg *a = arg;

    if (room(a, item) < 0 || ctrl_parse_trigger(item, &a->s[a->n], a->err, a->errlen) < 0)
        return -1;
    a->n++;
    return 0;
}

int ctrl_parse_triggers(const char *list, struct ctrl_spec *s, unsigned max, char *err,
                        size_t errlen)
{
    struct list_arg a = {s, max, 0, 0, err, errlen, "triggers"};

    return each_item(list, one_trigger, &a, err, errlen) < 0 ? -1 : (int)a.n;
}

static int one_exclude(const char *item, void *arg)
{
    struct list_arg *a = arg;
    struct ctrl_spec *s = &a->s[a->n];
    size_t len = strlen(item);

    if (room(a, item) < 0)
        return -1;
    if (len >= sizeof s->name) {
        snprintf(a->err, a->errlen, "'%.40s...': a function's name of more than %zu bytes", item,
                 sizeof s->name - 1);
        return -1;
    }
    if (!cyg_spec_name_ok(item, len)) {
        snprintf(a->err, a->errlen, "'%s' is not a function's name", item);
        return -1;
    }
    memset(s, 0, sizeof *s);
    s->type = CTRL_SPEC_EXCL;
    s->hide = a->hide;
    memcpy(s->name, item, len + 1);
    a->n++;
    return 0;
}

int ctrl_parse_excludes(const char *list, int hide, struct ctrl_spec *s, unsigned max,
                        char *err, size_t errlen)
{
    struct list_arg a = {s, max, 0, hide, err, errlen, "excluded functions"};

    return each_item(list, one_exclude, &a, err, errlen) < 0 ? -1 : (int)a.n;
}

int ctrl_parse_events(const char *text, uint32_t *mask, char *err, size_t errlen)
{
    size_t n = strlen(text);

    if (cyg_spec_events(text, n, mask) == 0)
        return 0;
    if (n > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        snprintf(err, errlen, "events '%s': not a 32-bit mask", text);
    else
        snprintf(err, errlen, "events '%s': not all, none, a 0x mask or a list of classes "
                 "0 to 31 (like 0,3-5)", text);
    return -1;
}

int ctrl_add(struct ctrl *c, const struct ctrl_spec *s, uint64_t addr, char *err, size_t errlen)
{
    if (s->type == CTRL_SPEC_TRIG) {
        struct ctrl_trig *t;

        if (c->ntrig >= CYG_CTRL_TRIGS) {
            snprintf(err, errlen, "more than %u triggers", CYG_CTRL_TRIGS);
            return -1;
        }
        t = &c->trig[c->ntrig++];
        memset(t, 0, sizeof *t);
        t->kind = s->kind;
        t->what = s->kind == CYG_TRIG_FREEZE_MARK ? s->mark : addr;
        t->after = s->after;
        return 0;
    }
    if (c->nexcl >= CYG_CTRL_EXCLS) {
        snprintf(err, errlen, "more than %u excluded functions", CYG_CTRL_EXCLS);
        return -1;
    }
    if (s->hide)
        c->hide |= 1u << c->nexcl;
    c->excl[c->nexcl++] = addr;
    return 0;
}

/* The function at addr by name, or in hex. */
static void fn_text(uint64_t addr, ctrl_name_fn name, void *arg, char *buf, size_t len)
{
    const char *n = name ? name(arg, addr) : NULL;

    if (n)
        snprintf(buf, len, "%s", n);
    else
        snprintf(buf, len, "0x%llx", (unsigned long long)addr);
}

const char *ctrl_trig_text(const struct ctrl *c, unsigned i, ctrl_name_fn name, void *arg,
                           char *buf, size_t len)
{
    const struct ctrl_trig *t = &c->trig[i];
    char fn[160];

    if (t->kind == CYG_TRIG_FREEZE_MARK)
        snprintf(fn, sizeof fn, "mark:%llu", (unsigned long long)t->what);
    else
        fn_text(t->what, name, arg, fn, sizeof fn);
    if (t->kind == CYG_TRIG_FREEZE || t->kind == CYG_TRIG_FREEZE_MARK)
        snprintf(buf, len, "%s@%s+%u", kind_names[t->kind], fn, (unsigned)t->after);
    else
        snprintf(buf, len, "%s@%s", t->kind < CYG_TRIG_KINDS ? kind_names[t->kind] : "?", fn);
    return buf;
}

unsigned ctrl_describe(const struct ctrl *c, ctrl_name_fn name, void *arg, const char *prefix,
                       FILE *f)
{
    char buf[256], fn[160];
    unsigned n = 0;

    for (unsigned i = 0; i < c->ntrig; i++, n++)
        fprintf(f, "%strigger %s%s\n", prefix, ctrl_trig_text(c, i, name, arg, buf, sizeof buf),
                c->trig[i].fired ? " (fired)" : "");
    for (unsigned i = 0; i < c->nexcl; i++, n++) {
        fn_text(c->excl[i], name, arg, fn, sizeof fn);
        fprintf(f, "%s%s %s%s\n", prefix, c->hide >> i & 1 ? "hide" : "exclude", fn,
                c->hide >> i & 1 ? " (and its callees)" : "");
    }
    if (c->depth) {
        fprintf(f, "%sdepth %u\n", prefix, (unsigned)c->depth);
        n++;
    }
    if (c->events != UINT32_MAX) {
        fprintf(f, "%sevents 0x%08x (classes of marks recorded)\n", prefix, (unsigned)c->events);
        n++;
    }
    if (c->fired) {
        fprintf(f, "%sfired %s at event %llu (%u trigger%s fired)\n", prefix,
                ctrl_trig_text(c, c->fired - 1, name, arg, buf, sizeof buf),
                (unsigned long long)c->fired_head, c->nfired, c->nfired == 1 ? "" : "s");
        n++;
    }
    if (c->gen != c->applied) {
        fprintf(f, "%snot yet applied by the target (request %u, applied %u)\n", prefix,
                (unsigned)c->gen, (unsigned)c->applied);
        n++;
    }
    return n;
}
