/* SPDX-License-Identifier: MIT */
/* real_zlib.c - a zlib workload for bench/decode_real.sh: every file named on stdin (one path a
 * line) is deflated at levels 1, 6 and 9 (the last with Z_FILTERED) through a 4 KB output
 * buffer, inflated back through a 1 KB one and checked against its crc32. Built against the
 * zlib sources with -finstrument-functions, so that the library's calls are traced: the deflate
 * and inflate state machines, the match finders, the Huffman coders, the checksums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned char out[4096], back[1024];

/* 0 when buf survives the round trip at level with strategy. */
static int roundtrip(const unsigned char *buf, size_t len, int level, int strategy)
{
    z_stream d = {0}, i = {0};
    unsigned char *z = malloc(compressBound((uLong)len) + 64);
    size_t zn = 0, bn = 0;
    uLong crc = crc32(0, buf, (uInt)len), crc2 = crc32(0, Z_NULL, 0);
    int rc;

    if (!z || deflateInit2(&d, level, Z_DEFLATED, 15, 8, strategy) != Z_OK) {
        free(z);
        return -1;
    }
    d.next_in = (unsigned char *)buf;
    d.avail_in = (uInt)len;
    do {
        d.next_out = out;
        d.avail_out = sizeof out;
        rc = deflate(&d, Z_FINISH);
        memcpy(z + zn, out, sizeof out - d.avail_out);
        zn += sizeof out - d.avail_out;
    } while (rc == Z_OK);
    deflateEnd(&d);
    if (inflateInit(&i) != Z_OK) {
        free(z);
        return -1;
    }
    i.next_in = z;
    i.avail_in = (uInt)zn;
    do {
        i.next_out = back;
        i.avail_out = sizeof back;
        rc = inflate(&i, Z_NO_FLUSH);
        crc2 = crc32(crc2, back, (uInt)(sizeof back - i.avail_out));
        bn += sizeof back - i.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&i);
    free(z);
    return rc == Z_STREAM_END && bn == len && crc == crc2 ? 0 : -1;
}

int main(void)
{
    static const int levels[] = {1, 6, 9};
    char path[4096];
    unsigned files = 0, bad = 0;

    while (fgets(path, sizeof path, stdin)) {
        unsigned char *buf;
        long len;
        FILE *f;

        path[strcspn(path, "\n")] = 0;
        if (!(f = fopen(path, "rb")))
            continue;
        if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (buf = malloc(len ? (size_t)len : 1))) {
            if (fread(buf, 1, (size_t)len, f) == (size_t)len) {
                for (unsigned k = 0; k < 3; k++)
                    bad += roundtrip(buf, (size_t)len, levels[k],
                                     k == 2 ? Z_FILTERED : Z_DEFAULT_STRATEGY) != 0;
                files++;
            }
            free(buf);
        }
        fclose(f);
    }
    printf("%u files, %u bad\n", files, bad);
    return bad != 0;
}
