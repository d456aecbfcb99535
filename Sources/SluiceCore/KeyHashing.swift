/// Fast, non-cryptographic hashes of keys for the hash tables of joins and group-bys: integer
/// keys through SplitMix64's finalizer, byte strings (encoded keys, strings) folded eight bytes at
/// a time and then finalized. Hash flooding is not a concern here: the keys are the user's own
/// data, in the user's own queries.
package enum KeyHashing {
    /// SplitMix64's finalizer: every input bit moves every output bit.
    @inlinable @inline(__always)
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A hash of a byte string, eight bytes at a time, the length folded in.
    @inlinable @inline(__always)
    package static func bytes(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        return mix(hash ^ tail)
    }
}
