import SluiceCore
import Testing
@testable import SluiceAuth

@Suite struct SHA256Tests {
    // FIPS 180-2 appendix B and the NIST example values.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func fipsVectors(input: String, digest: String) {
        #expect(hex(SHA256.hash(Array(input.utf8))) == digest)
    }

    @Test func millionAs() {
        var hasher = SHA256()
        let block = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0 ..< 1000 { hasher.update(block) }
        #expect(hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func incrementalUpdatesMatchOneShot() {
        let input = Array((0 ..< 300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        for split in [0, 1, 55, 56, 63, 64, 65, 128, 299] {
            var hasher = SHA256()
            hasher.update(input[..<split])
            hasher.update(input[split...])
            #expect(hasher.finalize() == SHA256.hash(input))
        }
    }
}

@Suite struct HMACTests {
    // RFC 4231, section 4.
    @Test func rfc4231TestCase1() {
        let mac = HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20))
        #expect(hex(mac) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test func rfc4231TestCase2() {
        let mac = HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func rfc4231TestCase3() {
        let mac = HMACSHA256.authenticationCode(for: [UInt8](repeating: 0xdd, count: 50), key: [UInt8](repeating: 0xaa, count: 20))
        #expect(hex(mac) == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
    }

    @Test func rfc4231TestCase6KeyLongerThanBlock() {
        let mac = HMACSHA256.authenticationCode(
            for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            key: [UInt8](repeating: 0xaa, count: 131)
        )
        #expect(hex(mac) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}

@Suite struct PBKDF2Tests {
    // PBKDF2-HMAC-SHA256 vectors (RFC 7914, section 11, and the widely published P="password", S="salt" set).
    @Test(arguments: [
        (1, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"),
        (2, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"),
        (4096, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
    ])
    func passwordSalt(iterations: Int, expected: String) {
        #expect(hex(PBKDF2.hi(password: Array("password".utf8), salt: Array("salt".utf8), iterations: iterations)) == expected)
    }
}

@Suite struct Base64Tests {
    @Test func roundTrips() {
        for length in 0 ..< 20 {
            let bytes = (0 ..< length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode(Array("n,,".utf8)) == "biws")
        #expect(Base64.decode("biw") == nil)
        #expect(Base64.decode("b=ws") == nil)
        #expect(Base64.decode("bi*s") == nil)
    }
}

/// Lowercase hexadecimal, as test vectors are written.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return byte < 16 ? "0" + digits : digits
    }.joined()
}
