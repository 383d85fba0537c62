/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app.c - the firmware of tests/e2e/fw_integration.sh, built outside the cygtrace tree the two
 * documented ways (Makefile: tools/cygtrace.mk; CMakeLists.txt: tools/cygtrace.cmake) with the
 * board support of examples/firmware. Its trace must show every call but those of
 * hidden_checksum (excluded by name) and of fast.c (excluded as a file); what they call from
 * here is still there; and the call into the precompiled vendor.c, through its wrapper:
 *
 *     main -> app_run -> app_sum -> app_scale x3
 *                     -> [hidden_checksum] -> app_scale
 *                     -> [fast_mix -> fast_add]
 *                     -> vendor_crc (wrapped)
 */
#include "board.h"

int fast_mix(int v);                    /* fast.c */
int vendor_crc(int v, const char *tag); /* vendor.c, precompiled */

int app_scale(int v)
{
    return v * 3 + 1;
}

int app_sum(int n)
{
    int s = 0;

    for (int i = 0; i < n; i++)
        s += app_scale(i);
    return s;
}

int hidden_checksum(int v)
{
    return app_scale(v) ^ 0x5a;
}

int app_run(void)
{
    int r = app_sum(3) + hidden_checksum(7) + fast_mix(5);

    return r + vendor_crc(r, "app");
}

int main(void)
{
    int r = app_run();

    board_puts("app: done ");
    board_putu((uint32_t)r);
    board_puts("\n");
    return 0;
}
