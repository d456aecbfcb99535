/// Trino's prepared statements live in the client: `PREPARE` answers
/// `X-Trino-Added-Prepare: name=statement`, and the client sends every statement it keeps back
/// with each request in `X-Trino-Prepared-Statement: name=statement, …`, each statement
/// URL-encoded (Trino's clients use `%20` or `+` for a space; both are read).
enum TrinoPreparedStatements {
    /// `statement` URL-encoded: every byte but the unreserved ones as `%XX`.
    static func encode(_ statement: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(statement.utf8.count)
        for byte in statement.utf8 {
            switch byte {
            case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The statements of the headers' `name=statement` entries (comma-separated); nil when an
    /// entry is malformed or not UTF-8 once decoded.
    static func decode(_ headers: [String]) -> [String: String]? {
        var statements: [String: String] = [:]
        for header in headers {
            for entry in header.split(separator: ",") {
                let parts = entry.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else {
                    if entry.allSatisfy(\.isWhitespace) { continue }
                    return nil
                }
                let name = parts[0].trimmingPrefix(while: \.isWhitespace)
                guard !name.isEmpty, let statement = Self.decode(component: parts[1]) else { return nil }
                statements[String(name).trimmingSuffixWhitespace.lowercased()] = statement
            }
        }
        return statements
    }

    /// One URL-encoded component: `%XX` and `+` decoded; nil for a bad escape or bytes that are not UTF-8.
    static func decode(component: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(component.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

private extension String {
    var trimmingSuffixWhitespace: String {
        var text = self
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
