/// A record key reduced to 16 bytes: what the log cleaner's offset map stores in place of the key.
///
/// Two different keys get the same digest with probability 2⁻¹²⁸ per pair (as Kafka's cleaner
/// trusts MD5's 16 bytes); the digest is keyed with a secret drawn per map, so a producer cannot
/// choose keys that collide on purpose and make the cleaner drop another key's record.
struct KeyDigest: Hashable {
    var first: UInt64
    var second: UInt64
}

/// SipHash-2-4 with its 128-bit output (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
/// and the reference implementation's `siphash.c` with `outlen == 16`): a keyed hash that is fast
/// on short inputs such as record keys and allocates nothing.
struct SipHash128 {
    private let key0: UInt64
    private let key1: UInt64

    /// A hasher with the 16-byte secret `key0 ‖ key1` (each little-endian, as the reference reads
    /// the key bytes).
    init(key0: UInt64, key1: UInt64) {
        self.key0 = key0
        self.key1 = key1
    }

    /// A hasher with a secret from the system's random source.
    init() {
        var generator = SystemRandomNumberGenerator()
        self.init(key0: generator.next(), key1: generator.next())
    }

    /// The 128-bit tag of `bytes`: `first` holds its bytes 0–7 and `second` bytes 8–15, each
    /// little-endian.
    /// - Complexity: O(n), two SipRounds per 8 bytes plus ten to finish.
    func digest(_ bytes: UnsafeRawBufferPointer) -> KeyDigest {
        var state = State(
            v0: 0x736f_6d65_7073_6575 ^ key0, v1: 0x646f_7261_6e64_6f6d ^ key1 ^ 0xee,
            v2: 0x6c79_6765_6e65_7261 ^ key0, v3: 0x7465_6462_7974_6573 ^ key1)
        let count = bytes.count
        let whole = count & ~7
        var index = 0
        while index < whole {
            state.compress(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian)
            index += 8
        }
        // The last word: the remaining bytes, little-endian, under the length's low byte.
        var last = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        while index < count {
            last |= UInt64(bytes[index]) << shift
            shift += 8
            index += 1
        }
        state.compress(last)
        state.v2 ^= 0xee
        state.rounds(4)
        let first = state.v0 ^ state.v1 ^ state.v2 ^ state.v3
        state.v1 ^= 0xdd
        state.rounds(4)
        return KeyDigest(first: first, second: state.v0 ^ state.v1 ^ state.v2 ^ state.v3)
    }

    private struct State {
        var v0: UInt64
        var v1: UInt64
        var v2: UInt64
        var v3: UInt64

        /// Absorbs one message word with two SipRounds.
        mutating func compress(_ word: UInt64) {
            v3 ^= word
            rounds(2)
            v0 ^= word
        }

        mutating func rounds(_ count: Int) {
            for _ in 0 ..< count {
                v0 &+= v1
                v1 = v1.rotatedLeft(13) ^ v0
                v0 = v0.rotatedLeft(32)
                v2 &+= v3
                v3 = v3.rotatedLeft(16) ^ v2
                v0 &+= v3
                v3 = v3.rotatedLeft(21) ^ v0
                v2 &+= v1
                v1 = v1.rotatedLeft(17) ^ v2
                v2 = v2.rotatedLeft(32)
            }
        }
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
