/* crc32.c - CRC-32, bitwise: 1 KB of table is not worth it for a once-per-boot checksum. */
#include "crc32.h"

#if defined(__GNUC__)
__attribute__((no_instrument_function))
#endif
uint32_t crc32_update(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;

    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
