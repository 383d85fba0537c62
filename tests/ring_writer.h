/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ring_writer.h - the command tests/ring_writer reads: record pairs enter/exit pairs, of
 * functions base + 16 * i. */
#ifndef RING_WRITER_H
#define RING_WRITER_H

#include <stdint.h>

struct ring_writer_cmd {
    uint32_t pairs;
    uint64_t base;
};

#endif
