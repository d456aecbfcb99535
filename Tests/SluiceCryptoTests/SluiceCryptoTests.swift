import SluiceCore
import SluiceCrypto
import Testing

struct SluiceCryptoTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// FIPS 180-2's examples.
    @Test func sha256KnownAnswers() {
        #expect(Self.hex(Digest.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(Digest.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// RFC 4231's test cases 1 and 2.
    @Test func hmacSHA256KnownAnswers() {
        #expect(Self.hex(Digest.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Self.hex(Digest.hmacSHA256(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// RFC 7914's PBKDF2-HMAC-SHA256 vector (P = "passwd", S = "salt", c = 1), first 32 bytes.
    @Test func pbkdf2KnownAnswer() {
        #expect(Self.hex(Digest.pbkdf2SHA256(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1))
            == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
    }

    @Test func aesGCMOpensWhatItSealedAndNothingElse() throws {
        let key = SecureRandom.bytes(32)
        for length in [0, 1, 15, 16, 17, 1000] {
            let plaintext = (0 ..< length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let sealed = try AESGCM.seal(plaintext, key: key)
            #expect(sealed.count == 12 + length + 16)
            #expect(try AESGCM.open(sealed, key: key) == plaintext)
            // A fresh nonce each time: the same plaintext seals differently.
            #expect(try AESGCM.seal(plaintext, key: key) != sealed)
            // Any changed byte, or another key, fails to open.
            for index in [0, 12, sealed.count - 1] {
                var changed = sealed
                changed[index] ^= 1
                #expect(throws: SluiceError.self) { try AESGCM.open(changed, key: key) }
            }
            #expect(throws: SluiceError.self) { try AESGCM.open(sealed, key: SecureRandom.bytes(32)) }
        }
        #expect(throws: SluiceError.self) { try AESGCM.open([1, 2, 3], key: key) }
    }

    /// NIST's GCM test vector (AES-256, 96-bit IV, test case 16 of the GCM specification) through
    /// the sealed layout: nonce, ciphertext, tag.
    @Test func aesGCMKnownAnswer() throws {
        func bytes(_ hex: String) -> [UInt8] {
            var result: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                result.append(UInt8(hex[index ..< next], radix: 16)!)
                index = next
            }
            return result
        }
        let key = bytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let nonce = bytes("cafebabefacedbaddecaf888")
        let ciphertext = bytes("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad")
        let tag = bytes("b094dac5d93471bdec1a502270e3cc6c")
        let plaintext = bytes("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")
        #expect(try AESGCM.open(nonce + ciphertext + tag, key: key) == plaintext)
    }
}
