/// Credentials written into URLs, `scheme://user:password@host/…` (RFC 3986 §3.2.1's userinfo),
/// found in any text and masked there.
///
/// The user name stays (it says whose credentials they were); the password, or the whole
/// userinfo when it has no `:` (a token used as the user, as in `https://TOKEN@host`), becomes
/// ``SecretOptions/mask``. A password must be percent-encoded where it holds `/`, `?` or `#`,
/// as the RFC requires; an `@` in it is allowed (the last `@` before the host ends the userinfo).
package enum URLCredentials {
    /// `text` with the secret part of every URL's userinfo masked.
    ///
    /// In prose (the default) quotes, brackets, commas and semicolons end a URL's authority too,
    /// as they surround URLs in messages; for `text` that is one value, such as an option's,
    /// `inProse: false` lets a password hold them.
    package static func masking(in text: String, inProse: Bool = true) -> String {
        let bytes = Array(text.utf8)
        let ranges = secretRanges(in: bytes, inProse: inProse)
        guard !ranges.isEmpty else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        for range in ranges {
            result += bytes[copied ..< range.lowerBound]
            result += SecretOptions.mask.utf8
            copied = range.upperBound
        }
        result += bytes[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// The secret parts of the userinfo of every URL in `text`, in order.
    package static func secrets(in text: String, inProse: Bool = true) -> [String] {
        let bytes = Array(text.utf8)
        return secretRanges(in: bytes, inProse: inProse).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    /// The byte ranges of the secret parts, ascending and disjoint.
    static func secretRanges(in bytes: [UInt8], inProse: Bool) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 1
        while index + 2 < bytes.count {
            // `://` after a scheme character starts an authority.
            guard bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/"),
                isSchemeByte(bytes[index - 1])
            else {
                index += 1
                continue
            }
            let authorityStart = index + 3
            var end = authorityStart
            var lastAt: Int?
            while end < bytes.count, !endsAuthority(bytes[end], inProse: inProse) {
                if bytes[end] == UInt8(ascii: "@") { lastAt = end }
                end += 1
            }
            if let lastAt {
                let colon = bytes[authorityStart ..< lastAt].firstIndex(of: UInt8(ascii: ":"))
                let secretStart = colon.map { $0 + 1 } ?? authorityStart
                if secretStart < lastAt { ranges.append(secretStart ..< lastAt) }
            }
            // A JDBC URL carries its password as a query parameter
            // (`jdbc:postgresql://host/db?user=u&password=p`).
            if end < bytes.count, bytes[end] != UInt8(ascii: "#") {
                var cursor = end
                while cursor < bytes.count, !endsQuery(bytes[cursor], inProse: inProse) {
                    let parameterStart = cursor
                    while cursor < bytes.count, bytes[cursor] != UInt8(ascii: "&"), !endsQuery(bytes[cursor], inProse: inProse) { cursor += 1 }
                    let parameter = bytes[parameterStart ..< cursor]
                    let name = Array("password=".utf8)
                    var nameStart = parameterStart
                    if let first = parameter.first, first == UInt8(ascii: "?") || first == UInt8(ascii: "/") {
                        nameStart = parameter.firstIndex(of: UInt8(ascii: "?")).map { $0 + 1 } ?? cursor
                    }
                    if cursor - nameStart > name.count,
                        bytes[nameStart ..< nameStart + name.count].map({ $0 | 0x20 }).elementsEqual(name.map { $0 | 0x20 }) {
                        ranges.append(nameStart + name.count ..< cursor)
                    }
                    if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "&") { cursor += 1 }
                }
                end = cursor
            }
            index = max(end, index + 1)
        }
        return ranges
    }

    /// Bytes that end a URL's path and query: a fragment, white space, and in prose what
    /// surrounds a URL in messages.
    private static func endsQuery(_ byte: UInt8, inProse: Bool) -> Bool {
        byte != UInt8(ascii: "/") && byte != UInt8(ascii: "?") && endsAuthority(byte, inProse: inProse)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }

    /// Bytes that end a URL's authority: the path, query and fragment delimiters and white
    /// space, and in prose what surrounds a URL in messages, SQL or JSON (quotes, brackets,
    /// commas).
    private static func endsAuthority(_ byte: UInt8, inProse: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"),
            UInt8(ascii: "\r"):
            true
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\\"):
            inProse
        default:
            false
        }
    }
}
