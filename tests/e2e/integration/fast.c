/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fast.c - a file left out of the instrumentation (CYGTRACE_EXCLUDE_FILES, EXCLUDE_FILES): none
 * of its calls may be in the trace. */
int fast_mix(int v);

int fast_add(int a, int b)
{
    return a + b;
}

int fast_mix(int v)
{
    return fast_add(v, v << 1);
}
