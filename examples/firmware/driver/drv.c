/* SPDX-License-Identifier: MIT */
/* drv.c - the made-up vendor driver of drv.h: the peripheral is a few words of RAM. Built as a
 * vendor builds it (firmware.mk: -g -Os, no -finstrument-functions, into libdrv.a), so that its
 * calls show in a trace only through the wrappers `cygtrace wrap` writes from its DWARF.
 *
 * No function here calls another: GNU ld's --wrap redirects only the references a library's
 * object leaves undefined, so a call from one driver function to another in this file would
 * reach the real function directly and not be recorded. A vendor's library has such calls; the
 * trace then shows the outer call only. */
#include "drv.h"

#define DRV_REGS 8
#define DRV_EPOCH 2u /* drv_counter()'s upper word */

static uint32_t regs[DRV_REGS];
static enum drv_mode cur_mode;
static uint32_t sent;

/* The registers after a reset; register 3 is the chip's id. */
static const uint32_t reset_values[DRV_REGS] = {0, 0, 0, 42, 0, 0, 0, 0};

static const char *const channel_names[] = {"zero", "one", "two", "three"};

void drv_reset(void)
{
    for (int i = 0; i < DRV_REGS; i++)
        regs[i] = reset_values[i];
    cur_mode = DRV_OFF;
    sent = 0;
}

int drv_configure(const struct drv_config *cfg)
{
    if (cfg->baud == 0 || cfg->mode > DRV_FAST || cfg->channel >= 4)
        return -1;
    regs[0] = cfg->baud;
    regs[1] = cfg->channel;
    cur_mode = cfg->mode;
    return 0;
}

enum drv_mode drv_set_mode(enum drv_mode mode)
{
    enum drv_mode old = cur_mode;

    cur_mode = mode;
    return old;
}

int drv_read(int reg)
{
    return reg >= 0 && reg < DRV_REGS ? (int)regs[reg] : -1;
}

int drv_write(int reg, unsigned value)
{
    int old;

    if (reg < 0 || reg >= DRV_REGS)
        return -1;
    old = (int)regs[reg];
    regs[reg] = value;
    return old;
}

const char *drv_name(int id)
{
    return id >= 0 && id < 4 ? channel_names[id] : 0;
}

int drv_send(const char *msg)
{
    int n = 0;

    while (msg[n] != '\0')
        n++;
    sent += (uint32_t)n;
    return n;
}

uint64_t drv_counter(void)
{
    return (uint64_t)DRV_EPOCH << 32 | sent;
}

double drv_scale(int raw, double gain)
{
    return raw * gain;
}
