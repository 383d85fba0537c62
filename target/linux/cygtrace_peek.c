/* SPDX-License-Identifier: MIT */
/* cygtrace_peek.c - reading the loaded objects' own bytes without touching them.
 *
 * A page of a file mapping that lies past the end of its file raises SIGBUS when read. The
 * dynamic linker maps a segment as its program header says, and never reads the pages it does
 * not need: a library whose PT_LOAD runs past the end of its file (or that was truncated on
 * disk since) loads and runs, and a plain read of its symbol names, relocations or notes by
 * the runtime would kill the program. So every read of a loaded object goes through the
 * kernel, which fails instead of faulting: process_vm_readv on this very process, or, where a
 * sandbox refuses that call, pread on /proc/self/mem (opened for the look-up, closed by
 * cyg_peek_free). Failing either, nothing is read (the object's names stay unknown).
 *
 * Reads go through a few 4 KiB windows: a table and its strings are read a window at a time,
 * one system call each, not one per symbol. A window is never larger than a page, so it is
 * read whole or not at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cygtrace_linux.h"

#define WIN CYG_PEEK_WINDOW

static int no_vm_readv; /* process_vm_readv refused once (seccomp, ENOSYS): /proc/self/mem */

/* Copies the window at a (aligned) into to; 0, or -1 when a byte of it cannot be read. */
NOINSTR static int fetch(struct cyg_peek *pk, unsigned char *to, uintptr_t a)
{
    struct iovec l = {to, WIN}, r = {(void *)a, WIN};
    ssize_t n;

    if (!__atomic_load_n(&no_vm_readv, __ATOMIC_RELAXED)) {
        n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
        if (n == (ssize_t)WIN)
            return 0;
        if (n >= 0 || errno == EFAULT || errno == ENOMEM)
            return -1;
        __atomic_store_n(&no_vm_readv, 1, __ATOMIC_RELAXED);
    }
    if (pk->mem_fd == -1)
        pk->mem_fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    if (pk->mem_fd < 0) {
        pk->mem_fd = -2; /* not again for this look-up */
        return -1;
    }
    do
        n = pread(pk->mem_fd, to, WIN, (off_t)a);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)WIN ? 0 : -1;
}

NOINSTR int cyg_peek(struct cyg_peek *pk, void *to, const void *from, size_t len)
{
    unsigned char *out = to;
    uintptr_t p = (uintptr_t)from;

    if (p + len < p)
        return -1;
    while (len) {
        uintptr_t a = p & ~(uintptr_t)(WIN - 1), off = p - a;
        size_t n = WIN - off < len ? WIN - off : len;
        unsigned w;

        for (w = 0; w < CYG_PEEK_WAYS && !(pk->valid >> w & 1u && pk->at[w] == a); w++)
            ;
        if (w == CYG_PEEK_WAYS) {
            w = pk->next++ % CYG_PEEK_WAYS;
            pk->valid &= ~(1u << w);
            if (a == 0 || fetch(pk, pk->win[w], a) < 0)
                return -1;
            pk->at[w] = a;
            pk->valid |= 1u << w;
        }
        memcpy(out, pk->win[w] + off, n);
        out += n;
        p += n;
        len -= n;
    }
    return 0;
}

NOINSTR struct cyg_peek *cyg_peek_new(void)
{
    struct cyg_peek *pk = mmap(NULL, sizeof *pk, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (pk == MAP_FAILED)
        return NULL;
    pk->mem_fd = -1;
    return pk;
}

NOINSTR void cyg_peek_free(struct cyg_peek *pk)
{
    if (!pk)
        return;
    if (pk->mem_fd >= 0)
        close(pk->mem_fd);
    munmap(pk, sizeof *pk);
}
