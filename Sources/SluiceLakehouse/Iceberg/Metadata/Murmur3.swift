/// MurmurHash3 x86 32-bit with seed 0, the hash Iceberg's `bucket` transform uses
/// (Iceberg spec: Appendix B, "32-bit Hash Requirements").
package enum Murmur3 {
    /// The hash of `bytes` as Java's Guava `murmur3_32` returns it, as a signed 32-bit value.
    /// - Complexity: O(n).
    package static func hash32<Bytes: Collection>(_ bytes: Bytes, seed: UInt32 = 0) -> Int32 where Bytes.Element == UInt8 {
        let c1: UInt32 = 0xcc9e_2d51
        let c2: UInt32 = 0x1b87_3593
        var h1 = seed
        var block: UInt32 = 0
        var blockLength = 0
        var total = 0
        for byte in bytes {
            // Little-endian 4-byte blocks.
            block |= UInt32(byte) << (8 * UInt32(blockLength))
            blockLength += 1
            total += 1
            if blockLength == 4 {
                h1 ^= mixK1(block, c1, c2)
                h1 = rotateLeft(h1, 13) &* 5 &+ 0xe654_6b64
                block = 0
                blockLength = 0
            }
        }
        if blockLength > 0 { h1 ^= mixK1(block, c1, c2) }
        h1 ^= UInt32(truncatingIfNeeded: total)
        h1 ^= h1 >> 16
        h1 &*= 0x85eb_ca6b
        h1 ^= h1 >> 13
        h1 &*= 0xc2b2_ae35
        h1 ^= h1 >> 16
        return Int32(bitPattern: h1)
    }

    @inline(__always)
    private static func mixK1(_ k: UInt32, _ c1: UInt32, _ c2: UInt32) -> UInt32 {
        rotateLeft(k &* c1, 15) &* c2
    }

    @inline(__always)
    private static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
