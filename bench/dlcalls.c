/* SPDX-License-Identifier: MIT */
/* dlcalls.c - what the runtime adds to the program's calls of the dynamic loader: dlsym of a
 * loaded plugin's function, dlopen + dlclose of a library already loaded (a reference count),
 * and dlopen + dlsym + dlclose of an instrumented plugin that is loaded and unloaded each time
 * (the runtime then names it in the map). ns per call, from CLOCK_MONOTONIC.
 *
 *   cc -O2 -fPIC -shared -finstrument-functions -o p.so bench/dlcalls_plugin.c
 *   cc -O2 -finstrument-functions -o dlcalls bench/dlcalls.c
 *   ./dlcalls $PWD/p.so 20000                              (no runtime: glibc's empty hooks)
 *   LD_PRELOAD=build/linux/libcygtrace.so ./dlcalls $PWD/p.so 20000
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

__attribute__((noinline)) static int work(int x)
{
    return x * 2;
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[2]) : 0;
    double t0;
    void *h;

    if (n < 10 || !(h = dlopen(argv[1], RTLD_NOW))) {
        fprintf(stderr, "usage: dlcalls PLUGIN N (N >= 10)\n");
        return 2;
    }
    work(1); /* the ring is set up before the first measure */
    t0 = now();
    for (int i = 0; i < n; i++)
        if (!dlsym(h, "pf"))
            return 1;
    printf("dlsym                       %6.0f ns\n", (now() - t0) / n);
    t0 = now();
    for (int i = 0; i < n; i++)
        dlclose(dlopen("libc.so.6", RTLD_NOW));
    printf("dlopen+dlclose, loaded      %6.0f ns\n", (now() - t0) / n);
    dlclose(h);
    t0 = now();
    for (int i = 0; i < n / 10; i++) {
        void *g = dlopen(argv[1], RTLD_NOW);

        if (!g || !dlsym(g, "pf"))
            return 1;
        dlclose(g);
    }
    printf("dlopen+dlsym+dlclose, new   %6.0f ns\n", (now() - t0) / (n / 10));
    return 0;
}
