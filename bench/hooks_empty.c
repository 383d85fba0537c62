/* SPDX-License-Identifier: MIT */
/* hooks_empty.c - the baseline: hooks that do nothing (each is a bare `ret`, like glibc's), so
 * that a variant's time minus this one is what its hooks cost above the call itself. The
 * firmware's baselines (cortex-m/, riscv/hooks_empty.c) include it and add their stubs. */
#define NOINSTR __attribute__((no_instrument_function))

NOINSTR void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
}

NOINSTR void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
}
