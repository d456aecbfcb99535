import SluiceCore
import SluiceCrypto

/// PBKDF2-HMAC-SHA-256 (RFC 8018, section 5.2), the `Hi()` function of SCRAM (RFC 5802, section
/// 2.2), by the system's libcrypto (SluiceCrypto): a login's one expensive step.
package enum PBKDF2 {
    /// Derives one 32-byte block: `Hi(password, salt, iterations)`.
    ///
    /// - Complexity: `2 * iterations` SHA-256 compressions after the key is padded.
    package static func hi(password: some Collection<UInt8>, salt: [UInt8], iterations: Int) -> [UInt8] {
        Digest.pbkdf2SHA256(password: Array(password), salt: salt, iterations: iterations)
    }
}
