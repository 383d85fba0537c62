/* SPDX-License-Identifier: MIT */
/* wrapdemo.c - a program that calls into libvend.a and the C library, linked with the wrappers
 * that cygtrace wrap wrote for both (the Makefile's examples/wrap rules): each call below to a
 * vend_* function (but the three it cannot wrap), and to open, read, close, malloc and free,
 * goes through its wrapper, which records it with its arguments and return value. What the
 * program prints must be the same with and without the wrappers. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vend.h"

static int twice(int v)
{
    return 2 * v;
}

static void show_vend(void)
{
    const struct vend_point p = {3, -4}, q = {10, 20};
    const uint8_t bytes[] = {1, 2, 3, 250};
    const char *none = vend_name(9);
    struct vend_point m = vend_mid(p, q);

    printf("vend_add(2, 3) = %d\n", vend_add(2, 3));
    printf("vend_add(-7, 2147483647) = %d\n", vend_add(-7, 2147483647));
    printf("vend_name(1) = %s\n", vend_name(1));
    printf("vend_name(2) = %s\n", vend_name(2));
    printf("vend_name(9) = %s\n", none ? none : "(null)");
    printf("vend_scale(1.5, 3) = %.17g\n", vend_scale(1.5, 3));
    printf("vend_scale(-0.1, 7) = %.17g\n", vend_scale(-0.1, 7));
    printf("vend_dist({3, -4}) = %d\n", vend_dist(&p));
    vend_reset();
    printf("vend_set_mode(VEND_FAST) = %d\n", (int)vend_set_mode(VEND_FAST));
    printf("vend_set_mode(VEND_BROKEN) = %d\n", (int)vend_set_mode(VEND_BROKEN));
    printf("vend_set_mode(VEND_SLOW) = %d\n", (int)vend_set_mode(VEND_SLOW));
    printf("vend_paint(VEND_BLUE, 200) = %u\n", vend_paint(VEND_BLUE, 200));
    printf("vend_mix64(0x123456789abcdef0, -5) = 0x%016" PRIx64 "\n",
           vend_mix64(0x123456789abcdef0ull, -5));
    printf("vend_mix64(2^63, 2^62) = 0x%016" PRIx64 "\n", vend_mix64(1ull << 63, 1ll << 62));
    printf("vend_half(3) = %.9g\n", (double)vend_half(3.0f));
    printf("vend_is_even(4) = %d, vend_is_even(7) = %d\n", vend_is_even(4), vend_is_even(7));
    printf("vend_upper('q') = %c\n", vend_upper('q'));
    printf("vend_len(\"hello\") = %zu, vend_len(NULL) = %zu\n", vend_len("hello"), vend_len(NULL));
    printf("vend_checksum = 0x%08" PRIx32 "\n", vend_checksum(bytes, sizeof bytes));
    printf("vend_apply(twice, 21) = %d\n", vend_apply(twice, 21));
    printf("vend_sum(3, 1, 2, 3) = %d\n", vend_sum(3, 1, 2, 3));
    printf("vend_mid = {%d, %d}\n", m.x, m.y);
    printf("vend_precise(1) = %.6Lf\n", vend_precise(1.0L));
}

/* The C library's calls: through the wrappers of libc.sig. */
static void show_libc(const char *self)
{
    char magic[4] = {0};
    char *buf = malloc(64);
    int fd = open(self, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, magic, sizeof magic) : -1;

    printf("open + read: %zd bytes, %s\n", n,
           n == 4 && !memcmp(magic, "\177ELF", 4) ? "an ELF file" : "not an ELF file?");
    if (fd >= 0)
        close(fd);
    printf("open(missing) = %d\n", open("/nonexistent/wrapdemo", O_RDONLY));
    if (buf) {
        snprintf(buf, 64, "%s", "malloc'd");
        printf("malloc + free: %s\n", buf);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    (void)argc;
    show_vend();
    show_libc(argv[0]);
    return 0;
}
