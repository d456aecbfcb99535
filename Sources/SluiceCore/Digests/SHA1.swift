/// SHA-1 as specified in FIPS 180-4, section 6.1: for HMAC-SHA1 webhook signatures
/// (`x-hub-signature`), where it is still what senders use; never for anything new.
package enum SHA1 {
    package static let blockLength = 64

    /// The 20-byte digest of `message`.
    package static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var padded = Array(message)
        let bitLength = UInt64(padded.count) &* 8
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var words = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0 ..< 16 {
                let base = block + index * 4
                words[index] = UInt32(padded[base]) << 24 | UInt32(padded[base + 1]) << 16 | UInt32(padded[base + 2]) << 8 | UInt32(padded[base + 3])
            }
            for index in 16 ..< 80 {
                let mixed = words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16]
                words[index] = mixed << 1 | mixed >> 31
            }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for index in 0 ..< 80 {
                let (f, k): (UInt32, UInt32)
                switch index {
                case 0 ..< 20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20 ..< 40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40 ..< 60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temporary = (a << 5 | a >> 27) &+ f &+ e &+ k &+ words[index]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, temporary)
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in state { for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) } }
        return digest
    }
}

/// HMAC (RFC 2104) over any hash of 64-byte blocks: `H((K ^ opad) || H((K ^ ipad) || message))`.
package enum HMAC64 {
    package static func authenticationCode(key: [UInt8], message: some Collection<UInt8>, hash: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? hash(key) : key
        block.append(contentsOf: repeatElement(0, count: 64 - block.count))
        let inner = hash(block.map { $0 ^ 0x36 } + Array(message))
        return hash(block.map { $0 ^ 0x5c } + inner)
    }
}
