// The CRC-32C instruction of the processor (SSE 4.2 on x86-64, the CRC extension on ARMv8),
// for SluiceCodecs' CRC32C: Swift cannot reach it without C.
#ifndef SLUICE_CRC32C_HARDWARE_H
#define SLUICE_CRC32C_HARDWARE_H

#include <stddef.h>
#include <stdint.h>

// 1 when this processor has the instruction, else 0.
int sluice_crc32c_hardware_available(void);

// Runs the reflected CRC-32C register `crc` (no inversion in or out) over `length` bytes at
// `data`. Call only when sluice_crc32c_hardware_available() returned 1.
uint32_t sluice_crc32c_hardware_update(uint32_t crc, const uint8_t *data, size_t length);

#endif
