/* SPDX-License-Identifier: MIT */
/* dlcalls_plugin.c - the plugin that bench/dlcalls.c loads. */
int pf(int x);
int pf(int x)
{
    return x + 1;
}
