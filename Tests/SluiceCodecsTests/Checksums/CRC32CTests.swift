import Testing

@testable import SluiceCodecs

@Suite struct CRC32CTests {
    // RFC 3720 (iSCSI), appendix B.4: CRC-32C of 32-byte test patterns.
    static let rfc3720Vectors: [(bytes: [UInt8], crc: UInt32)] = [
        ([UInt8](repeating: 0, count: 32), 0x8A91_36AA),
        ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
        ((0..<32).map { UInt8($0) }, 0x46DD_794E),
        ((0..<32).reversed().map { UInt8($0) }, 0x113F_DB5C),
    ]

    @Test func rfc3720Vectors() {
        for vector in Self.rfc3720Vectors {
            #expect(CRC32C.checksum(vector.bytes) == vector.crc)
        }
    }

    @Test func checkValueOfTheDigitsOneToNine() {
        // The "check" value of the CRC catalogue entry CRC-32/ISCSI.
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func emptyInputIsZeroAndLeavesARunningValueUnchanged() {
        #expect(CRC32C.checksum([]) == 0)
        var crc = CRC32C()
        crc.update(Array("12345".utf8))
        let before = crc.checksum
        crc.update([])
        #expect(crc.checksum == before)
    }

    @Test func slicedLoopAgreesWithTheBytewiseDefinition() {
        // Every length 0...80 crosses the 8-byte blocks at a different place, and every start
        // offset 0...7 misaligns the loads differently.
        var random = XorshiftGenerator(seed: 7)
        let bytes = (0..<96).map { _ in UInt8.random(in: 0...255, using: &random) }
        for start in 0..<8 {
            for length in 0...80 {
                let slice = Array(bytes[start..<start + length])
                #expect(CRC32C.checksum(slice) == bytewiseCRC32C(slice), "start \(start), length \(length)")
            }
        }
    }

    /// The table-driven loop, which processors without the CRC-32C instruction run, checked here
    /// even where the instruction is used.
    @Test func tableLoopAgreesWithTheBytewiseDefinition() {
        var random = XorshiftGenerator(seed: 11)
        let bytes = (0..<96).map { _ in UInt8.random(in: 0...255, using: &random) }
        for start in 0..<8 {
            for length in 0...80 {
                let slice = Array(bytes[start..<start + length])
                let register = slice.withUnsafeBytes { CRC32C.advanceByTables(0xFFFF_FFFF, over: $0) }
                #expect(~register == bytewiseCRC32C(slice), "start \(start), length \(length)")
            }
        }
    }

    /// Buffers of 64 KiB and more run as three streams put together after: the same registers as
    /// the table loop, from any register, whatever the length's remainder and the start's
    /// alignment.
    @Test func longBuffersAgreeWithTheTableLoop() {
        var random = XorshiftGenerator(seed: 29)
        let bytes = (0..<(300 << 10)).map { _ in UInt8.random(in: 0...255, using: &random) }
        for length in [65_536, 65_537, 65_543, 65_551, 98_765, 196_608 + 23, 300 << 10 - 8] {
            for start in [0, 1, 5] {
                let slice = Array(bytes[start..<start + min(length, bytes.count - start)])
                let register = UInt32.random(in: 0...UInt32.max, using: &random)
                let expected = slice.withUnsafeBytes { CRC32C.advanceByTables(register, over: $0) }
                var crc = CRC32C(continuing: ~register)
                crc.update(slice)
                #expect(crc.checksum == ~expected, "start \(start), length \(length)")
            }
        }
    }

    @Test func incrementalEqualsOneShotOnRandomSplits() {
        var random = XorshiftGenerator(seed: 20_240_611)
        for _ in 0..<200 {
            let count = Int.random(in: 0...4_096, using: &random)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            var cuts = (0..<Int.random(in: 0...6, using: &random)).map { _ in Int.random(in: 0...count, using: &random) }
            cuts.sort()
            var crc = CRC32C()
            var start = 0
            for cut in cuts + [count] {
                bytes[start..<cut].withUnsafeBytes { crc.update($0) }
                start = cut
            }
            let expected = CRC32C.checksum(bytes)
            #expect(crc.checksum == expected)

            // Resuming from a finished checksum continues the same CRC.
            let middle = count / 2
            var resumed = CRC32C(continuing: CRC32C.checksum(Array(bytes[..<middle])))
            resumed.update(Array(bytes[middle...]))
            #expect(resumed.checksum == expected)
        }
    }

    /// The definition, a bit at a time: the oracle for the table-driven loop.
    private func bytewiseCRC32C(_ bytes: [UInt8]) -> UInt32 {
        var register: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            register ^= UInt32(byte)
            for _ in 0..<8 {
                register = register & 1 == 1 ? (register >> 1) ^ 0x82F6_3B78 : register >> 1
            }
        }
        return ~register
    }
}

/// Xorshift64, for reproducible test bytes: this test target depends on SluiceCodecs alone, so
/// SluiceCore's SplitMix64 is out of reach, and the quality of the numbers does not matter here.
private struct XorshiftGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed | 1  // Xorshift never leaves zero.
    }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
