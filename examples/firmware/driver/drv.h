/* SPDX-License-Identifier: MIT */
/* drv.h - the API of a made-up vendor driver, the kind that comes as a precompiled library
 * (libdrv.a) with a header: a peripheral whose registers, mode and name the firmware reads and
 * sets. firmware.mk builds it per board with -g -Os and without -finstrument-functions, as a
 * vendor would, and `cygtrace wrap` writes the wrappers that record its calls from its DWARF.
 * Its parameter and return types are the ones a wrapper has to get right: ints, an enum, a
 * string either way, a pointer to a struct, a 64-bit integer, a double, void. */
#ifndef DRV_H
#define DRV_H

#include <stdint.h>

enum drv_mode {
    DRV_OFF = 0,
    DRV_SLOW = 1,
    DRV_FAST = 2,
};

struct drv_config {
    uint32_t baud;
    enum drv_mode mode;
    uint8_t channel;
};

/* Puts the registers back to their reset values; the mode to DRV_OFF. */
void drv_reset(void);

/* Applies cfg: 0, or -1 when a field is out of range. */
int drv_configure(const struct drv_config *cfg);

/* Sets the mode; returns the one before. */
enum drv_mode drv_set_mode(enum drv_mode mode);

/* The value of register reg (0..7), or -1. */
int drv_read(int reg);

/* Writes value to register reg (0..7); returns the value the register had before, or -1. */
int drv_write(int reg, unsigned value);

/* The name of channel id, or NULL when there is none. */
const char *drv_name(int id);

/* Sends msg on the channel; returns the bytes sent. */
int drv_send(const char *msg);

/* Bytes sent since the reset, with the driver's epoch above 32 bits. */
uint64_t drv_counter(void);

/* A raw reading scaled to the unit: raw * gain. */
double drv_scale(int raw, double gain);

#endif
