/* SPDX-License-Identifier: MIT */
/* wrap_work.c - the functions whose call the wrapped-call benchmarks time, on Linux (bench/wrap.sh)
 * and on the Cortex-M3 (bench/cortex-m/wrap.sh): small, so that what is measured is the call and
 * what is recorded of it. Each benchmark builds this file three ways: plainly; with
 * -finstrument-functions, linked with the runtime's hooks (entry and exit recorded); and plainly
 * into a static library that `cygtrace wrap` wraps from its DWARF (entry, the arguments, the
 * return value and exit recorded). -O2 on Linux, -Os on the Cortex-M3, as a vendor builds a
 * library; never inlined into the caller, which is in another file. */

/* One int argument, an int return value. */
int bench_inc(int x)
{
    return x + 1;
}

/* A string argument (the wrapper records its bytes), an int return value. */
int bench_len(const char *s)
{
    int n = 0;

    while (s[n] != '\0')
        n++;
    return n;
}
