/* SPDX-License-Identifier: MIT */
/* board.h - what the RISC-V example programs need from a board: examples/firmware/board_base.h's
 * UART, rate of the trace's clock (mcycle) and idle loop, as the Cortex-M boards give them. One
 * implementation per board (board_sifive_e.c, board_virt.c) and the common part
 * (board_common.c), built without -finstrument-functions: the trace shows the programs' own
 * calls, not the UART's. */
#ifndef BOARD_H
#define BOARD_H

#include "../firmware/board_base.h"

#endif
