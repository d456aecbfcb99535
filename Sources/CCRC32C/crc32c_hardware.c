// The processor's CRC-32C instruction over a buffer: eight bytes a step, then the tail a byte
// at a time. The instruction computes the same reflected Castagnoli CRC (polynomial 0x1EDC6F41,
// reflected 0x82F63B78) as SluiceCodecs' table-driven code, without the inversions, which the
// caller applies.
#include "crc32c_hardware.h"

#include <string.h>

// Long buffers run as three streams at once (the instruction takes three cycles and can start
// one a cycle, so one stream leaves two thirds of it idle), put together after: the register
// is linear, so the register over A B C from r is shift(reg(A, r), |B| + |C|) ^ shift(reg(B,
// 0), |C|) ^ reg(C, 0), where shifting by n bytes multiplies by x^(8n) modulo the polynomial
// (zlib's crc32_combine does the same for its CRC).
#define SLUICE_CRC32C_POLY 0x82F63B78u
#define SLUICE_CRC32C_STREAMS_FROM 65536

// a * b modulo the polynomial, both reflected (bit 31 is x^0).
static uint32_t sluice_crc32c_multiply(uint32_t a, uint32_t b) {
    uint32_t m = 1u << 31;
    uint32_t p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0) break;
        }
        m >>= 1;
        b = (b & 1) ? (b >> 1) ^ SLUICE_CRC32C_POLY : b >> 1;
    }
    return p;
}

// x^(2^k) modulo the polynomial, reflected.
static const uint32_t sluice_crc32c_powers[32] = {
    0x40000000, 0x20000000, 0x08000000, 0x00800000, 0x00008000, 0x82f63b78, 0x6ea2d55c, 0x18b8ea18,
    0x510ac59a, 0xb82be955, 0xb8fdb1e7, 0x88e56f72, 0x74c360a4, 0xe4172b16, 0x0d65762a, 0x35d73a62,
    0x28461564, 0xbf455269, 0xe2ea32dc, 0xfe7740e6, 0xf946610b, 0x3c204f8f, 0x538586e3, 0x59726915,
    0x734d5309, 0xbc1ac763, 0x7d0722cc, 0xd289cabe, 0xe94ca9bc, 0x05b74f3f, 0xa51e1f42, 0x40000000,
};

// The register `crc` moved past `bytes` zero bytes: times x^(8 bytes).
static uint32_t sluice_crc32c_shift(uint32_t crc, size_t bytes) {
    uint32_t power = 1u << 31;
    unsigned k = 3;
    while (bytes) {
        if (bytes & 1) power = sluice_crc32c_multiply(sluice_crc32c_powers[k & 31], power);
        bytes >>= 1;
        k += 1;
    }
    return sluice_crc32c_multiply(power, crc);
}

#if defined(__x86_64__)
#include <nmmintrin.h>

int sluice_crc32c_hardware_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

__attribute__((target("sse4.2")))
uint32_t sluice_crc32c_hardware_update(uint32_t crc, const uint8_t *data, size_t length) {
    if (length >= SLUICE_CRC32C_STREAMS_FROM) {
        size_t third = (length / 3) & ~(size_t)7;
        const uint8_t *b = data + third;
        const uint8_t *c = b + third;
        uint64_t ra = crc, rb = 0, rc = 0;
        for (size_t at = 0; at < third; at += 8) {
            uint64_t wa, wb, wc;
            memcpy(&wa, data + at, 8);
            memcpy(&wb, b + at, 8);
            memcpy(&wc, c + at, 8);
            ra = _mm_crc32_u64(ra, wa);
            rb = _mm_crc32_u64(rb, wb);
            rc = _mm_crc32_u64(rc, wc);
        }
        crc = sluice_crc32c_shift((uint32_t)ra, 2 * third) ^ sluice_crc32c_shift((uint32_t)rb, third) ^ (uint32_t)rc;
        data += 3 * third;
        length -= 3 * third;
    }
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
