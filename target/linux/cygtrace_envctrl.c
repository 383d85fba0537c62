/* SPDX-License-Identifier: MIT */
/* cygtrace_envctrl.c - the Linux runtime's triggers and record-time filters from its
 * environment: CYGTRACE_TRIGGER, CYGTRACE_EXCLUDE, CYGTRACE_HIDE, CYGTRACE_DEPTH and
 * CYGTRACE_EVENTS, in the syntax of `cygtrace record`'s options (host/decode/ctrl.c checks the
 * same before it runs the program, both with common/cyg_spec.c). Read with the other settings;
 * names resolved at the first set-up (cygtrace_syms.c); armed in each ring this process makes
 * (a forked child's too, with the same addresses) after cygtrace_init, before recording
 * starts. A malformed item, a name that is no function: one line on stderr, that item ignored,
 * the rest armed. A name may also be 0x followed by the address nm shows in the program (the
 * load bias is added): one outside the program's code (0x0, a number past 64 bits, which
 * strtoull would saturate) is said and ignored. At most CTL_SAY_MAX such lines are written,
 * then how many more there were: a variable of 100 000 bad items is not 100 000 lines in the
 * program's stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_spec.h"
#include "cygtrace_linux.h"

enum { ITEM_TRIG = 1, ITEM_EXCL, ITEM_HIDE };
enum { ITEM_PENDING, ITEM_READY, ITEM_DROPPED }; /* a name not looked up or not found yet; an
                                                    address to arm; nothing to arm */

struct ctl_item {
    unsigned char type;          /* ITEM_* */
    unsigned char kind;          /* ITEM_TRIG: CYG_TRIG_* */
    unsigned char state;         /* ITEM_PENDING... */
    uint32_t after;              /* a freeze: events after the trigger's own */
    uintptr_t what;              /* a mark's id, or once resolved the function's address */
    char name[CYG_SYMS_NAME_MAX]; /* the function's name ("" for a mark) */
};

_Static_assert(CYG_CTRL_TRIGS == 6 && CYG_CTRL_EXCLS == 12, "the messages below say 6 and 12");

static struct {
    struct ctl_item item[CYG_CTRL_TRIGS + CYG_CTRL_EXCLS];
    unsigned n, ntrig, nexcl;
    int resolved;                /* names looked up at set-up (once per program) */
    int depth_set, events_set;
    uint32_t depth, events;
} ctl_env;

#define CTL_SAY_MAX 5u /* lines about the items, then only their count */

static unsigned ctl_said, ctl_unsaid;

/* "VAR: 'ITEM': WHY", while fewer than CTL_SAY_MAX were said; else counted. */
NOINSTR static void ctl_say(const char *var, const char *item, const char *why)
{
    char what[400] = "";

    if (ctl_said >= CTL_SAY_MAX) {
        ctl_unsaid++;
        return;
    }
    ctl_said++;
    cyg_cat(cyg_cat(cyg_cat(cyg_cat(what, sizeof what, var), sizeof what, ": '"), sizeof what,
                    item),
            sizeof what, "'");
    cyg_say(what, why, 0);
}

/* After the lines of a pass over the items: how many more there were, in one line. */
NOINSTR static void ctl_say_rest(void)
{
    char why[120] = "";

    if (!ctl_unsaid)
        return;
    cyg_cat_ulong(why, sizeof why, ctl_unsaid);
    cyg_cat(why, sizeof why, ctl_unsaid == 1 ? " more line" : " more lines");
    cyg_cat(why, sizeof why, " like these, not shown");
    cyg_say("CYGTRACE_TRIGGER, CYGTRACE_EXCLUDE, CYGTRACE_HIDE", why, 0);
    ctl_unsaid = 0;
}

/* One trigger (start@FUNC, stop@FUNC, freeze@FUNC[+N], freeze@mark:ID[+N]) into *it; NULL,
 * or why it is not one (common/cyg_spec.c, as the host parses it). */
NOINSTR static const char *ctl_trigger(const char *text, struct ctl_item *it)
{
    struct cyg_spec p;
    enum cyg_spec_err e = cyg_spec_trigger(text, strlen(text), &p);

    if (e != CYG_SPEC_OK)
        return cyg_spec_why(e);
    it->type = ITEM_TRIG;
    it->kind = (unsigned char)p.kind;
    it->after = p.after;
    if (!p.name) {
        it->what = p.mark;
        it->state = ITEM_READY;
        return NULL;
    }
    if (p.name_len >= sizeof it->name)
        return "too long a function's name";
    memcpy(it->name, p.name, p.name_len);
    it->name[p.name_len] = 0;
    return NULL;
}

/* The items of list, the value of variable var (type ITEM_*), each checked and kept while
 * there is room. */
NOINSTR static void ctl_list(const char *var, const char *list, unsigned type)
{
    const char *p, *e;
    char item[256];

    for (p = list; p; p = e ? e + 1 : NULL) {
        struct ctl_item *it = &ctl_env.item[ctl_env.n];
        const char *why = NULL;
        size_t len;

        e = strchr(p, ',');
        len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 || len >= sizeof item) {
            ctl_say(var, len ? "..." : "",
                    len ? "too long an item; ignored" : "an empty item; ignored");
            continue;
        }
        memcpy(item, p, len);
        item[len] = 0;
        /* Room first: with every slot taken, it points one past the array. */
        if ((type == ITEM_TRIG ? ctl_env.ntrig == CYG_CTRL_TRIGS
                               : ctl_env.nexcl == CYG_CTRL_EXCLS)) {
            ctl_say(var, item, type == ITEM_TRIG
                                   ? "more than 6 triggers; it and the rest ignored"
                                   : "more than 12 excluded or hidden functions; it and the "
                                     "rest ignored");
            return;
        }
        memset(it, 0, sizeof *it);
        if (type == ITEM_TRIG) {
            why = ctl_trigger(item, it);
        } else {
            it->type = (unsigned char)type;
            if (!cyg_spec_name_ok(item, len) || len >= sizeof it->name)
                why = "not a function's name";
            else
                memcpy(it->name, item, len + 1);
        }
        if (why) {
            char line[160] = "";

            ctl_say(var, item, cyg_cat(cyg_cat(line, sizeof line, why), sizeof line, "; ignored"));
            continue;
        }
        ctl_env.n++;
        *(type == ITEM_TRIG ? &ctl_env.ntrig : &ctl_env.nexcl) += 1;
    }
}

NOINSTR void cyg_envctrl_read(void)
{
    const char *e;
    char what[80];
    unsigned long long v;

    ctl_list("CYGTRACE_TRIGGER", cyg_linux_env("CYGTRACE_TRIGGER"), ITEM_TRIG);
    ctl_list("CYGTRACE_EXCLUDE", cyg_linux_env("CYGTRACE_EXCLUDE"), ITEM_EXCL);
    ctl_list("CYGTRACE_HIDE", cyg_linux_env("CYGTRACE_HIDE"), ITEM_HIDE);
    ctl_say_rest();
    if ((e = cyg_linux_env("CYGTRACE_DEPTH"))) {
        what[0] = 0;
        cyg_cat(cyg_cat(what, sizeof what, "CYGTRACE_DEPTH="), sizeof what, e);
        errno = 0;
        v = strspn(e, "0123456789") == strlen(e) ? strtoull(e, NULL, 10) : ULLONG_MAX;
        if (errno || v > UINT32_MAX) {
            cyg_say(what, "not a number of levels (0: every depth); ignored", 0);
        } else {
            ctl_env.depth_set = 1;
            ctl_env.depth = (uint32_t)v;
        }
    }
    if ((e = cyg_linux_env("CYGTRACE_EVENTS"))) {
        what[0] = 0;
        cyg_cat(cyg_cat(what, sizeof what, "CYGTRACE_EVENTS="), sizeof what, e);
        if (cyg_spec_events(e, strlen(e), &ctl_env.events) < 0)
            cyg_say(what, "not all, none, a 0x mask or a list of classes 0 to 31 (like 0,3-5); "
                          "ignored", 0);
        else
            ctl_env.events_set = 1;
    }
}

static const char *const ctl_vars[] = {NULL, "CYGTRACE_TRIGGER", "CYGTRACE_EXCLUDE",
                                       "CYGTRACE_HIDE"};

/* "start@boom", "freeze@mark:7+100" or "noisy": item it as the user wrote it, into out. */
NOINSTR static const char *ctl_text(const struct ctl_item *it, char *out, size_t len)
{
    static const char *const kinds[] = {"", "start@", "stop@", "freeze@", "freeze@mark:"};

    out[0] = 0;
    if (it->type == ITEM_TRIG)
        cyg_cat(out, len, kinds[it->kind < 5 ? it->kind : 0]);
    if (it->type == ITEM_TRIG && it->kind == CYG_TRIG_FREEZE_MARK)
        cyg_cat_ulong(out, len, (unsigned long)it->what);
    else
        cyg_cat(out, len, it->name);
    if (it->type == ITEM_TRIG && (it->kind == CYG_TRIG_FREEZE || it->kind == CYG_TRIG_FREEZE_MARK))
        cyg_cat_ulong(cyg_cat(out, len, "+"), len, it->after);
    return out;
}

/* Arms one item in the ring; returns what the API returned (-1: no room, or no control area). */
NOINSTR static int ctl_arm(const struct ctl_item *it)
{
    void *fn = (void *)it->what;

    if (it->type != ITEM_TRIG)
        return cygtrace_exclude(fn, it->type == ITEM_HIDE);
    switch (it->kind) {
    case CYG_TRIG_START: return cygtrace_trigger_start(fn);
    case CYG_TRIG_STOP: return cygtrace_trigger_stop(fn);
    case CYG_TRIG_FREEZE: return cygtrace_trigger_freeze(fn, it->after);
    default: return cygtrace_trigger_freeze_mark((uint32_t)it->what, it->after);
    }
}

/* Why hit h does not give item it a function, or a note on the one it gives; "" when all is
 * well. Into why. */
NOINSTR static void ctl_why(const struct ctl_item *it, const struct cyg_syms_hit *h, char *why,
                            size_t len)
{
    why[0] = 0;
    if (!h->addr && h->ifunc) {
        cyg_cat(cyg_cat(why, len, it->name), len,
                " is an indirect function (STT_GNU_IFUNC): name the implementation it picks; "
                "ignored");
    } else if (!h->addr) {
        cyg_cat(cyg_cat(cyg_cat(why, len, "no function "), len, it->name), len,
                " in the program or its libraries; armed if a library that dlopen loads later "
                "has one");
    } else if (h->count > 1) {
        cyg_cat_ulong(why, len, h->count);
        cyg_cat(cyg_cat(why, len, " functions of that name ("), len, h->where);
        if (h->other[0])
            cyg_cat(cyg_cat(why, len, ", "), len, h->other);
        cyg_cat(cyg_cat(cyg_cat(why, len, "); using the "), len,
                        h->here > 1 ? "global (else the first) one in " : "one in "),
                len, h->where);
    }
}

/* Resolves the names of the items still pending (bias: the program's load bias, for 0x
 * addresses). At set-up (later 0), says what is wrong with each; after a dlopen (later 1),
 * silently, and arms what the new objects define. */
NOINSTR static void ctl_resolve(int later, uint64_t bias)
{
    const char *names[CYG_SYMS_MAX];
    struct cyg_syms_hit hits[CYG_SYMS_MAX];
    unsigned idx[CYG_SYMS_MAX], n = 0;
    char text[CYG_SYMS_NAME_MAX + 40], why[CYG_SYMS_NAME_MAX + 200];

    for (unsigned i = 0; i < ctl_env.n; i++) {
        struct ctl_item *it = &ctl_env.item[i];
        char *end;

        if (it->state != ITEM_PENDING)
            continue;
        if (it->name[0] == '0') { /* 0x...: the program's link-time address */
            unsigned long long v;
            const char *why = NULL;

            errno = 0;
            v = strtoull(it->name + 2, &end, 16);
            if (*end || !it->name[2] || errno || v == 0 || v > UINTPTR_MAX)
                why = "not an address (0x and hex digits, 64 bits at most); ignored";
            else if (!cyg_maps_in_code(v))
                why = "not in the program's code (give the address nm shows in the program); "
                      "ignored";
            it->what = why ? 0 : (uintptr_t)(v + bias);
            it->state = why ? ITEM_DROPPED : ITEM_READY;
            if (why)
                ctl_say(ctl_vars[it->type], ctl_text(it, text, sizeof text), why);
            continue;
        }
        idx[n] = i;
        names[n++] = it->name;
    }
    if (!n)
        return;
    cyg_syms_find(names, n, hits);
    for (unsigned k = 0; k < n; k++) {
        struct ctl_item *it = &ctl_env.item[idx[k]];

        if (!later) {
            ctl_why(it, &hits[k], why, sizeof why);
            if (why[0])
                ctl_say(ctl_vars[it->type], ctl_text(it, text, sizeof text), why);
        }
        if (!hits[k].addr) {
            it->state = hits[k].ifunc ? ITEM_DROPPED : ITEM_PENDING;
            continue;
        }
        it->what = hits[k].addr;
        it->state = ITEM_READY;
        if (later)
            ctl_arm(it);
    }
}

NOINSTR void cyg_envctrl_dlopened(uint64_t bias)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int pending = 0;

    if (!ctl_env.resolved || !cygtrace_control_block())
        return;
    for (unsigned i = 0; i < ctl_env.n; i++)
        pending |= ctl_env.item[i].state == ITEM_PENDING;
    if (!pending)
        return;
    pthread_mutex_lock(&lock);
    ctl_resolve(1, bias);
    pthread_mutex_unlock(&lock);
}

NOINSTR void cyg_envctrl_arm(int forked, uint64_t bias)
{
    int bad = 0;

    if (!ctl_env.resolved && !forked) {
        ctl_resolve(0, bias);
        ctl_say_rest();
        ctl_env.resolved = 1;
    }
    for (unsigned i = 0; i < ctl_env.n; i++)
        if (ctl_env.item[i].state == ITEM_READY)
            bad |= ctl_arm(&ctl_env.item[i]) < 0;
    if (ctl_env.depth_set)
        cygtrace_set_depth(ctl_env.depth);
    if (ctl_env.events_set)
        cygtrace_set_events(ctl_env.events);
    if (bad && !forked)
        cyg_say("CYGTRACE_TRIGGER", "this runtime is built without the control area "
                "(CYGTRACE_CONTROL=0); triggers and filters ignored", 0);
}
