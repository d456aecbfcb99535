import SluiceCore

/// PBKDF2-HMAC-SHA-256 (RFC 8018, section 5.2), the `Hi()` function of SCRAM (RFC 5802, section 2.2).
package enum PBKDF2 {
    /// Derives one 32-byte block: `Hi(password, salt, iterations)`.
    ///
    /// - Complexity: `2 * iterations` SHA-256 compressions after the key is padded.
    package static func hi(password: some Collection<UInt8>, salt: [UInt8], iterations: Int) -> [UInt8] {
        precondition(iterations >= 1, "PBKDF2 needs at least one iteration")
        let keyed = HMACSHA256(key: password)
        // U1 = HMAC(password, salt || INT(1))
        var mac = keyed
        mac.update(salt + [0, 0, 0, 1])
        var previous = mac.finalize()
        var result = previous
        for _ in 1 ..< iterations {
            var next = keyed
            next.update(previous)
            previous = next.finalize()
            for byteIndex in 0 ..< result.count {
                result[byteIndex] ^= previous[byteIndex]
            }
        }
        return result
    }
}
