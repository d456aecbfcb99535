// SluiceCrypto: the few primitives Sluice needs beyond SCRAM's (SluiceAuth), from the system's
// OpenSSL libcrypto: SHA-256 and HMAC-SHA256 (S3's Signature Version 4, the REST catalog's
// tokens), AES-256-GCM (the catalog's sealed secrets) and random bytes.
import CLibCrypto
import SluiceCore

package enum Digest {
    /// SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(status == 1 && length == 32, "SHA-256 failed")
        return digest
    }

    /// HMAC-SHA256 of `bytes` under `key` (32 bytes).
    package static func hmacSHA256(key: [UInt8], _ bytes: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            bytes.withUnsafeBytes { input in
                HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, &mac, &length)
            }
        }
        precondition(result != nil && length == 32, "HMAC-SHA256 failed")
        return mac
    }

    /// PBKDF2-HMAC-SHA-256 (RFC 8018), one 32-byte block: SCRAM's `Hi(password, salt, iterations)`.
    package static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        precondition(iterations >= 1 && iterations <= Int(Int32.max), "PBKDF2 needs one iteration or more")
        var key = [UInt8](repeating: 0, count: 32)
        let status = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBufferPointer { saltBytes in
                PKCS5_PBKDF2_HMAC(
                    passwordBytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(passwordBytes.count), saltBytes.baseAddress,
                    Int32(saltBytes.count), Int32(iterations), EVP_sha256(), 32, &key)
            }
        }
        precondition(status == 1, "PBKDF2 failed")
        return key
    }

    /// Whether `a` and `b` are equal, in time that does not depend on where they differ.
    package static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

package enum SecureRandom {
    /// `count` bytes from the system's cryptographic generator.
    package static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "no random bytes")
        return bytes
    }
}

/// AES-256-GCM with a random 12-byte nonce: a sealed value is nonce, ciphertext and 16-byte tag.
package enum AESGCM {
    static let nonceLength = 12
    static let tagLength = 16

    /// `plaintext` sealed under `key` (32 bytes).
    package static func seal(_ plaintext: [UInt8], key: [UInt8]) throws(SluiceError) -> [UInt8] {
        precondition(key.count == 32, "AES-256 takes a 32-byte key")
        let nonce = SecureRandom.bytes(nonceLength)
        guard let context = EVP_CIPHER_CTX_new() else { throw SluiceError(.outOfMemory, "no cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: tagLength)
        var written: Int32 = 0
        var finished: Int32 = 0
        let ok = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
            && plaintext.withUnsafeBufferPointer { EVP_EncryptUpdate(context, &ciphertext, &written, $0.baseAddress, Int32($0.count)) } == 1
            && ciphertext.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(context, $0.baseAddress! + Int(written), &finished) } == 1
            // EVP_CTRL_GCM_GET_TAG
            && EVP_CIPHER_CTX_ctrl(context, 0x10, Int32(tagLength), &tag) == 1
        guard ok else { throw SluiceError(.internalError, "AES-GCM sealing failed") }
        return nonce + ciphertext[0 ..< Int(written + finished)] + tag
    }

    /// The plaintext of `sealed` (from ``seal(_:key:)``); fails if it was changed or the key is another.
    package static func open(_ sealed: [UInt8], key: [UInt8]) throws(SluiceError) -> [UInt8] {
        precondition(key.count == 32, "AES-256 takes a 32-byte key")
        guard sealed.count >= nonceLength + tagLength else { throw SluiceError(.dataCorrupted, "a sealed value too short to hold its nonce and tag") }
        let nonce = Array(sealed[0 ..< nonceLength])
        let ciphertext = Array(sealed[nonceLength ..< sealed.count - tagLength])
        var tag = Array(sealed[(sealed.count - tagLength)...])
        guard let context = EVP_CIPHER_CTX_new() else { throw SluiceError(.outOfMemory, "no cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        var finished: Int32 = 0
        let ok = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
            && ciphertext.withUnsafeBufferPointer { EVP_DecryptUpdate(context, &plaintext, &written, $0.baseAddress, Int32($0.count)) } == 1
            // EVP_CTRL_GCM_SET_TAG
            && EVP_CIPHER_CTX_ctrl(context, 0x11, Int32(tagLength), &tag) == 1
            && plaintext.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(context, $0.baseAddress! + Int(written), &finished) } == 1
        guard ok else { throw SluiceError(.dataCorrupted, "a sealed value does not open with this key (changed, or sealed under another)") }
        return Array(plaintext[0 ..< Int(written + finished)])
    }
}
