/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rtos.c - task and object names from a FreeRTOS or Zephyr target's memory (rtos.h). */
#include <stdio.h>
#include <string.h>

#include "cyg_format.h"
#include "util/le.h"
#include "source/rtos.h"

#define TCB_FIELD_MAX 4096u /* a name or number further into a TCB than this: not the glue's */
#define NAME_BYTES 64u

/* The glue's table (target/rtos/freertos/cygtrace_freertos.h). */
struct frt_info {
    unsigned name_off, name_len, number_off, number_bytes;
};

int rtos_has_freertos(const struct sym_table *sym)
{
    return sym && sym_find(sym, "cygtrace_freertos", NULL, NULL) == 0;
}

/* Reads the glue's table (symbol sym_name, n bytes into b) and checks its magic and version
 * (1): 0, or -1 with why. unfilled: why a table without its magic is so. */
static int glue_read(const struct sym_table *sym, rtos_read_fn read, void *arg,
                     const char *sym_name, const char *glue, uint32_t magic, const char *unfilled,
                     uint8_t *b, size_t n, char *why, size_t whylen)
{
    uint64_t addr;

    if (sym_find(sym, sym_name, &addr, NULL) < 0) {
        snprintf(why, whylen, "no %s symbol: the %s glue is not linked in", sym_name, glue);
        return -1;
    }
    if (read(arg, addr, b, n) < 0) {
        snprintf(why, whylen, "%s at 0x%llx: cannot be read", sym_name, (unsigned long long)addr);
        return -1;
    }
    if (le_get(b, 4) != magic) {
        snprintf(why, whylen, "%s: not filled in (%s)", sym_name, unfilled);
        return -1;
    }
    if (le_get(b + 4, 2) != 1) {
        snprintf(why, whylen, "%s: version %u, this host reads version 1", sym_name,
                 (unsigned)le_get(b + 4, 2));
        return -1;
    }
    return 0;
}

static int info_read(const struct sym_table *sym, rtos_read_fn read, void *arg,
                     struct frt_info *fi, char *why, size_t whylen)
{
    uint8_t b[RTOS_FREERTOS_BYTES];

    if (glue_read(sym, read, arg, "cygtrace_freertos", "FreeRTOS", RTOS_FREERTOS_MAGIC,
                  "no task created yet", b, sizeof b, why, whylen) < 0)
        return -1;
    fi->name_off = (unsigned)le_get(b + 6, 2);
    fi->name_len = (unsigned)le_get(b + 8, 2);
    fi->number_off = (unsigned)le_get(b + 10, 2);
    fi->number_bytes = (unsigned)le_get(b + 12, 2);
    if (fi->name_off >= TCB_FIELD_MAX || fi->number_off >= TCB_FIELD_MAX || !fi->name_len ||
        (fi->number_bytes != 2 && fi->number_bytes != 4 && fi->number_bytes != 8)) {
        snprintf(why, whylen, "cygtrace_freertos: a TCB layout no kernel has (name at %u, %u "
                 "bytes; number at %u, %u bytes)", fi->name_off, fi->name_len, fi->number_off,
                 fi->number_bytes);
        return -1;
    }
    if (fi->name_len > NAME_BYTES)
        fi->name_len = NAME_BYTES;
    return 0;
}

/* A name of at most len bytes at p, NUL-terminated within them or not: kept when it is
 * printable ASCII and not empty (anything else is not a name: freed memory, another struct). */
static int plain_name(const uint8_t *p, size_t len, char *out)
{
    size_t i;

    for (i = 0; i < len && p[i]; i++)
        if (p[i] < 0x20 || p[i] > 0x7e)
            return 0;
    if (!i)
        return 0;
    memcpy(out, p, i);
    out[i] = 0;
    return 1;
}

/* The string at addr, read in one go (a name in flash or in RAM). */
static int read_name(rtos_read_fn read, void *arg, uint64_t addr, size_t len, char *out)
{
    uint8_t b[NAME_BYTES];

    if (!addr || read(arg, addr, b, len) < 0)
        return 0;
    return plain_name(b, len, out);
}

static int tasks(const struct frt_info *fi, rtos_read_fn read, void *arg, const uint32_t *ids,
                 const uint64_t *handles, size_t count, struct names *n)
{
    char name[NAME_BYTES + 1];
    uint8_t num[8];
    int added = 0;

    for (size_t i = 0; i < count; i++) {
        if (!handles[i] || names_ctx(n, ids[i]))
            continue;
        /* The glue's context id is the task's number, masked to the 20 bits a SCHED record
         * carries of it. */
        if (read(arg, handles[i] + fi->number_off, num, fi->number_bytes) < 0 ||
            (le_get(num, fi->number_bytes) & CYG_SCHED_ID_MASK) != (ids[i] & CYG_SCHED_ID_MASK))
            continue;
        if (read_name(read, arg, handles[i] + fi->name_off, fi->name_len, name) &&
            names_set_ctx(n, ids[i], name) == 0)
            added++;
    }
    return added;
}

/* The queue registry: { const char *pcQueueName; QueueHandle_t xHandle; } a slot. */
static int registry(const struct sym_table *sym, rtos_read_fn read, void *arg, struct names *n)
{
    unsigned w = sym_word_bytes(sym);
    uint64_t addr, size;
    uint8_t b[64 * 16];
    char name[NAME_BYTES + 1];
    int added = 0;

    if (sym_find(sym, "xQueueRegistry", &addr, &size) < 0 || !size)
        return 0;
    if (size > sizeof b)
        size = sizeof b - sizeof b % (2 * w);
    if (read(arg, addr, b, (size_t)size) < 0)
        return 0;
    for (uint64_t i = 0; i + 2 * w <= size; i += 2 * w) {
        uint64_t nm = le_get(b + i, w), h = le_get(b + i + w, w);

        if (!h || names_obj(n, h, NULL) || !read_name(read, arg, nm, NAME_BYTES / 2, name))
            continue;
        if (names_set_obj(n, h, CYG_OBJ_NONE, name) == 0)
            added++;
    }
    return added;
}

int rtos_freertos_names(const struct sym_table *sym, rtos_read_fn read, void *arg,
                        const uint32_t *ids, const uint64_t *handles, size_t count,
                        struct names *n, char *why, size_t whylen)
{
    struct frt_info fi;

    if (info_read(sym, read, arg, &fi, why, whylen) < 0)
        return -1;
    return tasks(&fi, read, arg, ids, handles, count, n) + registry(sym, read, arg, n);
}

int rtos_has_zephyr(const struct sym_table *sym)
{
    return sym && sym_find(sym, "cygtrace_zephyr", NULL, NULL) == 0;
}

int rtos_zephyr_names(const struct sym_table *sym, rtos_read_fn read, void *arg,
                      const uint32_t *ids, const uint64_t *handles, size_t count,
                      struct names *n, char *why, size_t whylen)
{
    uint8_t b[RTOS_ZEPHYR_BYTES];
    char name[NAME_BYTES + 1];
    unsigned name_off, name_len;
    int added = 0;

    if (glue_read(sym, read, arg, "cygtrace_zephyr", "Zephyr", RTOS_ZEPHYR_MAGIC,
                  "no CONFIG_THREAD_NAME, or not started", b, sizeof b, why, whylen) < 0)
        return -1;
    name_off = (unsigned)le_get(b + 6, 2);
    name_len = (unsigned)le_get(b + 8, 2);
    if (name_off >= TCB_FIELD_MAX || !name_len) {
        snprintf(why, whylen, "cygtrace_zephyr: a thread layout no kernel has (name at %u, %u "
                 "bytes)", name_off, name_len);
        return -1;
    }
    if (name_len > NAME_BYTES)
        name_len = NAME_BYTES;
    for (size_t i = 0; i < count; i++) {
        uint32_t id = (uint32_t)(handles[i] >> 2) & 0x7FFFFu;

        if (!handles[i] || names_ctx(n, ids[i]) || ids[i] != (id ? id : 0x7FFFFu))
            continue;
        if (read_name(read, arg, handles[i] + name_off, name_len, name) &&
            names_set_ctx(n, ids[i], name) == 0)
            added++;
    }
    return added;
}
