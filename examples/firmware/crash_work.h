/* SPDX-License-Identifier: MIT */
/* crash_work.h - the calls the crash examples make (crash.c here, examples/riscv/crash.c), each
 * including it once, so that they are built, instrumented, with it: app_run -> parse_packet ->
 * read_field, which loads through a corrupt payload pointer. The program says first where that
 * pointer points: BAD_POINTER, an address where nothing answers on any of its boards, so that
 * the load faults precisely (the fault's PC is the load itself). */
#ifndef CRASH_WORK_H
#define CRASH_WORK_H

#include <stdint.h>

#include "board_base.h"

struct packet {
    uint32_t len;
    const volatile uint32_t *payload;
};

static const uint32_t payload[2] = {0x1234, 0x5678};

uint32_t read_field(const struct packet *p, unsigned i)
{
    return p->payload[i];
}

uint32_t parse_packet(const struct packet *p)
{
    uint32_t sum = 0;

    for (unsigned i = 0; i < p->len; i++)
        sum += read_field(p, i);
    return sum;
}

void app_run(void)
{
    const struct packet good = {2, payload};
    const struct packet corrupt = {2, (const volatile uint32_t *)BAD_POINTER};

    board_puts("crash: good packet ");
    board_putu(parse_packet(&good));
    board_puts("\n");
    parse_packet(&corrupt);
    board_puts("crash: survived the bad pointer?\n");
}

#endif
