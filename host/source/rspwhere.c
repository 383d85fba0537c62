/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rspwhere.c - the address of a GDB server as --gdb= gives it.
 *
 * The syntax is checked here, when the options are read, so that a typo is an error at once and
 * not after a connect; whether the host resolves, the device opens and takes the baud rate is
 * the connect's to find out (wire.c). */
#include "source/rspwhere.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int parse_serial(const char *s, struct rspwhere *w, char *err, size_t errlen)
{
    const char *colon = strrchr(s, ':');
    struct stat st;
    size_t plen = strlen(s);

    w->serial = 1;
    w->baud = RSPWHERE_DEFAULT_BAUD;
    /* A path that exists as given wins: /dev/serial/by-path names hold colons of their own. */
    if (colon && stat(s, &st) != 0 && all_digits(colon + 1, strlen(colon + 1))) {
        unsigned long b = strtoul(colon + 1, NULL, 10);

        if (strlen(colon + 1) > 8 || b == 0) {
            snprintf(err, errlen, "%s: not a baud rate", colon + 1);
            return -1;
        }
        w->baud = (unsigned)b;
        plen = (size_t)(colon - s);
    }
    if (plen >= sizeof w->path) {
        snprintf(err, errlen, "device path too long");
        return -1;
    }
    memcpy(w->path, s, plen);
    w->path[plen] = 0;
    return 0;
}

int rspwhere_parse(const char *s, struct rspwhere *w, char *err, size_t errlen)
{
    const char *colon, *host;
    size_t hlen;
    unsigned long port;

    memset(w, 0, sizeof *w);
    if (!s || !*s) {
        snprintf(err, errlen, "empty address");
        return -1;
    }
    if (s[0] == '/')
        return parse_serial(s, w, err, errlen);
    if (!strncmp(s, "tcp:", 4))
        s += 4;
    colon = strrchr(s, ':');
    if (!colon) {
        snprintf(err, errlen, "not HOST:PORT or a serial device path");
        return -1;
    }
    host = s;
    hlen = (size_t)(colon - s);
    if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
        host++;
        hlen -= 2;
    } else if (memchr(host, ':', hlen)) {
        snprintf(err, errlen, "write an IPv6 address in brackets: [ADDR]:PORT");
        return -1;
    }
    port = all_digits(colon + 1, strlen(colon + 1)) && strlen(colon + 1) <= 5
               ? strtoul(colon + 1, NULL, 10)
               : 0;
    if (port == 0 || port > 65535) {
        snprintf(err, errlen, "'%s' is not a port number (1..65535)", colon + 1);
        return -1;
    }
    if (hlen >= sizeof w->host) {
        snprintf(err, errlen, "host name too long");
        return -1;
    }
    if (hlen == 0) {
        strcpy(w->host, "127.0.0.1");
    } else {
        memcpy(w->host, host, hlen);
        w->host[hlen] = 0;
    }
    snprintf(w->port, sizeof w->port, "%lu", port);
    return 0;
}
