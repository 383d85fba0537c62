/* SPDX-License-Identifier: MIT */
/* libsdemo.c - a PIE program with an instrumented shared library (libshape.so), a plugin it
 * dlopens (plugin.so), and the process shapes that make more than one trace. Run it under
 * `cygtrace record` (it links no runtime: the preloaded libcygtrace.so records every object):
 *
 *   libs   main -> run_libs -> shape_area (libshape.so) and plugin_run (plugin.so).
 *   fork   main -> run_fork -> fork: the child calls child_work -> shape_area and exits; the
 *          parent waits, then calls parent_after. Two processes, two traces.
 *   exec   main -> run_exec -> execs itself as "exec-child", whose main -> exec_child_work ->
 *          shape_area. Same process, two programs, two traces.
 *   exec2  the same with one exec more in between: three programs in one process.
 *   crash  main -> run_crash -> plugin_crash (plugin.so) -> SIGSEGV.
 *   noplugin  dlopen of a plugin that is not there: dlerror() says so, as without cygtrace.
 *
 * Build: make (build/examples/libs/). tests/e2e/linux_libs.sh checks the trees.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shape.h"

/* The plugin beside this program, by its bare name: the program's RUNPATH ($ORIGIN) finds it,
 * as it would find a plugin directory of a real program. */
static void *open_plugin(void)
{
    void *h = dlopen("plugin.so", RTLD_NOW);

    if (!h)
        fprintf(stderr, "libsdemo: %s\n", dlerror());
    return h;
}

static int run_libs(void)
{
    void *h = open_plugin();
    long (*run)(long);
    long area = shape_area(3, 2);

    if (!h || !(run = (long (*)(long))dlsym(h, "plugin_run")))
        return 1;
    printf("area %ld, plugin %ld\n", area, run(4));
    return 0;
}

static void child_work(void)
{
    printf("child %ld: area %ld\n", (long)getpid(), shape_area(2, 2));
}

static void parent_after(int status)
{
    printf("parent: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static int run_fork(void)
{
    int status;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        child_work();
        fflush(stdout);
        _exit(0);
    }
    if (waitpid(pid, &status, 0) < 0)
        return 1;
    parent_after(status);
    return 0;
}

static int run_exec(const char *next)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

    if (n <= 0)
        return 1;
    self[n] = 0;
    fflush(stdout);
    execl(self, self, next, (char *)NULL);
    perror("libsdemo: exec");
    return 1;
}

static void exec_child_work(void)
{
    printf("exec-child %ld: area %ld\n", (long)getpid(), shape_area(1, 3));
}

static int run_crash(void)
{
    void *h = open_plugin();
    void (*crash)(void);

    if (!h || !(crash = (void (*)(void))dlsym(h, "plugin_crash")))
        return 1;
    crash();
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if (!strcmp(mode, "libs"))
        return run_libs();
    if (!strcmp(mode, "fork"))
        return run_fork();
    if (!strcmp(mode, "exec"))
        return run_exec("exec-child");
    if (!strcmp(mode, "exec2"))
        return run_exec("exec");
    if (!strcmp(mode, "exec-child")) {
        exec_child_work();
        return 0;
    }
    if (!strcmp(mode, "crash"))
        return run_crash();
    if (!strcmp(mode, "noplugin")) /* dlopen's own error, through the runtime's wrapper */
        return dlopen("nosuch-plugin.so", RTLD_NOW) ? 0 : (fprintf(stderr, "%s\n", dlerror()), 3);
    fprintf(stderr, "usage: libsdemo libs|fork|exec|exec2|crash|noplugin\n");
    return 2;
}
