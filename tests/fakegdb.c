/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fakegdb.c - the unit tests' side of the fake GDB server (fakegdb.h). */
#include "fakegdb.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testdir.h"

void fake_start_n(struct fake *f, const char *mode, const uint8_t *image, size_t len)
{
    const char *build = getenv("CYGTRACE_BUILD"), *img = testdir_path("image"),
               *portfile = testdir_path("port");
    char prog[PATH_MAX], port[16] = "", err[512];
    uint8_t def[FAKE_BYTES];
    FILE *fp;

    if (!image)
        len = FAKE_BYTES;
    snprintf(prog, sizeof prog, "%s/tests/fake_gdb", build && *build ? build : "build");
    ck_assert_msg(access(prog, X_OK) == 0, "%s is missing: run make pull-fixtures", prog);
    for (unsigned i = 0; i < FAKE_BYTES; i++)
        def[i] = (uint8_t)i;
    fp = fopen(img, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(image ? image : def, 1, len, fp), len);
    fclose(fp);
    unlink(portfile);
    f->pid = fork();
    ck_assert_int_ge(f->pid, 0);
    if (f->pid == 0) {
        char addr[24];

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        snprintf(addr, sizeof addr, "%#x", FAKE_ADDR);
        execl(prog, prog, portfile, mode, img, addr, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 500 && !port[0]; i++) {
        if ((fp = fopen(portfile, "r"))) {
            if (!fgets(port, sizeof port, fp))
                port[0] = 0;
            fclose(fp);
        }
        if (!port[0])
            usleep(10000);
    }
    port[strcspn(port, "\n")] = 0;
    ck_assert_msg(port[0], "fake_gdb %s did not start", mode);
    snprintf(f->where, sizeof f->where, "127.0.0.1:%s", port);
    f->c = rsp_connect(f->where, 2000, err, sizeof err);
    ck_assert_msg(f->c != NULL, "%s", err);
}

void fake_start(struct fake *f, const char *mode, const uint8_t *image)
{
    fake_start_n(f, mode, image, FAKE_BYTES);
}

int fake_end(struct fake *f)
{
    int st;

    rsp_close(f->c);
    f->c = NULL;
    ck_assert_int_eq(waitpid(f->pid, &st, 0), f->pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
