/* SPDX-License-Identifier: MIT */
/* plugin.c - plugin.so: instrumented code that libsdemo dlopens after the trace has begun, so
 * the runtime learns where it sits only then. */
#include <stdint.h>

static volatile long plugin_sink;

static long plugin_step(long x)
{
    plugin_sink += x;
    return x * 3;
}

long plugin_run(long x)
{
    return plugin_step(x) + plugin_step(x + 1);
}

/* Dies in the plugin: the trace must end here, named. */
void plugin_crash(void)
{
    plugin_step(1);
    *(volatile long *)(uintptr_t)plugin_sink = 0; /* plugin_sink is small: an unmapped page */
}
