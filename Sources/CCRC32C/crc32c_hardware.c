// The processor's CRC-32C instruction over a buffer: eight bytes a step, then the tail a byte
// at a time. The instruction computes the same reflected Castagnoli CRC (polynomial 0x1EDC6F41,
// reflected 0x82F63B78) as SluiceCodecs' table-driven code, without the inversions, which the
// caller applies.
#include "crc32c_hardware.h"

#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>

int sluice_crc32c_hardware_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

__attribute__((target("sse4.2")))
uint32_t sluice_crc32c_hardware_update(uint32_t crc, const uint8_t *data, size_t length) {
    uint64_t wide = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, data, 8);
        wide = _mm_crc32_u64(wide, word);
        data += 8;
        length -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    while (length > 0) {
        narrow = _mm_crc32_u8(narrow, *data);
        data += 1;
        length -= 1;
    }
    return narrow;
}

#elif defined(__aarch64__) && defined(__linux__)
#include <arm_acle.h>
#include <sys/auxv.h>
#include <asm/hwcap.h>

int sluice_crc32c_hardware_available(void) {
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? 1 : 0;
}

__attribute__((target("crc")))
uint32_t sluice_crc32c_hardware_update(uint32_t crc, const uint8_t *data, size_t length) {
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, data, 8);
        crc = __crc32cd(crc, word);
        data += 8;
        length -= 8;
    }
    while (length > 0) {
        crc = __crc32cb(crc, *data);
        data += 1;
        length -= 1;
    }
    return crc;
}

#else

int sluice_crc32c_hardware_available(void) { return 0; }

uint32_t sluice_crc32c_hardware_update(uint32_t crc, const uint8_t *data, size_t length) {
    (void)data;
    (void)length;
    return crc;
}

#endif
