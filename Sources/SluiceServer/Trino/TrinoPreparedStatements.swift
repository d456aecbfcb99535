import SluiceCore

/// Trino's prepared statements live in the client: `PREPARE` answers
/// `X-Trino-Added-Prepare: name=statement`, and the client sends every statement it keeps back
/// with each request in `X-Trino-Prepared-Statement: name=statement, …`, each statement
/// URL-encoded (`+` or `%20` for a space; both are read).
enum TrinoPreparedStatements {
    /// `statement` as Trino's server encodes it (Java's `URLEncoder`).
    static func encode(_ statement: String) -> String { URLEncoding.javaEncoded(statement) }

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
                let name = String(parts[0]).trimmingSpaces
                guard !name.isEmpty, let statement = Self.decode(component: parts[1]) else { return nil }
                statements[name.lowercased()] = statement
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
                guard let high = iterator.next().flatMap(HexDigits.value), let low = iterator.next().flatMap(HexDigits.value) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
