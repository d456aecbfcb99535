/// SHA-256 as specified in FIPS 180-4, section 6.2.
///
/// Written for SCRAM-SHA-256 authentication, where only short inputs are hashed, so it favours
/// clarity over speed; it still avoids per-block allocation because PBKDF2 hashes thousands of blocks.
package struct SHA256: Sendable {
    /// The digest length in bytes.
    package static let digestLength = 32
    /// The block length in bytes.
    package static let blockLength = 64

    // FIPS 180-4, section 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    // FIPS 180-4, section 5.3.3.
    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    private var state: [UInt32]
    private var pending: [UInt8]
    private var compressedBlocks: UInt64

    /// A hasher that has consumed no input yet.
    package init() {
        state = Self.initialState
        pending = []
        pending.reserveCapacity(Self.blockLength)
        compressedBlocks = 0
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Feeds more input.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            pending.append(byte)
            if pending.count == Self.blockLength {
                compressPendingBlock()
            }
        }
    }

    /// Pads the message (FIPS 180-4, section 5.1.1) and returns the digest.
    package mutating func finalize() -> [UInt8] {
        let bitLength = totalBytesFed &* 8
        pending.append(0x80)
        if pending.count > Self.blockLength - 8 {
            while pending.count < Self.blockLength { pending.append(0) }
            compressPendingBlock()
        }
        while pending.count < Self.blockLength - 8 { pending.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        compressPendingBlock()
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestLength)
        for word in state {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    private var totalBytesFed: UInt64 {
        compressedBlocks &* UInt64(Self.blockLength) &+ UInt64(pending.count)
    }

    private mutating func compressPendingBlock() {
        pending.withUnsafeBufferPointer { block in
            Self.compress(block, into: &state)
        }
        pending.removeAll(keepingCapacity: true)
        compressedBlocks &+= 1
    }

    // FIPS 180-4, section 6.2.2: the SHA-256 hash computation for one 512-bit block.
    private static func compress(_ block: UnsafeBufferPointer<UInt8>, into state: inout [UInt32]) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for wordIndex in 0 ..< 16 {
                let offset = wordIndex * 4
                schedule[wordIndex] = UInt32(block[offset]) << 24 | UInt32(block[offset + 1]) << 16
                    | UInt32(block[offset + 2]) << 8 | UInt32(block[offset + 3])
            }
            for wordIndex in 16 ..< 64 {
                let w15 = schedule[wordIndex - 15]
                let w2 = schedule[wordIndex - 2]
                let sigma0 = rotateRight(w15, 7) ^ rotateRight(w15, 18) ^ (w15 >> 3)
                let sigma1 = rotateRight(w2, 17) ^ rotateRight(w2, 19) ^ (w2 >> 10)
                schedule[wordIndex] = schedule[wordIndex - 16] &+ sigma0 &+ schedule[wordIndex - 7] &+ sigma1
            }
            var a = state[0], b = state[1], c = state[2], d = state[3]
            var e = state[4], f = state[5], g = state[6], h = state[7]
            roundConstants.withUnsafeBufferPointer { constants in
                for round in 0 ..< 64 {
                    let bigSigma1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let temp1 = h &+ bigSigma1 &+ choice &+ constants[round] &+ schedule[round]
                    let bigSigma0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let temp2 = bigSigma0 &+ majority
                    h = g; g = f; f = e; e = d &+ temp1
                    d = c; c = b; b = a; a = temp1 &+ temp2
                }
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
            state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
        }
    }

    @inline(__always)
    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
