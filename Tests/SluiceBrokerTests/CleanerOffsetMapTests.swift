import Testing

@testable import SluiceBroker

@Suite struct CleanerOffsetMapTests {
    /// The reference implementation's vectors (`vectors.h`, `vectors_sip128`): key 00 01 … 0f,
    /// message 00 01 … (n − 1).
    @Test func sipHash128MatchesTheReferenceVectors() {
        let hasher = SipHash128(key0: 0x0706_0504_0302_0100, key1: 0x0f0e_0d0c_0b0a_0908)
        let vectors: [Int: [UInt8]] = [
            0: [0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02, 0x93],
            1: [0xda, 0x87, 0xc1, 0xd8, 0x6b, 0x99, 0xaf, 0x44, 0x34, 0x76, 0x59, 0x11, 0x9b, 0x22, 0xfc, 0x45],
            7: [0xa1, 0xf1, 0xeb, 0xbe, 0xd8, 0xdb, 0xc1, 0x53, 0xc0, 0xb8, 0x4a, 0xa6, 0x1f, 0xf0, 0x82, 0x39],
            8: [0x3b, 0x62, 0xa9, 0xba, 0x62, 0x58, 0xf5, 0x61, 0x0f, 0x83, 0xe2, 0x64, 0xf3, 0x14, 0x97, 0xb4],
            15: [0x54, 0x93, 0xe9, 0x99, 0x33, 0xb0, 0xa8, 0x11, 0x7e, 0x08, 0xec, 0x0f, 0x97, 0xcf, 0xc3, 0xd9],
            63: [0x51, 0x50, 0xd1, 0x77, 0x2f, 0x50, 0x83, 0x4a, 0x50, 0x3e, 0x06, 0x9a, 0x97, 0x3f, 0xbd, 0x7c],
        ]
        for (length, expected) in vectors {
            let message = (0 ..< length).map { UInt8($0) }
            let digest = message.withUnsafeBytes { hasher.digest($0) }
            let bytes = (0 ..< 8).map { UInt8(truncatingIfNeeded: digest.first >> ($0 * 8)) }
                + (0 ..< 8).map { UInt8(truncatingIfNeeded: digest.second >> ($0 * 8)) }
            #expect(bytes == expected, "length \(length)")
        }
    }

    @Test func keepsTheLatestOffsetOfEachKeyGrowsAndStopsAtItsCap() {
        let map = CleanerOffsetMap(maximumBytes: 4096 * 24)
        #expect(map.capacity == 3072)
        func digest(_ key: Int) -> KeyDigest {
            withUnsafeBytes(of: key) { map.digest($0) }
        }
        #expect(map.offset(of: digest(1)) == nil)
        #expect(map.put(digest(1), offset: 10) && map.put(digest(1), offset: 12))
        #expect(map.offset(of: digest(1)) == 12 && map.count == 1)
        var offset: Int64 = 100
        var accepted = 1
        for key in 2 ... 5000 {
            offset += 1
            if map.put(digest(key), offset: offset) { accepted += 1 } else { break }
        }
        // Full at three quarters of 4,096 slots: a new key is refused, a known one updated.
        #expect(accepted == map.capacity && map.count == map.capacity)
        #expect(map.bytes == 4096 * 24)
        #expect(!map.put(digest(9999), offset: offset + 1))
        #expect(map.put(digest(2), offset: offset + 2) && map.offset(of: digest(2)) == offset + 2)
        #expect(map.offset(of: digest(3)) == 102)
        map.clear()
        #expect(map.count == 0 && map.offset(of: digest(3)) == nil)
        map.release()
        #expect(map.bytes == 0)
    }
}
