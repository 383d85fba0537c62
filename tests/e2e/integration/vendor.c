/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vendor.c - stands for a vendor's precompiled library in the integration firmware: built
 * plainly (no -finstrument-functions) into a library of its own, its calls traced through the
 * wrappers that cygtrace wrap writes from its DWARF (tools/cygtrace.mk: cygtrace_wrap;
 * tools/cygtrace.cmake: cygtrace_wrap()). */
int vendor_crc(int v, const char *tag);

int vendor_crc(int v, const char *tag)
{
    unsigned h = (unsigned)v;

    while (*tag)
        h = h * 31u + (unsigned char)*tag++;
    return (int)(h & 0xffffu);
}
