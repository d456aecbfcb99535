/// Standard base64 (RFC 4648, section 4) with padding, as SCRAM messages carry it and Java's
/// `java.util.Base64.getEncoder()` writes it (Iceberg partition paths of binary values).
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The base64 text of `bytes`.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(remaining > 1 ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil if it is not padded base64.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            var quad: UInt32 = 0
            var padding = 0
            for offset in 0 ..< 4 {
                let character = characters[index + offset]
                let isLastQuad = index + 4 == characters.count
                if character == UInt8(ascii: "="), isLastQuad, offset >= 2 {
                    padding += 1
                    quad <<= 6
                    continue
                }
                guard padding == 0, let sextet = sextet(of: character) else { return nil }
                quad = quad << 6 | sextet
            }
            out.append(UInt8(truncatingIfNeeded: quad >> 16))
            if padding < 2 { out.append(UInt8(truncatingIfNeeded: quad >> 8)) }
            if padding < 1 { out.append(UInt8(truncatingIfNeeded: quad)) }
            index += 4
        }
        return out
    }

    private static func sextet(of character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A") ... UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a") ... UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
